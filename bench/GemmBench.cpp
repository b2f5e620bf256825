// isamap's compiled kernels against the libraries people use instead: the DeepBench GEMM sizes
// (fp32) against OpenBLAS, BLIS and oneDNN sgemm, and the dwsep, gru and lstm samples against
// oneDNN's primitives, at each requested thread count, each figure also as a fraction of the target
// description's roofline; plus isamap's compile and map+schedule time per instance.
//   build/bench/isamap_bench_gemm [--threads 1,2] [--filter SUBSTR] [--limit N] [--repeat R]
//       [--target NAME] [--csv PATH] [--no-check] [--json PATH] [--libs openblas,blis,onednn]
// Exit status: 0, or 1 when a check fails or the inputs cannot be read, 2 on usage errors.
#include "Suites.h"
#include "backends/llvm/Calibrate.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#ifndef ISAMAP_SOURCE_DIR
#define ISAMAP_SOURCE_DIR "."
#endif

using namespace isam;
using namespace isam::bench;

namespace {

const char *kUsage =
    "usage: isamap_bench_gemm [options]\n"
    "  --threads LIST   thread counts to run, comma-separated (default 1,2)\n"
    "  --filter SUBSTR  only shapes whose label contains SUBSTR (GEMM: \"MxNxK\"; layers: the\n"
    "                   instance name, e.g. dwsep_mbv1_8)\n"
    "  --limit N        only the first N GEMM shapes (after --filter)\n"
    "  --repeat R       R timed calls per figure (default: enough for ~0.3 s, at least 3)\n"
    "  --target NAME    isamap target (default host)\n"
    "  --csv PATH       DeepBench GEMM sizes (default <source>/../shared/data/deepbench_gemm.csv)\n"
    "  --no-check       do not compare isamap's results with a library's\n"
    "  --json PATH      also write every figure as JSON to PATH\n"
    "  --libs LIST      only these of openblas,blis,onednn\n";

std::vector<std::string> splitList(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty())
      out.push_back(item);
  return out;
}

// Parses the command line into `o`; false (with a message) on a usage error.
bool parseOptions(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    bool hasValue = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      hasValue = true;
    }
    auto next = [&](std::string &out) {
      if (!hasValue) {
        if (i + 1 >= argc) {
          std::fprintf(stderr, "%s needs a value\n%s", arg.c_str(), kUsage);
          return false;
        }
        value = argv[++i];
      }
      out = value;
      return true;
    };
    auto number = [&](long min, long &out) {
      std::string v;
      if (!next(v))
        return false;
      char *end = nullptr;
      out = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || out < min) {
        std::fprintf(stderr, "%s: '%s' is not a number >= %ld\n", arg.c_str(), v.c_str(), min);
        return false;
      }
      return true;
    };
    long n = 0;
    std::string v;
    if (arg == "--help" || arg == "-h") {
      std::printf("%s", kUsage);
      std::exit(0);
    } else if (arg == "--threads") {
      if (!next(v))
        return false;
      o.threads.clear();
      for (const auto &t : splitList(v)) {
        int count = std::atoi(t.c_str());
        if (count < 1 || std::to_string(count) != t) {
          std::fprintf(stderr, "--threads: '%s' is not a thread count\n", t.c_str());
          return false;
        }
        o.threads.push_back(count);
      }
      if (o.threads.empty()) {
        std::fprintf(stderr, "--threads: empty list\n");
        return false;
      }
    } else if (arg == "--filter") {
      if (!next(o.filter))
        return false;
    } else if (arg == "--limit") {
      if (!number(1, n))
        return false;
      o.limit = size_t(n);
    } else if (arg == "--repeat") {
      if (!number(1, n))
        return false;
      o.repeat = int(n);
    } else if (arg == "--target") {
      if (!next(o.target))
        return false;
    } else if (arg == "--csv") {
      if (!next(o.csv))
        return false;
    } else if (arg == "--json") {
      if (!next(o.jsonPath))
        return false;
    } else if (arg == "--libs") {
      if (!next(v))
        return false;
      o.libraries = splitList(v);
      for (const auto &l : o.libraries)
        if (l != "openblas" && l != "blis" && l != "onednn") {
          std::fprintf(stderr, "--libs: unknown library '%s'\n", l.c_str());
          return false;
        }
    } else if (arg == "--no-check" && !hasValue) {
      o.check = false;
    } else {
      std::fprintf(stderr, "unknown argument '%s'\n%s", argv[i], kUsage);
      return false;
    }
  }
  return true;
}

