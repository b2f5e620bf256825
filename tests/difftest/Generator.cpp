#include "Generator.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace isam::difftest {

const std::vector<std::string> &Features::names() {
  static const std::vector<std::string> n = {
      "self-read",      "partial-writes",  "int-overflow",     "multi-offset",
      "diagonal",       "implicit-chains", "implicit-scalars", "guards",
      "shifted-writes", "gathers",         "strided-writes"};
  return n;
}

bool Features::set(const std::string &name, bool on) {
  bool *flags[] = {&selfRead,      &partialWrites,  &intOverflow,     &multiOffset,
                   &diagonal,      &implicitChains, &implicitScalars, &guards,
                   &shiftedWrites, &gathers,        &stridedWrites};
  for (size_t i = 0; i < names().size(); ++i)
    if (names()[i] == name) {
      *flags[i] = on;
      return true;
    }
  return false;
}

std::string Features::flags() const {
  const bool flags[] = {selfRead,      partialWrites,  intOverflow,     multiOffset,
                        diagonal,      implicitChains, implicitScalars, guards,
                        shiftedWrites, gathers,        stridedWrites};
  std::string out;
  for (size_t i = 0; i < names().size(); ++i)
    if (!flags[i])
      out += " --no-" + names()[i];
  if (maxStatements != Features().maxStatements)
    out += " --max-statements " + std::to_string(maxStatements);
  return out;
}

std::string Features::describe() const {
  const bool flags[] = {selfRead,      partialWrites,  intOverflow,     multiOffset,
                        diagonal,      implicitChains, implicitScalars, guards,
                        shiftedWrites, gathers,        stridedWrites};
  std::string out;
  for (size_t i = 0; i < names().size(); ++i)
    if (!flags[i])
      out += (out.empty() ? "no-" : " no-") + names()[i];
  return out.empty() ? "all features" : out;
}

