#include "viz/MappingGraph.h"

#include "viz/HardwareGraph.h"
#include "viz/KernelGraph.h"

#include <algorithm>
#include <cmath>

namespace isam::viz {

namespace {

std::string indexList(const ir::Statement &s, const std::vector<int> &idx) {
  std::string out;
  for (int i : idx)
    if (i >= 0 && size_t(i) < s.indices.size())
      out += (out.empty() ? "" : "*") + s.indices[size_t(i)].name;
  return out;
}

std::string bindingSummary(const ir::Statement &s, const mapping::Candidate &c) {
  std::string out;
  for (const auto &b : c.bindings) {
    if (!out.empty())
      out += ", ";
    out += b.instrIndex;
    out += "<-";
    if (b.stmtIndices.empty()) {
      out += "1";
    } else {
      out += "(";
      out += indexList(s, b.stmtIndices);
      out += ")";
    }
    if (b.remainder != mapping::Remainder::Exact)
      out += std::string(" ") + mapping::remainderName(b.remainder);
  }
  return out;
}

std::string percent(double x) {
  return number(x * 100, x < 0.1 ? 1 : 0) + "%";
}

std::string estimate(const mapping::Candidate &c) {
  return std::to_string(c.instructionCount) + " instr, ~" + number(std::round(c.cycles)) +
         " cycles, " + percent(c.utilization) + " utilization";
}

void collectReads(const ir::Expr &e, std::vector<const ir::Access *> &out) {
  if (e.kind == ir::Expr::Kind::Read)
    out.push_back(&e.access);
  for (const auto &a : e.args)
    collectReads(a, out);
}

// Names of what a candidate refers to by index; a picture never trusts an index blindly.
std::string instructionName(const hw::Target &t, int instruction) {
  return instruction >= 0 && size_t(instruction) < t.instructions.size()
             ? t.instructions[size_t(instruction)].name
             : "instruction " + std::to_string(instruction);
}

std::string moveText(const mapping::MoveStep &step, const hw::Target &t) {
  auto memory = [&](int m) { return m >= 0 && size_t(m) < t.memories.size(); };
  bool known = step.kind == mapping::MoveStep::Kind::Pack;
  if (step.kind == mapping::MoveStep::Kind::Move)
    known = step.move >= 0 && size_t(step.move) < t.instructions.size() && memory(step.from) &&
            memory(step.to);
  if (step.kind == mapping::MoveStep::Kind::Undescribed)
    known = memory(step.from);
  return known ? mapping::moveStepText(step, t) : "a move";
}

} // namespace

std::string mappingGraph(const ir::Kernel &k, const mapping::StatementMappings &m,
                         const hw::Target &t, size_t candidate, const Options &o) {
  const bool valid = m.index < k.statements.size();
  const mapping::Candidate *c =
      valid && candidate < m.candidates.size() ? &m.candidates[candidate] : nullptr;
  std::string sid = statementName(m.index);
  std::string title = k.name + " " + sid + " on " + t.name + ": ";
  if (c)
    title += "mapping #" + std::to_string(candidate + 1) + " of " +
             std::to_string(m.candidates.size()) + " (" + instructionName(t, c->instruction) + ")";
  else if (m.candidates.empty())
    title += "no instruction runs this statement";
  else
    title += "no mapping #" + std::to_string(candidate + 1) + " (there are " +
             std::to_string(m.candidates.size()) + ")";
  Graph g = style::makeGraph("mapping " + k.name + " " + sid, title, o);
  if (!valid) {
    style::addLegend(g, {});
    return g.str();
  }
  const ir::Statement &s = k.statements[m.index];

  // ---- the statement: indices (fused ones grouped) and accesses ----------------------------
  Graph::Cluster sc = g.cluster(
      Graph::kRoot, "statement",
      {{"label",
        Value::Html("<B>" + html(sid) + "</B>: " +
                    htmlParagraph(sanitize(statementExpression(s, k.tensors), o.maxLabelChars),
                                  o.wrapWidth))},
       {"style", "rounded,filled"},
       {"fillcolor", style::kStatementFill},
       {"color", "#c9b458"}});
  Graph::Cluster sIdx = g.cluster(sc, "statement.indices",
                                  {{"label", "statement indices"},
                                   {"style", "rounded"},
                                   {"color", "#c9b458"},
                                   {"fontsize", "9"}});
  Graph::Cluster sAcc = g.cluster(
      sc, "statement.accesses",
      {{"label", "accesses"}, {"style", "rounded"}, {"color", "#c9b458"}, {"fontsize", "9"}});
  auto isLoop = [&](int i) {
    return c && std::find(c->loops.begin(), c->loops.end(), i) != c->loops.end();
  };
  auto stmtIndexNode = [&](Graph::Cluster in, int i) {
    const ir::Index &x = s.indices[size_t(i)];
    std::string label = x.name + " < " + std::to_string(x.extent);
    if (x.reduction)
      label += "  (sum)";
    bool loop = isLoop(i);
    if (loop)
      label += "\nloop around the instruction";
    g.node(in, "stmt." + x.name,
           {{"label", sanitize(label, o.maxLabelChars)},
            {"shape", "box"},
            {"style", loop ? "rounded,dashed,filled" : "rounded,filled"},
            {"fillcolor", "white"}});
  };
  std::vector<bool> drawn(s.indices.size(), false);
  if (c)
    for (const auto &b : c->bindings) {
      if (b.stmtIndices.size() < 2)
        continue;
      std::string fused = indexList(s, b.stmtIndices);
      Graph::Cluster f = g.cluster(sIdx, "fused." + b.instrIndex,
                                   {{"label", sanitize("fused into " + b.instrIndex + ": " + fused +
                                                           " = " + std::to_string(b.stmtExtent),
                                                       o.maxLabelChars)},
                                    {"style", "rounded,dashed,filled"},
                                    {"fillcolor", "#fbeeb0"},
                                    {"color", "#a08a20"},
                                    {"fontsize", "9"}});
      for (int i : b.stmtIndices)
        if (i >= 0 && size_t(i) < s.indices.size() && !drawn[size_t(i)]) {
          stmtIndexNode(f, i);
          drawn[size_t(i)] = true;
        }
    }
  for (size_t i = 0; i < s.indices.size(); ++i)
    if (!drawn[i])
      stmtIndexNode(sIdx, int(i));

  // Accesses: the write, then the distinct reads.
  std::vector<std::string> accessTexts;
  auto accessNode = [&](const std::string &text, bool write, bool separate) {
    for (size_t a = 0; a < accessTexts.size(); ++a)
      if (accessTexts[a] == text)
        return "access." + std::to_string(a);
    accessTexts.push_back(text);
    std::string id = "access." + std::to_string(accessTexts.size() - 1);
    g.node(sAcc, id,
           {{"label", Value::Html(htmlParagraph(sanitize(text, o.maxLabelChars), o.wrapWidth) +
                                  (separate ? "<I>computed separately</I>" : ""))},
            {"shape", "box"},
            {"style", separate ? "dashed,filled" : "filled"},
            {"fillcolor", write ? style::roleFill(ir::TensorRole::Output)
                                : style::roleFill(ir::TensorRole::Input)}});
    return id;
  };
  accessNode(ir::printAccess(s.lhs, s, k.tensors), true, false);
  {
    std::vector<const ir::Access *> reads;
    collectReads(s.rhs, reads);
    for (const auto *a : reads)
      accessNode(ir::printAccess(*a, s, k.tensors), false, false);
  }

  // ---- the instruction: indices and operands ------------------------------------------------
  const hw::Instruction *in =
      c && c->instruction >= 0 && size_t(c->instruction) < t.instructions.size()
          ? &t.instructions[size_t(c->instruction)]
          : nullptr;
  if (c) {
    std::string head =
        "<B>" + html(sanitize(instructionName(t, c->instruction), o.maxLabelChars)) + "</B>";
    if (in && in->unit >= 0 && size_t(in->unit) < t.units.size())
      head += html(" on " + t.units[size_t(in->unit)].name);
    if (in && !in->semantics.statements.empty())
      head += ": " + htmlParagraph(sanitize(statementExpression(in->semantics.statements[0],
                                                                in->semantics.tensors),
                                            o.maxLabelChars),
                                   o.wrapWidth);
    Graph::Cluster ic = g.cluster(Graph::kRoot, "instruction",
                                  {{"label", Value::Html(head)},
                                   {"style", "rounded,filled"},
                                   {"fillcolor", style::kInstructionFill},
                                   {"color", "#6a9a5a"}});
    Graph::Cluster iIdx = g.cluster(ic, "instruction.indices",
                                    {{"label", "instruction indices"},
                                     {"style", "rounded"},
                                     {"color", "#6a9a5a"},
                                     {"fontsize", "9"}});
    Graph::Cluster iOps = g.cluster(
        ic, "instruction.operands",
        {{"label", "operands"}, {"style", "rounded"}, {"color", "#6a9a5a"}, {"fontsize", "9"}});
    for (const auto &b : c->bindings) {
      std::string extent = b.instrExtent == 0 ? (b.instrParam.empty() ? "free" : b.instrParam)
                                              : std::to_string(b.instrExtent);
      std::string label = b.instrIndex + " < " + extent;
      Attrs a = {{"shape", "box"}, {"style", "rounded,filled"}, {"fillcolor", "white"}};
      if (b.stmtIndices.empty()) {
        label += "\nunit extent (degenerate)";
        a = {{"shape", "box"},
             {"style", "rounded,dashed,filled"},
             {"fillcolor", "white"},
             {"color", style::kMuted},
             {"fontcolor", style::kMuted}};
      }
      a.push_back({"label", sanitize(label, o.maxLabelChars)});
      g.node(iIdx, "instr." + b.instrIndex, a);
    }
    for (const auto &ob : c->operands) {
      std::string type;
      if (in)
        for (const auto &op : in->semantics.tensors)
          if (op.name == ob.operand)
            type = tensorType(op);
      std::string label =
          ob.operand + ": " + ir::tensorRoleName(ob.role) + " " + type + " in " + ob.memory;
      bool unused = ob.binding == "(unused)";
      int mem = t.memoryIndex(ob.memory);
      Attrs a = {{"label", sanitize(label + (unused ? "\n(unused)" : ""), o.maxLabelChars)},
                 {"shape", "box"},
                 {"style", "filled"},
                 {"fillcolor", mem >= 0 ? style::memoryFill(style::memoryDepth(t, mem),
                                                            t.memories[size_t(mem)].isRegisters)
                                        : "white"}};
      if (unused)
        a.push_back({"fontcolor", style::kMuted});
      g.node(iOps, "operand." + ob.operand, a);
    }

    // Binding edges: statement index to instruction index.
    for (const auto &b : c->bindings) {
      std::string extent = b.instrExtent == 0 ? (b.instrParam.empty() ? "free" : b.instrParam)
                                              : std::to_string(b.instrExtent);
      std::string label = std::to_string(b.stmtExtent) + " on " + extent;
      if (b.remainder != mapping::Remainder::Exact)
        label += ", " + std::string(mapping::remainderName(b.remainder));
      for (size_t j = 0; j < b.stmtIndices.size(); ++j) {
        int i = b.stmtIndices[j];
        if (i < 0 || size_t(i) >= s.indices.size())
          continue;
        Attrs a = {{"color", "#a08a20"}, {"penwidth", "1.5"}};
        if (j == 0)
          a.push_back({"label", sanitize(b.stmtIndices.size() > 1
                                             ? indexList(s, b.stmtIndices) + " = " + label
                                             : label,
                                         o.maxLabelChars)});
        g.edge("stmt." + s.indices[size_t(i)].name, "instr." + b.instrIndex, a);
      }
    }
    // Operand edges: access to operand (arrows show the direction data flows).
    for (const auto &ob : c->operands) {
      if (ob.binding == "(unused)")
        continue;
      std::string access = accessNode(ob.binding, ob.role != ir::TensorRole::Input,
                                      ob.computedSeparately || ob.tensor < 0);
      std::string label = "in " + ob.memory;
      if (!ob.strides.empty()) {
        label += ", strides [";
        for (size_t d = 0; d < ob.strides.size(); ++d)
          label += (d ? "," : "") + std::to_string(ob.strides[d]);
        label += "]";
      }
      if (ob.needsPack)
        label += ", packed";
      for (const auto &mv : ob.moves)
        label += "\nvia " + moveText(mv, t);
      bool out = ob.role != ir::TensorRole::Input;
      g.edge(access, "operand." + ob.operand,
             {{"label", sanitize(label, o.maxLabelChars)},
              {"dir", ob.role == ir::TensorRole::InOut ? "both"
                      : out                            ? "back"
                                                       : "forward"},
              {"color", out ? style::kWrite : style::kRead},
              {"fontcolor", out ? style::kWrite : style::kInk}});
    }
  } else {
    g.node(Graph::kRoot, "unmapped",
           {{"shape", "note"},
            {"style", "filled"},
            {"fillcolor", style::kRejectedFill},
            {"color", style::kMuted},
            {"label", sanitize(m.candidates.empty()
                                   ? "no instruction of " + t.name +
                                         " runs this statement: it gets scalar code"
                                   : "there is no mapping #" + std::to_string(candidate + 1),
                               o.maxLabelChars)}},
           true);
  }

  // ---- the summary, the other candidates and the rejections --------------------------------
  Table sum("BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\" "
            "COLOR=\"#999999\"");
  sum.row({{"<B>" + html(sid + " on " + t.name) + "</B>", "COLSPAN=\"2\" BGCOLOR=\"#eeeeee\""}});
  sum.row({{"domain", "ALIGN=\"LEFT\""},
           {html(sanitize(statementDomain(s), o.maxLabelChars)), "ALIGN=\"LEFT\""}});
  if (c) {
    sum.row({{"bindings", "ALIGN=\"LEFT\""},
             {html(sanitize(bindingSummary(s, *c), o.maxLabelChars)), "ALIGN=\"LEFT\""}});
    sum.row({{"loops", "ALIGN=\"LEFT\""},
             {html(c->loops.empty() ? "none" : sanitize(indexList(s, c->loops), o.maxLabelChars)),
              "ALIGN=\"LEFT\""}});
    sum.row({{"estimate", "ALIGN=\"LEFT\""}, {html(estimate(*c)), "ALIGN=\"LEFT\""}});
    std::string notes;
    if (c->partial)
      notes += "partial: " + c->partialNote;
    if (c->degenerate)
      notes += std::string(notes.empty() ? "" : "; ") + "degenerate (a unit extent)";
    if (c->zeroInit)
      notes += std::string(notes.empty() ? "" : "; ") + "the accumulator is zeroed first";
    if (!notes.empty())
      sum.row({{"notes", "ALIGN=\"LEFT\""},
               {htmlParagraph(sanitize(notes, o.maxLabelChars), o.wrapWidth), "ALIGN=\"LEFT\""}});
  }
  sum.row({{"candidates", "ALIGN=\"LEFT\""},
           {html(std::to_string(m.candidates.size()) + " mappings, " +
                 std::to_string(m.rejected.size()) + " rejected" +
                 (m.budgetExhausted ? " (search budget exhausted)" : "")),
            "ALIGN=\"LEFT\""}});
  g.node(Graph::kRoot, "summary",
         {{"shape", "plain"}, {"style", "solid"}, {"label", Value::Html(sum.str())}}, true);

  if (m.candidates.size() > (c ? 1u : 0u)) {
    Table alt("BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"2\"");
    size_t shown = 0;
    for (size_t i = 0; i < m.candidates.size(); ++i) {
      if (c && i == candidate)
        continue;
      if (shown == 8) {
        alt.row(
            {{html("... " + std::to_string(m.candidates.size() - (c ? 1 : 0) - shown) + " more"),
              "ALIGN=\"LEFT\" COLSPAN=\"3\""}});
        break;
      }
      ++shown;
      const auto &x = m.candidates[i];
      alt.row({{html("#" + std::to_string(i + 1) + " " + instructionName(t, x.instruction) +
                     (x.partial ? " [partial]" : "") + (x.degenerate ? " [degenerate]" : "")),
                "ALIGN=\"LEFT\""},
               {html(sanitize(bindingSummary(s, x), o.maxLabelChars)), "ALIGN=\"LEFT\""},
               {html(estimate(x)), "ALIGN=\"LEFT\""}});
    }
    Graph::Cluster ac = g.cluster(Graph::kRoot, "alternatives",
                                  {{"label", "other mappings"},
                                   {"style", "rounded"},
                                   {"color", style::kMuted},
                                   {"fontcolor", style::kMuted},
                                   {"fontsize", "10"}});
    g.node(ac, "alternatives",
           {{"shape", "plain"},
            {"style", "solid"},
            {"fontcolor", "#555555"},
            {"label", Value::Html(alt.str())}});
  }

  if (!m.rejected.empty()) {
    Graph::Cluster rc = g.cluster(Graph::kRoot, "rejected",
                                  {{"label", "rejected instructions"},
                                   {"style", "rounded,filled"},
                                   {"fillcolor", "#fafafa"},
                                   {"color", style::kRejected},
                                   {"fontcolor", style::kMuted},
                                   {"fontsize", "10"}});
    std::vector<std::string> ids;
    for (const auto &r : m.rejected) {
      std::string name = instructionName(t, r.instruction);
      std::string id = "rejected." + name;
      if (std::find(ids.begin(), ids.end(), id) != ids.end())
        continue;
      ids.push_back(id);
      g.node(
          rc, id,
          {{"shape", "box"},
           {"style", "filled"},
           {"fillcolor", style::kRejectedFill},
           {"color", style::kRejected},
           {"fontcolor", style::kMuted},
           {"label",
            Value::Html("<B>" + html(sanitize(name, o.maxLabelChars)) + "</B><BR ALIGN=\"LEFT\"/>" +
                        htmlParagraph(sanitize(r.reason, o.maxLabelChars), o.wrapWidth))}});
    }
  }

  auto legend = memoryLegend({&t});
  legend.insert(
      legend.begin(),
      {{style::kStatementFill, "#c9b458", "statement side: indices and accesses"},
       {style::kInstructionFill, "#6a9a5a",
        "instruction side: indices and operands (coloured by memory)"},
       {"#fbeeb0", "#a08a20", "statement indices fused into one instruction index"},
       {"white", style::kMuted, "dashed: a loop around the instruction, or a unit extent"},
       {style::kRejectedFill, style::kRejected, "rejected instruction and why"}});
  style::addLegend(g, legend);
  return g.str();
}

} // namespace isam::viz
