// Runs kernels (Runner.h) in child processes, so that a crash or a hang in an executor is a
// finding and not the end of the campaign.
//
// One child runs a batch of kernels in order and reports each over a pipe: the kernel it
// starts, the target and executor it is about to run, and each execution's result. When the
// child dies (a signal, an abort) or a kernel outlives its time limit (the child's process
// group is killed, qemu included), the kernel in progress is reported as a crash or a timeout
// of the executor that was running, and a new child carries on with the next kernel. The
// parent never initialises LLVM or runs generated code, so forking it is safe.
#pragma once

#include "Runner.h"

namespace isam::difftest {

struct Job {
  std::string text;
  std::string instance;
  RunOptions options;
};

// Runs every job; `report(i, outcome)` is called in job order. `timeoutSeconds` bounds each
// kernel (all its executions together).
void runSupervised(const std::vector<Job> &jobs, double timeoutSeconds,
                   const std::function<void(size_t, const KernelOutcome &)> &report,
                   size_t batch = 64);

} // namespace isam::difftest
