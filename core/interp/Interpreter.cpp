#include "interp/Interpreter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>

namespace isam::interp {

namespace {

float toBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f))
    return f;
  bits += 0x7FFF + ((bits >> 16) & 1); // round to nearest even
  bits &= 0xFFFF0000u;
  std::memcpy(&f, &bits, 4);
  return f;
}

double toF16(double v) {
  if (std::isnan(v) || std::isinf(v))
    return v;
  double a = std::fabs(v);
  if (a >= 65520.0)
    return std::copysign(INFINITY, v);
  // Quantum: 2^(e-10) for normals (e >= -14), 2^-24 for subnormals.
  int e = a > 0 ? std::ilogb(a) : -24;
  double quantum = std::ldexp(1.0, std::max(e, -14) - 10);
  return std::nearbyint(v / quantum) * quantum;
}

} // namespace

int64_t flatIndex(const ir::Tensor &t, const ir::Access &a, const std::vector<int64_t> &point) {
  int64_t flat = 0;
  for (size_t d = 0; d < a.indices.size(); ++d)
    flat = flat * t.shape[d] + ir::valueAt(a.indices[d], point);
  return flat;
}

double readAt(const ir::Kernel &k, const Buffers &b, const ir::Access &a,
              const std::vector<int64_t> &point) {
  const ir::Tensor &t = k.tensors[size_t(a.tensor)];
  if (!a.pad)
    return b[size_t(a.tensor)][size_t(flatIndex(t, a, point))];
  int64_t flat = 0;
  auto gather = a.gathers.begin();
  for (size_t d = 0; d < a.indices.size(); ++d) {
    int64_t v = 0;
    if (gather != a.gathers.end() && gather->dim == d) {
      const ir::Tensor &it = k.tensors[size_t(gather->tensor)];
      ir::Access index{gather->tensor, gather->indices, std::nullopt, {}};
      v = int64_t(b[size_t(gather->tensor)][size_t(flatIndex(it, index, point))]);
      ++gather;
    } else {
      v = ir::valueAt(a.indices[d], point);
    }
    if (v < 0 || v >= t.shape[d])
      return roundTo(t.type, *a.pad);
    flat = flat * t.shape[d] + v;
  }
  return b[size_t(a.tensor)][size_t(flat)];
}

double integerArith(ir::Expr::Kind kind, ir::ElemType type, double a, double b) {
  int64_t x = int64_t(a), y = int64_t(b), r = 0;
  switch (kind) {
  case ir::Expr::Kind::Neg:
    r = -x;
    break;
  case ir::Expr::Kind::Add:
    r = x + y;
    break;
  case ir::Expr::Kind::Sub:
    r = x - y;
    break;
  case ir::Expr::Kind::Mul:
    r = int64_t(uint64_t(x) * uint64_t(y)); // both under 2^31 in magnitude: exact
    break;
  case ir::Expr::Kind::Div:
    r = y == 0 ? 0 : x / y;
    break;
  default:
    break;
  }
  return wrapTo(type, double(r));
}

double evalExpr(const ir::Expr &e, const std::function<double(const ir::Access &)> &read,
                const std::vector<int64_t> *point) {
  auto arg = [&](size_t i) { return evalExpr(e.args[i], read, point); };
  bool integer = !ir::isFloat(e.type);
  switch (e.kind) {
  case ir::Expr::Kind::Const:
    return integer ? wrapTo(e.type, std::trunc(e.value)) : e.value;
  case ir::Expr::Kind::Read:
    return read(e.access);
  case ir::Expr::Kind::Neg:
    return integer ? integerArith(e.kind, e.type, arg(0), 0) : -arg(0);
  case ir::Expr::Kind::Add:
    return integer ? integerArith(e.kind, e.type, arg(0), arg(1))
                   : roundTo(e.type, arg(0) + arg(1));
  case ir::Expr::Kind::Sub:
    return integer ? integerArith(e.kind, e.type, arg(0), arg(1))
                   : roundTo(e.type, arg(0) - arg(1));
  case ir::Expr::Kind::Mul:
    return integer ? integerArith(e.kind, e.type, arg(0), arg(1))
                   : roundTo(e.type, arg(0) * arg(1));
  case ir::Expr::Kind::Div:
    return integer ? integerArith(e.kind, e.type, arg(0), arg(1))
                   : roundTo(e.type, arg(0) / arg(1));
  case ir::Expr::Kind::Call: {
    std::vector<double> args;
    for (size_t i = 0; i < e.args.size(); ++i)
      args.push_back(arg(i));
    return applyFn(e.fn, e.type, args);
  }
  case ir::Expr::Kind::Compare:
    return ir::compare(e.cmp, arg(0), arg(1)) ? 1 : 0;
  case ir::Expr::Kind::And:
    return arg(0) != 0 && arg(1) != 0 ? 1 : 0;
  case ir::Expr::Kind::Or:
    return arg(0) != 0 || arg(1) != 0 ? 1 : 0;
  case ir::Expr::Kind::Not:
    return arg(0) != 0 ? 0 : 1;
  case ir::Expr::Kind::Select:
    return arg(0) != 0 ? arg(1) : arg(2);
  case ir::Expr::Kind::Index: {
    if (!point)
      throw std::logic_error("an index value evaluated outside its statement's points");
    double v = double(ir::indexValueAt(e, *point));
    return integer ? wrapTo(e.type, v) : roundTo(e.type, v);
  }
  }
  return 0;
}

