// The machine isamap runs on, as a target: `--target host` picks the shipped description that
// matches the CPU LLVM detects (its architecture and vector features) and makes it exact for
// this machine (LLVM's host CPU name and full feature list, and the cores available), so native
// code can always be built and run here. A CPU no description matches gets `generic`, which
// describes memory only: every statement becomes scalar code for LLVM to vectorise.
#pragma once

#include "hw/Hardware.h"

#include <string>
#include <vector>

namespace isam::hw {

struct HostCpu {
  std::string triple;                // LLVM's process triple
  std::string cpu;                   // LLVM's host CPU name (e.g. znver4, sapphirerapids)
  std::vector<std::string> features; // enabled features, without '+'
  unsigned threads = 1;              // hardware threads available to this process
};

HostCpu detectHost();

// The shipped description (a hwdesc/ file name) for a CPU.
std::string hostDescriptionName(const HostCpu &cpu);

// `description` adapted to the CPU: named "host", with the CPU's triple, name, features and
// thread count, calibrated (below).
Target hostTarget(const Target &description, const HostCpu &cpu);

// Makes the description's compute rate this machine's: when the measured vector FMA rate of a
// core is off the described one by more than a quarter, the issue rate of the arithmetic
// instructions on the peak instruction's unit is scaled to match (in whole pipes).
void calibrate(Target &target, const HostCpu &cpu);

} // namespace isam::hw
