#include "mapping/Mapping.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <set>
#include <sstream>

namespace isam::mapping {

bool schedulable(const Candidate &c) {
  return !c.degenerate && !c.subexpression &&
         std::all_of(c.operands.begin(), c.operands.end(), [](const OperandBinding &o) {
           return !o.computedSeparately || (o.computed && o.tensor >= 0);
         });
}

const char *remainderName(Remainder r) {
  switch (r) {
  case Remainder::Exact:
    return "exact";
  case Remainder::Mask:
    return "mask";
  case Remainder::Pad:
    return "pad";
  case Remainder::Tail:
    return "tail";
  case Remainder::Free:
    return "free";
  }
  return "exact";
}

namespace {

using Clock = std::chrono::steady_clock;

void indicesIn(const ir::Expr &e, std::vector<bool> &out) {
  if (e.kind == ir::Expr::Kind::Read)
    for (const auto &a : e.access.indices)
      for (auto [i, coef] : a.terms)
        if (coef != 0)
          out[i] = true;
  for (const auto &a : e.args)
    indicesIn(a, out);
}

void indicesIn(const ir::Access &acc, std::vector<bool> &out) {
  for (const auto &a : acc.indices)
    for (auto [i, coef] : a.terms)
      if (coef != 0)
        out[i] = true;
}

bool sameAffine(const ir::Affine &a, const ir::Affine &b) {
  return a.terms == b.terms && a.constant == b.constant;
}

bool sameExpr(const ir::Expr &a, const ir::Expr &b) {
  if (a.kind != b.kind || a.type != b.type || a.args.size() != b.args.size())
    return false;
  switch (a.kind) {
  case ir::Expr::Kind::Const:
    return a.value == b.value;
  case ir::Expr::Kind::Read:
    if (a.access.tensor != b.access.tensor || a.access.indices.size() != b.access.indices.size())
      return false;
    for (size_t i = 0; i < a.access.indices.size(); ++i)
      if (!sameAffine(a.access.indices[i], b.access.indices[i]))
        return false;
    return true;
  case ir::Expr::Kind::Call:
    if (a.fn != b.fn)
      return false;
    break;
  case ir::Expr::Kind::Compare:
    if (a.cmp != b.cmp)
      return false;
    break;
  case ir::Expr::Kind::Index:
    return sameAffine(a.access.indices.at(0), b.access.indices.at(0));
  default:
    break;
  }
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!sameExpr(a.args[i], b.args[i]))
      return false;
  return true;
}

// The one access every read of `e` makes (nullptr: none, or several different ones).
const ir::Access *soleAccess(const ir::Expr &e) {
  const ir::Access *found = nullptr;
  bool several = false;
  std::function<void(const ir::Expr &)> walk = [&](const ir::Expr &x) {
    if (x.kind == ir::Expr::Kind::Read) {
      if (!found)
        found = &x.access;
      else if (found->tensor != x.access.tensor ||
               !std::equal(found->indices.begin(), found->indices.end(), x.access.indices.begin(),
                           x.access.indices.end(), sameAffine))
        several = true;
    }
    for (const auto &a : x.args)
      walk(a);
  };
  walk(e);
  return several ? nullptr : found;
}

void subtrees(const ir::Expr &e, std::vector<const ir::Expr *> &out) {
  for (const auto &a : e.args) {
    out.push_back(&a);
    subtrees(a, out);
  }
}

// The comparison that holds of (b, a) when c holds of (a, b).
ir::Cmp mirrored(ir::Cmp c) {
  switch (c) {
  case ir::Cmp::Lt:
    return ir::Cmp::Gt;
  case ir::Cmp::Le:
    return ir::Cmp::Ge;
  case ir::Cmp::Gt:
    return ir::Cmp::Lt;
  case ir::Cmp::Ge:
    return ir::Cmp::Le;
  case ir::Cmp::Eq:
  case ir::Cmp::Ne:
    break;
  }
  return c;
}

// Per instruction operand: the statement sub-expression it stands for.
using Assignment = std::vector<const ir::Expr *>;

struct Unifier {
  const ir::Kernel &instr;
  size_t cap;
  std::string typeProblem;

