#include "sema/Lowering.h"

#include "ir/Canonicalize.h"
#include "ir/StridedWrites.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace isam::sema {

const std::vector<FunctionInfo> &knownFunctions() {
  static const std::vector<FunctionInfo> fns = {
      {ir::Fn::Exp, "exp", 1, "e to the power x"},
      {ir::Fn::Tanh, "tanh", 1, "the hyperbolic tangent"},
      {ir::Fn::Sigmoid, "sigmoid", 1, "1 / (1 + exp(-x))"},
      {ir::Fn::Relu, "relu", 1, "max(x, 0); NaN gives 0"},
      {ir::Fn::Max, "max", 2, "the larger of x and y"},
      {ir::Fn::Min, "min", 2, "the smaller of x and y"},
      {ir::Fn::Sqrt, "sqrt", 1, "the square root"},
      {ir::Fn::Log, "log", 1, "the natural logarithm"},
      {ir::Fn::Abs, "abs", 1, "the absolute value (of an integer: |MIN| wraps to MIN)"},
      {ir::Fn::Rsqrt, "rsqrt", 1, "1 / sqrt(x)"},
      {ir::Fn::Erf, "erf", 1, "the error function (exact GELU: 0.5 x (1 + erf(x / sqrt(2))))"},
      {ir::Fn::Pow, "pow", 2, "x to the power y, as C's pow"},
      {ir::Fn::Sin, "sin", 1, "the sine, x in radians"},
      {ir::Fn::Cos, "cos", 1, "the cosine, x in radians"},
      {ir::Fn::Exp2, "exp2", 1, "2 to the power x"},
      {ir::Fn::Log2, "log2", 1, "the base-2 logarithm"},
      {ir::Fn::Floor, "floor", 1, "the largest integer not above x"},
      {ir::Fn::Round, "round", 1,
       "the nearest integer, ties to even (as NumPy, PyTorch and ONNX round; C's round goes "
       "away from zero)"},
  };
  return fns;
}

namespace detail {

namespace {

constexpr int64_t kMaxSize = int64_t(1) << 40;

std::string rangeText(int64_t lo, int64_t hiExclusive) {
  return std::to_string(lo) + ".." + std::to_string(hiExclusive);
}
std::string rangeText(const std::string &lo, const std::string &hiExclusive) {
  return lo + ".." + hiExclusive;
}

// A 128-bit integer in decimal (what std::to_string has no overload for).
std::string wide(__int128 v) {
  if (v >= INT64_MIN && v <= INT64_MAX)
    return std::to_string(int64_t(v));
  bool negative = v < 0;
  unsigned __int128 u = negative ? -(unsigned __int128)v : (unsigned __int128)v;
  std::string digits;
  for (; u > 0; u /= 10)
    digits.insert(digits.begin(), char('0' + int(u % 10)));
  return (negative ? "-" : "") + digits;
}

} // namespace

int LowerContext::find(const std::string &name) const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name)
      return int(i);
  return -1;
}

std::optional<int64_t> evalSize(const ast::Expr &e, const Sizes &sizes, DiagnosticSink &diags,
                                const std::string &what) {
  using K = ast::Expr::Kind;
  switch (e.kind) {
  case K::Number:
    if (!e.isInteger || e.number > double(kMaxSize)) {
      diags.error("E0302", e.range,
                  !e.isInteger ? what + " must be an integer"
                               : what + " is too large (the limit is 2^40)");
      return std::nullopt;
    }
    return int64_t(e.number);
  case K::Name:
    if (!sizes.names.count(e.name.name)) {
      diags.error("E0302", e.range,
                  what + " may use only integers and size parameters; '" + e.name.name +
                      "' is not a size parameter");
      return std::nullopt;
    }
    if (!sizes.bound())
      return 0;
    if (auto it = sizes.values->find(e.name.name); it != sizes.values->end())
      return it->second;
    return std::nullopt; // unbound instruction parameter: a free extent, handled by the caller
  case K::Neg: {
    auto v = evalSize(*e.args[0], sizes, diags, what);
    return v ? std::optional<int64_t>(-*v) : std::nullopt;
  }
  case K::Add:
  case K::Sub:
  case K::Mul:
  case K::Div:
  case K::Mod: {
    auto a = evalSize(*e.args[0], sizes, diags, what);
    auto b = evalSize(*e.args[1], sizes, diags, what);
    if (!a || !b)
      return std::nullopt;
    if (!sizes.bound())
      return 0;
    int64_t r = 0;
    bool overflow = false;
    if (e.kind == K::Add)
      overflow = __builtin_add_overflow(*a, *b, &r);
    else if (e.kind == K::Sub)
      overflow = __builtin_sub_overflow(*a, *b, &r);
    else if (e.kind == K::Mul)
      overflow = __builtin_mul_overflow(*a, *b, &r);
    else {
      if (*b == 0) {
        diags.error("E0302", e.range, what + " divides by zero");
        return std::nullopt;
      }
      r = *a / *b - ((*a % *b != 0) && ((*a < 0) != (*b < 0))); // floor division
      if (e.kind == K::Mod)
        r = *a - r * *b; // the remainder of the floor division, of b's sign
    }
    if (overflow || r > kMaxSize || r < -kMaxSize) {
      diags.error("E0302", e.range, what + " is too large (the limit is 2^40)");
      return std::nullopt;
    }
    return r;
  }
  default: // reads, calls, comparisons, selections
    diags.error("E0302", e.range, what + " may use only integers and size parameters");
    return std::nullopt;
  }
  return std::nullopt;
}

namespace {

struct IndexVar {
  std::string name;
  SourceRange firstUse;
  bool onLeft = false;
  std::optional<int64_t> lo, hi; // inclusive bounds once known
  std::string param;             // extent is a free instruction parameter
  bool fromWhere = false;
  bool fixedByPlain = false;
  std::string source; // which access fixed the range, for conflict messages
  SourceRange sourceRange;
};

class StatementLowerer {
public:
  StatementLowerer(const ast::Statement &s, LowerContext &ctx, DiagnosticSink &diags)
      : s_(s), ctx_(ctx), diags_(diags) {}

  std::optional<ir::Statement> run(bool &ok) {
    const ast::Expr &lhs = *s_.lhs;
    lhsTensor_ = ctx_.find(lhs.name.name);
    if (lhsTensor_ < 0) {
      ok = false;
      if (ctx_.incomplete)
        return std::nullopt;
      diags_.error("E0203", lhs.name.range, "unknown tensor '" + lhs.name.name + "'");
      return std::nullopt;
    }
    const ir::Tensor &target = ctx_.tensors[lhsTensor_];
    if (lhs.pad) {
      diags_.error("E0313", lhs.pad->range,
                   "only a read can be padded; a write of '" + lhs.name.name +
                       "' stays within its shape");
      failed_ = true;
    }
    checkWritable(target);
    lowerWriteIndices(lhs, target);
    std::vector<ir::Affine> lhsIndices = lhsIndices_;
    collectIndexNames(*s_.rhs);
    for (const auto &where : s_.where)
      indexNames_.insert(where.index.name);
    ir::Expr rhs = lowerRightHandSide(target);
    checkReductionsAreSaid();
    readWhereClauses();
    for (const auto &g : s_.guards)
      lowerGuard(*g);
    checkReadsOfUnwritten();
    if (!failed_)
      checkSelfReads();

    if (failed_) {
      ok = false;
      return std::nullopt;
    }
    if (!ctx_.sizes.bound()) {
      ctx_.written[lhsTensor_] = true;
      return std::nullopt;
    }
    if (!inferRanges() || !checkBounds()) {
      ok = false;
      return std::nullopt;
    }
    bool implicitLocal = ctx_.shapeUnknown[lhsTensor_];
    if (implicitLocal && !startImplicitLocalAtZero(target)) {
      ok = false;
      return std::nullopt;
    }
    ir::Statement stmt = buildStatement(lhs, std::move(lhsIndices), std::move(rhs), target);
    if (!stridedVars_.empty())
      if (auto error = ir::solveStridedWrites(stmt, ctx_.tensors)) {
        diags_.error("E0307", lhs.args[error->dim]->range, error->message);
        ok = false;
        return std::nullopt;
      }
    if (implicitLocal)
      shapeImplicitLocal();
    ctx_.written[lhsTensor_] = true;
    return stmt;
  }

private:
  void checkWritable(const ir::Tensor &target) {
    if (target.role != ir::TensorRole::Input)
      return;
    diags_
        .error("E0306", s_.lhs->name.range,
               std::string(ctx_.instruction ? "operand" : "input") + " '" + target.name +
                   "' is read-only; write an output, a local or an out/inout operand")
        .note(target.range, "'" + target.name + "' is declared here");
    failed_ = true;
  }

