// Measuring the machine: the floating-point peak of one core, so that `--target host` describes
// this machine's arithmetic rate rather than the shipped description's (a description names a
// core model; the host may be a different one with the same ISA, e.g. two FMA pipes where the
// description has one). It needs a JIT, so it lives here rather than in core/hw, which applies
// the measurement (hw::calibrate) and receives this function as an hw::FmaMeter through
// SessionOptions::hostMeter.
#pragma once

#include "hw/Host.h"

#include <optional>

namespace isam::backend {

// fp32 multiply-adds per second of one core on `vectorBytes`-wide vectors, as GFLOP/s (two
// operations per multiply-add), timed on a JIT-compiled loop of independent chains (LLVM IR,
// compiled for the host CPU). Empty if the loop cannot be compiled. Measured once per process
// and width. An hw::FmaMeter.
std::optional<double> measureFmaGflops(const hw::HostCpu &cpu, unsigned vectorBytes);

} // namespace isam::backend
