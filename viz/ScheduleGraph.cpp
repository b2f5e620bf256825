#include "viz/ScheduleGraph.h"

#include "schedule/CostModel.h"
#include "schedule/Geometry.h"
#include "source/Quantities.h"
#include "viz/HardwareGraph.h"
#include "viz/KernelGraph.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace isam::viz {

namespace {

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t d = 0; d < shape.size(); ++d)
    out += (d ? ", " : "") + std::to_string(shape[d]);
  return out + "]";
}

std::string percent(double x) {
  return number(x * 100, x < 0.1 ? 1 : 0) + "%";
}

// Whether a Config is consistent enough to draw (the schedule IR is a plain value: a picture
// never trusts it blindly).
bool drawable(const ir::Kernel &k, const hw::Target &t, const schedule::StatementSchedule &ss) {
  const auto &c = ss.config;
  if (c.statement >= k.statements.size())
    return false;
  if (c.mapping < 0)
    return true;
  if (c.instruction < 0 || size_t(c.instruction) >= t.instructions.size() ||
      c.tiles.size() != c.levels.size() || c.order.size() != c.levels.size() || c.levels.empty())
    return false;
  for (const auto &row : c.tiles)
    if (row.size() != c.vindices.size())
      return false;
  for (const auto &row : c.order)
    for (int v : row)
      if (v < 0 || size_t(v) >= c.vindices.size())
        return false;
  for (const auto &p : c.operands) {
    if (p.staged.size() != c.levels.size() || p.staging.size() != c.levels.size())
      return false;
    for (const auto &step : p.staging)
      if ((step.kind == schedule::Staging::Kind::Move ||
           step.kind == schedule::Staging::Kind::PackThenMove) &&
          (step.move < 0 || size_t(step.move) >= t.instructions.size()))
        return false;
    for (int l : p.path)
      if (l < 0 || size_t(l) >= c.levels.size())
        return false;
    if (p.tensor >= 0 && size_t(p.tensor) >= k.tensors.size())
      return false;
  }
  return true;
}

} // namespace

Traffic operandTraffic(const ir::Kernel &k, const schedule::StatementSchedule &ss, size_t operand,
                       size_t level) {
  const auto &c = ss.config;
  if (operand >= c.operands.size() || level >= c.levels.size() ||
      c.statement >= k.statements.size())
    return {};
  return schedule::operandTraffic(k, c, operand, level);
}

namespace {

struct ScheduleBuilder {
  Graph &g;
  const ir::Kernel &k;
  const hw::Target &t;
  const Options &o;

  // A memory's name; a picture never trusts an index blindly.
  std::string memoryName(int memory) const {
    return memory >= 0 && size_t(memory) < t.memories.size() ? t.memories[size_t(memory)].name
                                                             : "memory " + std::to_string(memory);
  }
  std::string boundText(const schedule::Cost &cost) const {
    bool known = true;
    if (cost.bound == schedule::Bound::Bandwidth)
      known = cost.boundAt >= 0 && size_t(cost.boundAt) < t.memories.size();
    if (cost.bound == schedule::Bound::UnitBandwidth)
      known = cost.boundAt < 0 || size_t(cost.boundAt) < t.units.size();
    return known ? schedule::boundText(cost, t) : "bandwidth";
  }

