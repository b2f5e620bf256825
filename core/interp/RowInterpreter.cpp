#include "interp/RowInterpreter.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

namespace isam::interp {

namespace {

using Point = std::vector<int64_t>;

// Rows of a group (Plan::block): their accumulators, 16 x 8 KiB, stay in the L2 cache.
constexpr int64_t kBlockRows = 16;

bool dependsOn(const ir::Affine &a, int index) {
  if (a.coefficientOf(index) != 0)
    return true;
  return std::any_of(a.quasi.begin(), a.quasi.end(),
                     [&](const ir::Quasi &q) { return dependsOn(q.inner, index); });
}

bool dependsOn(const ir::Access &a, int index) {
  for (const auto &i : a.indices)
    if (dependsOn(i, index))
      return true;
  for (const auto &g : a.gathers)
    for (const auto &i : g.indices)
      if (dependsOn(i, index))
        return true;
  return false;
}

bool dependsOn(const ir::Expr &e, int index) {
  if ((e.kind == ir::Expr::Kind::Read || e.kind == ir::Expr::Kind::Index) &&
      dependsOn(e.access, index))
    return true;
  return std::any_of(e.args.begin(), e.args.end(),
                     [&](const ir::Expr &a) { return dependsOn(a, index); });
}

bool sameAffine(const ir::Affine &a, const ir::Affine &b) {
  return a.terms == b.terms && a.constant == b.constant && a.quasi.empty() && b.quasi.empty();
}

// Whether the order in which points run is invisible: every read of the written tensor reads
// the element its own point writes (or the statement does not read it at all).
bool orderInvisible(const ir::Statement &s) {
  bool invisible = true;
  forEachRead(s.rhs, [&](const ir::Access &a) {
    for (const auto &g : a.gathers)
      invisible = invisible && g.tensor != s.lhs.tensor;
    if (a.tensor != s.lhs.tensor)
      return;
    bool same = !a.pad && a.gathers.empty() && a.indices.size() == s.lhs.indices.size();
    for (size_t d = 0; same && d < a.indices.size(); ++d)
      same = sameAffine(a.indices[d], s.lhs.indices[d]);
    invisible = invisible && same;
  });
  for (const auto &i : s.lhs.indices)
    invisible = invisible && i.quasi.empty();
  return invisible;
}

// How a statement is cut into rows.
struct Plan {
  int lane = -1;               // the index that varies along a row
  bool reduceLanes = false;    // the lane index is the innermost reduction index
  std::vector<int> outer;      // written indices fixed per row; a group's index last
  std::vector<int> reductions; // reduction indices looped inside a row, in order
  int64_t chunks = 0;          // rows per outer point (write lanes) or chunks per row
  int64_t rows = 0;
  // Rows run in groups of up to `block` rows that differ only in the innermost outer index
  // and share the reduction loop, so that what they read alike (B[k, n..] of a GEMM) comes
  // from the cache for all but the first. Each element still sees its reduction points in
  // order; groups split the work between threads.
  int64_t block = 1;
  int64_t groups = 0;
};

std::optional<Plan> planRows(const ir::Statement &s) {
  int n = int(s.indices.size()), nWrite = 0;
  while (nWrite < n && !s.indices[size_t(nWrite)].reduction)
    ++nWrite;
  auto extent = [&](int i) { return s.indices[size_t(i)].extent; };
  int best = -1;
  for (int i = 0; i < nWrite; ++i)
    if (best < 0 || extent(i) >= extent(best))
      best = i;
  if (nWrite > 0 && extent(nWrite - 1) >= 64)
    best = nWrite - 1; // contiguous rows of the written tensor
  Plan p;
  if (best >= 0 && (nWrite == n || extent(best) >= 64 || extent(best) >= extent(n - 1)))
    p.lane = best;
  else if (nWrite < n)
    p.lane = n - 1, p.reduceLanes = true;
  else
    return std::nullopt;
  for (int i = 0; i < n; ++i) {
    if (i == p.lane)
      continue;
    (i < nWrite ? p.outer : p.reductions).push_back(i);
  }
  p.chunks = (extent(p.lane) + kRowLength - 1) / kRowLength;
  p.rows = p.reduceLanes ? 1 : p.chunks;
  for (int i : p.outer)
    p.rows *= extent(i);
  bool grouped = !p.reduceLanes && !p.reductions.empty() && s.reduce != ir::ReduceOp::None;
  if (grouped) {
    // Group along the longest written index that a row read does not depend on (m of a GEMM,
    // the batch of an LSTM's projection: their weights are read once for the group), moved
    // last so that a group's rows are consecutive.
    int pick = -1;
    for (int i : p.outer) {
      bool shared = false;
      forEachRead(s.rhs, [&](const ir::Access &a) {
        shared = shared || (dependsOn(a, p.lane) && !dependsOn(a, i));
      });
      if (shared && (pick < 0 || extent(i) > extent(pick)))
        pick = i;
    }
    if (pick >= 0) {
      p.outer.erase(std::find(p.outer.begin(), p.outer.end(), pick));
      p.outer.push_back(pick);
    }
  }
  int64_t along = p.outer.empty() ? 1 : extent(p.outer.back());
  if (grouped)
    p.block = std::clamp<int64_t>(along, 1, kBlockRows);
  int64_t chunks = p.reduceLanes ? 1 : p.chunks; // of the row numbering
  p.groups =
      p.rows == 0 ? 0 : p.rows / (along * chunks) * ((along + p.block - 1) / p.block) * chunks;
  return p;
}

// One node of a statement's expression with its row of values.
struct Node {
  const ir::Expr *expr = nullptr;
  bool uniform = false; // the same value in every lane
  bool scalar = false;  // uniform, and its parent (a float +, -, *, /) reads `value` only
  double value = 0;     // a uniform node's value
  // Not uniform, and the same for every row of a group (B[k, n] of a GEMM grouped along m):
  // evaluated once per reduction step, at step `computedAt`.
  bool groupInvariant = false;
  uint64_t computedAt = 0;
  std::vector<Node> args;
  std::vector<double> row;
  std::vector<double> scratch; // a Call's arguments at one lane
  const double *values = nullptr;
};

bool floatArithmetic(const ir::Expr &e) {
  using K = ir::Expr::Kind;
  return ir::isFloat(e.type) &&
         (e.kind == K::Add || e.kind == K::Sub || e.kind == K::Mul || e.kind == K::Div);
}

// `along`: the index a group's rows differ in (-1: none).
Node buildNode(const ir::Expr &e, int lane, int along, bool parentTakesScalars = false) {
  Node n;
  n.expr = &e;
  n.uniform = !dependsOn(e, lane);
  n.scalar = n.uniform && parentTakesScalars;
  n.groupInvariant = !n.uniform && along >= 0 && !dependsOn(e, along);
  if (!n.scalar)
    n.row.resize(size_t(kRowLength));
  if (!n.uniform)
    for (const auto &a : e.args)
      n.args.push_back(buildNode(a, lane, along, floatArithmetic(e)));
  n.scratch.resize(e.args.size());
  return n;
}

// put(j, op(a(j), b(j)) rounded to t); a and b give a row's lane or a uniform value.
template <class A, class B, class Put, class Op>
void floatRow(ir::ElemType t, A a, B b, Put put, int64_t n, Op op) {
  if (t == ir::ElemType::F64)
    for (int64_t j = 0; j < n; ++j)
      put(j, op(a(j), b(j)));
  else if (t == ir::ElemType::F32)
    for (int64_t j = 0; j < n; ++j)
      put(j, double(float(op(a(j), b(j)))));
  else
    for (int64_t j = 0; j < n; ++j)
      put(j, roundTo(t, op(a(j), b(j))));
}

// floatRow with each operand as a row or, for a scalar node, its value: no row of copies.
template <class Put, class Op>
void floatRow(ir::ElemType t, const Node &a, const Node &b, Put put, int64_t n, Op op) {
  const double *x = a.values, *y = b.values;
  double u = a.value, v = b.value;
  auto row = [](const double *p) { return [p](int64_t j) { return p[j]; }; };
  auto one = [](double c) { return [c](int64_t) { return c; }; };
  if (a.scalar && b.scalar)
    floatRow(t, one(u), one(v), put, n, op);
  else if (a.scalar)
    floatRow(t, one(u), row(y), put, n, op);
  else if (b.scalar)
    floatRow(t, row(x), one(v), put, n, op);
  else
    floatRow(t, row(x), row(y), put, n, op);
}

// A float +, -, *, / node's row, through put(j, value).
template <class Put> void floatArithmeticRow(const Node &n, Put put, int64_t lanes) {
  const ir::Expr &e = *n.expr;
  const Node &a = n.args[0], &b = n.args[1];
  switch (e.kind) {
  case ir::Expr::Kind::Add:
    return floatRow(e.type, a, b, put, lanes, [](double x, double y) { return x + y; });
  case ir::Expr::Kind::Sub:
    return floatRow(e.type, a, b, put, lanes, [](double x, double y) { return x - y; });
  case ir::Expr::Kind::Mul:
    return floatRow(e.type, a, b, put, lanes, [](double x, double y) { return x * y; });
  default:
    return floatRow(e.type, a, b, put, lanes, [](double x, double y) { return x / y; });
  }
}

// Evaluates statements a row at a time; one per thread.
class RowRunner {
public:
  RowRunner(const ir::Kernel &k, const ir::Statement &s, const Plan &plan, Buffers &b)
      : k_(k), s_(s), plan_(plan), b_(b), point_(s.indices.size(), 0),
        root_(buildNode(s.rhs, plan.lane,
                        plan.block > 1 && !plan.outer.empty() ? plan.outer.back() : -1)),
        acc_(size_t(kRowLength * plan.block)), at_(size_t(plan.block)),
        mask_(size_t(kRowLength), 1) {
    for (const auto &t : k.tensors)
      strides_.push_back(t.strides());
  }

