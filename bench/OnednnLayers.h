// The oneDNN side of the layer benchmarks: the `dwsep`, `gru_cell` and `lstm_cell` kernels of
// samples/ computed with oneDNN primitives, from the same dense row-major inputs the isamap kernels
// take. Weights are converted to oneDNN's preferred layouts once, outside the timed part, as an
// inference framework does; activations stay as the variant says.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace isam::bench {

class OnednnLayer {
public:
  virtual ~OnednnLayer() = default;
  // The timed part: the primitives (and any reorders between them), until they complete.
  virtual void run() = 0;
  // The last run's output, copied into `out` in the isamap kernel's row-major layout.
  virtual void result(float *out) = 0;
  // oneDNN's names for the implementations it picked, e.g. "jit_dw:avx512_core + ...".
  const std::string &implementation() const { return implementation_; }

protected:
  std::string implementation_;
};

// dwsep<C, H, W, F>: I[C, H+2, W+2] (padded), D[C, 3, 3], P[F, C] -> O[F, H, W]: a depthwise
// 3x3 convolution (groups = C, no padding) then a 1x1 convolution, batch 1. Plain: NCHW
// activations in, between and out. Blocked: the layouts oneDNN prefers for the activations,
// with the input's and output's conversions outside the timed part (the library's best case).
// The primitives size their threading when created: set the thread count first.
// Throws dnnl::error when oneDNN cannot create the primitives.
std::unique_ptr<OnednnLayer> makeDwsep(int64_t c, int64_t h, int64_t w, int64_t f, const float *in,
                                       const float *depthwise, const float *pointwise,
                                       bool blocked);

// gru_cell<B, I, H> (cuDNN/PyTorch formulation, "linear before reset"): X[B, I], Hp[B, H],
// W[I, 3, H], U[H, 3, H], Bx[3, H], Bh[3, H] -> Hn[B, H], gates in the order r, z, n. One step
// of oneDNN's LBR GRU primitive (gates u, r, o; its four biases come from Bx and Bh).
std::unique_ptr<OnednnLayer> makeLbrGru(int64_t batch, int64_t input, int64_t hidden,
                                        const float *x, const float *hPrev, const float *w,
                                        const float *u, const float *bx, const float *bh);

// lstm_cell<B, I, H> (vanilla LSTM, no peepholes): X[B, I], Hp[B, H], Cp[B, H], W[I, 4, H],
// U[H, 4, H], Bias[4, H] -> Hn[B, H] (and Cn[B, H]), gates in the order i, f, c~, o: oneDNN's
// order, so the weights are only converted into its preferred layout. result() gives Hn, which
// reads every gate and Cn.
std::unique_ptr<OnednnLayer> makeLstm(int64_t batch, int64_t input, int64_t hidden, const float *x,
                                      const float *hPrev, const float *cPrev, const float *w,
                                      const float *u, const float *bias);

} // namespace isam::bench