  void summary(Graph::Cluster in, const std::string &prefix, const schedule::StatementSchedule &ss,
               int boundMemory) {
    const auto &c = ss.config;
    const auto &cost = ss.cost;
    Table tab("BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\" "
              "COLOR=\"#999999\"");
    tab.row({{"<B>cost model</B>", "COLSPAN=\"4\" BGCOLOR=\"#eeeeee\""}});
    std::string head = number(std::round(cost.cycles)) + " cycles";
    if (c.mapping >= 0)
      head += ", " + percent(cost.utilization) + " of peak";
    tab.row({{html(head), "COLSPAN=\"4\" ALIGN=\"LEFT\""}});
    std::string bound = "bound: " + boundText(cost);
    if (cost.bound == schedule::Bound::Latency && cost.accumulators > 0)
      bound += " (" + std::to_string(cost.accumulators) + " independent accumulator" +
               (cost.accumulators == 1 ? "" : "s") + ")";
    tab.row({{"<FONT COLOR=\"" + std::string(style::kBound) + "\"><B>" +
                  html(sanitize(bound, o.maxLabelChars)) + "</B></FONT>",
              "COLSPAN=\"4\" ALIGN=\"LEFT\" BGCOLOR=\"" + std::string(style::kBoundFill) + "\""}});
    std::string extra;
    if (c.mapping >= 0)
      extra = "compute " + number(std::round(cost.computeCycles)) + " cycles";
    if (cost.registersUsed > 0)
      extra += (extra.empty() ? "" : "; ") + std::to_string(cost.registersUsed) + " registers";
    if (!ss.root.body.empty() && ss.root.body.front().kind == schedule::Node::Kind::Init)
      extra += (extra.empty() ? "" : "; ") + std::string("starts from the reduction's identity");
    if (!extra.empty())
      tab.row({{html(extra), "COLSPAN=\"4\" ALIGN=\"LEFT\""}});
    if (!cost.levels.empty()) {
      tab.row({{"<I>into</I>", ""},
               {"<I>bytes</I>", ""},
               {"<I>cycles</I>", ""},
               {"<I>working set</I>", ""}});
      for (const auto &lc : cost.levels) {
        bool hot = boundMemory >= 0 && lc.memory == boundMemory;
        std::string attrs = hot ? "BGCOLOR=\"" + std::string(style::kBoundFill) + "\"" : "";
        std::string ws = bytes(lc.footprintBytes);
        if (lc.capacityBytes > 0)
          ws += " of " + bytes(lc.capacityBytes);
        tab.row(
            {{html(sanitize(memoryName(lc.memory), o.maxLabelChars)), attrs + " ALIGN=\"LEFT\""},
             {html(bytes(lc.bytes)), attrs + " ALIGN=\"RIGHT\""},
             {html(number(std::round(lc.cycles))), attrs + " ALIGN=\"RIGHT\""},
             {html(ws), attrs + " ALIGN=\"RIGHT\""}});
      }
    }
    g.node(in, prefix + "summary",
           {{"shape", "plain"}, {"style", "solid"}, {"label", Value::Html(tab.str())}}, true);
  }

  // What bounds the cost model's estimate, as the picture marks it: a memory's bandwidth,
  // compute or latency, or moves that are not overlapped.
  struct BoundMarks {
    int memory = -1; // the memory whose bandwidth bounds it, if one does
    bool compute = false;
    bool moves = false;
  };

  static BoundMarks boundMarks(const schedule::Cost &cost) {
    BoundMarks marks;
    if (cost.bound == schedule::Bound::Bandwidth)
      marks.memory = cost.boundAt;
    marks.compute =
        cost.bound == schedule::Bound::Compute || cost.bound == schedule::Bound::Latency;
    marks.moves = cost.bound == schedule::Bound::MovesNotOverlapped;
    return marks;
  }

  // The statement's cluster, headed by its expression and domain.
  Graph::Cluster statementCluster(size_t statement) {
    const ir::Statement &stmt = k.statements[statement];
    std::string head =
        "<B>s" + std::to_string(statement) + "</B>: " +
        htmlParagraph(sanitize(statementExpression(stmt, k.tensors), o.maxLabelChars),
                      o.wrapWidth * 2);
    head += html("for " + sanitize(statementDomain(stmt), o.maxLabelChars));
    return g.cluster(Graph::kRoot, statementName(statement),
                     {{"label", Value::Html(head)},
                      {"style", "rounded"},
                      {"color", style::kInk},
                      {"penwidth", "1.2"}});
  }