  void unify(const ir::Expr &ie, const ir::Expr &se, const Assignment &cur,
             std::vector<Assignment> &out) {
    if (out.size() >= cap)
      return;
    using K = ir::Expr::Kind;
    if (ie.kind == K::Read) {
      // An index value, a padded read or a quasi-affine index (`X[h / 2]`) is computed only by
      // the statement's own evaluation at each point.
      if (ir::computedPerPoint(se))
        return;
      int o = ie.access.tensor;
      const ir::Tensor &op = instr.tensors[o];
      if (op.type != se.type) {
        if (typeProblem.empty())
          typeProblem = std::string("operand '") + op.name + "' is " + ir::elemTypeName(op.type) +
                        " but the statement's value is " + ir::elemTypeName(se.type);
        return;
      }
      if (cur[o]) {
        if (sameExpr(*cur[o], se))
          out.push_back(cur);
        return;
      }
      Assignment next = cur;
      next[o] = &se;
      out.push_back(std::move(next));
      return;
    }
    if (ie.kind != se.kind || ie.args.size() != se.args.size())
      return;
    if (ie.kind == K::Const) {
      if (ie.value == se.value)
        out.push_back(cur);
      return;
    }
    if (ie.kind == K::Call && (ie.fn != se.fn || (ie.fn == ir::Fn::Cast && ie.type != se.type)))
      return;
    if (ie.kind == K::Compare && ie.type != se.type)
      return;
    std::vector<std::vector<size_t>> orders;
    // A comparison also matches its mirror with the operands swapped (`a < b` computes
    // `y > x` with a = x, b = y): exact, NaN included.
    if (ie.kind != K::Compare || ie.cmp == se.cmp)
      orders.push_back({});
    for (size_t i = 0; i < ie.args.size() && !orders.empty(); ++i)
      orders[0].push_back(i);
    if (((ie.kind == K::Add || ie.kind == K::Mul) && ie.args.size() == 2) ||
        (ie.kind == K::Compare && ie.cmp == mirrored(se.cmp)))
      orders.push_back({1, 0});
    for (const auto &order : orders) {
      std::vector<Assignment> partial = {cur};
      for (size_t a = 0; a < ie.args.size() && !partial.empty(); ++a) {
        std::vector<Assignment> next;
        for (const auto &p : partial)
          unify(ie.args[a], se.args[order[a]], p, next);
        partial = std::move(next);
      }
      for (auto &p : partial)
        if (out.size() < cap)
          out.push_back(std::move(p));
    }
  }
};

// One side of an operand correspondence.
struct OperandView {
  bool bound = false;
  std::vector<bool> instrAppears; // per instruction index
  std::vector<bool> stmtAppears;  // per statement index
  // When the operand stands for one access, or for a sub-expression every read of which is that
  // one access (f32(B[k, n]): its layout is the access's).
  const ir::Access *stmtAccess = nullptr;
  const ir::Expr *subexpr = nullptr;
  const ir::Access *instrAccess = nullptr;
};

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> st(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    st[d - 1] = st[d] * shape[d];
  return st;
}

int64_t strideOf(const ir::Access &a, int index, const std::vector<int64_t> &strides) {
  int64_t s = 0;
  for (size_t d = 0; d < a.indices.size(); ++d)
    s += strides[d] * a.indices[d].coefficientOf(index);
  return s;
}

// The move that carries data between `inner` and one of its ancestors (inward for inputs,
// outward for results), preferring the one whose shape fits the operand's rank.
const hw::Instruction *findMove(const hw::Target &t, int inner, int ancestor, bool inward,
                                size_t rank) {
  const hw::Instruction *best = nullptr;
  for (const auto &in : t.instructions) {
    if (!in.isMove)
      continue;
    int dst = -1, src = -1;
    size_t srcRank = 0;
    for (const auto &op : in.semantics.tensors) {
      int m = t.memoryIndex(op.memory);
      if (op.role == ir::TensorRole::Input)
        src = m, srcRank = op.shape.size();
      else
        dst = m;
    }
    bool fits = inward ? (dst == inner && src == ancestor) : (src == inner && dst == ancestor);
    if (!fits)
      continue;
    if (!best || (inward && srcRank == rank))
      best = &in;
  }
  return best;
}

// How data reaches `memory` from the outermost level (or leaves it, for results): a move per
// software-managed level, nothing for caches. Empty optional when a level cannot be crossed.
std::optional<std::vector<MoveStep>> moveChain(const hw::Target &t, int memory, bool inward,
                                               size_t rank, std::string &problem) {
  std::vector<MoveStep> chain;
  for (int level = memory; level >= 0 && t.memories[level].parent >= 0;) {
    const hw::Instruction *mv = nullptr;
    int reached = -1;
    for (int anc = t.memories[level].parent; anc >= 0 && !mv; anc = t.memories[anc].parent)
      if ((mv = findMove(t, level, anc, inward, rank)))
        reached = anc;
    if (mv) {
      chain.push_back({MoveStep::Kind::Move, int(mv - t.instructions.data()),
                       inward ? reached : level, inward ? level : reached});
      level = reached;
      continue;
    }
    if (t.isSoftwareManaged(level)) {
      if (inward) {
        problem = "no move brings data into " + t.memories[level].name + " from " +
                  t.memories[t.memories[level].parent].name;
        return std::nullopt;
      }
      chain.push_back({MoveStep::Kind::Undescribed, -1, level, -1});
      return chain;
    }
    level = t.memories[level].parent; // a cache: the hardware moves lines
  }
  if (inward)
    std::reverse(chain.begin(), chain.end());
  return chain;
}

size_t packCount(const Candidate &c) {
  return size_t(std::count_if(c.operands.begin(), c.operands.end(),
                              [](const OperandBinding &o) { return o.needsPack; }));
}

class StatementMapper {
public:
  StatementMapper(const ir::Kernel &k, size_t stmt, const hw::Target &t, const MapOptions &o)
      : k_(k), s_(k.statements[stmt]), t_(t), opts_(o), start_(Clock::now()) {
    out_.kernel = k.name;
    out_.index = stmt;
    out_.text = ir::printStatement(s_, k.tensors);
    out_.range = s_.range;
    out_.target = t.name;
  }

  StatementMappings run() {
    for (const auto &in : t_.instructions) {
      if (overBudget())
        break;
      if (!s_.guards.empty()) {
        // An instruction computes every point of its tile; a guard skips some.
        out_.rejected.push_back({int(&in - t_.instructions.data()),
                                 "the statement is guarded (`where " +
                                     ir::printGuard(s_.guards[0], s_) +
                                     "`): only scalar code skips the points a guard excludes"});
        continue;
      }
      std::string reason;
      std::vector<Candidate> cands = mapOnto(in, reason);
      if (cands.empty()) {
        out_.rejected.push_back(
            {int(&in - t_.instructions.data()), reason.empty() ? "no mapping found" : reason});
        continue;
      }
      for (auto &c : cands)
        out_.candidates.push_back(std::move(c));
    }
    std::stable_sort(out_.candidates.begin(), out_.candidates.end(),
                     [](const Candidate &a, const Candidate &b) {
                       auto key = [](const Candidate &c) {
                         return std::make_tuple(c.partial, c.degenerate, c.zeroInit, c.isMove,
                                                c.cycles, packCount(c), -c.utilization);
                       };
                       return key(a) < key(b);
                     });
    return std::move(out_);
  }

private:
  // One complete choice of the depth-first search: the instruction, its statement, the operand
  // views, per instruction index the statement indices bound to it (nullptr: none), and the
  // sub-expression mapped (nullptr: the whole statement).
  struct Choice {
    const hw::Instruction &in;
    const ir::Statement &I;
    const std::vector<OperandView> &views;
    std::vector<const std::vector<int> *> groupOf;
    const ir::Expr *subtree;
    bool laneReduced = false; // the lane index is bound to a reduction index (finisher_ folds)
  };

