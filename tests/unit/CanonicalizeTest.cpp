// The compute IR's canonical forms (ir/Canonicalize.h): a floating-point division by a constant
// becomes a multiplication by the reciprocal exactly when that changes no result, and under
// reciprocal math also when it does; integer division never. The reference interpreter gives
// the same bits for the division and its rewrite.
#include "ir/Canonicalize.h"
#include "driver/Session.h"
#include "interp/Interpreter.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace isam;

namespace {

const ir::CanonicalOptions kExact{}, kReciprocal{.reciprocalMath = true};

TEST(Canonicalize, ExactReciprocalsOfPowersOfTwo) {
  EXPECT_EQ(ir::divisorReciprocal(64, ir::ElemType::F32, kExact), 0.015625);
  EXPECT_EQ(ir::divisorReciprocal(-0.25, ir::ElemType::F32, kExact), -4);
  EXPECT_EQ(ir::divisorReciprocal(2, ir::ElemType::BF16, kExact), 0.5);
  EXPECT_EQ(ir::divisorReciprocal(std::ldexp(1.0, 126), ir::ElemType::F32, kExact),
            std::ldexp(1.0, -126));
  EXPECT_EQ(ir::divisorReciprocal(std::ldexp(1.0, 14), ir::ElemType::F16, kExact),
            std::ldexp(1.0, -14));
  EXPECT_EQ(ir::divisorReciprocal(std::ldexp(1.0, 1000), ir::ElemType::F64, kExact),
            std::ldexp(1.0, -1000));
}

TEST(Canonicalize, NoRewriteWhereTheReciprocalIsNotANormalNumberOfTheType) {
  // Subnormal reciprocals: x * 2^-15 in f16 would flush where x / 2^15 does not, on some units.
  EXPECT_FALSE(ir::divisorReciprocal(std::ldexp(1.0, 15), ir::ElemType::F16, kExact));
  EXPECT_FALSE(ir::divisorReciprocal(std::ldexp(1.0, 127), ir::ElemType::F32, kExact));
  // Overflowing ones.
  EXPECT_FALSE(ir::divisorReciprocal(std::ldexp(1.0, -16), ir::ElemType::F16, kExact));
  EXPECT_FALSE(ir::divisorReciprocal(std::ldexp(1.0, -128), ir::ElemType::F32, kExact));
  EXPECT_FALSE(ir::divisorReciprocal(0, ir::ElemType::F32, kReciprocal));
  EXPECT_FALSE(ir::divisorReciprocal(INFINITY, ir::ElemType::F32, kReciprocal));
  EXPECT_FALSE(ir::divisorReciprocal(NAN, ir::ElemType::F32, kReciprocal));
}

TEST(Canonicalize, InexactReciprocalsOnlyUnderReciprocalMathRoundedToTheType) {
  EXPECT_FALSE(ir::divisorReciprocal(3, ir::ElemType::F32, kExact));
  EXPECT_FALSE(ir::divisorReciprocal(10, ir::ElemType::F64, kExact));
  EXPECT_EQ(ir::divisorReciprocal(3, ir::ElemType::F32, kReciprocal), double(1.0f / 3.0f));
  EXPECT_EQ(ir::divisorReciprocal(10, ir::ElemType::F64, kReciprocal), 1.0 / 10.0);
  // 1/3 in f16 is 0x3555 = 0.333251953125.
  EXPECT_EQ(ir::divisorReciprocal(3, ir::ElemType::F16, kReciprocal), 0.333251953125);
  EXPECT_FALSE(ir::divisorReciprocal(1e6, ir::ElemType::F16, kReciprocal)); // 1e-6: subnormal
}

TEST(Canonicalize, IntegerDivisionIsNeverChanged) {
  EXPECT_FALSE(ir::divisorReciprocal(4, ir::ElemType::I32, kReciprocal));
  EXPECT_FALSE(ir::divisorReciprocal(4, ir::ElemType::I8, kReciprocal));
}

std::vector<ir::Kernel> instances(const std::string &text, bool reciprocalMath) {
  SessionOptions options;
  options.reciprocalMath = reciprocalMath;
  Session s(options);
  s.loadText("div.isam", text);
  auto out = s.instances({});
  EXPECT_FALSE(s.diagnostics().hasErrors());
  return out;
}

const char *kDivisions =
    "kernel d<N>(X: f32[N], I: i32[N]) -> (A: f32[N], B: f32[N], C: i32[N]) {\n"
    "  A[i] = (X[i] + 1) / 64;\n"
    "  B[i] = X[i] / 3;\n"
    "  C[i] = I[i] / 4;\n"
    "}\n"
    "instance d7 = d<7>;\n";

TEST(Canonicalize, SemaLowersAnExactDivisionAsAMultiplication) {
  auto ks = instances(kDivisions, false);
  ASSERT_EQ(ks.size(), 1u);
  const ir::Kernel &k = ks[0];
  EXPECT_EQ(k.statements[0].rhs.kind, ir::Expr::Kind::Mul);
  EXPECT_EQ(k.statements[0].rhs.args[1].value, 0.015625);
  EXPECT_EQ(k.statements[1].rhs.kind, ir::Expr::Kind::Div);
  EXPECT_EQ(k.statements[2].rhs.kind, ir::Expr::Kind::Div);
  // The statement keeps its text as written, for messages.
  EXPECT_EQ(k.statements[0].text.find('*'), std::string::npos);
}

TEST(Canonicalize, ReciprocalMathIsTheSessionsChoice) {
  auto ks = instances(kDivisions, true);
  ASSERT_EQ(ks.size(), 1u);
  const ir::Kernel &k = ks[0];
  EXPECT_EQ(k.statements[1].rhs.kind, ir::Expr::Kind::Mul);
  EXPECT_EQ(k.statements[1].rhs.args[1].value, double(1.0f / 3.0f));
  EXPECT_EQ(k.statements[2].rhs.kind, ir::Expr::Kind::Div);
}

TEST(Canonicalize, TheRewriteGivesTheDivisionsBits) {
  // The interpreter on the division as written (built by hand, not canonicalised) and on the
  // canonical form: every element identical, extreme magnitudes included.
  auto ks = instances("kernel h<N>(X: f32[N]) -> (Y: f32[N]) { Y[i] = X[i] / 64; }\n"
                      "instance h5 = h<5>;\n",
                      false);
  ASSERT_EQ(ks.size(), 1u);
  ir::Kernel canonical = ks[0], divided = ks[0];
  ASSERT_EQ(canonical.statements[0].rhs.kind, ir::Expr::Kind::Mul);
  divided.statements[0].rhs.kind = ir::Expr::Kind::Div;
  divided.statements[0].rhs.args[1].value = 64;
  interp::Buffers a = interp::randomInputs(canonical, 3);
  a[0] = {1.0, -3.4e38, 1.2e-38, 7.0e-45, 3.0e38};
  interp::Buffers b = a;
  interp::run(canonical, a);
  interp::run(divided, b);
  EXPECT_EQ(a[1], b[1]);
}

} // namespace