  // The memory levels as nested clusters, outermost first, each with its tile and loops.
  std::vector<Graph::Cluster> levelClusters(Graph::Cluster statement, const std::string &prefix,
                                            const schedule::Config &c, const BoundMarks &bound) {
    std::vector<Graph::Cluster> clusters(c.levels.size());
    Graph::Cluster parent = statement;
    for (size_t level = 0; level < c.levels.size(); ++level) {
      const auto &lv = c.levels[level];
      int mem = lv.memory;
      bool okMem = mem >= 0 && size_t(mem) < t.memories.size();
      int depth = okMem ? style::memoryDepth(t, mem) : int(level);
      bool hot = bound.memory >= 0 && lv.memory == bound.memory;
      std::string label = "<B>" + html(sanitize(lv.name, o.maxLabelChars)) + "</B>";
      if (lv.capacityBytes > 0)
        label += html(" " + bytes(double(lv.capacityBytes)));
      if (lv.softwareManaged)
        label += html(lv.registers ? ", registers" : ", software-managed");
      label += levelLoops(c, level);
      if (hot)
        label += "<BR ALIGN=\"LEFT\"/><FONT COLOR=\"" + std::string(style::kBound) +
                 "\"><B>bound: bandwidth into " + html(lv.name) + "</B></FONT>";
      label += "<BR ALIGN=\"LEFT\"/>";
      clusters[level] =
          g.cluster(parent, prefix + "level." + std::to_string(level),
                    {{"label", Value::Html(label)},
                     {"style", "rounded,filled"},
                     {"fillcolor", style::memoryFill(depth, lv.registers)},
                     {"color", hot ? style::kBound : style::memoryBorder(depth, lv.registers)},
                     {"penwidth", hot ? "3" : "1.2"},
                     {"fontsize", "10"}});
      parent = clusters[level];
    }
    return clusters;
  }

  // A level's tile (below the outermost) and the loops over it that take more than one trip.
  std::string levelLoops(const schedule::Config &c, size_t level) {
    std::string lines;
    if (level > 0) {
      std::string tile;
      for (size_t v = 0; v < c.vindices.size(); ++v)
        tile += (v ? " " : "") + c.vindices[v].name + "=" + std::to_string(c.tiles[level][v]);
      lines += "<BR ALIGN=\"LEFT\"/>" + html(sanitize("tile " + tile, o.maxLabelChars));
    }
    for (int v : c.order[level]) {
      int64_t step = schedule::stepOf(c, level, size_t(v));
      if (c.tiles[level][size_t(v)] <= step)
        continue;
      std::string loop = "for " + c.vindices[size_t(v)].name + " step " + std::to_string(step) +
                         " (" + std::to_string(schedule::tripsOf(c, level, size_t(v))) + " trips)";
      if (level == 0 && v == c.parallel)
        loop += ", parallel over " + countOf(t.cores, "core");
      lines += "<BR ALIGN=\"LEFT\"/>" + html(sanitize(loop, o.maxLabelChars));
    }
    return lines;
  }

  static std::string operandName(const hw::Instruction &in, const schedule::OperandPlacement &p) {
    return p.operand >= 0 && size_t(p.operand) < in.semantics.tensors.size()
               ? in.semantics.tensors[size_t(p.operand)].name
               : "op" + std::to_string(p.operand);
  }

  static std::string holderId(const std::string &prefix, const hw::Instruction &in,
                              const schedule::OperandPlacement &p, int level) {
    return prefix + "op." + operandName(in, p) + "." + std::to_string(level);
  }

