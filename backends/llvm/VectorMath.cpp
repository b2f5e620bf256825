#include "backends/llvm/VectorMath.h"

#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <limits>

namespace isam::backend::vecmath {

using llvm::Value;

namespace {

// What the functions need to know about a floating-point format: its layout, its reduction
// constants and its polynomials (lowest degree first; scripts/vecmath_coefficients.py).
struct Format {
  unsigned bits;     // of the whole value
  unsigned mantissa; // explicit mantissa bits
  int64_t bias;
  // exp: arguments are clamped to [expLo, expHi], outside which the result is 0 or +inf
  // whatever the rounding; ln 2 is split so that n * ln2Hi is exact for every n reached.
  double expLo, expHi, ln2Hi, ln2Lo;
  // log: subnormals are scaled by 2^subnormalShift first.
  int subnormalShift;
  uint64_t sqrtHalfBits; // the bits of sqrt(1/2), where the reduced mantissa range starts
  // tanh: its odd polynomial below tanhSmall, 1 - 2 / (exp(2|x|) + 1) above.
  double tanhSmall;
  llvm::ArrayRef<double> expPoly, logPoly, tanhPoly;
};

// exp(r) = 1 + r + r^2 P(r) on |r| <= ln(2) / 2.
constexpr double kExpF32[] = {0x1.0p-1, 0x1.5554dep-3, 0x1.55551ap-5, 0x1.120b62p-7,
                              0x1.6d10fcp-10};
constexpr double kExpF64[] = {0x1.0p-1,
                              0x1.5555555555557p-3,
                              0x1.5555555555556p-5,
                              0x1.11111111100dfp-7,
                              0x1.6c16c16c162d6p-10,
                              0x1.a01a01abe62ddp-13,
                              0x1.a01a01a6d7808p-16,
                              0x1.71de02375656cp-19,
                              0x1.27e4db67b4303p-22,
                              0x1.af4ddd84882fep-26,
                              0x1.1f72fc730b4ffp-29};
// log((1 + s) / (1 - s)) = 2s + s^3 P(s^2) on |s| <= (sqrt(2) - 1) / (sqrt(2) + 1).
constexpr double kLogF32[] = {0x1.55555cp-1, 0x1.997c3p-2, 0x1.2ee61p-2};
constexpr double kLogF64[] = {0x1.5555555555555p-1, 0x1.9999999999a38p-2, 0x1.2492492476cccp-2,
                              0x1.c71c720159177p-3, 0x1.745cf9048dd95p-3, 0x1.3b1c355a8f7a2p-3,
                              0x1.0fbe95d716020p-3, 0x1.0c039c49989c6p-3};
// tanh(x) = x + x^3 P(x^2) on |x| <= 0.625.
constexpr double kTanhF32[] = {-0x1.555556p-2, 0x1.1110eap-3,  -0x1.ba08c4p-5,
                               0x1.64a976p-6,  -0x1.116a16p-7, 0x1.2c83cp-9};
constexpr double kTanhF64[] = {
    -0x1.5555555555555p-2,  0x1.11111111110a8p-3,  -0x1.ba1ba1ba0f126p-5,  0x1.664f487e0a749p-6,
    -0x1.226e3473dce5cp-7,  0x1.d6d39ae3905e2p-9,  -0x1.7d9f6f23e8682p-10, 0x1.3526e9ed54da1p-11,
    -0x1.f243823c8c981p-13, 0x1.8445870f6fe41p-14, -0x1.05bbdae896297p-15, 0x1.b33642a122cddp-18};

const Format kF32 = {.bits = 32,
                     .mantissa = 23,
                     .bias = 127,
                     .expLo = -104.0, // below ln(2^-150): rounds to 0
                     .expHi = 88.8,   // above ln(FLT_MAX) = 88.72
                     .ln2Hi = 0x1.62e4p-1,
                     .ln2Lo = 0x1.7f7d1cp-20,
                     .subnormalShift = 25,
                     .sqrtHalfBits = 0x3f3504f3,
                     .tanhSmall = 0.625,
                     .expPoly = kExpF32,
                     .logPoly = kLogF32,
                     .tanhPoly = kTanhF32};
const Format kF64 = {.bits = 64,
                     .mantissa = 52,
                     .bias = 1023,
                     .expLo = -746.0, // below ln(2^-1075)
                     .expHi = 710.0,  // above ln(DBL_MAX) = 709.78
                     .ln2Hi = 0x1.62e42feep-1,
                     .ln2Lo = 0x1.a39ef35793c76p-33,
                     .subnormalShift = 54,
                     .sqrtHalfBits = 0x3fe6a09e667f3bcdULL,
                     .tanhSmall = 0.625,
                     .expPoly = kExpF64,
                     .logPoly = kLogF64,
                     .tanhPoly = kTanhF64};

// The emitters of one type (float or double, scalar or vector) and their shared helpers.
class Emitter {
public:
  Emitter(llvm::IRBuilder<> &b, llvm::Type *type)
      : b_(b), type_(type), f_(type->getScalarType()->isDoubleTy() ? kF64 : kF32) {
    intType_ = b.getIntNTy(f_.bits);
    if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(type))
      intType_ = llvm::FixedVectorType::get(intType_, vt->getNumElements());
  }