  // Write indices: distinct index variables, one per dimension, each alone or shifted by a
  // constant (`O[n, c + C1]`, a concatenation); in a declared tensor a dimension may also be
  // strided (`O[2 * i + r]`), which ir/StridedWrites.h solves once the ranges are known.
  void lowerWriteIndices(const ast::Expr &lhs, const ir::Tensor &target) {
    bool shiftable = !ctx_.instruction && !ctx_.shapeUnknown[lhsTensor_];
    for (const auto &dim : lhs.args) {
      const ast::Expr *name = writtenIndexName(*dim);
      if (!name && shiftable) {
        writeVars_.push_back(-1); // strided: its indices are read below
        continue;
      }
      if (name && (ctx_.sizes.names.count(name->name.name) || ctx_.find(name->name.name) >= 0)) {
        diags_.error("E0307", dim->range,
                     "each dimension of the written tensor must be indexed by an index variable");
        failed_ = true;
        continue;
      }
      if (!name || (name != dim.get() && !shiftable)) {
        diags_.error("E0307", dim->range,
                     std::string("only a declared tensor's write can be shifted or strided; ") +
                         (ctx_.instruction ? "an instruction's operands are written by index "
                                             "variables alone"
                                           : "declare the local with `local` to shift or "
                                             "stride its write"));
        failed_ = true;
        continue;
      }
      if (indexOf(name->name.name) >= 0) {
        diags_.error("E0307", dim->range,
                     "index '" + name->name.name +
                         "' indexes two dimensions of the written tensor");
        failed_ = true;
        continue;
      }
      int var = addIndex(name->name.name, name->range);
      vars_[var].onLeft = true;
      writeVars_.push_back(var);
    }
    checkRank(lhs, target);
    if (failed_)
      return;
    for (size_t d = 0; d < lhs.args.size(); ++d) {
      const ast::Expr &dim = *lhs.args[d];
      ir::Affine a = affine(dim);
      if (writeVars_[d] < 0)
        stridedIndices(dim, a);
      // `c + C1` must be one index plus a constant: no size may multiply the index.
      else if (!a.quasi.empty() || a.terms.size() != 1 || a.terms[0].second != 1) {
        diags_.error("E0307", dim.range,
                     "a written index is an index variable plus a constant; this one is not");
        failed_ = true;
      }
      lhsIndices_.push_back(std::move(a));
    }
  }

  // A strided dimension: a sum of indices with positive coefficients (plus a constant), none of
  // which indexes another written dimension.
  void stridedIndices(const ast::Expr &dim, const ir::Affine &a) {
    std::map<int, int64_t> terms;
    for (auto [v, coef] : a.terms)
      terms[v] += coef;
    auto error = [&](const std::string &message) {
      diags_.error("E0307", dim.range, message);
      failed_ = true;
    };
    if (!a.quasi.empty())
      return error("a written index cannot divide an index or take its remainder; write over "
                   "the larger index and read through the quotient (`O[i] = X[i / 2]`)");
    if (terms.empty())
      return error("each dimension of the written tensor must be indexed by an index variable");
    for (auto [v, coef] : terms) {
      if (coef <= 0 && ctx_.sizes.bound()) // unbound, a size multiplies as 0
        return error("a strided write's indices have positive coefficients; to write in "
                     "reverse, read in reverse (`O[i] = X[N - 1 - i]`)");
      if (vars_[v].onLeft)
        return error("index '" + vars_[v].name + "' indexes two dimensions of the written tensor");
      vars_[v].onLeft = true;
      stridedVars_.push_back(v);
    }
  }

  // The index variable of `i`, `i + c`, `c + i` or `i - c` (c without indices), else null.
  const ast::Expr *writtenIndexName(const ast::Expr &e) const {
    using K = ast::Expr::Kind;
    if (e.kind == K::Name)
      return &e;
    if ((e.kind != K::Add && e.kind != K::Sub) || e.args.size() != 2)
      return nullptr;
    auto isName = [&](const ast::Expr &x) {
      return x.kind == K::Name && !ctx_.sizes.names.count(x.name.name) &&
             ctx_.find(x.name.name) < 0;
    };
    auto constant = [&](const ast::Expr &x) { return !mentionsIndex(x); };
    if (isName(*e.args[0]) && constant(*e.args[1]))
      return e.args[0].get();
    if (e.kind == K::Add && isName(*e.args[1]) && constant(*e.args[0]))
      return e.args[1].get();
    return nullptr;
  }

  // Whether e names anything but sizes and numbers.
  bool mentionsIndex(const ast::Expr &e) const {
    if (e.kind == ast::Expr::Kind::Name && !ctx_.sizes.names.count(e.name.name))
      return true;
    if (e.kind == ast::Expr::Kind::Access || e.kind == ast::Expr::Kind::Call)
      return true;
    for (const auto &a : e.args)
      if (a && mentionsIndex(*a))
        return true;
    return false;
  }

  // The right-hand side, with its element type: the target's, or literals that take it.
  ir::Expr lowerRightHandSide(const ir::Tensor &target) {
    std::optional<ir::ElemType> type;
    ir::Expr rhs = expr(*s_.rhs, type);
    if (!failed_ && type && *type != target.type) {
      diags_.error("E0304", s_.rhs->range,
                   std::string("the right-hand side is ") + ir::elemTypeName(*type) + " but '" +
                       target.name + "' is " + ir::elemTypeName(target.type) +
                       "; convert explicitly, e.g. " + ir::elemTypeName(target.type) + "(...)");
      failed_ = true;
    }
    if (!type)
      setConstTypes(rhs, target.type);
    return rhs;
  }

  // An index only on the right is reduced, which `=` does not say how to do.
  void checkReductionsAreSaid() {
    if (s_.op != ast::AssignOp::Assign || failed_)
      return;
    for (const auto &var : vars_)
      if (!var.onLeft) {
        diags_.error("E0305", var.firstUse,
                     "index '" + var.name +
                         "' appears only on the right of '=', so it would be "
                         "reduced; say how: '+=' (sum), '*=' (product), 'max=' or 'min='");
        // No fix-it: which reduction is meant is the author's to say.
        failed_ = true;
        return;
      }
  }

  // The names the statement uses as indices (inside brackets, or given a range), so that one
  // used as a value before its first access (`j < i ? X[j] : 0`) is known to be an index.
  void collectIndexNames(const ast::Expr &e, bool inBrackets = false) {
    if (e.kind == ast::Expr::Kind::Name && inBrackets && !ctx_.sizes.names.count(e.name.name) &&
        ctx_.find(e.name.name) < 0)
      indexNames_.insert(e.name.name);
    for (const auto &a : e.args)
      if (a)
        collectIndexNames(*a, inBrackets || e.kind == ast::Expr::Kind::Access);
  }

