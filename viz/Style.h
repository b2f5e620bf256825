// The look shared by every picture: fonts, left-to-right ranks, one colour per memory level
// (by its depth in the hierarchy, so DRAM looks the same in the hardware and schedule
// pictures), colours of tensor roles, the highlight of a cost model's bound, and the legend.
#pragma once

#include "hw/Hardware.h"
#include "ir/Compute.h"
#include "viz/Dot.h"

#include <string>
#include <vector>

namespace isam::viz {

// Options every picture takes.
struct Options {
  size_t maxNodes = Graph::kDefaultMaxNodes; // beyond it, one ellipsis node
  size_t maxLabelChars = 400;                // longer texts (expressions, reasons) are cut
  size_t wrapWidth = 60;                     // long texts wrap at this many characters
};

// "s3": the name of statement 3 in every picture.
std::string statementName(size_t index);

namespace style {

inline constexpr const char *kFont = "Helvetica";
inline constexpr const char *kInk = "#333333";
inline constexpr const char *kMuted = "#888888";
inline constexpr const char *kRejected = "#aaaaaa";
inline constexpr const char *kRejectedFill = "#f2f2f2";
inline constexpr const char *kBound = "#d62728"; // the cost model's limiting bound
inline constexpr const char *kBoundFill = "#fde4e4";
inline constexpr const char *kStatementFill = "#fff7d6";
inline constexpr const char *kInstructionFill = "#e3f1e0";
inline constexpr const char *kUnitFill = "#eef3e6";
inline constexpr const char *kRegistersFill = "#f6d6e8";
inline constexpr const char *kMove = "#1f5f99"; // move edges
inline constexpr const char *kRead = "#555555";
inline constexpr const char *kWrite = "#b35900";

// Fill of a memory level: by depth from the outermost level (0: DRAM-like), registers apart.
std::string memoryFill(int depth, bool registers);
// The border colour that goes with memoryFill.
std::string memoryBorder(int depth, bool registers);
int memoryDepth(const hw::Target &t, int memory);

std::string roleFill(ir::TensorRole role);

// A graph with the shared defaults: rankdir=LR, fonts, a title at the top.
Graph makeGraph(const std::string &name, const std::string &title, const Options &options);

struct LegendEntry {
  std::string fill;   // a swatch; empty for an edge or text entry
  std::string border; // swatch border (default kInk)
  std::string text;
};
// A "Legend" cluster holding one node (id "legend") with one row per entry.
void addLegend(Graph &g, const std::vector<LegendEntry> &entries);

} // namespace style

} // namespace isam::viz