  // Runs groups [from, to); done(n) after the n-th.
  void runGroups(int64_t from, int64_t to, const std::function<void(int64_t)> &done) {
    for (int64_t g = from; g < to; ++g) {
      plan_.reduceLanes ? reduceRow(g) : writeGroup(g);
      if (done)
        done(g + 1 - from);
    }
  }

private:
  const ir::Kernel &k_;
  const ir::Statement &s_;
  const Plan &plan_;
  Buffers &b_;
  Point point_;
  Node root_;
  std::vector<double> acc_;
  std::vector<int64_t> at_; // where each row of a group starts in the written tensor
  std::vector<char> mask_;
  bool allActive_ = true;                     // every lane of mask_ is set
  std::vector<std::vector<int64_t>> strides_; // per tensor
  int64_t first_ = 0, lanes_ = 0; // the row: lane index values first_ .. first_ + lanes_ - 1
  uint64_t step_ = 0;             // the reduction steps of every group so far, numbered from 1
  bool inSteps_ = false; // in a group's reduction loop, where groupInvariant nodes are reused

  int64_t extent(int i) const { return s_.indices[size_t(i)].extent; }

  // Sets the outer indices of row r (the lane chunk's too when lanes are written indices).
  void placeRow(int64_t r) {
    if (!plan_.reduceLanes) {
      int64_t chunk = r % plan_.chunks;
      r /= plan_.chunks;
      first_ = chunk * kRowLength;
      lanes_ = std::min(kRowLength, extent(plan_.lane) - first_);
    }
    for (size_t i = plan_.outer.size(); i-- > 0;) {
      int idx = plan_.outer[i];
      point_[size_t(idx)] = r % extent(idx);
      r /= extent(idx);
    }
  }