  // Where clauses name indices of this statement and give them a range.
  void readWhereClauses() {
    std::map<std::string, SourceRange> whereSeen;
    for (const auto &where : s_.where) {
      if (auto it = whereSeen.find(where.index.name); it != whereSeen.end()) {
        diags_
            .error("E0201", where.index.range, "'" + where.index.name + "' is given a range twice")
            .note(it->second, "the first range is here");
        failed_ = true;
        continue;
      }
      whereSeen[where.index.name] = where.index.range;
      int var = indexOf(where.index.name);
      if (var < 0) {
        diags_.error("E0203", where.index.range,
                     "'" + where.index.name + "' is not an index of this statement");
        failed_ = true;
        continue;
      }
      auto lo = evalSize(*where.lo, ctx_.sizes, diags_, "a range bound");
      auto hi = evalSize(*where.hi, ctx_.sizes, diags_, "a range bound");
      if (!lo || !hi) {
        failed_ = true;
        continue;
      }
      if (ctx_.sizes.bound()) {
        if (*hi <= *lo) {
          sizeError("E0406", where.range,
                    "the range " + rangeText(*lo, *hi) + " of '" + where.index.name + "' is empty");
          continue;
        }
        vars_[var].lo = *lo;
        vars_[var].hi = *hi - 1;
        vars_[var].fromWhere = true;
      }
    }
  }

  // `where j <= i`: comparisons of index expressions, joined by `&&` or by commas, each
  // side affine in the statement's indices (quotients and remainders allowed).
  void lowerGuard(const ast::Expr &e) {
    using K = ast::Expr::Kind;
    if (e.kind == K::And) {
      lowerGuard(*e.args[0]);
      lowerGuard(*e.args[1]);
      return;
    }
    static const std::map<K, ir::Cmp> cmps = {{K::Lt, ir::Cmp::Lt}, {K::Le, ir::Cmp::Le},
                                              {K::Gt, ir::Cmp::Gt}, {K::Ge, ir::Cmp::Ge},
                                              {K::Eq, ir::Cmp::Eq}, {K::Ne, ir::Cmp::Ne}};
    auto cmp = cmps.find(e.kind);
    if (ctx_.instruction || cmp == cmps.end()) {
      diags_.error("E0315", e.range,
                   ctx_.instruction
                       ? "an instruction's semantics cannot restrict its points; describe the "
                         "whole operation"
                       : "a `where` condition compares indices, as in `j <= i`; join several "
                         "with `&&` or commas (`||` and `!` are not allowed there)");
      failed_ = true;
      return;
    }
    inGuard_ = true;
    ir::Guard g{affine(*e.args[0]), cmp->second, affine(*e.args[1])};
    inGuard_ = false;
    guards_.push_back(std::move(g));
  }

  // Reads of tensors that hold no values yet.
  void checkReadsOfUnwritten() {
    for (auto [tensor, range] : reads_)
      if (!ctx_.written[tensor] && ctx_.tensors[tensor].role != ir::TensorRole::Input &&
          !ctx_.incomplete) {
        diags_.error("E0407", range,
                     "'" + ctx_.tensors[tensor].name +
                         "' is read here before any statement writes it");
        failed_ = true;
      }
  }

  // An implicit local is indexed by the write indices' own values: they must not go negative
  // (shapeImplicitLocal then makes its extent cover the largest value written).
  bool startImplicitLocalAtZero(const ir::Tensor &target) {
    for (auto &var : vars_)
      if (var.onLeft && var.param.empty() && *var.lo < 0) {
        var.lo = 0;
        if (*var.hi < 0) {
          sizeError("E0406", var.firstUse,
                    "index '" + var.name +
                        "' has no non-negative value, so it cannot index the "
                        "local '" +
                        target.name + "'");
          return false;
        }
      }
    return true;
  }

  void shapeImplicitLocal() {
    auto &local = ctx_.tensors[lhsTensor_];
    local.shape.clear();
    for (int var : writeVars_)
      local.shape.push_back(*vars_[var].hi + 1);
    local.shapeParams.assign(local.shape.size(), "");
    ctx_.shapeUnknown[lhsTensor_] = false;
  }

  // The statement over its index variables: write indices first (in the order of the written
  // access), then a strided dimension's indices (ir/StridedWrites.h solves them), then
  // reductions, each shifted to start at 0.
  ir::Statement buildStatement(const ast::Expr &lhs, std::vector<ir::Affine> lhsIndices,
                               ir::Expr rhs, const ir::Tensor &target) {
    ir::Statement stmt;
    std::vector<int> order;
    for (int var : writeVars_)
      if (var >= 0)
        order.push_back(var);
    order.insert(order.end(), stridedVars_.begin(), stridedVars_.end());
    for (size_t i = 0; i < vars_.size(); ++i)
      if (!vars_[i].onLeft)
        order.push_back(int(i));
    std::vector<int> position(vars_.size());
    for (size_t at = 0; at < order.size(); ++at) {
      const IndexVar &var = vars_[order[at]];
      position[order[at]] = int(at);
      ir::Index index;
      index.name = var.name;
      index.reduction = !var.onLeft;
      index.param = var.param;
      index.extent = var.param.empty() ? *var.hi - *var.lo + 1 : 0;
      stmt.indices.push_back(index);
    }
    // Renumber to positions and shift every index to start at 0.
    std::function<void(ir::Affine &)> normalise = [&](ir::Affine &affine) {
      for (auto &[i, coef] : affine.terms) {
        if (vars_[i].lo)
          affine.constant += coef * *vars_[i].lo;
        i = position[i];
      }
      for (auto &q : affine.quasi)
        normalise(q.inner);
    };
    for (auto &affine : lhsIndices)
      normalise(affine);
    ir::forEachRead(rhs, [&](ir::Access &access) {
      for (auto &affine : access.indices)
        normalise(affine);
      for (auto &g : access.gathers)
        for (auto &affine : g.indices)
          normalise(affine);
    });
    forEachIndexValue(rhs, [&](ir::Affine &affine) { normalise(affine); });
    for (auto &g : guards_) {
      normalise(g.lhs);
      normalise(g.rhs);
    }
    stmt.guards = std::move(guards_);
    stmt.lhs = {lhsTensor_, std::move(lhsIndices), std::nullopt, {}};
    stmt.reduce = s_.op == ast::AssignOp::Sum    ? ir::ReduceOp::Sum
                  : s_.op == ast::AssignOp::Prod ? ir::ReduceOp::Prod
                  : s_.op == ast::AssignOp::Max  ? ir::ReduceOp::Max
                  : s_.op == ast::AssignOp::Min  ? ir::ReduceOp::Min
                                                 : ir::ReduceOp::None;
    stmt.accumulates =
        ctx_.written[lhsTensor_] || (ctx_.instruction && target.role == ir::TensorRole::InOut);
    stmt.rhs = std::move(rhs);
    stmt.range = s_.range;
    return stmt;
  }

  // A statement is evaluated as if every point were computed at once (Tensor Comprehensions'
  // rule), so it may read the tensor it writes only where the value cannot depend on the order
  // the points run in: at the very point it writes, and not in a reduction (whose accumulator
  // changes while it runs). Anything else would mean one thing to the interpreter's loop order
  // and another to tiled, vectorised or parallel code.
  void checkSelfReads() {
    const std::string &name = ctx_.tensors[lhsTensor_].name;
    for (const auto &[e, t, indices] : readAccesses_) {
      if (t != lhsTensor_)
        continue;
      if (s_.op != ast::AssignOp::Assign) {
        selfReadError(e->range, "'" + name + "' is read by the reduction that writes it, so " +
                                    "the result would depend on the order the reduction runs in");
        return;
      }
      if (!samePoint(indices, lhsIndices_)) {
        selfReadError(e->range, "'" + name + "' is read at another point than the one this " +
                                    "statement writes, so the result would depend on the order " +
                                    "its points are computed in");
        return;
      }
    }
    // A scalar read by its own reduction (`S += S * x`).
    for (auto [t, range] : reads_)
      if (t == lhsTensor_ && ctx_.tensors[t].shape.empty() && s_.op != ast::AssignOp::Assign) {
        selfReadError(range, "'" + name + "' is read by the reduction that writes it, so the " +
                                 "result would depend on the order the reduction runs in");
        return;
      }
  }