double combine(ir::ReduceOp op, ir::ElemType type, double acc, double value) {
  switch (op) {
  case ir::ReduceOp::None:
    return roundTo(type, value);
  case ir::ReduceOp::Sum:
    return wrapTo(type, acc + value);
  case ir::ReduceOp::Max:
    return roundTo(type, std::max(acc, value));
  case ir::ReduceOp::Min:
    return roundTo(type, std::min(acc, value));
  case ir::ReduceOp::Prod:
    return ir::isFloat(type) ? roundTo(type, acc * value)
                             : integerArith(ir::Expr::Kind::Mul, type, acc, value);
  }
  return value;
}

double wrapTo(ir::ElemType type, double v) {
  if (ir::isFloat(type) || !std::isfinite(v))
    return roundTo(type, v); // an identity (+-infinity) saturates
  int bits = 8 * ir::elemTypeBytes(type);
  // Wrap through the low bits of the exact integer (|v| < 2^63 here: sums of wrapped values).
  uint64_t low = uint64_t(int64_t(v)) & ((uint64_t(1) << bits) - 1);
  int64_t r = int64_t(low);
  if (low >> (bits - 1))
    r -= int64_t(1) << bits;
  return double(r);
}

double roundTo(ir::ElemType type, double v) {
  switch (type) {
  case ir::ElemType::F64:
    return v;
  case ir::ElemType::F32:
    return double(float(v));
  case ir::ElemType::BF16:
    return double(toBf16(float(v)));
  case ir::ElemType::F16:
    return toF16(v);
  case ir::ElemType::I32:
    if (std::isnan(v))
      return 0;
    return double(int32_t(std::clamp(std::trunc(v), -2147483648.0, 2147483647.0)));
  case ir::ElemType::I8:
    if (std::isnan(v))
      return 0;
    return double(int8_t(std::clamp(std::trunc(v), -128.0, 127.0)));
  }
  return v;
}

namespace {
// Ties to even whatever the floating-point environment's rounding mode.
double roundHalfEven(double x) {
  double r = std::round(x); // ties away from zero
  if (std::fabs(r - x) == 0.5)
    r = 2 * std::round(x / 2);
  return r;
}
} // namespace

double applyFn(ir::Fn fn, ir::ElemType type, const std::vector<double> &a) {
  double r = 0;
  switch (fn) {
  case ir::Fn::Exp:
    r = std::exp(a[0]);
    break;
  case ir::Fn::Tanh:
    r = std::tanh(a[0]);
    break;
  case ir::Fn::Sigmoid:
    r = 1.0 / (1.0 + std::exp(-a[0]));
    break;
  case ir::Fn::Relu:
    r = a[0] > 0 ? a[0] : 0;
    break;
  case ir::Fn::Max:
    r = std::max(a[0], a[1]);
    break;
  case ir::Fn::Min:
    r = std::min(a[0], a[1]);
    break;
  case ir::Fn::Sqrt:
    r = std::sqrt(a[0]);
    break;
  case ir::Fn::Log:
    r = std::log(a[0]);
    break;
  case ir::Fn::Abs:
    if (!ir::isFloat(type)) // integer negation: |MIN| wraps to MIN
      return wrapTo(type, std::fabs(a[0]));
    r = std::fabs(a[0]);
    break;
  case ir::Fn::Cast:
    r = a[0];
    break;
  case ir::Fn::Rsqrt:
    r = 1.0 / std::sqrt(a[0]);
    break;
  case ir::Fn::Erf:
    r = std::erf(a[0]);
    break;
  case ir::Fn::Pow:
    r = std::pow(a[0], a[1]);
    break;
  case ir::Fn::Sin:
    r = std::sin(a[0]);
    break;
  case ir::Fn::Cos:
    r = std::cos(a[0]);
    break;
  case ir::Fn::Exp2:
    r = std::exp2(a[0]);
    break;
  case ir::Fn::Log2:
    r = std::log2(a[0]);
    break;
  case ir::Fn::Floor:
    r = std::floor(a[0]);
    break;
  case ir::Fn::Round:
    r = roundHalfEven(a[0]);
    break;
  }
  return roundTo(type, r);
}

Buffers randomInputs(const ir::Kernel &kernel, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Buffers b;
  for (const auto &t : kernel.tensors) {
    std::vector<double> v(size_t(t.elementCount()), 0.0);
    if (t.role == ir::TensorRole::Input) {
      for (auto &x : v) {
        double u = double(rng() >> 11) * 0x1.0p-53; // [0, 1)
        x = ir::isFloat(t.type) ? roundTo(t.type, 2 * u - 1) : std::floor(16 * u) - 8;
      }
    }
    b.push_back(std::move(v));
  }
  return b;
}

