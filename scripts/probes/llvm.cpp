// LLVM 16's probe: a module with one function built, verified and compiled for the host by the
// JIT (ORC LLJIT), then called, as the backend does.
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/TargetSelect.h>

#include <cstdio>

int main() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("probe", *context);
  llvm::IRBuilder<> b(*context);
  auto *type = llvm::FunctionType::get(b.getInt32Ty(), {b.getInt32Ty()}, false);
  auto *f = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "twice", *module);
  b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", f));
  b.CreateRet(b.CreateAdd(f->getArg(0), f->getArg(0)));
  if (llvm::verifyModule(*module, &llvm::errs()))
    return 1;
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) {
    llvm::errs() << jit.takeError();
    return 1;
  }
  if (auto e =
          (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context)))) {
    llvm::errs() << e;
    return 1;
  }
  auto twice = (*jit)->lookup("twice");
  if (!twice) {
    llvm::errs() << twice.takeError();
    return 1;
  }
  if (twice->toPtr<int (*)(int)>()(21) != 42)
    return 1;
  std::puts("ok");
  return 0;
}
