// The schedule-IR interpreter: runs a kernel's schedule on buffers, executing each instruction
// call by its semantics from the hardware model, through the staged buffers. Comparing its
// result with the reference interpreter checks a schedule before any backend exists.
#pragma once

#include "interp/Interpreter.h"
#include "schedule/Schedule.h"

namespace isam::schedule {

// The range [lo[i], hi[i]] of each statement index over a box of virtual indices (each
// [begin[v], begin[v] + size[v])): a fused index spans its inner indices whole unless the box
// stays within one value of the outer ones. Shared by the executors and the backends.
void statementBox(const Config &c, const ir::Statement &s, const std::vector<int64_t> &begin,
                  const std::vector<int64_t> &size, std::vector<int64_t> &lo,
                  std::vector<int64_t> &hi);

void execute(const KernelSchedule &schedule, const ir::Kernel &kernel, const hw::Target &target,
             interp::Buffers &buffers);

} // namespace isam::schedule