  // The candidates found for one instruction, and the keys of those kept (symmetric operands
  // give the same mapping twice).
  struct Found {
    std::vector<Candidate> candidates;
    std::set<std::string> keys;
  };

  bool overBudget() {
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
    if (ms > opts_.budgetMs)
      out_.budgetExhausted = true;
    return out_.budgetExhausted;
  }

  std::string stmtText(const ir::Expr &e) const { return ir::printExpr(e, s_, k_.tensors); }

  // A statement subtree an instruction's expression unified with (nullptr: the whole
  // right-hand side), with the operand each instruction tensor took.
  using Match = std::pair<Assignment, const ir::Expr *>;

  std::vector<Candidate> mapOnto(const hw::Instruction &in, std::string &reason) {
    const ir::Kernel &sem = in.semantics;
    if (sem.statements.size() != 1) {
      reason = "'" + in.name +
               "' has several statements; only single-statement semantics are "
               "mapped";
      return {};
    }
    const ir::Statement &instr = sem.statements[0];
    std::string instrText = ir::printStatement(instr, sem.tensors);
    instrText = instrText.substr(0, instrText.find("    for"));
    if (!reductionsAgree(in, instr, instrText, reason))
      return {};
    std::vector<Match> matches = matchExpressions(in, instr, instrText, reason);
    if (matches.empty())
      return {};
    finisher_ = finisherFor(in);
    Found all;
    for (const auto &[assignment, subtree] : matches) {
      if (overBudget())
        break;
      bindIndices(in, instr, assignment, subtree, all, reason);
      if (all.candidates.size() >= opts_.maxCandidatesPerInstruction)
        break;
    }
    return ranked(std::move(all.candidates));
  }

  // The lane index of an accumulating element-wise instruction (the plain index of its
  // result's last dimension, acc[i] op= ...), or -1: the index a lane-reduced mapping binds to
  // a reduction of the statement. An instruction that reduces over an index of its own is not
  // element-wise.
  int laneIndexOf(const hw::Instruction &in) const {
    const ir::Statement &I = in.semantics.statements[0];
    if (in.isMove || I.reduce == ir::ReduceOp::None || I.reduce != s_.reduce ||
        in.semantics.tensors[size_t(I.lhs.tensor)].role != ir::TensorRole::InOut ||
        I.lhs.indices.empty())
      return -1;
    if (std::any_of(I.indices.begin(), I.indices.end(), [](auto &i) { return i.reduction; }))
      return -1;
    const ir::Affine &last = I.lhs.indices.back();
    if (last.terms.size() != 1 || last.terms[0].second != 1 || last.constant != 0)
      return -1;
    int lane = last.terms[0].first;
    return I.indices[size_t(lane)].param.empty() && I.indices[size_t(lane)].extent > 1 ? lane : -1;
  }

  // The instruction that folds `in`'s accumulator across its lanes into one element, found by
  // its semantics (acc op= a[i]: a scalar accumulator, a vector of as many lanes in the same
  // registers, the statement's reduction operator and types), or -1.
  int finisherFor(const hw::Instruction &in) const {
    int lane = laneIndexOf(in);
    if (lane < 0)
      return -1;
    const ir::Statement &I = in.semantics.statements[0];
    const ir::Tensor &acc = in.semantics.tensors[size_t(I.lhs.tensor)];
    int64_t lanes = I.indices[size_t(lane)].extent;
    for (size_t f = 0; f < t_.instructions.size(); ++f) {
      const hw::Instruction &h = t_.instructions[f];
      if (h.isMove || h.semantics.statements.size() != 1)
        continue;
      const ir::Statement &H = h.semantics.statements[0];
      const ir::Tensor &hacc = h.semantics.tensors[size_t(H.lhs.tensor)];
      if (H.reduce != s_.reduce || !H.lhs.indices.empty() || hacc.role != ir::TensorRole::InOut ||
          hacc.type != acc.type || H.rhs.kind != ir::Expr::Kind::Read || H.indices.size() != 1 ||
          !H.indices[0].reduction || !H.indices[0].param.empty() || H.indices[0].extent != lanes)
        continue;
      const ir::Tensor &ha = h.semantics.tensors[size_t(H.rhs.access.tensor)];
      const ir::Access &read = H.rhs.access;
      if (ha.type == acc.type && ha.memory == acc.memory && ha.shape.size() == 1 &&
          read.indices.size() == 1 && read.indices[0].terms.size() == 1 &&
          read.indices[0].terms[0] == std::make_pair(0, int64_t(1)) &&
          read.indices[0].constant == 0)
        return int(f);
    }
    return -1;
  }

  // Whether the instruction's reduction can do the statement's; when not, `reason` says why
  // (left empty for an instruction with a reduction index but no reduction operator, which
  // computes nothing a statement could need).
  bool reductionsAgree(const hw::Instruction &in, const ir::Statement &instr,
                       const std::string &instrText, std::string &reason) const {
    bool instrHasReduction = std::any_of(instr.indices.begin(), instr.indices.end(),
                                         [](auto &i) { return i.reduction; });
    bool stmtHasReduction =
        std::any_of(s_.indices.begin(), s_.indices.end(), [](auto &i) { return i.reduction; });
    std::string stmtText = out_.text.substr(0, out_.text.find("    for"));
    if (instrHasReduction && !stmtHasReduction) {
      reason = "'" + in.name + "' needs a reduction index (it computes " + instrText + "); `" +
               stmtText + "` has none";
      return false;
    }
    if (instr.reduce != ir::ReduceOp::None && s_.reduce != ir::ReduceOp::None &&
        instr.reduce != s_.reduce) {
      reason = "'" + in.name + "' reduces with " + ir::reduceOpText(instr.reduce) +
               "; the statement reduces with " + ir::reduceOpText(s_.reduce);
      return false;
    }
    return !(instrHasReduction && instr.reduce == ir::ReduceOp::None);
  }

