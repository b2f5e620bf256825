#include "schedule/Verify.h"
#include "schedule/Geometry.h"
#include "schedule/Space.h"

#include <algorithm>
#include <functional>
#include <set>

namespace isam::schedule {

namespace {

int depthOf(const hw::Target &t, int memory) {
  int d = 0;
  for (int m = t.memories[size_t(memory)].parent; m >= 0 && d <= int(t.memories.size());
       m = t.memories[size_t(m)].parent)
    ++d;
  return d;
}

class ScheduleVerifier {
public:
  ScheduleVerifier(const Config &c, const ir::Kernel &k, const hw::Target &t,
                   const mapping::StatementMappings &m, std::vector<Diagnostic> &out)
      : c_(c), k_(k), t_(t), m_(m), out_(out) {}

  // False when the Config cannot be followed further (the tree is then not checked).
  bool config() {
    if (c_.statement >= k_.statements.size()) {
      fail("the Config is for statement s" + std::to_string(c_.statement) + " of " +
           std::to_string(k_.statements.size()));
      return false;
    }
    s_ = &k_.statements[c_.statement];
    if (m_.index != c_.statement)
      fail("the Config is for s" + std::to_string(c_.statement) + " but its mappings for s" +
           std::to_string(m_.index));
    if (c_.mapping >= 0) {
      if (size_t(c_.mapping) >= m_.candidates.size()) {
        fail("mapping #" + std::to_string(c_.mapping) + " of " +
             std::to_string(m_.candidates.size()) + " candidates");
        return false;
      }
      cand_ = &m_.candidates[size_t(c_.mapping)];
      if (cand_->instruction != c_.instruction || c_.instruction < 0 ||
          size_t(c_.instruction) >= t_.instructions.size()) {
        fail("the Config runs instruction #" + std::to_string(c_.instruction) +
             " but its mapping is onto #" + std::to_string(cand_->instruction));
        return false;
      }
      instr_ = &t_.instructions[size_t(c_.instruction)];
      if (!mapping::schedulable(*cand_))
        fail("the Config uses a mapping that leaves work unscheduled (partial or degenerate)");
      if (c_.finisher != cand_->finisher)
        fail("the Config's finisher is #" + std::to_string(c_.finisher) +
             " but its mapping's is #" + std::to_string(cand_->finisher));
    }
    if (c_.mapping < 0 && !c_.operands.empty()) {
      fail("scalar code with operand placements");
      return false;
    }
    bool ok = vindices() && levels() && tiles();
    if (ok)
      orders();
    if (ok && c_.mapping >= 0)
      ok = operands();
    return ok;
  }

  void cost(const Cost &cost) {
    if (!cost.valid) {
      fail("the chosen schedule's cost is invalid: " + cost.invalidReason);
      return;
    }
    bound(cost);
    if (c_.mapping < 0)
      return;
    for (const Cost::LevelCost &lc : cost.levels) {
      const Level *lv = nullptr;
      for (const Level &l : c_.levels)
        if (l.memory == lc.memory)
          lv = &l;
      if (!lv) {
        fail("the cost names memory #" + std::to_string(lc.memory) +
             ", which is no level of the Config");
        continue;
      }
      const hw::Memory &mem = t_.memories[size_t(lv->memory)];
      double capacity =
          lv->registers ? double(mem.registerCount) * mem.registerBytes : double(lv->capacityBytes);
      if (capacity > 0 && lc.footprintBytes > capacity)
        fail("the cost model accepts a working set of " + std::to_string(lc.footprintBytes) +
             " B at " + lv->name + ", which holds " + std::to_string(capacity) + " B");
    }
  }

