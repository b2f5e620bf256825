// The schedule-IR interpreter: runs a kernel's schedule on buffers, executing each instruction
// call by its semantics from the hardware model, through the staged buffers. Comparing its
// result with the reference interpreter checks a schedule before any backend exists.
#pragma once

#include "interp/Interpreter.h"
#include "schedule/Schedule.h"

#include <functional>

namespace isam::schedule {

// `progress`, when given, is called now and then with the fraction of the kernel's points done
// (1 at the end).
void execute(const KernelSchedule &schedule, const ir::Kernel &kernel, const hw::Target &target,
             interp::Buffers &buffers, const std::function<void(double)> &progress = {});

} // namespace isam::schedule
