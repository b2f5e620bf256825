#include "ir/Verify.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace isam::ir {

namespace {

class KernelVerifier {
public:
  explicit KernelVerifier(const Kernel &k) : k_(k) {}

  std::vector<Diagnostic> run() {
    tensors();
    for (size_t s = 0; s < k_.statements.size(); ++s)
      statement(s);
    return std::move(out_);
  }

private:
  const Kernel &k_;
  std::vector<Diagnostic> out_;

  void fail(SourceRange at, const std::string &what) {
    Diagnostic d;
    d.code = "E0901";
    d.range = at.valid() ? at : k_.range;
    d.message = "internal: compute IR of '" + k_.name + "': " + what;
    out_.push_back(std::move(d));
  }

  void tensors() {
    std::set<std::string> names;
    for (const Tensor &t : k_.tensors) {
      if (!names.insert(t.name).second)
        fail(t.range, "tensor '" + t.name + "' declared twice");
      if (!t.shapeParams.empty() && t.shapeParams.size() != t.shape.size()) {
        fail(t.range, "tensor '" + t.name + "' has " + std::to_string(t.shape.size()) +
                          " dimensions but " + std::to_string(t.shapeParams.size()) +
                          " free-size entries");
        continue;
      }
      for (size_t d = 0; d < t.shape.size(); ++d) {
        bool free = !t.shapeParams.empty() && !t.shapeParams[d].empty();
        if (free ? t.shape[d] != 0 : t.shape[d] < 1)
          fail(t.range, "dimension " + std::to_string(d + 1) + " of '" + t.name + "' has size " +
                            std::to_string(t.shape[d]) +
                            (free ? " but is the free size " + t.shapeParams[d] : ""));
      }
    }
  }

  bool isFree(const Tensor &t, size_t d) const {
    return d < t.shapeParams.size() && !t.shapeParams[d].empty();
  }

  // Rank, index positions and bounds of one access; false when it cannot be followed further.
  static bool quasiOk(const Statement &s, const Affine &x) {
    for (const auto &q : x.quasi) {
      if (q.divisor <= 0 || !quasiOk(s, q.inner))
        return false;
      for (auto [i, coef] : q.inner.terms)
        if (i < 0 || size_t(i) >= s.indices.size())
          return false;
    }
    return true;
  }

  bool access(const Statement &s, const Access &a, const std::string &role) {
    if (a.tensor < 0 || size_t(a.tensor) >= k_.tensors.size()) {
      fail(s.range, role + " names tensor #" + std::to_string(a.tensor) + " of " +
                        std::to_string(k_.tensors.size()));
      return false;
    }
    const Tensor &t = k_.tensors[size_t(a.tensor)];
    if (a.indices.size() != t.shape.size()) {
      fail(s.range, role + " indexes '" + t.name + "' with " + std::to_string(a.indices.size()) +
                        " indices but it has " + std::to_string(t.shape.size()) + " dimensions");
      return false;
    }
    bool ok = true;
    for (size_t d = 0; d < a.indices.size(); ++d) {
      const Affine &x = a.indices[d];
      std::string dim =
          "dimension " + std::to_string(d + 1) + " of '" + t.name + "' (" + role + ")";
      // The range of the dimension's index over the domain, exact in 128 bits (sema bounds
      // coefficients and extents so that no product overflows there).
      __int128 lo = x.constant, hi = x.constant;
      bool followable = true;
      for (auto [i, coef] : x.terms) {
        if (i < 0 || size_t(i) >= s.indices.size()) {
          fail(s.range, dim + " uses index position " + std::to_string(i) + " of " +
                            std::to_string(s.indices.size()));
          followable = ok = false;
          continue;
        }
        __int128 top = __int128(coef) * (s.indices[size_t(i)].extent - 1);
        lo += std::min<__int128>(0, top);
        hi += std::max<__int128>(0, top);
      }
      if (!x.quasi.empty()) {
        if (!quasiOk(s, x)) {
          fail(s.range, dim + " has a quasi-affine part with a bad divisor or index position");
          ok = false;
          continue;
        }
        std::tie(lo, hi) = rangeOver(x, s);
      }
      if (!followable)
        continue;
      if (isFree(t, d)) {
        const std::string &param = t.shapeParams[d];
        bool plain = x.terms.size() == 1 && x.terms[0].second == 1 && x.constant == 0 &&
                     s.indices[size_t(x.terms[0].first)].param == param;
        if (!plain)
          fail(s.range, dim + " has the free size " + param +
                            " but is not indexed by an index over " + param + " alone");
        continue;
      }
      for (auto [i, coef] : x.terms)
        if (!s.indices[size_t(i)].param.empty() && coef != 0) {
          fail(s.range, dim + " has a fixed size but is indexed by '" + s.indices[size_t(i)].name +
                            "', which ranges over the free size " + s.indices[size_t(i)].param);
          followable = false;
        }
      if (followable && !a.pad && (lo < 0 || hi >= t.shape[d]))
        fail(s.range, dim + " reaches " + std::to_string(int64_t(lo)) + ".." +
                          std::to_string(int64_t(hi) + 1) + " over the domain but has size " +
                          std::to_string(t.shape[d]));
    }
    return ok;
  }