namespace {

using ir::ElemType;

// splitmix64: the same sequence everywhere.
class Rng {
public:
  // SplitMix64. The seed is mixed before it becomes the state: a state of seed * gamma would
  // make seed n + 1's stream seed n's shifted by one draw, so that consecutive seeds generated
  // nearly the same kernels (and some choices, such as one function, never came up at all).
  explicit Rng(uint64_t seed) : s_(mix(seed + 0x632BE59BD9B4E019ull)) {}
  uint64_t next() { return mix(s_ += 0x9E3779B97F4A7C15ull); }
  int64_t below(int64_t n) { return n <= 1 ? 0 : int64_t(next() % uint64_t(n)); }
  bool chance(int percent) { return below(100) < percent; }
  // An index into `weights`, chosen in proportion to them.
  size_t weighted(std::initializer_list<int> weights) {
    int total = 0;
    for (int w : weights)
      total += w;
    int64_t r = below(total);
    size_t i = 0;
    for (int w : weights) {
      if (r < w)
        return i;
      r -= w, ++i;
    }
    return 0;
  }
  template <class T> const T &pick(const std::vector<T> &v) {
    return v[size_t(below(int64_t(v.size())))];
  }

private:
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  uint64_t s_;
};

struct Iv {
  double lo = 0, hi = 0;
};

Iv product(Iv a, Iv b) {
  double p[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  return {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
}

Iv hull(Iv a, Iv b) {
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}
double mag(Iv a) {
  return std::max(std::fabs(a.lo), std::fabs(a.hi));
}

bool isInt(ElemType t) {
  return !ir::isFloat(t);
}

bool fits(ElemType t, Iv v) {
  switch (t) {
  case ElemType::I8:
    return v.lo >= -128 && v.hi <= 127;
  case ElemType::I32:
    return v.lo >= -2147483648.0 && v.hi <= 2147483647.0;
  default:
    return true;
  }
}

// Intermediate magnitudes floats may reach: small enough that rounding stays within the
// reference tolerance (which assumes values of order 1) after a few operations.
constexpr double kFloatLimit = 16;
constexpr int64_t kMaxElements = 1 << 20;
// Results of sums may grow larger (each term is small).
constexpr double kFloatSumLimit = 2048;

const std::vector<int64_t> kSizes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 16, 17, 19, 23, 29, 31, 37};
const std::vector<ElemType> kTypes = {ElemType::F16, ElemType::BF16, ElemType::F32,
                                      ElemType::F64, ElemType::I8,   ElemType::I32};
const std::vector<std::string> kWriteNames = {"i", "j", "l", "m", "n"};
const std::vector<std::string> kReduceNames = {"k", "r"};

bool isPrime(int64_t n) {
  if (n < 2)
    return false;
  for (int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0)
      return false;
  return true;
}

class Gen {
public:
  Gen(uint64_t seed, const Features &f) : rng_(seed), f_(f) {}

  Generated run() {
    static const int typeWeights[] = {12, 12, 34, 10, 16, 16};
    int64_t r = rng_.below(100), acc = 0;
    mainType_ = ElemType::F32;
    for (size_t i = 0; i < kTypes.size(); ++i)
      if (r < (acc += typeWeights[i])) {
        mainType_ = kTypes[i];
        break;
      }
    large_ = rng_.chance(10);
    if (large_)
      trait("large");
    int n = 1 + int(rng_.below(std::max(1, f_.maxStatements)));
    trait("statements:" + std::to_string(n));
    for (int s = 0; s < n; ++s)
      statement(s == n - 1);
    Generated g;
    g.kernel = std::move(k_);
    g.traits = std::move(traits_);
    return g;
  }

private:
  struct Idx {
    std::string name;
    int64_t lo = 0, hi = 0; // inclusive range of values
    bool reduction = false;
    int64_t shift = 0; // a write index: written at name + shift
  };
  struct Info {
    Iv bounds;
    bool written = false;
  };

  void trait(const std::string &t) { traits_.insert(t); }

  ElemType randomType() { return rng_.pick(kTypes); }

  int64_t size() {
    // Large kernels (a tenth) have some extents past the cache tiles and parallel loops.
    static const std::vector<int64_t> large = {64, 67, 96, 127, 131, 257};
    int64_t s = large_ && rng_.chance(35) ? rng_.pick(large) : rng_.pick(kSizes);
    if (s == 1)
      trait("size-1");
    if (s >= 11 && isPrime(s))
      trait("prime");
    return s;
  }

  Tensor &addTensor(Role role, ElemType type, std::vector<int64_t> shape) {
    static const char *prefixes[] = {"X", "Y", "T", "U"};
    int &counter = counters_[int(role)];
    Tensor t;
    t.name = prefixes[int(role)] + std::to_string(counter++);
    t.type = type;
    t.shape = std::move(shape);
    t.role = role;
    // Inputs before outputs before locals: insert in role order so print() keeps declaration
    // order stable.
    auto at = std::find_if(k_.tensors.begin(), k_.tensors.end(),
                           [&](const Tensor &o) { return int(o.role) > int(role); });
    size_t pos = size_t(at - k_.tensors.begin());
    k_.tensors.insert(at, std::move(t));
    if (role == Role::Input)
      info_[k_.tensors[pos].name] = {isInt(type) ? Iv{-8, 7} : Iv{-1, 1}, true};
    else
      info_[k_.tensors[pos].name] = {};
    return k_.tensors[pos];
  }

  int64_t maxPoints() const { return large_ ? f_.maxPoints * 64 : f_.maxPoints; }

  int64_t pointsOf(const std::vector<Idx> &v) const {
    int64_t p = 1;
    for (const auto &i : v)
      p *= i.hi - i.lo + 1;
    return p;
  }

  // ---- statements --------------------------------------------------------------------------

  // A strided write in dimension `dim` of a new tensor, its index over `extent` values:
  // `stride * index + t`, t over `taps` values (more than the stride: overlapping, reduced),
  // and sometimes elements past the last reached. Returns the dimension's size.
  int64_t stridedWrite(size_t dim, int64_t extent) {
    int64_t stride = 2 + int64_t(rng_.below(2));
    Idx tap{"t", 0, int64_t(rng_.below(uint64_t(stride + 2))), false};
    strided_ = Strided{dim, stride, tap, 0};
    if (strided_->taps() <= stride && rng_.chance(30)) // gaps only where windows do not overlap
      strided_->extra = 1 + int64_t(rng_.below(2));
    trait("strided-write");
    if (strided_->taps() > stride)
      trait("strided-overlap");
    return stride * (extent - 1) + strided_->taps() + strided_->extra;
  }

  // An assignment writes each element once, so overlapping taps sum instead; a maximum or
  // minimum would leave an element it never reaches at an infinity, so with gaps it sums too.
  Op stridedOp(Op op) const {
    if (op == Op::Assign && strided_->taps() > strided_->stride)
      return Op::Sum;
    if ((op == Op::Max || op == Op::Min) && strided_->gaps())
      return Op::Sum;
    return op;
  }

  // The strided write made plain (`O[j]` over part of the dimension), its tap reduced: for a
  // sum that must become a maximum, which would leave the gaps at -inf.
  void unstride(Statement &st) {
    st.lhsStrides[strided_->dim] = 1;
    st.lhsTaps[strided_->dim].clear();
    for (auto &i : idx_)
      if (i.name == strided_->tap.name)
        i.reduction = true;
    strided_.reset();
    trait("strided-unstrided");
  }

  void statement(bool last) {
    idx_.clear();
    strided_.reset();
    readThisStmt_.clear();
    Statement st;
    // The written tensor.
    std::vector<std::string> rewritable;
    bool haveOutput = false;
    for (const auto &t : k_.tensors)
      if (t.role != Role::Input && info_[t.name].written) {
        rewritable.push_back(t.name);
        haveOutput = haveOutput || t.role == Role::Output;
      }
    enum { NewOutput, NewLocal, NewImplicit, Rewrite } kind;
    if (last && !haveOutput)
      kind = NewOutput;
    else if (last)
      kind = rng_.chance(50) ? NewOutput : Rewrite;
    else
      kind = decltype(kind)(rng_.weighted({30, 20, 30, rewritable.empty() ? 0 : 20}));
    if (kind == Rewrite && last) {
      std::vector<std::string> outs;
      for (const auto &n : rewritable)
        if (k_.find(n)->role == Role::Output)
          outs.push_back(n);
      rewritable = outs;
    }

    Tensor *target = nullptr;
    if (kind == Rewrite) {
      target = k_.find(rng_.pick(rewritable));
      trait("rewrite");
      for (size_t d = 0; d < target->shape.size(); ++d) {
        Idx i{kWriteNames[d], 0, target->shape[d] - 1, false};
        partial(i, target->shape[d], false, target->role != Role::Implicit);
        idx_.push_back(i);
      }
    } else {
      int rank = int(rng_.weighted({8, 25, 30, 20, 10, 7}));
      rank = std::min(rank, f_.maxRank);
      if (kind == NewImplicit && rank == 0 && !f_.implicitScalars)
        rank = 1;
      ElemType type = rng_.chance(85) ? mainType_ : randomType();
      std::vector<int64_t> shape;
      for (int d = 0; d < rank; ++d) {
        int64_t e = size();
        while (e > 1 && pointsOf(idx_) * e > maxPoints() / 4)
          e = std::max<int64_t>(1, e / 2);
        Idx i{kWriteNames[size_t(d)], 0, e - 1, false};
        int64_t extent = e;
        if (kind != NewImplicit && f_.stridedWrites && !strided_ && rng_.chance(6)) {
          extent = stridedWrite(size_t(d), e);
        } else if (kind != NewImplicit && f_.partialWrites && rng_.chance(10)) {
          extent = e + 1 + rng_.below(3); // the tensor is larger than the range written
          partial(i, extent, true);
        } else if (kind == NewImplicit && f_.partialWrites && rng_.chance(8)) {
          i.lo = 1 + rng_.below(2), i.hi = i.lo + e - 1; // below lo is never written
          extent = i.hi + 1;
          trait("partial-writes");
        }
        shape.push_back(extent);
        idx_.push_back(i);
      }
      Role role = kind == NewOutput  ? Role::Output
                  : kind == NewLocal ? Role::Local
                                     : Role::Implicit;
      target = &addTensor(role, type, shape);
      if (role == Role::Local)
        trait("local");
      if (role == Role::Implicit)
        trait("implicit");
      if (rank == 0)
        trait("scalar");
      trait("rank:" + std::to_string(rank));
    }
    const std::string lhs = target->name;
    const ElemType type = target->type;
    const std::vector<int64_t> shape = target->shape;
    const bool accumulates = info_[lhs].written;
    const Iv prior = info_[lhs].bounds;
    lhs_ = lhs;
    newImplicit_ = kind == NewImplicit;
    trait(std::string("type:") + ir::elemTypeName(type));

    st.lhs = lhs;
    for (const auto &i : idx_) {
      st.lhsIndices.push_back(i.name);
      st.lhsShifts.push_back(i.shift);
    }
    st.op = Op(rng_.weighted({33, 33, 13, 13, 8}));
    if (strided_) {
      st.lhsStrides.assign(idx_.size(), 1);
      st.lhsTaps.assign(idx_.size(), "");
      st.lhsStrides[strided_->dim] = strided_->stride;
      st.lhsTaps[strided_->dim] = strided_->tap.name;
      idx_.push_back(strided_->tap);
      st.op = stridedOp(st.op);
    }
    op_ = st.op;
    if (st.op != Op::Assign) {
      int reductions = int(rng_.weighted({15, 60, 25}));
      for (int r = 0; r < reductions; ++r) {
        int64_t e = size();
        while (e > 1 && pointsOf(idx_) * e > maxPoints())
          e = std::max<int64_t>(1, e / 2);
        Idx i{kReduceNames[size_t(r)], 0, e - 1, true};
        if (rng_.chance(15)) {
          i.lo = 1 + rng_.below(3), i.hi = i.lo + e - 1;
          trait("where-lo");
        }
        idx_.push_back(i);
      }
    }

    // The right-hand side; every reduction index must appear in it. Some statements are
    // shaped like instructions (a product or sum of two plain reads, one read), so that they
    // map onto vector and matrix instructions rather than becoming scalar code.
    Iv value;
    simple_ = rng_.chance(40);
    if (simple_)
      trait("instruction-shaped");
    st.rhs = expr(simple_ ? int(rng_.below(2)) + 1 : int(rng_.below(4)), type, value);
    for (const auto &i : idx_) {
      if (!i.reduction || used(st.rhs, i.name))
        continue;
      Iv v;
      Expr r = newInputRead(type, v, i.name);
      Expr both;
      both.kind = Expr::Kind::Add;
      Iv sum{value.lo + v.lo, value.hi + v.hi};
      if (!fitsLimits(type, sum, kFloatLimit)) {
        both.kind = Expr::Kind::Call, both.fn = "max";
        sum = hull(value, v);
        trait("fn:max");
      }
      both.args = {std::move(st.rhs), std::move(r)};
      st.rhs = std::move(both);
      value = sum;
    }
    // An implicit local takes the type sema infers from its right-hand side: make that the
    // intended one.
    if (newImplicit_ && inferredType(st.rhs) != std::optional<ElemType>(type)) {
      Expr c;
      c.kind = Expr::Kind::Cast;
      c.to = type;
      c.args.push_back(std::move(st.rhs));
      st.rhs = std::move(c);
      trait("cast");
    }

    // The result's bounds; a sum that would overflow becomes a maximum.
    int64_t reduced = 1;
    for (const auto &i : idx_)
      if (i.reduction)
        reduced *= i.hi - i.lo + 1;
    if (strided_) // points that overlap on one element
      reduced *= (strided_->taps() + strided_->stride - 1) / strided_->stride;
    auto result = [&](Op op) {
      Iv r = value;
      if (op == Op::Sum)
        r = hull(Iv{0, 0}, Iv{value.lo * double(reduced), value.hi * double(reduced)});
      if (op == Op::Prod) { // from 1, times `reduced` factors each within `value`
        double m = std::pow(std::max(1.0, mag(value)), double(reduced));
        r = value.lo >= 0 ? Iv{0, m} : Iv{-m, m};
      }
      if (accumulates && op == Op::Sum)
        r = Iv{r.lo + prior.lo, r.hi + prior.hi};
      else if (accumulates && op == Op::Prod)
        r = product(r, prior);
      else if (accumulates)
        r = hull(r, prior);
      return r;
    };
    Iv res = result(st.op);
    if ((st.op == Op::Sum || st.op == Op::Prod) &&
        (isInt(type) ? !f_.intOverflow && !fits(type, res) : mag(res) > kFloatSumLimit)) {
      if (strided_ && strided_->gaps())
        unstride(st); // see stridedOp
      st.op = Op::Max;
      res = result(st.op);
    }
    if (isInt(type) && !fits(type, res))
      trait("int-overflow");
    trait(std::string("op:") + opText(st.op));

    whereClauses(st, shape);
    // A guarded maximum or minimum may have no point for an element, which then holds its
    // identity (an infinity), so only the other operators are guarded.
    if (f_.guards && !idx_.empty() && st.op != Op::Max && st.op != Op::Min && rng_.chance(12)) {
      guards(st);
      if (st.op == Op::Assign && !accumulates)
        res = hull(res, Iv{0, 0}); // the points a guard skips leave 0
    }
    if (strided_ && st.op == Op::Assign && strided_->gaps())
      res = hull(res, Iv{0, 0}); // the elements between strides stay 0
    info_[lhs].bounds = info_[lhs].written ? hull(res, prior) : res;
    info_[lhs].written = true;
    k_.statements.push_back(std::move(st));
  }

  // With partial writes on, a write index over part of a dimension of size `size`: with
  // `force` the index keeps its extent and only its start moves; otherwise, a tenth of the
  // time, a random sub-range.
  void partial(Idx &i, int64_t size, bool force = false, bool shiftable = true) {
    if (!f_.partialWrites || (!force && !rng_.chance(10)))
      return;
    int64_t extent = i.hi - i.lo + 1;
    if (size <= 1 && !force)
      return;
    if (force) {
      i.lo = rng_.below(size - extent + 1), i.hi = i.lo + extent - 1;
    } else {
      extent = 1 + rng_.below(size - 1);
      i.lo = rng_.below(size - extent + 1), i.hi = i.lo + extent - 1;
    }
    trait("partial-writes");
    // Half the time the write is shifted instead (`O[i + 2]`, i from 0), as a concatenation
    // writes its second part.
    if (f_.shiftedWrites && shiftable && i.lo > 0 && rng_.chance(50)) {
      i.shift = i.lo, i.hi -= i.lo, i.lo = 0;
      trait("shifted-write");
    }
  }

  bool fitsLimits(ElemType t, Iv v, double floatLimit) const {
    if (isInt(t))
      return f_.intOverflow || fits(t, v);
    return mag(v) <= floatLimit;
  }

  // Sema's rule for an implicit local's type (sema/Kernels.cpp, inferredType): the first
  // conversion or read, left to right. Reads of implicit locals count only with
  // implicitChains (today sema does not see their type when checking without sizes).
  std::optional<ElemType> inferredType(const Expr &e) const {
    if (e.kind == Expr::Kind::Cast)
      return e.to;
    if (e.kind == Expr::Kind::Read) {
      const Tensor *t = k_.find(e.tensor);
      if (t->role == Role::Implicit && !f_.implicitChains)
        return std::nullopt;
      return t->type;
    }
    // A selection's type is its values', not what its condition compares.
    for (size_t i = e.kind == Expr::Kind::Select ? 1 : 0; i < e.args.size(); ++i)
      if (auto t = inferredType(e.args[i]))
        return t;
    return std::nullopt;
  }

  static bool used(const Expr &e, const std::string &index) {
    bool found = false;
    forEachRead(e, [&](const Expr &r) {
      for (const auto &ix : r.indices)
        for (const auto &t : ix.terms)
          found = found || t.index == index;
    });
    return found;
  }

  // Where clauses: an index whose range no dimension fixes exactly gets one (see sema's range
  // inference: a plain dimension fixes its index's range, two must agree, `where` wins).
  void whereClauses(Statement &st, const std::vector<int64_t> &shape) {
    struct Plain {
      bool exact = false, other = false;
    };
    std::map<std::string, Plain> plain;
    auto note = [&](const IndexExpr &e, int64_t size) {
      if (!e.plain())
        return;
      const Idx &i = index(e.terms[0].index);
      (i.lo == 0 && i.hi + 1 == size ? plain[i.name].exact : plain[i.name].other) = true;
    };
    if (!newImplicit_)
      for (size_t d = 0; d < st.lhsIndices.size(); ++d)
        note(IndexExpr{{{st.lhsIndices[d], st.lhsStrides.empty() ? 1 : st.lhsStrides[d]}},
                       st.lhsShifts[d]},
             shape[d]);
    forEachRead(st.rhs, [&](const Expr &r) {
      const Tensor *t = k_.find(r.tensor);
      if ((t->role == Role::Implicit && r.tensor == lhs_ && newImplicit_) || r.pad)
        return; // a padded read fixes no range
      for (size_t d = 0; d < r.indices.size(); ++d)
        note(r.indices[d], t->shape[d]);
    });
    // Only indices the statement names get a range (`where t in 0..3` for a `t` it does not
    // use is E0203): an index drawn for a read that was replaced since may be left over.
    std::set<std::string> used(st.lhsIndices.begin(), st.lhsIndices.end());
    used.insert(st.lhsTaps.begin(), st.lhsTaps.end());
    std::function<void(const Expr &)> collect = [&](const Expr &e) {
      for (const auto &ie : e.indices) {
        for (const auto &t : ie.terms)
          used.insert(t.index);
        used.insert(ie.gatherIndices.begin(), ie.gatherIndices.end());
      }
      for (const auto &a : e.args)
        collect(a);
    };
    collect(st.rhs);
    for (const auto &g : st.guards)
      for (const IndexExpr *side : {&g.lhs, &g.rhs})
        for (const auto &t : side->terms)
          used.insert(t.index);
    for (const auto &i : idx_) {
      if (!used.count(i.name))
        continue;
      const Plain &p = plain[i.name];
      bool needed = i.lo != 0 || !p.exact || p.other;
      if (!needed && !rng_.chance(8))
        continue;
      if (!needed)
        trait("where-redundant");
      st.where.push_back({i.name, i.lo, i.hi + 1});
      trait("where");
    }
  }

  // One or two conditions on the statement's indices: a comparison of two of them with a
  // small offset (triangles and bands), or a remainder of their sum (checkerboards).
  void guards(Statement &st) {
    static const std::vector<std::string> cmps = {"<", "<=", ">", ">=", "==", "!="};
    int count = 1 + int(rng_.below(2));
    for (int g = 0; g < count; ++g) {
      const Idx &a = idx_[size_t(rng_.below(idx_.size()))];
      const Idx &b = idx_[size_t(rng_.below(idx_.size()))];
      Guard guard;
      if (rng_.chance(25)) {
        int64_t m = 2 + int64_t(rng_.below(2));
        guard.lhs = IndexExpr{{{a.name, 1}, {b.name, 1}}, 0, m, true};
        if (a.name == b.name)
          guard.lhs.terms.pop_back();
        guard.cmp = rng_.chance(2) ? "==" : "!=";
        guard.rhs.constant = int64_t(rng_.below(uint64_t(m)));
        trait("guard-remainder");
      } else {
        guard.lhs = IndexExpr{{{a.name, 1}}, 0};
        guard.cmp = cmps[size_t(rng_.below(cmps.size()))];
        guard.rhs = IndexExpr{{{b.name, 1}}, int64_t(rng_.below(5)) - 2};
        if (a.name == b.name)
          guard.rhs = IndexExpr{{}, (a.lo + a.hi) / 2};
      }
      st.guards.push_back(std::move(guard));
    }
    trait("guard");
  }

  const Idx &index(const std::string &name) const {
    for (const auto &i : idx_)
      if (i.name == name)
        return i;
    return idx_.front();
  }

  // ---- expressions -------------------------------------------------------------------------

  Expr constant(ElemType type, Iv &v) {
    static const std::vector<double> floats = {0.5, 2, 0.25, 1.5, 3, 1, 0.75};
    static const std::vector<double> ints = {1, 2, 3};
    Expr e;
    e.kind = Expr::Kind::Const;
    e.value = isInt(type) ? rng_.pick(ints) : rng_.pick(floats);
    v = {e.value, e.value};
    return e;
  }

  Expr expr(int depth, ElemType type, Iv &v) {
    if (simple_) {
      if (depth <= 0 || rng_.chance(20))
        return read(type, v);
      Iv a, b;
      Expr l = read(type, a), r = read(type, b);
      Expr e;
      e.kind = rng_.chance(70) ? Expr::Kind::Mul : Expr::Kind::Add;
      Iv res = e.kind == Expr::Kind::Add ? Iv{a.lo + b.lo, a.hi + b.hi} : product(a, b);
      if (!fitsLimits(type, res, kFloatLimit)) {
        v = a;
        return l;
      }
      e.args = {std::move(l), std::move(r)};
      v = res;
      return e;
    }
    if (depth <= 0 || rng_.chance(25)) {
      if (!idx_.empty() && rng_.chance(8))
        return indexValue(type, v);
      return rng_.chance(12) ? constant(type, v) : read(type, v);
    }
    switch (rng_.weighted({40, 8, 5, 35, 8, 8})) {
    case 0: { // + - *
      Iv a, b;
      Expr l = expr(depth - 1, type, a), r = expr(depth - 1, type, b);
      Expr e;
      size_t op = rng_.weighted({40, 30, 30});
      e.kind = op == 0 ? Expr::Kind::Add : op == 1 ? Expr::Kind::Sub : Expr::Kind::Mul;
      Iv res;
      if (op == 0)
        res = {a.lo + b.lo, a.hi + b.hi};
      else if (op == 1)
        res = {a.lo - b.hi, a.hi - b.lo};
      else
        res = product(a, b);
      if (!fitsLimits(type, res, kFloatLimit)) {
        v = a;
        return l;
      }
      if (isInt(type) && !fits(type, res))
        trait("int-overflow");
      e.args = {std::move(l), std::move(r)};
      v = res;
      return e;
    }
    case 1: { // a / (|b| + 1), or a / c
      Iv a;
      Expr l = expr(depth - 1, type, a);
      Expr e;
      e.kind = Expr::Kind::Div;
      Expr d;
      Iv b;
      Expr y = expr(depth - 1, type, b);
      if (rng_.chance(50) && fitsLimits(type, Iv{0, mag(b) + 1}, kFloatLimit)) {
        d = plusOne(abs(std::move(y)), type);
      } else {
        d.kind = Expr::Kind::Const;
        d.value = double(2 + rng_.below(3));
      }
      e.args = {std::move(l), std::move(d)};
      v = hull(a, Iv{0, 0});
      trait("div");
      return e;
    }
    case 2: { // -a
      Iv a;
      Expr x = expr(depth - 1, type, a);
      Iv res{-a.hi, -a.lo};
      if (!fitsLimits(type, res, kFloatLimit)) {
        v = a;
        return x;
      }
      Expr e;
      e.kind = Expr::Kind::Neg;
      e.args.push_back(std::move(x));
      v = res;
      return e;
    }
    case 3:
      return call(depth, type, v);
    case 4:
      return conversion(depth, type, v);
    default: { // c ? a : b
      Iv a, b;
      Expr e;
      e.kind = Expr::Kind::Select;
      e.args.push_back(condition(type, 2));
      e.args.push_back(expr(depth - 1, type, a));
      e.args.push_back(expr(depth - 1, type, b));
      v = hull(a, b);
      trait("select");
      return e;
    }
    }
  }

  // The value of one of the statement's indices, sometimes shifted (`i`, `j - 2`), exact in
  // every type for the ranges generated (bf16 rounds alike everywhere past 256).
  Expr indexValue(ElemType type, Iv &v) {
    const Idx &i = idx_[size_t(rng_.below(int64_t(idx_.size())))];
    int64_t shift = rng_.chance(30) ? rng_.below(5) - 2 : 0;
    Expr e;
    e.kind = Expr::Kind::IndexValue;
    e.indices.push_back(IndexExpr{{{i.name, 1}}, shift});
    v = {double(i.lo + shift), double(i.hi + shift)};
    if (!fitsLimits(type, v, 1e6))
      return constant(type, v);
    trait("index-value");
    return e;
  }

  // A comparison of an input read with another or with an integer constant inside its range,
  // sometimes combined with &&, || and !. Inputs and such constants are exact in every type and
  // every executor, so no executor's rounding can move a value across the comparison.
  Expr condition(ElemType type, int depth) {
    Expr e;
    if (depth > 0 && rng_.chance(30)) {
      e.kind = Expr::Kind::Logic;
      size_t op = rng_.weighted({40, 40, 20});
      e.fn = op == 0 ? "&&" : op == 1 ? "||" : "!";
      e.args.push_back(condition(type, depth - 1));
      if (op != 2)
        e.args.push_back(condition(type, depth - 1));
      trait("logic");
      return e;
    }
    static const std::vector<std::string> ops = {"<", "<=", ">", ">=", "==", "!="};
    e.kind = Expr::Kind::Compare;
    e.fn = rng_.pick(ops);
    Iv a, b;
    e.args.push_back(newInputRead(type, a, ""));
    if (rng_.chance(50)) {
      e.args.push_back(newInputRead(type, b, ""));
    } else {
      Expr c;
      c.kind = Expr::Kind::Const;
      c.value = std::round((a.lo + a.hi) / 2);
      e.args.push_back(std::move(c));
    }
    trait("compare");
    return e;
  }

  Expr abs(Expr x) {
    Expr e;
    e.kind = Expr::Kind::Call;
    e.fn = "abs";
    e.args.push_back(std::move(x));
    return e;
  }

  Expr plusOne(Expr x, ElemType) {
    Expr one;
    one.kind = Expr::Kind::Const;
    one.value = 1;
    Expr e;
    e.kind = Expr::Kind::Add;
    e.args = {std::move(x), std::move(one)};
    return e;
  }

  Expr call(int depth, ElemType type, Iv &v) {
    static const std::vector<std::string> fns = {
        "exp",   "tanh", "sigmoid", "relu", "max", "min",  "sqrt", "log",   "abs",
        "rsqrt", "erf",  "pow",     "sin",  "cos", "exp2", "log2", "floor", "round"};
    const std::string fn = rng_.pick(fns);
    if (fn == "floor" || fn == "round" || fn == "pow" || fn == "rsqrt" || fn == "erf" ||
        fn == "sin" || fn == "cos" || fn == "exp2" || fn == "log2")
      return newCall(fn, depth, type, v);
    Iv a;
    Expr x = expr(depth - 1, type, a);
    Expr e;
    e.kind = Expr::Kind::Call;
    e.fn = fn;
    bool integer = isInt(type);
    // Integer results truncate: functions whose value could round across an integer in
    // another executor's arithmetic stay where they are far from one.
    if (fn == "exp") {
      double limit = integer ? (type == ElemType::I8 && !f_.intOverflow ? 4 : 7) : 2;
      if (a.hi > limit || a.lo < -8) {
        v = a;
        return x;
      }
      v = {std::exp(a.lo), std::exp(a.hi)};
    } else if (fn == "tanh" || fn == "sigmoid") {
      if (integer && mag(a) > 7) {
        v = a;
        return x;
      }
      v = fn == "tanh" ? Iv{std::tanh(a.lo), std::tanh(a.hi)} : Iv{0, 1};
    } else if (fn == "relu") {
      v = {std::max(0.0, a.lo), std::max(0.0, a.hi)};
    } else if (fn == "abs") {
      v = {0, mag(a)};
      if (!fitsLimits(type, v, kFloatLimit)) {
        v = a;
        return x;
      }
    } else if (fn == "max" || fn == "min") {
      Iv b;
      Expr y = expr(depth - 1, type, b);
      v = fn == "max" ? Iv{std::max(a.lo, b.lo), std::max(a.hi, b.hi)}
                      : Iv{std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
      e.args = {std::move(x), std::move(y)};
      trait("fn:" + fn);
      return e;
    } else { // sqrt, log: of |x| + 1 (|x| alone for sqrt of integers, exact at squares)
      bool bare = fn == "sqrt" && integer && rng_.chance(50);
      Iv in{bare ? 0.0 : 1.0, mag(a) + (bare ? 0.0 : 1.0)};
      if (!fitsLimits(type, in, kFloatLimit)) {
        v = a;
        return x;
      }
      x = bare ? abs(std::move(x)) : plusOne(abs(std::move(x)), type);
      v = fn == "sqrt" ? Iv{std::sqrt(in.lo), std::sqrt(in.hi)}
                       : Iv{std::log(in.lo), std::log(in.hi)};
    }
    if (integer)
      v = {std::trunc(v.lo), std::trunc(v.hi)};
    if (!fitsLimits(type, v, kFloatLimit)) {
      v = a;
      return x;
    }
    e.args.push_back(std::move(x));
    trait("fn:" + fn);
    return e;
  }

  // The functions beyond the first nine. floor and round are discontinuous, so their argument
  // is exact in every executor's arithmetic (an input read times 4); the others are continuous
  // and bounded on the argument ranges chosen here. Of integers only pow (a square, exact) and
  // floor and round (the identity) are generated: the others' truncated values sit at 0 or near
  // integers where executors could round apart.
  Expr newCall(const std::string &fn, int depth, ElemType type, Iv &v) {
    bool integer = isInt(type);
    Expr e;
    e.kind = Expr::Kind::Call;
    e.fn = fn;
    Iv a;
    if (fn == "floor" || fn == "round") {
      Expr four;
      four.kind = Expr::Kind::Const;
      four.value = 4;
      Expr x;
      x.kind = Expr::Kind::Mul;
      x.args = {newInputRead(type, a, ""), std::move(four)};
      a = {4 * a.lo, 4 * a.hi};
      if (!fitsLimits(type, a, kFloatLimit))
        return expr(depth - 1, type, v);
      v = {std::floor(a.lo), std::ceil(a.hi)};
      e.args.push_back(std::move(x));
    } else if (fn == "pow") {
      // (|x| + 1) ^ c for a small constant c: 2 of integers.
      Expr x = expr(depth - 1, type, a);
      Iv base{1, mag(a) + 1};
      double c = integer ? 2 : rng_.pick(std::vector<double>{0.5, 2, -1, -0.5, 3});
      Iv r{std::pow(base.lo, c), std::pow(base.hi, c)};
      if (r.lo > r.hi)
        std::swap(r.lo, r.hi);
      if (!fitsLimits(type, base, kFloatLimit) || !fitsLimits(type, r, kFloatLimit)) {
        v = a;
        return x;
      }
      Expr exponent;
      exponent.kind = Expr::Kind::Const;
      exponent.value = c;
      e.args = {plusOne(abs(std::move(x)), type), std::move(exponent)};
      v = r;
    } else {
      Expr x = expr(depth - 1, type, a);
      if (integer) {
        v = a;
        return x;
      }
      if (fn == "rsqrt" || fn == "log2") { // of |x| + 1
        Iv in{1, mag(a) + 1};
        if (!fitsLimits(type, in, kFloatLimit)) {
          v = a;
          return x;
        }
        x = plusOne(abs(std::move(x)), type);
        v = fn == "rsqrt" ? Iv{1 / std::sqrt(in.hi), 1} : Iv{0, std::log2(in.hi)};
      } else if (fn == "exp2") {
        if (a.hi > 10 || a.lo < -24) {
          v = a;
          return x;
        }
        v = {std::exp2(a.lo), std::exp2(a.hi)};
      } else if (fn == "erf") {
        v = {std::erf(a.lo), std::erf(a.hi)};
      } else { // sin, cos: of a moderate argument, where f32's reduction is exact enough
        if (mag(a) > 50) {
          v = a;
          return x;
        }
        v = {-1, 1};
      }
      e.args.push_back(std::move(x));
    }
    trait("fn:" + fn);
    return e;
  }

  // A value computed in another type and converted.
  Expr conversion(int depth, ElemType type, Iv &v) {
    ElemType from = randomType();
    if (from == type)
      return expr(depth - 1, type, v);
    Expr inner;
    Iv a;
    if (isInt(type) && !isInt(from)) {
      // Float to integer: only exact values (an input times 8), which truncate alike.
      inner.kind = Expr::Kind::Mul;
      Expr eight;
      eight.kind = Expr::Kind::Const;
      eight.value = 8;
      inner.args = {newInputRead(from, a, ""), std::move(eight)};
      a = {-8, 8};
    } else {
      inner = expr(depth - 1, from, a);
      if (isInt(type) && !fits(type, a) && !f_.intOverflow) {
        v = {0, 0};
        return constant(type, v);
      }
    }
    Expr e;
    e.kind = Expr::Kind::Cast;
    e.to = type;
    e.args.push_back(std::move(inner));
    v = a;
    trait("cast");
    return e;
  }

  // A read of a tensor, converted to `type` when it holds another.
  Expr read(ElemType type, Iv &v) {
    std::vector<std::string> readable;
    for (const auto &t : k_.tensors) {
      if (!info_[t.name].written)
        continue;
      // A statement may read what it writes only at the very point it writes and outside a
      // reduction (E0311): elsewhere the value would depend on the order points run in.
      if (t.name == lhs_ && (!f_.selfRead || op_ != Op::Assign))
        continue;
      if (t.type != type && isInt(type) && !isInt(t.type) && t.role != Role::Input)
        continue; // float to integer only from exact inputs
      readable.push_back(t.name);
    }
    if (readable.empty() || rng_.chance(45))
      return newInputRead(simple_ || rng_.chance(85) ? type : randomType(), v, "", type);
    const Tensor &t = *k_.find(rng_.pick(readable));
    Expr r;
    r.kind = Expr::Kind::Read;
    r.tensor = t.name;
    if (!f_.multiOffset && readThisStmt_.count(t.name)) {
      r.indices = readThisStmt_[t.name];
    } else if (t.name == lhs_) {
      for (const auto &i : idx_) // the written point
        if (r.indices.size() < t.shape.size())
          r.indices.push_back(IndexExpr{{{i.name, 1}}, i.shift});
    } else {
      for (int64_t size : t.shape)
        r.indices.push_back(dimIndex(size, r.indices));
    }
    noteRead(r);
    v = info_[t.name].bounds;
    return converted(std::move(r), t.type, type, v);
  }

  void noteRead(const Expr &r) {
    auto [it, fresh] = readThisStmt_.emplace(r.tensor, r.indices);
    if (!fresh && !(it->second.size() == r.indices.size() &&
                    std::equal(it->second.begin(), it->second.end(), r.indices.begin())))
      trait("multi-offset");
    if (r.tensor == lhs_)
      trait("self-read");
    std::map<std::string, int> seen;
    for (const auto &ix : r.indices)
      for (const auto &t : ix.terms)
        if (++seen[t.index] == 2)
          trait("diagonal");
  }

  Expr converted(Expr r, ElemType from, ElemType to, Iv &v) {
    if (from == to)
      return r;
    Expr e;
    e.kind = Expr::Kind::Cast;
    e.to = to;
    if (isInt(to) && !isInt(from)) {
      Expr eight;
      eight.kind = Expr::Kind::Const;
      eight.value = 8;
      Expr m;
      m.kind = Expr::Kind::Mul;
      m.args = {std::move(r), std::move(eight)};
      e.args.push_back(std::move(m));
      v = {-8, 8};
    } else {
      e.args.push_back(std::move(r));
    }
    if (isInt(to) && !fits(to, v) && !f_.intOverflow) {
      v = {0, 0};
      return constant(to, v);
    }
    trait("cast");
    return e;
  }

  // A read of a new input of type `type` (converted to `to`, default `type`); `must` names an
  // index it has to use.
  Expr newInputRead(ElemType type, Iv &v, const std::string &must,
                    std::optional<ElemType> to = std::nullopt) {
    int rank = int(rng_.weighted({6, 30, 34, 18, 8, 4}));
    rank = std::min(rank, f_.maxRank);
    if (!must.empty() && rank == 0)
      rank = 1;
    Expr r;
    r.kind = Expr::Kind::Read;
    std::vector<int64_t> shape;
    size_t mustAt = must.empty() ? 0 : size_t(rng_.below(rank));
    int64_t elements = 1;
    for (int d = 0; d < rank; ++d) {
      IndexExpr e;
      bool required = !must.empty() && size_t(d) == mustAt;
      if (required)
        e = IndexExpr{{{must, 1}}, 0};
      else if (!must.empty() && !f_.diagonal) {
        std::vector<IndexExpr> others = r.indices; // the required index is taken
        others.push_back(IndexExpr{{{must, 1}}, 0});
        e = dimIndex(0, others);
      } else {
        e = dimIndex(0, r.indices);
      }
      int64_t reach = e.constant;
      for (const auto &t : e.terms) {
        const Idx &i = index(t.index);
        reach += t.coef > 0 ? t.coef * i.hi : t.coef * i.lo;
      }
      // A floor quotient or a remainder of the index (values stay at 0 and above).
      if (!required && !e.terms.empty() && rng_.chance(10)) {
        e.divisor = 2 + rng_.below(3);
        e.remainder = rng_.chance(50);
        reach = e.remainder ? std::min(reach, e.divisor - 1) : reach / e.divisor;
        trait(e.remainder ? "index-remainder" : "index-quotient");
      }
      int64_t slack = e.plain() ? 0 : rng_.below(3);
      // Indices repeated across dimensions multiply the size: keep inputs small.
      if (!required && elements * (reach + 1 + slack) > kMaxElements)
        continue;
      elements *= reach + 1 + slack;
      shape.push_back(reach + 1 + slack);
      r.indices.push_back(e);
    }
    // A padded read: indices shifted below 0 and dimensions cut short of what they reach.
    std::optional<double> pad;
    if (!r.indices.empty() && rng_.chance(12)) {
      for (size_t d = 0; d < r.indices.size(); ++d) {
        if (!r.indices[d].terms.empty() && rng_.chance(50))
          r.indices[d].constant -= int64_t(rng_.below(3));
        if (rng_.chance(50))
          shape[d] = std::max<int64_t>(1, shape[d] - int64_t(rng_.below(3)));
      }
      // A strided write's indices are recovered where a gathered index could not be read
      // (E0307), so a statement with one gathers nothing.
      if (f_.gathers && !strided_ && rng_.chance(35))
        gather(r, must);
      static const std::vector<double> values = {0, 1, -2, 0.5};
      pad = rng_.pick(values);
      if (isInt(type) && *pad != std::trunc(*pad))
        pad = 0;
      r.pad = pad;
      trait("pad");
    }
    Tensor &t = addTensor(Role::Input, type, shape);
    r.tensor = t.name;
    noteRead(r);
    v = info_[t.name].bounds;
    if (pad)
      v = {std::min(v.lo, *pad), std::max(v.hi, *pad)};
    return converted(std::move(r), type, to.value_or(type), v);
  }

  // Makes one dimension of padded read r (not one that only `must` indexes) a gather: an
  // integer input indexed by that dimension's indices, whose elements (-8..7, some outside the
  // dimension) are the index.
  void gather(Expr &r, const std::string &must) {
    std::vector<size_t> dims;
    for (size_t d = 0; d < r.indices.size(); ++d)
      if (!r.indices[d].terms.empty() && r.indices[d].gather.empty() &&
          !(r.indices[d].terms.size() == 1 && r.indices[d].terms[0].index == must))
        dims.push_back(d);
    if (dims.empty())
      return;
    IndexExpr &e = r.indices[rng_.pick(dims)];
    IndexExpr g;
    std::vector<int64_t> shape;
    for (const auto &t : e.terms)
      if (std::find(g.gatherIndices.begin(), g.gatherIndices.end(), t.index) ==
          g.gatherIndices.end()) {
        g.gatherIndices.push_back(t.index);
        shape.push_back(index(t.index).hi + 1);
      }
    g.gather = addTensor(Role::Input, rng_.chance(2) ? ElemType::I32 : ElemType::I8, shape).name;
    e = std::move(g);
    trait("gather");
  }

  // One dimension's index expression: within [0, size) when size > 0; for a new tensor
  // (size 0) the caller sizes the dimension to fit. `before` are the access's other
  // dimensions (an index used twice is a diagonal).
  IndexExpr dimIndex(int64_t size, const std::vector<IndexExpr> &before) {
    auto usedBefore = [&](const std::string &n) {
      for (const auto &e : before)
        for (const auto &t : e.terms)
          if (t.index == n)
            return true;
      return false;
    };
    std::vector<const Idx *> free;
    for (const auto &i : idx_)
      if (f_.diagonal || !usedBefore(i.name))
        free.push_back(&i);
    auto fitsIn = [&](const IndexExpr &e) {
      if (size <= 0)
        return true;
      int64_t lo = e.constant, hi = e.constant;
      for (const auto &t : e.terms) {
        const Idx &i = index(t.index);
        lo += std::min(t.coef * i.lo, t.coef * i.hi);
        hi += std::max(t.coef * i.lo, t.coef * i.hi);
      }
      return lo >= 0 && hi < size;
    };
    for (int attempt = 0; attempt < 12 && !free.empty(); ++attempt) {
      const Idx &v = *free[size_t(rng_.below(int64_t(free.size())))];
      IndexExpr e;
      switch (simple_ ? rng_.weighted({85, 5, 2, 4, 2, 2}) : rng_.weighted({55, 12, 5, 10, 8, 6})) {
      case 0:
        e = {{{v.name, 1}}, 0};
        break;
      case 1:
        e = {{{v.name, 1}}, 1 + rng_.below(3)};
        if (fitsIn(e))
          trait("shift");
        break;
      case 2:
        if (v.lo < 1)
          continue;
        e = {{{v.name, 1}}, -(1 + rng_.below(v.lo))};
        if (fitsIn(e))
          trait("negative-shift");
        break;
      case 3: {
        const Idx &w = *free[size_t(rng_.below(int64_t(free.size())))];
        if (w.name == v.name)
          continue;
        e = {{{v.name, 2 + rng_.below(2)}, {w.name, 1}}, 0};
        if (fitsIn(e))
          trait("stride");
        break;
      }
      case 4: {
        const Idx &w = *free[size_t(rng_.below(int64_t(free.size())))];
        if (w.name == v.name)
          continue;
        e = {{{v.name, 1}, {w.name, 1}}, 0};
        if (fitsIn(e))
          trait("index-sum");
        break;
      }
      default:
        e = {{}, size > 0 ? rng_.below(size) : rng_.below(3)};
        trait("const-index");
        break;
      }
      if (fitsIn(e))
        return e;
    }
    trait("const-index");
    return {{}, size > 0 ? rng_.below(size) : 0};
  }

  Rng rng_;
  Features f_;
  Kernel k_;
  std::set<std::string> traits_;
  std::map<std::string, Info> info_;
  int counters_[4] = {0, 0, 0, 0};
  ElemType mainType_ = ElemType::F32;
  std::vector<Idx> idx_;
  struct Strided {
    size_t dim = 0;
    int64_t stride = 2;
    Idx tap;
    int64_t extra = 0; // elements past the last one written
    int64_t taps() const { return tap.hi - tap.lo + 1; }
    bool gaps() const { return taps() < stride || extra > 0; }
  };
  std::optional<Strided> strided_; // the current statement's strided write
  std::map<std::string, std::vector<IndexExpr>> readThisStmt_;
  std::string lhs_;
  bool newImplicit_ = false;
  bool simple_ = false; // the statement under way is instruction-shaped
  bool large_ = false;  // the kernel has large extents
  Op op_ = Op::Assign;  // the statement under way's operator
};

} // namespace

Generated generate(uint64_t seed, const Features &features) {
  return Gen(seed, features).run();
}

} // namespace isam::difftest
