// The reference interpreter's buffers (doubles) as the arrays generated code takes (each
// tensor's storage type), and back: how `isamap run`, the tests and the benchmarks feed a
// compiled kernel the interpreter's inputs and compare what it wrote.
#pragma once

#include "interp/Interpreter.h"

#include <cstdint>
#include <vector>

namespace isam::backend {

struct NativeBuffers {
  std::vector<std::vector<unsigned char>> storage; // per kernel tensor (locals: empty)
  std::vector<void *> args;                        // the kernel's arguments, in ABI order
};

NativeBuffers toNative(const ir::Kernel &kernel, const interp::Buffers &buffers);
// Reads back every output into `buffers`.
void fromNative(const ir::Kernel &kernel, const NativeBuffers &native, interp::Buffers &buffers);

} // namespace isam::backend
