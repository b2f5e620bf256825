// clang-16's probe for the fuzz targets: Debian's ANTLR 4.9 runtime headers compile with it
// (C++17), and libFuzzer with AddressSanitizer links and runs.
#include <antlr4-runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The stream decodes UTF-8 and throws on invalid input, as the parser's callers know.
  try {
    antlr4::ANTLRInputStream input(std::string(reinterpret_cast<const char *>(data), size));
    return input.size() <= size ? 0 : 1;
  } catch (const std::exception &) {
    return 0;
  }
}
