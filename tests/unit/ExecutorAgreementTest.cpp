// Every executor computes what `check` accepts, and the same thing: the reference interpreter,
// the schedule-IR interpreter, the JIT (host and the x86 descriptions this CPU runs) and the
// accelerator simulator (systolic16), on kernels that once gave different answers on different
// executors (issue 15): a tensor read at two offsets, partly written outputs and locals, integer
// overflow, division by zero and conversions, a diagonal read under fused lanes, and implicit
// locals. Output buffers start poisoned (NaN, or an integer no kernel here computes) so that an
// element an executor leaves unwritten shows up.
#include "backends/accel/Simulator.h"
#include "backends/llvm/Jit.h"
#include "backends/llvm/NativeBuffers.h"
#include "interp/Interpreter.h"
#include "schedule/Execute.h"
#include "support/Reference.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace isam;

namespace {

struct Case {
  std::string name;
  std::string text; // one instance, named like the case
};

void PrintTo(const Case &c, std::ostream *os) {
  *os << c.name;
}

std::vector<Case> cases() {
  return {
      // The same tensor read at two offsets: each operand keeps its own access.
      {"two_offsets", "kernel k<N>(A: f32[N]) -> (O: f32[N - 1]) {\n"
                      "  O[l] = A[l] * A[l + 1] where l in 0..N - 1;\n"
                      "}\n"
                      "instance two_offsets = k<4>;\n"},
      {"two_offsets_long", "kernel k<N>(A: f32[N]) -> (O: f32[N - 1]) {\n"
                           "  O[l] = A[l] * A[l + 1] where l in 0..N - 1;\n"
                           "}\n"
                           "instance two_offsets_long = k<67>;\n"},
      {"two_offsets_2d",
       "kernel k<N, M>(A: f32[N, M]) -> (O: f32[N - 1, M - 2]) {\n"
       "  O[i, j] = A[i, j + 2] * A[i + 1, j] where i in 0..N - 1, j in 0..M - 2;\n"
       "}\n"
       "instance two_offsets_2d = k<9, 37>;\n"},
      // Outputs and locals partly written: the rest is 0 everywhere.
      {"partial_output", "kernel k<N>(A: f32[N]) -> (O: f32[N]) { O[i] = A[i] where i in 0..3; }\n"
                         "instance partial_output = k<5>;\n"},
      {"partial_output_long",
       "kernel k<N>(A: f32[N]) -> (O: f32[N]) { O[i] = A[i] * 3 where i in 2..N - 5; }\n"
       "instance partial_output_long = k<71>;\n"},
      {"partial_then_sum", "kernel k<N, K>(A: f32[N], B: f32[N, K]) -> (O: f32[N]) {\n"
                           "  O[i] = A[i] where i in 0..3;\n"
                           "  O[i] += B[i, k];\n"
                           "}\n"
                           "instance partial_then_sum = k<19, 5>;\n"},
      {"partial_local_summed", "kernel k<N>(A: f32[N]) -> (S: f32) {\n"
                               "  T[n] = A[n] * 2 where n in 2..N;\n"
                               "  S += T[n];\n"
                               "}\n"
                               "instance partial_local_summed = k<41>;\n"},
      {"partial_explicit_local", "kernel k<N>(A: f32[N]) -> (O: f32[N]) {\n"
                                 "  local T: f32[N];\n"
                                 "  T[n] = A[n] where n in 1..N - 1;\n"
                                 "  O[n] = T[n] + 1;\n"
                                 "}\n"
                                 "instance partial_explicit_local = k<33>;\n"},
      // Integer arithmetic wraps, in every order of summation.
      {"i8_sum_wraps", "kernel q<M, N, K>(A: i8[M, K], B: i8[K, N]) -> (C: i8[M, N]) {\n"
                       "  C[m, n] += A[m, k] * B[k, n];\n"
                       "}\n"
                       "instance i8_sum_wraps = q<3, 17, 1025>;\n"},
      {"i8_product_wraps", "kernel s<N>(A: i8[N], B: i8[N]) -> (O: i8[N]) {\n"
                           "  O[i] = A[i] * B[i] * 3 - 100;\n"
                           "}\n"
                           "instance i8_product_wraps = s<37>;\n"},
      {"i32_product_wraps", "kernel q<M, N, K>(A: i32[M, K], B: i32[K, N]) -> (C: i32[M, N]) {\n"
                            "  C[m, n] += A[m, k] * B[k, n] * 123456789;\n"
                            "}\n"
                            "instance i32_product_wraps = q<5, 19, 67>;\n"},
      {"int_division", "kernel d<N>(A: i32[N], B: i32[N], X: i8[N]) -> (O: i32[N], P: i8[N]) {\n"
                       "  O[i] = A[i] / B[i] + abs(A[i]);\n"
                       "  P[i] = X[i] / (X[i] - X[i]) + max(X[i], 3) * min(X[i], -2);\n"
                       "}\n"
                       "instance int_division = d<53>;\n"},
      {"int_conversions", "kernel c<N>(X: f32[N], A: i32[N]) -> (O: i8[N], P: i8[N]) {\n"
                          "  O[i] = i8(X[i] * 300.0);\n"
                          "  P[i] = i8(A[i] * 40) + relu(i8(A[i]));\n"
                          "}\n"
                          "instance int_conversions = c<29>;\n"},
      {"int_max_reduction", "kernel m<N, K>(A: i8[N, K]) -> (O: i8[N], P: i32[N]) {\n"
                            "  O[i] max= A[i, k] * A[i, k];\n"
                            "  P[i] min= i32(A[i, k]) * 1000000;\n"
                            "}\n"
                            "instance int_max_reduction = m<7, 23>;\n"},
      // A diagonal read: its two dimensions share an index, so no fused lanes walk it.
      {"diagonal", "kernel d(A: f32[3, 7, 7], B: f32[2]) -> (O: f32[3, 7]) {\n"
                   "  O[s, k] += A[s, k, k] * B[l];\n"
                   "}\n"
                   "instance diagonal = d;\n"},
      // Implicit locals take the type of what they are computed from, and scalars read back.
      {"implicit_f64_chain", "kernel k<N>(A: f64[N]) -> (O: f64[N]) {\n"
                             "  T[i] = A[i] * 3;\n"
                             "  U[i] = T[i];\n"
                             "  O[i] = U[i] + 0.1;\n"
                             "}\n"
                             "instance implicit_f64_chain = k<29>;\n"},
      {"implicit_scalar", "kernel k<N>(A: f32[N]) -> (O: f32[N]) {\n"
                          "  S += A[i] * A[i];\n"
                          "  O[i] = A[i] / (S + 1);\n"
                          "}\n"
                          "instance implicit_scalar = k<47>;\n"},
      // Reading the written tensor at the same point is fine.
      {"same_point_update", "kernel k<N>(A: f32[N]) -> (O: f32[N]) {\n"
                            "  O[i] = A[i];\n"
                            "  O[i] = O[i] * O[i] + A[i];\n"
                            "}\n"
                            "instance same_point_update = k<37>;\n"},
  };
}

// The constructs of issue 20: product reductions (from 1, onto earlier values, wrapping in
// integers, over a reduction long enough to run in vector lanes), selections, index values and
// padded reads.
std::vector<Case> constructCases() {
  return {
      {"product", "kernel k<N, K>(A: f32[N, K]) -> (P: f32[N]) { P[n] *= A[n, k] + 1; }\n"
                  "instance product = k<37, 13>;\n"},
      {"product_long_reduction",
       "kernel k<N, K>(A: f32[N, K]) -> (P: f32[N]) { P[n] *= A[n, k] * 0.1 + 1; }\n"
       "instance product_long_reduction = k<5, 301>;\n"},
      {"product_over_rows", "kernel k<N, K>(A: f64[K, N]) -> (P: f64[N]) { P[n] *= A[k, n]; }\n"
                            "instance product_over_rows = k<67, 9>;\n"},
      {"product_onto_values", "kernel k<N, K>(A: f32[N, K], B: f32[N]) -> (P: f32[N]) {\n"
                              "  P[n] = B[n] * 3;\n"
                              "  P[n] *= A[n, k];\n"
                              "}\n"
                              "instance product_onto_values = k<19, 4>;\n"},
      {"product_i8_wraps", "kernel k<N, K>(A: i8[N, K]) -> (P: i8[N], Q: i32[N]) {\n"
                           "  P[n] *= A[n, k];\n"
                           "  Q[n] *= i32(A[n, k]) + 3;\n"
                           "}\n"
                           "instance product_i8_wraps = k<21, 7>;\n"},
      {"product_f16", "kernel k<N, K>(A: f16[N, K]) -> (P: f16[N]) { P[n] *= A[n, k] + 1; }\n"
                      "instance product_f16 = k<9, 5>;\n"},
      // Selections: leaky ReLU, masks, conditions combined, selections inside reductions and
      // functions, integer and f16 comparisons, on sizes with a vector remainder.
      {"select_leaky_relu",
       "kernel k<N>(X: f32[N]) -> (Y: f32[N]) { Y[i] = X[i] > 0 ? X[i] : 0.01 * X[i]; }\n"
       "instance select_leaky_relu = k<67>;\n"},
      {"select_combined_conditions",
       "kernel k<N>(X: i32[N], L: i32[N]) -> (Y: i32[N]) {\n"
       "  Y[i] = X[i] < -3 || X[i] >= L[i] ? 0 : !(X[i] == 2) && X[i] != 7 ? X[i] * 2 : -1;\n"
       "}\n"
       "instance select_combined_conditions = k<37>;\n"},
      {"select_in_reduction",
       "kernel k<N, M>(S: f32[N, M], K: f32[N, M]) -> (Y: f32[N, M], Z: f32[N], W: f32[N]) {\n"
       "  Y[i, j] = K[i, j] >= 0.25 ? S[i, j] : -1e30;\n"
       "  Z[i] max= K[i, j] < S[i, j] ? S[i, j] : K[i, j];\n"
       "  W[i] += exp(K[i, j] <= 0 ? S[i, j] : 0);\n"
       "}\n"
       "instance select_in_reduction = k<7, 19>;\n"},
      {"select_f16_and_f64", "kernel k<N>(H: f16[N], D: f64[N]) -> (A: f16[N], B: f64[N]) {\n"
                             "  A[i] = H[i] != 0.5 && H[i] > -0.25 ? H[i] * H[i] : H[i];\n"
                             "  B[i] = f32(D[i]) < 0.125 ? D[i] : D[i] + 2;\n"
                             "}\n"
                             "instance select_f16_and_f64 = k<29>;\n"},
      {"select_i8_compare_in_f32", "kernel k<N>(Q: i8[N], X: f32[N]) -> (Y: f32[N]) {\n"
                                   "  Y[i] = Q[i] >= -100 && Q[i] < 100 ? X[i] : f32(Q[i]);\n"
                                   "}\n"
                                   "instance select_i8_compare_in_f32 = k<41>;\n"},
      // Index values: a causal mask, positions in arithmetic (wrapping in i8, rounding in f16),
      // a shifted range, and a prefix sum by a comparison of two indices.
      {"index_causal_mask", "kernel k<N>(S: f32[N, N]) -> (P: f32[N, N]) {\n"
                            "  P[i, j] = j <= i ? S[i, j] : -1e30;\n"
                            "}\n"
                            "instance index_causal_mask = k<37>;\n"},
      {"index_arithmetic",
       "kernel k<N, M>(X: f32[N, M]) -> (Y: f32[N, M], Z: i8[N, M], H: f16[N, M]) {\n"
       "  Y[i, j] = X[i, j] + 0.5 * i - j;\n"
       "  Z[i, j] = i * 11 + j;\n"
       "  H[i, j] = f16(X[i, j]) * (i * 200 + j);\n"
       "}\n"
       "instance index_arithmetic = k<13, 29>;\n"},
      {"index_shifted_range", "kernel k<N>(X: f32[N]) -> (Y: f32[N]) {\n"
                              "  Y[i] = X[i] * (i + 2) where i in 3..N;\n"
                              "}\n"
                              "instance index_shifted_range = k<41>;\n"},
      {"index_prefix_sum", "kernel k<N>(X: f32[N]) -> (Y: f32[N]) {\n"
                           "  Y[i] += j <= i ? X[j] : 0 where j in 0..N;\n"
                           "}\n"
                           "instance index_prefix_sum = k<67>;\n"},
      // Padded reads: a "same" convolution (zero padding on both sides), a max pool padded
      // with -inf, a causal tap, integer padding, and a padded local read by a later statement.
      {"pad_same_conv", "kernel k<C, H, W, F>(I: f32[C, H, W], K: f32[F, C, 3, 3]) ->\n"
                        "    (O: f32[F, H, W]) {\n"
                        "  O[f, h, w] += I[c, h + r - 1, w + s - 1] pad 0 * K[f, c, r, s];\n"
                        "}\n"
                        "instance pad_same_conv = k<3, 7, 19, 5>;\n"},
      {"pad_max_pool",
       "kernel k<H, W>(I: f32[H, W]) -> (O: f32[H, W]) {\n"
       "  O[h, w] max= I[h + r - 1, w + s - 1] pad -inf where r in 0..3, s in 0..3;\n"
       "}\n"
       "instance pad_max_pool = k<9, 37>;\n"},
      {"pad_causal_tap", "kernel k<N, T>(X: f32[N], D: f32[T]) -> (Y: f32[N]) {\n"
                         "  Y[i] += X[i - t] pad 0 * D[t];\n"
                         "}\n"
                         "instance pad_causal_tap = k<67, 4>;\n"},
      {"pad_integer_strided", "kernel k<N>(Q: i8[N]) -> (Y: i32[N], Z: i8[N]) {\n"
                              "  Y[i] = i32(Q[2 * i - 3] pad -128) + i32(Q[i + 1] pad 7);\n"
                              "  Z[i] = Q[N - 1 - i] pad 1;\n"
                              "}\n"
                              "instance pad_integer_strided = k<29>;\n"},
      {"pad_local_and_f16", "kernel k<N>(X: f16[N]) -> (Y: f16[N]) {\n"
                            "  T[i] = X[i] * X[i];\n"
                            "  Y[i] = T[i - 2] pad 0.1 + T[i + 2] pad 65504;\n"
                            "}\n"
                            "instance pad_local_and_f16 = k<23>;\n"},
      // Floor division and remainders of indices: nearest upsampling, pixel shuffle, a roll, a
      // remainder as a value, negative quotients (floor, not truncation) under a pad, and a
      // quotient inside a reduction; integers too.
      {"quasi_upsample", "kernel k<C, H, W>(I: f32[C, H, W]) -> (O: f32[C, 2 * H, 2 * W]) {\n"
                         "  O[c, y, x] = I[c, y / 2, x / 2];\n"
                         "}\n"
                         "instance quasi_upsample = k<3, 5, 19>;\n"},
      {"quasi_pixel_shuffle",
       "kernel k<C, H, W>(I: f32[4 * C, H, W]) -> (O: f32[C, 2 * H, 2 * W]) {\n"
       "  O[c, h, w] = I[4 * c + 2 * (h % 2) + w % 2, h / 2, w / 2];\n"
       "}\n"
       "instance quasi_pixel_shuffle = k<3, 5, 7>;\n"},
      {"quasi_roll_and_value",
       "kernel k<N, S>(X: i8[N]) -> (Y: i8[N], Z: i32[N]) {\n"
       "  Y[i] = X[(i + S) % N];\n"
       "  Z[i] = i % 3 == 0 ? i32(X[i]) : -i32(X[(i - 5) / 2] pad 9) * (i % 4);\n"
       "}\n"
       "instance quasi_roll_and_value = k<37, 5>;\n"},
      {"quasi_in_reduction", "kernel k<N, K>(X: f32[N], W: f32[K]) -> (O: f32[N]) {\n"
                             "  O[i] += X[(i + k) / 3] pad 0 * W[k] + X[(2 * i + k) % N];\n"
                             "}\n"
                             "instance quasi_in_reduction = k<41, 7>;\n"},
      // Guarded statements: triangular and banded domains, a guarded `=` (the rest stays 0),
      // elements with no point at all (the identity), and guards with remainders.
      {"guard_cumulative_sum", "kernel k<N>(X: f32[N]) -> (O: f32[N], P: i32[N]) {\n"
                               "  O[i] += X[j] where j <= i;\n"
                               "  P[i] += i32(j) where j in 0..N, j < i;\n"
                               "}\n"
                               "instance guard_cumulative_sum = k<45>;\n"},
      {"guard_causal_attention",
       "kernel k<T, D>(Q: f32[T, D], K: f32[T, D], V: f32[T, D]) -> (O: f32[T, D]) {\n"
       "  S[i, j] += Q[i, d] * K[j, d] where j <= i;\n"
       "  M[i] max= S[i, j] where j <= i;\n"
       "  E[i, j] = exp(S[i, j] - M[i]) where j <= i;\n"
       "  Z[i] += E[i, j];\n"
       "  O[i, d] += E[i, j] * V[j, d] / Z[i];\n"
       "}\n"
       "instance guard_causal_attention = k<19, 5>;\n"},
      {"guard_band_and_diagonal",
       "kernel k<N, W>(A: f64[N, N]) -> (B: f64[N, N], D: f64[N], C: i8[N, N]) {\n"
       "  B[i, j] = A[i, j] * 2 where j > i - W, j < i + W;\n"
       "  D[i] += A[i, j] where i == j;\n"
       "  C[i, j] = i8(1) where (i + j) % 2 != 0 && i / 3 >= j / 4;\n"
       "}\n"
       "instance guard_band_and_diagonal = k<23, 3>;\n"},
      // Shifted writes: a concatenation (the second part shifted by a size), a shift down,
      // a shifted reduction into a declared local, and a guard on a shifted write.
      {"shifted_concat",
       "kernel k<N, C1, C2>(A: f32[N, C1], B: f32[N, C2]) -> (O: f32[N, C1 + C2 + 1]) {\n"
       "  O[n, c] = A[n, c] where c in 0..C1;\n"
       "  O[n, C1 + c] = B[n, c] * 2;\n"
       "}\n"
       "instance shifted_concat = k<3, 17, 5>;\n"},
      {"shifted_reduction_and_local",
       "kernel k<N, K>(A: i32[N, K], X: f32[N]) -> (O: i32[N + 3], Y: f32[N]) {\n"
       "  local T: f32[N];\n"
       "  O[i + 3] += A[i, k] * 3;\n"
       "  T[i - 1] = X[i] where i in 1..N;\n"
       "  Y[i] = T[i] + X[i];\n"
       "  O[i + 1] max= A[i, k] where k < i;\n"
       "}\n"
       "instance shifted_reduction_and_local = k<21, 6>;\n"},
      // Gathers: the indices are random integers in -8..7, so some fall outside the table
      // and give the pad value.
      {"gather_embedding_bag",
       "kernel k<B, L, V, D>(E: f32[V, D], Idx: i32[B, L]) -> (O: f32[B, D], G: f32[B, L, D]) {\n"
       "  O[b, d] += E[Idx[b, l], d] pad 0;\n"
       "  G[b, l, d] = E[Idx[b, l], d] pad -1.5;\n"
       "}\n"
       "instance gather_embedding_bag = k<3, 7, 6, 19>;\n"},
      {"gather_luts_and_guard",
       "kernel k<N, M>(L1: i32[5], L2: f64[3, 4], I1: i8[N, M], I2: i32[M]) ->\n"
       "    (O: i32[N], P: f64[N, M]) {\n"
       "  O[i] += L1[I1[i, j]] pad 0 * 2 + L1[I1[i, j] ] pad 7;\n"
       "  P[i, j] = L2[j % 3, I2[j]] pad -2 where j <= i;\n"
       "}\n"
       "instance gather_luts_and_guard = k<9, 6>;\n"},
      // Strided writes: a 2-D transposed convolution (overlapping taps, so a reduction), an
      // interleave and a zero-inserting upsample (assignments, each element written once),
      // digits of a mixed radix, and a full 1-D convolution written as `O[i + j]`.
      {"strided_transposed_conv", "kernel k<C, F, H, W>(I: f32[C, H, W], K: f32[C, F, 3, 3]) ->\n"
                                  "    (O: f32[F, 2 * H + 2, 2 * W + 2]) {\n"
                                  "  O[f, 2 * h + r, 2 * w + s] += I[c, h, w] * K[c, f, r, s];\n"
                                  "}\n"
                                  "instance strided_transposed_conv = k<3, 5, 7, 11>;\n"},
      {"strided_assignments",
       "kernel k<N>(A: f32[N, 3], X: i32[N, 2, 2]) -> (O: f32[4 * N + 1], P: f32[2 * N + 3],\n"
       "    Q: i32[4 * N + 3]) {\n"
       "  O[4 * i + r + 1] = A[i, r] * 3;\n"
       "  P[2 * i] = A[i, 1] where i in 1..N;\n"
       "  Q[4 * i + 2 * j + l] = X[i, j, l] + i;\n"
       "}\n"
       "instance strided_assignments = k<13>;\n"},
      {"strided_full_convolution",
       "kernel k<N, M>(A: f64[N], B: f64[M]) -> (O: f64[N + M - 1], P: f64[N + 2 * M]) {\n"
       "  O[i + j] += A[i] * B[j];\n"
       "  P[i + 2 * j] max= A[i] - B[j];\n"
       "}\n"
       "instance strided_full_convolution = k<17, 6>;\n"},
      // Found by the difftester (seed 8006): 16 lanes over the fused l*m read a copy of X0
      // packed in blocks of j, whose run of l and m must stay contiguous.
      {"fused_lanes_blocked_pack", "kernel k(X0: f32[2, 2, 6]) -> (Y0: f32[6, 6, 2, 2]) {\n"
                                   "  Y0[i, j, l, m] = X0[l, m, j];\n"
                                   "}\n"
                                   "instance fused_lanes_blocked_pack = k;\n"},
  };
}

schedule::ScheduleOptions options() {
  schedule::ScheduleOptions o;
  o.budget.candidates = 600;
  o.budget.milliseconds = 1e9;
  return o;
}

// Outputs and locals set to a value no kernel here computes, so that an element left unwritten
// is seen.
void poison(const ir::Kernel &k, interp::Buffers &b) {
  for (size_t t = 0; t < k.tensors.size(); ++t)
    if (k.tensors[t].role != ir::TensorRole::Input)
      for (double &x : b[t])
        x = ir::isFloat(k.tensors[t].type) ? std::numeric_limits<double>::quiet_NaN() : 77;
}

void expectSame(const ir::Kernel &k, const interp::Buffers &ref, const interp::Buffers &got,
                const std::string &what) {
  auto cmp = interp::compareOutputs(k, ref, got);
  EXPECT_LE(cmp.maxRelError, interp::tolerance(k))
      << what << ": worst at " << cmp.worstTensor << "[" << cmp.worstIndex << "]: got "
      << got[size_t(k.tensorIndex(cmp.worstTensor))][cmp.worstIndex] << ", want "
      << ref[size_t(k.tensorIndex(cmp.worstTensor))][cmp.worstIndex];
}

class ExecutorAgreement : public ::testing::TestWithParam<Case> {};

TEST_P(ExecutorAgreement, EveryExecutorComputesTheReference) {
  const Case &c = GetParam();
  Session session;
  session.loadText(c.name + ".isam", c.text);
  auto kernels = session.instances({});
  ASSERT_FALSE(session.diagnostics().hasErrors()) << test::renderDiagnostics(session);
  ASSERT_EQ(kernels.size(), 1u) << test::renderDiagnostics(session);
  const ir::Kernel &k = kernels[0];

  interp::Buffers inputs = interp::randomInputs(k, 7);
  // The reference runs the kernel as written: padded reads are not staged (ir/Padding.h).
  test::Reference reference = test::referenceAsWritten(c.name + ".isam", c.text, {}, k, inputs);
  ASSERT_TRUE(reference.buffers) << reference.diagnostics;
  const interp::Buffers &ref = *reference.buffers;
  {
    interp::Buffers staged = inputs;
    interp::run(k, staged);
    expectSame(k, ref, staged, "interpreter on the IR with padded reads staged");
  }
  {
    // The interpreter itself does not depend on what the output buffers held.
    interp::Buffers poisoned = inputs;
    poison(k, poisoned);
    interp::run(k, poisoned);
    expectSame(k, ref, poisoned, "interpreter over poisoned outputs");
  }

  for (const char *name : {"host", "x86_avx2", "x86_avx512", "systolic16"}) {
    SCOPED_TRACE(name);
    auto target = session.target(name);
    ASSERT_TRUE(target) << test::renderDiagnostics(session);
    schedule::KernelSchedule ks = session.schedule(k, *target, options());
    ASSERT_FALSE(session.diagnostics().hasErrors()) << test::renderDiagnostics(session);
    std::string printed = schedule::printSchedule(ks, k, *target);

    interp::Buffers executed = inputs;
    poison(k, executed);
    schedule::execute(ks, k, *target, executed);
    expectSame(k, ref, executed, std::string("schedule IR on ") + name + "\n" + printed);

    if (target->triple.empty()) {
      interp::Buffers simulated = inputs;
      poison(k, simulated);
      accel::simulate(k, *target, ks, &simulated);
      expectSame(k, ref, simulated, std::string("simulated on ") + name + "\n" + printed);
      continue;
    }
    auto jit = backend::Jit::create(*target);
    if (!jit) { // a description this CPU cannot run
      llvm::consumeError(jit.takeError());
      continue;
    }
    auto entry = (*jit)->add(k, ks);
    ASSERT_TRUE(bool(entry)) << llvm::toString(entry.takeError());
    interp::Buffers poisoned = inputs;
    poison(k, poisoned);
    backend::NativeBuffers native = backend::toNative(k, poisoned);
    (*entry)(native.args.data());
    interp::Buffers got = inputs;
    backend::fromNative(k, native, got);
    expectSame(k, ref, got, std::string("native on ") + name + "\n" + printed);
  }
}

INSTANTIATE_TEST_SUITE_P(Issue15, ExecutorAgreement, ::testing::ValuesIn(cases()),
                         [](const auto &info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Issue20, ExecutorAgreement, ::testing::ValuesIn(constructCases()),
                         [](const auto &info) { return info.param.name; });

// The meaning the executors agree on, spelled out on values.
TEST(IntegerSemantics, WrapsArithmeticAndSaturatesConversions) {
  EXPECT_EQ(interp::wrapTo(ir::ElemType::I8, 128), -128);
  EXPECT_EQ(interp::wrapTo(ir::ElemType::I8, -129), 127);
  EXPECT_EQ(interp::wrapTo(ir::ElemType::I8, 1000), -24);
  EXPECT_EQ(interp::wrapTo(ir::ElemType::I32, 4294967296.0 + 5), 5);
  EXPECT_EQ(interp::roundTo(ir::ElemType::I8, 1000), 127);
  EXPECT_EQ(interp::roundTo(ir::ElemType::I8, -2.9), -2);
  EXPECT_EQ(interp::roundTo(ir::ElemType::I32, std::nan("")), 0);
}

TEST(IntegerSemantics, SumIsIndependentOfOrder) {
  // 100 * 100 + 100 * 100 + ... in i8: the wrapped sum is the exact sum modulo 256.
  double forward = 0, backward = 0;
  for (int i = 0; i < 50; ++i)
    forward = interp::combine(ir::ReduceOp::Sum, ir::ElemType::I8, forward,
                              interp::wrapTo(ir::ElemType::I8, 100.0 * (i + 1)));
  for (int i = 50; i-- > 0;)
    backward = interp::combine(ir::ReduceOp::Sum, ir::ElemType::I8, backward,
                               interp::wrapTo(ir::ElemType::I8, 100.0 * (i + 1)));
  EXPECT_EQ(forward, backward);
  EXPECT_EQ(forward, interp::wrapTo(ir::ElemType::I8, 100.0 * 50 * 51 / 2));
}

TEST(PartialWrites, TensorsWhoseFirstWriterLeavesElementsStartAtZero) {
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (O: f32[N], P: f32[N], Q: f32[N]) {\n"
                         "  O[i] = A[i] where i in 0..3;\n"
                         "  P[i] = A[i];\n"
                         "  P[i] = A[i] + 1 where i in 0..2;\n"
                         "  Q[i] = A[i] where i in 1..N;\n"
                         "  Q[i] = A[i] + 2;\n"
                         "}\n"
                         "instance x = k<5>;\n");
  auto kernels = s->instances({});
  ASSERT_EQ(kernels.size(), 1u);
  const ir::Kernel &k = kernels[0];
  EXPECT_FALSE(ir::startsZeroed(k, k.tensorIndex("A")));
  EXPECT_TRUE(ir::startsZeroed(k, k.tensorIndex("O")));
  EXPECT_FALSE(ir::startsZeroed(k, k.tensorIndex("P"))); // its first writer covers it
  EXPECT_TRUE(ir::startsZeroed(k, k.tensorIndex("Q")));  // its first writer does not
}

} // namespace

namespace {

// A subtree of literals takes the type of its context, as a literal does: in an i32 kernel,
// `log(4)` is an i32 (1), never an f32 that one executor converts and another does not.
TEST(LiteralTyping, FunctionsOfLiteralsTakeTheirContextsType) {
  auto s = test::analyse("kernel k(X: i32[6]) -> (Y: i32[6]) { Y[i] = min(log(4), X[i]) - 5; }\n"
                         "instance x = k;\n");
  auto kernels = s->instances({});
  ASSERT_EQ(kernels.size(), 1u);
  const ir::Expr &rhs = kernels[0].statements[0].rhs; // min(log(4), X[i]) - 5
  ASSERT_EQ(rhs.args.size(), 2u);
  const ir::Expr &min = rhs.args[0];
  ASSERT_EQ(min.args.size(), 2u);
  EXPECT_EQ(min.type, ir::ElemType::I32);
  EXPECT_EQ(min.args[0].type, ir::ElemType::I32); // log(4)
  EXPECT_EQ(min.args[0].args[0].type, ir::ElemType::I32);
  EXPECT_EQ(rhs.args[1].type, ir::ElemType::I32); // 5
}

} // namespace