  // Every way the instruction's expression unifies with the statement's right-hand side, or
  // (a partial mapping) with one of its sub-expressions; none, with `reason`, when it cannot.
  std::vector<Match> matchExpressions(const hw::Instruction &in, const ir::Statement &instr,
                                      const std::string &instrText, std::string &reason) {
    const ir::Kernel &sem = in.semantics;
    Unifier u{sem, opts_.maxCandidatesPerInstruction * 4, {}};
    Assignment empty(sem.tensors.size(), nullptr);
    std::vector<Match> matches;
    bool reduceCompatible = s_.reduce == ir::ReduceOp::None || instr.reduce == s_.reduce;
    if (reduceCompatible) {
      std::vector<Assignment> full;
      u.unify(instr.rhs, s_.rhs, empty, full);
      for (auto &a : full)
        matches.push_back({std::move(a), nullptr});
    }
    // A copy (an instruction whose value is one operand) only moves data: it maps a statement
    // that copies, never a value computed by other means.
    bool isCopy = instr.rhs.kind == ir::Expr::Kind::Read;
    if (isCopy)
      matches.erase(std::remove_if(matches.begin(), matches.end(),
                                   [&](const auto &m) {
                                     return m.first[instr.rhs.access.tensor]->kind !=
                                            ir::Expr::Kind::Read;
                                   }),
                    matches.end());
    // A partial mapping computes one sub-expression with an instruction that does not reduce;
    // the rest of the statement is separate work.
    bool instrHasReduction = std::any_of(instr.indices.begin(), instr.indices.end(),
                                         [](auto &i) { return i.reduction; });
    if (matches.empty() && !isCopy && instr.reduce == ir::ReduceOp::None && !instrHasReduction) {
      std::vector<const ir::Expr *> subs;
      subtrees(s_.rhs, subs);
      for (const ir::Expr *sub : subs) {
        if (sub->kind == ir::Expr::Kind::Read || sub->kind == ir::Expr::Kind::Const)
          continue;
        std::vector<Assignment> part;
        u.unify(instr.rhs, *sub, empty, part);
        for (auto &a : part)
          matches.push_back({std::move(a), sub});
      }
    }
    if (!matches.empty())
      return matches;
    if (!u.typeProblem.empty())
      reason = "'" + in.name + "' cannot take these types: " + u.typeProblem;
    else if (!reduceCompatible)
      reason = "'" + in.name + "' does not accumulate (it computes " + instrText +
               "); the statement reduces with " + ir::reduceOpText(s_.reduce);
    else
      reason = "'" + in.name + "' computes " + instrText + "; no part of `" + stmtText(s_.rhs) +
               "` has that form";
    return {};
  }

  // One instruction's candidates, best first. Degenerate mappings are kept only when nothing
  // better exists, and few of them.
  std::vector<Candidate> ranked(std::vector<Candidate> found) const {
    bool anyGood = std::any_of(found.begin(), found.end(), [](auto &c) { return !c.degenerate; });
    if (anyGood)
      found.erase(std::remove_if(found.begin(), found.end(), [](auto &c) { return c.degenerate; }),
                  found.end());
    std::stable_sort(found.begin(), found.end(), [](const Candidate &a, const Candidate &b) {
      return std::make_tuple(a.partial, a.cycles, packCount(a), -a.utilization) <
             std::make_tuple(b.partial, b.cycles, packCount(b), -b.utilization);
    });
    if (!anyGood && found.size() > 3)
      found.resize(3);
    if (found.size() > opts_.maxCandidatesPerInstruction)
      found.resize(opts_.maxCandidatesPerInstruction);
    return found;
  }

  // Each instruction operand beside the statement's access (or sub-expression) it took: which
  // indices appear in each, the ground the index pattern test stands on.
  std::vector<OperandView> operandViews(const hw::Instruction &in, const ir::Statement &I,
                                        const Assignment &assignment,
                                        const ir::Expr *subtree) const {
    const ir::Kernel &sem = in.semantics;
    size_t nI = I.indices.size(), nS = s_.indices.size();
    std::vector<OperandView> views(sem.tensors.size());
    auto instrReads = [&](int o) -> const ir::Access * {
      const ir::Access *found = nullptr;
      std::function<void(const ir::Expr &)> walk = [&](const ir::Expr &e) {
        if (!found && e.kind == ir::Expr::Kind::Read && e.access.tensor == o)
          found = &e.access;
        for (const auto &a : e.args)
          walk(a);
      };
      walk(I.rhs);
      return found;
    };
    for (size_t o = 0; o < sem.tensors.size(); ++o) {
      OperandView &v = views[o];
      v.instrAppears.assign(nI, false);
      v.stmtAppears.assign(nS, false);
      if (int(o) == I.lhs.tensor) {
        v.bound = true;
        v.instrAccess = &I.lhs;
        indicesIn(I.lhs, v.instrAppears);
        if (subtree) {
          // The result is a temporary over the indices the sub-expression uses.
          indicesIn(*subtree, v.stmtAppears);
        } else {
          v.stmtAccess = &s_.lhs;
          indicesIn(s_.lhs, v.stmtAppears);
        }
        continue;
      }
      if (!assignment[o])
        continue;
      v.bound = true;
      v.instrAccess = instrReads(int(o));
      if (v.instrAccess)
        indicesIn(*v.instrAccess, v.instrAppears);
      indicesIn(*assignment[o], v.stmtAppears);
      if (assignment[o]->kind == ir::Expr::Kind::Read) {
        v.stmtAccess = &assignment[o]->access;
      } else {
        v.subexpr = assignment[o];
        v.stmtAccess = soleAccess(*assignment[o]);
      }
    }

    return views;
  }

