#include "backends/llvm/Jit.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/TargetParser/X86TargetParser.h>

#include <chrono>
#include <dlfcn.h>

namespace isam::backend {

namespace {

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The host must have the target's architecture and every feature it enables.
llvm::Error hostCanRun(const hw::Target &target, const llvm::StringMap<bool> &features) {
  llvm::Triple host(llvm::sys::getProcessTriple()), want(target.triple);
  if (host.getArch() != want.getArch())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "target '%s' is %s code and this machine is %s: compile it with `isamap compile "
        "--emit=obj` instead, or run with --target host",
        target.name.c_str(), want.getArchName().str().c_str(), host.getArchName().str().c_str());
  std::string missing;
  llvm::StringRef rest(target.features);
  while (!rest.empty()) {
    auto [feature, tail] = rest.split(',');
    rest = tail;
    feature = feature.trim();
    if (feature.consume_front("+") && !features.lookup(feature))
      missing.append(missing.empty() ? "" : ", ").append(feature.str());
  }
  if (!missing.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "this CPU (%s) lacks what target '%s' needs: %s; run with "
                                   "--target host",
                                   llvm::sys::getHostCPUName().str().c_str(), target.name.c_str(),
                                   missing.c_str());
  return llvm::Error::success();
}

} // namespace

hw::Target runnableOn(const hw::Target &target, const llvm::StringMap<bool> &hostFeatures) {
  hw::Target out = target;
  if (!llvm::Triple(target.triple).isX86())
    return out;
  llvm::SmallVector<llvm::StringRef, 64> implied;
  llvm::X86::getFeaturesForCPU(target.cpu, implied);
  for (llvm::StringRef feature : implied) {
    auto it = hostFeatures.find(feature);
    if (it != hostFeatures.end() && !it->second)
      out.features.append(out.features.empty() ? "-" : ",-").append(feature.str());
  }
  return out;
}

llvm::Expected<std::unique_ptr<Jit>> Jit::create(const hw::Target &described) {
  initializeLLVM();
  llvm::StringMap<bool> hostFeatures;
  llvm::sys::getHostCPUFeatures(hostFeatures);
  const hw::Target target = runnableOn(described, hostFeatures);
  if (target.triple.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "target '%s' names no LLVM triple; it has no native code",
                                   target.name.c_str());
  if (auto e = hostCanRun(target, hostFeatures))
    return e;
  // Generated code runs its parallel loops on libgomp, which the process may not have loaded.
  // dlopen'ed here and never closed: LLVM's own registry of libraries closes them at exit,
  // while libgomp's pool threads still sleep in its code.
  if (!dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot load the OpenMP runtime (libgomp.so.1): %s", dlerror());
  std::unique_ptr<Jit> jit(new Jit(target));
  auto machine = targetMachine(target, false);
  if (!machine)
    return machine.takeError();
  jit->machine_ = std::move(*machine);
  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(target.triple)};
  jtmb.setCPU(target.cpu);
  llvm::SubtargetFeatures features(target.features);
  jtmb.addFeatures(features.getFeatures());
  jtmb.setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
  auto lljit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create();
  if (!lljit)
    return lljit.takeError();
  jit->jit_ = std::move(*lljit);
  return jit;
}

llvm::Expected<EntryFn> Jit::add(const ir::Kernel &kernel, const schedule::KernelSchedule &schedule,
                                 CompileTimes *times) {
  CompileTimes local;
  CompileTimes &t = times ? *times : local;
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = buildModule(*context, target_, {{&kernel, &schedule}}, *machine_, t);
  if (!module)
    return module.takeError();

  // One library per instance, so that two instances (or two schedules of one) never clash.
  auto start = std::chrono::steady_clock::now();
  auto lib = jit_->createJITDylib("kernel" + std::to_string(added_++));
  if (!lib)
    return lib.takeError();
  lib->addGenerator(llvm::cantFail(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      jit_->getDataLayout().getGlobalPrefix())));
  (*module)->setDataLayout(jit_->getDataLayout());
  if (auto e = jit_->addIRModule(
          *lib, llvm::orc::ThreadSafeModule(std::move(*module), std::move(context))))
    return e;
  auto symbol = jit_->lookup(*lib, symbolName(kernel) + "__args_threads");
  if (!symbol)
    return symbol.takeError();
  t.machineCodeMs = msSince(start);
  return EntryFn(symbol->toPtr<EntryFn::Fn>());
}

} // namespace isam::backend
