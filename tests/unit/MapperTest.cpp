// The mapper on small, self-contained descriptions: mappings that must exist and mappings that
// must not.
#include "mapping/Mapping.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

using namespace isam;

namespace {

const char *kVector = R"(
target vec {
  cores 1; clock 1 GHz;
  memory MEM { size 1 GiB; }
  memory L1 : MEM { size 32 KiB; line 64 B; }
  registers V : L1 { count 16; width 32 B; }
  move load8(dst: out f32[8] in V, src: f32[8] in L1) { dst[i] = src[i]; }
  move store8(dst: out f32[8] in L1, src: f32[8] in V) { dst[i] = src[i]; }
  move bcast8(dst: out f32[8] in V, src: f32 in L1) { dst[i] = src; }
  instr fma8(acc: inout f32[8] in V, a: f32[8] in V, b: f32 in V) { acc[i] += a[i] * b; }
    cost { latency 4; per_cycle 2; }
  instr max8(dst: out f32[8] in V, a: f32[8] in V, b: f32[8] in V) { dst[i] = max(a[i], b[i]); }
  instr tanh8(dst: out f32[8] in V, a: f32[8] in V) { dst[i] = tanh(a[i]); }
  instr hfma8(acc: inout f16[8] in V, a: f16[8] in V, b: f16 in V) { acc[i] += a[i] * b; }
  instr selle8(dst: out f32[8] in V, a: f32[8] in V, b: f32[8] in V, x: f32[8] in V,
               y: f32[8] in V) { dst[i] = a[i] <= b[i] ? x[i] : y[i]; }
}
target array {
  clock 1 GHz;
  memory DRAM { size 1 GiB; bandwidth 32 B/cycle; }
  memory SPAD : DRAM { size 256 KiB; }
  memory ACC : SPAD { size 64 KiB; }
  move mvin<R>(dst: out f32[R, 4] in SPAD, src: f32[R, 4] in DRAM) { dst[i, j] = src[i, j]; }
  move mvout<R>(dst: out f32[R, 4] in DRAM, src: f32[R, 4] in ACC) { dst[i, j] = src[i, j]; }
  instr mma(acc: inout f32[4, 4] in ACC, a: f32[4, 4] in SPAD, b: f32[4, 4] in SPAD) {
    acc[i, j] += a[i, k] * b[k, j];
  } cost { latency 4; per_cycle 1/4; }
}
)";

struct Mapped {
  std::unique_ptr<Session> session;
  ir::Kernel kernel;
  hw::Target target;
  mapping::StatementMappings result;
  std::string name(int instruction) const {
    return target.instructions.at(size_t(instruction)).name;
  }
  std::string print() const { return mapping::printMappings(result, kernel, target); }
};

Mapped mapOne(const std::string &kernelText, const std::string &target, size_t statement = 0) {
  Mapped m;
  m.session = test::analyse(std::string(kVector) + kernelText);
  EXPECT_FALSE(m.session->diagnostics().hasErrors())
      << renderDiagnostic(m.session->diagnostics().all().front(), m.session->sources());
  auto ks = m.session->instances({});
  EXPECT_EQ(ks.size(), 1u);
  m.kernel = ks.at(0);
  auto t = m.session->target(target);
  EXPECT_TRUE(t.has_value());
  m.target = *t;
  m.result = mapping::mapStatement(m.kernel, statement, m.target);
  return m;
}

const mapping::Candidate *find(const Mapped &m, const std::string &instr, const std::string &index,
                               const std::vector<std::string> &stmt) {
  const ir::Statement &s = m.kernel.statements[m.result.index];
  for (const auto &c : m.result.candidates) {
    if (m.name(c.instruction) != instr)
      continue;
    for (const auto &b : c.bindings) {
      std::vector<std::string> names;
      for (int i : b.stmtIndices)
        names.push_back(s.indices[i].name);
      if (b.instrIndex == index && names == stmt)
        return &c;
    }
  }
  return nullptr;
}

std::string rejection(const Mapped &m, const std::string &instr) {
  for (const auto &r : m.result.rejected)
    if (m.name(r.instruction) == instr)
      return r.reason;
  return "";
}

const char *kGemm = R"(
kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) { C[m, n] += A[m, k] * B[k, n]; }
instance g = gemm<12, 20, 7>;
)";

} // namespace

