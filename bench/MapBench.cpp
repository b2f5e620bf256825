// Times the mapper on every instance of every shipped sample (samples/*.isam) onto every shipped
// target (hwdesc/*.isam that declares a target, not a system), in process: the total, per
// target, and the slowest statement, each the median of several runs. Parsing, checking and
// building targets happen once, before timing; only mapping::mapKernel is timed.
//   build/bench/isamap_bench_map [runs] [path/to/source/dir]
#include "driver/Session.h"
#include "mapping/Mapping.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

#ifndef ISAMAP_SOURCE_DIR
#define ISAMAP_SOURCE_DIR "."
#endif

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Sample {
  std::string file;
  std::vector<isam::ir::Kernel> kernels;
};

std::vector<std::string> sortedFiles(const fs::path &dir) {
  std::vector<std::string> out;
  if (!fs::is_directory(dir))
    return out;
  for (const auto &e : fs::directory_iterator(dir))
    if (e.path().extension() == ".isam")
      out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Reads every sample's instances; false (with a message) if one cannot be read or has errors:
// the figures would not be comparable.
bool loadSamples(const fs::path &dir, std::vector<Sample> &samples) {
  for (const auto &file : sortedFiles(dir)) {
    Sample sample;
    sample.file = fs::path(file).filename().string();
    isam::Session session;
    if (!session.loadFile(file)) {
      std::fprintf(stderr, "cannot read %s\n", file.c_str());
      return false;
    }
    sample.kernels = session.instances({});
    if (session.diagnostics().hasErrors()) {
      std::fprintf(stderr, "%s has errors\n", file.c_str());
      return false;
    }
    samples.push_back(std::move(sample));
  }
  return true;
}

// The shipped targets (systems are skipped: they are made of these targets).
std::vector<isam::hw::Target> loadTargets(const fs::path &dir) {
  std::vector<isam::hw::Target> targets;
  isam::Session hw;
  hw.loadText("bench.isam", "");
  for (const auto &file : sortedFiles(dir)) {
    std::string name = fs::path(file).stem().string();
    if (hw.isSystem(name))
      continue;
    if (auto target = hw.target(name))
      targets.push_back(std::move(*target));
  }
  return targets;
}

struct Timings {
  std::vector<double> totals; // per run
  std::map<std::string, std::vector<double>> perTarget;
  // Per statement (file, instance, statement, target): its times over the runs.
  std::map<std::string, std::vector<double>> perStatement;
  size_t exhausted = 0; // searches that ran out of budget, over all runs
};

Timings timeMapping(const std::vector<Sample> &samples,
                    const std::vector<isam::hw::Target> &targets, int runs) {
  Timings timings;
  for (int run = 0; run < runs; ++run) {
    double total = 0;
    std::map<std::string, double> byTarget;
    for (const auto &sample : samples)
      for (const auto &kernel : sample.kernels)
        for (const auto &target : targets)
          for (size_t stmt = 0; stmt < kernel.statements.size(); ++stmt) {
            auto start = Clock::now();
            auto mapped = isam::mapping::mapStatement(kernel, stmt, target);
            double ms = msSince(start);
            timings.exhausted += mapped.budgetExhausted ? 1 : 0;
            total += ms;
            byTarget[target.name] += ms;
            timings
                .perStatement[sample.file + " " + kernel.name + " s" + std::to_string(stmt) +
                              " on " + target.name]
                .push_back(ms);
          }
    timings.totals.push_back(total);
    for (const auto &[name, ms] : byTarget)
      timings.perTarget[name].push_back(ms);
  }
  return timings;
}

// The median statement and the slowest one.
void printPerStatement(const Timings &timings) {
  std::string slowest;
  double slowestMs = -1;
  std::vector<double> medians;
  for (const auto &[key, times] : timings.perStatement) {
    double ms = median(times);
    medians.push_back(ms);
    if (ms > slowestMs) {
      slowestMs = ms;
      slowest = key;
    }
  }
  std::printf("  per statement and target: median %.3f ms, slowest %.2f ms (%s)\n", median(medians),
              slowestMs, slowest.c_str());
}

} // namespace

int main(int argc, char **argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  if (runs < 1)
    runs = 1;
  fs::path source = argc > 2 ? fs::path(argv[2]) : fs::path(ISAMAP_SOURCE_DIR);

  std::vector<Sample> samples;
  if (!loadSamples(source / "samples", samples))
    return 1;
  std::vector<isam::hw::Target> targets = loadTargets(source / "hwdesc");
  if (samples.empty() || targets.empty()) {
    std::fprintf(stderr, "no samples or no targets under %s\n", source.string().c_str());
    return 1;
  }
  size_t statements = 0, instances = 0;
  for (const auto &sample : samples) {
    instances += sample.kernels.size();
    for (const auto &kernel : sample.kernels)
      statements += kernel.statements.size();
  }

  // Warm-up, and the candidate count (the same on every run).
  size_t candidates = 0, rejections = 0;
  for (const auto &sample : samples)
    for (const auto &kernel : sample.kernels)
      for (const auto &target : targets)
        for (const auto &mapped : isam::mapping::mapKernel(kernel, target)) {
          candidates += mapped.candidates.size();
          rejections += mapped.rejected.size();
        }

  Timings timings = timeMapping(samples, targets, runs);
  std::printf("map: %zu instances of %zu samples, %zu statements, onto %zu targets; "
              "%zu candidates, %zu rejections per run; median of %d runs\n",
              instances, samples.size(), statements, targets.size(), candidates, rejections, runs);
  std::printf("  total: median %.1f ms, min %.1f ms, max %.1f ms\n", median(timings.totals),
              *std::min_element(timings.totals.begin(), timings.totals.end()),
              *std::max_element(timings.totals.begin(), timings.totals.end()));
  for (const auto &target : targets) {
    const auto &times = timings.perTarget[target.name];
    std::printf("  %-12s median %8.1f ms  (%.3f ms per statement)\n", target.name.c_str(),
                median(times), median(times) / double(statements));
  }
  printPerStatement(timings);
  if (timings.exhausted)
    std::printf("  searches that ran out of budget: %zu (over all runs)\n", timings.exhausted);
  return 0;
}
