#include "ir/StridedWrites.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace isam::ir {
namespace {

// One index of a strided dimension: its position, coefficient and extent.
struct Digit {
  int index = 0;
  int64_t coef = 0;
  int64_t extent = 0;
};

// The dimension's indices in increasing coefficient, repeated terms merged.
std::vector<Digit> digitsOf(const Affine &a, const Statement &s) {
  std::map<int, int64_t> merged;
  for (auto [i, coef] : a.terms)
    merged[i] += coef;
  std::vector<Digit> out;
  for (auto [i, coef] : merged)
    if (coef != 0)
      out.push_back({i, coef, s.indices[size_t(i)].extent});
  std::stable_sort(out.begin(), out.end(),
                   [](const Digit &x, const Digit &y) { return x.coef < y.coef; });
  return out;
}

// Each coefficient divides the next and covers the range of the ones below: the value of the
// dimension then spells every index out, as digits of a mixed radix.
bool digitSolvable(const std::vector<Digit> &ds) {
  for (size_t j = 0; j + 1 < ds.size(); ++j)
    if (ds[j + 1].coef % ds[j].coef != 0 || __int128(ds[j].coef) * ds[j].extent > ds[j + 1].coef)
      return false;
  return true;
}

// Two points of the dimension's indices that write one element ("i = 0, r = 2 and i = 1,
// r = 0 both write element 2"), the first such pair in the statement's order of indices,
// searched over at most 2^20 points; empty if none is found.
std::string collision(std::vector<Digit> ds, const Statement &s, int64_t constant) {
  std::sort(ds.begin(), ds.end(), [](const Digit &a, const Digit &b) { return a.index < b.index; });
  int64_t total = 1;
  for (const auto &d : ds) {
    total *= d.extent;
    if (total > (int64_t(1) << 20))
      return "";
  }
  auto decode = [&](int64_t p) { // the last index fastest
    std::vector<int64_t> x(ds.size());
    for (size_t j = ds.size(); j-- > 0;) {
      x[j] = p % ds[j].extent;
      p /= ds[j].extent;
    }
    return x;
  };
  auto text = [&](const std::vector<int64_t> &x) {
    std::string out;
    for (size_t j = 0; j < ds.size(); ++j)
      out += (j ? ", " : "") + s.indices[size_t(ds[j].index)].name + " = " + std::to_string(x[j]);
    return out;
  };
  std::unordered_map<int64_t, int64_t> first;
  for (int64_t p = 0; p < total; ++p) {
    std::vector<int64_t> x = decode(p);
    int64_t value = constant;
    for (size_t j = 0; j < ds.size(); ++j)
      value += ds[j].coef * x[j];
    auto [it, fresh] = first.emplace(value, p);
    if (!fresh)
      return text(decode(it->second)) + " and " + text(x) + " both write element " +
             std::to_string(value);
  }
  return "";
}

Affine constant(int64_t c) {
  Affine a;
  a.constant = c;
  return a;
}

Affine quasi(const Affine &inner, int64_t divisor, bool remainder) {
  if (divisor == 1)
    return remainder ? constant(0) : inner;
  Affine a;
  a.quasi.push_back({inner, divisor, remainder, 1});
  return a;
}

void addScaled(Affine &out, const Affine &x, int64_t k) {
  for (auto [i, coef] : x.terms)
    out.terms.push_back({i, coef * k});
  for (auto q : x.quasi) {
    q.coef *= k;
    out.quasi.push_back(std::move(q));
  }
  out.constant += x.constant * k;
}

Affine difference(const Affine &a, const Affine &b) {
  Affine d = a;
  addScaled(d, b, -1);
  return d;
}

// a with every index replaced by its expression in the new positions.
Affine substitute(const Affine &a, const std::vector<Affine> &replacement) {
  Affine out = constant(a.constant);
  for (auto [i, coef] : a.terms)
    addScaled(out, replacement[size_t(i)], coef);
  for (auto q : a.quasi) {
    q.inner = substitute(q.inner, replacement);
    out.quasi.push_back(std::move(q));
  }
  return out;
}

void forEachIndexValue(Expr &e, const std::function<void(Affine &)> &f) {
  if (e.kind == Expr::Kind::Index)
    f(e.access.indices[0]);
  for (auto &a : e.args)
    forEachIndexValue(a, f);
}

bool mentions(const Affine &a, const std::vector<bool> &indices) {
  for (auto [i, coef] : a.terms)
    if (coef != 0 && indices[size_t(i)])
      return true;
  for (const auto &q : a.quasi)
    if (mentions(q.inner, indices))
      return true;
  return false;
}

// Whether g holds at every point of s's domain.
bool alwaysHolds(const Guard &g, const Statement &s) {
  auto [lo, hi] = rangeOver(difference(g.lhs, g.rhs), s);
  switch (g.cmp) {
  case Cmp::Lt:
    return hi < 0;
  case Cmp::Le:
    return hi <= 0;
  case Cmp::Gt:
    return lo > 0;
  case Cmp::Ge:
    return lo >= 0;
  case Cmp::Eq:
    return lo == 0 && hi == 0;
  case Cmp::Ne:
    return lo > 0 || hi < 0;
  }
  return false;
}

class Solver {
public:
  Solver(Statement &s, const std::vector<Tensor> &tensors) : s_(s), tensors_(tensors) {}