  Value *exp(Value *x) {
    // x = n ln 2 + r with n = round(x / ln 2), |r| <= ln(2) / 2; exp(x) = 2^n exp(r). Clamping
    // first keeps n small enough for the scaling and lets a NaN through (it compares false).
    x = b_.CreateSelect(b_.CreateFCmpOLT(x, c(f_.expLo)), c(f_.expLo), x);
    x = b_.CreateSelect(b_.CreateFCmpOGT(x, c(f_.expHi)), c(f_.expHi), x);
    auto [n, k] = roundToInteger(b_.CreateFMul(x, c(1 / std::log(2.0))));
    Value *r = b_.CreateFSub(x, b_.CreateFMul(n, c(f_.ln2Hi))); // exact
    r = b_.CreateFSub(r, b_.CreateFMul(n, c(f_.ln2Lo)));
    Value *p = b_.CreateFAdd(c(1), fma(b_.CreateFMul(r, r), horner(r, f_.expPoly), r));
    return scaleByPowerOfTwo(p, k);
  }

  Value *log(Value *x) {
    // x = 2^k m with m in [sqrt(1/2), sqrt(2)); log(x) = k ln 2 + log(1 + f), f = m - 1,
    // s = f / (2 + f), log(1 + f) = 2s + s^3 P(s^2), evaluated as
    // f - (f^2/2 - s (f^2/2 + s^2 P(s^2))) so that the exact f carries most of it.
    Value *subnormal = b_.CreateFCmpOLT(x, c(std::ldexp(1.0, int(1 - f_.bias))));
    Value *scaled =
        b_.CreateSelect(subnormal, b_.CreateFMul(x, c(std::ldexp(1.0, f_.subnormalShift))), x);
    Value *bits = b_.CreateAdd(b_.CreateBitCast(scaled, intType_), ci(one() - f_.sqrtHalfBits));
    Value *k = b_.CreateSub(b_.CreateAShr(bits, ci(f_.mantissa)), ci(f_.bias));
    k = b_.CreateSub(k, b_.CreateSelect(subnormal, ci(f_.subnormalShift), ci(0)));
    Value *m = b_.CreateBitCast(
        b_.CreateAdd(b_.CreateAnd(bits, ci((uint64_t(1) << f_.mantissa) - 1)), ci(f_.sqrtHalfBits)),
        type_);
    Value *f = b_.CreateFSub(m, c(1));
    Value *s = b_.CreateFDiv(f, b_.CreateFAdd(c(2), f));
    Value *z = b_.CreateFMul(s, s);
    Value *halfSquare = b_.CreateFMul(c(0.5), b_.CreateFMul(f, f));
    Value *tail = fma(s, b_.CreateFAdd(halfSquare, b_.CreateFMul(z, horner(z, f_.logPoly))),
                      b_.CreateFNeg(halfSquare));
    Value *kf = toFloat(k);
    Value *result = fma(kf, c(f_.ln2Hi), b_.CreateFAdd(f, fma(kf, c(f_.ln2Lo), tail)));
    // log(+inf) = +inf, log(+-0) = -inf, log(x < 0) = log(NaN) = NaN.
    const double inf = std::numeric_limits<double>::infinity();
    result = b_.CreateSelect(b_.CreateFCmpOEQ(x, c(inf)), x, result);
    result = b_.CreateSelect(b_.CreateFCmpOEQ(x, c(0)), c(-inf), result);
    return b_.CreateSelect(b_.CreateFCmpULT(x, c(0)), c(std::numeric_limits<double>::quiet_NaN()),
                           result);
  }

  Value *tanh(Value *x) {
    // On |x|: its polynomial when small, else 1 - 2 / (exp(2|x|) + 1), which reaches 1 (and
    // stays there, exp overflowing to +inf) where tanh rounds to 1. Then x's sign, -0's too.
    Value *a = abs(x);
    Value *z = b_.CreateFMul(a, a);
    Value *small = fma(b_.CreateFMul(a, z), horner(z, f_.tanhPoly), a);
    Value *e = exp(b_.CreateFAdd(a, a));
    Value *large = b_.CreateFSub(c(1), b_.CreateFDiv(c(2), b_.CreateFAdd(e, c(1))));
    Value *t = b_.CreateSelect(b_.CreateFCmpOLT(a, c(f_.tanhSmall)), small, large);
    return copySign(t, x);
  }

