// LLVM's targets, target machines and the optimisation pipeline.
#include "backends/llvm/Backend.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <chrono>
#include <mutex>

namespace isam::backend {

void initializeLLVM() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>> targetMachine(const hw::Target &target,
                                                                   bool positionIndependent) {
  initializeLLVM();
  if (target.triple.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "target '%s' names no LLVM triple (`llvm triple \"...\"`); "
                                   "it has no native code",
                                   target.name.c_str());
  std::string error;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (!t)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "target '%s': %s",
                                   target.name.c_str(), error.c_str());
  llvm::TargetOptions options;
  std::optional<llvm::Reloc::Model> reloc;
  if (positionIndependent)
    reloc = llvm::Reloc::PIC_;
  std::unique_ptr<llvm::TargetMachine> tm(
      t->createTargetMachine(target.triple, target.cpu, target.features, options, reloc,
                             std::nullopt, llvm::CodeGenOpt::Aggressive));
  if (!tm)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "LLVM cannot make a machine for target '%s' (%s, cpu %s)",
                                   target.name.c_str(), target.triple.c_str(), target.cpu.c_str());
  return tm;
}

namespace {

// LLVM 16's instruction selection folds `fpext (load <N x half>)` into an extending vector
// load, which RISC-V without Zvfh cannot select ("LLVM ERROR: Cannot select: ... anyext from
// v4f16", an abort): the vectorisers make such pairs out of scalar loads of f16. A freeze
// between the two keeps them apart; x86 and AArch64 generate the same conversions with it.
void separateHalfVectorLoads(llvm::Module &module) {
  std::vector<llvm::FPExtInst *> exts;
  for (llvm::Function &f : module)
    for (llvm::Instruction &i : llvm::instructions(f))
      if (auto *ext = llvm::dyn_cast<llvm::FPExtInst>(&i))
        if (ext->getSrcTy()->isVectorTy() && ext->getSrcTy()->getScalarType()->isHalfTy() &&
            llvm::isa<llvm::LoadInst>(ext->getOperand(0)))
          exts.push_back(ext);
  for (llvm::FPExtInst *ext : exts) {
    llvm::IRBuilder<> b(ext);
    ext->setOperand(0, b.CreateFreeze(ext->getOperand(0)));
  }
}

} // namespace

void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine) {
  module.setDataLayout(machine.createDataLayout());
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&machine);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  mpm.run(module, mam);
  separateHalfVectorLoads(module);
}

llvm::Expected<std::unique_ptr<llvm::Module>> buildModule(llvm::LLVMContext &context,
                                                          const hw::Target &target,
                                                          const std::vector<KernelCode> &kernels,
                                                          llvm::TargetMachine &machine,
                                                          CompileTimes &times) {
  if (auto e = checkSymbols(kernels))
    return e;
  auto start = std::chrono::steady_clock::now();
  auto since = [&] {
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    start = std::chrono::steady_clock::now();
    return ms;
  };
  std::unique_ptr<llvm::Module> module = generateModule(context, target, kernels);
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*module, &os))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "internal error: invalid LLVM IR: %s", os.str().c_str());
  times.generateMs = since();
  optimizeModule(*module, machine);
  times.optimizeMs = since();
  return module;
}

} // namespace isam::backend