TEST(Mapper, GemmOntoVectorFmaAlongN) {
  auto m = mapOne(kGemm, "vec");
  const auto *c = find(m, "fma8", "i", {"n"});
  ASSERT_NE(c, nullptr) << m.print();
  EXPECT_EQ(m.name(m.result.candidates.front().instruction), "fma8");
  EXPECT_EQ(c->bindings[0].remainder, mapping::Remainder::Mask); // 20 = 2 x 8 + 4
  EXPECT_EQ(c->instructionCount, 12 * 3 * 7);
  EXPECT_FALSE(c->degenerate);
  EXPECT_FALSE(c->partial);
  for (const auto &o : c->operands)
    EXPECT_FALSE(o.needsPack) << o.operand;
  // Vectorising along m is legal too, but A's columns are strided: a pack is needed.
  const auto *alongM = find(m, "fma8", "i", {"m"});
  ASSERT_NE(alongM, nullptr);
  EXPECT_TRUE(std::any_of(alongM->operands.begin(), alongM->operands.end(),
                          [](auto &o) { return o.needsPack; }));
}

TEST(Mapper, GemmOntoMatrixInstruction) {
  auto m = mapOne(kGemm, "array");
  const auto *c = find(m, "mma", "k", {"k"});
  ASSERT_NE(c, nullptr) << m.print();
  EXPECT_EQ(c->bindings[2].remainder, mapping::Remainder::Pad); // k = 7 in a 4-deep array
  EXPECT_EQ(c->instructionCount, 3 * 5 * 2);
  for (const auto &o : c->operands) {
    if (o.operand == "a") {
      std::vector<std::string> moves;
      for (const auto &mv : o.moves)
        moves.push_back(mapping::moveStepText(mv, m.target));
      EXPECT_NE(std::find(moves.begin(), moves.end(), "mvin (DRAM -> SPAD)"), moves.end());
    }
  }
}

TEST(Mapper, WrongElementTypeDoesNotMap) {
  auto m = mapOne(kGemm, "vec");
  EXPECT_EQ(find(m, "hfma8", "i", {"n"}), nullptr);
  EXPECT_NE(rejection(m, "hfma8").find("f16"), std::string::npos) << rejection(m, "hfma8");
}

TEST(Mapper, WrongReductionDoesNotMap) {
  auto m = mapOne(R"(
kernel rowmax<M, N>(A: f32[M, N]) -> (R: f32[M]) { R[m] max= A[m, n]; }
instance r = rowmax<5, 9>;
)",
                  "array");
  EXPECT_TRUE(m.result.candidates.empty());
  EXPECT_NE(rejection(m, "mma").find("reduces with +="), std::string::npos) << rejection(m, "mma");
}

// `O = X * O` on a summing instruction would zero O first and then read the zero (a difftest
// finding: every native executor computed 0).
TEST(Mapper, AnAssignmentReadingItsTargetIsNotZeroedFirst) {
  auto m = mapOne(R"(
kernel k<N>(X: f32, A: f32[N]) -> (O: f32[N]) {
  O[i] = A[i];
  O[i] = X * O[i];
}
instance k1 = k<16>;
)",
                  "vec", 1);
  for (const auto &c : m.result.candidates)
    EXPECT_FALSE(c.zeroInit) << m.name(c.instruction) << "\n" << m.print();
  EXPECT_NE(rejection(m, "fma8").find("reads the value it overwrites"), std::string::npos)
      << rejection(m, "fma8");
}

// `a <= b` computes `L >= X` with a = X and b = L (exact, NaN included); `<` is another
// comparison, and the values keep their places.
TEST(Mapper, AComparisonMapsOntoItsMirror) {
  auto m = mapOne(R"(
kernel c<N>(X: f32[N], L: f32[N], A: f32[N], B: f32[N]) -> (Y: f32[N]) {
  Y[i] = L[i] >= X[i] ? A[i] : B[i];
}
instance c1 = c<16>;
)",
                  "vec");
  const mapping::Candidate *c = find(m, "selle8", "i", {"i"});
  ASSERT_NE(c, nullptr) << m.print();
  EXPECT_FALSE(c->partial) << m.print();
  auto tensorOf = [&](size_t operand) {
    return m.kernel.tensors[size_t(c->operands.at(operand).tensor)].name;
  };
  EXPECT_EQ(tensorOf(1), "X"); // a
  EXPECT_EQ(tensorOf(2), "L"); // b
  EXPECT_EQ(tensorOf(3), "A"); // x
  EXPECT_EQ(tensorOf(4), "B"); // y

  auto strict = mapOne(R"(
kernel c<N>(X: f32[N], L: f32[N], A: f32[N], B: f32[N]) -> (Y: f32[N]) {
  Y[i] = L[i] > X[i] ? A[i] : B[i];
}
instance c1 = c<16>;
)",
                       "vec");
  EXPECT_EQ(find(strict, "selle8", "i", {"i"}), nullptr) << strict.print();
  EXPECT_NE(rejection(strict, "selle8").find("no part of"), std::string::npos)
      << rejection(strict, "selle8");
}