void printTarget(const hw::Target &t, const Roofline &r) {
  std::printf("target %s: %s %s, %u cores at %.2f GHz\n", t.name.c_str(), t.triple.c_str(),
              t.cpu.c_str(), t.cores, t.clockHz / 1e9);
  std::printf("  compute peak %.1f GFLOP/s per core (%s: %.0f f32 operations per cycle)\n",
              r.peakGflops(1), r.peakInstruction.empty() ? "none" : r.peakInstruction.c_str(),
              r.flopsPerCycle);
  if (r.dramBytesPerS > 0)
    std::printf("  memory bound: %s at %.1f GB/s\n", r.dramName.c_str(), r.dramBytesPerS / 1e9);
  else
    std::printf("  memory bound: none (the outermost memory has no bandwidth)\n");
  std::printf("  roofline of a shape on T threads: min(peak x min(T, cores), flops / bytes x "
              "bandwidth), bytes = its inputs and outputs once\n");
}

// What the run compares and how: the target and its roofline, the libraries, the sizes, how
// figures are taken, and how busy the machine is.
void printHeader(const Context &cx, const LoadReport &libs, size_t rows, size_t selected,
                 size_t duplicates, size_t skippedTT) {
  const Options &o = cx.options;
  std::printf("isamap vs BLAS/oneDNN, fp32\n");
  printTarget(cx.target, cx.roofline);
  std::printf("libraries:\n");
  for (const auto &l : libs.loaded)
    std::printf("  %-9s %s\n            %s; threads: %s\n", l->name().c_str(), l->file().c_str(),
                l->version().c_str(), l->threading().c_str());
  for (const auto &m : libs.missing)
    std::printf("  n/a       %s\n", m.c_str());
  OpenMP omp = openMP();
  std::printf("isamap's generated code: thread count passed to each call; OpenMP runtime %s\n",
              omp.file.empty() ? "(none loaded)" : omp.file.c_str());
  std::printf("GEMM sizes: %s: %zu rows, %zu selected (%zu duplicate sizes across sets and %zu "
              "T,T rows skipped)\n",
              o.csv.c_str(), rows, selected, duplicates, skippedTT);
  std::printf("figures: GFLOP/s from the BEST of %s after one warm-up call (JSON has medians "
              "too); 'roof' = fraction of the roofline\n",
              o.repeat ? (std::to_string(o.repeat) + " timed calls").c_str()
                       : "as many timed calls as fill ~0.3 s (at least 3)");
  std::printf("check: %s\n",
              o.check ? "isamap's output against the first library measured; error = max "
                        "|x - ref| / max(|ref|, 1), FAIL unless < max(1e-3, 2 x the reference's "
                        "tolerance for the "
                        "shape's reduction length); inputs in [-1, 1)"
                      : "off");
  std::printf("compile: isamap's generate+optimize+machine code (CompileTimes), map+sch: "
              "Session::schedule (mapping and schedule search), per instance\n");
  // Other work on the machine skews multi-threaded figures most (a descheduled OpenMP thread
  // stalls every barrier), so say how busy it was.
  double load[1] = {0};
  if (getloadavg(load, 1) == 1)
    std::printf("load average at start: %.2f%s\n", load[0],
                load[0] > 0.5 ? " (other processes are running: figures, multi-threaded ones "
                                "most, will be low and noisy)"
                              : "");
  unsigned hw = std::thread::hardware_concurrency();
  for (int t : o.threads)
    if (hw && unsigned(t) > hw)
      std::printf("warning: %d threads requested, the machine has %u hardware threads\n", t, hw);
}

