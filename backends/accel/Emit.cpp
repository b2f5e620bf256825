#include "backends/accel/Emit.h"

#include "schedule/Geometry.h"

#include <algorithm>
#include <map>

namespace isam::accel {

namespace {

int outermostMemory(const hw::Target &t) {
  for (size_t m = 0; m < t.memories.size(); ++m)
    if (t.memories[m].parent < 0 && !t.memories[m].isRegisters)
      return int(m);
  throw Error("target " + t.name + " describes no outermost memory to hold the tensors");
}

void checkCapacity(const hw::Memory &dram, uint64_t needed, const std::string &what) {
  if (dram.sizeBytes > 0 && needed > dram.sizeBytes)
    throw Error(what + " need " + std::to_string(needed) + " B of " + dram.name + "'s " +
                std::to_string(dram.sizeBytes));
}

uint64_t alignUp(uint64_t x, uint64_t to) {
  return (x + to - 1) / to * to;
}

// A move's two operands: the one it writes and the one it reads.
struct MoveOperands {
  int dst = -1, src = -1;
};
MoveOperands moveOperands(const hw::Instruction &in) {
  MoveOperands m;
  for (size_t t = 0; t < in.semantics.tensors.size(); ++t)
    (in.semantics.tensors[t].role == ir::TensorRole::Input ? m.src : m.dst) = int(t);
  return m;
}

// A move that copies a [R, W] tile unchanged from memory `from` to memory `to`.
const hw::Instruction *copyMove(const hw::Target &t, int from, int to) {
  for (const auto &in : t.instructions) {
    if (!in.isMove || in.semantics.tensors.size() != 2 || in.semantics.statements.size() != 1)
      continue;
    MoveOperands m = moveOperands(in);
    if (m.src < 0 || m.dst < 0 || t.memoryIndex(in.semantics.tensors[m.src].memory) != from ||
        t.memoryIndex(in.semantics.tensors[m.dst].memory) != to)
      continue;
    const ir::Statement &s = in.semantics.statements[0];
    if (s.reduce == ir::ReduceOp::None && s.rhs.kind == ir::Expr::Kind::Read &&
        s.rhs.access.tensor == m.src)
      return &in;
  }
  return nullptr;
}

// What the emitter needs to know about one instruction operand of a mapped statement.
struct OperandPlan {
  int tensor = -1;       // statement tensor
  int allocation = -1;   // its DRAM home: the tensor, or a view packed by the host
  bool packed = false;   // the home is a view
  std::vector<int> dims; // view dimension -> virtual index (-1: a dimension of extent 1)
  std::vector<int64_t> extents;
  std::vector<int64_t> viewStrides; // bytes, row-major over extents
  int64_t rows = 1, cols = 1;       // the instruction operand's shape
  int elemBytes = 4;
  bool output = false;
};

struct BufferPlan {
  int memory = -1;
  uint64_t address = 0, halfBytes = 0;
  bool doubleBuffered = false;
  int64_t width = 1;                // elements per row: one move's row
  std::vector<int64_t> tileExtents; // per view dimension, the rows dimension padded
  const hw::Instruction *fill = nullptr, *drain = nullptr;
  int half = 1; // the half filled last
  // What each half holds (the box's lo and size per layout dimension; empty: nothing yet), so
  // that a tile staged again while still in place is not moved again.
  std::vector<int64_t> holds[2];
};

struct StatementPlan {
  const schedule::StatementSchedule *ss = nullptr;
  const hw::Instruction *instr = nullptr;
  std::vector<OperandPlan> operands; // by instruction tensor
  std::vector<BufferPlan> buffers;   // by schedule buffer
};

class Emitter {
public:
  Emitter(const ir::Kernel &k, const hw::Target &t, const schedule::KernelSchedule &ks, Sink &sink)
      : k_(k), t_(t), ks_(ks), sink_(sink) {}