  // The verdict names what it needs: scalar code exactly for no mapping, a memory for a
  // bandwidth bound, a unit (or none) for the moves of one unit.
  void bound(const Cost &cost) {
    bool scalar = cost.bound == Bound::ScalarCode;
    if (scalar != (c_.mapping < 0) || cost.bound == Bound::None)
      fail("the cost's bound does not fit a " +
           std::string(c_.mapping < 0 ? "schedule without mapping" : "mapped schedule"));
    else if (cost.bound == Bound::Bandwidth &&
             (cost.boundAt < 0 || size_t(cost.boundAt) >= t_.memories.size()))
      fail("a bandwidth bound at memory #" + std::to_string(cost.boundAt));
    else if (cost.bound == Bound::UnitBandwidth &&
             (cost.boundAt < -1 || cost.boundAt >= int(t_.units.size())))
      fail("a unit-bandwidth bound at unit #" + std::to_string(cost.boundAt));
  }

  void buffers(const std::vector<Buffer> &bufs) {
    std::set<std::pair<int, int>> seen;
    for (size_t b = 0; b < bufs.size(); ++b) {
      const Buffer &x = bufs[b];
      if (x.operand < 0 || size_t(x.operand) >= c_.operands.size() || x.level < 0 ||
          size_t(x.level) >= c_.levels.size()) {
        fail("buffer " + x.name + " is of operand #" + std::to_string(x.operand) + " at level #" +
             std::to_string(x.level));
        buffersOk_ = false;
        continue;
      }
      const OperandPlacement &p = c_.operands[size_t(x.operand)];
      if (p.tensor < 0 || !p.staged[size_t(x.level)] || !seen.insert({x.operand, x.level}).second)
        fail("buffer " + x.name + " is not one staged operand tile of its level");
      if (x.memory != c_.levels[size_t(x.level)].name)
        fail("buffer " + x.name + " lives in " + x.memory + " but its level is " +
             c_.levels[size_t(x.level)].name);
      // A lane-reduced result holds its lanes apart exactly in its register tile.
      bool wantLanes = c_.finisher >= 0 && p.output && c_.levels[size_t(x.level)].registers;
      if (x.lanes != (wantLanes ? laneCount(c_, t_) : 0))
        fail("buffer " + x.name + " holds " + std::to_string(x.lanes) +
             " lanes per element where " +
             (wantLanes ? "the finisher folds " + std::to_string(laneCount(c_, t_))
                        : std::string("nothing folds them")));
      if (wantLanes)
        ++laneBuffers_;
    }
    if (c_.finisher >= 0 && laneBuffers_ != 1)
      fail("a lane-reduced result has " + std::to_string(laneBuffers_) +
           " register tiles of lanes instead of one");
    for (size_t o = 0; o < c_.operands.size(); ++o)
      for (size_t l = 0; l < c_.levels.size(); ++l)
        if (c_.operands[o].tensor >= 0 && c_.operands[o].staged[l] && !seen.count({int(o), int(l)}))
          fail("operand #" + std::to_string(o) + " is staged at " + c_.levels[l].name +
               " but has no buffer there");
  }