  void bindIndices(const hw::Instruction &in, const ir::Statement &I, const Assignment &assignment,
                   const ir::Expr *subtree, Found &found, std::string &reason) {
    size_t nI = I.indices.size(), nS = s_.indices.size();
    std::vector<OperandView> views = operandViews(in, I, assignment, subtree);
    auto matchesPattern = [&](size_t ii, size_t s) {
      if (I.indices[ii].reduction != s_.indices[s].reduction)
        return false;
      for (const auto &v : views)
        if (v.bound && v.instrAppears[ii] != v.stmtAppears[s])
          return false;
      return true;
    };

    // Lane-reduced: the lane index on a reduction index that every input indexes as the
    // instruction does; the accumulator holds the lanes apart and the finisher folds them.
    int lane = finisher_ >= 0 && !subtree ? laneIndexOf(in) : -1;
    auto laneReducible = [&](size_t ii, size_t s) {
      if (int(ii) != lane || !s_.indices[s].reduction)
        return false;
      for (size_t o = 0; o < views.size(); ++o)
        if (views[o].bound && int(o) != I.lhs.tensor &&
            views[o].instrAppears[ii] != views[o].stmtAppears[s])
          return false;
      return true;
    };

    // Candidate groups per instruction index: singles, then fused runs contiguous everywhere,
    // then (from laneFrom[ii] on) lane-reduced singles.
    std::vector<std::vector<std::vector<int>>> groups(nI);
    std::vector<size_t> laneFrom(nI);
    for (size_t ii = 0; ii < nI; ++ii) {
      for (size_t s = 0; s < nS; ++s)
        if (matchesPattern(ii, s))
          groups[ii].push_back({int(s)});
      for (auto &g : fusedGroups(ii, views, matchesPattern))
        groups[ii].push_back(std::move(g));
      laneFrom[ii] = groups[ii].size();
      for (size_t s = 0; s < nS; ++s)
        if (laneReducible(ii, s))
          groups[ii].push_back({int(s)});
    }

    // Depth-first choice of a group (or none) per instruction index, groups disjoint.
    std::vector<int> choice(nI, -1);
    std::vector<bool> used(nS, false);
    std::function<void(size_t)> dfs = [&](size_t ii) {
      size_t good = size_t(std::count_if(found.candidates.begin(), found.candidates.end(),
                                         [](const Candidate &c) { return !c.degenerate; }));
      if (good >= opts_.maxCandidatesPerInstruction * 2 || overBudget())
        return;
      if (ii == nI) {
        Choice ch{in, I, views, std::vector<const std::vector<int> *>(nI, nullptr), subtree};
        for (size_t x = 0; x < nI; ++x)
          if (choice[x] >= 0) {
            ch.groupOf[x] = &groups[x][size_t(choice[x])];
            ch.laneReduced = ch.laneReduced || size_t(choice[x]) >= laneFrom[x];
          }
        finishCandidate(ch, found, reason);
        return;
      }
      for (size_t g = 0; g < groups[ii].size(); ++g) {
        bool free = std::none_of(groups[ii][g].begin(), groups[ii][g].end(),
                                 [&](int s) { return used[s]; });
        if (!free)
          continue;
        for (int s : groups[ii][g])
          used[s] = true;
        choice[ii] = int(g);
        dfs(ii + 1);
        for (int s : groups[ii][g])
          used[s] = false;
      }
      choice[ii] = -1;
      dfs(ii + 1);
    };
    dfs(0);

    if (found.candidates.empty() && reason.empty()) {
      for (size_t ii = 0; ii < nI; ++ii)
        if (groups[ii].empty()) {
          reason = describeMissingIndex(in, I, views, ii);
          break;
        }
    }
  }

  std::string describeMissingIndex(const hw::Instruction &in, const ir::Statement &I,
                                   const std::vector<OperandView> &views, size_t ii) const {
    const ir::Kernel &sem = in.semantics;
    std::string yes, no;
    for (size_t o = 0; o < views.size(); ++o) {
      if (!views[o].bound)
        continue;
      std::string &list = views[o].instrAppears[ii] ? yes : no;
      list += (list.empty() ? "" : ", ") + sem.tensors[o].name;
    }
    return "index " + I.indices[ii].name + " of '" + in.name + "' must bind to a " +
           (I.indices[ii].reduction ? "reduction" : "non-reduction") +
           " statement index that appears in " + (yes.empty() ? "no operand" : yes) +
           (no.empty() ? "" : " but not in " + no) + "; no index of the statement does";
  }

