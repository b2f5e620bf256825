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

// How far an instruction index runs: its fixed extent, or the size parameter left open.
std::string instructionExtentText(const mapping::IndexBinding &binding) {
  if (binding.instrExtent != 0)
    return std::to_string(binding.instrExtent);
  // An extent of 0 means the instruction leaves it open: a size parameter, or any size at all.
  return binding.instrParam.empty() ? "free" : binding.instrParam;
}

std::string mappingTitle(const ir::Kernel &kernel, const mapping::StatementMappings &mappings,
                         const hw::Target &target, size_t candidate,
                         const mapping::Candidate *chosen) {
  std::string title =
      kernel.name + " " + statementName(mappings.index) + " on " + target.name + ": ";
  if (chosen)
    return title + "mapping #" + std::to_string(candidate + 1) + " of " +
           std::to_string(mappings.candidates.size()) + " (" +
           instructionName(target, chosen->instruction) + ")";
  if (mappings.candidates.empty())
    return title + "no instruction runs this statement";
  return title + "no mapping #" + std::to_string(candidate + 1) + " (there are " +
         std::to_string(mappings.candidates.size()) + ")";
}

// Draws one statement's mapping part by part. mappingGraph calls the parts in a fixed order:
// Graphviz places nodes in the order they are written, so reordering them changes the layout.
struct MappingBuilder {
  Graph &graph;
  const ir::Kernel &kernel;
  const mapping::StatementMappings &mappings;
  const hw::Target &target;
  const Options &options;
  const ir::Statement &statement;
  size_t candidate;
  // The candidate drawn, or null when there is none: the statement and rejections still are.
  const mapping::Candidate *chosen;
  // The chosen candidate's instruction, or null when its index is out of range.
  const hw::Instruction *instruction;
  std::string statementId = statementName(mappings.index);

  // Access nodes are shared: an operand bound to an access the statement already shows points
  // at that node, so the access cluster and the texts drawn so far are kept between parts.
  Graph::Cluster accessCluster = Graph::kRoot;
  std::vector<std::string> accessTexts{};

  std::string label(const std::string &text) const { return sanitize(text, options.maxLabelChars); }
  std::string paragraph(const std::string &text) const {
    return htmlParagraph(label(text), options.wrapWidth);
  }

  bool isLoop(int index) const {
    return chosen &&
           std::find(chosen->loops.begin(), chosen->loops.end(), index) != chosen->loops.end();
  }

  void statementIndexNode(Graph::Cluster in, int index) {
    const ir::Index &stmtIndex = statement.indices[size_t(index)];
    std::string text = stmtIndex.name + " < " + std::to_string(stmtIndex.extent);
    if (stmtIndex.reduction)
      text += "  (sum)";
    bool loop = isLoop(index);
    if (loop)
      text += "\nloop around the instruction";
    graph.node(in, "stmt." + stmtIndex.name,
               {{"label", label(text)},
                {"shape", "box"},
                {"style", loop ? "rounded,dashed,filled" : "rounded,filled"},
                {"fillcolor", "white"}});
  }

  // Indices fused into one instruction index go into a cluster of their own first, so an index
  // bound twice is still drawn once; the rest follow in the statement's order.
  void statementIndices(Graph::Cluster indices) {
    std::vector<bool> drawn(statement.indices.size(), false);
    if (chosen)
      for (const auto &binding : chosen->bindings) {
        if (binding.stmtIndices.size() < 2)
          continue;
        std::string fused = indexList(statement, binding.stmtIndices);
        Graph::Cluster fusedCluster =
            graph.cluster(indices, "fused." + binding.instrIndex,
                          {{"label", label("fused into " + binding.instrIndex + ": " + fused +
                                           " = " + std::to_string(binding.stmtExtent))},
                           {"style", "rounded,dashed,filled"},
                           {"fillcolor", "#fbeeb0"},
                           {"color", "#a08a20"},
                           {"fontsize", "9"}});
        for (int index : binding.stmtIndices)
          if (index >= 0 && size_t(index) < statement.indices.size() && !drawn[size_t(index)]) {
            statementIndexNode(fusedCluster, index);
            drawn[size_t(index)] = true;
          }
      }
    for (size_t index = 0; index < statement.indices.size(); ++index)
      if (!drawn[index])
        statementIndexNode(indices, int(index));
  }

