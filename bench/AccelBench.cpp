// The accelerator's cost model against its simulator: every DeepBench GEMM size (the CSV in
// ../shared/data) and every sample instance is scheduled for a simulated target (systolic16 by
// default), emitted as an instruction stream and run on the timing simulator. Prints, per
// shape, the cost model's cycles, the simulated cycles, the model's error, the utilization of
// the compute array and the share of the description's roofline reached; then the mean
// absolute error and the utilization over the large GEMMs (at least 1 GFLOP).
//   build/bench/isamap_bench_accel [--target NAME] [--csv PATH] [--filter TEXT] [--skip N] [--limit
//   N]
//                                  [--no-samples] [--no-gemm] [--json PATH] [-I DIR]
//                                  [--trace PREFIX]
#include "BenchSupport.h"
#include "backends/accel/Emit.h"
#include "backends/accel/Simulator.h"
#include "driver/Session.h"
#include "pipeline/Executor.h"
#include "source/FileIo.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#ifndef ISAMAP_SOURCE_DIR
#define ISAMAP_SOURCE_DIR "."
#endif

namespace {

using namespace isam;
namespace fs = std::filesystem;

struct Row {
  std::string label;
  double flops = 0, estimate = 0, cycles = 0, utilization = 0, roofline = 0, seconds = 0;
  uint64_t instructions = 0;
  std::string error; // the backend's, when it could not run
};

struct Shape {
  std::string kernel;
  int64_t m, n, k;
};

std::vector<Shape> readGemms(const std::string &path, std::string &error) {
  std::ifstream in(path);
  std::vector<Shape> out;
  if (!in) {
    error = "cannot read the GEMM sizes file '" + path + "' (pass --csv PATH)";
    return out;
  }
  std::set<std::tuple<std::string, int64_t, int64_t, int64_t>> seen;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("set,", 0) == 0)
      continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');)
      cells.push_back(c);
    if (cells.size() < 6)
      continue;
    bool ta = cells[4] == "T", tb = cells[5] == "T";
    if (ta && tb)
      continue; // the samples have no A^T * B^T kernel
    Shape s{ta   ? "gemm_tn"
            : tb ? "gemm_nt"
                 : "gemm",
            std::stoll(cells[1]), std::stoll(cells[2]), std::stoll(cells[3])};
    if (seen.insert({s.kernel, s.m, s.n, s.k}).second)
      out.push_back(s);
  }
  return out;
}