  // Runs of adjacent statement dimensions that can be fused into instruction index ii: every
  // dimension indexed by one index alone, inner dimensions full and unshifted, in every access
  // the instruction index appears in.
  std::vector<std::vector<int>>
  fusedGroups(size_t ii, const std::vector<OperandView> &views,
              const std::function<bool(size_t, size_t)> &matchesPattern) {
    std::vector<std::vector<int>> out;
    const OperandView *first = nullptr;
    for (const auto &v : views)
      if (v.bound && v.instrAppears[ii] && v.stmtAccess) {
        first = &v;
        break;
      }
    if (!first)
      return out;
    auto tensorOf = [&](const ir::Access *a) -> const ir::Tensor & {
      return k_.tensors[a->tensor];
    };
    // The one index of a dimension, ignoring indices of extent 1 (always 0: `h + r` with r < 1
    // is `h`), when it has coefficient 1.
    auto plainIndex = [&](const ir::Affine &a) -> int {
      int found = -1;
      for (auto [i, coef] : a.terms) {
        if (coef == 0 || s_.indices[i].extent == 1)
          continue;
        if (found >= 0 || coef != 1)
          return -1;
        found = i;
      }
      return found;
    };
    // Does `group` occupy consecutive dimensions of `acc`, in order, fusably?
    auto fusable = [&](const ir::Access &acc, const std::vector<int> &group) {
      const ir::Tensor &t = tensorOf(&acc);
      for (size_t d = 0; d + group.size() <= acc.indices.size(); ++d) {
        if (plainIndex(acc.indices[d]) != group[0])
          continue;
        bool ok = true;
        for (size_t g = 1; g < group.size() && ok; ++g) {
          const ir::Affine &a = acc.indices[d + g];
          ok = plainIndex(a) == group[g] && a.constant == 0 &&
               t.shape[d + g] == s_.indices[group[g]].extent;
        }
        // The run's indices must not index any other dimension too (a diagonal A[s, k, k]):
        // the fused index would then not walk the tensor by one stride.
        for (size_t e = 0; e < acc.indices.size() && ok; ++e)
          if (e < d || e >= d + group.size())
            for (auto [i, coef] : acc.indices[e].terms)
              ok = ok && (coef == 0 || s_.indices[i].extent == 1 ||
                          std::find(group.begin(), group.end(), i) == group.end());
        if (ok)
          return true;
      }
      return false;
    };
    const ir::Access &acc = *first->stmtAccess;
    for (size_t d = 0; d < acc.indices.size(); ++d) {
      std::vector<int> run;
      for (size_t e = d; e < acc.indices.size(); ++e) {
        int s = plainIndex(acc.indices[e]);
        if (s < 0 || !matchesPattern(ii, size_t(s)) ||
            std::find(run.begin(), run.end(), s) != run.end())
          break;
        run.push_back(s);
        if (run.size() < 2)
          continue;
        bool everywhere = true;
        for (const auto &v : views)
          if (v.bound && v.instrAppears[ii] && v.stmtAccess)
            everywhere = everywhere && fusable(*v.stmtAccess, run);
        if (everywhere)
          out.push_back(run);
      }
    }
    return out;
  }

  // The candidate of a complete choice, kept in `found` unless it repeats one or is a
  // degenerate mapping too many; an illegal choice sets `reason` (the first one found wins).
  void finishCandidate(const Choice &ch, Found &found, std::string &reason) {
    Candidate c;
    c.instruction = int(&ch.in - t_.instructions.data());
    c.isMove = ch.in.isMove;
    c.partial = ch.subtree != nullptr;
    c.subexpression = ch.subtree != nullptr;
    if (ch.laneReduced) {
      c.laneReduced = laneIndexOf(ch.in);
      c.finisher = finisher_;
    }
    bindInstructionIndices(ch, c);
    if (std::string why = reductionProblem(ch, c); !why.empty()) {
      if (reason.empty())
        reason = why;
      return;
    }
    if (std::string why = bindOperands(ch, c); !why.empty()) {
      if (reason.empty())
        reason = why;
      return;
    }
    estimate(ch, c);
    describePartialWork(ch, c);
    keep(std::move(c), ch.subtree, found);
  }

  // Each instruction index's binding (its remainder where the extent does not divide), the
  // statement indices left as loops, and whether an instruction index is left on a unit extent.
  void bindInstructionIndices(const Choice &ch, Candidate &c) const {
    const ir::Kernel &sem = ch.in.semantics;
    std::vector<bool> bound(s_.indices.size(), false);
    for (size_t ii = 0; ii < ch.I.indices.size(); ++ii) {
      const ir::Index &index = ch.I.indices[ii];
      IndexBinding b;
      b.instrIndex = index.name;
      b.instrExtent = index.param.empty() ? index.extent : 0;
      b.instrParam = index.param;
      if (ch.groupOf[ii]) {
        b.stmtIndices = *ch.groupOf[ii];
        for (int s : b.stmtIndices) {
          bound[s] = true;
          b.stmtExtent *= s_.indices[s].extent;
        }
      } else if (b.instrExtent != 1 && b.instrExtent != 0) {
        c.degenerate = true;
      }
      if (b.instrExtent == 0)
        b.remainder = Remainder::Free;
      else if (b.stmtExtent % b.instrExtent == 0)
        b.remainder = Remainder::Exact;
      else {
        // Registers take masked accesses; software-managed buffers are padded when packed;
        // otherwise a scalar tail finishes the extent.
        bool inRegisters = false, inBuffer = false;
        for (size_t o = 0; o < sem.tensors.size(); ++o) {
          if (!ch.views[o].bound || !ch.views[o].instrAppears[ii])
            continue;
          int m = t_.memoryIndex(sem.tensors[o].memory);
          inRegisters = inRegisters || (m >= 0 && t_.memories[m].isRegisters);
          inBuffer = inBuffer || (m >= 0 && t_.isSoftwareManaged(m) && !t_.memories[m].isRegisters);
        }
        b.remainder = inRegisters ? Remainder::Mask : inBuffer ? Remainder::Pad : Remainder::Tail;
      }
      c.bindings.push_back(std::move(b));
    }
    for (size_t s = 0; s < s_.indices.size(); ++s)
      if (!bound[s])
        c.loops.push_back(int(s));
  }

  static bool readsTensor(const ir::Expr &e, int tensor) {
    if (e.kind == ir::Expr::Kind::Read && e.access.tensor == tensor)
      return true;
    for (const auto &a : e.args)
      if (readsTensor(a, tensor))
        return true;
    return false;
  }