  // The node id of the access printed as `text`, drawn on first use.
  std::string accessNode(const std::string &text, bool write, bool separate) {
    for (size_t drawnAt = 0; drawnAt < accessTexts.size(); ++drawnAt)
      if (accessTexts[drawnAt] == text)
        return "access." + std::to_string(drawnAt);
    accessTexts.push_back(text);
    std::string id = "access." + std::to_string(accessTexts.size() - 1);
    graph.node(
        accessCluster, id,
        {{"label", Value::Html(paragraph(text) + (separate ? "<I>computed separately</I>" : ""))},
         {"shape", "box"},
         {"style", separate ? "dashed,filled" : "filled"},
         {"fillcolor", write ? style::roleFill(ir::TensorRole::Output)
                             : style::roleFill(ir::TensorRole::Input)}});
    return id;
  }

  // The statement side: its indices (fused ones grouped) and its accesses, the write first and
  // then the distinct reads.
  void statementSide() {
    Graph::Cluster side = graph.cluster(
        Graph::kRoot, "statement",
        {{"label", Value::Html("<B>" + html(statementId) + "</B>: " +
                               paragraph(statementExpression(statement, kernel.tensors)))},
         {"style", "rounded,filled"},
         {"fillcolor", style::kStatementFill},
         {"color", "#c9b458"}});
    Graph::Cluster indices = graph.cluster(side, "statement.indices",
                                           {{"label", "statement indices"},
                                            {"style", "rounded"},
                                            {"color", "#c9b458"},
                                            {"fontsize", "9"}});
    accessCluster = graph.cluster(
        side, "statement.accesses",
        {{"label", "accesses"}, {"style", "rounded"}, {"color", "#c9b458"}, {"fontsize", "9"}});
    statementIndices(indices);
    accessNode(ir::printAccess(statement.lhs, statement, kernel.tensors), true, false);
    std::vector<const ir::Access *> reads;
    collectReads(statement.rhs, reads);
    for (const auto *read : reads)
      accessNode(ir::printAccess(*read, statement, kernel.tensors), false, false);
  }

  std::string instructionHeading() const {
    std::string head = "<B>" + html(label(instructionName(target, chosen->instruction))) + "</B>";
    if (instruction && instruction->unit >= 0 && size_t(instruction->unit) < target.units.size())
      head += html(" on " + target.units[size_t(instruction->unit)].name);
    if (instruction && !instruction->semantics.statements.empty())
      head += ": " + paragraph(statementExpression(instruction->semantics.statements[0],
                                                   instruction->semantics.tensors));
    return head;
  }

  // An instruction index bound to no statement index runs with extent 1: drawn muted and dashed.
  void instructionIndexNodes(Graph::Cluster indices) {
    for (const auto &binding : chosen->bindings) {
      std::string text = binding.instrIndex + " < " + instructionExtentText(binding);
      Attrs attrs = {{"shape", "box"}, {"style", "rounded,filled"}, {"fillcolor", "white"}};
      if (binding.stmtIndices.empty()) {
        text += "\nunit extent (degenerate)";
        attrs = {{"shape", "box"},
                 {"style", "rounded,dashed,filled"},
                 {"fillcolor", "white"},
                 {"color", style::kMuted},
                 {"fontcolor", style::kMuted}};
      }
      attrs.push_back({"label", label(text)});
      graph.node(indices, "instr." + binding.instrIndex, attrs);
    }
  }