// The machine-readable form of the run (--json).
void writeJson(const Context &cx, const LoadReport &libs,
               const std::vector<const Report *> &suites) {
  const hw::Target &target = cx.target;
  nlohmann::json lib = nlohmann::json::array();
  for (const auto &l : libs.loaded)
    lib.push_back({{"name", l->name()},
                   {"file", l->file()},
                   {"version", l->version()},
                   {"threading", l->threading()}});
  nlohmann::json suitesJson = nlohmann::json::array();
  for (const Report *suite : suites)
    suitesJson.push_back(suite->json());
  nlohmann::json doc = {{"target",
                         {{"name", target.name},
                          {"cores", target.cores},
                          {"clock_hz", target.clockHz},
                          {"flops_per_cycle_per_core", cx.roofline.flopsPerCycle},
                          {"peak_instruction", cx.roofline.peakInstruction},
                          {"dram_bytes_per_s", cx.roofline.dramBytesPerS}}},
                        {"libraries", lib},
                        {"missing_libraries", libs.missing},
                        {"csv", cx.options.csv},
                        {"timing", "best of the timed calls; median_s also given"},
                        {"suites", suitesJson}};
  std::ofstream(cx.options.jsonPath) << doc.dump(2) << "\n";
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  o.sourceDir = ISAMAP_SOURCE_DIR;
  o.csv = o.sourceDir + "/../shared/data/deepbench_gemm.csv";
  if (!parseOptions(argc, argv, o))
    return 2;
  // Printed and reported without the "source/.." detour.
  std::error_code ec;
  if (auto p = std::filesystem::weakly_canonical(o.csv, ec); !ec)
    o.csv = p.string();

  // The GEMM sizes first: a missing file should fail fast, before anything is loaded.
  std::string error;
  auto problems = readGemmProblems(o.csv, error);
  if (!problems) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 1;
  }
  size_t duplicates = 0, skippedTT = 0;
  std::vector<GemmProblem> selected =
      selectGemmProblems(*problems, o.filter, o.limit, duplicates, skippedTT);

  SessionOptions targetOptions;
  targetOptions.hostMeter = backend::measureFmaGflops;
  Session targetSession(targetOptions);
  targetSession.loadText("bench.isam", "");
  std::optional<hw::Target> target = targetSession.target(o.target);
  if (!target || targetSession.diagnostics().hasErrors()) {
    for (const auto &d : targetSession.diagnostics().all())
      std::fprintf(stderr, "%s", renderDiagnostic(d, targetSession.sources()).c_str());
    std::fprintf(stderr, "error: no usable target '%s'\n", o.target.c_str());
    return 1;
  }
  // Only code compiled in process is timed here, with the libraries, on the same operands.
  if (pipeline::executorFor(&*target) != pipeline::ExecutorKind::Jit) {
    std::fprintf(stderr, "error: cannot JIT for target '%s': it is not this machine's\n",
                 o.target.c_str());
    return 1;
  }
  auto executor = pipeline::Executor::create(&*target);
  if (!executor) {
    std::fprintf(stderr, "error: cannot JIT for target '%s': %s\n", o.target.c_str(),
                 llvm::toString(executor.takeError()).c_str());
    return 1;
  }

  LoadReport libs = loadSgemmLibraries(o.libraries);
  Context cx{o, *target, rooflineOf(*target), **executor, {"openblas", "blis", "onednn"}, {}};
  for (const auto &name : cx.libraryNames) {
    SgemmLibrary *found = nullptr;
    for (const auto &l : libs.loaded)
      if (l->name() == name)
        found = l.get();
    cx.libraries.push_back(found);
  }

  printHeader(cx, libs, problems->size(), selected.size(), duplicates, skippedTT);

  Report gemm("GEMM (DeepBench, samples/gemm.isam)", cx.libraryNames, stdout);
  runGemmSuite(cx, selected, gemm);
  Report dwsep("dwsep (samples/dwsep.isam) vs oneDNN depthwise 3x3 + 1x1 convolutions",
               {"onednn-nchw", "onednn-blocked"}, stdout);
  Report gru("gru (samples/gru.isam) vs oneDNN LBR GRU, one step", {"onednn-lbr-gru"}, stdout);
  Report lstm("lstm (samples/lstm.isam) vs oneDNN LSTM, one step", {"onednn-lstm"}, stdout);
  runLayerSuite(cx, dwsep, gru, lstm);

  std::printf("\n== summary ==\n");
  gemm.printSummary();
  dwsep.printSummary();
  gru.printSummary();
  lstm.printSummary();

  if (!o.jsonPath.empty())
    writeJson(cx, libs, {&gemm, &dwsep, &gru, &lstm});
  size_t failures = gemm.failures() + dwsep.failures() + gru.failures() + lstm.failures();
  if (failures)
    std::printf("%zu FAILED checks\n", failures);
  return failures ? 1 : 0;
}
