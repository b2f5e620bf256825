// The loops of a stage's copies (packs, register tile loads and write-backs) carry
// llvm.loop.unroll.disable: LLVM's unroller multiplied them once per tile size a schedule
// makes, and its passes over the copies took most of a large GEMM's compile time (1.1 s of
// 1.2 s LLVM time for TN 1760 x 7000 x 1760 on this repository's Xeon, 0.5 s without). The
// loops that run the instruction are left to it.
#include "backends/llvm/Backend.h"
#include "support/TestSupport.h"

#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <gtest/gtest.h>

using namespace isam;

namespace {

bool unrollDisabled(const llvm::Instruction &latch) {
  const llvm::MDNode *loop = latch.getMetadata(llvm::LLVMContext::MD_loop);
  if (!loop)
    return false;
  for (const llvm::MDOperand &op : loop->operands())
    if (auto *node = llvm::dyn_cast_or_null<llvm::MDNode>(op.get()))
      if (node->getNumOperands() > 0)
        if (auto *name = llvm::dyn_cast<llvm::MDString>(node->getOperand(0)))
          if (name->getString() == "llvm.loop.unroll.disable")
            return true;
  return false;
}

bool computes(const llvm::BasicBlock &block) {
  for (const llvm::Instruction &i : block)
    if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&i))
      if (call->getIntrinsicID() == llvm::Intrinsic::fmuladd ||
          call->getIntrinsicID() == llvm::Intrinsic::fma)
        return true;
  return false;
}

TEST(CopyLoops, OnlyTheCopiesLoopsAreKeptFromLLVMsUnroller) {
  // TN with rows of A 7 KB apart: A is packed; K = 1761 leaves a remainder.
  Session session;
  session.loadText("tn.isam", "kernel gemm_tn<M, N, K>(A: f32[K, M], B: f32[K, N]) -> "
                              "(C: f32[M, N]) {\n  C[m, n] += A[k, m] * B[k, n];\n}\n"
                              "instance g = gemm_tn<1760, 1000, 1761>;\n");
  auto kernels = session.instances({});
  ASSERT_EQ(kernels.size(), 1u);
  auto target = session.target("x86_avx512");
  ASSERT_TRUE(target);
  schedule::KernelSchedule ks = session.schedule(kernels[0], *target, {});
  llvm::LLVMContext context;
  auto module = backend::generateModule(context, *target, {{&kernels[0], &ks}});
  int copies = 0;
  for (const llvm::Function &f : *module)
    for (const llvm::BasicBlock &block : f) {
      const llvm::Instruction *latch = block.getTerminator();
      if (!latch || !unrollDisabled(*latch))
        continue;
      ++copies;
      EXPECT_FALSE(computes(block)) << "a loop that runs the instruction is kept from LLVM";
    }
  EXPECT_GT(copies, 0);
}

} // namespace