  void selfReadError(SourceRange at, const std::string &message) {
    const std::string &name = ctx_.tensors[lhsTensor_].name;
    diags_.error("E0311", at, message)
        .note(s_.lhs->range, "every point of '" + name + "' is written here at once; to read " +
                                 "the values an earlier statement left, copy them first ('" + name +
                                 "_in[...] = " + name + "[...];') and read the copy");
    failed_ = true;
  }

  static bool samePoint(const std::vector<ir::Affine> &a, const std::vector<ir::Affine> &b) {
    if (a.size() != b.size())
      return false;
    for (size_t d = 0; d < a.size(); ++d) {
      if (a[d].constant != b[d].constant || !a[d].quasi.empty() || !b[d].quasi.empty())
        return false;
      auto terms = [](const ir::Affine &x) {
        std::map<int, int64_t> m;
        for (auto [i, coef] : x.terms)
          m[i] += coef;
        for (auto it = m.begin(); it != m.end();)
          it = it->second == 0 ? m.erase(it) : std::next(it);
        return m;
      };
      if (terms(a[d]) != terms(b[d]))
        return false;
    }
    return true;
  }

  int indexOf(const std::string &name) const {
    for (size_t i = 0; i < vars_.size(); ++i)
      if (vars_[i].name == name)
        return int(i);
    return -1;
  }
  int addIndex(const std::string &name, SourceRange use) {
    int v = indexOf(name);
    if (v >= 0)
      return v;
    IndexVar var;
    var.name = name;
    var.firstUse = use;
    vars_.push_back(std::move(var));
    return int(vars_.size() - 1);
  }

  void sizeError(const char *code, SourceRange range, const std::string &message) {
    auto &d = diags_.error(code, range, message);
    if (!ctx_.instanceNote.empty())
      d.note(ctx_.instanceRange, ctx_.instanceNote);
    failed_ = true;
  }

  void checkRank(const ast::Expr &access, const ir::Tensor &t) {
    if (ctx_.shapeUnknown[ctx_.find(t.name)] || access.args.size() == t.shape.size())
      return;
    diags_.error("E0303", access.range,
                 "'" + t.name + "' has " + std::to_string(t.shape.size()) + " dimension" +
                     (t.shape.size() == 1 ? "" : "s") + " but is indexed with " +
                     std::to_string(access.args.size()));
    failed_ = true;
  }

  // Index expressions: affine in index variables; size parameters and integers are constants.
  ir::Affine affine(const ast::Expr &e) {
    using K = ast::Expr::Kind;
    ir::Affine a;
    switch (e.kind) {
    case K::Number:
      if (!e.isInteger) {
        diags_.error("E0308", e.range, "an index must be an integer expression");
        failed_ = true;
      }
      if (e.number > double(kMaxSize)) {
        diags_.error("E0302", e.range, "an index constant is too large (the limit is 2^40)");
        failed_ = true;
      }
      a.constant = int64_t(std::min(e.number, double(kMaxSize)));
      return a;
    case K::Name: {
      const std::string &n = e.name.name;
      if (ctx_.sizes.names.count(n)) {
        if (ctx_.sizes.bound()) {
          auto it = ctx_.sizes.values->find(n);
          if (it == ctx_.sizes.values->end()) {
            diags_.error("E0308", e.range,
                         "instruction size parameter '" + n + "' cannot appear in an index");
            failed_ = true;
          } else {
            a.constant = it->second;
          }
        }
        return a;
      }
      if (ctx_.find(n) >= 0) {
        diags_.error("E0308", e.range,
                     "tensor '" + n +
                         "' cannot be used inside an index (indices are affine in "
                         "index variables)");
        failed_ = true;
        return a;
      }
      if (inGuard_ && indexOf(n) < 0) {
        // A condition restricts indices the statement has; it cannot introduce one.
        diags_.error("E0203", e.range,
                     "'" + n + "' is not an index of this statement, a size or a number");
        failed_ = true;
        return a;
      }
      a.terms.push_back({addIndex(n, e.range), 1});
      return a;
    }
    case K::Neg:
    case K::Add:
    case K::Sub: {
      ir::Affine l = affine(*e.args[0]);
      if (e.kind == K::Neg)
        return scale(l, -1);
      ir::Affine r = affine(*e.args[1]);
      if (e.kind == K::Sub)
        r = scale(r, -1);
      l.terms.insert(l.terms.end(), r.terms.begin(), r.terms.end());
      l.quasi.insert(l.quasi.end(), r.quasi.begin(), r.quasi.end());
      l.constant += r.constant; // two terms of at most 2^40 each (bounded())
      return bounded(l, e);
    }
    case K::Mul: {
      ir::Affine l = affine(*e.args[0]);
      ir::Affine r = affine(*e.args[1]);
      auto constant = [](const ir::Affine &x) { return x.terms.empty() && x.quasi.empty(); };
      if (!constant(l) && !constant(r)) {
        diags_.error("E0308", e.range,
                     "an index must be affine: a product of two index variables is not");
        failed_ = true;
        return l;
      }
      return bounded(constant(l) ? scale(r, l.constant) : scale(l, r.constant), e);
    }
    case K::Div:
    case K::Mod:
      return quotient(e);
    case K::Access:
    case K::Call:
      diags_.error("E0308", e.range,
                   "an index must be affine in index variables; tensor reads and function calls "
                   "are not allowed in an index (a read alone as a padded read's index is a "
                   "gather: `T[Idx[b], d] pad 0`)");
      failed_ = true;
      return a;
    default:
      diags_.error("E0308", e.range,
                   "an index must be affine in index variables; comparisons and selections are "
                   "not allowed in an index");
      failed_ = true;
      return a;
    }
    return a;
  }

  // `x / d` and `x % d` in an index: floor division and a remainder in 0..d-1 by a positive
  // constant, folded when x is constant too, else a quasi-affine part.
  ir::Affine quotient(const ast::Expr &e) {
    using K = ast::Expr::Kind;
    ir::Affine a;
    ir::Affine l = affine(*e.args[0]);
    ir::Affine r = affine(*e.args[1]);
    if (ctx_.instruction && !(l.terms.empty() && l.quasi.empty())) {
      diags_.error("E0308", e.range,
                   "an instruction's operands are indexed affinely: its semantics cannot divide "
                   "an index or take its remainder");
      failed_ = true;
      return l;
    }
    if (!r.terms.empty() || !r.quasi.empty()) {
      diags_.error("E0308", e.range,
                   std::string("an index may be ") +
                       (e.kind == K::Div ? "divided by" : "taken modulo") +
                       " a constant or a size only, not by an index");
      failed_ = true;
      return l;
    }
    if (r.constant <= 0) {
      if (ctx_.sizes.bound()) {
        diags_.error("E0308", e.range,
                     "an index divisor must be positive, not " + std::to_string(r.constant));
        failed_ = true;
      }
      return l;
    }
    if (l.terms.empty() && l.quasi.empty()) {
      a.constant = e.kind == K::Div ? ir::floorDiv(l.constant, r.constant)
                                    : ir::floorMod(l.constant, r.constant);
      return a;
    }
    a.quasi.push_back({std::move(l), r.constant, e.kind == K::Mod, 1});
    return a;
  }

  // Coefficients and constants are products of numbers of at most 2^40: computed without
  // wrapping (a wrapped coefficient of 2^84 was 0, and the access silently read element 0),
  // then bounded by `bounded`.
  static ir::Affine scale(ir::Affine a, int64_t k) {
    auto times = [k](int64_t &x) {
      if (__builtin_mul_overflow(x, k, &x))
        x = x < 0 ? -kMaxSize - 1 : kMaxSize + 1; // out of bounds either way: reported
    };
    for (auto &t : a.terms)
      times(t.second);
    for (auto &q : a.quasi)
      times(q.coef);
    times(a.constant);
    return a;
  }

