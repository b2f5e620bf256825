// dwsep, the LBR GRU cell and the LSTM cell on oneDNN primitives (see OnednnLayers.h).
#include "OnednnLayers.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstring>
#include <unordered_map>
#include <vector>

namespace isam::bench {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;

// A user buffer wrapped as oneDNN memory; oneDNN only reads inputs, the cast is for its API.
memory wrap(const memory::desc &md, const dnnl::engine &eng, const float *data) {
  return memory(md, eng, const_cast<float *>(data));
}

// `from` converted to `to` (a new buffer when the layouts differ, `from` itself otherwise).
memory convert(const memory &from, const memory::desc &to, const dnnl::engine &eng,
               dnnl::stream &strm) {
  if (from.get_desc() == to)
    return from;
  memory out(to, eng);
  dnnl::reorder(from, out).execute(strm, const_cast<memory &>(from), out);
  strm.wait();
  return out;
}

class Dwsep : public OnednnLayer {
public:
  Dwsep(int64_t c, int64_t h, int64_t w, int64_t f, const float *in, const float *depthwise,
        const float *pointwise, bool blocked)
      : eng_(dnnl::engine::kind::cpu, 0), strm_(eng_) {
    using CF = dnnl::convolution_forward;
    const auto act = blocked ? Tag::any : Tag::nchw;
    memory::desc src({1, c, h + 2, w + 2}, kF32, act);
    memory::desc mid({1, c, h, w}, kF32, act);
    memory::desc dst({1, f, h, w}, kF32, act);
    // Depthwise: groups = C, one 3x3 filter per group (weights g, o/g, i/g, kh, kw).
    CF::desc dwDesc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
                    memory::desc({c, 1, 1, 3, 3}, kF32, Tag::any), mid, {1, 1}, {0, 0}, {0, 0});
    CF::primitive_desc dwPd(dwDesc, eng_);
    CF::desc pwDesc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                    blocked ? memory::desc({1, c, h, w}, kF32, Tag::any) : mid,
                    memory::desc({f, c, 1, 1}, kF32, Tag::any), dst, {1, 1}, {0, 0}, {0, 0});
    CF::primitive_desc pwPd(pwDesc, eng_);
    dw_ = CF(dwPd);
    pw_ = CF(pwPd);
    implementation_ = std::string("dw ") + dwPd.impl_info_str() + ", pw " + pwPd.impl_info_str();

    // Weights: once, outside the timed part.
    dwWeights_ = convert(wrap(memory::desc({c, 1, 1, 3, 3}, kF32, Tag::goihw), eng_, depthwise),
                         dwPd.weights_desc(), eng_, strm_);
    pwWeights_ = convert(wrap(memory::desc({f, c, 1, 1}, kF32, Tag::oihw), eng_, pointwise),
                         pwPd.weights_desc(), eng_, strm_);
    // Activations: plain wraps the caller's buffer; blocked converts it here, untimed.
    src_ = convert(wrap(memory::desc({1, c, h + 2, w + 2}, kF32, Tag::nchw), eng_, in),
                   dwPd.src_desc(), eng_, strm_);
    mid_ = memory(dwPd.dst_desc(), eng_);
    // The pointwise convolution may want its input in another layout than the depthwise one
    // writes: then the reorder between them is part of the layer, and timed.
    if (pwPd.src_desc() != dwPd.dst_desc()) {
      midConverted_ = memory(pwPd.src_desc(), eng_);
      implementation_ += " (with a reorder between them)";
    } else {
      midConverted_ = mid_;
    }
    dst_ = memory(pwPd.dst_desc(), eng_);
    plainDst_ = memory::desc({1, f, h, w}, kF32, Tag::nchw);
    count_ = size_t(f * h * w);
  }

  void run() override {
    dw_.execute(strm_,
                {{DNNL_ARG_SRC, src_}, {DNNL_ARG_WEIGHTS, dwWeights_}, {DNNL_ARG_DST, mid_}});
    if (midConverted_ != mid_)
      dnnl::reorder(mid_, midConverted_).execute(strm_, mid_, midConverted_);
    pw_.execute(
        strm_,
        {{DNNL_ARG_SRC, midConverted_}, {DNNL_ARG_WEIGHTS, pwWeights_}, {DNNL_ARG_DST, dst_}});
    strm_.wait();
  }

  void result(float *out) override {
    memory plain = convert(dst_, plainDst_, eng_, strm_);
    std::memcpy(out, plain.get_data_handle(), count_ * sizeof(float));
  }

private:
  dnnl::engine eng_;
  dnnl::stream strm_;
  dnnl::convolution_forward dw_, pw_;
  memory src_, dwWeights_, pwWeights_, mid_, midConverted_, dst_;
  memory::desc plainDst_;
  size_t count_ = 0;
};

