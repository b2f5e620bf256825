#include "ir/Compute.h"

#include <algorithm>
#include <limits>
#include <sstream>

namespace isam::ir {

const char *elemTypeName(ElemType t) {
  switch (t) {
  case ElemType::F16:
    return "f16";
  case ElemType::BF16:
    return "bf16";
  case ElemType::F32:
    return "f32";
  case ElemType::F64:
    return "f64";
  case ElemType::I8:
    return "i8";
  case ElemType::I32:
    return "i32";
  }
  return "f32";
}

std::optional<ElemType> parseElemType(const std::string &name) {
  for (ElemType t :
       {ElemType::F16, ElemType::BF16, ElemType::F32, ElemType::F64, ElemType::I8, ElemType::I32})
    if (name == elemTypeName(t))
      return t;
  return std::nullopt;
}

int elemTypeBytes(ElemType t) {
  switch (t) {
  case ElemType::F16:
  case ElemType::BF16:
    return 2;
  case ElemType::F32:
  case ElemType::I32:
    return 4;
  case ElemType::F64:
    return 8;
  case ElemType::I8:
    return 1;
  }
  return 4;
}

bool isFloat(ElemType t) {
  return t != ElemType::I8 && t != ElemType::I32;
}

const char *tensorRoleName(TensorRole r) {
  switch (r) {
  case TensorRole::Input:
    return "input";
  case TensorRole::Output:
    return "output";
  case TensorRole::Local:
    return "local";
  case TensorRole::InOut:
    return "inout";
  }
  return "input";
}

int64_t Tensor::elementCount() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::vector<int64_t> Tensor::strides() const {
  std::vector<int64_t> out(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    out[d - 1] = out[d] * shape[d];
  return out;
}

int64_t Affine::coefficientOf(int index) const {
  int64_t c = 0;
  for (auto [i, coef] : terms)
    if (i == index)
      c += coef;
  return c;
}

const char *reduceOpText(ReduceOp op) {
  switch (op) {
  case ReduceOp::None:
    return "=";
  case ReduceOp::Sum:
    return "+=";
  case ReduceOp::Max:
    return "max=";
  case ReduceOp::Min:
    return "min=";
  case ReduceOp::Prod:
    return "*=";
  }
  return "=";
}

std::optional<ReduceOp> parseReduceOp(const std::string &text) {
  for (ReduceOp op : {ReduceOp::None, ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod})
    if (text == reduceOpText(op))
      return op;
  return std::nullopt;
}

double reduceIdentity(ReduceOp op) {
  switch (op) {
  case ReduceOp::Max:
    return -std::numeric_limits<double>::infinity();
  case ReduceOp::Min:
    return std::numeric_limits<double>::infinity();
  case ReduceOp::Prod:
    return 1;
  case ReduceOp::None:
  case ReduceOp::Sum:
    break;
  }
  return 0;
}

const char *reduceIdentityText(ReduceOp op) {
  switch (op) {
  case ReduceOp::Max:
    return "-inf";
  case ReduceOp::Min:
    return "+inf";
  case ReduceOp::Prod:
    return "1";
  case ReduceOp::None:
  case ReduceOp::Sum:
    break;
  }
  return "0";
}

const char *reduceOpName(ReduceOp op) {
  switch (op) {
  case ReduceOp::Max:
    return "max";
  case ReduceOp::Min:
    return "min";
  case ReduceOp::Prod:
    return "product";
  case ReduceOp::None:
  case ReduceOp::Sum:
    break;
  }
  return "sum";
}

const char *fnName(Fn f) {
  switch (f) {
  case Fn::Exp:
    return "exp";
  case Fn::Tanh:
    return "tanh";
  case Fn::Sigmoid:
    return "sigmoid";
  case Fn::Relu:
    return "relu";
  case Fn::Max:
    return "max";
  case Fn::Min:
    return "min";
  case Fn::Sqrt:
    return "sqrt";
  case Fn::Log:
    return "log";
  case Fn::Abs:
    return "abs";
  case Fn::Cast:
    return "cast";
  case Fn::Rsqrt:
    return "rsqrt";
  case Fn::Erf:
    return "erf";
  case Fn::Pow:
    return "pow";
  case Fn::Sin:
    return "sin";
  case Fn::Cos:
    return "cos";
  case Fn::Exp2:
    return "exp2";
  case Fn::Log2:
    return "log2";
  case Fn::Floor:
    return "floor";
  case Fn::Round:
    return "round";
  }
  return "?";
}

int fnArity(Fn f) {
  return f == Fn::Max || f == Fn::Min || f == Fn::Pow ? 2 : 1;
}

const char *cmpText(Cmp c) {
  switch (c) {
  case Cmp::Lt:
    return "<";
  case Cmp::Le:
    return "<=";
  case Cmp::Gt:
    return ">";
  case Cmp::Ge:
    return ">=";
  case Cmp::Eq:
    return "==";
  case Cmp::Ne:
    return "!=";
  }
  return "?";
}

bool compare(Cmp c, double a, double b) {
  switch (c) {
  case Cmp::Lt:
    return a < b;
  case Cmp::Le:
    return a <= b;
  case Cmp::Gt:
    return a > b;
  case Cmp::Ge:
    return a >= b;
  case Cmp::Eq:
    return a == b;
  case Cmp::Ne:
    return a != b;
  }
  return false;
}

bool isCondition(const Expr &e) {
  return e.kind == Expr::Kind::Compare || e.kind == Expr::Kind::And || e.kind == Expr::Kind::Or ||
         e.kind == Expr::Kind::Not;
}

bool usesIndexValue(const Expr &e) {
  return e.kind == Expr::Kind::Index ||
         std::any_of(e.args.begin(), e.args.end(), [](const Expr &a) { return usesIndexValue(a); });
}

bool usesPaddedRead(const Expr &e) {
  return (e.kind == Expr::Kind::Read && e.access.pad) ||
         std::any_of(e.args.begin(), e.args.end(), [](const Expr &a) { return usesPaddedRead(a); });
}

bool usesQuasiAffineRead(const Expr &e) {
  if (e.kind == Expr::Kind::Read)
    for (const auto &d : e.access.indices)
      if (!d.quasi.empty())
        return true;
  return std::any_of(e.args.begin(), e.args.end(),
                     [](const Expr &a) { return usesQuasiAffineRead(a); });
}

void forEachRead(Expr &e, const std::function<void(Access &)> &f) {
  if (e.kind == Expr::Kind::Read)
    f(e.access);
  for (auto &a : e.args)
    forEachRead(a, f);
}

void forEachRead(const Expr &e, const std::function<void(const Access &)> &f) {
  if (e.kind == Expr::Kind::Read)
    f(e.access);
  for (const auto &a : e.args)
    forEachRead(a, f);
}

bool usesGather(const Expr &e) {
  return (e.kind == Expr::Kind::Read && !e.access.gathers.empty()) ||
         std::any_of(e.args.begin(), e.args.end(), [](const Expr &a) { return usesGather(a); });
}

bool computedPerPoint(const Expr &e) {
  return usesIndexValue(e) || usesPaddedRead(e) || usesQuasiAffineRead(e) || usesGather(e);
}

int64_t floorDiv(int64_t a, int64_t d) {
  return a / d - ((a % d != 0) && (a < 0));
}

int64_t floorMod(int64_t a, int64_t d) {
  return a - floorDiv(a, d) * d;
}

int64_t valueAt(const Affine &a, const std::vector<int64_t> &point) {
  int64_t v = a.constant;
  for (auto [i, coef] : a.terms)
    v += coef * point.at(size_t(i));
  for (const auto &q : a.quasi) {
    int64_t inner = valueAt(q.inner, point);
    v += q.coef * (q.remainder ? floorMod(inner, q.divisor) : floorDiv(inner, q.divisor));
  }
  return v;
}

std::pair<__int128, __int128>
rangeOf(const Affine &a, const std::function<std::pair<int64_t, int64_t>(int)> &rangeOfIndex) {
  __int128 lo = a.constant, hi = a.constant;
  auto add = [&](__int128 coef, __int128 from, __int128 to) {
    __int128 x = coef * from, y = coef * to;
    lo += std::min(x, y);
    hi += std::max(x, y);
  };
  for (auto [i, coef] : a.terms) {
    auto [from, to] = rangeOfIndex(i);
    add(coef, from, to);
  }
  for (const auto &q : a.quasi) {
    auto [from, to] = rangeOf(q.inner, rangeOfIndex);
    // Inner values are sums of 2^40-bounded coefficients times extents: they fit 64 bits.
    int64_t f = int64_t(from), t = int64_t(to), d = q.divisor;
    if (!q.remainder)
      add(q.coef, floorDiv(f, d), floorDiv(t, d));
    else if (floorDiv(f, d) == floorDiv(t, d)) // within one period the remainders grow
      add(q.coef, floorMod(f, d), floorMod(t, d));
    else
      add(q.coef, 0, d - 1);
  }
  return {lo, hi};
}

std::pair<__int128, __int128> rangeOver(const Affine &a, const Statement &s) {
  return rangeOf(
      a, [&](int i) { return std::pair<int64_t, int64_t>(0, s.indices.at(size_t(i)).extent - 1); });
}

int64_t indexValueAt(const Expr &e, const std::vector<int64_t> &point) {
  return valueAt(e.access.indices.at(0), point);
}

int exprArity(const Expr &e) {
  switch (e.kind) {
  case Expr::Kind::Const:
  case Expr::Kind::Read:
  case Expr::Kind::Index:
    return 0;
  case Expr::Kind::Neg:
  case Expr::Kind::Not:
    return 1;
  case Expr::Kind::Add:
  case Expr::Kind::Sub:
  case Expr::Kind::Mul:
  case Expr::Kind::Div:
  case Expr::Kind::Compare:
  case Expr::Kind::And:
  case Expr::Kind::Or:
    return 2;
  case Expr::Kind::Select:
    return 3;
  case Expr::Kind::Call:
    return fnArity(e.fn);
  }
  return 0;
}

int64_t Statement::pointCount() const {
  int64_t n = 1;
  for (const auto &i : indices)
    n *= i.extent > 0 ? i.extent : 1;
  return n;
}

namespace {

int exprFlops(const Expr &e) {
  // A comparison, a selection and a logical operation each count one, as an arithmetic one.
  int n = e.kind == Expr::Kind::Const || e.kind == Expr::Kind::Read || e.kind == Expr::Kind::Neg ||
                  e.kind == Expr::Kind::Index || (e.kind == Expr::Kind::Call && e.fn == Fn::Cast)
              ? 0
              : 1;
  for (const auto &a : e.args)
    n += exprFlops(a);
  return n;
}

} // namespace

int Statement::flopsPerPoint() const {
  return exprFlops(rhs) + (reduce != ReduceOp::None ? 1 : 0);
}

double Kernel::flopCount() const {
  double n = 0;
  for (const auto &s : statements)
    n += double(s.computedPointCount()) * s.flopsPerPoint();
  return n;
}

int64_t Statement::computedPointCount() const {
  if (guards.empty())
    return pointCount();
  std::vector<bool> named(indices.size(), false);
  std::function<void(const Affine &)> mark = [&](const Affine &a) {
    for (auto [i, coef] : a.terms)
      named[size_t(i)] = true;
    for (const auto &q : a.quasi)
      mark(q.inner);
  };
  for (const auto &g : guards) {
    mark(g.lhs);
    mark(g.rhs);
  }
  int64_t span = 1, rest = 1;
  for (size_t i = 0; i < indices.size(); ++i)
    (named[i] ? span : rest) *= indices[i].extent;
  if (span > (int64_t(1) << 24))
    return pointCount();
  // Odometer over the named indices; the others stay 0, which no guard reads.
  std::vector<int64_t> point(indices.size(), 0);
  int64_t count = 0;
  for (int64_t n = 0; n < span; ++n) {
    count += computes(point) ? 1 : 0;
    for (size_t i = indices.size(); i-- > 0;) {
      if (!named[i])
        continue;
      if (++point[i] < indices[i].extent)
        break;
      point[i] = 0;
    }
  }
  return count * rest;
}

bool Statement::computes(const std::vector<int64_t> &point) const {
  for (const auto &g : guards)
    if (!compare(g.cmp, double(valueAt(g.lhs, point) - valueAt(g.rhs, point)), 0))
      return false;
  return true;
}

bool writesWhole(const Statement &s, const Tensor &written) {
  // A guarded reduction still starts every element it writes from its identity; a guarded
  // assignment leaves elements unwritten.
  if (s.lhs.indices.size() != written.shape.size() ||
      (!s.guards.empty() && s.reduce == ReduceOp::None))
    return false;
  for (size_t d = 0; d < s.lhs.indices.size(); ++d) {
    const Affine &a = s.lhs.indices[d];
    if (a.constant != 0 || a.terms.size() != 1 || a.terms[0].second != 1 ||
        s.indices[size_t(a.terms[0].first)].extent != written.shape[d])
      return false;
  }
  return true;
}

bool startsZeroed(const Kernel &k, int t) {
  const Tensor &tensor = k.tensors[size_t(t)];
  if (tensor.role != TensorRole::Output && tensor.role != TensorRole::Local)
    return false;
  for (const auto &s : k.statements)
    if (s.lhs.tensor == t)
      return !writesWhole(s, tensor);
  return true; // never written: all zeros
}

int Kernel::tensorIndex(const std::string &name) const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name)
      return int(i);
  return -1;
}

