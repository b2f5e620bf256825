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

} // namespace

int main(int argc, char **argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  if (runs < 1)
    runs = 1;
  fs::path source = argc > 2 ? fs::path(argv[2]) : fs::path(ISAMAP_SOURCE_DIR);

  // The samples and their instances.
  std::vector<Sample> samples;
  size_t statements = 0, instances = 0;
  for (const auto &file : sortedFiles(source / "samples")) {
    Sample s;
    s.file = fs::path(file).filename().string();
    isam::Session session;
    if (!session.loadFile(file)) {
      std::fprintf(stderr, "cannot read %s\n", file.c_str());
      return 1;
    }
    s.kernels = session.instances({});
    if (session.diagnostics().hasErrors()) {
      std::fprintf(stderr, "%s has errors\n", file.c_str());
      return 1;
    }
    instances += s.kernels.size();
    for (const auto &k : s.kernels)
      statements += k.statements.size();
    samples.push_back(std::move(s));
  }
  // The shipped targets (systems are skipped: they are made of these targets).
  std::vector<isam::hw::Target> targets;
  {
    isam::Session hw;
    hw.loadText("bench.isam", "");
    for (const auto &file : sortedFiles(source / "hwdesc")) {
      std::string name = fs::path(file).stem().string();
      if (hw.isSystem(name))
        continue;
      if (auto t = hw.target(name))
        targets.push_back(std::move(*t));
    }
  }
  if (samples.empty() || targets.empty()) {
    std::fprintf(stderr, "no samples or no targets under %s\n", source.string().c_str());
    return 1;
  }

  // Warm-up, and the candidate count (the same on every run).
  size_t candidates = 0, rejections = 0;
  for (const auto &s : samples)
    for (const auto &k : s.kernels)
      for (const auto &t : targets)
        for (const auto &m : isam::mapping::mapKernel(k, t)) {
          candidates += m.candidates.size();
          rejections += m.rejected.size();
        }

  std::vector<double> totals;
  std::map<std::string, std::vector<double>> perTarget;
  // Per statement (file, instance, statement, target): its times over the runs.
  std::map<std::string, std::vector<double>> perStatement;
  size_t exhausted = 0;
  for (int r = 0; r < runs; ++r) {
    double total = 0;
    std::map<std::string, double> byTarget;
    for (const auto &s : samples)
      for (const auto &k : s.kernels)
        for (const auto &t : targets)
          for (size_t st = 0; st < k.statements.size(); ++st) {
            auto start = Clock::now();
            auto m = isam::mapping::mapStatement(k, st, t);
            double ms = msSince(start);
            exhausted += m.budgetExhausted ? 1 : 0;
            total += ms;
            byTarget[t.name] += ms;
            perStatement[s.file + " " + k.name + " s" + std::to_string(st) + " on " + t.name]
                .push_back(ms);
          }
    totals.push_back(total);
    for (const auto &[name, ms] : byTarget)
      perTarget[name].push_back(ms);
  }

  std::printf("map: %zu instances of %zu samples, %zu statements, onto %zu targets; "
              "%zu candidates, %zu rejections per run; median of %d runs\n",
              instances, samples.size(), statements, targets.size(), candidates, rejections, runs);
  std::printf("  total: median %.1f ms, min %.1f ms, max %.1f ms\n", median(totals),
              *std::min_element(totals.begin(), totals.end()),
              *std::max_element(totals.begin(), totals.end()));
  for (const auto &t : targets) {
    const auto &v = perTarget[t.name];
    std::printf("  %-12s median %8.1f ms  (%.3f ms per statement)\n", t.name.c_str(), median(v),
                median(v) / double(statements));
  }
  std::string slowest;
  double slowestMs = -1;
  std::vector<double> medians;
  for (const auto &[key, v] : perStatement) {
    double m = median(v);
    medians.push_back(m);
    if (m > slowestMs) {
      slowestMs = m;
      slowest = key;
    }
  }
  std::printf("  per statement and target: median %.3f ms, slowest %.2f ms (%s)\n", median(medians),
              slowestMs, slowest.c_str());
  if (exhausted)
    std::printf("  searches that ran out of budget: %zu (over all runs)\n", exhausted);
  return 0;
}
