// The schedule verifier: checks a Config against its statement, mapping and target, the cost
// model's claims about it, and the schedule IR lowered from it; says what broke.
//
// Contract: never throws and never reads out of range, whatever the values hold. Returns one
// error diagnostic per violation (code E0903, "internal: ..."), at the statement's range; empty
// means well formed. A violation is a bug in the scheduler, never a problem of the user's input.
//
// Checked for a Config: the statement exists; the mapping is scalar code (-1) or a full,
// non-degenerate candidate whose instruction it names; virtual indices are the candidate's
// bound index groups then its loops (each statement index in exactly one, extents their
// products, instruction extents the binding's, reduction flags the statement's); levels are
// memories of the target, distinct, outermost first (by depth, level 0 a root); tiles have one
// entry per level and virtual index, level 0 holds everything, each level's tile is at least 1,
// at most the enclosing one rounded up to whole calls, and a whole number of calls; orders are
// permutations; the parallel loop is a write index; each operand placement's path runs from a
// root memory inward (each memory inside the one before) to the instruction operand's, staged
// only on the path below its home, filled by nothing exactly where not staged and by a move of
// the target where a move is named. The cost: valid, its bound scalar code exactly for no
// mapping and naming a memory or unit that exists; the working set the model reports fits each
// level (registers counted against the register file).
// For the schedule IR: a Block root, an Init of the right reduction at its top exactly when the
// result starts from the identity (a reduction that does not accumulate, or zeroInit); loops step a
// valid virtual index by a positive step, inside its enclosing box, outer levels outside inner
// ones, parallel only at level 0 over the Config's parallel index; each buffer is a staged operand
// at its level, staged exactly once around the one Call, inside loops of outer levels only, and
// large enough for the operand's footprint over the box there; a Call covers at most one
// instruction's extent of every bound index and one element of every loop; scalar code has one
// Scalar node and no Call.
#pragma once

#include "diag/Diagnostic.h"
#include "hw/Hardware.h"
#include "ir/Compute.h"
#include "mapping/Mapping.h"
#include "schedule/Schedule.h"

#include <vector>

namespace isam::schedule {

std::vector<Diagnostic> verify(const Config &config, const ir::Kernel &kernel,
                               const hw::Target &target,
                               const mapping::StatementMappings &mappings);

// The Config (as above), the cost's claims, the buffers and the schedule IR tree.
std::vector<Diagnostic> verify(const StatementSchedule &schedule, const ir::Kernel &kernel,
                               const hw::Target &target,
                               const mapping::StatementMappings &mappings);

// Every statement's schedule, in order, one per statement; `mappings` as Session::mappings.
std::vector<Diagnostic> verify(const KernelSchedule &schedule, const ir::Kernel &kernel,
                               const hw::Target &target,
                               const std::vector<mapping::StatementMappings> &mappings);

} // namespace isam::schedule
