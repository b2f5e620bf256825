// Running one kernel on every executor and comparing each with the reference interpreter.
//
// First the row interpreter (interp/RowInterpreter.h), which must give the point interpreter's
// bits exactly.
// For each target: the schedule-IR interpreter (schedule::execute) on the target's schedule,
// then the target's own executor: the JIT for a target this CPU runs (host, x86_avx2,
// x86_avx512 when the CPU has the features, generic), the simulator for an accelerator
// (systolic16), or qemu-user for another architecture (arm_neon, riscv_rvv; slow: only when
// asked). Everything runs in this process and may crash it: run it under Supervisor.h.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace isam::difftest {

enum class Status { Pass, Mismatch, Error, Exception, Crash, Timeout, Unsupported };
const char *statusName(Status s);
bool isFinding(Status s);

struct Execution {
  std::string target;
  std::string executor; // schedule, jit, simulator, qemu
  Status status = Status::Pass;
  std::string detail; // what differed, the error's message, the signal
};

struct KernelOutcome {
  bool rejected = false; // `check` (or instantiation) reported errors: a finding
  std::string rejection; // the diagnostics
  bool unusable = false; // the reference itself holds NaN or infinity: a generator bug
  std::string unusableWhy;
  std::vector<Execution> executions;
};

struct RunOptions {
  std::vector<std::string> targets;
  bool cross = true;               // run targets of another architecture (under qemu) at all
  bool scheduleIr = true;          // also run the schedule-IR interpreter per target
  uint64_t inputSeed = 1;          // interp::randomInputs
  size_t scheduleCandidates = 200; // the search's budget per statement (deterministic)
  // For the supervisor's own tests: after the check, abort or hang as an executor might.
  enum class Fault { None, Abort, Hang } fault = Fault::None;
};

// Checks, instantiates and runs `text`'s instance `instance`. `progress` is called with the
// target and executor before each execution (a supervisor uses it to name what crashed).
KernelOutcome
runKernel(const std::string &text, const std::string &instance, const RunOptions &options,
          const std::function<void(const std::string &, const std::string &)> &progress = {});

} // namespace isam::difftest
