#include "viz/HardwareGraph.h"

#include "viz/KernelGraph.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace isam::viz {

std::string perCycleText(double perCycle) {
  if (perCycle > 0 && perCycle < 1) {
    double inv = 1 / perCycle;
    if (std::fabs(inv - std::round(inv)) < 1e-9)
      return "1/" + number(std::round(inv));
  }
  return number(perCycle, 3);
}

std::string bandwidthText(double bytesPerCycle) {
  return number(bytesPerCycle, 2) + " B/cycle";
}

std::string clockText(double hz) {
  if (hz >= 1e9)
    return number(hz / 1e9, 3) + " GHz";
  if (hz >= 1e6)
    return number(hz / 1e6, 3) + " MHz";
  return number(hz, 0) + " Hz";
}

std::vector<style::LegendEntry> memoryLegend(const std::vector<const hw::Target *> &targets) {
  std::map<int, std::vector<std::string>> byDepth;
  std::vector<std::string> registers;
  auto add = [](std::vector<std::string> &v, const std::string &n) {
    for (const auto &x : v)
      if (x == n)
        return;
    v.push_back(n);
  };
  for (const auto *t : targets)
    for (size_t m = 0; m < t->memories.size(); ++m) {
      if (t->memories[m].isRegisters)
        add(registers, t->memories[m].name);
      else
        add(byDepth[style::memoryDepth(*t, int(m))], t->memories[m].name);
    }
  std::vector<style::LegendEntry> out;
  auto names = [](const std::vector<std::string> &v) {
    std::string s;
    for (size_t i = 0; i < v.size() && i < 6; ++i)
      s += (i ? ", " : "") + v[i];
    if (v.size() > 6)
      s += ", ...";
    return s;
  };
  for (const auto &[depth, v] : byDepth)
    out.push_back({style::memoryFill(depth, false), style::memoryBorder(depth, false),
                   "memory level " + std::to_string(depth) + (depth == 0 ? " (outermost)" : "") +
                       ": " + names(v)});
  if (!registers.empty())
    out.push_back({style::memoryFill(0, true), style::memoryBorder(0, true),
                   "registers: " + names(registers)});
  return out;
}

namespace {

struct Builder {
  Graph &g;
  const Options &o;

  std::string memoryLabel(const hw::Target &t, const hw::Memory &m) {
    Table tab("BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"1\"");
    tab.row({{"<B>" + html(sanitize(m.name, o.maxLabelChars)) + "</B>" +
                  (m.isRegisters ? " registers" : ""),
              ""}});
    if (m.isRegisters)
      tab.row({{html(std::to_string(m.registerCount) + " x " + bytes(m.registerBytes) + " = " +
                     bytes(double(m.sizeBytes))),
                ""}});
    else if (m.sizeBytes > 0)
      tab.row({{html("size " + bytes(double(m.sizeBytes))), ""}});
    if (m.bandwidthBytesPerCycle > 0)
      tab.row({{html("feeds inner levels at " + bandwidthText(m.bandwidthBytesPerCycle)), ""}});
    if (m.latencyCycles > 0)
      tab.row({{html("latency " + number(m.latencyCycles) + " cycles"), ""}});
    std::string geometry;
    if (m.lineBytes > 0)
      geometry = "line " + bytes(m.lineBytes);
    if (m.banks > 1)
      geometry += (geometry.empty() ? "" : ", ") + std::to_string(m.banks) + " banks";
    if (!geometry.empty())
      tab.row({{html(geometry), ""}});
    return tab.str();
  }

