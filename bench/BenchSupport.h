// What every comparison in the GEMM/layer benchmark shares: aligned buffers with seeded random
// contents, timing a call, comparing two results, and the roofline of a target description
// (the lower of its compute peak and its DRAM bandwidth bound for a given shape).
#pragma once

#include "hw/Hardware.h"
#include "ir/Compute.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace isam::bench {

// A 64-byte aligned float array, uninitialised; freed on destruction.
class Buffer {
public:
  Buffer() = default;
  explicit Buffer(size_t count);
  ~Buffer();
  Buffer(Buffer &&other) noexcept;
  Buffer &operator=(Buffer &&other) noexcept;
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  float *data() const { return data_; }
  size_t size() const { return size_; }

private:
  float *data_ = nullptr;
  size_t size_ = 0;
};

// Uniform values in [-1, 1) from a fixed-seed generator (the same contents on every run).
void fillRandom(Buffer &b, uint64_t seed);
// Every element NaN: an output element a kernel forgets to write then fails the check.
void fillNaN(Buffer &b);

struct Timing {
  double bestS = 0, medianS = 0;
  int runs = 0;
};

// One untimed warm-up call, then `repeat` timed calls, or (repeat 0) as many as fill ~0.3 s at
// the first timed call's pace, at least 3.
Timing timeCalls(const std::function<void()> &call, int repeat);

// max |got - ref| / max(|ref|, 1) over all elements (the reference interpreter's measure; the
// inputs are in [-1, 1)); a NaN or infinity anywhere makes it infinite.
double maxRelativeError(const float *got, const float *ref, size_t count);

// The largest error a check accepts: two results each within the reference interpreter's
// tolerance of the exact one (which grows with the reduction's length) may be twice that
// apart; never below 1e-3.
double checkThreshold(const ir::Kernel &kernel);

// The roofline of a target: GFLOP/s attainable by a computation of `flops` operations that
// must move at least `bytes` between DRAM and the chip, on `threads` cores.
struct Roofline {
  double clockHz = 0;
  uint32_t cores = 1;
  double flopsPerCycle = 0; // per core: the best f32 arithmetic instruction's lanes x ops x rate
  std::string peakInstruction;
  double dramBytesPerS = 0; // 0: not described (no memory bound)
  std::string dramName;

  double peakGflops(int threads) const;
  double gflops(double flops, double bytes, int threads) const;
};
Roofline rooflineOf(const hw::Target &target);

// Bytes its inputs and outputs occupy: the compulsory DRAM traffic (locals excluded).
double kernelBytes(const ir::Kernel &kernel);

// The geometric mean of the positive values (0 when there are none).
double geomean(const std::vector<double> &values);

} // namespace isam::bench
