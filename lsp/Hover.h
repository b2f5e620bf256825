// Hover: what the name under the cursor is (its declaration, its type and shape, an index's
// inferred range, an instruction's semantics and cost), its value in the instance that stands
// for the kernel, and for a statement how it runs on the configured target.
//
// `hover` answers with facts (HoverInfo); `markdown` is the one place they become text.
#pragma once

#include "lsp/Analysis.h"
#include "lsp/Focus.h"
#include "lsp/Protocol.h"

#include <optional>
#include <string>

namespace isam::lsp {

struct HoverInfo {
  std::optional<Range> range; // what the hover is about: the name, or the statement
  // What the name is, as isam text: the declaration of a hardware symbol (its documentation:
  // semantics, operands, cost), "tensor A: f32[M, K]", "type f32", "exp(x)".
  std::string definition;
  std::string documentation; // a sentence: "4-byte floating-point element"

  // A kernel's name (the kernel, a size parameter, a tensor, an index): its value in the
  // instance that stands for the kernel.
  struct InInstance {
    std::string instance; // empty: no instance, `problem` says why
    std::string problem;
    // As isam text: "f32[64, 32]", "N = 4", "gemm<4, 4, 4>", "k in 0..32"; empty when there is
    // none (`missing` may say why: "not used", "range not inferred").
    std::string value;
    std::string missing;
    std::optional<double> flops; // a kernel's floating-point operations
    bool reduction = false;      // an index summed over
  };
  std::optional<InInstance> inInstance;

  // The statement under the cursor: how it runs on the target (or why that cannot be told).
  std::optional<size_t> statement; // among its kernel's statements, as written
  std::optional<StatementSummary> run;
  std::string runProblem;
};

// Needs no lock (takes it). Nothing when there is nothing to say at `position`. `stop` is polled
// while a statement's schedule is found.
std::optional<HoverInfo> hover(Analysis &a, Position position, const StopFn &stop = {});

// The hover as the client shows it.
std::string markdown(const HoverInfo &info);

} // namespace isam::lsp
