#include "viz/ScheduleGraph.h"

#include "schedule/CostModel.h"
#include "schedule/Geometry.h"
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

  void statement(const schedule::StatementSchedule &ss) {
    const auto &c = ss.config;
    const ir::Statement &s = k.statements[c.statement];
    std::string prefix = statementName(c.statement) + ".";
    const auto &cost = ss.cost;
    std::string head = "<B>s" + std::to_string(c.statement) + "</B>: " +
                       htmlParagraph(sanitize(statementExpression(s, k.tensors), o.maxLabelChars),
                                     o.wrapWidth * 2);
    head += html("for " + sanitize(statementDomain(s), o.maxLabelChars));
    Graph::Cluster sc = g.cluster(Graph::kRoot, statementName(c.statement),
                                  {{"label", Value::Html(head)},
                                   {"style", "rounded"},
                                   {"color", style::kInk},
                                   {"penwidth", "1.2"}});
    // The bound: a memory's bandwidth, compute or latency, or moves that are not overlapped.
    int boundMemory = cost.bound == schedule::Bound::Bandwidth ? cost.boundAt : -1;
    bool computeBound =
        cost.bound == schedule::Bound::Compute || cost.bound == schedule::Bound::Latency;
    bool movesBound = cost.bound == schedule::Bound::MovesNotOverlapped;

    if (c.mapping < 0 || c.levels.empty()) {
      g.node(sc, prefix + "scalar",
             {{"shape", "box"},
              {"style", "filled"},
              {"fillcolor", style::kRejectedFill},
              {"color", style::kBound},
              {"penwidth", "2"},
              {"label", sanitize("no instruction runs it fully: scalar code over " +
                                     std::to_string(s.pointCount()) + " points",
                                 o.maxLabelChars)}});
      summary(sc, prefix, ss, boundMemory);
      return;
    }

    // Levels as nested clusters, with their tile and loops.
    std::vector<Graph::Cluster> lc(c.levels.size());
    Graph::Cluster parent = sc;
    for (size_t l = 0; l < c.levels.size(); ++l) {
      const auto &lv = c.levels[l];
      int mem = lv.memory;
      bool okMem = mem >= 0 && size_t(mem) < t.memories.size();
      int depth = okMem ? style::memoryDepth(t, mem) : int(l);
      bool hot = boundMemory >= 0 && lv.memory == boundMemory;
      std::string label = "<B>" + html(sanitize(lv.name, o.maxLabelChars)) + "</B>";
      if (lv.capacityBytes > 0)
        label += html(" " + bytes(double(lv.capacityBytes)));
      if (lv.softwareManaged)
        label += html(lv.registers ? ", registers" : ", software-managed");
      if (l > 0) {
        std::string tile;
        for (size_t v = 0; v < c.vindices.size(); ++v)
          tile += (v ? " " : "") + c.vindices[v].name + "=" + std::to_string(c.tiles[l][v]);
        label += "<BR ALIGN=\"LEFT\"/>" + html(sanitize("tile " + tile, o.maxLabelChars));
      }
      for (int v : c.order[l]) {
        int64_t step = schedule::stepOf(c, l, size_t(v));
        if (c.tiles[l][size_t(v)] <= step)
          continue;
        std::string loop = "for " + c.vindices[size_t(v)].name + " step " + std::to_string(step) +
                           " (" + std::to_string(schedule::tripsOf(c, l, size_t(v))) + " trips)";
        if (l == 0 && v == c.parallel)
          loop += ", parallel over " + std::to_string(t.cores) + " cores";
        label += "<BR ALIGN=\"LEFT\"/>" + html(sanitize(loop, o.maxLabelChars));
      }
      if (hot)
        label += "<BR ALIGN=\"LEFT\"/><FONT COLOR=\"" + std::string(style::kBound) +
                 "\"><B>bound: bandwidth into " + html(lv.name) + "</B></FONT>";
      label += "<BR ALIGN=\"LEFT\"/>";
      lc[l] = g.cluster(parent, prefix + "level." + std::to_string(l),
                        {{"label", Value::Html(label)},
                         {"style", "rounded,filled"},
                         {"fillcolor", style::memoryFill(depth, lv.registers)},
                         {"color", hot ? style::kBound : style::memoryBorder(depth, lv.registers)},
                         {"penwidth", hot ? "3" : "1.2"},
                         {"fontsize", "10"}});
      parent = lc[l];
    }

    // Operand tiles at every level of their path.
    const hw::Instruction &in = t.instructions[size_t(c.instruction)];
    auto opName = [&](const schedule::OperandPlacement &p) {
      return p.operand >= 0 && size_t(p.operand) < in.semantics.tensors.size()
                 ? in.semantics.tensors[size_t(p.operand)].name
                 : "op" + std::to_string(p.operand);
    };
    auto holderId = [&](const schedule::OperandPlacement &p, int l) {
      return prefix + "op." + opName(p) + "." + std::to_string(l);
    };
    for (size_t oi = 0; oi < c.operands.size(); ++oi) {
      const auto &p = c.operands[oi];
      if (p.tensor < 0 || p.path.empty())
        continue;
      const ir::Tensor &tensor = k.tensors[size_t(p.tensor)];
      for (size_t j = 0; j < p.path.size(); ++j) {
        int l = p.path[j];
        const auto &lv = c.levels[size_t(l)];
        std::string id = holderId(p, l);
        const schedule::Buffer *buf = nullptr;
        for (const auto &b : ss.buffers)
          if (b.operand == int(oi) && b.level == l)
            buf = &b;
        auto shape = schedule::tileFootprint(s, p.access, c.vindices, c.tiles[size_t(l)]);
        Traffic tr = operandTraffic(k, ss, oi, size_t(l));
        int mem = lv.memory;
        int depth = mem >= 0 && size_t(mem) < t.memories.size() ? style::memoryDepth(t, mem) : l;
        std::string border = style::memoryBorder(depth, lv.registers);
        if (j == 0) {
          g.node(
              lc[size_t(l)], id,
              {{"shape", "cylinder"},
               {"style", "filled"},
               {"fillcolor", style::roleFill(tensor.role)},
               {"color", border},
               {"label", sanitize(tensor.name + ": " + tensorType(tensor) + "\nhome of " +
                                      opName(p) + " = " + ir::printAccess(p.access, s, k.tensors),
                                  o.maxLabelChars)}});
        } else if (buf) {
          g.node(lc[size_t(l)], id,
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
          g.node(lc[size_t(l)], id,
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
      // Moves between consecutive levels of the path.
      for (size_t j = 1; j < p.path.size(); ++j) {
        int l = p.path[j];
        const auto &lv = c.levels[size_t(l)];
        Traffic tr = operandTraffic(k, ss, oi, size_t(l));
        bool staged = p.staged[size_t(l)];
        std::string via = p.staging[size_t(l)].kind == schedule::Staging::Kind::None
                              ? (lv.registers ? "register loads" : "cache fills")
                              : "via " + schedule::stagingText(p.staging[size_t(l)], t);
        std::string label = via + "\n" + bytes(tr.tileBytes) + " per iteration x " +
                            number(tr.loads) + "\n= " + bytes(tr.totalBytes) + " total" +
                            (p.output ? " (in and out)" : "");
        bool hot = (boundMemory >= 0 && lv.memory == boundMemory) || (movesBound && staged);
        g.edge(holderId(p, p.path[j - 1]), holderId(p, l),
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

    // The instruction at the core.
    std::string iv;
    double calls = schedule::callCount(c);
    size_t nl = c.levels.size();
    for (size_t v = 0; v < c.vindices.size(); ++v) {
      const auto &x = c.vindices[v];
      if (x.instrIndex >= 0)
        iv += (iv.empty() ? "" : ", ") + x.name + " x" +
              (x.free ? std::string("R") : std::to_string(x.instrExtent));
    }
    std::string label = "<B>" + html(sanitize(in.name, o.maxLabelChars)) + "</B>";
    if (in.unit >= 0 && size_t(in.unit) < t.units.size())
      label += html(" on " + t.units[size_t(in.unit)].name);
    label += "<BR/>" + html(sanitize(iv, o.maxLabelChars)) + "<BR/>" +
             html(number(calls) + (calls == 1 ? " call, " : " calls, ") +
                  number(std::round(cost.computeCycles)) + " compute cycles");
    if (computeBound)
      label += "<BR/><FONT COLOR=\"" + std::string(style::kBound) +
               "\"><B>bound: " + html(boundText(cost)) + "</B></FONT>";
    g.node(lc[nl - 1], prefix + "instr",
           {{"shape", "box"},
            {"style", "rounded,filled"},
            {"fillcolor", style::kInstructionFill},
            {"color", computeBound ? style::kBound : "#4a7a3a"},
            {"penwidth", computeBound ? "3" : "1.5"},
            {"label", Value::Html(label)}});
    for (const auto &p : c.operands) {
      if (p.tensor < 0 || p.path.empty())
        continue;
      g.edge(holderId(p, p.path.back()), prefix + "instr",
             {{"label", opName(p)},
              {"dir", p.output ? "both" : "forward"},
              {"color", p.output ? style::kWrite : style::kRead},
              {"fontcolor", p.output ? style::kWrite : style::kInk}});
    }
    summary(sc, prefix, ss, boundMemory);
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

std::string partitionGraph(const ir::Kernel &k, const hw::System &sys,
                           const std::vector<hw::Target> &units, const mapping::Partition &p,
                           const Options &o) {
  double seconds = 0;
  for (const auto &pl : p.placements)
    seconds += pl.seconds;
  std::string title = "placement of " + k.name + " on system " + sys.name + ": ~" +
                      number(seconds * 1e6, 3) + " us";
  Graph g = style::makeGraph("partition " + k.name, title, o);
  auto isHost = [&](const std::string &u) {
    return std::find(sys.hosts.begin(), sys.hosts.end(), u) != sys.hosts.end();
  };
  std::map<std::string, Graph::Cluster> clusterOf;
  auto unitCluster = [&](const std::string &u) {
    if (auto it = clusterOf.find(u); it != clusterOf.end())
      return it->second;
    std::string label = u + (isHost(u) ? " (host)" : " (device)");
    for (const auto &t : units)
      if (t.name == u)
        label += ": " + std::to_string(t.cores) + " core" + (t.cores == 1 ? "" : "s") + ", " +
                 clockText(t.clockHz);
    Graph::Cluster c = g.cluster(Graph::kRoot, "unit." + u,
                                 {{"label", sanitize(label, o.maxLabelChars)},
                                  {"style", "rounded,filled"},
                                  {"fillcolor", isHost(u) ? "#eef4fb" : "#f3eefa"},
                                  {"color", isHost(u) ? "#3d7fbf" : "#7b5ca8"},
                                  {"penwidth", "1.5"}});
    clusterOf[u] = c;
    return c;
  };
  // Every unit gets its cluster, in the system's order, even when it runs nothing.
  for (const auto &t : units)
    unitCluster(t.name);
  auto tensorAt = [&](const std::string &unit, int t) {
    const ir::Tensor &x = k.tensors[size_t(t)];
    std::string id = unit + ".tensor." + x.name;
    g.node(unitCluster(unit), id,
           {{"shape", "box"},
            {"style", "filled"},
            {"fillcolor", style::roleFill(x.role)},
            {"label", sanitize(x.name + ": " + tensorType(x), o.maxLabelChars)}});
    return id;
  };
  auto tensorIndex = [&](const std::string &name) { return k.tensorIndex(name); };

  std::function<void(const ir::Expr &, std::vector<int> &)> reads = [&](const ir::Expr &e,
                                                                        std::vector<int> &out) {
    if (e.kind == ir::Expr::Kind::Read && e.access.tensor >= 0 &&
        size_t(e.access.tensor) < k.tensors.size() &&
        std::find(out.begin(), out.end(), e.access.tensor) == out.end())
      out.push_back(e.access.tensor);
    for (const auto &a : e.args)
      reads(a, out);
  };
  for (const auto &pl : p.placements) {
    if (pl.statement >= k.statements.size())
      continue;
    const ir::Statement &s = k.statements[pl.statement];
    std::string sid = statementName(pl.statement);
    std::vector<int> in;
    reads(s.rhs, in);
    if (s.accumulates && s.lhs.tensor >= 0 &&
        std::find(in.begin(), in.end(), s.lhs.tensor) == in.end())
      in.push_back(s.lhs.tensor);
    std::vector<std::string> inIds;
    for (int t : in)
      inIds.push_back(tensorAt(pl.unit, t));
    std::string how = pl.instruction.empty() ? "scalar code" : pl.instruction;
    std::string able;
    for (const auto &u : pl.ableUnits)
      able += (able.empty() ? "" : ", ") + u;
    std::string label =
        "<B>" + html(sid) + "</B>: " +
        htmlParagraph(sanitize(statementExpression(s, k.tensors), o.maxLabelChars), o.wrapWidth) +
        html(how + ", ~" + number(pl.seconds * 1e6, 4) + " us") + "<BR ALIGN=\"LEFT\"/>" +
        "<FONT POINT-SIZE=\"8\" COLOR=\"#666666\">" +
        html(able.empty() ? "no unit runs it fully: the host runs it"
                          : "able: " + sanitize(able, o.maxLabelChars)) +
        "</FONT><BR ALIGN=\"LEFT\"/>";
    g.node(unitCluster(pl.unit), sid,
           {{"shape", "box"},
            {"style", "rounded,filled"},
            {"fillcolor", style::kStatementFill},
            {"label", Value::Html(label)}});
    for (size_t i = 0; i < in.size(); ++i)
      g.edge(inIds[i], sid, {{"color", style::kRead}});
    if (s.lhs.tensor >= 0 && size_t(s.lhs.tensor) < k.tensors.size())
      g.edge(sid, tensorAt(pl.unit, s.lhs.tensor),
             {{"color", style::kWrite},
              {"penwidth", "1.8"},
              {"label", std::string(ir::reduceOpText(s.reduce))}});
  }
  for (const auto &x : p.transfers) {
    int t = tensorIndex(x.tensor);
    if (t < 0)
      continue;
    std::string from = tensorAt(x.from, t), to = tensorAt(x.to, t);
    std::string label = x.tensor + ": " + bytes(double(x.bytes)) +
                        (x.sharedMemory ? "\nshared memory: no copy" : "\ncopied");
    g.edge(from, to,
           {{"label", sanitize(label, o.maxLabelChars)},
            {"color", x.sharedMemory ? "#7b5ca8" : style::kMove},
            {"fontcolor", x.sharedMemory ? "#7b5ca8" : style::kMove},
            {"style", x.sharedMemory ? "dashed" : "bold"},
            {"penwidth", "2"}});
  }
  // A unit that runs nothing still shows (an empty cluster would not be drawn).
  for (const auto &t : units) {
    bool used = false;
    for (const auto &pl : p.placements)
      used = used || pl.unit == t.name;
    for (const auto &x : p.transfers)
      used = used || x.from == t.name || x.to == t.name;
    if (!used)
      g.node(unitCluster(t.name), t.name + ".idle",
             {{"shape", "plain"},
              {"style", "solid"},
              {"fontcolor", style::kMuted},
              {"label", "runs no statement of this kernel"}},
             true);
  }
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