  // Where the operand lives at each level of its path: the tensor at home, then a staged
  // buffer or a tile in a cache or registers.
  void operandHolders(const std::vector<Graph::Cluster> &levels, const std::string &prefix,
                      const schedule::StatementSchedule &ss, size_t operand,
                      const hw::Instruction &in) {
    const auto &c = ss.config;
    const ir::Statement &stmt = k.statements[c.statement];
    const auto &p = c.operands[operand];
    const ir::Tensor &tensor = k.tensors[size_t(p.tensor)];
    for (size_t j = 0; j < p.path.size(); ++j) {
      int level = p.path[j];
      const auto &lv = c.levels[size_t(level)];
      std::string id = holderId(prefix, in, p, level);
      const schedule::Buffer *buf = nullptr;
      for (const auto &b : ss.buffers)
        if (b.operand == int(operand) && b.level == level)
          buf = &b;
      auto shape = schedule::tileFootprint(stmt, p.access, c.vindices, c.tiles[size_t(level)]);
      Traffic tr = operandTraffic(k, ss, operand, size_t(level));
      int mem = lv.memory;
      int depth = mem >= 0 && size_t(mem) < t.memories.size() ? style::memoryDepth(t, mem) : level;
      std::string border = style::memoryBorder(depth, lv.registers);
      if (j == 0) {
        g.node(levels[size_t(level)], id,
               {{"shape", "cylinder"},
                {"style", "filled"},
                {"fillcolor", style::roleFill(tensor.role)},
                {"color", border},
                {"label", sanitize(tensor.name + ": " + tensorType(tensor) + "\nhome of " +
                                       operandName(in, p) + " = " +
                                       ir::printAccess(p.access, stmt, k.tensors),
                                   o.maxLabelChars)}});
      } else if (buf) {
        g.node(levels[size_t(level)], id,
               {{"shape", "box"},
                {"style", "filled"},
                {"fillcolor", "white"},
                {"color", border},
                {"penwidth", "2"},
                {"label", sanitize("buffer " + buf->name + " " + shapeText(buf->shape) + "\n" +
                                       bytes(tr.tileBytes) +
                                       (buf->doubleBuffered ? ", double-buffered" : ""),
                                   o.maxLabelChars)}});
      } else {
        g.node(levels[size_t(level)], id,
               {{"shape", "box"},
                {"style", "dashed,filled"},
                {"fillcolor", "white"},
                {"color", border},
                {"label",
                 sanitize(tensor.name + " tile " + shapeText(shape) + ", " + bytes(tr.tileBytes) +
                              "\n(" + (lv.registers ? "in registers" : "cached") + ")",
                          o.maxLabelChars)}});
      }
    }
  }

  // The operand's moves between consecutive levels of its path, with their traffic.
  void operandMoves(const std::string &prefix, const schedule::StatementSchedule &ss,
                    size_t operand, const hw::Instruction &in, const BoundMarks &bound) {
    const auto &c = ss.config;
    const auto &p = c.operands[operand];
    for (size_t j = 1; j < p.path.size(); ++j) {
      int level = p.path[j];
      const auto &lv = c.levels[size_t(level)];
      Traffic tr = operandTraffic(k, ss, operand, size_t(level));
      bool staged = p.staged[size_t(level)];
      std::string via = p.staging[size_t(level)].kind == schedule::Staging::Kind::None
                            ? (lv.registers ? "register loads" : "cache fills")
                            : "via " + schedule::stagingText(p.staging[size_t(level)], t);
      std::string label = via + "\n" + bytes(tr.tileBytes) + " per iteration x " +
                          number(tr.loads) + "\n= " + bytes(tr.totalBytes) + " total" +
                          (p.output ? " (in and out)" : "");
      bool hot = (bound.memory >= 0 && lv.memory == bound.memory) || (bound.moves && staged);
      g.edge(holderId(prefix, in, p, p.path[j - 1]), holderId(prefix, in, p, level),
             {{"label", sanitize(label, o.maxLabelChars)},
              {"color", hot      ? style::kBound
                        : staged ? style::kMove
                                 : style::kRead},
              {"fontcolor", hot      ? style::kBound
                            : staged ? style::kMove
                                     : style::kInk},
              {"style", staged ? "solid" : "dashed"},
              {"penwidth", hot      ? "2.5"
                           : staged ? "1.5"
                                    : "1"},
              {"dir", p.output ? "both" : "forward"}});
    }
  }

