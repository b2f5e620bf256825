// Schedule IR to the accelerator's instruction stream (see Program.h for the model).
//
// Each instruction operand's tiles are laid out in the memory the schedule stages them in as
// the instruction reads them: the operand's columns in chunks as wide as one move's row (a
// scratchpad line), rows in each chunk contiguous. A stage becomes one move per chunk (and per
// step of the loops outside the operand's rows); a staged result is written back by a plain
// copy move out of the same memory; a call becomes one instruction whose operands point into
// the innermost staged tiles. Double-buffered tiles alternate between two halves, so a fill
// can run while the other half is computed on. When the operand's layout is not the tensor's
// (a transposed operand, a convolution window), the host packs a view of it in DRAM first.
//
// Contract: emitting a valid schedule gives a program whose simulation computes what the
// reference interpreter does; a schedule the target's instructions cannot express, or buffers
// beyond a memory's capacity, raise Error with a message naming the operand and memory.
#pragma once

#include "backends/accel/Program.h"
#include "schedule/Schedule.h"

namespace isam::accel {

// Whether a target is run by this backend: it names no LLVM triple.
bool isAccelerator(const hw::Target &target);

// Throws Error when the kernel's tensors alone exceed the target's outermost memory (the check
// `emit` makes once packed views are added too), before anything of that size is allocated.
void checkTensorsFit(const ir::Kernel &kernel, const hw::Target &target);

void emit(const ir::Kernel &kernel, const hw::Target &target,
          const schedule::KernelSchedule &schedule, Sink &sink);
// The whole program at once.
Program program(const ir::Kernel &kernel, const hw::Target &target,
                const schedule::KernelSchedule &schedule);

} // namespace isam::accel