  void tree(const Node &root, const std::vector<Buffer> &bufs) {
    if (!buffersOk_)
      return;
    bufs_ = &bufs;
    if (root.kind != Node::Kind::Block) {
      fail("the schedule's root is not a Block");
      return;
    }
    for (size_t i = 0; i < root.body.size(); ++i)
      if (root.body[i].kind == Node::Kind::Init && i != 0)
        fail("an Init node after other nodes");
    // A reduction starts from its identity unless it accumulates onto values already there;
    // so does an accumulating instruction running a plain assignment (zeroInit).
    bool zeroInit = cand_ && cand_->zeroInit;
    bool wantInit = (s_->reduce != ir::ReduceOp::None && !s_->accumulates) || zeroInit;
    ir::ReduceOp op = zeroInit ? instr_->semantics.statements[0].reduce : s_->reduce;
    bool hasInit = !root.body.empty() && root.body[0].kind == Node::Kind::Init;
    if (hasInit != wantInit)
      fail(wantInit ? "the result does not start from the reduction's identity (no Init)"
                    : "an Init node where the statement accumulates onto the values there");
    else if (hasInit && root.body[0].init != op)
      fail(std::string("the Init sets the identity of ") + ir::reduceOpText(root.body[0].init) +
           " but the reduction is " + ir::reduceOpText(op));
    Walk w;
    for (const VirtualIndex &v : c_.vindices)
      w.box.push_back(v.extent);
    staged_.assign(bufs.size(), 0);
    for (const Node &n : root.body)
      if (n.kind != Node::Kind::Init)
        node(n, w);
    if (c_.mapping >= 0) {
      if (calls_ != 1 || scalars_ != 0)
        fail(std::to_string(calls_) + " Call and " + std::to_string(scalars_) +
             " Scalar nodes in a mapped schedule (one Call expected)");
      for (size_t b = 0; b < bufs.size(); ++b)
        if (staged_[b] != 1)
          fail("buffer " + bufs[b].name + " is staged " + std::to_string(staged_[b]) +
               " times (once expected)");
    } else if (scalars_ != 1 || calls_ != 0 || !bufs.empty()) {
      fail(std::to_string(scalars_) + " Scalar, " + std::to_string(calls_) + " Call nodes and " +
           std::to_string(bufs.size()) + " buffers in scalar code (one Scalar expected)");
    }
  }

private:
  const Config &c_;
  const ir::Kernel &k_;
  const hw::Target &t_;
  const mapping::StatementMappings &m_;
  std::vector<Diagnostic> &out_;
  const ir::Statement *s_ = nullptr;
  const mapping::Candidate *cand_ = nullptr;
  const hw::Instruction *instr_ = nullptr;
  const std::vector<Buffer> *bufs_ = nullptr;
  bool buffersOk_ = true;
  int laneBuffers_ = 0;
  std::vector<int> staged_;
  int calls_ = 0, scalars_ = 0;

  struct Walk {
    std::vector<int64_t> box; // the largest size of the box per virtual index
    int innermostLoopLevel = -1;
    std::vector<int> stages; // enclosing buffers, outermost first
  };

  void fail(const std::string &what) {
    Diagnostic d;
    d.code = "E0903";
    d.range = c_.statement < k_.statements.size() ? k_.statements[c_.statement].range : k_.range;
    d.message = "internal: schedule of '" + k_.name + "' s" + std::to_string(c_.statement) +
                " on " + t_.name + ": " + what;
    out_.push_back(std::move(d));
  }

  bool vindices() {
    const ir::Statement &s = *s_;
    // What the virtual indices must be: the candidate's bound groups (instruction order), then
    // its loops; for scalar code, each statement index alone.
    std::vector<VirtualIndex> want;
    if (cand_) {
      for (size_t b = 0; b < cand_->bindings.size(); ++b) {
        const auto &ib = cand_->bindings[b];
        if (ib.stmtIndices.empty())
          continue;
        VirtualIndex v;
        v.stmtIndices = ib.stmtIndices;
        v.instrIndex = int(b);
        v.free = ib.instrExtent == 0;
        v.instrExtent = v.free ? 1 : ib.instrExtent;
        want.push_back(v);
      }
      for (int x : cand_->loops) {
        VirtualIndex v;
        v.stmtIndices = {x};
        want.push_back(v);
      }
    } else {
      for (size_t i = 0; i < s.indices.size(); ++i) {
        VirtualIndex v;
        v.stmtIndices = {int(i)};
        want.push_back(v);
      }
    }
    if (want.size() != c_.vindices.size()) {
      fail(std::to_string(c_.vindices.size()) + " virtual indices where the mapping gives " +
           std::to_string(want.size()));
      return false;
    }
    bool ok = true;
    for (size_t v = 0; v < want.size(); ++v) {
      const VirtualIndex &got = c_.vindices[v];
      std::string what = "virtual index '" + got.name + "'";
      if (got.stmtIndices != want[v].stmtIndices || got.instrIndex != want[v].instrIndex ||
          got.free != want[v].free || got.instrExtent != want[v].instrExtent) {
        fail(what + " is not the mapping's #" + std::to_string(v));
        ok = false;
        continue;
      }
      int64_t extent = 1;
      bool reduction = false;
      for (int x : got.stmtIndices) {
        // Extents below 1 are the kernel's problem (ir::verify); they cannot be followed here.
        if (x < 0 || size_t(x) >= s.indices.size() || s.indices[size_t(x)].extent < 1) {
          fail(what + " covers statement index #" + std::to_string(x) +
               ", which is not one of positive extent");
          return false;
        }
        extent *= s.indices[size_t(x)].extent;
        reduction = s.indices[size_t(x)].reduction;
      }
      if (got.extent != extent || got.reduction != reduction) {
        fail(what + " has extent " + std::to_string(got.extent) +
             (got.reduction ? " (reduction)" : "") + " but its statement indices span " +
             std::to_string(extent) + (reduction ? " (reduction)" : ""));
        ok = false;
      }
      if (got.instrExtent < 1) {
        fail(what + " covers " + std::to_string(got.instrExtent) + " per call");
        ok = false;
      }
    }
    return ok;
  }

