#include "mapping/Verify.h"

#include <set>

namespace isam::mapping {

namespace {

std::string instructionName(const hw::Target &t, int instruction) {
  if (instruction >= 0 && size_t(instruction) < t.instructions.size())
    return "'" + t.instructions[size_t(instruction)].name + "'";
  return "instruction #" + std::to_string(instruction);
}

bool sameAccess(const ir::Access &a, const ir::Access &b) {
  if (a.tensor != b.tensor || a.indices.size() != b.indices.size())
    return false;
  for (size_t d = 0; d < a.indices.size(); ++d)
    if (a.indices[d].terms != b.indices[d].terms || a.indices[d].constant != b.indices[d].constant)
      return false;
  return true;
}

void collectAccesses(const ir::Expr &e, std::vector<const ir::Access *> &out) {
  if (e.kind == ir::Expr::Kind::Read)
    out.push_back(&e.access);
  for (const auto &a : e.args)
    collectAccesses(a, out);
}

// Element stride of statement index `index` in `a` (row-major tensor).
int64_t strideIn(const ir::Tensor &t, const ir::Access &a, int index) {
  int64_t stride = 0, inner = 1;
  for (size_t d = t.shape.size(); d-- > 0 && d < a.indices.size();) {
    stride += inner * a.indices[d].coefficientOf(index);
    inner *= t.shape[d];
  }
  return stride;
}

class CandidateVerifier {
public:
  CandidateVerifier(const Candidate &c, const ir::Kernel &k, size_t statement, const hw::Target &t,
                    std::vector<Diagnostic> &out)
      : c_(c), k_(k), at_(statement), t_(t), out_(out) {}

  void run() {
    if (at_ >= k_.statements.size()) {
      fail("the candidate is for statement s" + std::to_string(at_) + " of " +
           std::to_string(k_.statements.size()));
      return;
    }
    s_ = &k_.statements[at_];
    if (c_.instruction < 0 || size_t(c_.instruction) >= t_.instructions.size()) {
      fail("instruction #" + std::to_string(c_.instruction) + " of " +
           std::to_string(t_.instructions.size()));
      return;
    }
    const hw::Instruction *in = &t_.instructions[size_t(c_.instruction)];
    if (in->isMove != c_.isMove)
      fail(std::string("'") + in->name + "' is " + (in->isMove ? "" : "not ") +
           "a move but the candidate says otherwise");
    if (in->semantics.statements.size() != 1) {
      fail("'" + in->name + "' has " + std::to_string(in->semantics.statements.size()) +
           " statements; only single-statement semantics map");
      return;
    }
    if (c_.instructionCount < 1 || !(c_.cycles > 0) || !(c_.utilization > 0) ||
        !(c_.utilization <= 1))
      fail("estimates out of range: " + std::to_string(c_.instructionCount) + " instructions, " +
           std::to_string(c_.cycles) + " cycles, utilization " + std::to_string(c_.utilization));
    laneReduction(*in);
    if (bindings(*in))
      operands(*in);
  }

private:
  const Candidate &c_;
  const ir::Kernel &k_;
  size_t at_;
  const hw::Target &t_;
  std::vector<Diagnostic> &out_;
  const ir::Statement *s_ = nullptr;

  void fail(const std::string &what) {
    Diagnostic d;
    d.code = "E0902";
    d.range = at_ < k_.statements.size() ? k_.statements[at_].range : k_.range;
    d.message = "internal: mapping of '" + k_.name + "' s" + std::to_string(at_) + " onto " +
                instructionName(t_, c_.instruction) + " (" + t_.name + "): " + what;
    out_.push_back(std::move(d));
  }