  void memories(Graph::Cluster parent, const hw::Target &t, const std::string &prefix) {
    std::vector<Graph::Cluster> clusterOf(t.memories.size(), -1);
    std::set<size_t> placed;
    // Parents before children; a memory whose parent is missing (or in a cycle) is a root.
    auto valid = [&](int p) { return p >= 0 && size_t(p) < t.memories.size(); };
    for (size_t round = 0; round <= t.memories.size(); ++round)
      for (size_t m = 0; m < t.memories.size(); ++m) {
        if (placed.count(m))
          continue;
        int p = t.memories[m].parent;
        bool root = !valid(p) || round == t.memories.size();
        if (!root && !placed.count(size_t(p)))
          continue;
        Graph::Cluster in = root || clusterOf[size_t(p)] < 0 ? parent : clusterOf[size_t(p)];
        const hw::Memory &mem = t.memories[m];
        int depth = style::memoryDepth(t, int(m));
        std::string id = prefix + "mem." + mem.name;
        clusterOf[m] = g.cluster(in, id,
                                 {{"label", ""},
                                  {"style", "rounded,filled"},
                                  {"fillcolor", style::memoryFill(depth, mem.isRegisters)},
                                  {"color", style::memoryBorder(depth, mem.isRegisters)},
                                  {"penwidth", "1.2"}});
        g.node(clusterOf[m], id,
               {{"shape", mem.isRegisters ? "box3d" : "box"},
                {"style", "filled"},
                {"fillcolor", "white"},
                {"color", style::memoryBorder(depth, mem.isRegisters)},
                {"label", Value::Html(memoryLabel(t, mem))},
                {"tooltip", mem.name}});
        placed.insert(m);
      }
  }

  void units(Graph::Cluster parent, const hw::Target &t, const std::string &prefix) {
    Graph::Cluster c = g.cluster(parent, prefix + "units",
                                 {{"label", "compute units"},
                                  {"style", "rounded,filled"},
                                  {"fillcolor", "#f7faf3"},
                                  {"color", "#7a9a5a"},
                                  {"fontcolor", "#5a7a3a"},
                                  {"fontsize", "10"}});
    // Unit -1 collects instructions described without a unit.
    bool anyUnassigned = false;
    for (const auto &in : t.instructions)
      anyUnassigned = anyUnassigned || in.unit < 0 || size_t(in.unit) >= t.units.size();
    for (int u = anyUnassigned ? -1 : 0; u < int(t.units.size()); ++u) {
      std::string name = u < 0 ? "(no unit)" : t.units[size_t(u)].name;
      Table tab("BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"2\" "
                "COLOR=\"#9ab88a\"");
      std::string head = "<B>" + html(sanitize(name, o.maxLabelChars)) + "</B>";
      if (u >= 0)
        head += html(" x " + std::to_string(t.units[size_t(u)].count));
      tab.row({{head, "COLSPAN=\"3\" BGCOLOR=\"#dcebd2\""}});
      size_t listed = 0, more = 0;
      for (const auto &in : t.instructions) {
        bool mine = u < 0 ? in.unit < 0 || size_t(in.unit) >= t.units.size() : in.unit == u;
        if (!mine)
          continue;
        if (listed >= 40) {
          ++more;
          continue;
        }
        ++listed;
        std::string n = in.name;
        if (!in.sizeParams.empty()) {
          n += "<";
          for (size_t i = 0; i < in.sizeParams.size(); ++i)
            n += (i ? ", " : "") + in.sizeParams[i];
          n += ">";
        }
        std::string sem;
        if (!in.semantics.statements.empty())
          sem = statementExpression(in.semantics.statements[0], in.semantics.tensors);
        std::string cost = "lat " + number(in.cost.latencyCycles) + ", " +
                           perCycleText(in.cost.perCycle) + "/cycle";
        if (in.cost.bandwidthBytesPerCycle > 0)
          cost += ", " + bandwidthText(in.cost.bandwidthBytesPerCycle);
        tab.row({{(in.isMove ? "<I>" : "<B>") + html(sanitize(n, o.maxLabelChars)) +
                      (in.isMove ? "</I>" : "</B>"),
                  "ALIGN=\"LEFT\""},
                 {html(sanitize(sem, o.maxLabelChars)), "ALIGN=\"LEFT\""},
                 {html(cost), "ALIGN=\"LEFT\""}});
      }
      if (more > 0)
        tab.row({{html("... " + std::to_string(more) + " more"), "COLSPAN=\"3\""}});
      if (listed == 0)
        tab.row({{"<I>no instructions</I>", "COLSPAN=\"3\""}});
      g.node(c, prefix + "unit." + name,
             {{"shape", "plain"},
              {"style", "solid"},
              {"label", Value::Html(tab.str())},
              {"tooltip", name}});
    }
  }

