// What runs a kernel, chosen once per target (executorFor):
//   no target                          the reference interpreter (interp/), in double precision
//   an accelerator (no LLVM triple)    its instruction stream on the simulator (backends/accel)
//   another architecture's triple      cross-compiled, linked and run under qemu-user
//                                      (backends/llvm/Cross.h; the times are the emulator's)
//   this machine's architecture        compiled in process by the ORC JIT (backends/llvm/Jit.h)
// Every executor takes the interpreter's buffers (inputs filled) and leaves the outputs in them,
// so any two can be compared and each can be checked against the interpreter.
#pragma once

#include "backends/accel/Program.h"
#include "backends/accel/Simulator.h"
#include "backends/llvm/Backend.h"
#include "backends/llvm/Jit.h"
#include "interp/RowInterpreter.h"

#include <llvm/Support/Error.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace isam::backend {
class CrossRunner;
}

namespace isam::pipeline {

enum class ExecutorKind { Interpreter, Jit, Cross, Simulator };

// The executor for `target` (null: the interpreter), as the table above says.
ExecutorKind executorFor(const hw::Target *target);

// How to run an instance.
struct RunOptions {
  size_t repeat = 1;     // timed calls (native code); the interpreter and the simulator run once
  unsigned threads = 0;  // native code: 0 means Executor::threads(0)
  std::string tracePath; // the simulator: a Chrome trace of the run
  const accel::Program *stream = nullptr; // the simulator: this program, not the schedule's own
  bool functional = true; // the simulator: false times the run only, leaving the buffers be
  interp::Reference reference = interp::Reference::Rows; // the interpreter: which one
  interp::RowProgress progress; // the interpreter: the fraction of its points done, now and then
};

// What running one instance gave.
struct Execution {
  std::vector<double> milliseconds;           // each timed call (the interpreter: its one run)
  unsigned threads = 0;                       // native code: the threads it ran on
  backend::CompileTimes llvm;                 // native code: compiling it
  std::optional<accel::SimResult> simulation; // the simulator's figures
};

// The threads a run asks for: `requested` when positive, else ISAMAP_NUM_THREADS when that is
// a positive count, else 0 (the target's cores).
unsigned requestedThreads(unsigned requested);

class Executor {
public:
  // The executor for `target` (null: the interpreter), ready to run: the JIT made for it, or
  // the cross toolchain and emulator found. Fails saying why (a CPU feature this machine lacks,
  // a missing package, ...).
  static llvm::Expected<std::unique_ptr<Executor>> create(const hw::Target *target);
  ~Executor();

  ExecutorKind kind() const { return kind_; }
  // The emulator native code of another architecture runs under (e.g. "qemu-aarch64").
  std::string emulatorName() const;
  // The threads native code runs on: `requested` when positive, else ISAMAP_NUM_THREADS when
  // that is a positive count, else the target's cores.
  unsigned threads(unsigned requested) const;

  // Fails when the instance cannot run here at all, before anything of its size is allocated:
  // an accelerator's described memory must hold its tensors.
  llvm::Error admit(const ir::Kernel &kernel) const;

  // Runs `kernel`, scheduled by `schedule` (unused by the interpreter), on `buffers`. Errors
  // name what failed.
  llvm::Expected<Execution> run(const ir::Kernel &kernel, const schedule::KernelSchedule *schedule,
                                interp::Buffers &buffers, const RunOptions &options);

  // The JIT only: the instance compiled in process, for callers that call it themselves (the
  // benchmarks). The entry stays valid while the executor lives.
  llvm::Expected<backend::EntryFn> compile(const ir::Kernel &kernel,
                                           const schedule::KernelSchedule &schedule,
                                           backend::CompileTimes *times = nullptr);

private:
  Executor() = default;
  ExecutorKind kind_ = ExecutorKind::Interpreter;
  std::optional<hw::Target> target_;
  std::unique_ptr<backend::Jit> jit_;
  std::unique_ptr<backend::CrossRunner> cross_;
};

} // namespace isam::pipeline