  Value *sigmoid(Value *x) {
    // With e = exp(-|x|) in (0, 1], never overflowing: 1 / (1 + e) for x >= 0, e / (1 + e)
    // below, which keeps its relative accuracy down to the subnormals.
    Value *e = exp(b_.CreateFNeg(abs(x)));
    Value *numerator = b_.CreateSelect(b_.CreateFCmpOLT(x, c(0)), e, c(1));
    return b_.CreateFDiv(numerator, b_.CreateFAdd(c(1), e));
  }

private:
  Value *c(double v) { return llvm::ConstantFP::get(type_, v); }
  Value *ci(uint64_t v) { return llvm::ConstantInt::get(intType_, v); }
  uint64_t one() const { return uint64_t(f_.bias) << f_.mantissa; } // the bits of 1.0

  Value *fma(Value *a, Value *b, Value *addend) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {type_}, {a, b, addend});
  }

  // p[0] + z p[1] + z^2 p[2] + ...
  Value *horner(Value *z, llvm::ArrayRef<double> p) {
    Value *acc = c(p.back());
    for (size_t i = p.size() - 1; i-- > 0;)
      acc = fma(acc, z, c(p[i]));
    return acc;
  }

  // v rounded to the nearest integer (ties to even), as a float and as an integer, for
  // |v| < 2^(mantissa - 1): adding 1.5 * 2^mantissa leaves the integer in the low bits.
  std::pair<Value *, Value *> roundToInteger(Value *v) {
    double shifter = 1.5 * std::ldexp(1.0, int(f_.mantissa));
    Value *t = b_.CreateFAdd(v, c(shifter));
    Value *n = b_.CreateFSub(t, c(shifter));
    Value *k = b_.CreateSub(b_.CreateBitCast(t, intType_), b_.CreateBitCast(c(shifter), intType_));
    return {n, k};
  }

  // 2^k for k in the normal exponent range.
  Value *powerOfTwo(Value *k) {
    return b_.CreateBitCast(b_.CreateShl(b_.CreateAdd(k, ci(uint64_t(f_.bias))), ci(f_.mantissa)),
                            type_);
  }

  // p 2^k in two steps, each factor normal, so that results in the subnormal range round once
  // and results past the largest finite one overflow to +inf.
  Value *scaleByPowerOfTwo(Value *p, Value *k) {
    Value *half = b_.CreateAShr(k, ci(1));
    return b_.CreateFMul(b_.CreateFMul(p, powerOfTwo(half)), powerOfTwo(b_.CreateSub(k, half)));
  }

  Value *toFloat(Value *k) {
    if (f_.bits == 64) // small: a 32-bit conversion is cheaper on most targets
      k = b_.CreateTrunc(k, retype(b_.getInt32Ty()));
    return b_.CreateSIToFP(k, type_);
  }

  llvm::Type *retype(llvm::Type *scalar) {
    if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(type_))
      return llvm::FixedVectorType::get(scalar, vt->getNumElements());
    return scalar;
  }

  Value *signBit() { return ci(uint64_t(1) << (f_.bits - 1)); }

  Value *abs(Value *x) {
    Value *bits = b_.CreateBitCast(x, intType_);
    return b_.CreateBitCast(b_.CreateAnd(bits, b_.CreateNot(signBit())), type_);
  }

  // |magnitude| with the sign of `sign` (magnitude is known non-negative or NaN).
  Value *copySign(Value *magnitude, Value *sign) {
    Value *s = b_.CreateAnd(b_.CreateBitCast(sign, intType_), signBit());
    return b_.CreateBitCast(b_.CreateOr(b_.CreateBitCast(magnitude, intType_), s), type_);
  }

  llvm::IRBuilder<> &b_;
  llvm::Type *type_;
  llvm::Type *intType_;
  const Format &f_;
};

} // namespace

Value *exp(llvm::IRBuilder<> &b, Value *x) {
  return Emitter(b, x->getType()).exp(x);
}

Value *log(llvm::IRBuilder<> &b, Value *x) {
  return Emitter(b, x->getType()).log(x);
}

Value *tanh(llvm::IRBuilder<> &b, Value *x) {
  return Emitter(b, x->getType()).tanh(x);
}

Value *sigmoid(llvm::IRBuilder<> &b, Value *x) {
  return Emitter(b, x->getType()).sigmoid(x);
}

} // namespace isam::backend::vecmath
