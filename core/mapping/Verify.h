// The mapping verifier: checks a mapping candidate against its statement and target, and a
// statement's mappings as a whole, and says what broke.
//
// Contract: never throws and never reads out of range, whatever the values hold. Returns one
// error diagnostic per violation (code E0902, "internal: ..."), at the statement's range; empty
// means well formed. A violation is a bug in the mapper, never a problem of the user's input.
//
// Checked for a candidate: the instruction exists on the target and is a move exactly when the
// candidate says so; one binding per instruction index, in order, with the index's extent (0 for
// a free size) and parameter; bound statement indices in range, of the instruction index's kind
// (reduction or not), their extents' product recorded; every statement index bound or looped
// exactly once; the remainder consistent with the extents (Free for a free size, Exact when the
// instruction's extent divides, a mask, pad or tail otherwise); degenerate exactly when an
// instruction index of extent above 1 is left unbound; one operand binding per instruction
// operand, in order and of its role; an operand bound to a statement tensor stands for one of
// the statement's accesses of that tensor, has the instruction operand's element type, and
// every run of fused indices is contiguous in it; each move step a move of the target between
// two of its memories (or a pack, or a memory nothing empties);
// estimates positive (instruction count, cycles, utilization in (0, 1]).
// For a statement's mappings: the kernel, statement and target named; every instruction either
// a candidate or a rejection with a reason, not both (unless the budget ran out); full,
// non-degenerate candidates first; each candidate as above.
#pragma once

#include "diag/Diagnostic.h"
#include "hw/Hardware.h"
#include "ir/Compute.h"
#include "mapping/Mapping.h"

#include <vector>

namespace isam::mapping {

std::vector<Diagnostic> verify(const Candidate &candidate, const ir::Kernel &kernel,
                               size_t statement, const hw::Target &target);

std::vector<Diagnostic> verify(const StatementMappings &mappings, const ir::Kernel &kernel,
                               const hw::Target &target);

} // namespace isam::mapping
