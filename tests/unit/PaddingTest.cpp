// Padded reads staged in padded copies (ir/Padding.h): which reads are staged, what the copy
// covers, that pads never needed disappear, and that schedule blocks still pin the statements
// as written. What every executor computes with them is ExecutorAgreementTest's business.
#include "ir/Padding.h"
#include "driver/Session.h"

#include <gtest/gtest.h>

using namespace isam;

namespace {

ir::Kernel instance(const std::string &text, bool staged = true) {
  SessionOptions options;
  options.stagePaddedReads = staged;
  Session s(options);
  s.loadText("pad.isam", text);
  auto ks = s.instances({});
  EXPECT_FALSE(s.diagnostics().hasErrors());
  EXPECT_EQ(ks.size(), 1u);
  return ks.empty() ? ir::Kernel{} : ks[0];
}

const char *kConv = "kernel k<C, H, W, F>(I: f32[C, H, W], K: f32[F, C, 3, 3]) ->\n"
                    "    (O: f32[F, H, W]) {\n"
                    "  O[f, h, w] += I[c, h + r - 1, w + s - 1] pad 0 * K[f, c, r, s];\n"
                    "}\n"
                    "instance x = k<3, 7, 5, 4>;\n";

TEST(Padding, AConvolutionReadsAStagedCopyInBounds) {
  ir::Kernel k = instance(kConv);
  ASSERT_EQ(k.statements.size(), 2u);
  EXPECT_TRUE(k.statements[0].staged);
  EXPECT_FALSE(k.statements[1].staged);
  EXPECT_EQ(ir::printStatement(k.statements[0], k.tensors),
            "I_pad[c, h, w] = I[c, h - 1, w - 1] pad 0    for c < 3, h < 9, w < 7");
  EXPECT_EQ(ir::printStatement(k.statements[1], k.tensors),
            "O[f, h, w] += I_pad[c, h + r, w + s] * K[f, c, r, s]    for f < 4, h < 7, w < 5; "
            "sum over c < 3, r < 3, s < 3");
  ASSERT_EQ(k.tensors.size(), 4u);
  EXPECT_EQ(k.tensors[3].role, ir::TensorRole::Local);
  EXPECT_EQ(k.tensors[3].shape, (std::vector<int64_t>{3, 9, 7}));
  EXPECT_FALSE(ir::usesPaddedRead(k.statements[1].rhs));
  EXPECT_FALSE(ir::startsZeroed(k, 3));
}

TEST(Padding, OffTheKernelIsAsWritten) {
  ir::Kernel k = instance(kConv, false);
  ASSERT_EQ(k.statements.size(), 1u);
  EXPECT_TRUE(ir::usesPaddedRead(k.statements[0].rhs));
}

TEST(Padding, ReadsOfOneTensorAndPadShareOneCopyOverTheirBoundingBox) {
  ir::Kernel k = instance("kernel k<N, T>(X: f32[N], D: f32[T]) -> (Y: f32[N]) {\n"
                          "  Y[i] += (X[i - t] pad 0 + X[i + t + 1] pad 0) * D[t] - X[i] pad 1;\n"
                          "}\n"
                          "instance x = k<40, 4>;\n");
  ASSERT_EQ(k.statements.size(), 2u);
  // X[i - t] and X[i + t + 1] reach -3..43; X[i] pad 1 never leaves X, so it is a plain read.
  EXPECT_EQ(ir::printStatement(k.statements[0], k.tensors),
            "X_pad[i] = X[i - 3] pad 0    for i < 47");
  EXPECT_EQ(ir::printStatement(k.statements[1], k.tensors),
            "Y[i] += (X_pad[i - t + 3] + X_pad[i + t + 4]) * D[t] - X[i]    for i < 40; sum over "
            "t < 4");
}

TEST(Padding, ElementwiseReadsStayPaddedAndInBoundsPadsGo) {
  ir::Kernel k = instance("kernel k<N>(X: f32[N]) -> (Y: f32[N], Z: f32[N]) {\n"
                          "  Y[i] = X[i - 1] pad 0;\n"
                          "  Z[i] = X[N - 1 - i] pad 0;\n"
                          "}\n"
                          "instance x = k<9>;\n");
  ASSERT_EQ(k.statements.size(), 2u);
  EXPECT_EQ(ir::printStatement(k.statements[0], k.tensors), "Y[i] = X[i - 1] pad 0    for i < 9");
  EXPECT_EQ(ir::printStatement(k.statements[1], k.tensors), "Z[i] = X[-i + 8]    for i < 9");
}

TEST(Padding, ScheduleBlocksPinTheStatementAsWritten) {
  Session s;
  s.loadText("pad.isam", std::string(kConv).replace(std::string(kConv).find("}\n"), 2,
                                                    "  schedule { parallel: f; }\n}\n"));
  auto ks = s.instances({});
  ASSERT_EQ(ks.size(), 1u);
  auto target = s.target("x86_avx512");
  ASSERT_TRUE(target);
  schedule::ScheduleOptions options;
  auto sched = s.schedule(ks[0], *target, options);
  EXPECT_FALSE(s.diagnostics().hasErrors());
  ASSERT_EQ(sched.statements.size(), 2u);
  EXPECT_EQ(sched.statements[1].config.statement, 1);
}

} // namespace