  // Visits every point of the reduction indices in order (once when there are none).
  template <class F> void forEachReduction(F &&f) {
    for (int i : plan_.reductions) {
      if (extent(i) == 0)
        return;
      point_[size_t(i)] = 0;
    }
    for (;;) {
      f();
      size_t d = plan_.reductions.size();
      for (; d-- > 0;) {
        int idx = plan_.reductions[d];
        if (++point_[size_t(idx)] < extent(idx))
          break;
        point_[size_t(idx)] = 0;
      }
      if (d == size_t(-1))
        return;
    }
  }

  int64_t lhsOffset(int64_t &step) {
    const auto &strides = strides_[size_t(s_.lhs.tensor)];
    int64_t flat = 0;
    step = 0;
    for (size_t d = 0; d < s_.lhs.indices.size(); ++d) {
      flat += strides[d] * ir::valueAt(s_.lhs.indices[d], point_);
      step += strides[d] * s_.lhs.indices[d].coefficientOf(plan_.lane);
    }
    return flat;
  }

  // The rows of group g: the first row, and how many follow it along the last outer index.
  std::pair<int64_t, int64_t> groupRows(int64_t g) const {
    int64_t along = plan_.outer.empty() ? 1 : extent(plan_.outer.back());
    int64_t blocks = (along + plan_.block - 1) / plan_.block;
    int64_t chunk = g % plan_.chunks, blk = (g / plan_.chunks) % blocks;
    int64_t prefix = g / plan_.chunks / blocks;
    int64_t first = blk * plan_.block;
    return {(prefix * along + first) * plan_.chunks + chunk, std::min(plan_.block, along - first)};
  }