  // Operands are coloured by the memory they live in, like the hardware picture.
  void operandNodes(Graph::Cluster operands) {
    for (const auto &operand : chosen->operands) {
      std::string type;
      if (instruction)
        for (const auto &tensor : instruction->semantics.tensors)
          if (tensor.name == operand.operand)
            type = tensorType(tensor);
      std::string text = operand.operand + ": " + ir::tensorRoleName(operand.role) + " " + type +
                         " in " + operand.memory;
      bool unused = operand.binding == "(unused)";
      int memory = target.memoryIndex(operand.memory);
      Attrs attrs = {
          {"label", label(text + (unused ? "\n(unused)" : ""))},
          {"shape", "box"},
          {"style", "filled"},
          {"fillcolor", memory >= 0 ? style::memoryFill(style::memoryDepth(target, memory),
                                                        target.memories[size_t(memory)].isRegisters)
                                    : "white"}};
      if (unused)
        attrs.push_back({"fontcolor", style::kMuted});
      graph.node(operands, "operand." + operand.operand, attrs);
    }
  }

  // One edge per statement index to the instruction index it is bound to; a fused group's label
  // goes on its first edge only, so it is not repeated.
  void bindingEdges() {
    for (const auto &binding : chosen->bindings) {
      std::string text =
          std::to_string(binding.stmtExtent) + " on " + instructionExtentText(binding);
      if (binding.remainder != mapping::Remainder::Exact)
        text += ", " + std::string(mapping::remainderName(binding.remainder));
      for (size_t position = 0; position < binding.stmtIndices.size(); ++position) {
        int index = binding.stmtIndices[position];
        if (index < 0 || size_t(index) >= statement.indices.size())
          continue;
        Attrs attrs = {{"color", "#a08a20"}, {"penwidth", "1.5"}};
        if (position == 0)
          attrs.push_back(
              {"label", label(binding.stmtIndices.size() > 1
                                  ? indexList(statement, binding.stmtIndices) + " = " + text
                                  : text)});
        graph.edge("stmt." + statement.indices[size_t(index)].name, "instr." + binding.instrIndex,
                   attrs);
      }
    }
  }

  // One edge per used operand from the access bound to it; arrows show the direction data
  // flows. An operand bound to an expression the statement does not read directly (computed
  // separately) gets an access node of its own.
  void operandEdges() {
    for (const auto &operand : chosen->operands) {
      if (operand.binding == "(unused)")
        continue;
      std::string access = accessNode(operand.binding, operand.role != ir::TensorRole::Input,
                                      operand.computedSeparately || operand.tensor < 0);
      std::string text = "in " + operand.memory;
      if (!operand.strides.empty()) {
        text += ", strides [";
        for (size_t dim = 0; dim < operand.strides.size(); ++dim) {
          // Appended piece by piece: GCC 12 reports a false -Wrestrict for "," + to_string here.
          if (dim)
            text += ",";
          text += std::to_string(operand.strides[dim]);
        }
        text += "]";
      }
      if (operand.needsPack)
        text += ", packed";
      for (const auto &move : operand.moves)
        text += "\nvia " + moveText(move, target);
      bool written = operand.role != ir::TensorRole::Input;
      graph.edge(access, "operand." + operand.operand,
                 {{"label", label(text)},
                  {"dir", operand.role == ir::TensorRole::InOut ? "both"
                          : written                             ? "back"
                                                                : "forward"},
                  {"color", written ? style::kWrite : style::kRead},
                  {"fontcolor", written ? style::kWrite : style::kInk}});
    }
  }

  // The instruction side (its indices and operands) and the edges that bind the two sides.
  void instructionSide() {
    Graph::Cluster side = graph.cluster(Graph::kRoot, "instruction",
                                        {{"label", Value::Html(instructionHeading())},
                                         {"style", "rounded,filled"},
                                         {"fillcolor", style::kInstructionFill},
                                         {"color", "#6a9a5a"}});
    Graph::Cluster indices = graph.cluster(side, "instruction.indices",
                                           {{"label", "instruction indices"},
                                            {"style", "rounded"},
                                            {"color", "#6a9a5a"},
                                            {"fontsize", "9"}});
    Graph::Cluster operands = graph.cluster(
        side, "instruction.operands",
        {{"label", "operands"}, {"style", "rounded"}, {"color", "#6a9a5a"}, {"fontsize", "9"}});
    instructionIndexNodes(indices);
    operandNodes(operands);
    bindingEdges();
    operandEdges();
  }

