// Delta-debugging for kernels: shrinks a failing kernel while it still fails the same way.
//
// Transformations, coarse first: drop a statement; replace an expression by one of its
// operands or by a constant; drop a `where` range; make a reduction a plain `=`; drop a
// dimension of a tensor (with its index in every access); shrink sizes (one size value
// everywhere it occurs, or one dimension, or one range); simplify an index (`2 * h + r` to
// `h`, `h + 1` to `h`). A candidate is kept when `stillFails` says so and it is smaller by a
// fixed measure, so the search always ends; unreferenced tensors are dropped after each step.
// Candidates may be invalid: `stillFails` decides (typically: check accepts it and the same
// executor fails in the same way).
#pragma once

#include "Kernel.h"

#include <functional>

namespace isam::difftest {

struct MinimizeStats {
  size_t tries = 0;    // calls of stillFails
  size_t accepted = 0; // steps kept
};

Kernel minimize(const Kernel &failing, const std::function<bool(const Kernel &)> &stillFails,
                size_t maxTries = 300, MinimizeStats *stats = nullptr);

// The measure minimize() decreases: statements, then expression nodes, dimensions, index
// terms, ranges and sizes, weighted in that order.
int64_t kernelCost(const Kernel &k);

// A coarse description of what a (minimised) kernel does, for grouping findings by likely
// cause: the element types written, the reduction operators, and which of the known-risky
// shapes it has (partial-write, self-read, multi-offset, diagonal, shift, stride, function
// names). Two minimised kernels with the same fingerprint failing the same way are reported
// once.
std::string fingerprint(const Kernel &k);

// Drops inputs and locals no statement references.
void dropUnused(Kernel &k);

} // namespace isam::difftest
