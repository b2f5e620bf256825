// Canonical forms of the compute IR: rewrites that every consumer (the reference interpreter,
// dump-ir, the mapper, every executor) sees, because they are applied to the IR itself rather
// than inside one stage. Sema applies the exact ones to every statement it lowers (kernels and
// instruction semantics alike, so that both unify in one form); the driver applies the inexact
// ones to a kernel's statements only when the session asks for them
// (SessionOptions::reciprocalMath).
//
// Division by a constant. A floating-point `x / c` becomes `x * (1/c)` when that changes no
// result: c is a power of two whose reciprocal is a normal number of the expression's type
// (then 1/c is exact and x * (1/c) rounds the same exact value x / c does, overflow and
// subnormal results included). Under reciprocal math any finite non-zero c is rewritten, with
// 1/c rounded to the expression's type in the IR's constant, so every executor multiplies by the
// same number; a reciprocal that overflows or underflows the type is left alone. Integer
// division is never changed.
#pragma once

#include "ir/Compute.h"

namespace isam::ir {

struct CanonicalOptions {
  // Also rewrite divisions whose reciprocal is inexact (x / 3 to x * 0.33333334f).
  bool reciprocalMath = false;
};

// The reciprocal `x / c` may be multiplied by under `options`, or nullopt.
std::optional<double> divisorReciprocal(double c, ElemType type, const CanonicalOptions &options);

// Rewrites the statement's expression in place; returns how many divisions it rewrote.
int canonicalize(Statement &s, const CanonicalOptions &options = {});
int canonicalize(Kernel &k, const CanonicalOptions &options = {});

} // namespace isam::ir