  // Why the instruction cannot carry the statement's reduction (empty: it can). A plain
  // assignment on a summing instruction needs its result zeroed first (sets zeroInit).
  std::string reductionProblem(const Choice &ch, Candidate &c) const {
    const hw::Instruction &in = ch.in;
    const ir::Statement &I = ch.I;
    // Reductions left as loops need an instruction that accumulates with the same operator.
    bool accumulates =
        I.reduce == s_.reduce && in.semantics.tensors[I.lhs.tensor].role == ir::TensorRole::InOut;
    for (int s : c.loops)
      if (s_.indices[s].reduction && !ch.subtree && !accumulates)
        return "the reduction over " + s_.indices[s].name + " would loop around '" + in.name +
               "', which does not accumulate into its result";
    // A reduction split over several calls, or one onto values the result already holds,
    // needs an instruction that accumulates too.
    if (!ch.subtree && s_.reduce != ir::ReduceOp::None && !accumulates) {
      for (size_t ii = 0; ii < I.indices.size(); ++ii) {
        const IndexBinding &b = c.bindings[ii];
        bool split = I.indices[ii].reduction && b.instrExtent > 0 && b.stmtExtent > b.instrExtent;
        if (split || s_.accumulates)
          return "'" + in.name + "' overwrites its result, but " +
                 (split
                      ? "the reduction over " + s_.indices[b.stmtIndices.front()].name + " (" +
                            std::to_string(b.stmtExtent) + ") needs several calls that must add up"
                      : std::string("the statement adds onto values its target already holds"));
      }
    }
    // A plain assignment runs on an instruction that sums when its result starts at zero; other
    // reductions would only compute a copy the long way.
    if (!ch.subtree && s_.reduce == ir::ReduceOp::None && I.reduce != ir::ReduceOp::None) {
      if (I.reduce != ir::ReduceOp::Sum)
        return "'" + in.name + "' reduces with " + ir::reduceOpText(I.reduce) +
               "; the statement assigns with =";
      // Zeroing the result first would lose what the statement reads of it (`O = X * O`).
      if (readsTensor(s_.rhs, s_.lhs.tensor))
        return "'" + in.name + "' sums into its result, which would start at zero, but the " +
               "statement reads the value it overwrites";
      c.zeroInit = true;
    }
    return "";
  }

  // Operands: bindings, layout and the moves that bring them where the instruction needs them.
  // Returns why an operand cannot get there (empty: every one can).
  std::string bindOperands(const Choice &ch, Candidate &c) const {
    const hw::Instruction &in = ch.in;
    for (size_t o = 0; o < in.semantics.tensors.size(); ++o) {
      const ir::Tensor &op = in.semantics.tensors[o];
      const OperandView &v = ch.views[o];
      OperandBinding ob;
      ob.operand = op.name;
      ob.role = op.role;
      ob.memory = op.memory;
      if (!v.bound) {
        ob.binding = "(unused)";
        c.operands.push_back(ob);
        continue;
      }
      if (v.subexpr) {
        ob.computedSeparately = true;
        ob.binding = stmtText(*v.subexpr);
        if (v.stmtAccess) {
          ob.tensor = v.stmtAccess->tensor;
          ob.access = *v.stmtAccess;
          ob.computed = *v.subexpr;
        }
      } else if (v.stmtAccess) {
        ob.tensor = v.stmtAccess->tensor;
        ob.access = *v.stmtAccess;
        ob.binding = ir::printAccess(*v.stmtAccess, s_, k_.tensors);
      } else {
        ob.binding = "a temporary for " + stmtText(*ch.subtree);
      }
      describeLayout(v, ch.groupOf, ob);
      // A lane-reduced result's lanes are a register temporary of its own, not the tensor's.
      if (c.laneReduced >= 0 && int(o) == ch.I.lhs.tensor)
        ob.contiguous = true, ob.needsPack = false;
      int m = t_.memoryIndex(op.memory);
      std::string problem;
      bool reads = op.role != ir::TensorRole::Output;
      bool writes = op.role != ir::TensorRole::Input;
      if (m >= 0 && reads && !(in.isMove && op.role == ir::TensorRole::Input)) {
        auto chain = moveChain(t_, m, true, op.shape.size(), problem);
        if (!chain)
          return "operand '" + op.name + "' of '" + in.name + "' lives in " + op.memory + ", but " +
                 problem;
        for (auto &step : *chain)
          ob.moves.push_back(step);
      }
      if (m >= 0 && writes && !in.isMove) {
        if (auto chain = moveChain(t_, m, false, op.shape.size(), problem))
          for (auto &step : *chain)
            ob.moves.push_back(step);
      }
      if (ob.needsPack)
        ob.moves.insert(ob.moves.begin(), MoveStep{MoveStep::Kind::Pack});
      c.operands.push_back(std::move(ob));
    }
    return "";
  }

  // An operand's strides along its instruction dimensions (elements of the tensor), whether it
  // is contiguous in the instruction's order, and so whether it needs a pack.
  void describeLayout(const OperandView &v, const std::vector<const std::vector<int> *> &groupOf,
                      OperandBinding &ob) const {
    if (v.stmtAccess && v.instrAccess) {
      auto strides = rowMajorStrides(k_.tensors[v.stmtAccess->tensor].shape);
      for (const auto &dim : v.instrAccess->indices) {
        int ii = dim.terms.size() == 1 ? dim.terms[0].first : -1;
        int64_t stride = 0;
        if (ii >= 0 && groupOf[ii])
          stride = strideOf(*v.stmtAccess, groupOf[ii]->back(), strides);
        ob.strides.push_back(stride);
      }
      bool unitInner = ob.strides.empty() || ob.strides.back() == 1 ||
                       (ob.strides.back() == 0 && boundExtentOfInner(v, groupOf) <= 1);
      bool ordered = true;
      for (size_t d = 1; d < ob.strides.size(); ++d)
        ordered = ordered && (ob.strides[d - 1] >= ob.strides[d] || ob.strides[d - 1] == 0);
      ob.contiguous = unitInner && ordered;
    } else {
      ob.contiguous = v.subexpr == nullptr; // a temporary is laid out as needed
    }
    // An operand computed from its access is packed anyway: the pack computes it.
    ob.needsPack = !ob.contiguous || ob.computedSeparately;
  }

