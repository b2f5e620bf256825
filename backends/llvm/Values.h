// Element values in generated code: how each element type is stored and computed on, loads and
// stores of one element or of a run of lanes (contiguous, strided, broadcast, masked), and the
// evaluation of compute-IR expressions, lane-wise.
//
// Arithmetic runs in a compute type per element type: float for f32, f16 and bf16 (rounded to
// the storage type when stored, as the reference interpreter rounds every stored element),
// double for f64, and the integer types themselves: integer arithmetic wraps (two's
// complement), so sums agree with the interpreter's in any order. Conversions to an integer
// type truncate toward zero and saturate. Functions follow the interpreter's definitions,
// including its NaN behaviour for max, min and relu and its integer division (x / 0 is 0);
// comparisons are C's (false with a NaN, except !=) and a condition is an i1 per lane;
// exp, log, tanh and sigmoid are vector code (VectorMath.h), within a few ulp of the C library;
// sin, cos, exp2, log2, pow, floor and round are LLVM's intrinsics (instructions or C library
// calls, by target), erf the C library's, rsqrt 1 / sqrt(x).
#pragma once

#include "ir/Compute.h"

#include <llvm/IR/IRBuilder.h>

#include <functional>

namespace isam::backend {

class Values {
public:
  Values(llvm::IRBuilder<> &b, llvm::Module &m) : b_(b), m_(m) {}

  llvm::Type *storageType(ir::ElemType t) const;
  llvm::Type *computeType(ir::ElemType t) const;
  // The compute type, as a vector when lanes > 1.
  llvm::Type *computeType(ir::ElemType t, unsigned lanes) const;

  // Loads `lanes` elements starting at `ptr`, `stride` elements apart (0: one element broadcast
  // to every lane), of which the first `active` are real; the others read as zero and touch no
  // memory.
  llvm::Value *load(llvm::Value *ptr, ir::ElemType t, unsigned lanes, int64_t stride,
                    unsigned active);
  // Stores the first `active` lanes of `value`.
  void store(llvm::Value *value, llvm::Value *ptr, ir::ElemType t, unsigned lanes, int64_t stride,
             unsigned active);

  // A constant (or splat) in the compute type of t.
  llvm::Value *constant(double v, ir::ElemType t, unsigned lanes);
  // The transpose of a square matrix held as rows: rows.size() vectors of as many lanes, a power
  // of two; result[j] lane i is rows[i] lane j. log2(n) rounds of two-input shuffles, each
  // swapping the off-diagonal blocks of a pair of rows.
  std::vector<llvm::Value *> transpose(std::vector<llvm::Value *> rows);
  // A value converted between compute types (same lane count).
  llvm::Value *convert(llvm::Value *v, ir::ElemType from, ir::ElemType to);

  // Evaluates an expression on `lanes` lanes, reading accesses through `read`, which returns
  // values in the compute type of the tensor read, with `lanes` lanes.
  // Index values come from `index`, which returns an affine function's i64 value at the point
  // computed: only a statement's own evaluation, one lane at a time, has them.
  using Reader = std::function<llvm::Value *(const ir::Access &, ir::ElemType)>;
  using IndexReader = std::function<llvm::Value *(const ir::Affine &)>;
  llvm::Value *eval(const ir::Expr &e, unsigned lanes, const Reader &read,
                    const IndexReader &index = {});

  // One reduction step, `acc (op)= value`, with the interpreter's max and min; and a * b + acc
  // as one fused multiply-add where the target has one.
  llvm::Value *combine(ir::ReduceOp op, llvm::Value *acc, llvm::Value *value);
  llvm::Value *fma(llvm::Value *a, llvm::Value *b, llvm::Value *acc);
  // `a c b` as C compares (signed integers; ordered floats except `!=`): an i1 or i1 vector.
  llvm::Value *compare(ir::Cmp c, llvm::Value *a, llvm::Value *b);

private:
  llvm::Value *fromStorage(llvm::Value *v, ir::ElemType t);
  llvm::Value *toStorage(llvm::Value *v, ir::ElemType t);
  llvm::Value *call(ir::Fn fn, ir::ElemType t, std::vector<llvm::Value *> args, unsigned lanes);
  llvm::Value *integerCall(ir::Fn fn, ir::ElemType t, std::vector<llvm::Value *> args,
                           unsigned lanes);
  // A C library function of one argument (NAME for double, NAMEf for float), lane by lane: for
  // a function with no LLVM intrinsic (erf).
  llvm::Value *libraryCall(const char *name, llvm::Value *x);
  llvm::Value *integerDiv(llvm::Value *n, llvm::Value *d, ir::ElemType t, unsigned lanes);
  // An integer value as a double, and a double converted to integer type t (saturating).
  llvm::Value *toReal(llvm::Value *v);
  llvm::Value *fromReal(llvm::Value *v, ir::ElemType t);
  llvm::Value *roundTo(llvm::Value *v, ir::ElemType t);
  llvm::Constant *mask(unsigned lanes, unsigned active);
  // A vector of the lanes' element pointers, `stride` elements apart.
  llvm::Value *lanePointers(llvm::Value *ptr, llvm::Type *elem, unsigned lanes, int64_t stride);

  llvm::IRBuilder<> &b_;
  llvm::Module &m_;
};

} // namespace isam::backend