  std::optional<StridedWriteError> run() {
    const Tensor &written = tensors_[size_t(s_.lhs.tensor)];
    size_t rank = s_.lhs.indices.size();
    digits_.resize(rank);
    solvedAll_.assign(rank, false);
    recovered_.assign(s_.indices.size(), false);
    bool any = false;
    for (size_t d = 0; d < rank; ++d) {
      if (!isStridedWrite(s_.lhs.indices[d]))
        continue;
      any = true;
      digits_[d] = digitsOf(s_.lhs.indices[d], s_);
      solvedAll_[d] = digitSolvable(digits_[d]);
      if (!solvedAll_[d] && s_.reduce == ReduceOp::None)
        return StridedWriteError{d, assignmentError(d)};
      for (const Digit &x : digits_[d])
        recovered_[size_t(x.index)] = solvedAll_[d] || &x == &digits_[d].back();
    }
    if (!any)
      return std::nullopt;
    if (auto error = gatherError())
      return error;
    renumber(written);
    rewrite();
    return std::nullopt;
  }

private:
  Statement &s_;
  const std::vector<Tensor> &tensors_;
  std::vector<std::vector<Digit>> digits_; // per written dimension; empty where it is plain
  std::vector<bool> solvedAll_;
  std::vector<bool> recovered_;     // per old index: replaced by a function of a new write index
  std::vector<Affine> replacement_; // per old index: its value in the new positions
  std::vector<Index> indices_;
  std::vector<Affine> lhs_;
  std::vector<Guard> guards_;

  std::string assignmentError(size_t d) const {
    std::string example = collision(digits_[d], s_, s_.lhs.indices[d].constant);
    if (!example.empty())
      return "an assignment writes each element once, but " + example +
             "; accumulate with `+=` or give each point an element of its own";
    return "an assignment's strided write must spell each index out: coefficients that each "
           "divide the next and cover the range below it (`O[2 * i + r]` with r in 0..2)";
  }

  // A gathered index is read in bounds at every point (ir/Compute.h), so it may not depend on
  // an index that the guards keep in range.
  std::optional<StridedWriteError> gatherError() const {
    std::optional<StridedWriteError> error;
    forEachRead(s_.rhs, [&](const Access &a) {
      for (const auto &g : a.gathers)
        for (const auto &x : g.indices)
          if (!error && mentions(x, recovered_))
            error = StridedWriteError{dimensionOf(x),
                                      "a strided write cannot gather through its own indices; "
                                      "gather into a local first, then write the local strided"};
    });
    return error;
  }

  size_t dimensionOf(const Affine &x) const {
    for (size_t d = 0; d < digits_.size(); ++d)
      for (const Digit &digit : digits_[d])
        if (x.coefficientOf(digit.index) != 0)
          return d;
    return 0;
  }

  // One write index per dimension (a strided one's new), then the reductions: the indices of
  // a strided dimension that stay, then the statement's own.
  void renumber(const Tensor &written) {
    std::vector<int> position(s_.indices.size(), -1);
    for (size_t d = 0; d < digits_.size(); ++d) {
      if (digits_[d].empty()) {
        int old = s_.lhs.indices[d].terms[0].first;
        position[size_t(old)] = int(d);
        indices_.push_back(s_.indices[size_t(old)]);
        continue;
      }
      Index y;
      y.name = s_.indices[size_t(digits_[d].back().index)].name + "'";
      y.extent = written.shape[d];
      indices_.push_back(y);
    }
    auto reduction = [&](size_t old) {
      position[old] = int(indices_.size());
      indices_.push_back(s_.indices[old]);
      indices_.back().reduction = true;
    };
    for (const auto &ds : digits_)
      for (const Digit &x : ds)
        if (!recovered_[size_t(x.index)])
          reduction(size_t(x.index));
    for (size_t i = 0; i < s_.indices.size(); ++i)
      if (s_.indices[i].reduction)
        reduction(i);
    replacement_.resize(s_.indices.size());
    for (size_t i = 0; i < s_.indices.size(); ++i)
      if (position[i] >= 0)
        replacement_[i].terms = {{position[i], 1}};
    for (size_t d = 0; d < digits_.size(); ++d) {
      Affine y;
      y.terms = {{int(d), 1}};
      lhs_.push_back(digits_[d].empty() ? substitute(s_.lhs.indices[d], replacement_) : y);
      if (!digits_[d].empty())
        recover(d, difference(y, constant(s_.lhs.indices[d].constant)));
    }
  }