  ir::Affine bounded(ir::Affine a, const ast::Expr &e) {
    bool large = a.constant > kMaxSize || a.constant < -kMaxSize;
    for (auto &t : a.terms)
      large = large || t.second > kMaxSize || t.second < -kMaxSize;
    for (auto &q : a.quasi)
      large = large || q.coef > kMaxSize || q.coef < -kMaxSize;
    if (large && !failed_) {
      diags_.error("E0302", e.range,
                   "an index coefficient or constant is too large (the limit is 2^40)");
      failed_ = true;
    }
    if (large) {
      a.constant = std::clamp(a.constant, -kMaxSize, kMaxSize);
      for (auto &t : a.terms)
        t.second = std::clamp(t.second, -kMaxSize, kMaxSize);
      for (auto &q : a.quasi)
        q.coef = std::clamp(q.coef, -kMaxSize, kMaxSize);
    }
    return a;
  }

  ir::Expr expr(const ast::Expr &e, std::optional<ir::ElemType> &type) {
    using K = ast::Expr::Kind;
    switch (e.kind) {
    case K::Number: {
      ir::Expr out;
      out.kind = ir::Expr::Kind::Const;
      out.value = e.number;
      type.reset(); // literals take the type of their context
      return out;
    }
    case K::Name:
      return nameExpr(e, type);
    case K::Access:
      return accessExpr(e, type);
    case K::Call:
      return ir::parseElemType(e.name.name) ? conversionExpr(e, type) : callExpr(e, type);
    case K::Neg:
    case K::Add:
    case K::Sub:
    case K::Mul:
    case K::Div:
      return arithmeticExpr(e, type);
    case K::Mod:
      return remainderExpr(e, type);
    case K::Select:
      return selectExpr(e, type);
    default: // a condition
      diags_.error("E0312", e.range,
                   "a condition (a comparison, &&, || or !) is not a value; select a value with "
                   "it: `c ? a : b`");
      failed_ = true;
      return ir::Expr();
    }
    return ir::Expr();
  }

  // `i % 2` outside brackets: an index value, as `i` is. Values have no remainder.
  ir::Expr remainderExpr(const ast::Expr &e, std::optional<ir::ElemType> &type) {
    ir::Expr out;
    if (!indexOnly(e) || ctx_.instruction) {
      diags_.error("E0314", e.range,
                   ctx_.instruction ? "an instruction's semantics cannot take a remainder"
                                    : "`%` takes indices, sizes and integers (`i % 2`), not "
                                      "values; use it inside [...] or on an index");
      failed_ = true;
      return out;
    }
    out.kind = ir::Expr::Kind::Index;
    out.access.tensor = -1;
    out.access.indices.push_back(affine(e));
    type.reset();
    return out;
  }

  // Whether e uses only indices, sizes and integers: an index expression.
  bool indexOnly(const ast::Expr &e) const {
    using K = ast::Expr::Kind;
    switch (e.kind) {
    case K::Number:
      return e.isInteger;
    case K::Name:
      return ctx_.sizes.names.count(e.name.name) || indexOf(e.name.name) >= 0 ||
             indexNames_.count(e.name.name);
    case K::Neg:
    case K::Add:
    case K::Sub:
    case K::Mul:
    case K::Div:
    case K::Mod:
      return std::all_of(e.args.begin(), e.args.end(),
                         [&](const ast::ExprPtr &a) { return a && indexOnly(*a); });
    default:
      return false;
    }
  }

  // `c ? a : b`: a and b of one type, which is the selection's.
  ir::Expr selectExpr(const ast::Expr &e, std::optional<ir::ElemType> &type) {
    ir::Expr out;
    out.kind = ir::Expr::Kind::Select;
    out.args.push_back(condition(*e.args[0]));
    std::vector<std::optional<ir::ElemType>> types(2);
    out.args.push_back(expr(*e.args[1], types[0]));
    out.args.push_back(expr(*e.args[2], types[1]));
    type = unify(types, e);
    finishTypes(out, type);
    return out;
  }

  // A comparison of two values, or conditions combined with &&, || and !.
  ir::Expr condition(const ast::Expr &e) {
    using K = ast::Expr::Kind;
    ir::Expr out;
    switch (e.kind) {
    case K::And:
    case K::Or:
    case K::Not:
      out.kind = e.kind == K::And  ? ir::Expr::Kind::And
                 : e.kind == K::Or ? ir::Expr::Kind::Or
                                   : ir::Expr::Kind::Not;
      for (const auto &a : e.args)
        out.args.push_back(condition(*a));
      return out;
    case K::Lt:
    case K::Le:
    case K::Gt:
    case K::Ge:
    case K::Eq:
    case K::Ne:
      return comparison(e);
    default:
      diags_.error("E0312", e.range,
                   "a condition must compare values (`x > 0`), maybe combined with &&, || and "
                   "!; this is a value");
      failed_ = true;
      return out;
    }
  }

  ir::Expr comparison(const ast::Expr &e) {
    using K = ast::Expr::Kind;
    ir::Expr out;
    out.kind = ir::Expr::Kind::Compare;
    out.cmp = e.kind == K::Lt   ? ir::Cmp::Lt
              : e.kind == K::Le ? ir::Cmp::Le
              : e.kind == K::Gt ? ir::Cmp::Gt
              : e.kind == K::Ge ? ir::Cmp::Ge
              : e.kind == K::Eq ? ir::Cmp::Eq
                                : ir::Cmp::Ne;
    std::vector<std::optional<ir::ElemType>> types(2);
    for (size_t i = 0; i < 2; ++i) {
      if (isConditionSyntax(*e.args[i])) {
        diags_.error("E0312", e.range, "comparisons do not chain; combine them: `a < b && b < c`");
        failed_ = true;
        return out;
      }
      out.args.push_back(expr(*e.args[i], types[i]));
    }
    // Two literals compare exactly in f64.
    std::optional<ir::ElemType> type = unify(types, e);
    finishTypes(out, type ? type : ir::ElemType::F64);
    if (!ir::isFloat(out.type))
      for (size_t i = 0; i < 2; ++i)
        checkIntegerLiteral(out.args[i], *e.args[i], out.type);
    return out;
  }

  static bool isConditionSyntax(const ast::Expr &e) {
    using K = ast::Expr::Kind;
    return e.kind == K::Lt || e.kind == K::Le || e.kind == K::Gt || e.kind == K::Ge ||
           e.kind == K::Eq || e.kind == K::Ne || e.kind == K::And || e.kind == K::Or ||
           e.kind == K::Not;
  }

  // A literal compared with an integer must be one of the type's values: `X[i] < 0.5` or an i8
  // `X[i] < 200` would otherwise compare with the literal converted (0, -56).
  void checkIntegerLiteral(const ir::Expr &value, const ast::Expr &written, ir::ElemType type) {
    if (value.kind != ir::Expr::Kind::Const || failed_)
      return;
    int bits = 8 * ir::elemTypeBytes(type);
    double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1) - 1;
    if (value.value == std::trunc(value.value) && value.value >= lo && value.value <= hi)
      return;
    bool fraction = value.value != std::trunc(value.value);
    diags_.error("E0304", written.range,
                 "this literal is not an " + std::string(ir::elemTypeName(type)) +
                     " value, but it is compared with one; convert the other side, e.g. " +
                     (fraction                    ? "f32(...)"
                      : type == ir::ElemType::I32 ? "f64(...)"
                                                  : "i32(...)"));
    failed_ = true;
  }

