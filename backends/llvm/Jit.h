// In-process compilation (ORC LLJIT) for `isamap run`, the tests and the benchmarks.
#pragma once

#include "backends/llvm/Backend.h"

#include <llvm/ExecutionEngine/Orc/LLJIT.h>

namespace isam::backend {

// Array-of-arguments entry point: args[i] is the i-th input or output, declaration order.
using EntryFn = void (*)(void *const *args);

class Jit {
public:
  // Fails when the host cannot run the target's code (another architecture, or missing CPU
  // features), saying which.
  static llvm::Expected<std::unique_ptr<Jit>> create(const hw::Target &target);

  // Compiles one instance; the entry stays valid while the Jit lives.
  llvm::Expected<EntryFn> add(const ir::Kernel &kernel, const schedule::KernelSchedule &schedule,
                              CompileTimes *times = nullptr);

private:
  explicit Jit(const hw::Target &target) : target_(target) {}
  hw::Target target_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::unique_ptr<llvm::TargetMachine> machine_;
  int added_ = 0;
};

} // namespace isam::backend
