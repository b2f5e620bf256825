// Helpers shared by the tests: analysing a text in memory, finding diagnostics by code, and
// running the real binary.
#pragma once

#include "driver/Session.h"

#include <memory>
#include <string>
#include <vector>

namespace isam::test {

// A session over `text` (named "test.isam") with every check run.
std::unique_ptr<Session> analyse(const std::string &text);

// The diagnostics with this code.
std::vector<Diagnostic> withCode(Session &s, const std::string &code);

// The text a diagnostic's range covers.
std::string rangeText(Session &s, const Diagnostic &d);

std::string sourceDir();
std::string samplePath(const std::string &name); // samples/NAME in the source tree
// Writes `text` to NAME in a per-process temporary directory named after `group`.
std::string tempFile(const std::string &group, const std::string &name, const std::string &text);
std::string readFile(const std::string &path);

// (sample file, instance) for every instance named *_small or *_unit in samples/*.isam, in
// file order: the sizes every end-to-end test runs.
std::vector<std::pair<std::string, std::string>> smallSampleInstances();

struct RunResult {
  int exitCode = -1;
  std::string out, err;
};
// Runs a command line (through /bin/sh) with stdin from `input`, capturing both streams.
RunResult run(const std::string &command, const std::string &input = "");

} // namespace isam::test