  void writeGroup(int64_t g) {
    auto [row, count] = groupRows(g);
    placeRow(row);
    int64_t step = 0;
    std::vector<double> &dst = b_[size_t(s_.lhs.tensor)];
    const ir::Tensor &out = k_.tensors[size_t(s_.lhs.tensor)];
    if (s_.reduce == ir::ReduceOp::None) { // block == 1
      point_[size_t(plan_.lane)] = first_;
      int64_t at = lhsOffset(step);
      if (!computeMask())
        return;
      const double *v = eval(root_);
      for (int64_t j = 0; j < lanes_; ++j)
        if (mask_[size_t(j)])
          dst[size_t(at + step * j)] = roundTo(out.type, v[j]);
      return;
    }
    // The rows differ in the last outer index only: `along` of the first, plus i.
    int along = plan_.outer.empty() ? -1 : plan_.outer.back();
    int64_t base = along < 0 ? 0 : point_[size_t(along)];
    auto place = [&](int64_t i) {
      if (along >= 0)
        point_[size_t(along)] = base + i;
      point_[size_t(plan_.lane)] = first_;
    };
    std::vector<int64_t> &at = at_;
    for (int64_t i = 0; i < count; ++i) {
      place(i);
      at[size_t(i)] = lhsOffset(step);
      double *acc = &acc_[size_t(i * kRowLength)];
      for (int64_t j = 0; j < lanes_; ++j)
        acc[j] =
            s_.accumulates ? dst[size_t(at[size_t(i)] + step * j)] : ir::reduceIdentity(s_.reduce);
    }
    inSteps_ = true;
    forEachReduction([&] {
      ++step_;
      for (int64_t i = 0; i < count; ++i) {
        place(i);
        if (computeMask())
          accumulateRoot(&acc_[size_t(i * kRowLength)]);
      }
    });
    inSteps_ = false;
    for (int64_t i = 0; i < count; ++i)
      for (int64_t j = 0; j < lanes_; ++j)
        dst[size_t(at[size_t(i)] + step * j)] = roundTo(out.type, acc_[size_t(i * kRowLength + j)]);
  }

  void reduceRow(int64_t r) {
    placeRow(r);
    point_[size_t(plan_.lane)] = 0;
    int64_t step = 0;
    size_t at = size_t(lhsOffset(step));
    std::vector<double> &dst = b_[size_t(s_.lhs.tensor)];
    double acc = s_.accumulates ? dst[at] : ir::reduceIdentity(s_.reduce);
    forEachReduction([&] {
      for (int64_t c = 0; c < plan_.chunks; ++c) {
        first_ = c * kRowLength;
        lanes_ = std::min(kRowLength, extent(plan_.lane) - first_);
        point_[size_t(plan_.lane)] = first_;
        if (computeMask())
          accumulate(eval(root_), &acc, true);
      }
    });
    dst[at] = roundTo(k_.tensors[size_t(s_.lhs.tensor)].type, acc);
  }

