// `isamap run --target ACCEL`: an instance's instruction stream run on the simulator
// (backends/accel/), reported as cycles, utilization, bytes per memory and a trace, beside the
// cost model's estimate.
#pragma once

#include "backends/accel/Simulator.h"

#include <nlohmann/json.hpp>
#include <string>

namespace isam::cli {

// The trace file of one instance: `path` itself for a single instance, else with the instance's
// name before the extension (t.json -> t.gemm_small.json). Empty when no trace was asked for.
std::string tracePathFor(const std::string &path, const std::string &instance, bool several);

// The program for `kernel` in a stream file `compile --emit=stream` wrote (one program, or an
// array of them). Throws accel::Error when the file cannot be read or holds none for it.
accel::Program readStream(const std::string &path, const ir::Kernel &kernel,
                          const hw::Target &target);

// The figures of one instance's simulation (pipeline::Executor ran it) into `result`, beside
// the cost model's estimate from `schedule`; printed when `text`.
void reportSimulation(const ir::Kernel &kernel, const hw::Target &target,
                      const schedule::KernelSchedule &schedule, const accel::SimResult &r,
                      const std::string &tracePath, bool text, nlohmann::json &result);

} // namespace isam::cli