  // v: the dimension's index less its constant, Σ coef_j * index_j where the guards hold.
  void recover(size_t d, const Affine &v) {
    const std::vector<Digit> &ds = digits_[d];
    const Digit &top = ds.back();
    Affine rest = v; // v less the terms of the indices that stay
    if (solvedAll_[d]) {
      for (size_t j = 0; j + 1 < ds.size(); ++j) {
        replacement_[size_t(ds[j].index)] =
            quasi(quasi(v, ds[j].coef, false), ds[j + 1].coef / ds[j].coef, true);
        if (ds[j].coef * ds[j].extent < ds[j + 1].coef)
          guards_.push_back({replacement_[size_t(ds[j].index)], Cmp::Lt, constant(ds[j].extent)});
      }
      if (ds[0].coef > 1 && ds.size() > 1)
        guards_.push_back({quasi(v, ds[0].coef, true), Cmp::Eq, constant(0)});
    } else {
      for (size_t j = 0; j + 1 < ds.size(); ++j)
        addScaled(rest, replacement_[size_t(ds[j].index)], -ds[j].coef);
    }
    replacement_[size_t(top.index)] = quasi(rest, top.coef, false);
    if (top.coef > 1 && !(solvedAll_[d] && ds.size() > 1))
      guards_.push_back({quasi(rest, top.coef, true), Cmp::Eq, constant(0)});
    guards_.push_back({rest, Cmp::Ge, constant(0)});
    guards_.push_back({rest, Cmp::Lt, constant(top.coef * top.extent)});
  }

  void rewrite() {
    std::vector<Affine> oldLhs = s_.lhs.indices;
    auto selfRead = [&](const Access &a) {
      if (a.tensor != s_.lhs.tensor || a.gathers.size() || a.indices.size() != oldLhs.size())
        return false;
      for (size_t d = 0; d < oldLhs.size(); ++d)
        if (!a.indices[d].quasi.empty() || a.indices[d].constant != oldLhs[d].constant ||
            termsOf(a.indices[d]) != termsOf(oldLhs[d]))
          return false;
      return true;
    };
    forEachRead(s_.rhs, [&](Access &a) {
      if (selfRead(a)) { // the very element written: the new write's
        a.indices = lhs_;
        return;
      }
      for (auto &x : a.indices)
        x = substitute(x, replacement_);
      for (auto &g : a.gathers)
        for (auto &x : g.indices)
          x = substitute(x, replacement_);
    });
    forEachIndexValue(s_.rhs, [&](Affine &x) { x = substitute(x, replacement_); });
    for (auto &g : s_.guards) {
      g.lhs = substitute(g.lhs, replacement_);
      g.rhs = substitute(g.rhs, replacement_);
    }
    s_.indices = std::move(indices_);
    s_.lhs.indices = std::move(lhs_);
    for (auto &g : guards_)
      if (!alwaysHolds(g, s_))
        s_.guards.push_back(std::move(g));
    padReadsLeavingTheirTensor();
  }

  std::map<int, int64_t> termsOf(const Affine &a) const {
    std::map<int, int64_t> m;
    for (auto [i, coef] : a.terms)
      m[i] += coef;
    return m;
  }

  void padReadsLeavingTheirTensor() {
    forEachRead(s_.rhs, [&](Access &a) {
      if (a.pad)
        return;
      const Tensor &t = tensors_[size_t(a.tensor)];
      for (size_t d = 0; d < a.indices.size(); ++d) {
        auto [lo, hi] = rangeOver(a.indices[d], s_);
        if (lo < 0 || hi >= t.shape[d])
          a.pad = 0.0;
      }
    });
  }
};

} // namespace

bool isStridedWrite(const Affine &a) {
  return !a.quasi.empty() || a.terms.size() != 1 || a.terms[0].second != 1;
}

std::optional<StridedWriteError> solveStridedWrites(Statement &s,
                                                    const std::vector<Tensor> &tensors) {
  Statement copy = s;
  auto error = Solver(copy, tensors).run();
  if (!error)
    s = std::move(copy);
  return error;
}

} // namespace isam::ir
