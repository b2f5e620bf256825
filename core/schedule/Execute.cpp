#include "schedule/Execute.h"

#include "schedule/Geometry.h"

#include <algorithm>
#include <chrono>
#include <functional>

namespace isam::schedule {

namespace {

// A staged tile: the bounding box [lo, lo + size) of an operand's access over a box; a
// lane-reduced result's holds `lanes` partial results per element, lane-minor.
struct Holder {
  std::vector<int64_t> lo, size;
  std::vector<double> data;
  int64_t lanes = 1;
};

// Points computed so far, reported now and then.
struct Progress {
  std::function<void(double)> report;
  double total = 1, done = 0;
  int64_t sinceCheck = 0;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();

  void add(int64_t points) {
    if (!report || (sinceCheck += points) < 4096)
      return;
    done += double(sinceCheck);
    sinceCheck = 0;
    auto now = std::chrono::steady_clock::now();
    if (now - last >= std::chrono::milliseconds(100)) {
      last = now;
      report(std::min(1.0, done / total));
    }
  }
};

class Executor {
public:
  Executor(const StatementSchedule &ss, const ir::Kernel &k, const hw::Target &t,
           interp::Buffers &b, Progress &progress)
      : ss_(ss), c_(ss.config), k_(k), t_(t), s_(k.statements[c_.statement]), b_(b),
        progress_(progress), begin_(c_.vindices.size(), 0), size_(c_.vindices.size()),
        stacks_(c_.operands.size()) {
    for (size_t v = 0; v < c_.vindices.size(); ++v)
      size_[v] = c_.vindices[v].extent;
  }

  void run(const Node &n) {
    switch (n.kind) {
    case Node::Kind::Block:
      for (const auto &x : n.body)
        run(x);
      return;
    case Node::Kind::Init:
      init(n.init);
      return;
    case Node::Kind::Scalar:
      scalar();
      return;
    case Node::Kind::Loop: {
      int64_t b0 = begin_[n.v], s0 = size_[n.v];
      for (int64_t at = b0; at < b0 + s0; at += n.step) {
        begin_[n.v] = at;
        size_[n.v] = std::min(n.step, b0 + s0 - at);
        for (const auto &x : n.body)
          run(x);
      }
      begin_[n.v] = b0;
      size_[n.v] = s0;
      return;
    }
    case Node::Kind::Stage:
      stage(n);
      return;
    case Node::Kind::Call:
      call();
      return;
    }
  }

private:
  // The range of each statement index over the current box (inclusive).
  void statementRanges(std::vector<int64_t> &lo, std::vector<int64_t> &hi) const {
    statementBox(c_, s_, begin_, size_, lo, hi);
  }

  // The element of operand o's access at a statement point: in its innermost staged tile (each
  // of a lane holder's elements holds `lanes` partials, lane-minor), else in the tensor. The
  // hot path of call(): no coordinate vector is built.
  double &elementAt(size_t o, const std::vector<int64_t> &point, int64_t lane = 0) {
    const ir::Access &a = c_.operands[o].access;
    const Holder *h = stacks_[o].empty() ? nullptr : &stacks_[o].back();
    const std::vector<int64_t> &shape = h ? h->size : k_.tensors[size_t(a.tensor)].shape;
    int64_t f = 0;
    for (size_t d = 0; d < a.indices.size(); ++d) {
      const ir::Affine &dim = a.indices[d];
      int64_t x = dim.constant;
      for (auto [i, coef] : dim.terms)
        x += coef * point[size_t(i)];
      f = f * shape[d] + (x - (h ? h->lo[d] : 0));
    }
    if (!h)
      return b_[size_t(c_.operands[o].tensor)][size_t(f)];
    return h->lanes > 1 ? stacks_[o].back().data[size_t(f * h->lanes + lane)]
                        : stacks_[o].back().data[size_t(f)];
  }

  int64_t flat(const std::vector<int64_t> &shape, const std::vector<int64_t> &c,
               const std::vector<int64_t> *lo = nullptr) const {
    int64_t f = 0;
    for (size_t d = 0; d < c.size(); ++d)
      f = f * shape[d] + (c[d] - (lo ? (*lo)[d] : 0));
    return f;
  }