  void edges(const hw::Target &t, const std::string &prefix) {
    auto memId = [&](const std::string &m) { return prefix + "mem." + m; };
    // The hierarchy: each memory to the levels inside it.
    for (const auto &m : t.memories) {
      if (m.parent < 0 || size_t(m.parent) >= t.memories.size())
        continue;
      g.edge(memId(t.memories[size_t(m.parent)].name), memId(m.name),
             {{"color", "#b0b0b0"}, {"arrowhead", "none"}});
    }
    // Moves between memories: one edge per pair, one line per move.
    std::map<std::pair<int, int>, std::vector<std::string>> moves; // (src, dst) memory
    for (const auto &in : t.instructions) {
      if (!in.isMove)
        continue;
      std::vector<int> src, dst;
      for (const auto &op : in.semantics.tensors) {
        int m = t.memoryIndex(op.memory);
        if (m < 0)
          continue;
        (op.role == ir::TensorRole::Input ? src : dst).push_back(m);
      }
      std::string line = in.name;
      if (!in.sizeParams.empty())
        line += "<" + in.sizeParams.front() + (in.sizeParams.size() > 1 ? ", ...>" : ">");
      line += ": ";
      if (in.cost.bandwidthBytesPerCycle > 0)
        line += bandwidthText(in.cost.bandwidthBytesPerCycle) + ", ";
      line += "latency " + number(in.cost.latencyCycles);
      for (int s : src)
        for (int d : dst)
          moves[{s, d}].push_back(line);
    }
    for (const auto &[key, lines] : moves) {
      std::string label;
      for (size_t i = 0; i < lines.size() && i < 12; ++i)
        label += (i ? "\n" : "") + lines[i];
      if (lines.size() > 12)
        label += "\n... " + std::to_string(lines.size() - 12) + " more";
      g.edge(memId(t.memories[size_t(key.first)].name), memId(t.memories[size_t(key.second)].name),
             {{"label", sanitize(label, o.maxLabelChars)},
              {"color", style::kMove},
              {"fontcolor", style::kMove},
              {"penwidth", "1.5"}});
    }
    // Units to the memories their (non-move) instructions use, deduplicated.
    std::map<std::pair<int, int>, std::vector<std::string>> reads, writes; // (unit, memory)
    for (const auto &in : t.instructions) {
      if (in.isMove)
        continue;
      int u = in.unit >= 0 && size_t(in.unit) < t.units.size() ? in.unit : -1;
      for (const auto &op : in.semantics.tensors) {
        int m = t.memoryIndex(op.memory);
        if (m < 0)
          continue;
        auto note = [&](std::vector<std::string> &list) {
          if (std::find(list.begin(), list.end(), in.name) == list.end())
            list.push_back(in.name);
        };
        if (op.role != ir::TensorRole::Output)
          note(reads[{u, m}]);
        if (op.role != ir::TensorRole::Input)
          note(writes[{u, m}]);
      }
    }
    auto unitId = [&](int u) {
      return prefix + "unit." + (u < 0 ? std::string("(no unit)") : t.units[size_t(u)].name);
    };
    auto names = [&](const std::vector<std::string> &v) {
      std::string s;
      for (size_t i = 0; i < v.size() && i < 4; ++i)
        s += (i ? ", " : "") + v[i];
      if (v.size() > 4)
        s += ", +" + std::to_string(v.size() - 4);
      return s;
    };
    // One edge per (unit, memory): towards the unit for reads, away for writes, both for both.
    for (const auto &[key, v] : reads) {
      auto w = writes.find(key);
      std::string tip = "read by " + names(v);
      if (w != writes.end())
        tip += "; written by " + names(w->second);
      g.edge(memId(t.memories[size_t(key.second)].name), unitId(key.first),
             {{"style", "dotted"},
              {"color", "#6a8a4a"},
              {"arrowhead", "open"},
              {"arrowtail", "open"},
              {"dir", w != writes.end() ? "both" : "forward"},
              {"tooltip", sanitize(tip, o.maxLabelChars)}});
    }
    for (const auto &[key, v] : writes)
      if (!reads.count(key))
        g.edge(unitId(key.first), memId(t.memories[size_t(key.second)].name),
               {{"style", "dotted"},
                {"color", "#6a8a4a"},
                {"arrowhead", "open"},
                {"tooltip", sanitize("written by " + names(v), o.maxLabelChars)}});
  }

