// Strided writes solved into their gather form: a rewrite of one statement of the compute IR,
// applied by sema as it lowers the statement.
//
// `O[2 * i + r] += I[i] * W[r]` (a transposed convolution's scatter) writes an element that no
// index alone names, while every consumer of the IR relies on a write indexed by one index per
// dimension (ir/Compute.h). solveStridedWrites gives each strided dimension an index of its own
// over the whole dimension (named after its leading index: `i'`), recovers the indices it
// replaces from it by floor division and remainder, and keeps exactly the points that exist with
// guards:
//
//   O[i'] += I[(i' - r) / 2] pad 0 * W[r]   where (i' - r) % 2 == 0, i' - r >= 0, i' - r < 2N
//
// Contract. Input: a statement as sema builds it, except that the indices of a strided
// dimension (an affine function other than one index with coefficient 1, plus a constant) have
// positive coefficients, are not marked as reductions, follow the plain write indices, and
// appear in no other written dimension; every access is in bounds over the domain. Output: a
// statement meeting every invariant of ir/Compute.h that computes the same values:
//   - Where each coefficient divides the next and covers the range of the ones below it
//     (c_j * extent_j <= c_{j+1} in increasing order: `2 * i + r` with r in 0..2,
//     `4 * i + 2 * j + k`), every index of the dimension is recovered (`i = i' / 2`,
//     `r = i' % 2`): each element is written at most once. An assignment must have this form.
//   - Otherwise (a reduction, `+=` over overlapping taps) the index with the largest coefficient
//     is recovered and the dimension's other indices become reduction indices.
//   - Guards that hold at every point are left out; a statement without strided dimensions is
//     unchanged.
//   - A read that leaves its tensor only at points the guards skip is padded with 0, a value no
//     computed point reads.
#pragma once

#include "ir/Compute.h"

#include <optional>
#include <string>

namespace isam::ir {

struct StridedWriteError {
  size_t dim = 0;      // the written dimension
  std::string message; // why it cannot be solved, for a diagnostic at that dimension
};

// Rewrites s, a statement of a kernel with these tensors, in place, or returns why it cannot (s is
// then unchanged).
std::optional<StridedWriteError> solveStridedWrites(Statement &s,
                                                    const std::vector<Tensor> &tensors);

// Whether the dimension's index is strided: not one index with coefficient 1 plus a constant.
bool isStridedWrite(const Affine &a);

} // namespace isam::ir
