#include "ReferenceCheck.h"

#include "source/Quantities.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <unistd.h>

namespace isam::cli {

void addReferenceOption(CLI::App &cmd, interp::Reference &reference) {
  cmd.add_option_function<std::string>(
         "--reference",
         [&reference](const std::string &v) {
           reference = v == "points" ? interp::Reference::Points : interp::Reference::Rows;
         },
         "The reference interpreter: rows (the default: a row of points at a time, on every "
         "core) or points (the oracle of record, one point at a time; ~50x slower, same bits)")
      ->check(CLI::IsMember({"rows", "points"}).description(""))
      ->type_name("rows|points");
}

namespace {

// ISAMAP_PROGRESS: auto (the default: only runs that take a while), always (from the first
// report, and a last line when done: for CI logs) or never.
enum class ProgressMode { Auto, Always, Never };

ProgressMode progressMode() {
  const char *env = std::getenv("ISAMAP_PROGRESS");
  std::string v = env ? env : "";
  return v == "always"  ? ProgressMode::Always
         : v == "never" ? ProgressMode::Never
                        : ProgressMode::Auto;
}

struct ProgressState {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now(), lastLine;
  bool shown = false, drawn = false;
};

} // namespace

interp::RowProgress progressOnStderr(const std::string &instance, const std::string &what) {
  ProgressMode mode = progressMode();
  if (mode == ProgressMode::Never)
    return {};
  bool tty = isatty(STDERR_FILENO) != 0;
  auto state = std::make_shared<ProgressState>();
  return [tty, mode, instance, what, state](double done) {
    auto now = std::chrono::steady_clock::now();
    double elapsed = std::chrono::duration<double>(now - state->start).count();
    if (done >= 1.0) {
      if (state->drawn)
        std::cerr << "\r\033[K" << std::flush;
      else if (mode == ProgressMode::Always)
        std::cerr << instance << " " << what << " run: 100% done in "
                  << formatDuration(1e3 * elapsed) << "\n";
      return;
    }
    bool always = mode == ProgressMode::Always;
    if ((!always && elapsed < 1.0) || done <= 0)
      return;
    double left = elapsed / done - elapsed;
    bool firstLine = !state->shown;
    if (firstLine) {
      if (!always && left < 4)
        return;
      state->shown = true;
      if (left >= 4)
        std::cerr << "isamap: warning: the " << what << " run of " << instance
                  << " will take about " << formatDuration(1e3 * (elapsed + left))
                  << "; --instance checks fewer instances\n";
    }
    int percent = int(100 * done);
    if (tty) {
      int filled = percent / 4;
      std::cerr << "\r\033[K" << instance << " " << what << " [" << std::string(size_t(filled), '#')
                << std::string(size_t(25 - filled), ' ') << "] " << percent << "%, "
                << formatDuration(1e3 * left) << " left" << std::flush;
      state->drawn = true;
    } else if (firstLine || now - state->lastLine >= std::chrono::seconds(10)) {
      state->lastLine = now;
      std::cerr << instance << " " << what << " run: " << percent << "% done, "
                << formatDuration(1e3 * left) << " left\n";
    }
  };
}

bool checkAgainstReference(const ir::Kernel &k, const interp::Buffers &inputs,
                           const interp::Buffers &got, interp::Reference reference, bool text,
                           nlohmann::json &result) {
  interp::Buffers ref = inputs;
  interp::runReference(k, ref, reference, 0, progressOnStderr(k.name, "reference"));
  auto cmp = interp::compareOutputs(k, ref, got);
  double tol = interp::tolerance(k);
  bool ok = cmp.maxRelError <= tol;
  result["check"] = {{"maxAbsError", cmp.maxAbsError},
                     {"maxRelError", cmp.maxRelError},
                     {"tolerance", tol},
                     {"passed", ok}};
  if (text) {
    std::cout << "check " << k.name << ": max abs error " << cmp.maxAbsError << ", max rel error "
              << cmp.maxRelError << " (tolerance " << tol << ") ";
    if (ok)
      std::cout << "PASS\n";
    else
      std::cout << "FAIL at " << cmp.worstTensor << "[" << cmp.worstIndex << "]\n";
  }
  return ok;
}

} // namespace isam::cli
