// Padded reads made cheap to map: a kernel-level rewrite of the compute IR, applied by the
// driver to every instance (SessionOptions::stagePaddedReads).
//
// A padded read `X[h + r - 1] pad 0` gives the pad value outside X's bounds, so no instruction
// operand can stand for it (ir::computedPerPoint) and its statement would run as scalar code.
// stagePaddedReads copies what such a read reaches into a local once, padding included, so
// that the statement reads the copy in bounds and maps like any affine statement:
//
//   O[f, h, w] += I[c, h + r - 1, w + s - 1] pad 0 * K[f, c, r, s]
// becomes
//   I_pad[c, h, w] = I[c, h - 1, w - 1] pad 0          (staged; over every element reached)
//   O[f, h, w] += I_pad[c, h + r, w + s] * K[f, c, r, s]
//
// Contract. The result computes exactly what the kernel computed (a copy changes no value), for
// every executor: outputs and inputs keep their positions, staged locals are appended after the
// kernel's tensors, and each staged copy is marked Statement::staged and placed just before the
// statement it serves (after every earlier write of the tensor it copies).
//   - A padded read that never leaves its tensor over its statement's domain loses its pad (it
//     is an ordinary read).
//   - The padded reads of one statement, tensor and pad value are staged in one copy covering
//     the bounding box of what they reach, when the statement has at least twice as many points
//     as that box has elements (convolutions, pools, filters: each element is read several
//     times, so the copy is cheap next to the statement).
//   - Other padded reads (element-wise statements, each element read about once) stay as they
//     are: a copy would cost what the read costs, and their statements run as scalar code.
#pragma once

#include "ir/Compute.h"

namespace isam::ir {

// Rewrites k in place; returns how many staged copies it added.
int stagePaddedReads(Kernel &k);

} // namespace isam::ir