  // accumulate(eval(root_), acc, false); a float sum of a float +, -, *, / (a GEMM's) adds
  // each product as it is computed, without a row of products in between.
  void accumulateRoot(double *acc) {
    ir::ElemType type = k_.tensors[size_t(s_.lhs.tensor)].type;
    if (!allActive_ || s_.reduce != ir::ReduceOp::Sum || !ir::isFloat(type) || root_.uniform ||
        !floatArithmetic(*root_.expr))
      return accumulate(eval(root_), acc, false);
    for (auto &a : root_.args)
      eval(a);
    floatArithmeticRow(
        root_, [acc](int64_t j, double v) { acc[j] += v; }, lanes_);
  }

  // One reduction step per active lane, into acc[j] (or, with `serial`, lane after lane into
  // acc[0]): exactly interp::runStatement's step.
  void accumulate(const double *v, double *acc, bool serial) {
    ir::ElemType type = k_.tensors[size_t(s_.lhs.tensor)].type;
    bool integer = !ir::isFloat(type);
    if (allActive_ && !serial && !integer && s_.reduce == ir::ReduceOp::Sum) {
      for (int64_t j = 0; j < lanes_; ++j) // the common case, vectorised
        acc[j] += v[j];
      return;
    }
    for (int64_t j = 0; j < lanes_; ++j) {
      if (!mask_[size_t(j)])
        continue;
      double &a = acc[serial ? 0 : j];
      switch (s_.reduce) {
      case ir::ReduceOp::Sum:
        a = integer ? wrapTo(type, a + v[j]) : a + v[j];
        break;
      case ir::ReduceOp::Prod:
        a = integer ? integerArith(ir::Expr::Kind::Mul, type, a, v[j]) : a * v[j];
        break;
      case ir::ReduceOp::Max:
        a = std::max(a, v[j]);
        break;
      case ir::ReduceOp::Min:
        a = std::min(a, v[j]);
        break;
      case ir::ReduceOp::None:
        break;
      }
    }
  }

  // The lanes where every guard holds; false when none does.
  bool computeMask() {
    if (s_.guards.empty()) // mask_ holds ones from the constructor on
      return lanes_ > 0;
    std::fill(mask_.begin(), mask_.begin() + lanes_, 1);
    allActive_ = true;
    for (const auto &g : s_.guards) {
      bool affine = g.lhs.quasi.empty() && g.rhs.quasi.empty();
      int64_t base = ir::valueAt(g.lhs, point_) - ir::valueAt(g.rhs, point_);
      int64_t step = g.lhs.coefficientOf(plan_.lane) - g.rhs.coefficientOf(plan_.lane);
      if (affine && step == 0) {
        if (!ir::compare(g.cmp, double(base), 0))
          return false;
        continue;
      }
      allActive_ = false;
      for (int64_t j = 0; j < lanes_; ++j) {
        int64_t d = base + step * j;
        if (!affine) {
          point_[size_t(plan_.lane)] = first_ + j;
          d = ir::valueAt(g.lhs, point_) - ir::valueAt(g.rhs, point_);
        }
        mask_[size_t(j)] = mask_[size_t(j)] && ir::compare(g.cmp, double(d), 0);
      }
      point_[size_t(plan_.lane)] = first_;
    }
    return std::find(mask_.begin(), mask_.begin() + lanes_, 1) != mask_.begin() + lanes_;
  }

  const double *eval(Node &n) {
    if (n.groupInvariant && inSteps_) {
      if (n.computedAt == step_)
        return n.values;
      n.computedAt = step_;
    }
    const ir::Expr &e = *n.expr;
    if (n.uniform) {
      auto reader = [&](const ir::Access &a) { return readAt(k_, b_, a, point_); };
      n.value = evalExpr(e, reader, &point_);
      if (n.scalar)
        return n.values = nullptr;
      std::fill(n.row.begin(), n.row.begin() + lanes_, n.value);
      return n.values = n.row.data();
    }
    if (e.kind == ir::Expr::Kind::Read)
      return n.values = readRow(e.access, n.row.data());
    if (e.kind == ir::Expr::Kind::Index)
      return n.values = indexRow(e, n.row.data());
    for (auto &a : n.args)
      eval(a);
    computeNode(n);
    return n.values = n.row.data();
  }