  // The instruction at the core: its lanes, calls and compute cycles, and its operands' edges.
  void instructionNode(Graph::Cluster innermost, const std::string &prefix,
                       const schedule::StatementSchedule &ss, const hw::Instruction &in,
                       const BoundMarks &bound) {
    const auto &c = ss.config;
    const auto &cost = ss.cost;
    std::string lanes;
    double calls = schedule::callCount(c);
    for (size_t v = 0; v < c.vindices.size(); ++v) {
      const auto &vindex = c.vindices[v];
      if (vindex.instrIndex >= 0)
        lanes += (lanes.empty() ? "" : ", ") + vindex.name + " x" +
                 (vindex.free ? std::string("R") : std::to_string(vindex.instrExtent));
    }
    std::string label = "<B>" + html(sanitize(in.name, o.maxLabelChars)) + "</B>";
    if (in.unit >= 0 && size_t(in.unit) < t.units.size())
      label += html(" on " + t.units[size_t(in.unit)].name);
    label += "<BR/>" + html(sanitize(lanes, o.maxLabelChars)) + "<BR/>" +
             html(number(calls) + (calls == 1 ? " call, " : " calls, ") +
                  number(std::round(cost.computeCycles)) + " compute cycles");
    if (bound.compute)
      label += "<BR/><FONT COLOR=\"" + std::string(style::kBound) +
               "\"><B>bound: " + html(boundText(cost)) + "</B></FONT>";
    g.node(innermost, prefix + "instr",
           {{"shape", "box"},
            {"style", "rounded,filled"},
            {"fillcolor", style::kInstructionFill},
            {"color", bound.compute ? style::kBound : "#4a7a3a"},
            {"penwidth", bound.compute ? "3" : "1.5"},
            {"label", Value::Html(label)}});
    for (const auto &p : c.operands) {
      if (p.tensor < 0 || p.path.empty())
        continue;
      g.edge(holderId(prefix, in, p, p.path.back()), prefix + "instr",
             {{"label", operandName(in, p)},
              {"dir", p.output ? "both" : "forward"},
              {"color", p.output ? style::kWrite : style::kRead},
              {"fontcolor", p.output ? style::kWrite : style::kInk}});
    }
  }

  void statement(const schedule::StatementSchedule &ss) {
    const auto &c = ss.config;
    std::string prefix = statementName(c.statement) + ".";
    Graph::Cluster cluster = statementCluster(c.statement);
    BoundMarks bound = boundMarks(ss.cost);
    if (c.mapping < 0 || c.levels.empty()) {
      g.node(cluster, prefix + "scalar",
             {{"shape", "box"},
              {"style", "filled"},
              {"fillcolor", style::kRejectedFill},
              {"color", style::kBound},
              {"penwidth", "2"},
              {"label",
               sanitize("no instruction runs it fully: scalar code over " +
                            std::to_string(k.statements[c.statement].pointCount()) + " points",
                        o.maxLabelChars)}});
      summary(cluster, prefix, ss, bound.memory);
      return;
    }
    std::vector<Graph::Cluster> levels = levelClusters(cluster, prefix, c, bound);
    const hw::Instruction &in = t.instructions[size_t(c.instruction)];
    for (size_t operand = 0; operand < c.operands.size(); ++operand) {
      const auto &p = c.operands[operand];
      if (p.tensor < 0 || p.path.empty())
        continue;
      operandHolders(levels, prefix, ss, operand, in);
      operandMoves(prefix, ss, operand, in, bound);
    }
    instructionNode(levels.back(), prefix, ss, in, bound);
    summary(cluster, prefix, ss, bound.memory);
  }
};

} // namespace

std::string scheduleGraph(const ir::Kernel &k, const hw::Target &t,
                          const schedule::KernelSchedule &ks, std::optional<size_t> statement,
                          const Options &o) {
  double total = 0;
  size_t drawnCount = 0;
  for (const auto &ss : ks.statements)
    if (!statement || ss.config.statement == *statement) {
      total += ss.cost.cycles;
      ++drawnCount;
    }
  std::string title = "schedule of " + k.name +
                      (statement ? " s" + std::to_string(*statement) : "") + " on " + t.name +
                      ": ~" + number(std::round(total)) + " cycles";
  Graph g = style::makeGraph("schedule " + k.name, title, o);
  ScheduleBuilder b{g, k, t, o};
  for (const auto &ss : ks.statements) {
    if (statement && ss.config.statement != *statement)
      continue;
    if (!drawable(k, t, ss)) {
      g.node(Graph::kRoot, statementName(ss.config.statement) + ".invalid",
             {{"shape", "note"}, {"label", "this schedule is inconsistent and is not drawn"}},
             true);
      continue;
    }
    b.statement(ss);
  }
  if (drawnCount == 0)
    g.node(Graph::kRoot, "empty",
           {{"shape", "note"},
            {"style", "filled"},
            {"fillcolor", style::kRejectedFill},
            {"label",
             k.statements.empty() ? "this kernel has no statements" : "no statement selected"}},
           true);
  auto legend = memoryLegend({&t});
  legend.push_back({"white", style::kInk, "solid box: a staged buffer; dashed: a tile in a cache"});
  legend.push_back({style::kInstructionFill, "#4a7a3a", "the instruction at the core"});
  legend.push_back({"", "", "blue edge: an explicit move; grey dashed: cache or register fills"});
  legend.push_back(
      {style::kBoundFill, style::kBound, "red: what bounds the cost model's estimate"});
  style::addLegend(g, legend);
  return g.str();
}