  // Stands in for the instruction side when no candidate is drawn.
  void unmappedNote() {
    graph.node(Graph::kRoot, "unmapped",
               {{"shape", "note"},
                {"style", "filled"},
                {"fillcolor", style::kRejectedFill},
                {"color", style::kMuted},
                {"label", label(mappings.candidates.empty()
                                    ? "no instruction of " + target.name +
                                          " runs this statement: it gets scalar code"
                                    : "there is no mapping #" + std::to_string(candidate + 1))}},
               true);
  }

  std::string candidateNotes() const {
    std::string notes;
    if (chosen->partial)
      notes += "partial: " + chosen->partialNote;
    if (chosen->degenerate)
      notes += std::string(notes.empty() ? "" : "; ") + "degenerate (a unit extent)";
    if (chosen->zeroInit)
      notes += std::string(notes.empty() ? "" : "; ") + "the accumulator is zeroed first";
    return notes;
  }

  void summary() {
    Table table("BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\" "
                "COLOR=\"#999999\"");
    table.row({{"<B>" + html(statementId + " on " + target.name) + "</B>",
                "COLSPAN=\"2\" BGCOLOR=\"#eeeeee\""}});
    table.row({{"domain", "ALIGN=\"LEFT\""},
               {html(label(statementDomain(statement))), "ALIGN=\"LEFT\""}});
    if (chosen) {
      table.row({{"bindings", "ALIGN=\"LEFT\""},
                 {html(label(bindingSummary(statement, *chosen))), "ALIGN=\"LEFT\""}});
      table.row({{"loops", "ALIGN=\"LEFT\""},
                 {html(chosen->loops.empty() ? "none" : label(indexList(statement, chosen->loops))),
                  "ALIGN=\"LEFT\""}});
      table.row({{"estimate", "ALIGN=\"LEFT\""}, {html(estimate(*chosen)), "ALIGN=\"LEFT\""}});
      std::string notes = candidateNotes();
      if (!notes.empty())
        table.row({{"notes", "ALIGN=\"LEFT\""}, {paragraph(notes), "ALIGN=\"LEFT\""}});
    }
    table.row({{"candidates", "ALIGN=\"LEFT\""},
               {html(std::to_string(mappings.candidates.size()) + " mappings, " +
                     std::to_string(mappings.rejected.size()) + " rejected" +
                     (mappings.budgetExhausted ? " (search budget exhausted)" : "")),
                "ALIGN=\"LEFT\""}});
    graph.node(Graph::kRoot, "summary",
               {{"shape", "plain"}, {"style", "solid"}, {"label", Value::Html(table.str())}}, true);
  }

  // The candidates not drawn, best first; only the first eight are listed so that a statement
  // with many mappings keeps a readable picture.
  void alternatives() {
    if (mappings.candidates.size() <= (chosen ? 1u : 0u))
      return;
    Table table("BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"2\"");
    size_t shown = 0;
    for (size_t other = 0; other < mappings.candidates.size(); ++other) {
      if (chosen && other == candidate)
        continue;
      if (shown == 8) {
        table.row(
            {{html("... " + std::to_string(mappings.candidates.size() - (chosen ? 1 : 0) - shown) +
                   " more"),
              "ALIGN=\"LEFT\" COLSPAN=\"3\""}});
        break;
      }
      ++shown;
      const auto &alternative = mappings.candidates[other];
      table.row({{html("#" + std::to_string(other + 1) + " " +
                       instructionName(target, alternative.instruction) +
                       (alternative.partial ? " [partial]" : "") +
                       (alternative.degenerate ? " [degenerate]" : "")),
                  "ALIGN=\"LEFT\""},
                 {html(label(bindingSummary(statement, alternative))), "ALIGN=\"LEFT\""},
                 {html(estimate(alternative)), "ALIGN=\"LEFT\""}});
    }
    Graph::Cluster cluster = graph.cluster(Graph::kRoot, "alternatives",
                                           {{"label", "other mappings"},
                                            {"style", "rounded"},
                                            {"color", style::kMuted},
                                            {"fontcolor", style::kMuted},
                                            {"fontsize", "10"}});
    graph.node(cluster, "alternatives",
               {{"shape", "plain"},
                {"style", "solid"},
                {"fontcolor", "#555555"},
                {"label", Value::Html(table.str())}});
  }