  // Reads and writes go to the innermost staged tile of the operand, else to the tensor.
  double &element(size_t operand, int tensor, const std::vector<int64_t> &c, size_t depth) {
    if (depth > 0) {
      Holder &h = stacks_[operand][depth - 1];
      return h.data[flat(h.size, c, &h.lo)];
    }
    return b_[tensor][flat(k_.tensors[tensor].shape, c)];
  }

  void stage(const Node &n) {
    const Buffer &buf = ss_.buffers[n.buffer];
    size_t o = size_t(buf.operand);
    const OperandPlacement &p = c_.operands[o];
    std::vector<int64_t> lo, hi;
    statementRanges(lo, hi);
    Holder h;
    accessBox(p.access, lo, hi, h.lo, h.size);
    int64_t count = 1;
    for (int64_t x : h.size)
      count *= x;
    size_t depth = stacks_[o].size();
    if (buf.lanes > 0) {
      // Lane partials start from the reduction's identity; the finisher folds them at the end.
      h.lanes = buf.lanes;
      h.data.assign(size_t(count * h.lanes), ir::reduceIdentity(s_.reduce));
      stacks_[o].push_back(std::move(h));
      for (const auto &x : n.body)
        run(x);
      Holder done = std::move(stacks_[o].back());
      stacks_[o].pop_back();
      forEach(done, [&](const std::vector<int64_t> &c, int64_t at) {
        double &outer = element(o, p.tensor, c, depth);
        outer = fold(outer, &done.data[size_t(at * done.lanes)], done.lanes);
      });
      return;
    }
    h.data.assign(size_t(count), 0.0);
    if (p.computed && depth == 0) {
      // The pack of a computed operand evaluates its expression of the access's element.
      const ir::Tensor &t = k_.tensors[size_t(p.tensor)];
      forEach(h, [&](const std::vector<int64_t> &c, int64_t at) {
        double x = b_[p.tensor][flat(t.shape, c)];
        h.data[at] = interp::evalExpr(*p.computed, [&](const ir::Access &) { return x; });
      });
    } else {
      forEach(h, [&](const std::vector<int64_t> &c, int64_t at) {
        h.data[at] = element(o, p.tensor, c, depth);
      });
    }
    stacks_[o].push_back(std::move(h));
    for (const auto &x : n.body)
      run(x);
    Holder done = std::move(stacks_[o].back());
    stacks_[o].pop_back();
    if (p.output)
      forEach(done, [&](const std::vector<int64_t> &c, int64_t at) {
        element(o, p.tensor, c, depth) = done.data[at];
      });
  }

  // The finisher run by its semantics (acc op= a[i]) on one element's lanes.
  double fold(double acc, const double *lanes, int64_t count) const {
    const hw::Instruction &f = t_.instructions[size_t(c_.finisher)];
    const ir::Statement &F = f.semantics.statements[0];
    ir::ElemType type = f.semantics.tensors[size_t(F.lhs.tensor)].type;
    for (int64_t i = 0; i < count; ++i) {
      auto read = [&](const ir::Access &a) {
        int64_t x = a.indices.at(0).constant + a.indices[0].coefficientOf(0) * i;
        return lanes[x];
      };
      acc = interp::combine(F.reduce, type, acc, interp::evalExpr(F.rhs, read));
    }
    return acc;
  }

  template <class F> void forEach(const Holder &h, F &&f) {
    std::vector<int64_t> c = h.lo;
    int64_t at = 0;
    if (h.size.empty()) {
      f(c, 0);
      return;
    }
    for (;;) {
      f(c, at++);
      size_t d = c.size();
      while (d-- > 0) {
        if (++c[d] < h.lo[d] + h.size[d])
          break;
        c[d] = h.lo[d];
      }
      if (d == size_t(-1))
        return;
    }
  }

