// Kernels of the elementary functions beyond exp, log, tanh and sigmoid (rsqrt, erf, pow, sin,
// cos, exp2, log2, floor, round), for the tests that run them on each executor: over wide
// argument ranges (exp2 to 2^+-20, sin of up to 40 radians, pow of bases near 0.5 to 1.5 with
// exponents to +-4), in f32, f64 and i32, on a size with a vector remainder.
#pragma once

namespace isam::test {

inline constexpr const char *kFunctionKernels = R"(
kernel fns<N>(X: f32[N], W: f32[N])
    -> (R: f32[N], E: f32[N], P: f32[N], S: f32[N], L: f32[N], F: f32[N]) {
  R[i] = rsqrt(abs(X[i]) + 0.01);
  E[i] = erf(X[i] * 3) + erf(W[i] * 0.2);
  P[i] = pow(abs(X[i]) + 0.5, W[i] * 4);
  S[i] = sin(X[i] * 40) + cos(W[i] * 3);
  L[i] = exp2(X[i] * 20) + log2(abs(W[i]) * 1e6 + 0.001);
  F[i] = floor(X[i] * 9) + round(W[i] * 7.5);
}
instance fns_small = fns<37>;

kernel fnsd<N>(X: f64[N], W: f64[N])
    -> (R: f64[N], E: f64[N], P: f64[N], S: f64[N], L: f64[N], F: f64[N]) {
  R[i] = rsqrt(abs(X[i]) + 0.01);
  E[i] = erf(X[i] * 3) + erf(W[i] * 0.2);
  P[i] = pow(abs(X[i]) + 0.5, W[i] * 4);
  S[i] = sin(X[i] * 40) + cos(W[i] * 3);
  L[i] = exp2(X[i] * 20) + log2(abs(W[i]) * 1e6 + 0.001);
  F[i] = floor(X[i] * 9) + round(W[i] * 7.5);
}
instance fnsd_small = fnsd<37>;

kernel fnsi<N>(X: i32[N]) -> (P: i32[N], F: i32[N]) {
  P[i] = pow(X[i], 2) + exp2(abs(X[i]));
  F[i] = floor(X[i]) + round(X[i]) + i32(floor(f32(X[i]) / 3));
}
instance fnsi_small = fnsi<37>;
)";

inline constexpr const char *kFunctionInstances[] = {"fns_small", "fnsd_small", "fnsi_small"};

} // namespace isam::test