TEST(Mapper, ElementwiseHasNoReductionForMma) {
  auto m = mapOne(R"(
kernel t<C, H>(X: f32[C, H]) -> (T: f32[C, H]) { T[c, h] = tanh(X[c, h]); }
instance t1 = t<4, 4>;
)",
                  "array");
  EXPECT_NE(rejection(m, "mma").find("needs a reduction index"), std::string::npos);
  EXPECT_NE(rejection(m, "mma").find("has none"), std::string::npos);
  auto v = mapOne(R"(
kernel t<C, H>(X: f32[C, H]) -> (T: f32[C, H]) { T[c, h] = tanh(X[c, h]); }
instance t1 = t<4, 4>;
)",
                  "vec");
  EXPECT_NE(find(v, "tanh8", "i", {"h"}), nullptr);
}

TEST(Mapper, PointwiseConvolutionFusesSpatialIndices) {
  auto m = mapOne(R"(
kernel pw<C, F, H, W>(P: f32[F, C], T: f32[C, H, W]) -> (O: f32[F, H, W]) {
  O[f, h, w] += P[f, c] * T[c, h, w];
}
instance p = pw<8, 8, 3, 5>;
)",
                  "array");
  const auto *c = find(m, "mma", "j", {"h", "w"});
  ASSERT_NE(c, nullptr) << m.print();
  EXPECT_EQ(c->bindings[1].stmtExtent, 15);
}

TEST(Mapper, NonContiguousFusionIsRejected) {
  // h and w are adjacent in O but not in T (c sits between them): no fused binding.
  auto m = mapOne(R"(
kernel pw<C, F, H, W>(P: f32[F, C], T: f32[H, C, W]) -> (O: f32[F, H, W]) {
  O[f, h, w] += P[f, c] * T[h, c, w];
}
instance p = pw<8, 8, 3, 5>;
)",
                  "array");
  EXPECT_EQ(find(m, "mma", "j", {"h", "w"}), nullptr);
  EXPECT_NE(find(m, "mma", "j", {"w"}), nullptr);
  // Shifted inner dimension: rows are not contiguous either.
  auto s = mapOne(R"(
kernel pw<C, F, H, W>(P: f32[F, C], T: f32[C, H, W + 1]) -> (O: f32[F, H, W]) {
  O[f, h, w] += P[f, c] * T[c, h, w + 1];
}
instance p = pw<8, 8, 3, 5>;
)",
                  "array");
  EXPECT_EQ(find(s, "mma", "j", {"h", "w"}), nullptr);
}

TEST(Mapper, DepthwiseIsDegenerateOnMma) {
  auto m = mapOne(R"(
kernel dw<C, H, W>(I: f32[C, H + 2, W + 2], D: f32[C, 3, 3]) -> (T: f32[C, H, W]) {
  T[c, h, w] += I[c, h + r, w + s] * D[c, r, s];
}
instance d = dw<8, 4, 4>;
)",
                  "array");
  bool anyGood = false;
  for (const auto &c : m.result.candidates)
    if (m.name(c.instruction) == "mma")
      anyGood = anyGood || !c.degenerate;
  EXPECT_FALSE(anyGood) << m.print();
  for (const auto &c : m.result.candidates)
    if (m.name(c.instruction) == "mma") {
      EXPECT_LE(c.utilization, 0.25 + 1e-9);
      // The instruction index left on a unit extent is named with the reason.
      EXPECT_NE(c.partialNote.find("degenerate: index "), std::string::npos) << c.partialNote;
      EXPECT_NE(c.partialNote.find("no index of the statement does"), std::string::npos);
    }
}

TEST(Mapper, PartialMatchLeavesTheRestAsSeparateWork) {
  auto m = mapOne(R"(
kernel k<N>(A: f32[N], B: f32[N]) -> (O: f32[N]) { O[i] = tanh(max(A[i], B[i])); }
instance k1 = k<16>;
)",
                  "vec");
  const auto *c = find(m, "max8", "i", {"i"});
  ASSERT_NE(c, nullptr) << m.print();
  EXPECT_TRUE(c->partial);
  EXPECT_NE(c->partialNote.find("separate work"), std::string::npos);
  const auto *t = find(m, "tanh8", "i", {"i"});
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->partial); // its operand max(A, B) is computed separately
}

TEST(Mapper, BudgetBoundsPathologicalStatements) {
  std::string idx = "a, b, c, d, e, f, g, h, i, j, k, l";
  auto m = mapOne("kernel big(X: f32[2,2,2,2,2,2,2,2,2,2,2,2], Y: f32[2,2,2,2,2,2,2,2,2,2,2,2]) -> "
                  "(Z: f32[2,2,2,2,2,2,2,2,2,2,2,2]) { Z[" +
                      idx + "] += X[" + idx + "] * Y[" + idx + "]; }\ninstance big1 = big;\n",
                  "vec");
  // Finishes, with some result, whatever the count of candidates.
  EXPECT_FALSE(m.result.candidates.empty() && m.result.rejected.empty());
}
