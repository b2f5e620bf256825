#include "backends/llvm/Calibrate.h"

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/Support/TargetSelect.h>

#include <chrono>
#include <map>
#include <mutex>

namespace isam::backend {

namespace {

constexpr int kChains = 24; // independent accumulators: more than latency x pipes on any core

// void fma_loop(i64 iterations, ptr out): kChains chains of acc = acc * x + y.
std::unique_ptr<llvm::Module> fmaLoop(llvm::LLVMContext &ctx, const hw::HostCpu &cpu,
                                      unsigned lanes) {
  auto m = std::make_unique<llvm::Module>("calibrate", ctx);
  llvm::IRBuilder<> b(ctx);
  auto *vt = llvm::FixedVectorType::get(b.getFloatTy(), lanes);
  auto *fnTy = llvm::FunctionType::get(b.getVoidTy(),
                                       {b.getInt64Ty(), llvm::PointerType::get(ctx, 0)}, false);
  auto *fn = llvm::Function::Create(fnTy, llvm::Function::ExternalLinkage, "fma_loop", *m);
  fn->addFnAttr("target-cpu", cpu.cpu);
  std::string features;
  for (const auto &f : cpu.features)
    features.append(features.empty() ? "+" : ",+").append(f);
  fn->addFnAttr("target-features", features);
  auto *entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  auto *loop = llvm::BasicBlock::Create(ctx, "loop", fn);
  auto *done = llvm::BasicBlock::Create(ctx, "done", fn);
  b.SetInsertPoint(entry);
  llvm::Value *x = b.CreateVectorSplat(lanes, llvm::ConstantFP::get(b.getFloatTy(), 0.999999));
  llvm::Value *y = b.CreateVectorSplat(lanes, llvm::ConstantFP::get(b.getFloatTy(), 1e-7));
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  auto *i = b.CreatePHI(b.getInt64Ty(), 2);
  i->addIncoming(b.getInt64(0), entry);
  std::vector<llvm::PHINode *> acc;
  std::vector<llvm::Value *> next;
  for (int c = 0; c < kChains; ++c) {
    acc.push_back(b.CreatePHI(vt, 2));
    acc.back()->addIncoming(
        llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(lanes),
                                       llvm::ConstantFP::get(b.getFloatTy(), c)),
        entry);
  }
  for (int c = 0; c < kChains; ++c)
    next.push_back(b.CreateIntrinsic(llvm::Intrinsic::fma, {vt}, {acc[size_t(c)], x, y}));
  llvm::Value *i1 = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(i1, loop);
  for (int c = 0; c < kChains; ++c)
    acc[size_t(c)]->addIncoming(next[size_t(c)], loop);
  b.CreateCondBr(b.CreateICmpULT(i1, fn->getArg(0)), loop, done);
  b.SetInsertPoint(done);
  llvm::Value *sum = next[0];
  for (int c = 1; c < kChains; ++c)
    sum = b.CreateFAdd(sum, next[size_t(c)]);
  b.CreateAlignedStore(sum, fn->getArg(1), llvm::Align(4));
  b.CreateRetVoid();
  return m;
}

std::optional<double> measure(const hw::HostCpu &cpu, unsigned vectorBytes) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  unsigned lanes = std::max(1u, vectorBytes / 4);
  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(cpu.triple)};
  jtmb.setCPU(cpu.cpu);
  for (const auto &f : cpu.features)
    jtmb.getFeatures().AddFeature(f);
  jtmb.setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create();
  if (!jit) {
    llvm::consumeError(jit.takeError());
    return std::nullopt;
  }
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto module = fmaLoop(*ctx, cpu, lanes);
  module->setDataLayout((*jit)->getDataLayout());
  if (auto e =
          (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(ctx)))) {
    llvm::consumeError(std::move(e));
    return std::nullopt;
  }
  auto sym = (*jit)->lookup("fma_loop");
  if (!sym) {
    llvm::consumeError(sym.takeError());
    return std::nullopt;
  }
  auto run = sym->toPtr<void (*)(int64_t, void *)>();
  std::vector<float> out(lanes);
  const int64_t iterations = 20000; // about a tenth of a millisecond
  run(iterations, out.data());      // warm up (clock ramp, page-in)
  double best = 1e30;
  // The best of many short runs (about 20 ms in all): on a shared machine, some of them run
  // between two time slices of the other processes, on a core to themselves.
  for (int r = 0; r < 200; ++r) {
    auto start = std::chrono::steady_clock::now();
    run(iterations, out.data());
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  double flops = double(iterations) * kChains * lanes * 2;
  return flops / best / 1e9;
}

} // namespace

std::optional<double> measureFmaGflops(const hw::HostCpu &cpu, unsigned vectorBytes) {
  static std::mutex mutex;
  static std::map<unsigned, std::optional<double>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(vectorBytes); it != cache.end())
    return it->second;
  return cache[vectorBytes] = measure(cpu, vectorBytes);
}

} // namespace isam::backend
