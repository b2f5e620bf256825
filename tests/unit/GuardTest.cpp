// Guarded statements (`where j <= i`) in the compute IR: what they count, which tensors they
// leave zeroed, that no instruction runs them, and that a padded read under a guard is not
// staged. What every executor computes with them is ExecutorAgreementTest's business.
#include "driver/Session.h"
#include "ir/Compute.h"

#include <gtest/gtest.h>

using namespace isam;

namespace {

ir::Kernel instance(const std::string &text) {
  Session s;
  s.loadText("guard.isam", text);
  auto ks = s.instances({});
  EXPECT_FALSE(s.diagnostics().hasErrors());
  EXPECT_EQ(ks.size(), 1u);
  return ks.empty() ? ir::Kernel{} : ks[0];
}

TEST(Guard, PointsAndFlopsCountOnlyWhatTheGuardsLetThrough) {
  ir::Kernel k = instance("kernel k<N, D>(X: f32[N, D]) -> (Y: f32[N, D], Z: f32[N, N]) {\n"
                          "  Y[l, d] += X[m, d] where m <= l;\n"
                          "  Z[i, j] = X[i, 0] * X[j, 0] where (i + j) % 2 == 0, j < i + 100;\n"
                          "}\n"
                          "instance x = k<9, 5>;\n");
  ASSERT_EQ(k.statements.size(), 2u);
  EXPECT_EQ(k.statements[0].pointCount(), 9 * 5 * 9);
  EXPECT_EQ(k.statements[0].computedPointCount(), 45 * 5); // the triangle, times d
  EXPECT_EQ(k.statements[1].computedPointCount(), 41);     // 41 of 81 have an even sum
  EXPECT_DOUBLE_EQ(k.flopCount(), 45 * 5 * 1 + 41 * 1);
}

TEST(Guard, AGuardedAssignmentLeavesItsTensorZeroedAReductionDoesNot) {
  ir::Kernel k = instance("kernel k<N>(A: f32[N, N]) -> (L: f32[N, N], S: f32[N]) {\n"
                          "  L[i, j] = A[i, j] where j <= i;\n"
                          "  S[i] += A[i, j] where j < i;\n"
                          "}\n"
                          "instance x = k<4>;\n");
  ASSERT_EQ(k.statements.size(), 2u);
  EXPECT_FALSE(ir::writesWhole(k.statements[0], k.tensors[1]));
  EXPECT_TRUE(ir::startsZeroed(k, 1));
  // S[0] sums no point, and still starts from the identity like every other element.
  EXPECT_TRUE(ir::writesWhole(k.statements[1], k.tensors[2]));
  EXPECT_FALSE(ir::startsZeroed(k, 2));
}

TEST(Guard, NoInstructionRunsAGuardedStatementAndEachSaysWhy) {
  Session s;
  s.loadText("guard.isam", "kernel k<N>(A: f32[N, N], B: f32[N, N]) -> (C: f32[N, N]) {\n"
                           "  C[i, j] += A[i, k] * B[k, j] where k <= i;\n"
                           "}\n"
                           "instance x = k<64>;\n");
  auto ks = s.instances({});
  ASSERT_EQ(ks.size(), 1u);
  auto target = s.target("x86_avx512");
  ASSERT_TRUE(target);
  auto maps = s.mappings(ks[0], *target);
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_TRUE(maps[0].candidates.empty());
  ASSERT_EQ(maps[0].rejected.size(), target->instructions.size());
  for (const auto &r : maps[0].rejected)
    EXPECT_NE(r.reason.find("the statement is guarded (`where k <= i`)"), std::string::npos)
        << r.reason;
}

TEST(Guard, APaddedReadUnderAGuardIsNotStaged) {
  ir::Kernel k = instance("kernel k<N>(X: f32[N]) -> (Y: f32[N]) {\n"
                          "  Y[i] += X[i - j] pad 0 where j in 0..N, j <= i;\n"
                          "}\n"
                          "instance x = k<17>;\n");
  ASSERT_EQ(k.statements.size(), 1u);
  EXPECT_EQ(ir::printStatement(k.statements[0], k.tensors),
            "Y[i] += X[i - j] pad 0    for i < 17; sum over j < 17; where j <= i");
}

} // namespace