  void call() {
    const hw::Instruction &in = t_.instructions[size_t(c_.instruction)];
    const ir::Statement &I = in.semantics.statements[0];
    size_t ni = I.indices.size();
    std::vector<int> vOf(ni, -1);
    for (size_t v = 0; v < c_.vindices.size(); ++v)
      if (c_.vindices[v].instrIndex >= 0)
        vOf[c_.vindices[v].instrIndex] = int(v);
    std::vector<int64_t> extent(ni), q(ni, 0);
    for (size_t ii = 0; ii < ni; ++ii)
      extent[ii] = vOf[ii] >= 0 ? (c_.vindices[vOf[ii]].free ? size_[vOf[ii]]
                                                             : c_.vindices[vOf[ii]].instrExtent)
                                : 1;
    std::vector<int64_t> vvalue(c_.vindices.size()), point;
    size_t lhs = size_t(I.lhs.tensor);
    // A lane-reduced result keeps each lane's partial apart: the lane is the index of the
    // instruction result's last dimension.
    int lane = c_.finisher >= 0 ? I.lhs.indices.back().terms.at(0).first : -1;
    for (;;) {
      // Lanes beyond the box are masked off.
      bool inside = true;
      for (size_t v = 0; v < c_.vindices.size(); ++v)
        vvalue[v] = begin_[v];
      for (size_t ii = 0; ii < ni; ++ii) {
        if (vOf[ii] < 0)
          continue;
        inside = inside && q[ii] < size_[vOf[ii]];
        vvalue[vOf[ii]] += q[ii];
      }
      if (inside) {
        pointOf(c_, s_, vvalue, point);
        double value = interp::evalExpr(
            I.rhs, [&](const ir::Access &a) { return elementAt(size_t(a.tensor), point); });
        double &target = elementAt(lhs, point, lane >= 0 ? q[size_t(lane)] : 0);
        target = interp::combine(I.reduce, in.semantics.tensors[lhs].type, target, value);
        progress_.add(1);
      }
      size_t ii = 0;
      for (; ii < ni; ++ii) {
        if (++q[ii] < extent[ii])
          break;
        q[ii] = 0;
      }
      if (ii == ni)
        return;
    }
  }

  // Every point of the statement inside the box, in order.
  template <class F> void forEachPoint(F &&f, bool spatialOnly = false) {
    std::vector<int64_t> lo, hi;
    statementRanges(lo, hi);
    if (spatialOnly)
      for (size_t i = 0; i < s_.indices.size(); ++i)
        if (s_.indices[i].reduction)
          hi[i] = lo[i];
    std::vector<int64_t> point = lo;
    if (point.empty()) {
      f(point);
      return;
    }
    for (;;) {
      f(point);
      size_t d = point.size();
      while (d-- > 0) {
        if (++point[d] <= hi[d])
          break;
        point[d] = lo[d];
      }
      if (d == size_t(-1))
        return;
    }
  }

  void init(ir::ReduceOp op) {
    const ir::Tensor &t = k_.tensors[s_.lhs.tensor];
    forEachPoint(
        [&](const std::vector<int64_t> &p) {
          b_[s_.lhs.tensor][interp::flatIndex(t, s_.lhs, p)] = ir::reduceIdentity(op);
        },
        /*spatialOnly=*/true);
  }

  void scalar() {
    const ir::Tensor &t = k_.tensors[s_.lhs.tensor];
    forEachPoint([&](const std::vector<int64_t> &p) {
      if (!s_.computes(p))
        return;
      auto read = [&](const ir::Access &a) { return interp::readAt(k_, b_, a, p); };
      double &dst = b_[s_.lhs.tensor][interp::flatIndex(t, s_.lhs, p)];
      dst = interp::combine(s_.reduce, t.type, dst, interp::evalExpr(s_.rhs, read, &p));
      progress_.add(1);
    });
  }

  const StatementSchedule &ss_;
  const Config &c_;
  const ir::Kernel &k_;
  const hw::Target &t_;
  const ir::Statement &s_;
  interp::Buffers &b_;
  Progress &progress_;
  std::vector<int64_t> begin_, size_;
  std::vector<std::vector<Holder>> stacks_;
};

} // namespace

void execute(const KernelSchedule &schedule, const ir::Kernel &kernel, const hw::Target &target,
             interp::Buffers &buffers, const std::function<void(double)> &progress) {
  Progress counted{progress};
  for (const auto &s : kernel.statements)
    counted.total += double(s.pointCount());
  for (size_t t = 0; t < kernel.tensors.size(); ++t)
    if (ir::startsZeroed(kernel, int(t)))
      std::fill(buffers[t].begin(), buffers[t].end(), 0.0);
  for (const auto &ss : schedule.statements) {
    Executor ex(ss, kernel, target, buffers, counted);
    ex.run(ss.root);
  }
  if (progress)
    progress(1.0);
}

} // namespace isam::schedule
