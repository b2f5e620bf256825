// Runs a fuzz entry point on files, for compilers without libFuzzer, for replaying a seed
// corpus in ctest and for reproducing a crash: isamap_<target>_replay PATH..., where a
// directory stands for the files in it (recursively). Each file is run whole, then cut at a
// few points: truncation is the commonest damage.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {

void runOn(const std::string &bytes) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  for (size_t cut = 1; cut < bytes.size(); cut += bytes.size() / 7 + 1)
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), cut);
}

} // namespace

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (fs::is_directory(argv[i], ec)) {
      for (const auto &entry : fs::recursive_directory_iterator(argv[i]))
        if (entry.is_regular_file())
          files.push_back(entry.path());
    } else {
      files.push_back(argv[i]);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s FILE|DIRECTORY...: nothing to replay\n", argv[0]);
    return 2;
  }
  for (const auto &file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", file.c_str());
      return 1;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    runOn(ss.str());
  }
  std::printf("replayed %zu inputs\n", files.size());
  return 0;
}