  const double *readRow(const ir::Access &a, double *row);
  const double *indexRow(const ir::Expr &e, double *row);
  void computeNode(Node &n);
};

const double *RowRunner::readRow(const ir::Access &a, double *row) {
  bool affine = a.gathers.empty();
  for (const auto &i : a.indices)
    affine = affine && i.quasi.empty();
  if (!affine) { // gathers and quasi-affine indices: the point interpreter's read, per lane
    for (int64_t j = 0; j < lanes_; ++j) {
      point_[size_t(plan_.lane)] = first_ + j;
      row[j] = readAt(k_, b_, a, point_);
    }
    point_[size_t(plan_.lane)] = first_;
    return row;
  }
  const ir::Tensor &t = k_.tensors[size_t(a.tensor)];
  const std::vector<double> &data = b_[size_t(a.tensor)];
  const auto &strides = strides_[size_t(a.tensor)];
  int64_t flat = 0, step = 0, lo = 0, hi = lanes_;
  for (size_t d = 0; d < a.indices.size(); ++d) {
    int64_t base = ir::valueAt(a.indices[d], point_), k = a.indices[d].coefficientOf(plan_.lane);
    flat += strides[d] * base;
    step += strides[d] * k;
    if (!a.pad)
      continue;
    // The lanes j where 0 <= base + k * j < shape[d].
    int64_t last = t.shape[d] - 1;
    if (k == 0) {
      if (base < 0 || base > last)
        hi = 0;
    } else if (k > 0) {
      lo = std::max(lo, -ir::floorDiv(base, k));
      hi = std::min(hi, ir::floorDiv(last - base, k) + 1);
    } else {
      lo = std::max(lo, -ir::floorDiv(last - base, -k));
      hi = std::min(hi, ir::floorDiv(base, -k) + 1);
    }
  }
  if (step == 1 && lo == 0 && hi == lanes_)
    return data.data() + flat; // the row is the tensor's own elements
  hi = std::max(hi, int64_t(0));
  lo = std::min(lo, hi);
  double pad = a.pad ? roundTo(t.type, *a.pad) : 0;
  std::fill(row, row + lo, pad);
  for (int64_t j = lo; j < hi; ++j)
    row[j] = data[size_t(flat + step * j)];
  std::fill(row + hi, row + lanes_, pad);
  return row;
}

const double *RowRunner::indexRow(const ir::Expr &e, double *row) {
  const ir::Affine &a = e.access.indices.at(0);
  bool integer = !ir::isFloat(e.type);
  int64_t base = ir::valueAt(a, point_), step = a.coefficientOf(plan_.lane);
  for (int64_t j = 0; j < lanes_; ++j) {
    int64_t v = base + step * j;
    if (!a.quasi.empty()) {
      point_[size_t(plan_.lane)] = first_ + j;
      v = ir::valueAt(a, point_);
    }
    row[j] = integer ? wrapTo(e.type, double(v)) : roundTo(e.type, double(v));
  }
  point_[size_t(plan_.lane)] = first_;
  return row;
}

void RowRunner::computeNode(Node &n) {
  using K = ir::Expr::Kind;
  const ir::Expr &e = *n.expr;
  double *r = n.row.data();
  auto arg = [&](size_t i) { return n.args[i].values; };
  int64_t lanes = lanes_;
  bool integer = !ir::isFloat(e.type);
  switch (e.kind) {
  case K::Neg:
    for (int64_t j = 0; j < lanes; ++j)
      r[j] = integer ? integerArith(K::Neg, e.type, arg(0)[j], 0) : -arg(0)[j];
    return;
  case K::Add:
  case K::Sub:
  case K::Mul:
  case K::Div:
    if (integer) {
      for (int64_t j = 0; j < lanes; ++j)
        r[j] = integerArith(e.kind, e.type, arg(0)[j], arg(1)[j]);
    } else {
      floatArithmeticRow(
          n, [r](int64_t j, double v) { r[j] = v; }, lanes);
    }
    return;
  case K::Call:
    for (int64_t j = 0; j < lanes; ++j) {
      for (size_t i = 0; i < n.args.size(); ++i)
        n.scratch[i] = arg(i)[j];
      r[j] = applyFn(e.fn, e.type, n.scratch);
    }
    return;
  case K::Compare:
    for (int64_t j = 0; j < lanes; ++j)
      r[j] = ir::compare(e.cmp, arg(0)[j], arg(1)[j]) ? 1 : 0;
    return;
  case K::And:
    for (int64_t j = 0; j < lanes; ++j)
      r[j] = arg(0)[j] != 0 && arg(1)[j] != 0 ? 1 : 0;
    return;
  case K::Or:
    for (int64_t j = 0; j < lanes; ++j)
      r[j] = arg(0)[j] != 0 || arg(1)[j] != 0 ? 1 : 0;
    return;
  case K::Not:
    for (int64_t j = 0; j < lanes; ++j)
      r[j] = arg(0)[j] != 0 ? 0 : 1;
    return;
  case K::Select:
    for (int64_t j = 0; j < lanes; ++j)
      r[j] = arg(0)[j] != 0 ? arg(1)[j] : arg(2)[j];
    return;
  case K::Const:
  case K::Read:
  case K::Index:
    return; // uniform, or evaluated by eval()
  }
}

// Runs statement s over its rows on up to `threads` threads; `done(groups)` reports progress
// from the calling thread.
void runStatementRows(const ir::Kernel &k, const ir::Statement &s, const Plan &plan, Buffers &b,
                      unsigned threads, const std::function<void(int64_t)> &done) {
  // A thread costs ~50 us to start: only worth it past ~10^5 points.
  if (s.pointCount() < 100000)
    threads = 1;
  threads = unsigned(std::min<int64_t>(threads, plan.groups));
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t)
    workers.emplace_back([&, t] {
      RowRunner(k, s, plan, b)
          .runGroups(plan.groups * t / threads, plan.groups * (t + 1) / threads, {});
    });
  RowRunner(k, s, plan, b).runGroups(0, plan.groups / std::max(threads, 1u), [&](int64_t groups) {
    if (done)
      done(groups * std::max(threads, 1u));
  });
  for (auto &w : workers)
    w.join();
}

} // namespace