  // A size parameter (a constant), a scalar tensor (a read), or an error.
  ir::Expr nameExpr(const ast::Expr &e, std::optional<ir::ElemType> &type) {
    ir::Expr out;
    const std::string &name = e.name.name;
    if (ctx_.sizes.names.count(name)) {
      out.kind = ir::Expr::Kind::Const;
      if (ctx_.sizes.bound())
        if (auto it = ctx_.sizes.values->find(name); it != ctx_.sizes.values->end())
          out.value = double(it->second);
      type.reset();
      return out;
    }
    if (int tensorIndex = ctx_.find(name); tensorIndex >= 0) {
      const ir::Tensor &tensor = ctx_.tensors[tensorIndex];
      if (!tensor.shape.empty()) {
        diags_.error("E0303", e.range,
                     "'" + name + "' has " + std::to_string(tensor.shape.size()) +
                         " dimensions; index it, e.g. " + name + "[...]");
        failed_ = true;
      }
      reads_.push_back({tensorIndex, e.range});
      out.kind = ir::Expr::Kind::Read;
      out.access.tensor = tensorIndex;
      out.type = tensor.type;
      type = tensor.type;
      return out;
    }
    bool isIndex = indexOf(name) >= 0 || indexNames_.count(name);
    if (isIndex && !ctx_.instruction) {
      // The index's value at the point, in the type of its context (as a literal's).
      out.kind = ir::Expr::Kind::Index;
      out.access.tensor = -1;
      out.access.indices.push_back(affine(e));
      type.reset();
      return out;
    }
    if (isIndex) {
      diags_.error("E0310", e.range,
                   "an instruction's semantics cannot use index '" + name +
                       "' as a value; indices may only appear inside [...] there");
    } else {
      std::vector<std::string> names;
      for (const auto &tensor : ctx_.tensors)
        names.push_back(tensor.name);
      for (const auto &size : ctx_.sizes.names)
        names.push_back(size);
      auto &diag = diags_.error("E0203", e.range, "unknown name '" + name + "'");
      if (auto suggestion = closestMatch(name, names); !suggestion.empty()) {
        diag.message += "; did you mean '" + suggestion + "'?";
        diag.fix(e.range, suggestion);
      }
    }
    failed_ = true;
    return out;
  }

  // A tensor read, `A[i, k]`.
  ir::Expr accessExpr(const ast::Expr &e, std::optional<ir::ElemType> &type) {
    ir::Expr out;
    int tensorIndex = ctx_.find(e.name.name);
    if (tensorIndex < 0 && ctx_.incomplete) {
      failed_ = true;
      return out;
    }
    if (tensorIndex < 0) {
      std::vector<std::string> names;
      for (const auto &tensor : ctx_.tensors)
        names.push_back(tensor.name);
      auto &diag = diags_.error("E0203", e.name.range, "unknown tensor '" + e.name.name + "'");
      if (auto suggestion = closestMatch(e.name.name, names); !suggestion.empty()) {
        diag.message += "; did you mean '" + suggestion + "'?";
        diag.fix(e.name.range, suggestion);
      }
      failed_ = true;
      return out;
    }
    checkRank(e, ctx_.tensors[tensorIndex]);
    reads_.push_back({tensorIndex, e.range});
    out.kind = ir::Expr::Kind::Read;
    out.access.tensor = tensorIndex;
    for (size_t d = 0; d < e.args.size(); ++d) {
      const ast::Expr &dim = *e.args[d];
      if (dim.kind != ast::Expr::Kind::Access) {
        out.access.indices.push_back(affine(dim));
        continue;
      }
      out.access.indices.emplace_back(); // the gathered element is the index (ir::Gather)
      if (auto g = gatheredIndex(dim, d))
        out.access.gathers.push_back(std::move(*g));
    }
    out.type = ctx_.tensors[tensorIndex].type;
    type = out.type;
    if (!out.access.gathers.empty() && (!e.pad || ctx_.instruction)) {
      diags_.error("E0316", e.range,
                   ctx_.instruction
                       ? "an instruction's semantics cannot gather; its operands are indexed "
                         "affinely"
                       : "a gathered read must say what an index out of range gives: add `pad "
                         "0` (or another value)");
      failed_ = true;
    }
    if (e.pad)
      out.access.pad = padValue(e, out.type);
    readAccesses_.push_back({&e, tensorIndex, out.access.indices});
    return out;
  }

  // `Idx[b, l]` as a whole index of a read: an in-bounds read of an integer tensor, whose
  // element is the index (a gather).
  std::optional<ir::Gather> gatheredIndex(const ast::Expr &e, size_t dim) {
    int t = ctx_.find(e.name.name);
    if (t < 0) {
      if (!ctx_.incomplete)
        diags_.error("E0203", e.name.range, "unknown tensor '" + e.name.name + "'");
      failed_ = true;
      return std::nullopt;
    }
    const ir::Tensor &tensor = ctx_.tensors[t];
    auto refuse = [&](SourceRange at, const std::string &why) {
      diags_.error("E0316", at, why);
      failed_ = true;
      return std::nullopt;
    };
    if (ir::isFloat(tensor.type))
      return refuse(e.range, "a gathered index is an integer; '" + tensor.name + "' holds " +
                                 ir::elemTypeName(tensor.type) +
                                 " (convert it in a statement "
                                 "before, e.g. to i32)");
    if (e.pad)
      return refuse(e.pad->range, "a gathered index is read within its tensor's shape; pad the "
                                  "read it indexes instead");
    checkRank(e, tensor);
    reads_.push_back({t, e.range});
    ir::Gather g{dim, t, {}};
    for (const auto &i : e.args) {
      if (i->kind == ast::Expr::Kind::Access)
        return refuse(i->range, "a gathered index cannot itself be gathered; read it into a "
                                "local first");
      g.indices.push_back(affine(*i));
    }
    // Its indices take their ranges from it and are bounds-checked, as any read's.
    readAccesses_.push_back({&e, t, g.indices});
    return g;
  }

  // The value of `X[...] pad v`: a number or `inf` (signed), one of the read's type's values.
  std::optional<double> padValue(const ast::Expr &e, ir::ElemType type) {
    if (ctx_.instruction) {
      diags_.error("E0313", e.pad->range,
                   "an instruction's semantics cannot pad a read; describe what its operands hold");
      failed_ = true;
      return std::nullopt;
    }
    const ast::Expr &written = *e.pad;
    const ast::Expr &literal = written.kind == ast::Expr::Kind::Neg ? *written.args[0] : written;
    double sign = written.kind == ast::Expr::Kind::Neg ? -1 : 1;
    double v = literal.number;
    if (literal.kind == ast::Expr::Kind::Name) {
      if (literal.name.name != "inf") {
        diags_.error("E0313", literal.range,
                     "a pad value is a number or inf, not '" + literal.name.name + "'");
        failed_ = true;
        return std::nullopt;
      }
      v = INFINITY;
    }
    v *= sign;
    if (!ir::isFloat(type)) {
      int bits = 8 * ir::elemTypeBytes(type);
      if (v != std::trunc(v) || v < -std::ldexp(1.0, bits - 1) ||
          v > std::ldexp(1.0, bits - 1) - 1) {
        diags_.error("E0304", written.range,
                     "the pad value is not an " + std::string(ir::elemTypeName(type)) +
                         " value, but '" + e.name.name + "' is " + ir::elemTypeName(type));
        failed_ = true;
        return std::nullopt;
      }
    }
    return v;
  }

  // A conversion to an element type, `f32(x)`.
  ir::Expr conversionExpr(const ast::Expr &e, std::optional<ir::ElemType> &type) {
    ir::Expr out;
    ir::ElemType to = *ir::parseElemType(e.name.name);
    if (e.args.size() != 1) {
      diags_.error("E0309", e.range, "a conversion " + e.name.name + "(...) takes one argument");
      failed_ = true;
      return out;
    }
    std::optional<ir::ElemType> inner;
    out.args.push_back(expr(*e.args[0], inner));
    if (!inner)
      setConstTypes(out.args[0], to);
    out.kind = ir::Expr::Kind::Call;
    out.fn = ir::Fn::Cast;
    out.type = to;
    type = to;
    return out;
  }

