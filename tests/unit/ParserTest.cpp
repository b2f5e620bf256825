#include "support/TestSupport.h"

#include <gtest/gtest.h>

using namespace isam;

TEST(Parser, ParsesGemmKernel) {
  auto s = test::analyse(R"(
kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
}
instance g = gemm<4, 5, 6>;
)");
  EXPECT_FALSE(s->diagnostics().hasErrors());
  ASSERT_EQ(s->mainFile()->kernels.size(), 1u);
  auto ks = s->instances({});
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ir::printStatement(ks[0].statements[0], ks[0].tensors),
            "C[m, n] += A[m, k] * B[k, n]    for m < 4, n < 5; sum over k < 6");
}
