// A hardware description as an architecture graph: memories as clusters nested by parent (size,
// bandwidth, latency, line, banks), register files, compute units with the instructions and
// moves they run listed on them, moves as edges between memories (bandwidth, latency), and
// dotted edges between units and the memories their instructions read or write. A system draws
// each of its targets so, with shared memories and links between them.
//
// Node ids: "mem.NAME" and "unit.NAME" (in a system, prefixed by "TARGET.").
#pragma once

#include "hw/Hardware.h"
#include "viz/Style.h"

#include <string>
#include <vector>

namespace isam::viz {

std::string hardwareGraph(const hw::Target &target, const Options &options = {});

// `targets` are the system's hosts and devices (those that could be built).
std::string systemGraph(const hw::System &system, const std::vector<hw::Target> &targets,
                        const Options &options = {});

// Shared with the other pictures.
std::string perCycleText(double perCycle);       // "1", "1/16", "0.3"
std::string bandwidthText(double bytesPerCycle); // "32 B/cycle"
std::string clockText(double hz);                // "3.6 GHz"
// One row per memory depth and register file present, as the hardware picture colours them.
std::vector<style::LegendEntry> memoryLegend(const std::vector<const hw::Target *> &targets);

} // namespace isam::viz
