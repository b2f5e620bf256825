// The cost of a statement no instruction runs (Bound::ScalarCode): on a target with a native
// backend it runs as the loop the backend emits for it, which LLVM vectorises (functions
// included: backends/llvm/VectorMath), so it is costed as vector code bound by its arithmetic or
// by the memory its tensors fit in; on a target without one it is a step of the host, not of
// the target, and keeps the nominal one point per cycle.
#pragma once

#include "hw/Hardware.h"
#include "ir/Compute.h"

namespace isam::schedule {

// Vector operations per point of the statement: one per +, -, *, /, negation, min, max, abs
// and conversion, a polynomial sequence per exp, log, tanh and sigmoid, and the reduction's
// step.
double vectorOpsPerPoint(const ir::Statement &s);

// Cycles of statement `statement` on `cores` cores (its parallel loop's share of the target's
// cores; 1 when it has none).
double pointwiseCycles(const ir::Kernel &kernel, const hw::Target &target, size_t statement,
                       double cores);

} // namespace isam::schedule