  void target(Graph::Cluster parent, const hw::Target &t, const std::string &prefix) {
    memories(parent, t, prefix);
    units(parent, t, prefix);
    edges(t, prefix);
  }
};

std::string targetTitle(const hw::Target &t) {
  std::string title = "target " + t.name + ": " + std::to_string(t.cores) + " core" +
                      (t.cores == 1 ? "" : "s") + ", " + clockText(t.clockHz);
  if (!t.cpu.empty())
    title += ", llvm " + t.cpu;
  return title;
}

std::vector<style::LegendEntry> edgeLegend() {
  return {{"", "", "grey line: a memory to the levels inside it"},
          {"", "", "blue edge: moves (bandwidth, latency)"},
          {"", "", "dotted edge: memory an instruction reads or writes"},
          {"#dcebd2", "#9ab88a", "compute unit: instructions (bold) and moves (italic)"}};
}

} // namespace

std::string hardwareGraph(const hw::Target &t, const Options &o) {
  Graph g = style::makeGraph("target " + t.name, targetTitle(t), o);
  Builder b{g, o};
  b.target(Graph::kRoot, t, "");
  auto legend = memoryLegend({&t});
  for (auto &e : edgeLegend())
    legend.push_back(e);
  style::addLegend(g, legend);
  return g.str();
}

std::string systemGraph(const hw::System &s, const std::vector<hw::Target> &targets,
                        const Options &o) {
  Graph g = style::makeGraph("system " + s.name, "system " + s.name, o);
  Builder b{g, o};
  auto roleOf = [&](const std::string &name) {
    for (const auto &h : s.hosts)
      if (h == name)
        return "host";
    return "device";
  };
  std::vector<const hw::Target *> ptrs;
  for (const auto &t : targets) {
    ptrs.push_back(&t);
    Graph::Cluster c = g.cluster(
        Graph::kRoot, "target." + t.name,
        {{"label", sanitize(targetTitle(t) + " (" + roleOf(t.name) + ")", o.maxLabelChars)},
         {"style", "rounded"},
         {"color", style::kInk},
         {"penwidth", "1.5"}});
    b.target(c, t, t.name + ".");
  }
  auto memId = [](const hw::MemoryRef &r) { return r.target + ".mem." + r.memory; };
  for (const auto &group : s.shared)
    for (size_t i = 1; i < group.size(); ++i)
      g.edge(memId(group[i - 1]), memId(group[i]),
             {{"dir", "none"},
              {"style", "dashed"},
              {"penwidth", "2.5"},
              {"color", "#7b5ca8"},
              {"fontcolor", "#7b5ca8"},
              {"label", "shared (one memory)"},
              {"constraint", "false"}});
  for (const auto &l : s.links) {
    std::string label = "link";
    if (l.bandwidthBytesPerCycle > 0)
      label += "\n" + bandwidthText(l.bandwidthBytesPerCycle);
    if (l.latencyCycles > 0)
      label += ", latency " + number(l.latencyCycles);
    g.edge(memId(l.from), memId(l.to),
           {{"color", style::kMove},
            {"fontcolor", style::kMove},
            {"penwidth", "2"},
            {"label", sanitize(label, o.maxLabelChars)}});
  }
  auto legend = memoryLegend(ptrs);
  for (auto &e : edgeLegend())
    legend.push_back(e);
  legend.push_back({"", "", "purple dashed edge: memories the system shares"});
  style::addLegend(g, legend);
  return g.str();
}

} // namespace isam::viz