// Schedules `k` in `session` and times it on `simulator` (the pipeline's executor for the
// target), beside the cost model's estimate.
Row measure(Session &session, const ir::Kernel &k, const hw::Target &target,
            pipeline::Executor &simulator, const bench::Roofline &roofline,
            const std::string &trace) {
  Row r;
  r.label = k.name;
  r.flops = k.flopCount();
  auto start = std::chrono::steady_clock::now();
  schedule::KernelSchedule ks = session.schedule(k, target);
  for (const auto &ss : ks.statements)
    if (ss.config.mapping >= 0)
      r.estimate += ss.cost.cycles;
  pipeline::RunOptions options;
  options.tracePath = trace.empty() ? "" : trace + "." + k.name + ".json";
  options.functional = false; // the large shapes' data would not fit
  interp::Buffers none;
  if (auto ran = simulator.run(k, &ks, none, options); !ran) {
    r.error = llvm::toString(ran.takeError());
  } else {
    const accel::SimResult &sim = *ran->simulation;
    r.cycles = sim.cycles;
    r.utilization = sim.utilization;
    r.instructions = sim.instructions;
    // The roofline is the whole kernel's; where the host runs a statement, the accelerator's
    // cycles are not the whole kernel's either, so there is no share to give.
    bool whole = true;
    for (const auto &ss : ks.statements)
      whole = whole && ss.config.mapping >= 0;
    double bound = roofline.gflops(r.flops, bench::kernelBytes(k), 1);
    double rooflineCycles = bound > 0 ? r.flops / (bound * 1e9) * roofline.clockHz : 0;
    r.roofline = whole && r.cycles > 0 ? rooflineCycles / r.cycles : -1;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::string percent(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", 100 * x);
  return b;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"isamap's accelerator cost model against its simulator"};
  std::string targetName = "systolic16", csv, filter, jsonPath, trace;
  std::string source = ISAMAP_SOURCE_DIR;
  size_t limit = 0, skip = 0;
  bool noSamples = false, noGemm = false;
  std::vector<std::string> includes;
  app.add_option("--target", targetName, "A simulated target (no LLVM triple)");
  app.add_option("--csv", csv, "DeepBench GEMM sizes (default: ../shared/data beside the source)");
  app.add_option("--filter", filter, "Only shapes whose label contains this");
  app.add_option("--limit", limit, "At most this many GEMM shapes");
  app.add_option("--skip", skip, "Skip the first this many GEMM shapes (with --limit: a slice)");
  app.add_flag("--no-samples", noSamples, "Skip the sample instances");
  app.add_flag("--no-gemm", noGemm, "Skip the DeepBench GEMMs");
  app.add_option("--json", jsonPath, "Also write the rows as JSON");
  app.add_option("--trace", trace,
                 "Write each simulation's Chrome trace to PREFIX.INSTANCE.json (its first "
                 "500,000 events)");
  app.add_option("-I,--include", includes, "Directory searched for the target's description");
  CLI11_PARSE(app, argc, argv);
  if (csv.empty())
    csv = (fs::path(source).parent_path() / "shared/data/deepbench_gemm.csv").string();

  SessionOptions so;
  so.searchPath = includes;
  Session session(so);
  if (!session.loadFile(source + "/samples/gemm.isam"))
    return 1;
  auto target = session.target(targetName);
  if (!target || !accel::isAccelerator(*target)) {
    std::fprintf(stderr, "isamap_bench_accel: %s is not a simulated target\n", targetName.c_str());
    return 1;
  }
  bench::Roofline roofline = bench::rooflineOf(*target);
  auto simulator = pipeline::Executor::create(&*target);
  if (!simulator) {
    std::fprintf(stderr, "isamap_bench_accel: %s\n", llvm::toString(simulator.takeError()).c_str());
    return 1;
  }
  std::vector<Row> rows;
  auto report = [&](const Row &r) {
    if (!r.error.empty()) {
      std::printf("%-34s %s\n", r.label.c_str(), r.error.c_str());
    } else if (r.instructions == 0) {
      std::printf("%-34s no statement runs on %s: the host runs it all\n", r.label.c_str(),
                  target->name.c_str());
    } else {
      char share[32] = "(host part)";
      if (r.roofline >= 0)
        std::snprintf(share, sizeof share, "%.1f%%", 100 * r.roofline);
      std::printf("%-34s %14.0f %14.0f %9s %8.1f%% %9s %8.1fs\n", r.label.c_str(), r.estimate,
                  r.cycles, percent((r.estimate - r.cycles) / r.cycles).c_str(),
                  100 * r.utilization, share, r.seconds);
    }
    std::fflush(stdout);
    rows.push_back(r);
  };
  std::printf("%s: %.0f flop/cycle peak, DRAM %.0f B/cycle\n", target->name.c_str(),
              roofline.flopsPerCycle, roofline.dramBytesPerS / roofline.clockHz);
  std::printf("%-34s %14s %14s %9s %9s %9s %9s\n", "shape", "model cycles", "sim cycles", "error",
              "util", "roofline", "time");
  if (!noGemm) {
    std::string error;
    auto shapes = readGemms(csv, error);
    if (!error.empty()) {
      std::fprintf(stderr, "isamap_bench_accel: %s\n", error.c_str());
      return 1;
    }
    size_t done = 0;
    for (const auto &s : shapes) {
      InstanceSelector sel;
      sel.kernel = s.kernel;
      sel.sizes = {{"M", s.m}, {"N", s.n}, {"K", s.k}};
      std::string label = s.kernel + "_" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                          std::to_string(s.k);
      if (label.find(filter) == std::string::npos)
        continue;
      if (done++ < skip)
        continue;
      if (limit && done > skip + limit)
        break;
      auto ks = session.instances(sel);
      if (ks.empty())
        continue;
      Row r = measure(session, ks.front(), *target, **simulator, roofline, trace);
      r.label = label;
      report(r);
    }
  }
  if (!noSamples) {
    std::vector<std::string> files;
    for (const auto &e : fs::directory_iterator(source + "/samples"))
      if (e.path().extension() == ".isam")
        files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (const auto &f : files) {
      Session s(so);
      if (!s.loadFile(f))
        continue;
      auto t = s.target(targetName);
      if (!t)
        continue;
      for (const auto &k : s.instances({}))
        if (k.name.find(filter) != std::string::npos)
          report(measure(s, k, *t, **simulator, roofline, trace));
    }
  }
  // Summary: the model's error over all rows, utilization over the large GEMMs.
  std::vector<double> errors, bigUtil, bigRoofline;
  for (const auto &r : rows) {
    if (!r.error.empty() || r.cycles <= 0 || r.estimate <= 0)
      continue;
    errors.push_back(std::fabs(r.estimate - r.cycles) / r.cycles);
    if (r.flops >= 1e9 && r.label.rfind("gemm", 0) == 0) {
      bigUtil.push_back(r.utilization);
      bigRoofline.push_back(r.roofline);
    }
  }
  auto mean = [](const std::vector<double> &v) {
    double s = 0;
    for (double x : v)
      s += x;
    return v.empty() ? 0.0 : s / double(v.size());
  };
  std::sort(errors.begin(), errors.end());
  std::printf("\ncost model vs simulator over %zu shapes: mean |error| %.1f%%, median %.1f%%, "
              "worst %.1f%%\n",
              errors.size(), 100 * mean(errors),
              errors.empty() ? 0.0 : 100 * errors[errors.size() / 2],
              errors.empty() ? 0.0 : 100 * errors.back());
  if (!bigUtil.empty())
    std::printf("large GEMMs (>= 1 GFLOP, %zu): utilization mean %.1f%% (min %.1f%%), share of "
                "the roofline mean %.1f%% (min %.1f%%)\n",
                bigUtil.size(), 100 * mean(bigUtil),
                100 * *std::min_element(bigUtil.begin(), bigUtil.end()), 100 * mean(bigRoofline),
                100 * *std::min_element(bigRoofline.begin(), bigRoofline.end()));
  if (!jsonPath.empty()) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto &r : rows)
      j.push_back({{"shape", r.label},
                   {"flops", r.flops},
                   {"modelCycles", r.estimate},
                   {"simulatedCycles", r.cycles},
                   {"utilization", r.utilization},
                   {"roofline", r.roofline >= 0 ? nlohmann::json(r.roofline) : nlohmann::json()},
                   {"error", r.error}});
    std::string error;
    if (!writeFileAtomically(jsonPath, j.dump(2), error)) {
      std::fprintf(stderr, "isamap_bench_accel: %s\n", error.c_str());
      return 1;
    }
  }
  return 0;
}