  bool levels() {
    if (c_.levels.empty() && c_.mapping < 0 && c_.tiles.empty() && c_.order.empty())
      return true; // scalar code on a target without memories
    if (c_.levels.empty()) {
      fail("no memory levels");
      return false;
    }
    std::set<int> seen;
    int depth = -1;
    for (size_t l = 0; l < c_.levels.size(); ++l) {
      const Level &lv = c_.levels[l];
      if (lv.memory < 0 || size_t(lv.memory) >= t_.memories.size()) {
        fail("level " + lv.name + " is memory #" + std::to_string(lv.memory));
        return false;
      }
      const hw::Memory &mem = t_.memories[size_t(lv.memory)];
      if (lv.name != mem.name || lv.registers != mem.isRegisters ||
          lv.softwareManaged != t_.isSoftwareManaged(lv.memory))
        fail("level " + lv.name + " does not describe memory " + mem.name);
      if (!seen.insert(lv.memory).second)
        fail("memory " + mem.name + " is two levels");
      int d = depthOf(t_, lv.memory);
      if (d < depth || (l == 0 && d != 0))
        fail("level " + lv.name + " is out of order (outermost first, a root at level 0)");
      depth = d;
    }
    if (c_.doubleBuffered.size() != c_.levels.size()) {
      fail("double buffering given for " + std::to_string(c_.doubleBuffered.size()) + " of " +
           std::to_string(c_.levels.size()) + " levels");
      return false;
    }
    return true;
  }

  bool tiles() {
    size_t nv = c_.vindices.size(), nl = c_.levels.size();
    if (c_.tiles.size() != nl || c_.order.size() != nl) {
      fail("tiles for " + std::to_string(c_.tiles.size()) + " and orders for " +
           std::to_string(c_.order.size()) + " of " + std::to_string(nl) + " levels");
      return false;
    }
    for (size_t l = 0; l < nl; ++l)
      if (c_.tiles[l].size() != nv) {
        fail("level " + c_.levels[l].name + " has " + std::to_string(c_.tiles[l].size()) +
             " tiles for " + std::to_string(nv) + " virtual indices");
        return false;
      }
    for (size_t v = 0; v < nv && nl > 0; ++v)
      if (c_.tiles[0][v] != c_.vindices[v].extent)
        fail("level 0 holds " + std::to_string(c_.tiles[0][v]) + " of '" + c_.vindices[v].name +
             "', not all " + std::to_string(c_.vindices[v].extent));
    for (size_t l = 1; l < nl; ++l)
      for (size_t v = 0; v < nv; ++v) {
        const VirtualIndex &vi = c_.vindices[v];
        int64_t step = vi.instrExtent, tile = c_.tiles[l][v];
        int64_t enclosing = (c_.tiles[l - 1][v] + step - 1) / step * step;
        std::string what = "the tile of '" + vi.name + "' at " + c_.levels[l].name + " (" +
                           std::to_string(tile) + ")";
        if (tile < 1 || tile > enclosing)
          fail(what + " is not within the enclosing tile rounded up to whole calls (" +
               std::to_string(enclosing) + ")");
        else if (!vi.free && tile % step != 0)
          fail(what + " is not a whole number of calls of " + std::to_string(step));
      }
    return true;
  }

