// The row interpreter (interp/RowInterpreter.h) computes exactly what the point interpreter
// computes, bit for bit: on every instance of every sample small enough for the point
// interpreter, on one and two threads, and on kernels that reach each of its paths (lanes over
// a written or a reduction index, guards, padded, gathered and quasi-affine reads, index
// values, integer wrapping, reads of the written element, and the point-by-point fallback).
#include "interp/RowInterpreter.h"
#include "driver/Session.h"
#include "interp/Interpreter.h"
#include "support/Reference.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

using namespace isam;
namespace fs = std::filesystem;

namespace {

// Bitwise equality (NaN equals the same NaN), naming the first element that differs.
void expectIdentical(const ir::Kernel &k, const interp::Buffers &want, const interp::Buffers &got,
                     const std::string &what) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t t = 0; t < want.size(); ++t) {
    ASSERT_EQ(want[t].size(), got[t].size());
    for (size_t i = 0; i < want[t].size(); ++i)
      if (std::memcmp(&want[t][i], &got[t][i], sizeof(double)) != 0) {
        ADD_FAILURE() << what << ": " << k.tensors[t].name << "[" << i << "] is " << got[t][i]
                      << ", the point interpreter gives " << want[t][i];
        return;
      }
  }
}

void expectRowsAgree(const ir::Kernel &k, uint64_t seed = 3) {
  interp::Buffers inputs = interp::randomInputs(k, seed);
  // Outputs start as garbage: whatever the caller's buffer held must not leak into results.
  for (size_t t = 0; t < k.tensors.size(); ++t)
    if (k.tensors[t].role != ir::TensorRole::Input)
      std::fill(inputs[t].begin(), inputs[t].end(), 7.25);
  interp::Buffers want = inputs;
  interp::run(k, want);
  for (unsigned threads : {1u, 2u}) {
    interp::Buffers got = inputs;
    double last = 0;
    interp::runRows(k, got, threads, [&](double f) {
      EXPECT_GE(f, last);
      last = f;
    });
    EXPECT_EQ(last, 1.0) << "the last progress report says everything is done";
    expectIdentical(k, want, got, k.name + " on " + std::to_string(threads) + " threads");
  }
}

std::vector<ir::Kernel> load(const std::string &text) {
  Session s;
  s.loadText("rows.isam", text);
  auto ks = s.instances({});
  EXPECT_FALSE(s.diagnostics().hasErrors()) << test::renderDiagnostics(s);
  return ks;
}

void expectRowsAgree(const std::string &text) {
  auto ks = load(text);
  ASSERT_FALSE(ks.empty());
  for (const auto &k : ks)
    expectRowsAgree(k);
}

TEST(RowInterpreter, AgreesOnEverySampleInstance) {
  size_t checked = 0;
  for (const auto &e : fs::directory_iterator(test::sourceDir() + "/samples")) {
    if (e.path().extension() != ".isam")
      continue;
    Session s;
    ASSERT_TRUE(s.loadFile(e.path().string()));
    for (const auto &k : s.instances({})) {
      double points = 0;
      for (const auto &st : k.statements)
        points += double(st.pointCount());
      if (points > 3e6) // the point interpreter takes about a second per 10^7 points
        continue;
      SCOPED_TRACE(e.path().filename().string() + ": " + k.name);
      expectRowsAgree(k);
      ++checked;
    }
  }
  EXPECT_GE(checked, 60u);
}

TEST(RowInterpreter, LanesOverAWrittenIndexAndARowLongerThanOne) {
  // n is 1100 lanes: a full row and a partial one; m is too short to be the lane index.
  expectRowsAgree("kernel g<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                  "  C[m, n] += A[m, k] * B[k, n];\n"
                  "}\n"
                  "instance t = g<3, 1100, 7>;\n"
                  "instance tall = g<1500, 2, 5>;\n");
}

