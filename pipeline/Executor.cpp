#include "pipeline/Executor.h"
#include "pipeline/Support.h"

#include "backends/accel/Emit.h"
#include "backends/llvm/Cross.h"
#include "backends/llvm/NativeBuffers.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace isam::pipeline {

namespace {

// "NAME: why", for what failed while compiling or running one instance.
llvm::Error about(const ir::Kernel &kernel, llvm::Error error) {
  return fail(kernel.name + ": " + llvm::toString(std::move(error)));
}

} // namespace

ExecutorKind executorFor(const hw::Target *target) {
  if (!target)
    return ExecutorKind::Interpreter;
  if (accel::isAccelerator(*target))
    return ExecutorKind::Simulator;
  return backend::isForeignTarget(*target) ? ExecutorKind::Cross : ExecutorKind::Jit;
}

Executor::~Executor() = default;

llvm::Expected<std::unique_ptr<Executor>> Executor::create(const hw::Target *target) {
  std::unique_ptr<Executor> e(new Executor);
  e->kind_ = executorFor(target);
  if (target)
    e->target_ = *target;
  if (e->kind_ == ExecutorKind::Jit) {
    auto jit = backend::Jit::create(*target);
    if (!jit)
      return jit.takeError();
    e->jit_ = std::move(*jit);
  } else if (e->kind_ == ExecutorKind::Cross) {
    auto cross = backend::CrossRunner::create(*target);
    if (!cross)
      return cross.takeError();
    e->cross_ = std::move(*cross);
  }
  return e;
}

std::string Executor::emulatorName() const {
  return cross_ ? cross_->emulatorName() : std::string();
}

unsigned requestedThreads(unsigned requested) {
  if (requested > 0)
    return requested;
  // What the generated code itself would choose (backends/llvm/Backend.h).
  const char *env = std::getenv("ISAMAP_NUM_THREADS");
  int n = env ? std::atoi(env) : 0;
  return n > 0 ? unsigned(n) : 0;
}

unsigned Executor::threads(unsigned requested) const {
  unsigned n = requestedThreads(requested);
  return n > 0 ? n : std::max(1u, target_ ? target_->cores : 1u);
}

llvm::Error Executor::admit(const ir::Kernel &kernel) const {
  if (kind_ != ExecutorKind::Simulator)
    return llvm::Error::success();
  try {
    accel::checkTensorsFit(kernel, *target_);
  } catch (const accel::Error &e) {
    return fail(kernel.name + " on " + target_->name + ": " + e.what());
  }
  return llvm::Error::success();
}

llvm::Expected<Execution> Executor::run(const ir::Kernel &kernel,
                                        const schedule::KernelSchedule *schedule,
                                        interp::Buffers &buffers, const RunOptions &options) {
  Execution out;
  switch (kind_) {
  case ExecutorKind::Interpreter: {
    auto start = Clock::now();
    interp::runReference(kernel, buffers, options.reference, options.threads, options.progress);
    out.milliseconds.push_back(msSince(start));
    return out;
  }
  case ExecutorKind::Simulator: {
    accel::SimOptions sim;
    sim.tracePath = options.tracePath;
    interp::Buffers *data = options.functional ? &buffers : nullptr;
    try {
      if (options.stream) {
        accel::Simulator simulator(kernel, *target_, data, sim);
        simulator.layout(options.stream->allocations);
        for (const auto &op : options.stream->ops)
          simulator.op(op);
        out.simulation = simulator.finish();
      } else {
        out.simulation = accel::simulate(kernel, *target_, *schedule, data, sim);
      }
    } catch (const accel::Error &e) {
      return fail(e.what());
    }
    return out;
  }
  case ExecutorKind::Cross: {
    out.threads = threads(options.threads);
    auto ran = cross_->run(kernel, *schedule, buffers, options.repeat, &out.llvm, out.threads);
    if (!ran)
      return about(kernel, ran.takeError());
    out.milliseconds = std::move(*ran);
    return out;
  }
  case ExecutorKind::Jit: {
    out.threads = threads(options.threads);
    auto entry = compile(kernel, *schedule, &out.llvm);
    if (!entry)
      return entry.takeError();
    backend::NativeBuffers native = backend::toNative(kernel, buffers);
    for (size_t r = 0; r < options.repeat; ++r) {
      auto start = Clock::now();
      (*entry)(native.args.data(), out.threads);
      out.milliseconds.push_back(msSince(start));
    }
    backend::fromNative(kernel, native, buffers);
    return out;
  }
  }
  return fail("no executor");
}

llvm::Expected<backend::EntryFn> Executor::compile(const ir::Kernel &kernel,
                                                   const schedule::KernelSchedule &schedule,
                                                   backend::CompileTimes *times) {
  if (!jit_)
    return fail("only code for this machine is compiled in process");
  auto entry = jit_->add(kernel, schedule, times);
  if (!entry)
    return about(kernel, entry.takeError());
  return *entry;
}

} // namespace isam::pipeline