  // Instruction count, utilization and issue-bound cycles (plus the packs' copies).
  void estimate(const Choice &ch, Candidate &c) const {
    const hw::Instruction &in = ch.in;
    int64_t count = 1;
    double instrPoints = 1;
    for (size_t ii = 0; ii < ch.I.indices.size(); ++ii) {
      const IndexBinding &b = c.bindings[ii];
      if (b.instrExtent == 0) {
        instrPoints *= double(b.stmtExtent);
        continue;
      }
      count *= (b.stmtExtent + b.instrExtent - 1) / b.instrExtent;
      instrPoints *= double(b.instrExtent);
    }
    for (int s : c.loops)
      count *= s_.indices[s].extent;
    c.instructionCount = count;
    // A sub-expression runs over the same domain as the statement.
    double useful = double(s_.pointCount());
    c.utilization = std::min(1.0, useful / (double(count) * instrPoints));
    c.cycles = double(count) / (in.cost.perCycle * t_.cores) + in.cost.latencyCycles;
    if (c.finisher >= 0) {
      // One fold per result element, at the end of its reduction.
      const hw::Instruction &f = t_.instructions[size_t(c.finisher)];
      c.finisherCount = 1;
      for (const auto &index : s_.indices)
        c.finisherCount *= index.reduction ? 1 : index.extent;
      c.cycles += double(c.finisherCount) / (f.cost.perCycle * t_.cores) + f.cost.latencyCycles;
    }
    if (in.isMove && in.cost.bandwidthBytesPerCycle > 0) {
      double bytes = useful * ir::elemTypeBytes(k_.tensors[s_.lhs.tensor].type);
      c.cycles = std::max(c.cycles, bytes / in.cost.bandwidthBytesPerCycle);
    }
    // A pack copies the operand once: charge its bytes at the bandwidth of the level it is
    // read from, so that a pack-free mapping wins between otherwise equal ones.
    for (const auto &ob : c.operands)
      if (ob.needsPack && ob.tensor >= 0) {
        const ir::Tensor &t = k_.tensors[ob.tensor];
        int m = t_.memoryIndex(ob.memory);
        double bw = 16;
        for (int p = m >= 0 ? t_.memories[m].parent : -1; p >= 0; p = t_.memories[p].parent)
          if (t_.memories[p].bandwidthBytesPerCycle > 0) {
            bw = t_.memories[p].bandwidthBytesPerCycle;
            break;
          }
        c.cycles += double(t.elementCount() * ir::elemTypeBytes(t.type)) / (bw * t_.cores);
      }
  }

  // What the candidate leaves to other work: the rest of the statement, operands computed
  // separately into temporaries, and instruction indices left on a unit extent.
  void describePartialWork(const Choice &ch, Candidate &c) const {
    if (c.partial)
      c.partialNote =
          "computes " + stmtText(*ch.subtree) + "; the rest of the statement is separate work";
    for (const auto &ob : c.operands)
      if (ob.computedSeparately)
        c.partialNote += (c.partialNote.empty() ? "" : "; ") + ob.binding +
                         (ob.computed ? " is computed into its temporary as it is packed"
                                      : " is computed separately into a temporary");
    c.partial = c.partial || std::any_of(c.operands.begin(), c.operands.end(),
                                         [](auto &o) { return o.computedSeparately; });
    if (c.degenerate) {
      std::string unit;
      for (size_t ii = 0; ii < ch.I.indices.size(); ++ii)
        if (!ch.groupOf[ii] && c.bindings[ii].instrExtent > 1)
          unit += (unit.empty() ? "" : ", ") + describeMissingIndex(ch.in, ch.I, ch.views, ii);
      c.partialNote += (c.partialNote.empty() ? "" : "; ") + std::string("degenerate: ") + unit;
    }
  }

  // Keeps a candidate unless symmetric operands already gave the same mapping, or it is
  // degenerate and a few degenerate ones are kept already (a last resort: enough to show what
  // they cost).
  void keep(Candidate c, const ir::Expr *subtree, Found &found) const {
    std::ostringstream key;
    for (const auto &b : c.bindings) {
      key << b.instrIndex << "=";
      for (int s : b.stmtIndices)
        key << s << ",";
      key << ";";
    }
    std::vector<std::string> ops;
    for (const auto &ob : c.operands)
      ops.push_back(ob.binding + (ob.contiguous ? "c" : "p"));
    std::sort(ops.begin(), ops.end());
    for (const auto &o : ops)
      key << o << "|";
    if (subtree)
      key << "sub:" << stmtText(*subtree);
    if (!found.keys.insert(key.str()).second)
      return;
    if (c.degenerate && std::count_if(found.candidates.begin(), found.candidates.end(),
                                      [](const Candidate &x) { return x.degenerate; }) >= 3)
      return;
    found.candidates.push_back(std::move(c));
  }

  int64_t boundExtentOfInner(const OperandView &v,
                             const std::vector<const std::vector<int> *> &groupOf) const {
    if (!v.instrAccess || v.instrAccess->indices.empty())
      return 1;
    const ir::Affine &inner = v.instrAccess->indices.back();
    if (inner.terms.size() != 1)
      return 1;
    const auto *g = groupOf[inner.terms[0].first];
    if (!g)
      return 1;
    int64_t e = 1;
    for (int s : *g)
      e *= s_.indices[s].extent;
    return e;
  }

  const ir::Kernel &k_;
  const ir::Statement &s_;
  const hw::Target &t_;
  const MapOptions &opts_;
  Clock::time_point start_;
  StatementMappings out_;
  int finisher_ = -1; // the current instruction's horizontal reduction (finisherFor), or -1
};

} // namespace

StatementMappings mapStatement(const ir::Kernel &kernel, size_t statement, const hw::Target &target,
                               const MapOptions &options) {
  return StatementMapper(kernel, statement, target, options).run();
}

std::vector<StatementMappings> mapKernel(const ir::Kernel &kernel, const hw::Target &target,
                                         const MapOptions &options) {
  std::vector<StatementMappings> out;
  for (size_t s = 0; s < kernel.statements.size(); ++s)
    out.push_back(mapStatement(kernel, s, target, options));
  return out;
}

} // namespace isam::mapping
