#include "ir/Canonicalize.h"

#include "ir/ElementBytes.h"

#include <cmath>

namespace isam::ir {

namespace {

// The exponents of the normal numbers of a floating-point type: [min, max] of 2^e.
std::pair<int, int> normalExponents(ElemType t) {
  switch (t) {
  case ElemType::F16:
    return {-14, 15};
  case ElemType::F64:
    return {-1022, 1023};
  default: // bf16 shares f32's exponent range
    return {-126, 127};
  }
}

// v rounded to nearest even in type t.
double roundToType(ElemType t, double v) {
  switch (t) {
  case ElemType::F16:
    return double(halfValue(halfBits(float(v))));
  case ElemType::BF16:
    return double(bf16Value(bf16Bits(float(v))));
  case ElemType::F32:
    return double(float(v));
  default:
    return v;
  }
}

bool isNormal(double v, ElemType t) {
  if (!std::isfinite(v) || v == 0)
    return false;
  int e = std::ilogb(v);
  auto [lo, hi] = normalExponents(t);
  return e >= lo && e <= hi;
}

int rewrite(Expr &e, const CanonicalOptions &options) {
  int count = 0;
  for (auto &a : e.args)
    count += rewrite(a, options);
  if (e.kind != Expr::Kind::Div || !isFloat(e.type) || e.args.size() != 2 ||
      e.args[1].kind != Expr::Kind::Const)
    return count;
  auto r = divisorReciprocal(e.args[1].value, e.type, options);
  if (!r)
    return count;
  e.kind = Expr::Kind::Mul;
  e.args[1].value = *r;
  return count + 1;
}

} // namespace

std::optional<double> divisorReciprocal(double c, ElemType type, const CanonicalOptions &options) {
  if (!isFloat(type) || !std::isfinite(c) || c == 0)
    return std::nullopt;
  int exponent = 0;
  bool powerOfTwo = std::fabs(std::frexp(c, &exponent)) == 0.5;
  double r = 1 / c;
  if (powerOfTwo && isNormal(r, type))
    return r;
  if (!options.reciprocalMath)
    return std::nullopt;
  double rounded = roundToType(type, r);
  if (!isNormal(rounded, type))
    return std::nullopt;
  return rounded;
}

int canonicalize(Statement &s, const CanonicalOptions &options) {
  return rewrite(s.rhs, options);
}

int canonicalize(Kernel &k, const CanonicalOptions &options) {
  int count = 0;
  for (auto &s : k.statements)
    count += canonicalize(s, options);
  return count;
}

} // namespace isam::ir