  // False when the bindings cannot be followed further (positions out of range).
  bool bindings(const hw::Instruction &in) {
    const ir::Statement &I = in.semantics.statements[0];
    const ir::Statement &s = *s_;
    if (c_.bindings.size() != I.indices.size()) {
      fail(std::to_string(c_.bindings.size()) + " index bindings for the instruction's " +
           std::to_string(I.indices.size()) + " indices");
      return false;
    }
    std::vector<int> uses(s.indices.size(), 0);
    bool followable = true, unboundWide = false;
    for (size_t b = 0; b < c_.bindings.size(); ++b) {
      const IndexBinding &ib = c_.bindings[b];
      const ir::Index &ii = I.indices[b];
      std::string what = "instruction index '" + ib.instrIndex + "'";
      if (ib.instrIndex != ii.name)
        fail("binding #" + std::to_string(b) + " names " + what + " but the instruction's is '" +
             ii.name + "'");
      int64_t extent = ii.param.empty() ? ii.extent : 0;
      if (ib.instrExtent != extent || ib.instrParam != ii.param)
        fail(what + " has extent " + std::to_string(ib.instrExtent) + " '" + ib.instrParam +
             "' but the instruction's is " + std::to_string(extent) + " '" + ii.param + "'");
      int64_t product = 1;
      for (int x : ib.stmtIndices) {
        if (x < 0 || size_t(x) >= s.indices.size()) {
          fail(what + " is bound to statement index #" + std::to_string(x) + " of " +
               std::to_string(s.indices.size()));
          followable = false;
          continue;
        }
        ++uses[size_t(x)];
        product *= s.indices[size_t(x)].extent;
        if (int(b) == c_.laneReduced) {
          if (!s.indices[size_t(x)].reduction || ii.reduction)
            fail(what + " is marked lane-reduced but is bound to statement index '" +
                 s.indices[size_t(x)].name + "', which is " +
                 (s.indices[size_t(x)].reduction ? "" : "not ") + "a reduction");
        } else if (s.indices[size_t(x)].reduction != ii.reduction)
          fail(what + (ii.reduction ? " reduces" : " does not reduce") +
               " but is bound to statement index '" + s.indices[size_t(x)].name + "'");
      }
      if (followable && ib.stmtExtent != product)
        fail(what + " records extent " + std::to_string(ib.stmtExtent) +
             " but its statement indices span " + std::to_string(product));
      remainder(ib, what);
      unboundWide = unboundWide || (ib.stmtIndices.empty() && ib.instrExtent > 1);
    }
    if (c_.degenerate != unboundWide)
      fail(std::string("marked ") + (c_.degenerate ? "" : "not ") +
           "degenerate, but an instruction index wider than 1 is " + (unboundWide ? "" : "not ") +
           "left unbound");
    for (int x : c_.loops) {
      if (x < 0 || size_t(x) >= s.indices.size()) {
        fail("loops over statement index #" + std::to_string(x) + " of " +
             std::to_string(s.indices.size()));
        followable = false;
        continue;
      }
      ++uses[size_t(x)];
    }
    for (size_t x = 0; x < uses.size(); ++x)
      if (uses[x] != 1)
        fail("statement index '" + s.indices[x].name + "' is bound or looped " +
             std::to_string(uses[x]) + " times instead of once");
    return followable;
  }

  // A lane-reduced candidate names its lane index (one statement index, the last dimension of
  // the instruction's accumulating result) and a finisher that folds that many lanes with the
  // statement's operator, once per result element; any other names neither.
  void laneReduction(const hw::Instruction &in) {
    const ir::Statement &I = in.semantics.statements[0];
    if (c_.laneReduced < 0) {
      if (c_.finisher >= 0 || c_.finisherCount != 0)
        fail("has a finisher but is not lane-reduced");
      return;
    }
    if (size_t(c_.laneReduced) >= I.indices.size() ||
        size_t(c_.laneReduced) >= c_.bindings.size()) {
      fail("its lane-reduced index #" + std::to_string(c_.laneReduced) + " is out of range");
      return;
    }
    const ir::Affine *last = I.lhs.indices.empty() ? nullptr : &I.lhs.indices.back();
    if (!last || last->terms.size() != 1 || last->terms[0].first != c_.laneReduced ||
        I.reduce != s_->reduce)
      fail("index '" + I.indices[size_t(c_.laneReduced)].name +
           "' is lane-reduced but is not the lane of a result accumulating with the statement's "
           "operator");
    if (c_.bindings[size_t(c_.laneReduced)].stmtIndices.size() != 1)
      fail("its lane-reduced index is bound to " +
           std::to_string(c_.bindings[size_t(c_.laneReduced)].stmtIndices.size()) +
           " statement indices instead of one");
    if (c_.finisher < 0 || size_t(c_.finisher) >= t_.instructions.size()) {
      fail("its finisher #" + std::to_string(c_.finisher) + " is not an instruction of " + t_.name);
      return;
    }
    const hw::Instruction &f = t_.instructions[size_t(c_.finisher)];
    const ir::Statement *F =
        f.semantics.statements.size() == 1 ? &f.semantics.statements[0] : nullptr;
    if (!F || !F->lhs.indices.empty() || F->reduce != s_->reduce || F->indices.size() != 1 ||
        !F->indices[0].reduction ||
        F->indices[0].extent != I.indices[size_t(c_.laneReduced)].extent)
      fail("its finisher '" + f.name + "' does not fold " +
           std::to_string(I.indices[size_t(c_.laneReduced)].extent) +
           " lanes into one element with " + ir::reduceOpText(s_->reduce));
    int64_t outputs = 1;
    for (const auto &index : s_->indices)
      outputs *= index.reduction ? 1 : index.extent;
    if (c_.finisherCount != outputs)
      fail("counts " + std::to_string(c_.finisherCount) + " finisher calls for " +
           std::to_string(outputs) + " result elements");
  }

