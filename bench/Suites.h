// The two parts of the benchmark and what they share: the GEMM suite (DeepBench sizes from a
// CSV file, isamap against OpenBLAS, BLIS and oneDNN) and the layer suite (the dwsep and gru
// samples' full-size instances, isamap against oneDNN's primitives).
#pragma once

#include "BenchSupport.h"
#include "GemmProblems.h"
#include "IsamapCompile.h"
#include "Report.h"
#include "SgemmLibraries.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace isam::bench {

struct Options {
  std::vector<int> threads{1, 2};
  std::string filter; // only shapes whose label contains it
  size_t limit = 0;   // GEMM: at most this many shapes (0: all)
  int repeat = 0;     // timed calls per figure (0: fill ~0.3 s, at least 3)
  std::string target = "host";
  std::string csv;
  bool check = true;
  std::string jsonPath;
  std::vector<std::string> libraries; // empty: all
  std::string sourceDir;              // the isamap source tree (samples/)
};

struct Context {
  const Options &options;
  const hw::Target &target;
  Roofline roofline;
  pipeline::Executor &executor; // the JIT's
  // Column order: openblas, blis, onednn; null where the library did not load.
  std::vector<std::string> libraryNames;
  std::vector<SgemmLibrary *> libraries;
};

void runGemmSuite(Context &context, const std::vector<GemmProblem> &problems, Report &report);

// dwsep (oneDNN depthwise + 1x1 convolutions, plain and blocked layouts), gru (oneDNN's LBR
// GRU primitive) and lstm (oneDNN's LSTM primitive); one report each.
void runLayerSuite(Context &context, Report &dwsep, Report &gru, Report &lstm);

// Times isamap's compiled kernel on `threads` threads (passed to each call) into `row.isamap` and
// checks its output `got` (`count` elements, NaN-filled first) against `ref`, the result of the
// library named `reference` (empty: none), as `row.check` says.
void measureIsamap(Row &row, const CompiledKernel &ck, const std::vector<void *> &args, int threads,
                   const Options &options, Buffer &got, const Buffer &ref, size_t count,
                   const std::string &reference);

} // namespace isam::bench