  // A call of one of the known functions (exp, max, ...), its arguments of one type.
  ir::Expr callExpr(const ast::Expr &e, std::optional<ir::ElemType> &type) {
    ir::Expr out;
    const std::string &callee = e.name.name;
    const FunctionInfo *function = nullptr;
    for (const auto &known : knownFunctions())
      if (callee == known.name)
        function = &known;
    if (!function) {
      std::vector<std::string> names;
      for (const auto &known : knownFunctions())
        names.push_back(known.name);
      // A suggestion only, never a fix-it: another function computes something else (a
      // misspelt `sni` and a meant `sin` look alike to an edit distance).
      auto &diag = diags_.error("E0204", e.name.range, "unknown function '" + callee + "'");
      if (auto suggestion = closestMatch(callee, names); !suggestion.empty())
        diag.message += "; did you mean '" + suggestion + "'?";
      failed_ = true;
      return out;
    }
    if (int(e.args.size()) != function->arity) {
      diags_.error("E0309", e.range,
                   "'" + callee + "' takes " + std::to_string(function->arity) + " argument" +
                       (function->arity == 1 ? "" : "s") + ", not " +
                       std::to_string(e.args.size()));
      failed_ = true;
      return out;
    }
    out.kind = ir::Expr::Kind::Call;
    out.fn = function->fn;
    std::vector<std::optional<ir::ElemType>> types(e.args.size());
    for (size_t i = 0; i < e.args.size(); ++i)
      out.args.push_back(expr(*e.args[i], types[i]));
    type = unify(types, e);
    finishTypes(out, type);
    return out;
  }

  // -x, x + y, x - y, x * y, x / y, its operands of one type; numbers fold into one constant.
  ir::Expr arithmeticExpr(const ast::Expr &e, std::optional<ir::ElemType> &type) {
    using K = ast::Expr::Kind;
    ir::Expr out;
    out.kind = e.kind == K::Neg   ? ir::Expr::Kind::Neg
               : e.kind == K::Add ? ir::Expr::Kind::Add
               : e.kind == K::Sub ? ir::Expr::Kind::Sub
               : e.kind == K::Mul ? ir::Expr::Kind::Mul
                                  : ir::Expr::Kind::Div;
    std::vector<std::optional<ir::ElemType>> types(e.args.size());
    for (size_t i = 0; i < e.args.size(); ++i)
      out.args.push_back(expr(*e.args[i], types[i]));
    type = unify(types, e);
    finishTypes(out, type);
    // Constant-fold numeric subtrees so `2 * 0.5` is one constant.
    if (std::all_of(out.args.begin(), out.args.end(),
                    [](const ir::Expr &arg) { return arg.kind == ir::Expr::Kind::Const; })) {
      double a = out.args[0].value, b = out.args.size() > 1 ? out.args[1].value : 0;
      out.value = out.kind == ir::Expr::Kind::Neg   ? -a
                  : out.kind == ir::Expr::Kind::Add ? a + b
                  : out.kind == ir::Expr::Kind::Sub ? a - b
                  : out.kind == ir::Expr::Kind::Mul ? a * b
                                                    : a / b;
      out.kind = ir::Expr::Kind::Const;
      out.args.clear();
    }
    return out;
  }

  std::optional<ir::ElemType> unify(const std::vector<std::optional<ir::ElemType>> &types,
                                    const ast::Expr &e) {
    std::optional<ir::ElemType> t;
    for (const auto &x : types) {
      if (!x)
        continue;
      if (t && *t != *x && !failed_) {
        diags_.error("E0304", e.range,
                     std::string("mixed element types ") + ir::elemTypeName(*t) + " and " +
                         ir::elemTypeName(*x) + "; convert one side explicitly, e.g. " +
                         ir::elemTypeName(*t) + "(...)");
        failed_ = true;
      }
      t = t ? t : x;
    }
    return t;
  }

  // Gives a node its type, and its untyped operands (literals, and subtrees of literals such as
  // `log(4)`) the same type, as a literal takes the type of its context: every executor then
  // computes `min(log(4), X[i])` with X's i32 the same way.
  void finishTypes(ir::Expr &e, const std::optional<ir::ElemType> &type) {
    if (type) {
      e.type = *type;
      for (auto &a : e.args)
        if (!typed(a))
          setConstTypes(a, *type);
    }
  }

  // A condition's types are its own business (what it compares), settled when it was lowered;
  // a selection's type is that of its two values.
  static bool typed(const ir::Expr &e) {
    if (e.kind == ir::Expr::Kind::Read ||
        (e.kind == ir::Expr::Kind::Call && e.fn == ir::Fn::Cast) || ir::isCondition(e))
      return true;
    auto from = e.args.begin() + (e.kind == ir::Expr::Kind::Select ? 1 : 0);
    return std::any_of(from, e.args.end(), [](const ir::Expr &a) { return typed(a); });
  }

  static void setConstTypes(ir::Expr &e, ir::ElemType t) {
    if (e.kind == ir::Expr::Kind::Read ||
        (e.kind == ir::Expr::Kind::Call && e.fn == ir::Fn::Cast) || ir::isCondition(e))
      return;
    e.type = t;
    for (auto &a : e.args)
      setConstTypes(a, t);
  }

  template <class F> static void forEachIndexValue(ir::Expr &e, F &&f) {
    if (e.kind == ir::Expr::Kind::Index)
      f(e.access.indices[0]);
    for (auto &a : e.args)
      forEachIndexValue(a, f);
  }

  struct Dim {
    const ast::Expr *access;
    int tensor;
    size_t dim;
    ir::Affine index;
  };

  std::vector<Dim> allDims() {
    std::vector<Dim> dims;
    auto add = [&](const ast::Expr &acc, int t, const std::vector<ir::Affine> &indices) {
      const ir::Tensor &tensor = ctx_.tensors[t];
      if (ctx_.shapeUnknown[t])
        return;
      for (size_t d = 0; d < indices.size() && d < tensor.shape.size(); ++d)
        dims.push_back({&acc, t, d, indices[d]});
    };
    add(*s_.lhs, lhsTensor_, lhsIndices_);
    // A padded read is neither bounds-checked nor a source of ranges.
    for (const auto &[acc, t, indices] : readAccesses_)
      if (!acc->pad)
        add(*acc, t, indices);
    return dims;
  }

  std::string accessText(const Dim &d) const {
    return ctx_.tensors[d.tensor].name + " (dimension " + std::to_string(d.dim + 1) + ")";
  }