  void run() {
    dram_ = outermost();
    for (size_t i = 0; i < k_.tensors.size(); ++i) {
      Allocation a;
      a.name = k_.tensors[i].name;
      a.tensor = int(i);
      a.bytes = uint64_t(k_.tensors[i].elementCount()) * ir::elemTypeBytes(k_.tensors[i].type);
      place(a);
    }
    for (const auto &ss : ks_.statements)
      plans_.push_back(plan(ss));
    checkCapacity(t_.memories[dram_], next_, "the tensors and packed views");
    sink_.layout(allocations_);
    // Elements no statement writes are zeros, whatever DRAM held.
    for (size_t t = 0; t < k_.tensors.size(); ++t)
      if (ir::startsZeroed(k_, int(t))) {
        Op op;
        op.kind = Op::Kind::HostClear;
        op.allocation = int(t);
        op.statement = 0;
        for (size_t s = 0; s < k_.statements.size(); ++s)
          if (k_.statements[s].lhs.tensor == int(t)) {
            op.statement = int(s);
            break;
          }
        sink_.op(op);
      }
    for (auto &p : plans_)
      emitStatement(p);
  }

private:
  int outermost() const { return outermostMemory(t_); }

  int place(Allocation a) {
    a.address = next_;
    next_ = alignUp(next_ + std::max<uint64_t>(a.bytes, 1), 64);
    allocations_.push_back(std::move(a));
    return int(allocations_.size()) - 1;
  }

  [[noreturn]] void fail(const StatementPlan &p, const std::string &why) const {
    const ir::Statement &s = k_.statements[p.ss->config.statement];
    throw Error(k_.name + ": statement `" + s.text + "` on " + t_.name + ": " + why);
  }

  StatementPlan plan(const schedule::StatementSchedule &ss) {
    StatementPlan p;
    p.ss = &ss;
    const schedule::Config &c = ss.config;
    if (c.mapping < 0)
      return p;
    p.instr = &t_.instructions[size_t(c.instruction)];
    if (p.instr->semantics.statements.size() != 1)
      fail(p, "instruction " + p.instr->name + " has no single-statement semantics");
    const ir::Statement &s = k_.statements[c.statement];
    p.operands.resize(p.instr->semantics.tensors.size());
    for (const auto &pl : c.operands) {
      const ir::Tensor &op = p.instr->semantics.tensors[size_t(pl.operand)];
      if (pl.tensor < 0)
        fail(p, "operand " + op.name + " of " + p.instr->name + " stands for no tensor");
      OperandPlan &o = p.operands[size_t(pl.operand)];
      o.tensor = pl.tensor;
      o.output = pl.output;
      o.elemBytes = ir::elemTypeBytes(schedule::stagedType(k_, pl));
      if (op.shape.size() != 2)
        fail(p, "operand " + op.name + " of " + p.instr->name +
                    " is not a matrix; the accelerator backend lays out 2-D operands");
      // A free size (a move's R rows) is covered a row at a time.
      o.rows = std::max<int64_t>(op.shape[0], 1);
      o.cols = op.shape[1];
      if (o.cols <= 0)
        fail(p, "operand " + op.name + " of " + p.instr->name + " has a free number of columns");
      // The layout: loops that move the operand's tile, outermost first, then rows and columns.
      o.dims = schedule::layoutDims(c, size_t(pl.operand));
      if (pl.dims.size() != 2 || o.dims.size() < 2)
        fail(p, "operand " + op.name + " of " + p.instr->name + " is not indexed by plain indices");
      for (size_t d = 0; d + 2 < o.dims.size(); ++d)
        if (c.vindices[size_t(o.dims[d])].instrIndex >= 0)
          fail(p, "operand " + op.name + " does not follow index " +
                      c.vindices[size_t(o.dims[d])].name + " that " + p.instr->name + " covers");
      for (int v : o.dims)
        o.extents.push_back(v >= 0 ? c.vindices[size_t(v)].extent : 1);
      o.viewStrides.assign(o.dims.size(), o.elemBytes);
      for (size_t d = o.dims.size() - 1; d-- > 0;)
        o.viewStrides[d] = o.viewStrides[d + 1] * o.extents[d + 1];
      o.allocation = pl.tensor;
      // A computed operand always has a view: the host computes it there as it packs.
      if (pl.computed || !sameLayout(s, c.vindices, pl.access, o)) {
        Allocation a;
        a.name = k_.tensors[size_t(pl.tensor)].name + "@s" + std::to_string(c.statement);
        a.tensor = pl.tensor;
        a.view = true;
        a.statement = int(c.statement);
        a.access = pl.access;
        a.extents = o.extents;
        for (int v : o.dims)
          a.groups.push_back(v >= 0 ? c.vindices[size_t(v)].stmtIndices : std::vector<int>{});
        a.bytes = uint64_t(o.viewStrides[0] * o.extents[0]);
        a.computed = pl.computed;
        o.allocation = place(std::move(a));
        o.packed = true;
      }
    }
    planBuffers(p);
    return p;
  }

