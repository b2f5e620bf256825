// The row interpreter: the reference interpreter's arithmetic, a row of points at a time.
//
// interp::run visits one point at a time and pays a tree walk, an std::function call and a
// bounds computation per read at every point (~60 MFLOP/s). runRows evaluates each statement
// over a row of up to kRowLength points that differ in one index (the lane index) with one
// tight loop per expression node, and splits the rows between threads. It computes exactly
// what interp::run computes, bit for bit:
// - every value goes through the same rounding (roundTo, wrapTo, applyFn, integerArith) as the
//   point interpreter's;
// - the lane index is a written index, so each element has its own accumulator and sees its
//   reduction points in the same order; or, when no written index is long enough, it is the
//   innermost reduction index, accumulated lane after lane in order;
// - a statement that reads the tensor it writes at another element than the one it writes
//   (where the order of points is visible) runs point by point through interp::runStatement.
// It shares no code with mapping, scheduling or code generation, so --check can use it at
// real sizes; RowInterpreterTest compares it with interp::run on every shipped instance small
// enough for the point interpreter.
#pragma once

#include "interp/Interpreter.h"

#include <functional>

namespace isam::interp {

// Lanes per row: long enough to amortise a node's dispatch, short enough that a row of every
// node of a statement stays in the L2 cache.
constexpr int64_t kRowLength = 1024;

// Called now and then from the calling thread with the fraction of the kernel's points done.
using RowProgress = std::function<void(double fraction)>;

// Runs the kernel as interp::run does, on up to `threads` threads (0: one per hardware thread).
void runRows(const ir::Kernel &kernel, Buffers &buffers, unsigned threads = 0,
             const RowProgress &progress = {});

// Which interpreter a reference run uses: the row interpreter, or the point interpreter (the
// oracle of record, ~50x slower), for a user who doubts the first.
enum class Reference { Rows, Points };

// Runs the kernel on the chosen interpreter (threads and progress: the row interpreter's; the
// point interpreter reports only that it is done).
void runReference(const ir::Kernel &kernel, Buffers &buffers, Reference reference,
                  unsigned threads = 0, const RowProgress &progress = {});

} // namespace isam::interp
