// Strided writes (`O[2 * i + r]`): the gather form sema solves them into (ir/StridedWrites.h)
// computes what the scatter as written computes, checked here against loops that scatter; and
// each misuse is E0307. That every executor runs the solved form alike is
// ExecutorAgreementTest's business.
#include "driver/Session.h"
#include "interp/Interpreter.h"
#include "support/Reference.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace isam;

namespace {

struct Interpreted {
  ir::Kernel kernel;
  interp::Buffers buffers; // inputs as drawn, outputs as the interpreter left them
};

Interpreted interpret(const std::string &text) {
  Session s;
  s.loadText("strided.isam", text);
  auto ks = s.instances({});
  EXPECT_FALSE(s.diagnostics().hasErrors()) << test::renderDiagnostics(s);
  if (ks.size() != 1)
    return {};
  Interpreted r{ks[0], interp::randomInputs(ks[0], 11)};
  interp::run(r.kernel, r.buffers);
  return r;
}

// Tensor t of the run, or a failed expectation.
const std::vector<double> &tensor(const Interpreted &r, const std::string &name) {
  static const std::vector<double> none;
  int t = r.kernel.tensorIndex(name);
  EXPECT_GE(t, 0) << name;
  return t < 0 ? none : r.buffers[size_t(t)];
}

void expectNear(const std::vector<double> &want, const std::vector<double> &got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i)
    if (want[i] != got[i]) { // -inf, where a max= reaches no element, equals only itself
      EXPECT_NEAR(want[i], got[i], 1e-4 * (1 + std::abs(want[i]))) << "element " << i;
    }
}

TEST(StridedWrite, ATransposedConvolutionScattersEveryTap) {
  const int C = 3, F = 2, H = 5, W = 4, OH = 2 * H + 2, OW = 2 * W + 3;
  Interpreted r = interpret("kernel k<C, F, H, W>(I: f32[C, H, W], K: f32[C, F, 3, 3]) ->\n"
                            "    (O: f32[F, 2 * H + 2, 2 * W + 3]) {\n"
                            "  O[f, 2 * h + y, 2 * w + x + 1] += I[c, h, w] * K[c, f, y, x];\n"
                            "}\n"
                            "instance t = k<3, 2, 5, 4>;\n");
  const auto &in = tensor(r, "I"), &k = tensor(r, "K");
  std::vector<double> want(size_t(F * OH * OW), 0);
  for (int c = 0; c < C; ++c)
    for (int f = 0; f < F; ++f)
      for (int h = 0; h < H; ++h)
        for (int w = 0; w < W; ++w)
          for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 3; ++x)
              want[size_t((f * OH + 2 * h + y) * OW + 2 * w + x + 1)] +=
                  in[size_t((c * H + h) * W + w)] * k[size_t(((c * F + f) * 3 + y) * 3 + x)];
  expectNear(want, tensor(r, "O"));
}

TEST(StridedWrite, AssignmentsWriteEachElementOnceAndLeaveTheRestZero) {
  const int N = 7;
  Interpreted r = interpret("kernel k<N>(A: f32[N, 3], X: f32[N, 2, 2]) ->\n"
                            "    (O: f32[4 * N + 1], P: f32[2 * N + 3], Q: f32[4 * N + 3]) {\n"
                            "  O[4 * i + r + 1] = A[i, r] * 3;\n"
                            "  P[2 * i] = A[i, 1];\n"
                            "  Q[2 * j + 4 * i + l] = X[i, j, l];\n"
                            "}\n"
                            "instance t = k<7>;\n");
  const auto &a = tensor(r, "A"), &x = tensor(r, "X");
  std::vector<double> o(4 * N + 1, 0), p(2 * N + 3, 0), q(4 * N + 3, 0);
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j < 3; ++j)
      o[size_t(4 * i + j + 1)] = a[size_t(3 * i + j)] * 3;
    p[size_t(2 * i)] = a[size_t(3 * i + 1)];
    for (int j = 0; j < 4; ++j)
      q[size_t(4 * i + j)] = x[size_t(4 * i + j)];
  }
  expectNear(o, tensor(r, "O"));
  expectNear(p, tensor(r, "P"));
  expectNear(q, tensor(r, "Q"));
}

