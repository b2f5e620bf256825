#include "viz/Style.h"

namespace isam::viz {

std::string statementName(size_t index) {
  std::string out = "s";
  out += std::to_string(index);
  return out;
}

} // namespace isam::viz

namespace isam::viz::style {

namespace {

// Light fills and matching borders, outermost level first (colour-blind-safe hues).
const char *kLevelFills[] = {"#fde3c8", "#fff2b3", "#d9f0d3", "#d4e6f7", "#e6dcf2", "#f0e0d0"};
const char *kLevelBorders[] = {"#c97a2c", "#b89a1e", "#4f9a43", "#3d7fbf", "#7b5ca8", "#8c6a4a"};
constexpr int kLevels = sizeof(kLevelFills) / sizeof(kLevelFills[0]);

} // namespace

std::string memoryFill(int depth, bool registers) {
  if (registers)
    return kRegistersFill;
  return kLevelFills[(depth < 0 ? 0 : depth) % kLevels];
}

std::string memoryBorder(int depth, bool registers) {
  if (registers)
    return "#b0417a";
  return kLevelBorders[(depth < 0 ? 0 : depth) % kLevels];
}

int memoryDepth(const hw::Target &t, int memory) {
  int d = 0;
  // Bounded by the number of memories: sema rejects cycles, but a picture never loops.
  for (int m = memory; m >= 0 && size_t(m) < t.memories.size() && t.memories[m].parent >= 0 &&
                       d <= int(t.memories.size());
       m = t.memories[m].parent)
    ++d;
  return d;
}

std::string roleFill(ir::TensorRole role) {
  switch (role) {
  case ir::TensorRole::Input:
    return "#dceaf7";
  case ir::TensorRole::Output:
    return "#fde0c8";
  case ir::TensorRole::InOut:
    return "#f3e0f0";
  case ir::TensorRole::Local:
    return "#eeeeee";
  }
  return "#ffffff";
}

Graph makeGraph(const std::string &name, const std::string &title, const Options &options) {
  Graph g(name, options.maxNodes);
  g.set("rankdir", "LR");
  g.set("newrank", "true");
  g.set("compound", "true");
  g.set("fontname", kFont);
  g.set("fontsize", "12");
  g.set("labelloc", "t");
  g.set("labeljust", "l");
  g.set("nodesep", "0.25");
  g.set("ranksep", "0.6");
  g.set("pad", "0.2");
  g.set("bgcolor", "white");
  g.set("label", Value::Html("<B>" + html(sanitize(title, options.maxLabelChars)) + "</B>"));
  g.nodeDefaults({{"fontname", kFont},
                  {"fontsize", "10"},
                  {"shape", "box"},
                  {"style", "rounded,filled"},
                  {"fillcolor", "white"},
                  {"color", kInk},
                  {"fontcolor", kInk},
                  {"margin", "0.08,0.04"}});
  g.edgeDefaults({{"fontname", kFont},
                  {"fontsize", "9"},
                  {"color", kRead},
                  {"fontcolor", kInk},
                  {"arrowsize", "0.7"}});
  return g;
}

void addLegend(Graph &g, const std::vector<LegendEntry> &entries) {
  Table t("BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"2\" CELLPADDING=\"2\"");
  for (const auto &e : entries) {
    std::string swatch;
    if (!e.fill.empty())
      swatch = "<TABLE BORDER=\"1\" CELLBORDER=\"0\" CELLPADDING=\"0\" COLOR=\"" +
               (e.border.empty() ? std::string(kInk) : e.border) + "\"><TR><TD BGCOLOR=\"" +
               e.fill + "\" WIDTH=\"18\" HEIGHT=\"10\"></TD></TR></TABLE>";
    t.row({{swatch, "WIDTH=\"22\""}, {html(e.text), "ALIGN=\"LEFT\""}});
  }
  Graph::Cluster c = g.cluster(Graph::kRoot, "legend",
                               {{"label", "Legend"},
                                {"style", "rounded,dashed"},
                                {"color", kMuted},
                                {"fontsize", "10"},
                                {"fontcolor", kMuted}});
  g.node(c, "legend", {{"shape", "plain"}, {"style", "solid"}, {"label", Value::Html(t.str())}},
         /*essential=*/true);
}

} // namespace isam::viz::style