namespace {

std::string printAffine(const Affine &a, const Statement &s) {
  std::string out;
  for (auto [i, coef] : a.terms) {
    if (coef == 0)
      continue;
    if (!out.empty())
      out += coef < 0 ? " - " : " + ";
    else if (coef < 0)
      out += "-";
    int64_t mag = coef < 0 ? -coef : coef;
    if (mag != 1)
      out += std::to_string(mag) + "*";
    out += s.indices[i].name;
  }
  for (const auto &q : a.quasi) {
    if (q.coef == 0)
      continue;
    std::string inner = printAffine(q.inner, s);
    bool single = q.inner.terms.size() == 1 && q.inner.quasi.empty() && q.inner.constant == 0 &&
                  q.inner.terms[0].second == 1;
    std::string part = (single ? inner : "(" + inner + ")") + (q.remainder ? " % " : " / ") +
                       std::to_string(q.divisor);
    int64_t mag = q.coef < 0 ? -q.coef : q.coef;
    if (mag != 1)
      part = std::to_string(mag) + "*(" + part + ")";
    if (!out.empty())
      out += q.coef < 0 ? " - " : " + ";
    else if (q.coef < 0)
      out += "-";
    out += part;
  }
  if (a.constant != 0 || out.empty()) {
    if (out.empty())
      out = std::to_string(a.constant);

    else
      out += (a.constant < 0 ? " - " : " + ") +
             std::to_string(a.constant < 0 ? -a.constant : a.constant);
  }
  return out;
}

// The grammar's levels, loosest first.
int precedence(const Expr &e) {
  switch (e.kind) {
  case Expr::Kind::Select:
    return 0;
  case Expr::Kind::Or:
    return 1;
  case Expr::Kind::And:
    return 2;
  case Expr::Kind::Not:
    return 3;
  case Expr::Kind::Compare:
    return 4;
  case Expr::Kind::Add:
  case Expr::Kind::Sub:
    return 5;
  case Expr::Kind::Mul:
  case Expr::Kind::Div:
    return 6;
  case Expr::Kind::Neg:
    return 7;
  default:
    return 8;
  }
}

std::string formatNumber(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

} // namespace

std::string printAccess(const Access &a, const Statement &s, const std::vector<Tensor> &tensors) {
  std::string out = tensors[a.tensor].name;
  if (a.indices.empty())
    return out;
  out += "[";
  for (size_t i = 0; i < a.indices.size(); ++i) {
    out += i ? ", " : "";
    auto g = std::find_if(a.gathers.begin(), a.gathers.end(),
                          [&](const Gather &x) { return x.dim == i; });
    out += g == a.gathers.end()
               ? printAffine(a.indices[i], s)
               : printAccess(Access{g->tensor, g->indices, std::nullopt, {}}, s, tensors);
  }
  out += "]";
  if (a.pad)
    out += " pad " + formatNumber(*a.pad);
  return out;
}

std::string printExpr(const Expr &e, const Statement &s, const std::vector<Tensor> &tensors) {
  auto sub = [&](const Expr &child, bool rightSide) {
    std::string t = printExpr(child, s, tensors);
    bool paren = precedence(child) < precedence(e) ||
                 (rightSide && precedence(child) == precedence(e) &&
                  (e.kind == Expr::Kind::Sub || e.kind == Expr::Kind::Div ||
                   e.kind == Expr::Kind::Compare)) ||
                 (!rightSide && e.kind == Expr::Kind::Select && child.kind == e.kind);
    return paren ? "(" + t + ")" : t;
  };
  switch (e.kind) {
  case Expr::Kind::Const:
    return formatNumber(e.value);
  case Expr::Kind::Read:
    return printAccess(e.access, s, tensors);
  case Expr::Kind::Neg:
    return std::string(1, '-').append(sub(e.args[0], false));
  case Expr::Kind::Add:
    return sub(e.args[0], false) + " + " + sub(e.args[1], true);
  case Expr::Kind::Sub:
    return sub(e.args[0], false) + " - " + sub(e.args[1], true);
  case Expr::Kind::Mul:
    return sub(e.args[0], false) + " * " + sub(e.args[1], true);
  case Expr::Kind::Div:
    return sub(e.args[0], false) + " / " + sub(e.args[1], true);
  case Expr::Kind::Call: {
    std::string out = e.fn == Fn::Cast ? elemTypeName(e.type) : fnName(e.fn);
    out += "(";
    for (size_t i = 0; i < e.args.size(); ++i)
      out += (i ? ", " : "") + printExpr(e.args[i], s, tensors);
    return out + ")";
  }
  case Expr::Kind::Compare:
    return sub(e.args[0], false) + " " + cmpText(e.cmp) + " " + sub(e.args[1], true);
  case Expr::Kind::And:
    return sub(e.args[0], false) + " && " + sub(e.args[1], true);
  case Expr::Kind::Or:
    return sub(e.args[0], false) + " || " + sub(e.args[1], true);
  case Expr::Kind::Not:
    return "!(" + printExpr(e.args[0], s, tensors) + ")";
  case Expr::Kind::Select:
    return sub(e.args[0], false) + " ? " + printExpr(e.args[1], s, tensors) + " : " +
           sub(e.args[2], true);
  case Expr::Kind::Index: {
    const Affine &a = e.access.indices.at(0);
    std::string t = printAffine(a, s);
    return a.terms.size() + (a.constant != 0 ? 1 : 0) > 1 || !a.quasi.empty() ? "(" + t + ")" : t;
  }
  }
  return "?";
}

std::string printGuard(const Guard &g, const Statement &s) {
  return printAffine(g.lhs, s) + " " + cmpText(g.cmp) + " " + printAffine(g.rhs, s);
}

std::string printStatement(const Statement &s, const std::vector<Tensor> &tensors) {
  std::string out = printAccess(s.lhs, s, tensors) + " " + reduceOpText(s.reduce) + " " +
                    printExpr(s.rhs, s, tensors);
  const char *suffix =
      s.reduce != ReduceOp::None && s.accumulates ? "    (onto its current values)" : "";
  std::string spatial, reduction;
  for (const auto &i : s.indices) {
    std::string r = i.name + " < " + (i.param.empty() ? std::to_string(i.extent) : i.param);
    std::string &list = i.reduction ? reduction : spatial;
    list += (list.empty() ? "" : ", ") + r;
  }
  if (!spatial.empty() || !reduction.empty()) {
    out += "    for " + (spatial.empty() ? std::string("()") : spatial);
    if (!reduction.empty())
      out += std::string("; ") + reduceOpName(s.reduce) + " over " + reduction;
  }
  for (size_t g = 0; g < s.guards.size(); ++g)
    out += (g ? ", " : "; where ") + printGuard(s.guards[g], s);
  return out.append(suffix);
}

std::string printKernel(const Kernel &k) {
  std::ostringstream out;
  out << "kernel " << k.name;
  if (k.name != k.kernelName)
    out << " = " << k.kernelName;
  if (!k.sizes.empty()) {
    out << "<";
    bool first = true;
    for (const auto &[n, v] : k.sizes) {
      out << (first ? "" : ", ") << n << "=" << v;
      first = false;
    }
    out << ">";
  }
  out << "\n";
  for (const auto &t : k.tensors) {
    out << "  " << tensorRoleName(t.role) << " " << t.name << ": " << elemTypeName(t.type);
    if (!t.shape.empty()) {
      out << "[";
      for (size_t i = 0; i < t.shape.size(); ++i)
        out << (i ? ", " : "")
            << (i < t.shapeParams.size() && !t.shapeParams[i].empty() ? t.shapeParams[i]
                                                                      : std::to_string(t.shape[i]));
      out << "]";
    }
    if (!t.memory.empty())
      out << " in " << t.memory;
    out << "\n";
  }
  for (size_t i = 0; i < k.statements.size(); ++i)
    out << "  s" << i << ": " << printStatement(k.statements[i], k.tensors)
        << (k.statements[i].staged ? "    (staged: a padded read's copy)" : "") << "\n";
  return out.str();
}

} // namespace isam::ir