  // Tensor-Comprehensions-style range inference (see ARCHITECTURE.md): explicit `where` ranges
  // win; a dimension indexed by one variable alone fixes that variable's range (two such
  // dimensions must agree); remaining variables get the largest range keeping every access in
  // bounds, solved one unknown at a time.
  bool inferRanges() {
    std::vector<Dim> dims = allDims();
    bool ok = true;
    // Pass 1: dimensions indexed by one variable alone. A plain `v` fixes v's range to the
    // dimension, and two such dimensions must agree; a shifted or strided `a*v + c` only
    // constrains v when no plain dimension fixes it (the largest range keeping it in bounds).
    for (int plainPass = 1; plainPass >= 0; --plainPass) {
      for (const Dim &d : dims) {
        if (d.index.terms.size() != 1 || !d.index.quasi.empty())
          continue;
        auto [v, coef] = d.index.terms[0];
        bool plain = coef == 1 && d.index.constant == 0;
        if (coef == 0 || plain != bool(plainPass))
          continue;
        IndexVar &var = vars_[v];
        const ir::Tensor &t = ctx_.tensors[d.tensor];
        if (!t.shapeParams.empty() && !t.shapeParams[d.dim].empty()) {
          if (plain && !var.fromWhere)
            var.param = t.shapeParams[d.dim], var.lo = 0, var.hi = 0;
          continue;
        }
        if (var.fromWhere || !var.param.empty())
          continue;
        auto [lo, hi] = solve(coef, d.index.constant, d.index.constant, t.shape[d.dim]);
        if (var.lo && plain) {
          if (lo != *var.lo || hi != *var.hi) {
            sizeError("E0403", d.access->args[d.dim]->range,
                      "index '" + var.name + "' ranges over " + rangeText(*var.lo, *var.hi + 1) +
                          " from " + var.source + " but over " + rangeText(lo, hi + 1) + " from " +
                          accessText(d));
            ok = false;
          }
          continue;
        }
        if (var.lo && var.fixedByPlain)
          continue;
        if (var.lo) { // intersect the constraints of shifted or strided dimensions
          lo = std::max(lo, *var.lo);
          hi = std::min(hi, *var.hi);
        }
        var.lo = lo;
        var.hi = hi;
        var.fixedByPlain = plain;
        var.source = accessText(d);
        var.sourceRange = d.access->args[d.dim]->range;
      }
    }
    // Pass 2: propagate through dimensions with several variables.
    for (bool progress = true; progress;) {
      progress = false;
      for (const Dim &d : dims) {
        if (!d.index.quasi.empty()) // `/` and `%` bound no index; they are bounds-checked
          continue;
        int unknown = -1, unknownCount = 0;
        for (auto [v, coef] : d.index.terms)
          if (coef != 0 && !vars_[v].lo && vars_[v].param.empty())
            unknown = v, ++unknownCount;
        if (unknownCount != 1)
          continue;
        const ir::Tensor &t = ctx_.tensors[d.tensor];
        if (!t.shapeParams.empty() && !t.shapeParams[d.dim].empty())
          continue;
        int64_t restMin = d.index.constant, restMax = d.index.constant, coef = 0;
        for (auto [v, c] : d.index.terms) {
          if (v == unknown) {
            coef += c;
            continue;
          }
          int64_t a = c * (vars_[v].lo ? *vars_[v].lo : 0),
                  b = c * (vars_[v].hi ? *vars_[v].hi : 0);
          restMin += std::min(a, b);
          restMax += std::max(a, b);
        }
        if (coef == 0)
          continue;
        auto [lo, hi] = solve(coef, restMin, restMax, t.shape[d.dim]);
        vars_[unknown].lo = lo;
        vars_[unknown].hi = hi;
        vars_[unknown].source = accessText(d);
        progress = true;
      }
    }
    for (auto &v : vars_) {
      if (v.param.empty() && !v.lo) {
        sizeError("E0405", v.firstUse,
                  "cannot infer the range of index '" + v.name +
                      "': no tensor dimension determines it" +
                      (inPaddedRead(int(&v - vars_.data())) ? " (a padded read never does)" : "") +
                      "; add `where " + v.name + " in 0..N`");
        ok = false;
      } else if (v.param.empty() && *v.hi < *v.lo) {
        sizeError("E0406", v.firstUse,
                  "index '" + v.name + "' has an empty range (" + rangeText(*v.lo, *v.hi + 1) +
                      " from " + v.source + "); the shapes leave no valid point");
        ok = false;
      }
    }
    return ok;
  }

  bool inPaddedRead(int var) const {
    for (const auto &[acc, t, indices] : readAccesses_)
      for (const auto &d : indices)
        if (acc->pad && d.coefficientOf(var) != 0)
          return true;
    return false;
  }

  // Range of v with coef*v + [restMin, restMax] inside [0, size): inclusive [lo, hi].
  static std::pair<int64_t, int64_t> solve(int64_t coef, int64_t restMin, int64_t restMax,
                                           int64_t size) {
    auto floorDiv = [](int64_t a, int64_t b) {
      return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
    };
    auto ceilDiv = [&](int64_t a, int64_t b) { return -floorDiv(-a, b); };
    if (coef > 0)
      return {ceilDiv(-restMin, coef), floorDiv(size - 1 - restMax, coef)};
    return {ceilDiv(size - 1 - restMax, coef), floorDiv(-restMin, coef)};
  }

  bool checkBounds() {
    bool ok = true;
    for (const Dim &d : allDims()) {
      const ir::Tensor &t = ctx_.tensors[d.tensor];
      if (!t.shapeParams.empty() && !t.shapeParams[d.dim].empty()) {
        // A dimension of free size R is indexed by an index that ranges over R, alone.
        const std::string &param = t.shapeParams[d.dim];
        bool plain = d.index.terms.size() == 1 && d.index.terms[0].second == 1 &&
                     d.index.constant == 0 && vars_[d.index.terms[0].first].param == param;
        if (!plain) {
          sizeError("E0404", d.access->args[d.dim]->range,
                    "dimension " + std::to_string(d.dim + 1) + " of '" + t.name +
                        "' has the free size " + param + "; index it by an index ranging over " +
                        param + ", alone");
          ok = false;
        }
        continue;
      }
      // Coefficients and bounds are at most 2^40 each: their products and sums are exact in
      // 128 bits, and compared before anything narrows them.
      __int128 lo = d.index.constant, hi = d.index.constant;
      bool free = false;
      for (auto [v, c] : d.index.terms) {
        if (!vars_[v].param.empty()) {
          free = true;
          continue;
        }
        __int128 a = __int128(c) * *vars_[v].lo, b = __int128(c) * *vars_[v].hi;
        lo += std::min(a, b);
        hi += std::max(a, b);
      }
      if (free)
        continue;
      if (!d.index.quasi.empty())
        std::tie(lo, hi) = ir::rangeOf(d.index, [&](int v) {
          return std::pair<int64_t, int64_t>(*vars_[size_t(v)].lo, *vars_[size_t(v)].hi);
        });
      if (lo < 0 || hi >= t.shape[d.dim]) {
        std::string ranges;
        for (auto [v, c] : d.index.terms)
          ranges += (ranges.empty() ? "" : ", ") + vars_[v].name + " in " +
                    rangeText(*vars_[v].lo, *vars_[v].hi + 1);
        sizeError("E0404", d.access->args[d.dim]->range,
                  "this index reaches " + rangeText(wide(lo), wide(hi + 1)) + " but dimension " +
                      std::to_string(d.dim + 1) + " of '" + t.name + "' has size " +
                      std::to_string(t.shape[d.dim]) + (ranges.empty() ? "" : " (" + ranges + ")") +
                      (guards_.empty() ? ""
                                       : "; bounds hold over every index's whole range, whatever "
                                         "the `where` conditions: pad the read (`pad 0`)"));
        ok = false;
      }
    }
    return ok;
  }

  const ast::Statement &s_;
  LowerContext &ctx_;
  DiagnosticSink &diags_;
  int lhsTensor_ = -1;
  bool failed_ = false;
  std::vector<IndexVar> vars_;
  std::set<std::string> indexNames_;
  std::vector<std::pair<int, SourceRange>> reads_;
  std::vector<ir::Affine> lhsIndices_;
  std::vector<ir::Guard> guards_; // in vars_ numbering until buildStatement
  std::vector<int> writeVars_;    // the write index of each written dimension, -1 if strided
  std::vector<int> stridedVars_;  // the indices of strided dimensions
  bool inGuard_ = false;
  std::vector<std::tuple<const ast::Expr *, int, std::vector<ir::Affine>>> readAccesses_;
};

} // namespace

std::optional<ir::Statement> lowerStatement(const ast::Statement &s, LowerContext &ctx,
                                            DiagnosticSink &diags, bool &ok) {
  ok = true;
  StatementLowerer lowerer(s, ctx, diags);
  auto lowered = lowerer.run(ok);
  // The exact canonical forms (ir/Canonicalize.h) belong to the IR itself: the interpreter,
  // dump-ir, the mapper and every executor then agree on one form, and an instruction's
  // semantics, lowered here too, unify with a statement in that same form.
  if (lowered)
    ir::canonicalize(*lowered);
  return lowered;
}

} // namespace detail
} // namespace isam::sema
