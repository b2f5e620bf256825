// The reference interpreter: runs a kernel instance of the compute IR directly, statement by
// statement, point by point, in the most obvious way. It is the oracle every backend, schedule
// and simulator is checked against, so it favours clarity over speed: values are held as
// doubles, each stored element is rounded to its tensor's type, and float reductions
// accumulate in double before the final rounding; integer arithmetic wraps at every step
// (wrapTo), which every executor reproduces exactly whatever its order of summation.
#pragma once

#include "ir/Compute.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace isam::interp {

// One buffer per tensor of the kernel, dense row-major, in Kernel::tensors order.
using Buffers = std::vector<std::vector<double>>;

// Buffers with seeded random inputs in [-1, 1) (integers in [-8, 8)) and zeroed outputs/locals.
Buffers randomInputs(const ir::Kernel &kernel, uint64_t seed);

// Runs the kernel; inputs are read, outputs and locals overwritten. A tensor whose first
// writer leaves elements unwritten (ir::startsZeroed) is cleared to zeros first, whatever the
// buffer held.
void run(const ir::Kernel &kernel, Buffers &buffers);

// Runs statement s of the kernel alone, as run() does in its turn (no clearing).
void runStatement(const ir::Kernel &kernel, size_t s, Buffers &buffers);

// Evaluates an expression, reading each access through `read` (shared with the other executors
// so that arithmetic and rounding agree everywhere). Index values take their values from
// `point`, the statement's point; without one, an index value throws std::logic_error.
double evalExpr(const ir::Expr &e, const std::function<double(const ir::Access &)> &read,
                const std::vector<int64_t> *point = nullptr);

// One accumulation step in the element type (the starting value is ir::reduceIdentity).
double combine(ir::ReduceOp op, ir::ElemType type, double acc, double value);

// Row-major offset of an access (which gathers nothing) at a point of its statement.
int64_t flatIndex(const ir::Tensor &t, const ir::Access &a, const std::vector<int64_t> &point);

// The value a read of kernel k gives at `point` of its statement: its element, or its pad
// value where an index (a gathered one included) falls outside its dimension.
double readAt(const ir::Kernel &k, const Buffers &b, const ir::Access &a,
              const std::vector<int64_t> &point);

// Converts a real value to the element type: floats round to nearest even; integers truncate
// toward zero and saturate to the type's range (NaN gives 0). Conversions, functions and stores
// of real values use it.
double roundTo(ir::ElemType type, double v);

// The result of integer arithmetic (an exact integer, however large) in the element type:
// integers wrap modulo 2^bits (two's complement), so a sum gives the same result in any order
// and grouping; floats round as roundTo does.
double wrapTo(ir::ElemType type, double v);

// Integer arithmetic (Neg, Add, Sub, Mul, Div) on values already in an integer type's range,
// exact in 64 bits, then wrapped. A quotient truncates toward zero; division by zero gives 0
// (and the one overflowing quotient, MIN / -1, wraps to MIN). Neg ignores b.
double integerArith(ir::Expr::Kind kind, ir::ElemType type, double a, double b);

// Evaluates one element-wise function (shared with other executors so that all agree).
double applyFn(ir::Fn fn, ir::ElemType type, const std::vector<double> &args);

struct Comparison {
  double maxAbsError = 0;
  double maxRelError = 0; // relative to max(|reference|, 1)
  size_t worstIndex = 0;
  std::string worstTensor;
};

// Compares the outputs of two runs of the same kernel.
Comparison compareOutputs(const ir::Kernel &kernel, const Buffers &reference,
                          const Buffers &actual);

// A tolerance for comparing against the reference: grows with the reduction length and the
// element type's precision.
double tolerance(const ir::Kernel &kernel);

} // namespace isam::interp