  // Whether the view's addresses are the tensor's own: both are linear in the statement's
  // indices, so equal coefficients (and no offset) mean equal addresses everywhere.
  bool sameLayout(const ir::Statement &s, const std::vector<schedule::VirtualIndex> &vindices,
                  const ir::Access &access, const OperandPlan &o) const {
    const ir::Tensor &t = k_.tensors[size_t(access.tensor)];
    std::vector<int64_t> tensorCoef(s.indices.size(), 0), viewCoef(s.indices.size(), 0);
    int64_t stride = o.elemBytes, offset = 0;
    for (size_t d = t.shape.size(); d-- > 0;) {
      for (auto [i, coef] : access.indices[d].terms)
        tensorCoef[size_t(i)] += coef * stride;
      offset += access.indices[d].constant * stride;
      stride *= t.shape[d];
    }
    for (size_t d = 0; d < o.dims.size(); ++d) {
      if (o.dims[d] < 0)
        continue;
      const auto &group = vindices[size_t(o.dims[d])].stmtIndices;
      int64_t radix = 1;
      for (size_t j = group.size(); j-- > 0;) {
        viewCoef[size_t(group[j])] += o.viewStrides[d] * radix;
        radix *= s.indices[size_t(group[j])].extent;
      }
    }
    if (offset != 0)
      return false;
    for (size_t i = 0; i < s.indices.size(); ++i)
      if (s.indices[i].extent > 1 && tensorCoef[i] != viewCoef[i])
        return false;
    return true;
  }

  void planBuffers(StatementPlan &p) {
    const schedule::StatementSchedule &ss = *p.ss;
    const schedule::Config &c = ss.config;
    std::map<int, uint64_t> used; // per memory, for this statement
    for (const auto &b : ss.buffers) {
      const schedule::OperandPlacement &pl = c.operands[size_t(b.operand)];
      OperandPlan &o = p.operands[size_t(b.operand)];
      BufferPlan bp;
      bp.memory = c.levels[size_t(b.level)].memory;
      const hw::Memory &mem = t_.memories[size_t(bp.memory)];
      const std::string &opName = p.instr->semantics.tensors[size_t(b.operand)].name;
      const schedule::Staging &staging = pl.staging[size_t(b.level)];
      bp.fill = schedule::stagingMove(staging, t_);
      if (!bp.fill || !bp.fill->isMove)
        fail(p, "no move of " + t_.name + " fills " + opName + " in " + mem.name + " (via " +
                    schedule::stagingText(staging, t_) + ")");
      MoveOperands m = moveOperands(*bp.fill);
      const ir::Tensor &dst = bp.fill->semantics.tensors[size_t(m.dst)];
      if (m.src < 0 || dst.shape.size() != 2 || dst.shapeParams[0].empty())
        fail(p, "move " + bp.fill->name + " does not move rows of a matrix (dst: [R, W])");
      if (t_.memoryIndex(bp.fill->semantics.tensors[size_t(m.src)].memory) != dram_)
        fail(p, "move " + bp.fill->name + " does not read " + t_.memories[dram_].name + ", where " +
                    opName +
                    "'s tensor lives; staging through two levels is not "
                    "supported");
      bp.width = dst.shape[1];
      if (bp.width != o.cols)
        fail(p, "move " + bp.fill->name + " moves rows of " + std::to_string(bp.width) +
                    " elements, but " + p.instr->name + " reads " + opName + " in rows of " +
                    std::to_string(o.cols));
      if (o.output) {
        bp.drain = copyMove(t_, bp.memory, dram_);
        if (!bp.drain)
          fail(p, "no move of " + t_.name + " copies " + opName + " back from " + mem.name +
                      " to " + t_.memories[dram_].name);
      }
      bp.tileExtents = schedule::layoutTile(c, size_t(b.operand), size_t(b.level), true);
      uint64_t elements = 1;
      for (int64_t e : bp.tileExtents)
        elements *= uint64_t(e);
      uint32_t line = std::max<uint32_t>(mem.lineBytes, 1);
      bp.halfBytes = alignUp(elements * uint64_t(o.elemBytes), line);
      bp.doubleBuffered = b.doubleBuffered;
      bp.address = used[bp.memory];
      used[bp.memory] += bp.halfBytes * (bp.doubleBuffered ? 2 : 1);
      if (mem.sizeBytes > 0 && used[bp.memory] > mem.sizeBytes)
        fail(p, "the tiles staged in " + mem.name + " need " + std::to_string(used[bp.memory]) +
                    " B (laid out in rows of " + std::to_string(bp.width) + "), more than its " +
                    std::to_string(mem.sizeBytes));
      p.buffers.push_back(bp);
    }
  }