  // A move of the target between two of its memories, a pack, or a memory nothing empties.
  void moveStep(const MoveStep &m, const std::string &what) {
    auto memory = [&](int x) { return x >= 0 && size_t(x) < t_.memories.size(); };
    switch (m.kind) {
    case MoveStep::Kind::Pack:
      return;
    case MoveStep::Kind::Undescribed:
      if (!memory(m.from))
        fail(what + " has an undescribed move out of memory #" + std::to_string(m.from));
      return;
    case MoveStep::Kind::Move:
      if (m.move < 0 || size_t(m.move) >= t_.instructions.size() ||
          !t_.instructions[size_t(m.move)].isMove)
        fail(what + " is brought by instruction #" + std::to_string(m.move) +
             ", which is not a move of " + t_.name);
      else if (!memory(m.from) || !memory(m.to) || m.from == m.to)
        fail(what + " is brought by " + t_.instructions[size_t(m.move)].name + " from memory #" +
             std::to_string(m.from) + " to #" + std::to_string(m.to));
      return;
    }
  }

  void remainder(const IndexBinding &ib, const std::string &what) {
    bool ok;
    if (ib.instrExtent == 0)
      ok = ib.remainder == Remainder::Free;
    else if (ib.instrExtent < 0)
      ok = false;
    else if (ib.stmtExtent % ib.instrExtent == 0)
      ok = ib.remainder == Remainder::Exact;
    else
      ok = ib.remainder != Remainder::Exact && ib.remainder != Remainder::Free;
    if (!ok)
      fail(what + " covers " + std::to_string(ib.stmtExtent) + " in steps of " +
           std::to_string(ib.instrExtent) + " but its remainder is " + remainderName(ib.remainder));
  }

  void operands(const hw::Instruction &in) {
    const ir::Kernel &sem = in.semantics;
    const ir::Statement &s = *s_;
    if (c_.operands.size() != sem.tensors.size()) {
      fail(std::to_string(c_.operands.size()) + " operand bindings for the instruction's " +
           std::to_string(sem.tensors.size()) + " operands");
      return;
    }
    std::vector<const ir::Access *> accesses{&s.lhs};
    collectAccesses(s.rhs, accesses);
    for (size_t o = 0; o < c_.operands.size(); ++o) {
      const OperandBinding &ob = c_.operands[o];
      const ir::Tensor &op = sem.tensors[o];
      std::string what = "operand '" + ob.operand + "'";
      if (ob.operand != op.name || ob.role != op.role)
        fail("binding #" + std::to_string(o) + " is " + what + " (" + ir::tensorRoleName(ob.role) +
             ") but the instruction's is '" + op.name + "' (" + ir::tensorRoleName(op.role) + ")");
      for (const MoveStep &m : ob.moves)
        moveStep(m, what);
      if (ob.tensor < 0)
        continue;
      if (size_t(ob.tensor) >= k_.tensors.size()) {
        fail(what + " is bound to tensor #" + std::to_string(ob.tensor) + " of " +
             std::to_string(k_.tensors.size()));
        continue;
      }
      const ir::Tensor &t = k_.tensors[size_t(ob.tensor)];
      bool found = false;
      for (const ir::Access *a : accesses)
        found = found || (a->tensor == ob.tensor && sameAccess(*a, ob.access));
      if (!found) {
        fail(what + " is bound to '" + t.name + "' by an access the statement does not make");
        continue;
      }
      if (ob.computedSeparately)
        continue;
      if (t.type != op.type)
        fail(what + " is " + ir::elemTypeName(op.type) + " but is bound to '" + t.name +
             "', which is " + ir::elemTypeName(t.type));
      fusedRunsContiguous(ob, t);
    }
  }