class LbrGru : public OnednnLayer {
public:
  LbrGru(int64_t batch, int64_t input, int64_t hidden, const float *x, const float *hPrev,
         const float *w, const float *u, const float *bx, const float *bh)
      : eng_(dnnl::engine::kind::cpu, 0), strm_(eng_) {
    using G = dnnl::lbr_gru_forward;
    // One layer, one direction, one time step.
    memory::desc srcLayer({1, batch, input}, kF32, Tag::tnc);
    memory::desc srcIter({1, 1, batch, hidden}, kF32, Tag::ldnc);
    memory::desc bias({1, 1, 4, hidden}, kF32, Tag::ldgo);
    memory::desc dstLayer({1, batch, hidden}, kF32, Tag::tnc);
    G::desc desc(dnnl::prop_kind::forward_inference, dnnl::rnn_direction::unidirectional_left2right,
                 srcLayer, srcIter, memory::desc({1, 1, input, 3, hidden}, kF32, Tag::any),
                 memory::desc({1, 1, hidden, 3, hidden}, kF32, Tag::any), bias, dstLayer,
                 memory::desc());
    G::primitive_desc pd(desc, eng_);
    gru_ = G(pd);
    implementation_ = pd.impl_info_str();

    // oneDNN orders the gates u (update = z), r (reset), o (candidate = n); the kernel orders
    // them r, z, n. Weights are permuted into oneDNN's order, then into its layout: untimed.
    auto permuted = [](const float *from, int64_t rows, int64_t hidden) {
      std::vector<float> out(size_t(rows * 3 * hidden));
      const int source[3] = {1, 0, 2}; // oneDNN gate g comes from the kernel's gate source[g]
      for (int64_t r = 0; r < rows; ++r)
        for (int g = 0; g < 3; ++g)
          std::memcpy(&out[size_t((r * 3 + g) * hidden)], &from[(r * 3 + source[g]) * hidden],
                      size_t(hidden) * sizeof(float));
      return out;
    };
    std::vector<float> wl = permuted(w, input, hidden), wi = permuted(u, hidden, hidden);
    weightsLayer_ =
        convert(wrap(memory::desc({1, 1, input, 3, hidden}, kF32, Tag::ldigo), eng_, wl.data()),
                pd.weights_layer_desc(), eng_, strm_);
    weightsIter_ =
        convert(wrap(memory::desc({1, 1, hidden, 3, hidden}, kF32, Tag::ldigo), eng_, wi.data()),
                pd.weights_iter_desc(), eng_, strm_);
    // The converted weights must not alias the temporaries (they do when no reorder was needed).
    if (weightsLayer_.get_data_handle() == wl.data())
      weightsLayer_ = copyOf(weightsLayer_);
    if (weightsIter_.get_data_handle() == wi.data())
      weightsIter_ = copyOf(weightsIter_);
    // Biases: u = bx_z + bh_z, r = bx_r + bh_r, o = bx_n, and u' (inside r * (...)) = bh_n.
    bias_ = memory(bias, eng_);
    float *b = static_cast<float *>(bias_.get_data_handle());
    for (int64_t j = 0; j < hidden; ++j) {
      b[j] = bx[hidden + j] + bh[hidden + j];
      b[hidden + j] = bx[j] + bh[j];
      b[2 * hidden + j] = bx[2 * hidden + j];
      b[3 * hidden + j] = bh[2 * hidden + j];
    }
    srcLayer_ = wrap(srcLayer, eng_, x);
    srcIter_ = wrap(srcIter, eng_, hPrev);
    dstLayer_ = memory(dstLayer, eng_);
    count_ = size_t(batch * hidden);
  }

  void run() override {
    gru_.execute(strm_, {{DNNL_ARG_SRC_LAYER, srcLayer_},
                         {DNNL_ARG_SRC_ITER, srcIter_},
                         {DNNL_ARG_WEIGHTS_LAYER, weightsLayer_},
                         {DNNL_ARG_WEIGHTS_ITER, weightsIter_},
                         {DNNL_ARG_BIAS, bias_},
                         {DNNL_ARG_DST_LAYER, dstLayer_}});
    strm_.wait();
  }

  void result(float *out) override {
    std::memcpy(out, dstLayer_.get_data_handle(), count_ * sizeof(float));
  }

private:
  memory copyOf(const memory &m) {
    memory out(m.get_desc(), eng_);
    std::memcpy(out.get_data_handle(), m.get_data_handle(), m.get_desc().get_size());
    return out;
  }

  dnnl::engine eng_;
  dnnl::stream strm_;
  dnnl::lbr_gru_forward gru_;
  memory srcLayer_, srcIter_, weightsLayer_, weightsIter_, bias_, dstLayer_;
  size_t count_ = 0;
};

