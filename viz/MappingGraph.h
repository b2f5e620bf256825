// One statement's mapping onto an instruction: the statement's indices on one side, the
// instruction's indices on the other, an edge per binding (indices fused into one instruction
// index are grouped in a cluster; statement indices left as loops are dashed; an instruction
// index bound to nothing is a unit extent), the statement's accesses bound to the instruction's
// operands (memory, strides, the moves that bring them), the other candidates, and every
// rejected instruction greyed with its reason.
//
// Node ids: "stmt.IDX" and "instr.IDX" (indices), "access.N" and "operand.NAME", "rejected.NAME".
#pragma once

#include "hw/Hardware.h"
#include "ir/Compute.h"
#include "mapping/Mapping.h"
#include "viz/Style.h"

#include <string>

namespace isam::viz {

// `candidate` indexes mappings.candidates (best first); out of range (or no candidate at all)
// draws the statement and the rejections only.
std::string mappingGraph(const ir::Kernel &kernel, const mapping::StatementMappings &mappings,
                         const hw::Target &target, size_t candidate = 0,
                         const Options &options = {});

} // namespace isam::viz