  // ---- the walk --------------------------------------------------------------------------

  struct Holder {
    int buffer = -1;
    uint64_t base = 0;
    std::vector<int64_t> lo, size; // per view dimension
  };

  void emitStatement(StatementPlan &p) {
    const schedule::Config &c = p.ss->config;
    if (c.mapping < 0) {
      Op op;
      op.kind = Op::Kind::HostStatement;
      op.statement = int(c.statement);
      sink_.op(op);
      return;
    }
    plan_ = &p;
    begin_.assign(c.vindices.size(), 0);
    size_.resize(c.vindices.size());
    for (size_t v = 0; v < c.vindices.size(); ++v)
      size_[v] = c.vindices[v].extent;
    holders_.assign(p.operands.size(), {});
    for (const auto &o : p.operands)
      if (o.packed)
        hostOp(Op::Kind::HostPack, o.allocation, int(c.statement));
    walk(p.ss->root);
    for (const auto &o : p.operands)
      if (o.packed && o.output)
        hostOp(Op::Kind::HostUnpack, o.allocation, int(c.statement));
  }

  void hostOp(Op::Kind kind, int allocation, int statement) {
    Op op;
    op.kind = kind;
    op.allocation = allocation;
    op.statement = statement;
    sink_.op(op);
  }

  void walk(const schedule::Node &n) {
    using K = schedule::Node::Kind;
    switch (n.kind) {
    case K::Block:
      for (const auto &x : n.body)
        walk(x);
      return;
    case K::Loop: {
      int64_t b0 = begin_[size_t(n.v)], s0 = size_[size_t(n.v)];
      for (int64_t at = b0; at < b0 + s0; at += n.step) {
        begin_[size_t(n.v)] = at;
        size_[size_t(n.v)] = std::min(n.step, b0 + s0 - at);
        for (const auto &x : n.body)
          walk(x);
      }
      begin_[size_t(n.v)] = b0;
      size_[size_t(n.v)] = s0;
      return;
    }
    case K::Init:
      init(n.init);
      return;
    case K::Stage:
      stage(n);
      return;
    case K::Call:
      call();
      return;
    case K::Scalar:
      fail(*plan_, "a scalar remainder inside a mapped schedule has no instruction to run it");
    }
  }

  // The box of statement indices the current virtual-index box covers.
  void statementBox(std::vector<int64_t> &lo, std::vector<int64_t> &size) const {
    const schedule::Config &c = plan_->ss->config;
    std::vector<int64_t> hi;
    schedule::statementBox(c, k_.statements[c.statement], begin_, size_, lo, hi);
    size.resize(lo.size());
    for (size_t i = 0; i < lo.size(); ++i)
      size[i] = hi[i] - lo[i] + 1;
  }

  void init(ir::ReduceOp reduce) {
    const schedule::Config &c = plan_->ss->config;
    const ir::Statement &s = k_.statements[c.statement];
    Op op;
    op.kind = Op::Kind::HostInit;
    op.statement = int(c.statement);
    op.init = reduce;
    op.allocation = s.lhs.tensor;
    for (const auto &o : plan_->operands)
      if (o.output && o.tensor == s.lhs.tensor)
        op.allocation = o.allocation;
    statementBox(op.lo, op.size);
    for (size_t i = 0; i < s.indices.size(); ++i)
      if (s.indices[i].reduction)
        op.size[i] = 1;
    sink_.op(op);
  }