TEST(StridedWrite, OverlappingPointsReduce) {
  const int N = 9, M = 4;
  Interpreted r =
      interpret("kernel k<N, M>(A: f64[N], B: f64[M]) -> (O: f64[N + M - 1], P: f64[N + 2 * "
                "M], S: f64[N + M]) {\n"
                "  O[i + j] += A[i] * B[j];\n"
                "  P[i + 2 * j] max= A[i] - B[j];\n"
                "  S[i + j + 1] += A[i] * B[j] where j < i;\n"
                "}\n"
                "instance t = k<9, 4>;\n");
  const auto &a = tensor(r, "A"), &b = tensor(r, "B");
  std::vector<double> o(N + M - 1, 0), p(N + 2 * M, -std::numeric_limits<double>::infinity()),
      s(N + M, 0);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j) {
      o[size_t(i + j)] += a[size_t(i)] * b[size_t(j)];
      p[size_t(i + 2 * j)] = std::max(p[size_t(i + 2 * j)], a[size_t(i)] - b[size_t(j)]);
      if (j < i)
        s[size_t(i + j + 1)] += a[size_t(i)] * b[size_t(j)];
    }
  expectNear(o, tensor(r, "O"));
  expectNear(p, tensor(r, "P"));
  expectNear(s, tensor(r, "S"));
}

TEST(StridedWrite, TheSolvedFormGuardsOnlyWhatCanFail) {
  Session s;
  s.loadText("strided.isam", "kernel k<N>(I: f32[N], W: f32[3], A: f32[N, 2]) ->\n"
                             "    (O: f32[2 * N + 1], P: f32[2 * N]) {\n"
                             "  O[2 * i + r] += I[i] * W[r];\n"
                             "  P[2 * i + r] = A[i, r];\n"
                             "}\n"
                             "instance t = k<5>;\n");
  auto ks = s.instances({});
  ASSERT_EQ(ks.size(), 1u) << test::renderDiagnostics(s);
  EXPECT_EQ(ir::printStatement(ks[0].statements[0], ks[0].tensors),
            "O[i'] += I[(i' - r) / 2] pad 0 * W[r]    for i' < 11; sum over r < 3; where "
            "(i' - r) % 2 == 0, i' - r >= 0, i' - r < 10");
  // The guards keep exactly the points as written: the FLOP count is the scatter's.
  EXPECT_EQ(ks[0].statements[0].computedPointCount(), 5 * 3);
  // Every element of P is written once: no guard, no pad, and P need not start zeroed.
  EXPECT_EQ(ir::printStatement(ks[0].statements[1], ks[0].tensors),
            "P[i'] = A[i' / 2, i' % 2]    for i' < 10");
  EXPECT_TRUE(ir::writesWhole(ks[0].statements[1], ks[0].tensors[4]));
}

TEST(StridedWrite, EachMisuseIsE0307AtTheDimension) {
  struct Misuse {
    const char *statements;
    const char *dimension; // the text the diagnostic points at
    const char *message;
  };
  const Misuse cases[] = {
      {"O[2 * i + j] = A[i, j];", "2 * i + j",
       "an assignment writes each element once, but i = 0, j = 2 and i = 1, j = 0 both write "
       "element 2"},
      {"O[3 * j + 2 * i] = A[i, j];", "3 * j + 2 * i", "both write element"},
      {"O[N - i] = A[i, 0];", "N - i", "positive coefficients"},
      {"O[i] = A[i, 0]; T[i, 2 * i + j] += A[i, j];", "2 * i + j", "indexes two dimensions"},
      {"L[2 * i] = A[i, 0]; O[i] = L[i];", "2 * i", "declare the local with `local`"},
      {"O[i / 2] = A[i, 0];", "i / 2", "cannot divide an index"},
      {"O[N + 1] = A[0, 0];", "N + 1", "must be indexed by an index variable"},
  };
  for (const Misuse &m : cases) {
    SCOPED_TRACE(m.statements);
    Session s;
    s.loadText("strided.isam", std::string("kernel k<N>(A: f32[N, 3]) -> (O: f32[4 * N], T: "
                                           "f32[N, 4 * N]) {\n  T[i, j] = 0;\n  ") +
                                   m.statements + "\n}\ninstance t = k<5>;\n");
    s.instances({});
    auto d = test::withCode(s, "E0307");
    ASSERT_EQ(d.size(), 1u) << test::renderDiagnostics(s);
    EXPECT_NE(d[0].message.find(m.message), std::string::npos) << d[0].message;
    EXPECT_EQ(test::rangeText(s, d[0]), m.dimension);
  }
}

TEST(StridedWrite, AnInstructionsOperandIsNotWrittenStrided) {
  Session s;
  s.loadText("strided.isam",
             "target t { memory M { size 1 GiB; } registers R : M { count 8; width 32 B; }\n"
             "  instr spread(o: out f32[8] in R, a: f32[4] in R) { o[2 * i] = a[i]; }\n"
             "}\n");
  s.target("t");
  auto d = test::withCode(s, "E0307");
  ASSERT_EQ(d.size(), 1u) << test::renderDiagnostics(s);
  EXPECT_NE(d[0].message.find("an instruction's operands are written by index variables alone"),
            std::string::npos)
      << d[0].message;
}

} // namespace