  void orders() {
    size_t nv = c_.vindices.size();
    std::vector<int> all(nv);
    for (size_t v = 0; v < nv; ++v)
      all[v] = int(v);
    for (size_t l = 0; l < c_.order.size(); ++l) {
      std::vector<int> sorted = c_.order[l];
      std::sort(sorted.begin(), sorted.end());
      if (sorted != all)
        fail("the loop order at " + c_.levels[l].name + " is not a permutation of the " +
             std::to_string(nv) + " virtual indices");
    }
    if (c_.parallel >= 0 &&
        (size_t(c_.parallel) >= nv || c_.vindices[size_t(c_.parallel)].reduction))
      fail("the parallel loop #" + std::to_string(c_.parallel) + " is not a write index");
  }

  // An operand computed from its access: an input whose outermost staging is a pack (which
  // computes it), of the expression's type where the instruction reads it, reading only it.
  void computedOperand(const OperandPlacement &p, const std::string &what) {
    if (!p.computed)
      return;
    int l = computeLevel(p);
    if (p.output || p.tensor < 0 || l < 0) {
      fail(what + " is computed but is a result, has no tensor or is never staged");
      return;
    }
    Staging::Kind k = p.staging[size_t(l)].kind;
    if (k != Staging::Kind::Pack && k != Staging::Kind::PackThenCopy &&
        k != Staging::Kind::PackThenMove)
      fail(what + " is computed, but its outermost staging at " + c_.levels[size_t(l)].name +
           " is not a pack");
    if (p.computed->type != instr_->semantics.tensors[size_t(p.operand)].type)
      fail(what + " is computed as " + ir::elemTypeName(p.computed->type) +
           " but the instruction reads " +
           ir::elemTypeName(instr_->semantics.tensors[size_t(p.operand)].type));
    std::function<bool(const ir::Expr &)> readsOnlyIt = [&](const ir::Expr &e) {
      if (e.kind == ir::Expr::Kind::Read &&
          (e.access.tensor != p.tensor || e.access.indices.size() != p.access.indices.size()))
        return false;
      for (const auto &a : e.args)
        if (!readsOnlyIt(a))
          return false;
      return true;
    };
    if (!readsOnlyIt(*p.computed))
      fail(what + " is computed from a tensor other than the one it is placed as");
  }

  bool operands() {
    const ir::Kernel &sem = instr_->semantics;
    if (c_.operands.size() != sem.tensors.size()) {
      fail(std::to_string(c_.operands.size()) + " operand placements for the instruction's " +
           std::to_string(sem.tensors.size()) + " operands");
      return false;
    }
    size_t nl = c_.levels.size();
    bool ok = true;
    for (size_t o = 0; o < c_.operands.size(); ++o) {
      const OperandPlacement &p = c_.operands[o];
      std::string what = "operand '" + sem.tensors[o].name + "'";
      if (p.operand != int(o) || p.tensor >= int(k_.tensors.size()) ||
          p.output != (sem.tensors[o].role != ir::TensorRole::Input)) {
        fail(what + " is placed as operand #" + std::to_string(p.operand) + " of tensor #" +
             std::to_string(p.tensor));
        ok = false;
        continue;
      }
      bool accessOk = p.tensor < 0 || p.access.tensor == p.tensor;
      for (const auto &d : p.access.indices)
        for (auto [i, coef] : d.terms)
          accessOk = accessOk && i >= 0 && size_t(i) < s_->indices.size();
      if (!accessOk) {
        fail(what + " stands for an access that is not one of its tensor in the statement");
        ok = false;
        continue;
      }
      if (p.staged.size() != nl || p.staging.size() != nl) {
        fail(what + " has staging for " + std::to_string(p.staged.size()) + " of " +
             std::to_string(nl) + " levels");
        ok = false;
        continue;
      }
      // The path: a root memory, then memories each inside the one before (a move may skip
      // one: DRAM straight into ACC), ending where the instruction needs the operand.
      bool pathOk = !p.path.empty();
      for (size_t j = 0; pathOk && j < p.path.size(); ++j) {
        int l = p.path[j];
        if (l < 0 || size_t(l) >= nl || (j > 0 && l <= p.path[j - 1])) {
          pathOk = false;
          break;
        }
        int memory = c_.levels[size_t(l)].memory;
        pathOk = j == 0 ? t_.memories[size_t(memory)].parent < 0
                        : t_.isAncestor(c_.levels[size_t(p.path[j - 1])].memory, memory);
      }
      if (pathOk)
        pathOk = c_.levels[size_t(p.path.back())].name == sem.tensors[o].memory;
      if (!pathOk) {
        fail(what + " does not go from a root memory inward to " + sem.tensors[o].memory);
        ok = false;
        continue;
      }
      for (size_t l = 0; l < nl; ++l) {
        bool onPath = std::find(p.path.begin(), p.path.end(), int(l)) != p.path.end();
        if (p.staged[l] && (!onPath || l == size_t(p.path.front())))
          fail(what + " is staged at " + c_.levels[l].name + ", off its path or at its home");
        staging(p.staging[l], p.staged[l], what + " at " + c_.levels[l].name);
      }
      computedOperand(p, what);
    }
    return ok;
  }

