// The isamap side of the benchmark: one kernel instance from a sample file through the pipeline
// (pipeline/Pipeline.h: instantiated, mapped and scheduled for a target) and compiled in process
// by its executor (the JIT), with the time each stage took.
#pragma once

#include "driver/Session.h"
#include "pipeline/Executor.h"

#include <string>
#include <vector>

namespace isam::bench {

struct CompiledKernel {
  ir::Kernel kernel;
  backend::EntryFn entry = nullptr; // called with the thread count; null when a stage failed,
                                    // and `error` says why
  std::string error;
  double mapScheduleMs = 0;    // Session::schedule: mapping and the schedule search
  backend::CompileTimes times; // generate, optimise, machine code
  double compileMs() const { return times.generateMs + times.optimizeMs + times.machineCodeMs; }
};

// Selects one instance of `file` (a fresh session each time, so that one instance's errors do
// not block the next), schedules it on `target` and compiles it with `executor` (a JIT's).
CompiledKernel compileInstance(const std::string &file, const InstanceSelector &selector,
                               const hw::Target &target, pipeline::Executor &executor);

// The names of the instances `file` declares; empty (and `error` set) when it does not load.
std::vector<std::string> instanceNames(const std::string &file, std::string &error);

} // namespace isam::bench