namespace {

// The picture of a partition: a cluster per unit of the system, each statement in the unit
// that runs it with the tensors it reads and writes there, and the transfers between units.
struct PartitionBuilder {
  Graph &graph;
  const ir::Kernel &kernel;
  const hw::System &system;
  const std::vector<hw::Target> &units;
  const Options &options;
  std::map<std::string, Graph::Cluster> clusterOf;

  bool isHost(const std::string &unit) const {
    return std::find(system.hosts.begin(), system.hosts.end(), unit) != system.hosts.end();
  }

  Graph::Cluster unitCluster(const std::string &unit) {
    if (auto it = clusterOf.find(unit); it != clusterOf.end())
      return it->second;
    std::string label = unit + (isHost(unit) ? " (host)" : " (device)");
    for (const auto &target : units)
      if (target.name == unit)
        label += ": " + std::to_string(target.cores) + " core" + (target.cores == 1 ? "" : "s") +
                 ", " + clockText(target.clockHz);
    Graph::Cluster cluster = graph.cluster(Graph::kRoot, "unit." + unit,
                                           {{"label", sanitize(label, options.maxLabelChars)},
                                            {"style", "rounded,filled"},
                                            {"fillcolor", isHost(unit) ? "#eef4fb" : "#f3eefa"},
                                            {"color", isHost(unit) ? "#3d7fbf" : "#7b5ca8"},
                                            {"penwidth", "1.5"}});
    clusterOf[unit] = cluster;
    return cluster;
  }

  // The tensor's node in the unit's cluster (one per unit that uses it); returns its id.
  std::string tensorAt(const std::string &unit, int tensorIndex) {
    const ir::Tensor &tensor = kernel.tensors[size_t(tensorIndex)];
    std::string id = unit + ".tensor." + tensor.name;
    graph.node(
        unitCluster(unit), id,
        {{"shape", "box"},
         {"style", "filled"},
         {"fillcolor", style::roleFill(tensor.role)},
         {"label", sanitize(tensor.name + ": " + tensorType(tensor), options.maxLabelChars)}});
    return id;
  }

  // The tensors a statement reads (its target too when it accumulates), each once.
  std::vector<int> inputsOf(const ir::Statement &stmt) const {
    std::vector<int> inputs;
    std::function<void(const ir::Expr &)> reads = [&](const ir::Expr &e) {
      if (e.kind == ir::Expr::Kind::Read && e.access.tensor >= 0 &&
          size_t(e.access.tensor) < kernel.tensors.size() &&
          std::find(inputs.begin(), inputs.end(), e.access.tensor) == inputs.end())
        inputs.push_back(e.access.tensor);
      for (const auto &arg : e.args)
        reads(arg);
    };
    reads(stmt.rhs);
    if (stmt.accumulates && stmt.lhs.tensor >= 0 &&
        std::find(inputs.begin(), inputs.end(), stmt.lhs.tensor) == inputs.end())
      inputs.push_back(stmt.lhs.tensor);
    return inputs;
  }