  // What fills a level: nothing exactly where nothing is staged; a move of the target where
  // one is named.
  void staging(const Staging &st, bool staged, const std::string &what) {
    if ((st.kind == Staging::Kind::None) == staged)
      fail(what + (staged ? " is staged by nothing" : " is filled but not staged"));
    bool moves = st.kind == Staging::Kind::Move || st.kind == Staging::Kind::PackThenMove;
    if (moves && (st.move < 0 || size_t(st.move) >= t_.instructions.size() ||
                  !t_.instructions[size_t(st.move)].isMove))
      fail(what + " is filled by instruction #" + std::to_string(st.move) +
           ", which is not a move of " + t_.name);
  }

  void node(const Node &n, Walk w) {
    switch (n.kind) {
    case Node::Kind::Block:
      for (const Node &x : n.body)
        node(x, w);
      return;
    case Node::Kind::Init:
      fail("an Init node inside the loop nest");
      return;
    case Node::Kind::Scalar:
      ++scalars_;
      return;
    case Node::Kind::Loop: {
      if (n.v < 0 || size_t(n.v) >= c_.vindices.size() || n.level < 0 ||
          size_t(n.level) >= std::max<size_t>(1, c_.levels.size()) || n.step < 1) {
        fail("a loop over virtual index #" + std::to_string(n.v) + " at level #" +
             std::to_string(n.level) + " by " + std::to_string(n.step));
        return;
      }
      if (n.level < w.innermostLoopLevel)
        fail("a loop at level #" + std::to_string(n.level) + " inside one at level #" +
             std::to_string(w.innermostLoopLevel));
      if (n.parallel && (n.level != 0 || n.v != c_.parallel))
        fail("a parallel loop over '" + c_.vindices[size_t(n.v)].name +
             "' that is not the Config's parallel loop at level 0");
      for (const Node::Prefetch &pf : n.prefetches) {
        const OperandPlacement *p = pf.operand >= 0 && size_t(pf.operand) < c_.operands.size()
                                        ? &c_.operands[size_t(pf.operand)]
                                        : nullptr;
        // Native code computes the address from the tensor itself: a staged buffer would be
        // read instead of the lines fetched.
        if (!p || p->output || p->tensor < 0 ||
            std::find(p->staged.begin(), p->staged.end(), true) != p->staged.end())
          fail("a loop over '" + c_.vindices[size_t(n.v)].name + "' prefetches operand #" +
               std::to_string(pf.operand) + ", which is not an input read in place");
      }
      w.innermostLoopLevel = n.level;
      w.box[size_t(n.v)] = std::min(w.box[size_t(n.v)], n.step);
      for (const Node &x : n.body)
        node(x, w);
      return;
    }
    case Node::Kind::Stage: {
      if (n.buffer < 0 || size_t(n.buffer) >= bufs_->size()) {
        fail("a stage of buffer #" + std::to_string(n.buffer));
        return;
      }
      const Buffer &b = (*bufs_)[size_t(n.buffer)];
      ++staged_[size_t(n.buffer)];
      if (w.innermostLoopLevel >= b.level)
        fail("buffer " + b.name + " is staged inside a loop of its own level or an inner one");
      for (int outer : w.stages)
        if ((*bufs_)[size_t(outer)].operand == b.operand &&
            (*bufs_)[size_t(outer)].level >= b.level)
          fail("buffer " + b.name + " is staged inside a buffer of the same operand further in");
      const OperandPlacement &p = c_.operands[size_t(b.operand)];
      std::vector<int64_t> need = tileFootprint(*s_, p.access, c_.vindices, w.box);
      bool fits = need.size() == b.shape.size();
      for (size_t d = 0; fits && d < need.size(); ++d)
        fits = need[d] <= b.shape[d];
      if (!fits)
        fail("buffer " + b.name + " is smaller than the operand's footprint over its box");
      // Native code fills such a tile with the identity and prefetches where it writes back.
      if (n.prefetchTile && (!p.output || b.lanes > 0 || !c_.levels[size_t(b.level)].registers))
        fail("buffer " + b.name +
             " prefetches its tile's lines but is not a result's register tile");
      w.stages.push_back(n.buffer);
      for (const Node &x : n.body)
        node(x, w);
      return;
    }
    case Node::Kind::Call:
      ++calls_;
      if (c_.mapping < 0) {
        fail("a Call in scalar code");
        return;
      }
      if (w.stages.size() != bufs_->size())
        fail("the Call is inside " + std::to_string(w.stages.size()) + " of the " +
             std::to_string(bufs_->size()) + " staged buffers");
      for (size_t v = 0; v < c_.vindices.size(); ++v) {
        const VirtualIndex &vi = c_.vindices[v];
        int64_t most = vi.free ? w.box[v] : vi.instrIndex >= 0 ? vi.instrExtent : 1;
        if (w.box[v] > most)
          fail("the Call covers " + std::to_string(w.box[v]) + " of '" + vi.name +
               "' but one call covers " + std::to_string(most));
      }
      return;
    }
  }
};

} // namespace

std::vector<Diagnostic> verify(const Config &config, const ir::Kernel &kernel,
                               const hw::Target &target,
                               const mapping::StatementMappings &mappings) {
  std::vector<Diagnostic> out;
  ScheduleVerifier(config, kernel, target, mappings, out).config();
  return out;
}

std::vector<Diagnostic> verify(const StatementSchedule &ss, const ir::Kernel &kernel,
                               const hw::Target &target,
                               const mapping::StatementMappings &mappings) {
  std::vector<Diagnostic> out;
  ScheduleVerifier v(ss.config, kernel, target, mappings, out);
  if (!v.config())
    return out;
  v.cost(ss.cost);
  v.buffers(ss.buffers);
  v.tree(ss.root, ss.buffers);
  return out;
}

std::vector<Diagnostic> verify(const KernelSchedule &ks, const ir::Kernel &kernel,
                               const hw::Target &target,
                               const std::vector<mapping::StatementMappings> &mappings) {
  std::vector<Diagnostic> out;
  if (ks.statements.size() != kernel.statements.size() ||
      mappings.size() != kernel.statements.size()) {
    Diagnostic d;
    d.code = "E0903";
    d.range = kernel.range;
    d.message = "internal: schedule of '" + kernel.name + "' on " + target.name + ": " +
                std::to_string(ks.statements.size()) + " statement schedules and " +
                std::to_string(mappings.size()) + " mappings for " +
                std::to_string(kernel.statements.size()) + " statements";
    out.push_back(std::move(d));
    return out;
  }
  for (size_t i = 0; i < ks.statements.size(); ++i) {
    if (ks.statements[i].config.statement != i) {
      Diagnostic d;
      d.code = "E0903";
      d.range = kernel.statements[i].range;
      d.message = "internal: schedule of '" + kernel.name + "' on " + target.name + ": s" +
                  std::to_string(i) + " holds the schedule of s" +
                  std::to_string(ks.statements[i].config.statement);
      out.push_back(std::move(d));
      continue;
    }
    for (auto &d : verify(ks.statements[i], kernel, target, mappings[i]))
      out.push_back(std::move(d));
  }
  return out;
}

} // namespace isam::schedule
