// Runs the fuzz entry point on files, for compilers without libFuzzer and for replaying a
// corpus or a crash: isamap_parse_replay FILE...
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", argv[i]);
      return 1;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string bytes = ss.str();
    // The whole file, then every prefix at a few cut points: truncation is the commonest damage.
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
    for (size_t cut = 1; cut < bytes.size(); cut += bytes.size() / 7 + 1)
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), cut);
  }
  std::printf("replayed %d inputs\n", argc - 1);
  return 0;
}
