// The DeepBench GEMM problems the benchmarks run: read from a CSV file (by default
// ../shared/data/deepbench_gemm.csv), one problem per line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace isam::bench {

// One DeepBench GEMM problem: C[M, N] = op(A) * op(B) (see the CSV's header comment).
struct GemmProblem {
  std::string set;
  int64_t m = 0, n = 0, k = 0;
  bool transA = false, transB = false;
  std::string label() const;  // "MxNxK"
  std::string layout() const; // "NN", "TN", "NT", "TT"
};

// Reads the CSV (columns set,M,N,K,transA,transB; '#' lines are comments). nullopt and `error`
// when the file is missing or malformed.
std::optional<std::vector<GemmProblem>> readGemmProblems(const std::string &path,
                                                         std::string &error);

// The problems whose label contains `filter`, each size and layout once (`duplicates` counts the
// repeats), T,T skipped (`skippedTT`: samples/gemm.isam has no such kernel, DeepBench none),
// at most `limit` of them (0: all).
std::vector<GemmProblem> selectGemmProblems(const std::vector<GemmProblem> &all,
                                            const std::string &filter, size_t limit,
                                            size_t &duplicates, size_t &skippedTT);

// The kernel of samples/gemm.isam that computes `p`: gemm, gemm_tn or gemm_nt (no TT kernel).
const char *gemmKernelFor(const GemmProblem &p);

} // namespace isam::bench