TEST(RowInterpreter, GroupsOfRowsShareTheReductionLoop) {
  // Rows run in groups of 16 along m that share the k loop (37 = 16 + 16 + 5, also behind a
  // batch index, and in front of one), each product added as it is computed (uniform * row, row -
  // uniform, both rounded to f16 or bf16), and a guard that turns the fused addition off for some
  // rows.
  expectRowsAgree("kernel g<Bt, M, N, K>(A: f16[Bt, M, K], B: f16[Bt, K, N]) -> "
                  "(C: f16[Bt, M, N], D: bf16[Bt, M, N], E: f32[Bt, M, N], F: f64[M, N],\n"
                  "    L: f32[M, Bt, N]) {\n"
                  "  C[b, m, n] += A[b, m, k] * B[b, k, n];\n"
                  "  D[b, m, n] += bf16((B[b, k, n] - A[b, m, k]) / 3.0);\n"
                  "  E[b, m, n] += f32(A[b, m, k] * B[b, k, n]) where k <= m;\n"
                  "  F[m, n] += f64(A[0, m, k]) * 0.5 + f64(B[0, k, n]);\n"
                  // Grouped along m, not along the innermost written index b.
                  "  L[m, b, n] += f32(A[b, m, k]) * f32(B[b, k, n]);\n"
                  "}\n"
                  "instance t = g<2, 37, 1100, 9>;\n"
                  "instance one_row = g<1, 1, 1030, 3>;\n");
}

TEST(RowInterpreter, LanesOverTheInnermostReductionIndex) {
  // Written indices too short for a row: the reduction runs lane after lane, in order.
  expectRowsAgree("kernel gemv<M, K>(A: f32[M, K], x: f32[K]) -> (y: f32[M], s: f32[1]) {\n"
                  "  y[m] += A[m, k] * x[k];\n"
                  "  s[o] max= y[m] * 0.5;\n"
                  "}\n"
                  "instance t = gemv<3, 2500>;\n");
}

TEST(RowInterpreter, GuardsPadsGathersAndQuasiAffineReads) {
  expectRowsAgree(
      "kernel k<N, V>(X: f32[N], Ids: i32[N], E: f32[V, N]) -> (L: f32[N, N], P: f32[N],\n"
      "    G: f32[N], Q: f32[N]) {\n"
      "  L[i, j] = X[i] * X[j] where j <= i;\n"
      "  P[i] = X[i - 2] pad 0 + X[i + 3] pad -1;\n"
      "  G[i] = E[Ids[i], i] pad 0;\n"
      "  Q[i] = X[i / 2] + X[(i + 3) % N];\n"
      "}\n"
      "instance t = k<1037, 9>;\n");
}

TEST(RowInterpreter, IndexValuesIntegersAndFunctions) {
  expectRowsAgree("kernel k<N>(A: i8[N], B: i32[N], X: f16[N]) -> (S: i8[N], T: i32[N],\n"
                  "    U: f16[N], W: bf16[N], Z: i32[1]) {\n"
                  "  S[i] = A[i] * A[i] * A[i] + i;\n"
                  "  T[i] = B[i] / (i32(A[i]) - 3) - B[i];\n"
                  "  U[i] = exp(X[i]) + (i < 5 ? sqrt(X[i]) : tanh(X[i]));\n"
                  "  W[i] max= bf16(X[i] * 3.0);\n"
                  "  Z[o] += i32(A[i]) * 37;\n"
                  "}\n"
                  "instance t = k<2049>;\n");
}

TEST(RowInterpreter, ReadsOfTheWrittenTensor) {
  // Y[i] reads the element it writes: rows run as written.
  auto ks = load("kernel k<N>(X: f32[N]) -> (Y: f32[N]) {\n"
                 "  Y[i] = X[i] * 2.0;\n"
                 "  Y[i] = Y[i] * Y[i] + 1.0;\n"
                 "}\n"
                 "instance t = k<3000>;\n");
  ASSERT_EQ(ks.size(), 1u);
  expectRowsAgree(ks[0]);
  // Sema rejects a read of a neighbour (E0311), where the order of points shows; an IR built
  // another way with one runs point by point, in the point interpreter's order.
  ir::Kernel neighbour = ks[0];
  ir::forEachRead(neighbour.statements[1].rhs, [](ir::Access &a) {
    a.indices[0].constant = -1;
    a.pad = 0.0;
  });
  expectRowsAgree(neighbour);
}

} // namespace
