#include "support/TestSupport.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace isam::test {

std::unique_ptr<Session> analyse(const std::string &text) {
  auto s = std::make_unique<Session>();
  s->loadText("test.isam", text);
  s->checkAll();
  return s;
}

std::vector<Diagnostic> withCode(Session &s, const std::string &code) {
  std::vector<Diagnostic> out;
  for (const auto &d : s.diagnostics().all())
    if (d.code == code)
      out.push_back(d);
  return out;
}

std::string rangeText(Session &s, const Diagnostic &d) {
  if (!d.range.valid())
    return "";
  return s.sources().text(d.range.file).substr(d.range.begin, d.range.end - d.range.begin);
}

std::string sourceDir() {
  return ISAMAP_SOURCE_DIR;
}

std::string samplePath(const std::string &name) {
  return sourceDir() + "/samples/" + name;
}

std::string tempFile(const std::string &group, const std::string &name, const std::string &text) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("isamap-" + group + "-" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::path p = dir / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunResult run(const std::string &command, const std::string &input) {
  namespace fs = std::filesystem;
  static int counter = 0;
  fs::path dir = fs::temp_directory_path() /
                 ("isamap-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  fs::create_directories(dir);
  std::string in = (dir / "in").string(), out = (dir / "out").string(),
              err = (dir / "err").string();
  std::ofstream(in, std::ios::binary) << input;
  std::string full = "(" + command + ") <'" + in + "' >'" + out + "' 2>'" + err + "'";
  int status = std::system(full.c_str());
  RunResult r;
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = readFile(out);
  r.err = readFile(err);
  fs::remove_all(dir);
  return r;
}

std::vector<std::pair<std::string, std::string>> smallSampleInstances() {
  std::vector<std::pair<std::string, std::string>> out;
  std::regex decl(R"(^\s*instance\s+([A-Za-z0-9_]+_(?:small|unit))\s*=)");
  std::vector<std::filesystem::path> files;
  for (const auto &entry : std::filesystem::directory_iterator(sourceDir() + "/samples"))
    if (entry.path().extension() == ".isam")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto &file : files) {
    std::istringstream lines(readFile(file.string()));
    std::smatch m;
    for (std::string line; std::getline(lines, line);)
      if (std::regex_search(line, m, decl))
        out.emplace_back(file.string(), m[1]);
  }
  return out;
}

} // namespace isam::test
