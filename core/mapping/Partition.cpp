// BYOC-style partitioning of a kernel over a system's units, and the readable text of mapping
// results.
#include "mapping/Mapping.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>

namespace isam::mapping {

namespace {

bool shareMemory(const hw::System &sys, const std::string &a, const std::string &b) {
  for (const auto &group : sys.shared) {
    bool hasA = false, hasB = false;
    for (const auto &r : group) {
      hasA = hasA || r.target == a;
      hasB = hasB || r.target == b;
    }
    if (hasA && hasB)
      return true;
  }
  return false;
}

std::string indexList(const ir::Statement &s, const std::vector<int> &indices) {
  std::string out;
  for (int i : indices)
    out += (out.empty() ? "" : ",") + s.indices[i].name;
  return out;
}

std::string formatPercent(double x) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(x < 0.1 ? 1 : 0);
  o << x * 100 << "%";
  return o.str();
}

} // namespace

Partition partition(const ir::Kernel &kernel, const hw::System &system,
                    const std::vector<hw::Target> &units,
                    const std::vector<std::vector<StatementMappings>> &mappingsPerUnit) {
  Partition p;
  const std::string &host = system.hosts.empty() ? units.front().name : system.hosts.front();
  for (size_t s = 0; s < kernel.statements.size(); ++s) {
    Placement best;
    best.statement = s;
    best.unit = host;
    best.seconds = INFINITY;
    for (size_t u = 0; u < units.size(); ++u) {
      const auto &cands = mappingsPerUnit[u][s].candidates;
      auto it = std::find_if(cands.begin(), cands.end(),
                             [](const Candidate &c) { return !c.partial && !c.degenerate; });
      if (it == cands.end())
        continue;
      best.ableUnits.push_back(units[u].name);
      double seconds = it->cycles / units[u].clockHz;
      if (seconds < best.seconds) {
        best.seconds = seconds;
        best.unit = units[u].name;
        best.instruction = units[u].instructions[size_t(it->instruction)].name;
      }
    }
    if (best.ableUnits.empty()) {
      // Fallback: the host runs it, with its best (possibly partial) mapping or scalar code.
      for (size_t u = 0; u < units.size(); ++u)
        if (units[u].name == host && !mappingsPerUnit[u][s].candidates.empty()) {
          const Candidate &c = mappingsPerUnit[u][s].candidates.front();
          best.instruction = units[u].instructions[size_t(c.instruction)].name;
          best.seconds = c.cycles / units[u].clockHz;
        }
      if (!std::isfinite(best.seconds))
        best.seconds = 0;
    }
    p.placements.push_back(best);
  }

  // Transfers: kernel inputs and outputs live with the host; locals with their producer.
  std::map<int, std::string> owner;
  for (size_t t = 0; t < kernel.tensors.size(); ++t)
    if (kernel.tensors[t].role == ir::TensorRole::Input)
      owner[int(t)] = host;
  auto transfer = [&](int t, const std::string &from, const std::string &to) {
    if (from == to)
      return;
    for (const auto &x : p.transfers)
      if (x.tensor == kernel.tensors[t].name && x.from == from && x.to == to)
        return;
    Transfer x;
    x.tensor = kernel.tensors[t].name;
    x.from = from;
    x.to = to;
    x.bytes = kernel.tensors[t].elementCount() * ir::elemTypeBytes(kernel.tensors[t].type);
    x.sharedMemory = shareMemory(system, from, to);
    p.transfers.push_back(x);
  };
  std::function<void(const ir::Expr &, const std::string &)> reads = [&](const ir::Expr &e,
                                                                         const std::string &unit) {
    if (e.kind == ir::Expr::Kind::Read && owner.count(e.access.tensor))
      transfer(e.access.tensor, owner[e.access.tensor], unit);
    for (const auto &a : e.args)
      reads(a, unit);
  };
  for (const auto &pl : p.placements) {
    const ir::Statement &st = kernel.statements[pl.statement];
    reads(st.rhs, pl.unit);
    if (st.accumulates && owner.count(st.lhs.tensor))
      transfer(st.lhs.tensor, owner[st.lhs.tensor], pl.unit);
    owner[st.lhs.tensor] = pl.unit;
  }
  for (size_t t = 0; t < kernel.tensors.size(); ++t)
    if (kernel.tensors[t].role == ir::TensorRole::Output && owner.count(int(t)))
      transfer(int(t), owner[int(t)], host);
  return p;
}

std::string moveStepText(const MoveStep &step, const hw::Target &target) {
  switch (step.kind) {
  case MoveStep::Kind::Pack:
    return "pack (layout change)";
  case MoveStep::Kind::Move:
    return target.instructions[size_t(step.move)].name + " (" +
           target.memories[size_t(step.from)].name + " -> " +
           target.memories[size_t(step.to)].name + ")";
  case MoveStep::Kind::Undescribed:
    return "(no move out of " + target.memories[size_t(step.from)].name + " is described)";
  }
  return "";
}

