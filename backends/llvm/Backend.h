// The LLVM backend: a kernel's schedule (schedule/Schedule.h) to native code for the target its
// description names (`llvm triple/cpu/features`).
//
// ABI of the generated code. Each kernel instance is an exported C function
//     void NAME(const T *in1, ..., T *out1, ...);
// with the kernel's inputs then outputs in declaration order, dense row-major, no alignment
// required; outputs are fully overwritten. Two companions take the same pointers as an array
// (for callers that only know the arity at run time: the JIT, the benchmarks, the cross driver):
//     void NAME__args(void *const *args);
//     void NAME__args_threads(void *const *args, int threads);
// Parallel loops run through the OpenMP runtime (libgomp) on `threads` threads when that is
// positive; otherwise (and always from NAME and NAME__args) on ISAMAP_NUM_THREADS threads when
// that environment variable, read at each call, is a positive count, else on the target's
// `cores`. The variable is for programs that link the generated code and have no other way to
// choose; isamap itself passes its count as the argument. Locals and large staging buffers are
// heap-allocated per call.
//
// Contract: for any schedule the scheduler produces, the generated function computes what the
// reference interpreter computes, within interp::tolerance().
#pragma once

#include "hw/Hardware.h"
#include "ir/Compute.h"
#include "schedule/Schedule.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>
#include <vector>

namespace isam::backend {

// One instance and the schedule to compile it with.
struct KernelCode {
  const ir::Kernel *kernel = nullptr;
  const schedule::KernelSchedule *schedule = nullptr;
};

// Readies LLVM's targets, once per process.
void initializeLLVM();

// The target machine for a description (its triple, cpu and features), at -O3.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>> targetMachine(const hw::Target &target,
                                                                   bool positionIndependent);

// The unoptimised module with one function per kernel (and its __args companion).
std::unique_ptr<llvm::Module> generateModule(llvm::LLVMContext &context, const hw::Target &target,
                                             const std::vector<KernelCode> &kernels);

// The standard -O3 pipeline, tuned for the target machine.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine);

// Where compiling a set of kernels spends its time.
struct CompileTimes {
  double generateMs = 0, optimizeMs = 0, machineCodeMs = 0;
};

// checkSymbols, generateModule, the verifier (a failure is an internal error) and
// optimizeModule, timing the first three and the last in `times`.
llvm::Expected<std::unique_ptr<llvm::Module>> buildModule(llvm::LLVMContext &context,
                                                          const hw::Target &target,
                                                          const std::vector<KernelCode> &kernels,
                                                          llvm::TargetMachine &machine,
                                                          CompileTimes &times);

// The C symbol of a kernel's entry point (its name with anything but [A-Za-z0-9_] as '_').
std::string symbolName(const ir::Kernel &kernel);

// Fails when entry points would clash: with each other (NAME, NAME__args), with a C keyword, or
// with a C library function the generated code calls (getenv, expf, GOMP_parallel, ...).
llvm::Error checkSymbols(const std::vector<KernelCode> &kernels);

// The C header declaring the kernels' entry points.
std::string cHeader(const std::vector<KernelCode> &kernels, const std::string &guard);

} // namespace isam::backend