  void placement(const mapping::Placement &placed) {
    const ir::Statement &stmt = kernel.statements[placed.statement];
    std::string id = statementName(placed.statement);
    std::vector<int> inputs = inputsOf(stmt);
    std::vector<std::string> inputIds;
    for (int tensor : inputs)
      inputIds.push_back(tensorAt(placed.unit, tensor));
    std::string how = placed.instruction.empty() ? "scalar code" : placed.instruction;
    std::string able;
    for (const auto &unit : placed.ableUnits)
      able += (able.empty() ? "" : ", ") + unit;
    std::string label =
        "<B>" + html(id) + "</B>: " +
        htmlParagraph(sanitize(statementExpression(stmt, kernel.tensors), options.maxLabelChars),
                      options.wrapWidth) +
        html(how + ", ~" + number(placed.seconds * 1e6, 4) + " us") + "<BR ALIGN=\"LEFT\"/>" +
        "<FONT POINT-SIZE=\"8\" COLOR=\"#666666\">" +
        html(able.empty() ? "no unit runs it fully: the host runs it"
                          : "able: " + sanitize(able, options.maxLabelChars)) +
        "</FONT><BR ALIGN=\"LEFT\"/>";
    graph.node(unitCluster(placed.unit), id,
               {{"shape", "box"},
                {"style", "rounded,filled"},
                {"fillcolor", style::kStatementFill},
                {"label", Value::Html(label)}});
    for (const auto &inputId : inputIds)
      graph.edge(inputId, id, {{"color", style::kRead}});
    if (stmt.lhs.tensor >= 0 && size_t(stmt.lhs.tensor) < kernel.tensors.size())
      graph.edge(id, tensorAt(placed.unit, stmt.lhs.tensor),
                 {{"color", style::kWrite},
                  {"penwidth", "1.8"},
                  {"label", std::string(ir::reduceOpText(stmt.reduce))}});
  }

  void transfer(const mapping::Transfer &moved) {
    int tensor = kernel.tensorIndex(moved.tensor);
    if (tensor < 0)
      return;
    std::string from = tensorAt(moved.from, tensor), to = tensorAt(moved.to, tensor);
    std::string label = moved.tensor + ": " + bytes(double(moved.bytes)) +
                        (moved.sharedMemory ? "\nshared memory: no copy" : "\ncopied");
    graph.edge(from, to,
               {{"label", sanitize(label, options.maxLabelChars)},
                {"color", moved.sharedMemory ? "#7b5ca8" : style::kMove},
                {"fontcolor", moved.sharedMemory ? "#7b5ca8" : style::kMove},
                {"style", moved.sharedMemory ? "dashed" : "bold"},
                {"penwidth", "2"}});
  }

  // A unit that runs nothing still shows (an empty cluster would not be drawn).
  void markIdleUnits(const mapping::Partition &partition) {
    for (const auto &target : units) {
      bool used = false;
      for (const auto &placed : partition.placements)
        used = used || placed.unit == target.name;
      for (const auto &moved : partition.transfers)
        used = used || moved.from == target.name || moved.to == target.name;
      if (!used)
        graph.node(unitCluster(target.name), target.name + ".idle",
                   {{"shape", "plain"},
                    {"style", "solid"},
                    {"fontcolor", style::kMuted},
                    {"label", "runs no statement of this kernel"}},
                   true);
    }
  }
};

} // namespace

std::string partitionGraph(const ir::Kernel &k, const hw::System &sys,
                           const std::vector<hw::Target> &units, const mapping::Partition &p,
                           const Options &o) {
  double seconds = 0;
  for (const auto &placed : p.placements)
    seconds += placed.seconds;
  std::string title = "placement of " + k.name + " on system " + sys.name + ": ~" +
                      number(seconds * 1e6, 3) + " us";
  Graph g = style::makeGraph("partition " + k.name, title, o);
  PartitionBuilder builder{g, k, sys, units, o, {}};
  // Every unit gets its cluster, in the system's order, even when it runs nothing.
  for (const auto &target : units)
    builder.unitCluster(target.name);
  for (const auto &placed : p.placements)
    if (placed.statement < k.statements.size())
      builder.placement(placed);
  for (const auto &moved : p.transfers)
    builder.transfer(moved);
  builder.markIdleUnits(p);
  if (p.placements.empty())
    g.node(Graph::kRoot, "empty", {{"shape", "note"}, {"label", "this kernel has no statements"}},
           true);
  style::addLegend(g, {{"#eef4fb", "#3d7fbf", "host"},
                       {"#f3eefa", "#7b5ca8", "device"},
                       {style::kStatementFill, "", "statement placed on the unit, its instruction"},
                       {style::roleFill(ir::TensorRole::Input), "", "tensor where a unit uses it"},
                       {"", "", "bold blue edge: a transfer (copy)"},
                       {"", "", "dashed purple edge: shared memory, no copy"}});
  return g.str();
}

} // namespace isam::viz
