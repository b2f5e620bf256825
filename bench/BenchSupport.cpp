// Buffers, timing, result comparison and rooflines for the GEMM/layer benchmark (see
// BenchSupport.h).
#include "BenchSupport.h"
#include "interp/Interpreter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <vector>

namespace isam::bench {

Buffer::Buffer(size_t count) : size_(count) {
  // aligned_alloc wants a multiple of the alignment; at least one line so that 0 is fine.
  size_t bytes = (count * sizeof(float) + 63) / 64 * 64 + 64;
  data_ = static_cast<float *>(std::aligned_alloc(64, bytes));
  if (!data_)
    throw std::bad_alloc();
}

Buffer::~Buffer() {
  std::free(data_);
}

Buffer::Buffer(Buffer &&other) noexcept : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

Buffer &Buffer::operator=(Buffer &&other) noexcept {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  return *this;
}

void fillRandom(Buffer &b, uint64_t seed) {
  // splitmix64: fast enough for gigabyte operands, and the same values everywhere.
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < b.size(); ++i) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    b.data()[i] = float(double(z >> 40) / double(1ull << 23) - 1.0);
  }
}

void fillNaN(Buffer &b) {
  std::fill(b.data(), b.data() + b.size(), std::numeric_limits<float>::quiet_NaN());
}

Timing timeCalls(const std::function<void()> &call, int repeat) {
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  // The warm-up pays for first-touch page faults, lazy library initialisation (oneDNN generates
  // its kernels on the first call) and thread-pool start-up, none of which a steady-state
  // figure should include; so the run count is sized by the first timed call, not by it.
  call();
  std::vector<double> times;
  auto timed = [&] {
    auto t0 = Clock::now();
    call();
    times.push_back(seconds(t0, Clock::now()));
  };
  timed();
  int runs = repeat;
  if (runs <= 0)
    runs = int(std::clamp(std::ceil(0.3 / std::max(times.front(), 1e-9)), 3.0, 100000.0));
  while (int(times.size()) < runs)
    timed();
  std::sort(times.begin(), times.end());
  Timing t;
  t.runs = runs;
  t.bestS = times.front();
  size_t n = times.size();
  t.medianS = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  return t;
}

double maxRelativeError(const float *got, const float *ref, size_t count) {
  double worst = 0;
  for (size_t i = 0; i < count; ++i) {
    double e =
        std::fabs(double(got[i]) - double(ref[i])) / std::max(std::fabs(double(ref[i])), 1.0);
    // A NaN compares false: count it as the worst possible error.
    if (!(e <= worst))
      worst = std::isnan(e) || std::isinf(e) ? std::numeric_limits<double>::infinity() : e;
  }
  return worst;
}

double Roofline::peakGflops(int threads) const {
  return clockHz * flopsPerCycle * std::min<double>(threads, cores) / 1e9;
}

double Roofline::gflops(double flops, double bytes, int threads) const {
  double peak = peakGflops(threads);
  if (dramBytesPerS <= 0 || bytes <= 0)
    return peak;
  // Time bound: max(flops / peak, bytes / bandwidth); as a rate, the lower of the two.
  return std::min(peak, flops / bytes * dramBytesPerS / 1e9);
}

double kernelBytes(const ir::Kernel &kernel) {
  double bytes = 0;
  for (const auto &t : kernel.tensors)
    if (t.role != ir::TensorRole::Local)
      bytes += double(t.elementCount()) * ir::elemTypeBytes(t.type);
  return bytes;
}

Roofline rooflineOf(const hw::Target &target) {
  Roofline r;
  r.clockHz = target.clockHz;
  r.cores = target.cores;
  // Compute peak: the f32 arithmetic instruction with the most operations per cycle (lanes x
  // operations per lane x issue rate), as hw::Target::peakFlopsPerCycle counts them but over
  // f32 instructions only: an int8 dot product's rate is no bound for fp32 code. Moves and
  // instructions with free sizes do not count.
  for (const auto &in : target.instructions) {
    if (in.isMove || !in.sizeParams.empty())
      continue;
    // f32 throughout: a bf16 dot product into f32 accumulators does not bound fp32 code either.
    bool f32 = !in.semantics.statements.empty();
    for (const auto &t : in.semantics.tensors)
      f32 = f32 && t.type == ir::ElemType::F32;
    double ops = 0;
    for (const auto &s : in.semantics.statements)
      ops += double(s.pointCount()) * s.flopsPerPoint();
    if (f32 && ops * in.cost.perCycle > r.flopsPerCycle) {
      r.flopsPerCycle = ops * in.cost.perCycle;
      r.peakInstruction = in.name;
    }
  }
  // The memory bound: the outermost memory (DRAM by convention) and its bandwidth.
  for (const auto &m : target.memories)
    if (m.parent < 0 && !m.isRegisters && (r.dramName.empty() || m.name == "DRAM")) {
      r.dramName = m.name;
      r.dramBytesPerS = m.bandwidthBytesPerCycle * target.clockHz;
    }
  return r;
}

double geomean(const std::vector<double> &values) {
  double logSum = 0;
  size_t n = 0;
  for (double v : values)
    if (v > 0 && std::isfinite(v)) {
      logSum += std::log(v);
      ++n;
    }
  return n ? std::exp(logSum / double(n)) : 0;
}

double checkThreshold(const ir::Kernel &kernel) {
  return std::max(1e-3, 2 * interp::tolerance(kernel));
}

} // namespace isam::bench
