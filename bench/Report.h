// The benchmark's results: one row per (shape, thread count) with every implementation's
// figure, printed as a table while the run goes (a full run takes long) and summarised with
// geometric means at the end; optionally also as JSON.
#pragma once

#include "BenchSupport.h"
#include "backends/llvm/Jit.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace isam::bench {

struct Figure {
  bool measured = false;
  std::string note; // why not measured
  Timing timing;
  double gflops = 0; // from the best time
};

struct Row {
  std::string label;  // "MxNxK" or the instance's name
  std::string layout; // GEMM: "NN", "TN", "NT"
  int threads = 1;
  double flops = 0, bytes = 0, rooflineGflops = 0;
  Figure isamap;
  std::vector<Figure> libraries; // in the report's column order
  bool compiled = false;
  double compileMs = 0, mapScheduleMs = 0;
  backend::CompileTimes times;
  std::string check; // "ok 1.2e-06 vs openblas", "FAIL ...", "off", "n/a ..."
  bool checkFailed = false;
};

class Report {
public:
  Report(std::string title, std::vector<std::string> libraries, std::FILE *out)
      : title_(std::move(title)), libraries_(std::move(libraries)), out_(out) {}

  // Prints the row (after the table's header, for the first; flushing, for long runs) and keeps
  // it for the summary.
  void add(Row row);
  // Per thread count: the geometric means of every figure, of its fraction of the roofline,
  // and of isamap / best library; the check tally; compile times.
  void printSummary() const;
  nlohmann::json json() const;
  size_t failures() const;

private:
  std::string title_;
  std::vector<std::string> libraries_;
  std::FILE *out_;
  std::vector<Row> rows_;

  void printHeader() const;
  int nameWidth() const;  // the longest implementation name
  int ratioWidth() const; // the isamap/best column
};

// isamap's figure over the best library's (0 when either is missing), and that library's index.
double ratioToBest(const Row &row, int *best = nullptr);

} // namespace isam::bench
