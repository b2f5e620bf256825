// The scheduled dataflow of a kernel on a target, per statement: the memory levels as nested
// clusters (outermost outside) labelled with their tile and the loops that run there, each
// operand's tile at every level it passes through (a staged buffer in the memory it lives in,
// or a dashed tile where a cache holds it), moves between levels as edges labelled with the
// bytes of one tile and the total traffic, the instruction at the core, the cost model's
// breakdown, and its bound highlighted in red.
//
// For a system: which unit runs which statement (mapping::partition) and the transfers between
// units.
//
// Node ids: "sN.op.OPERAND.L" (operand tile at level L), "sN.instr", "sN.summary"; in the system
// picture "sN" and "UNIT.tensor.NAME".
#pragma once

#include "hw/Hardware.h"
#include "ir/Compute.h"
#include "mapping/Mapping.h"
#include "schedule/CostModel.h"
#include "schedule/Schedule.h"
#include "viz/Style.h"

#include <optional>
#include <string>
#include <vector>

namespace isam::viz {

// `statement`: draw only this statement (default: every statement of the schedule).
std::string scheduleGraph(const ir::Kernel &kernel, const hw::Target &target,
                          const schedule::KernelSchedule &schedule,
                          std::optional<size_t> statement = std::nullopt,
                          const Options &options = {});

// `units` are the system's targets, as given to mapping::partition.
std::string partitionGraph(const ir::Kernel &kernel, const hw::System &system,
                           const std::vector<hw::Target> &units,
                           const mapping::Partition &partition, const Options &options = {});

// The traffic of one operand into one level, as the analytical cost model counts it
// (schedule::operandTraffic); summed over the operands whose path includes the level, `total`
// is the model's Cost::LevelCost::bytes. Out-of-range arguments give zeros.
using schedule::Traffic;
Traffic operandTraffic(const ir::Kernel &kernel, const schedule::StatementSchedule &schedule,
                       size_t operand, size_t level);

} // namespace isam::viz
