// Elementary functions emitted as plain LLVM IR: range reduction, a polynomial and the special
// cases as selects, for float and double scalars and fixed vectors of any lane count. The code
// calls nothing (no libm, no intrinsic that may become a library call on some target), so the
// loop vectoriser vectorises point-wise loops over it, and it compiles the same for every target
// triple.
//
// Accuracy (measured by tests/unit/VectorMathTest.cpp over dense sweeps against the C library):
// a few ulp of the correctly rounded result in the type computed, for every finite input, in
// normal and subnormal ranges. Special values follow the C library: NaN in gives NaN; exp
// overflows to +inf and underflows to 0 (through subnormals), exp(-inf) = 0; log(0) = -inf,
// log(x < 0) = NaN, log(+inf) = +inf; tanh(+-inf) = +-1 and saturates there; sigmoid(x) =
// 1 / (1 + exp(-x)) without overflow on either side; tanh keeps the sign of -0.
//
// Each function is one small method of VectorMath.cpp's Emitter over its shared helpers (Horner
// evaluation, rounding to an integer, scaling by a power of two, sign manipulation) and the
// per-format constants (Format); the polynomials' coefficients come from
// scripts/vecmath_coefficients.py. A new function is a method, a free function here, its fit
// in the script and its references and special values in tests/unit/VectorMathTest.cpp.
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace isam::backend::vecmath {

// x must be float, double, or a fixed vector of either.
llvm::Value *exp(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *log(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *tanh(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *sigmoid(llvm::IRBuilder<> &b, llvm::Value *x);

} // namespace isam::backend::vecmath
