// In-process compilation (ORC LLJIT) for `isamap run`, the tests and the benchmarks.
#pragma once

#include "backends/llvm/Backend.h"

#include <llvm/ExecutionEngine/Orc/LLJIT.h>

#include <cstddef>

namespace isam::backend {

// A compiled instance's entry point (NAME__args_threads, Backend.h): args[i] is the i-th input
// or output, declaration order.
class EntryFn {
public:
  using Fn = void (*)(void *const *args, int threads);
  EntryFn() = default;
  EntryFn(std::nullptr_t) {}
  explicit EntryFn(Fn fn) : fn_(fn) {}
  // Runs the instance on `threads` threads; 0: ISAMAP_NUM_THREADS if that is a positive count,
  // else the target's cores.
  void operator()(void *const *args, unsigned threads = 0) const { fn_(args, int(threads)); }
  explicit operator bool() const { return fn_ != nullptr; }
  bool operator==(std::nullptr_t) const { return fn_ == nullptr; }
  bool operator==(const EntryFn &) const = default;

private:
  Fn fn_ = nullptr;
};

// The target as a machine with `hostFeatures` (llvm::sys::getHostCPUFeatures) runs it: the
// features its CPU implies that the host lacks turned off (an x86 description of an AMD CPU
// implies SSE4a, which Intel hosts do not have), so that the code is the description's, tuned
// for its CPU, and every instruction in it runs there. Other architectures are unchanged.
hw::Target runnableOn(const hw::Target &target, const llvm::StringMap<bool> &hostFeatures);

class Jit {
public:
  // Fails when the host cannot run the target's code (another architecture, or missing CPU
  // features it names), saying which. The code runs here (runnableOn).
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