  void writeAccess(const Statement &s) {
    if (!access(s, s.lhs, "the written access"))
      return;
    if (s.lhs.pad)
      fail(s.range, "the written access is padded");
    for (const auto &x : s.lhs.indices)
      if (!x.quasi.empty())
        fail(s.range, "the written access has a quasi-affine index");
    const Tensor &t = k_.tensors[size_t(s.lhs.tensor)];
    if (t.role == TensorRole::Input)
      fail(s.range, "the statement writes the input '" + t.name + "'");
    // One distinct index per dimension, in order: position d indexes dimension d (offset by a
    // constant where a `where` range starts above 0; the bounds check covers the offset).
    for (size_t d = 0; d < s.lhs.indices.size(); ++d) {
      const Affine &x = s.lhs.indices[d];
      if (x.terms.size() != 1 || x.terms[0].second != 1 || x.terms[0].first != int(d))
        fail(s.range, "dimension " + std::to_string(d + 1) + " of the written '" + t.name +
                          "' is not indexed by write index #" + std::to_string(d));
    }
  }

  void indices(const Statement &s) {
    size_t writes = s.lhs.indices.size();
    std::set<std::string> names;
    bool anyReduction = false;
    for (size_t i = 0; i < s.indices.size(); ++i) {
      const Index &x = s.indices[i];
      if (!names.insert(x.name).second)
        fail(s.range, "index '" + x.name + "' appears twice");
      if (x.param.empty() ? x.extent < 1 : x.extent != 0)
        fail(s.range, "index '" + x.name + "' has extent " + std::to_string(x.extent) +
                          (x.param.empty() ? "" : " but ranges over the free size " + x.param));
      // Write indices first (one per written dimension), then exactly the others, reduced.
      bool written = i < writes;
      if (x.reduction == written)
        fail(s.range, "index '" + x.name + "' is " +
                          (written ? "in the written access but marked as a reduction"
                                   : "absent from the written access but not marked as a "
                                     "reduction"));
      anyReduction = anyReduction || !written;
    }
    if (s.indices.size() < writes)
      fail(s.range, "the written access has " + std::to_string(writes) +
                        " dimensions but the statement only " + std::to_string(s.indices.size()) +
                        " indices");
    if (anyReduction && s.reduce == ReduceOp::None)
      fail(s.range, "the statement has reduction indices but no reduction operator");
  }

  void expr(const Statement &s, const Expr &e, std::vector<const Access *> &reads) {
    if (int(e.args.size()) != exprArity(e)) {
      fail(s.range, "an expression node has " + std::to_string(e.args.size()) +
                        " operands instead of " + std::to_string(exprArity(e)));
      return;
    }
    if (e.kind == Expr::Kind::Index) {
      if (e.access.tensor != -1 || e.access.indices.size() != 1) {
        fail(s.range, "an index value holds a tensor or not one affine function");
        return;
      }
      for (auto [i, coef] : e.access.indices[0].terms)
        if (i < 0 || size_t(i) >= s.indices.size())
          fail(s.range, "an index value uses index position " + std::to_string(i) + " of " +
                            std::to_string(s.indices.size()));
      return;
    }
    if (e.kind == Expr::Kind::Read) {
      reads.push_back(&e.access);
      gathers(s, e.access);
      if (access(s, e.access, "a read") && e.type != k_.tensors[size_t(e.access.tensor)].type)
        fail(s.range, std::string("a read of '") + k_.tensors[size_t(e.access.tensor)].name +
                          "' is typed " + elemTypeName(e.type) + " but the tensor is " +
                          elemTypeName(k_.tensors[size_t(e.access.tensor)].type));
      return;
    }
    bool conversion = e.kind == Expr::Kind::Call && e.fn == Fn::Cast;
    for (size_t i = 0; i < e.args.size(); ++i) {
      const Expr &a = e.args[i];
      // Conditions are what And, Or and Not combine and what a Select's first operand is;
      // everything else is a value of the node's own type.
      bool wantsCondition = e.kind == Expr::Kind::And || e.kind == Expr::Kind::Or ||
                            e.kind == Expr::Kind::Not || (e.kind == Expr::Kind::Select && i == 0);
      if (isCondition(a) != wantsCondition)
        fail(s.range, wantsCondition ? "a value where a condition belongs"
                                     : "a condition where a value belongs");
      else if (!wantsCondition && !conversion && a.type != e.type)
        fail(s.range, std::string("an operand typed ") + elemTypeName(a.type) + " under a " +
                          elemTypeName(e.type) + " operation");
      expr(s, a, reads);
    }
  }