class Lstm : public OnednnLayer {
public:
  Lstm(int64_t batch, int64_t input, int64_t hidden, const float *x, const float *hPrev,
       const float *cPrev, const float *w, const float *u, const float *bias)
      : eng_(dnnl::engine::kind::cpu, 0), strm_(eng_) {
    using L = dnnl::lstm_forward;
    // One layer, one direction, one time step.
    memory::desc srcLayer({1, batch, input}, kF32, Tag::tnc);
    memory::desc state({1, 1, batch, hidden}, kF32, Tag::ldnc);
    memory::desc biasDesc({1, 1, 4, hidden}, kF32, Tag::ldgo);
    memory::desc dstLayer({1, batch, hidden}, kF32, Tag::tnc);
    L::desc desc(dnnl::prop_kind::forward_inference, dnnl::rnn_direction::unidirectional_left2right,
                 srcLayer, state, state, memory::desc({1, 1, input, 4, hidden}, kF32, Tag::any),
                 memory::desc({1, 1, hidden, 4, hidden}, kF32, Tag::any), biasDesc, dstLayer, state,
                 state); // oneDNN wants both final states or neither
    L::primitive_desc pd(desc, eng_);
    lstm_ = L(pd);
    implementation_ = pd.impl_info_str();

    // The kernel's W[I, 4, H] and U[H, 4, H] are oneDNN's ldigo with the same gate order;
    // converted into its preferred layout once, untimed (copied when no reorder was needed, so
    // that the timed part never writes the caller's buffers).
    auto weights = [&](const float *from, int64_t rows, const memory::desc &to) {
      memory plain = wrap(memory::desc({1, 1, rows, 4, hidden}, kF32, Tag::ldigo), eng_, from);
      memory out = convert(plain, to, eng_, strm_);
      if (out.get_data_handle() == plain.get_data_handle()) {
        out = memory(to, eng_);
        std::memcpy(out.get_data_handle(), from, to.get_size());
      }
      return out;
    };
    weightsLayer_ = weights(w, input, pd.weights_layer_desc());
    weightsIter_ = weights(u, hidden, pd.weights_iter_desc());
    srcLayer_ = wrap(srcLayer, eng_, x);
    srcIter_ = wrap(state, eng_, hPrev);
    srcIterC_ = wrap(state, eng_, cPrev);
    bias_ = wrap(biasDesc, eng_, bias);
    dstLayer_ = memory(dstLayer, eng_);
    dstIter_ = memory(state, eng_);
    dstIterC_ = memory(state, eng_);
    count_ = size_t(batch * hidden);
  }

  void run() override {
    lstm_.execute(strm_, {{DNNL_ARG_SRC_LAYER, srcLayer_},
                          {DNNL_ARG_SRC_ITER, srcIter_},
                          {DNNL_ARG_SRC_ITER_C, srcIterC_},
                          {DNNL_ARG_WEIGHTS_LAYER, weightsLayer_},
                          {DNNL_ARG_WEIGHTS_ITER, weightsIter_},
                          {DNNL_ARG_BIAS, bias_},
                          {DNNL_ARG_DST_LAYER, dstLayer_},
                          {DNNL_ARG_DST_ITER, dstIter_},
                          {DNNL_ARG_DST_ITER_C, dstIterC_}});
    strm_.wait();
  }

  void result(float *out) override {
    std::memcpy(out, dstLayer_.get_data_handle(), count_ * sizeof(float));
  }

private:
  dnnl::engine eng_;
  dnnl::stream strm_;
  dnnl::lstm_forward lstm_;
  memory srcLayer_, srcIter_, srcIterC_, weightsLayer_, weightsIter_, bias_, dstLayer_, dstIter_,
      dstIterC_;
  size_t count_ = 0;
};

} // namespace

std::unique_ptr<OnednnLayer> makeDwsep(int64_t c, int64_t h, int64_t w, int64_t f, const float *in,
                                       const float *depthwise, const float *pointwise,
                                       bool blocked) {
  return std::make_unique<Dwsep>(c, h, w, f, in, depthwise, pointwise, blocked);
}

std::unique_ptr<OnednnLayer> makeLbrGru(int64_t batch, int64_t input, int64_t hidden,
                                        const float *x, const float *hPrev, const float *w,
                                        const float *u, const float *bx, const float *bh) {
  return std::make_unique<LbrGru>(batch, input, hidden, x, hPrev, w, u, bx, bh);
}

std::unique_ptr<OnednnLayer> makeLstm(int64_t batch, int64_t input, int64_t hidden, const float *x,
                                      const float *hPrev, const float *cPrev, const float *w,
                                      const float *u, const float *bias) {
  return std::make_unique<Lstm>(batch, input, hidden, x, hPrev, cPrev, w, u, bias);
}

} // namespace isam::bench
