// The compute IR's verifier: checks that a Kernel (an instance, or an instruction's semantics)
// satisfies every invariant ir/Compute.h and ARCHITECTURE.md state, and says which one broke.
//
// Contract: never throws and never reads out of range, whatever the Kernel holds (it checks
// positions before following them). Returns one error diagnostic per violation found (code
// E0901, "internal: ..."), at the statement's range when it has one, else the kernel's; an
// empty vector means the kernel is well formed. A violation is a bug in the stage that built
// the kernel, never a problem of the user's input: sema reports those with their own codes.
//
// Checked: tensors (shape and shapeParams agree, sizes positive unless free, names distinct);
// per statement: indices (extents positive, or 0 with a free parameter; write indices first),
// the written access (a writable tensor of the kernel, one distinct index per dimension, in
// order, plus a constant where a range starts above 0), reduction indices exactly those absent from
// the write, a reduction operator exactly when there are reduction indices, every access of the
// right rank, with index positions in range and in bounds over the whole domain unless a padded
// read (quasi-affine parts included, with positive divisors), the written access never padded
// nor quasi-affine (a free dimension
// indexed by its own parameter's index alone), the self-read rule (the written tensor read only at
// the written point, and never by a reduction), and expression shape and types (arity per operator,
// operands of the node's type except a conversion's, reads of their tensor's type, the
// right-hand side of the written tensor's type).
#pragma once

#include "diag/Diagnostic.h"
#include "ir/Compute.h"

#include <vector>

namespace isam::ir {

std::vector<Diagnostic> verify(const Kernel &kernel);

} // namespace isam::ir