  // The address of view element `at` (absolute view coordinates) in a holder.
  uint64_t bufferAddress(const OperandPlan &o, const BufferPlan &bp, const Holder &h,
                         const std::vector<int64_t> &at) const {
    size_t nd = o.dims.size();
    int64_t col = at[nd - 1] - h.lo[nd - 1];
    int64_t flat = col / bp.width;
    for (size_t d = 0; d + 1 < nd; ++d)
      flat = flat * bp.tileExtents[d] + (at[d] - h.lo[d]);
    return h.base + uint64_t((flat * bp.width + col % bp.width) * o.elemBytes);
  }

  uint64_t viewAddress(const OperandPlan &o, const std::vector<int64_t> &at) const {
    uint64_t a = allocations_[size_t(o.allocation)].address;
    for (size_t d = 0; d < at.size(); ++d)
      a += uint64_t(at[d] * o.viewStrides[d]);
    return a;
  }

  void stage(const schedule::Node &n) {
    const schedule::Buffer &b = plan_->ss->buffers[size_t(n.buffer)];
    size_t oi = size_t(b.operand);
    OperandPlan &o = plan_->operands[oi];
    BufferPlan &bp = plan_->buffers[size_t(n.buffer)];
    if (!holders_[oi].empty())
      fail(*plan_, "operand staged at two levels; the accelerator backend stages it once");
    Holder h;
    h.buffer = n.buffer;
    for (int v : o.dims) {
      h.lo.push_back(v >= 0 ? begin_[size_t(v)] : 0);
      h.size.push_back(v >= 0 ? size_[size_t(v)] : 1);
    }
    std::vector<int64_t> box = h.lo;
    box.insert(box.end(), h.size.begin(), h.size.end());
    // An input tile still in place (the statement does not write its tensor) is reused.
    int halves = bp.doubleBuffered ? 2 : 1, reuse = -1;
    bool readOnly = !o.output && o.tensor != k_.statements[plan_->ss->config.statement].lhs.tensor;
    for (int x = 0; x < halves && readOnly; ++x)
      if (bp.holds[x] == box)
        reuse = x;
    int half = reuse >= 0 ? reuse : (bp.half + 1) % halves;
    h.base = bp.address + uint64_t(half) * bp.halfBytes;
    if (reuse < 0) {
      bp.half = half;
      bp.holds[half] = readOnly ? box : std::vector<int64_t>{};
      transfer(o, bp, h, /*fill=*/true);
    }
    holders_[oi].push_back(h);
    for (const auto &x : n.body)
      walk(x);
    holders_[oi].pop_back();
    if (o.output)
      transfer(o, bp, h, /*fill=*/false);
  }

  // One move per column chunk and per step of the dimensions outside the rows: fills the
  // holder from the operand's DRAM home, or writes it back.
  void transfer(const OperandPlan &o, const BufferPlan &bp, const Holder &h, bool fill) {
    const hw::Instruction &mv = fill ? *bp.fill : *bp.drain;
    MoveOperands m = moveOperands(mv);
    size_t nd = o.dims.size();
    int64_t rows = h.size[nd - 2];
    int64_t moved = fill ? schedule::roundUp(rows, o.rows) : rows; // fills zero the padding rows
    std::vector<int64_t> at = h.lo;
    for (;;) {
      for (int64_t col = 0; col < h.size[nd - 1]; col += bp.width) {
        at[nd - 2] = h.lo[nd - 2];
        at[nd - 1] = h.lo[nd - 1] + col;
        Region inBuffer{bp.memory,
                        bufferAddress(o, bp, h, at),
                        {bp.width * o.elemBytes, o.elemBytes},
                        {moved, bp.width}};
        Region inDram{dram_,
                      viewAddress(o, at),
                      {o.viewStrides[nd - 2], o.elemBytes},
                      {rows, std::min(bp.width, h.size[nd - 1] - col)}};
        Op op;
        op.instruction = int(&mv - t_.instructions.data());
        op.statement = int(plan_->ss->config.statement);
        op.sizes = {moved};
        op.regions.resize(2);
        op.regions[size_t(m.dst)] = fill ? inBuffer : inDram;
        op.regions[size_t(m.src)] = fill ? inDram : inBuffer;
        sink_.op(op);
      }
      // Next step of the dimensions outside rows and columns.
      size_t d = nd - 2;
      while (d-- > 0) {
        if (++at[d] < h.lo[d] + h.size[d])
          break;
        at[d] = h.lo[d];
      }
      if (d == size_t(-1))
        return;
    }
  }