  static bool samePoint(const Affine &a, const Affine &b, size_t indices) {
    if (a.constant != b.constant)
      return false;
    for (size_t i = 0; i < indices; ++i)
      if (a.coefficientOf(int(i)) != b.coefficientOf(int(i)))
        return false;
    return true;
  }

  void selfReads(const Statement &s, const std::vector<const Access *> &reads) {
    for (const Access *r : reads) {
      if (r->tensor != s.lhs.tensor)
        continue;
      const std::string &name = k_.tensors[size_t(r->tensor)].name;
      if (s.reduce != ReduceOp::None) {
        fail(s.range, "the reduction reads '" + name + "', which it writes");
        return;
      }
      bool same = r->indices.size() == s.lhs.indices.size();
      for (size_t d = 0; same && d < r->indices.size(); ++d)
        same = samePoint(r->indices[d], s.lhs.indices[d], s.indices.size());
      if (!same) {
        fail(s.range, "the statement reads '" + name + "' at another point than it writes");
        return;
      }
    }
  }

  // A gathered read is padded, and each gathered index an in-bounds read of an integer tensor.
  void gathers(const Statement &s, const Access &a) {
    if (a.gathers.empty())
      return;
    if (!a.pad)
      fail(s.range, "a gathered read is not padded");
    for (size_t g = 0; g < a.gathers.size(); ++g) {
      const Gather &x = a.gathers[g];
      if (x.dim >= a.indices.size() || (g > 0 && x.dim <= a.gathers[g - 1].dim)) {
        fail(s.range, "a gather names dimension " + std::to_string(x.dim + 1) +
                          " out of order or beyond the read's");
        continue;
      }
      Access index{x.tensor, x.indices, std::nullopt, {}};
      if (access(s, index, "a gathered index") && isFloat(k_.tensors[size_t(x.tensor)].type))
        fail(s.range, "a gathered index reads the floating-point '" +
                          k_.tensors[size_t(x.tensor)].name + "'");
    }
  }

  void guards(const Statement &s) {
    auto positionsOk = [&](const Affine &x) {
      for (auto [i, coef] : x.terms)
        if (i < 0 || size_t(i) >= s.indices.size())
          return false;
      return quasiOk(s, x);
    };
    for (const auto &g : s.guards)
      if (!positionsOk(g.lhs) || !positionsOk(g.rhs))
        fail(s.range, "a guard names an index position the statement does not have");
  }

  void statement(size_t at) {
    const Statement &s = k_.statements[at];
    indices(s);
    writeAccess(s);
    guards(s);
    std::vector<const Access *> reads;
    size_t before = out_.size();
    if (isCondition(s.rhs))
      fail(s.range, "the right-hand side is a condition, not a value");
    expr(s, s.rhs, reads);
    bool lhsOk = s.lhs.tensor >= 0 && size_t(s.lhs.tensor) < k_.tensors.size();
    if (lhsOk && s.rhs.type != k_.tensors[size_t(s.lhs.tensor)].type)
      fail(s.range, std::string("the right-hand side is ") + elemTypeName(s.rhs.type) +
                        " but the written '" + k_.tensors[size_t(s.lhs.tensor)].name + "' is " +
                        elemTypeName(k_.tensors[size_t(s.lhs.tensor)].type));
    if (lhsOk && out_.size() == before)
      selfReads(s, reads);
  }
};

} // namespace

std::vector<Diagnostic> verify(const Kernel &kernel) {
  return KernelVerifier(kernel).run();
}

} // namespace isam::ir