  // Fused statement indices must be one run of memory in the operand's tensor: each outer
  // index's stride is the inner one's times the inner extent.
  void fusedRunsContiguous(const OperandBinding &ob, const ir::Tensor &t) {
    const ir::Statement &s = *s_;
    for (const IndexBinding &ib : c_.bindings) {
      std::vector<int> run;
      for (int x : ib.stmtIndices)
        if (s.indices[size_t(x)].extent > 1)
          run.push_back(x);
      for (size_t q = 1; q < run.size(); ++q) {
        int64_t outer = strideIn(t, ob.access, run[q - 1]), inner = strideIn(t, ob.access, run[q]);
        if (outer == 0 && inner == 0)
          continue; // the operand does not use this instruction index
        if (outer != inner * s.indices[size_t(run[q])].extent)
          fail("fuses '" + s.indices[size_t(run[q - 1])].name + "' and '" +
               s.indices[size_t(run[q])].name + "', which are not contiguous in '" + t.name +
               "' (" + ob.binding + ")");
      }
    }
  }
};

} // namespace

std::vector<Diagnostic> verify(const Candidate &candidate, const ir::Kernel &kernel,
                               size_t statement, const hw::Target &target) {
  std::vector<Diagnostic> out;
  CandidateVerifier(candidate, kernel, statement, target, out).run();
  return out;
}

std::vector<Diagnostic> verify(const StatementMappings &m, const ir::Kernel &kernel,
                               const hw::Target &target) {
  std::vector<Diagnostic> out;
  auto fail = [&](const std::string &what) {
    Diagnostic d;
    d.code = "E0902";
    d.range = m.index < kernel.statements.size() ? kernel.statements[m.index].range : kernel.range;
    d.message = "internal: mappings of '" + kernel.name + "' s" + std::to_string(m.index) + " on " +
                target.name + ": " + what;
    out.push_back(std::move(d));
  };
  if (m.kernel != kernel.name || m.target != target.name || m.index >= kernel.statements.size()) {
    fail("they name '" + m.kernel + "' s" + std::to_string(m.index) + " on '" + m.target + "'");
    return out;
  }
  std::set<int> mapped;
  for (const Candidate &c : m.candidates)
    mapped.insert(c.instruction);
  std::set<int> rejected;
  for (const Rejection &r : m.rejected) {
    std::string name = instructionName(target, r.instruction);
    if (r.instruction < 0 || size_t(r.instruction) >= target.instructions.size())
      fail(name + " of " + std::to_string(target.instructions.size()) + " is rejected");
    if (r.reason.empty())
      fail(name + " is rejected without a reason");
    if (mapped.count(r.instruction))
      fail(name + " is both a candidate and rejected");
    rejected.insert(r.instruction);
  }
  if (!m.budgetExhausted)
    for (size_t i = 0; i < target.instructions.size(); ++i)
      if (!mapped.count(int(i)) && !rejected.count(int(i)))
        fail("'" + target.instructions[i].name + "' is neither a candidate nor rejected");
  auto good = [](const Candidate &c) { return !c.partial && !c.degenerate; };
  for (size_t i = 1; i < m.candidates.size(); ++i)
    if (good(m.candidates[i]) && !good(m.candidates[i - 1]))
      fail("candidate #" + std::to_string(i) + " (" +
           instructionName(target, m.candidates[i].instruction) +
           ") is full and non-degenerate but ranked after one that is not");
  for (const Candidate &c : m.candidates)
    for (auto &d : verify(c, kernel, m.index, target))
      out.push_back(std::move(d));
  return out;
}

} // namespace isam::mapping