std::string printMappings(const StatementMappings &m, const ir::Kernel &kernel,
                          const hw::Target &target) {
  std::ostringstream out;
  const ir::Statement &s = kernel.statements[m.index];
  out << kernel.name << " s" << m.index << ": " << m.text << "\n";
  out << "  on " << m.target << ": " << m.candidates.size() << " mapping"
      << (m.candidates.size() == 1 ? "" : "s") << ", " << m.rejected.size() << " rejected"
      << (m.budgetExhausted ? " (search budget exhausted: the list may be incomplete)" : "")
      << "\n";
  for (size_t i = 0; i < m.candidates.size(); ++i) {
    const Candidate &c = m.candidates[i];
    out << "  #" << i + 1 << " " << target.instructions[size_t(c.instruction)].name;
    if (c.partial)
      out << " [partial]";
    if (c.degenerate)
      out << " [degenerate]";
    out << "  ";
    for (size_t b = 0; b < c.bindings.size(); ++b) {
      const IndexBinding &ib = c.bindings[b];
      out << (b ? ", " : "") << ib.instrIndex << "<-";
      if (ib.stmtIndices.empty())
        out << "1";
      else
        out << '(' << indexList(s, ib.stmtIndices) << ')';
      if (ib.remainder != Remainder::Exact)
        out << " " << remainderName(ib.remainder);
      if (int(b) == c.laneReduced)
        out << " across lanes, then " << target.instructions[size_t(c.finisher)].name;
    }
    out << "  loops " << (c.loops.empty() ? "none" : indexList(s, c.loops));
    out << "  | " << c.instructionCount << " instr, ~" << std::llround(c.cycles) << " cycles, "
        << formatPercent(c.utilization) << " utilization\n";
    for (const auto &ob : c.operands) {
      if (ob.binding == "(unused)")
        continue;
      out << "      " << ob.operand << " = " << ob.binding << " in " << ob.memory;
      if (!ob.strides.empty()) {
        out << " strides [";
        for (size_t d = 0; d < ob.strides.size(); ++d)
          out << (d ? "," : "") << ob.strides[d];
        out << "]";
      }
      if (!ob.moves.empty()) {
        out << " via ";
        for (size_t v = 0; v < ob.moves.size(); ++v)
          out << (v ? ", " : "") << moveStepText(ob.moves[v], target);
      }
      out << "\n";
    }
    if (c.zeroInit)
      out << "      note: the result is zeroed before accumulating\n";
    if (c.laneReduced >= 0)
      out << "      note: each result element accumulates "
          << c.bindings[size_t(c.laneReduced)].instrExtent << " lanes, folded by "
          << target.instructions[size_t(c.finisher)].name << " (" << c.finisherCount << " call"
          << (c.finisherCount == 1 ? "" : "s") << ")\n";
    if (!c.partialNote.empty())
      out << "      note: " << c.partialNote << "\n";
  }
  for (const auto &r : m.rejected)
    out << "  x " << target.instructions[size_t(r.instruction)].name << ": " << r.reason << "\n";
  return out.str();
}

std::string printPartition(const Partition &p, const ir::Kernel &kernel) {
  std::ostringstream out;
  out << "partition of " << kernel.name << ":\n";
  for (const auto &pl : p.placements) {
    out << "  s" << pl.statement << " -> " << pl.unit;
    out << (pl.instruction.empty() ? " (scalar code)" : " (" + pl.instruction + ")");
    std::ostringstream secs;
    secs.precision(3);
    secs << pl.seconds * 1e6;
    out << ", ~" << secs.str() << " us";
    if (pl.ableUnits.empty())
      out << "; no unit runs it fully with one instruction: the host runs it";
    else {
      out << "; able:";
      for (const auto &u : pl.ableUnits)
        out << " " << u;
    }
    out << "\n";
  }
  for (const auto &t : p.transfers)
    out << "  transfer " << t.tensor << ": " << t.from << " -> " << t.to << ", " << t.bytes << " B"
        << (t.sharedMemory ? " (shared memory: synchronise only)" : "") << "\n";
  return out.str();
}

void reportUnmapped(const StatementMappings &m, const hw::Target &target, DiagnosticSink &diags) {
  for (const Candidate &c : m.candidates)
    if (!c.partial)
      return;
  std::string message = "no instruction of " + m.target + " runs this statement";
  message += m.candidates.empty() ? "" : " fully (only partial mappings)";
  message += "; it will run as scalar code";
  Diagnostic &d = diags.report(Severity::Info, "I0301", m.range, message);
  for (const Candidate &c : m.candidates)
    d.note(m.range,
           target.instructions[size_t(c.instruction)].name + " runs part of it: " + c.partialNote);
  for (const Rejection &r : m.rejected)
    d.note(m.range, target.instructions[size_t(r.instruction)].name + ": " + r.reason);
}

} // namespace isam::mapping
