// `isamap run --target ACCEL`: an instance's schedule emitted as an instruction stream and run
// on the simulator (backends/accel/), reported as cycles, utilization, bytes per memory and a
// trace, beside the cost model's estimate.
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

// Simulates one instance (functionally, on `buffers`) and fills `result` with the figures;
// prints them when `text`. Runs `program` when given, else the schedule's own stream. Throws
// accel::Error.
void simulateInstance(const ir::Kernel &kernel, const hw::Target &target,
                      const schedule::KernelSchedule &schedule, const accel::Program *program,
                      interp::Buffers &buffers, const std::string &tracePath, bool text,
                      nlohmann::json &result);

} // namespace isam::cli
