// The schedule-IR interpreter: runs a kernel's schedule on buffers, executing each instruction
// call by its semantics from the hardware model, through the staged buffers. Comparing its
// result with the reference interpreter checks a schedule before any backend exists.
#pragma once

#include "interp/Interpreter.h"
#include "schedule/Schedule.h"

namespace isam::schedule {

void execute(const KernelSchedule &schedule, const ir::Kernel &kernel, const hw::Target &target,
             interp::Buffers &buffers);

} // namespace isam::schedule