void run(const ir::Kernel &k, Buffers &b) {
  for (size_t t = 0; t < k.tensors.size(); ++t)
    if (ir::startsZeroed(k, int(t)))
      std::fill(b[t].begin(), b[t].end(), 0.0);
  for (size_t s = 0; s < k.statements.size(); ++s)
    runStatement(k, s, b);
}

void runStatement(const ir::Kernel &k, size_t index, Buffers &b) {
  const ir::Statement &s = k.statements[index];
  const ir::Tensor &out = k.tensors[s.lhs.tensor];
  bool integer = !ir::isFloat(out.type);
  std::vector<double> &dst = b[s.lhs.tensor];
  size_t nWrite = 0;
  while (nWrite < s.indices.size() && !s.indices[nWrite].reduction)
    ++nWrite;
  std::vector<int64_t> point(s.indices.size(), 0);
  auto reader = [&](const ir::Access &a) { return readAt(k, b, a, point); };
  // Iterate the write indices; for each, the reduction indices innermost.
  std::function<void(size_t)> spatial = [&](size_t d) {
    if (d < nWrite) {
      for (point[d] = 0; point[d] < s.indices[d].extent; ++point[d])
        spatial(d + 1);
      return;
    }
    int64_t at = flatIndex(out, s.lhs, point);
    double acc = s.accumulates ? dst[at] : ir::reduceIdentity(s.reduce);
    if (s.reduce == ir::ReduceOp::None) {
      if (s.computes(point))
        dst[at] = roundTo(out.type, evalExpr(s.rhs, reader, &point));
      return;
    }
    std::function<void(size_t)> reduce = [&](size_t r) {
      if (r < s.indices.size()) {
        for (point[r] = 0; point[r] < s.indices[r].extent; ++point[r])
          reduce(r + 1);
        return;
      }
      if (!s.computes(point))
        return;
      double v = evalExpr(s.rhs, reader, &point);
      // Floats sum and multiply in double and round once; integers wrap at every step, which
      // keeps the result exact and gives the one result every order of reduction gives.
      switch (s.reduce) {
      case ir::ReduceOp::Sum:
        acc = integer ? wrapTo(out.type, acc + v) : acc + v;
        break;
      case ir::ReduceOp::Prod:
        acc = integer ? integerArith(ir::Expr::Kind::Mul, out.type, acc, v) : acc * v;
        break;
      case ir::ReduceOp::Max:
        acc = std::max(acc, v);
        break;
      case ir::ReduceOp::Min:
        acc = std::min(acc, v);
        break;
      case ir::ReduceOp::None:
        break;
      }
    };
    reduce(nWrite);
    dst[at] = roundTo(out.type, acc);
  };
  spatial(0);
}

Comparison compareOutputs(const ir::Kernel &kernel, const Buffers &reference,
                          const Buffers &actual) {
  Comparison c;
  for (size_t t = 0; t < kernel.tensors.size(); ++t) {
    if (kernel.tensors[t].role != ir::TensorRole::Output)
      continue;
    for (size_t i = 0; i < reference[t].size(); ++i) {
      double r = reference[t][i], a = actual[t][i];
      // Equal values (infinities of the same sign, NaN against NaN) agree; any other pair with
      // a non-finite side is an infinite error, so it can never pass a tolerance.
      double abs;
      if ((std::isnan(r) && std::isnan(a)) || r == a)
        abs = 0;
      else if (!std::isfinite(r) || !std::isfinite(a))
        abs = INFINITY;
      else
        abs = std::fabs(r - a);
      double rel = std::isinf(abs) ? INFINITY : abs / std::max(std::fabs(r), 1.0);
      if (rel > c.maxRelError || (abs > c.maxAbsError && c.maxRelError == 0)) {
        c.worstIndex = i;
        c.worstTensor = kernel.tensors[t].name;
      }
      c.maxAbsError = std::max(c.maxAbsError, abs);
      c.maxRelError = std::max(c.maxRelError, rel);
    }
  }
  return c;
}

double tolerance(const ir::Kernel &kernel) {
  double eps = 1e-6;
  int64_t longest = 1;
  for (const auto &t : kernel.tensors) {
    if (t.type == ir::ElemType::F16 || t.type == ir::ElemType::BF16)
      eps = std::max(eps, t.type == ir::ElemType::F16 ? 1e-3 : 8e-3);
  }
  for (const auto &s : kernel.statements) {
    int64_t r = 1;
    for (const auto &i : s.indices)
      if (i.reduction)
        r *= i.extent;
    longest = std::max(longest, r);
  }
  // Rounding error of a length-n sum grows like sqrt(n) in practice; allow a margin over it.
  return 4 * eps * std::sqrt(double(longest)) * double(kernel.statements.size());
}

} // namespace isam::interp
