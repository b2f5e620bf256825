// What a request is about, from its parameters: `instance` (by name), else the statement,
// kernel or instance declaration under `position`, else the document's first kernel; `target`
// overrides the configured target. With `instance`, `position` still picks the statement when it
// is in that instance's kernel. Shared by hover, the custom requests and the lenses.
#pragma once

#include "lsp/Analysis.h"
#include "lsp/Protocol.h"

#include <optional>

namespace isam::lsp {

struct Focus {
  Analysis::Subject subject;
  const ast::KernelDecl *kernel = nullptr;
  std::optional<size_t> statement; // among the kernel's statements, as written
};

// Needs the analysis's lock. A focus with no kernel means the document declares none there.
Focus focusOf(Analysis &a, const FocusParams &params);

// The IR statement of the focus's statement in `k`, if any.
std::optional<size_t> irStatementOf(const Focus &f, const ir::Kernel &k);

} // namespace isam::lsp

namespace isam::lsp {

// How the focus's statement runs, in a few words, from its schedule on the subject's target:
// "maps to fma16 × 24 | est. 87% of peak"; nullopt with `problem` set when it cannot be told.
struct StatementSummary {
  std::string instance, target;
  std::string instruction; // empty: scalar code
  int64_t calls = 0;       // instructions issued
  double cycles = 0, utilization = 0;
  std::string bound;
  // How the schedule was found (schedule::searchText): "search: beam, 3 mappings, 400 of
  // 4.2e+19 candidate schedules costed (stopped by the candidate budget)"; empty for scalar code.
  std::string search = {};
  // A tuned schedule's measurement (SearchReport::tuned): "2.31 ms measured on 2026-11-27
  // (untuned 2.63 ms)"; empty when searched.
  std::string tuned = {};
};
std::optional<StatementSummary> summarize(Analysis &a, const Focus &f, const StopFn &stop,
                                          std::string *problem);
std::string summaryTitle(const StatementSummary &s);

} // namespace isam::lsp