  // One greyed node per rejected instruction; an instruction rejected for several reasons shows
  // the first, since node ids must be unique.
  void rejections() {
    if (mappings.rejected.empty())
      return;
    Graph::Cluster cluster = graph.cluster(Graph::kRoot, "rejected",
                                           {{"label", "rejected instructions"},
                                            {"style", "rounded,filled"},
                                            {"fillcolor", "#fafafa"},
                                            {"color", style::kRejected},
                                            {"fontcolor", style::kMuted},
                                            {"fontsize", "10"}});
    std::vector<std::string> ids;
    for (const auto &rejection : mappings.rejected) {
      std::string name = instructionName(target, rejection.instruction);
      std::string id = "rejected." + name;
      if (std::find(ids.begin(), ids.end(), id) != ids.end())
        continue;
      ids.push_back(id);
      graph.node(cluster, id,
                 {{"shape", "box"},
                  {"style", "filled"},
                  {"fillcolor", style::kRejectedFill},
                  {"color", style::kRejected},
                  {"fontcolor", style::kMuted},
                  {"label", Value::Html("<B>" + html(label(name)) + "</B><BR ALIGN=\"LEFT\"/>" +
                                        paragraph(rejection.reason))}});
    }
  }
};

void addMappingLegend(Graph &graph, const hw::Target &target) {
  auto legend = memoryLegend({&target});
  legend.insert(
      legend.begin(),
      {{style::kStatementFill, "#c9b458", "statement side: indices and accesses"},
       {style::kInstructionFill, "#6a9a5a",
        "instruction side: indices and operands (coloured by memory)"},
       {"#fbeeb0", "#a08a20", "statement indices fused into one instruction index"},
       {"white", style::kMuted, "dashed: a loop around the instruction, or a unit extent"},
       {style::kRejectedFill, style::kRejected, "rejected instruction and why"}});
  style::addLegend(graph, legend);
}

} // namespace

std::string mappingGraph(const ir::Kernel &kernel, const mapping::StatementMappings &mappings,
                         const hw::Target &target, size_t candidate, const Options &options) {
  const bool valid = mappings.index < kernel.statements.size();
  const mapping::Candidate *chosen =
      valid && candidate < mappings.candidates.size() ? &mappings.candidates[candidate] : nullptr;
  Graph graph =
      style::makeGraph("mapping " + kernel.name + " " + statementName(mappings.index),
                       mappingTitle(kernel, mappings, target, candidate, chosen), options);
  if (!valid) {
    style::addLegend(graph, {});
    return graph.str();
  }
  const hw::Instruction *instruction =
      chosen && chosen->instruction >= 0 && size_t(chosen->instruction) < target.instructions.size()
          ? &target.instructions[size_t(chosen->instruction)]
          : nullptr;
  MappingBuilder builder{graph,     kernel,  mappings,
                         target,    options, kernel.statements[mappings.index],
                         candidate, chosen,  instruction};
  builder.statementSide();
  if (chosen)
    builder.instructionSide();
  else
    builder.unmappedNote();
  builder.summary();
  builder.alternatives();
  builder.rejections();
  addMappingLegend(graph, target);
  return graph.str();
}

} // namespace isam::viz