void runRows(const ir::Kernel &k, Buffers &b, unsigned threads, const RowProgress &progress) {
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  for (size_t t = 0; t < k.tensors.size(); ++t)
    if (ir::startsZeroed(k, int(t)))
      std::fill(b[t].begin(), b[t].end(), 0.0);
  double total = 0, before = 0;
  for (const auto &s : k.statements)
    total += double(s.pointCount());
  auto lastReport = std::chrono::steady_clock::now();
  for (size_t i = 0; i < k.statements.size(); ++i) {
    const ir::Statement &s = k.statements[i];
    auto plan = orderInvisible(s) ? planRows(s) : std::nullopt;
    if (!plan) {
      runStatement(k, i, b);
    } else {
      runStatementRows(k, s, *plan, b, threads, [&](int64_t groups) {
        auto now = std::chrono::steady_clock::now();
        if (!progress || now - lastReport < std::chrono::milliseconds(100))
          return;
        lastReport = now;
        double share =
            double(std::min(groups, plan->groups)) / double(std::max<int64_t>(plan->groups, 1));
        progress(std::min(1.0, (before + share * double(s.pointCount())) / std::max(total, 1.0)));
      });
    }
    before += double(s.pointCount());
  }
  if (progress)
    progress(1.0);
}

void runReference(const ir::Kernel &k, Buffers &b, Reference reference, unsigned threads,
                  const RowProgress &progress) {
  if (reference == Reference::Rows)
    return runRows(k, b, threads, progress);
  run(k, b);
  if (progress)
    progress(1.0);
}

} // namespace isam::interp
