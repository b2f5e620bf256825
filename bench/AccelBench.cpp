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

struct Options {
  std::string targetName = "systolic16", csv, filter, jsonPath, trace;
  std::string source = ISAMAP_SOURCE_DIR;
  size_t limit = 0, skip = 0;
  bool noSamples = false, noGemm = false;
  std::vector<std::string> includes;
};

void addOptions(CLI::App &app, Options &options) {
  app.add_option("--target", options.targetName, "A simulated target (no LLVM triple)");
  app.add_option("--csv", options.csv,
                 "DeepBench GEMM sizes (default: ../shared/data beside the source)");
  app.add_option("--filter", options.filter, "Only shapes whose label contains this");
  app.add_option("--limit", options.limit, "At most this many GEMM shapes");
  app.add_option("--skip", options.skip,
                 "Skip the first this many GEMM shapes (with --limit: a slice)");
  app.add_flag("--no-samples", options.noSamples, "Skip the sample instances");
  app.add_flag("--no-gemm", options.noGemm, "Skip the DeepBench GEMMs");
  app.add_option("--json", options.jsonPath, "Also write the rows as JSON");
  app.add_option("--trace", options.trace,
                 "Write each simulation's Chrome trace to PREFIX.INSTANCE.json (its first "
                 "500,000 events)");
  app.add_option("-I,--include", options.includes,
                 "Directory searched for the target's description");
}

// Prints a row as soon as it is measured (a run over every shape takes a while), and keeps it
// for the summary.
void report(const Row &row, const std::string &targetName, std::vector<Row> &rows) {
  if (!row.error.empty()) {
    std::printf("%-34s %s\n", row.label.c_str(), row.error.c_str());
  } else if (row.instructions == 0) {
    std::printf("%-34s no statement runs on %s: the host runs it all\n", row.label.c_str(),
                targetName.c_str());
  } else {
    char share[32] = "(host part)";
    if (row.roofline >= 0)
      std::snprintf(share, sizeof share, "%.1f%%", 100 * row.roofline);
    std::printf("%-34s %14.0f %14.0f %9s %8.1f%% %9s %8.1fs\n", row.label.c_str(), row.estimate,
                row.cycles, percent((row.estimate - row.cycles) / row.cycles).c_str(),
                100 * row.utilization, share, row.seconds);
  }
  std::fflush(stdout);
  rows.push_back(row);
}

// The DeepBench GEMMs the options select, as instances of the gemm sample's kernels. False
// (with a message) if the sizes file cannot be read.
bool measureGemms(Session &session, const hw::Target &target, pipeline::Executor &simulator,
                  const bench::Roofline &roofline, const Options &options,
                  std::vector<Row> &rows) {
  std::string error;
  auto shapes = readGemms(options.csv, error);
  if (!error.empty()) {
    std::fprintf(stderr, "isamap_bench_accel: %s\n", error.c_str());
    return false;
  }
  size_t done = 0;
  for (const auto &shape : shapes) {
    InstanceSelector selector;
    selector.kernel = shape.kernel;
    selector.sizes = {{"M", shape.m}, {"N", shape.n}, {"K", shape.k}};
    std::string label = shape.kernel + "_" + std::to_string(shape.m) + "x" +
                        std::to_string(shape.n) + "x" + std::to_string(shape.k);
    if (label.find(options.filter) == std::string::npos)
      continue;
    if (done++ < options.skip)
      continue;
    if (options.limit && done > options.skip + options.limit)
      break;
    auto kernels = session.instances(selector);
    if (kernels.empty())
      continue;
    Row row = measure(session, kernels.front(), target, simulator, roofline, options.trace);
    row.label = label;
    report(row, target.name, rows);
  }
  return true;
}

// Every instance of every sample that declares the target.
void measureSamples(const SessionOptions &sessionOptions, pipeline::Executor &simulator,
                    const bench::Roofline &roofline, const Options &options,
                    std::vector<Row> &rows) {
  std::vector<std::string> files;
  for (const auto &entry : fs::directory_iterator(options.source + "/samples"))
    if (entry.path().extension() == ".isam")
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  for (const auto &file : files) {
    Session session(sessionOptions);
    if (!session.loadFile(file))
      continue;
    auto target = session.target(options.targetName);
    if (!target)
      continue;
    for (const auto &kernel : session.instances({}))
      if (kernel.name.find(options.filter) != std::string::npos)
        report(measure(session, kernel, *target, simulator, roofline, options.trace),
               options.targetName, rows);
  }
}

double mean(const std::vector<double> &values) {
  double sum = 0;
  for (double value : values)
    sum += value;
  return values.empty() ? 0.0 : sum / double(values.size());
}

// The model's error over all rows, utilization over the large GEMMs.
void printSummary(const std::vector<Row> &rows) {
  std::vector<double> errors, bigUtil, bigRoofline;
  for (const auto &row : rows) {
    if (!row.error.empty() || row.cycles <= 0 || row.estimate <= 0)
      continue;
    errors.push_back(std::fabs(row.estimate - row.cycles) / row.cycles);
    if (row.flops >= 1e9 && row.label.rfind("gemm", 0) == 0) {
      bigUtil.push_back(row.utilization);
      bigRoofline.push_back(row.roofline);
    }
  }
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
}

bool writeJson(const std::string &path, const std::vector<Row> &rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto &row : rows)
    out.push_back(
        {{"shape", row.label},
         {"flops", row.flops},
         {"modelCycles", row.estimate},
         {"simulatedCycles", row.cycles},
         {"utilization", row.utilization},
         {"roofline", row.roofline >= 0 ? nlohmann::json(row.roofline) : nlohmann::json()},
         {"error", row.error}});
  std::string error;
  if (!writeFileAtomically(path, out.dump(2), error)) {
    std::fprintf(stderr, "isamap_bench_accel: %s\n", error.c_str());
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"isamap's accelerator cost model against its simulator"};
  Options options;
  addOptions(app, options);
  CLI11_PARSE(app, argc, argv);
  if (options.csv.empty())
    options.csv =
        (fs::path(options.source).parent_path() / "shared/data/deepbench_gemm.csv").string();

  SessionOptions sessionOptions;
  sessionOptions.searchPath = options.includes;
  Session session(sessionOptions);
  if (!session.loadFile(options.source + "/samples/gemm.isam"))
    return 1;
  auto target = session.target(options.targetName);
  if (!target || !accel::isAccelerator(*target)) {
    std::fprintf(stderr, "isamap_bench_accel: %s is not a simulated target\n",
                 options.targetName.c_str());
    return 1;
  }
  bench::Roofline roofline = bench::rooflineOf(*target);
  auto simulator = pipeline::Executor::create(&*target);
  if (!simulator) {
    std::fprintf(stderr, "isamap_bench_accel: %s\n", llvm::toString(simulator.takeError()).c_str());
    return 1;
  }
  std::printf("%s: %.0f flop/cycle peak, DRAM %.0f B/cycle\n", target->name.c_str(),
              roofline.flopsPerCycle, roofline.dramBytesPerS / roofline.clockHz);
  std::printf("%-34s %14s %14s %9s %9s %9s %9s\n", "shape", "model cycles", "sim cycles", "error",
              "util", "roofline", "time");
  std::vector<Row> rows;
  if (!options.noGemm && !measureGemms(session, *target, **simulator, roofline, options, rows))
    return 1;
  if (!options.noSamples)
    measureSamples(sessionOptions, **simulator, roofline, options, rows);
  printSummary(rows);
  if (!options.jsonPath.empty() && !writeJson(options.jsonPath, rows))
    return 1;
  return 0;
}
