// The machine isamap runs on, as a target: `--target host` picks the shipped description that
// matches the CPU LLVM detects (its architecture and vector features) and makes it exact for
// this machine (LLVM's host CPU name and full feature list, and the cores available), so native
// code can always be built and run here. A CPU no description matches gets `generic`, which
// describes memory only: every statement becomes scalar code for LLVM to vectorise.
#pragma once

#include "hw/Hardware.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace isam::hw {

struct HostCpu {
  std::string triple;                // LLVM's process triple
  std::string cpu;                   // LLVM's host CPU name (e.g. znver4, sapphirerapids)
  std::vector<std::string> features; // enabled features, without '+'
  unsigned threads = 1;              // hardware threads available to this process
  // Data (or unified) cache sizes and associativities by level, L1 first, as the OS reports them
  // for the first CPU (0 where it reports none; empty where it reports nothing).
  std::vector<uint64_t> cacheBytes;
  std::vector<uint32_t> cacheWays;
};

HostCpu detectHost();

// The data cache sizes below a sysfs CPU directory (such as /sys/devices/system/cpu/cpu0), by
// level, L1 first: each cache/index*/ of type Data or Unified, its `size` ("48K", "2048K").
std::vector<uint64_t> readCacheSizes(const std::string &cpuDir);
// Their associativities, the same way: each one's `ways_of_associativity` (0 where absent).
std::vector<uint32_t> readCacheWays(const std::string &cpuDir);

// Measures the fp32 multiply-adds per second of one core of `cpu` on `vectorBytes`-wide vectors,
// as GFLOP/s (two operations per multiply-add); empty when it cannot. The core cannot measure
// (it needs a JIT): backends/llvm/Calibrate.h's measureFmaGflops is the one front ends pass.
using FmaMeter = std::function<std::optional<double>(const HostCpu &cpu, unsigned vectorBytes)>;

// The shipped description (a hwdesc/ file name) for a CPU.
std::string hostDescriptionName(const HostCpu &cpu);

// `description` adapted to the CPU: named "host", with the CPU's triple, name, features and
// thread count, its caches' associativities as reported, and its cache sizes (from the
// registers out: the first cache is L1; the caches a core has to itself as reported, a shared
// last level no larger than described, since a virtual machine is told of the whole socket's
// and shares it with other tenants), calibrated by `meter` (below; without one, the
// description's rates stay).
Target hostTarget(const Target &description, const HostCpu &cpu, const FmaMeter &meter = {});

// Makes the description's compute rate this machine's, as `meter` measures it for a core: when
// it is off the described one by more than a quarter, the issue rate of the arithmetic
// instructions on the peak instruction's unit is scaled to match in whole pipes, and the load
// bandwidth into the registers with it; the rest of the difference goes to the clock (in steps of
// kClockStepHz, when off by more than kClockToleranceHz), which keeps bandwidths given per
// second. Without a meter or a measurement, nothing changes.
constexpr double kClockStepHz = 0.25e9;
constexpr double kClockToleranceHz = 0.125e9;
void calibrate(Target &target, const HostCpu &cpu, const FmaMeter &meter);

} // namespace isam::hw