  void call() {
    const schedule::Config &c = plan_->ss->config;
    const hw::Instruction &in = *plan_->instr;
    const ir::Statement &I = in.semantics.statements[0];
    Op op;
    op.instruction = int(&in - t_.instructions.data());
    op.statement = int(c.statement);
    for (const auto &param : in.sizeParams) {
      int64_t value = 1;
      for (size_t v = 0; v < c.vindices.size(); ++v)
        if (c.vindices[v].instrIndex >= 0 &&
            I.indices[size_t(c.vindices[v].instrIndex)].param == param)
          value = size_[v];
      op.sizes.push_back(value);
    }
    for (size_t oi = 0; oi < plan_->operands.size(); ++oi) {
      const OperandPlan &o = plan_->operands[oi];
      const ir::Tensor &t = in.semantics.tensors[oi];
      size_t nd = o.dims.size();
      std::vector<int64_t> at, valid;
      for (int v : o.dims)
        at.push_back(v >= 0 ? begin_[size_t(v)] : 0);
      for (size_t d = nd - 2; d < nd; ++d)
        if (o.dims[d] < 0)
          valid.push_back(1);
        else if (int64_t e = t.shape[d - (nd - 2)]; e > 0)
          valid.push_back(std::min(e, size_[size_t(o.dims[d])]));
        else // a free size: the call covers the box
          valid.push_back(size_[size_t(o.dims[d])]);
      Region r;
      r.valid = valid;
      if (holders_[oi].empty()) {
        if (t_.memoryIndex(t.memory) != dram_)
          fail(*plan_, "operand " + t.name + " of " + in.name + " must be in " + t.memory +
                           ", but the schedule does not stage it there");
        r.memory = dram_;
        r.address = viewAddress(o, at);
        r.strides = {o.viewStrides[nd - 2], o.elemBytes};
      } else {
        const Holder &h = holders_[oi].back();
        const BufferPlan &bp = plan_->buffers[size_t(h.buffer)];
        if (t_.memoryIndex(t.memory) != bp.memory)
          fail(*plan_, "operand " + t.name + " of " + in.name + " must be in " + t.memory +
                           ", but the schedule stages it in " + t_.memories[bp.memory].name);
        if ((at[nd - 1] - h.lo[nd - 1]) % bp.width != 0)
          fail(*plan_, "a call's columns of " + t.name + " straddle two rows of " +
                           t_.memories[bp.memory].name);
        r.memory = bp.memory;
        r.address = bufferAddress(o, bp, h, at);
        r.strides = {bp.width * o.elemBytes, o.elemBytes};
      }
      op.regions.push_back(std::move(r));
    }
    sink_.op(op);
  }

  const ir::Kernel &k_;
  const hw::Target &t_;
  const schedule::KernelSchedule &ks_;
  Sink &sink_;
  int dram_ = -1;
  uint64_t next_ = 0;
  std::vector<Allocation> allocations_;
  std::vector<StatementPlan> plans_;
  StatementPlan *plan_ = nullptr;
  std::vector<int64_t> begin_, size_;
  std::vector<std::vector<Holder>> holders_;
};

} // namespace

bool isAccelerator(const hw::Target &target) {
  return target.triple.empty();
}

void checkTensorsFit(const ir::Kernel &kernel, const hw::Target &target) {
  // As Emitter::place lays them out: each tensor 64-byte aligned. Sizes are below 2^62 bytes
  // (sema's limit), so the sum of a few cannot wrap before it exceeds the capacity.
  const hw::Memory &dram = target.memories[size_t(outermostMemory(target))];
  uint64_t next = 0;
  for (const auto &t : kernel.tensors) {
    next = alignUp(next + std::max<uint64_t>(
                              uint64_t(t.elementCount()) * uint64_t(ir::elemTypeBytes(t.type)), 1),
                   64);
    checkCapacity(dram, next, "the tensors");
  }
}

void emit(const ir::Kernel &kernel, const hw::Target &target,
          const schedule::KernelSchedule &schedule, Sink &sink) {
  Emitter(kernel, target, schedule, sink).run();
}

Program program(const ir::Kernel &kernel, const hw::Target &target,
                const schedule::KernelSchedule &schedule) {
  Program p;
  p.kernel = kernel.name;
  p.target = target.name;
  ProgramSink sink(p);
  emit(kernel, target, schedule, sink);
  return p;
}

} // namespace isam::accel
