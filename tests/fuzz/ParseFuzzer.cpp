// libFuzzer entry point: any bytes must parse and analyse without crashing or hanging.
#include "driver/Session.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  isam::Session session;
  session.loadText("fuzz.isam", std::string(reinterpret_cast<const char *>(data), size));
  session.checkAll();
  return 0;
}
