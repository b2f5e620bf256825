// The scheduler: for each statement, searches over its best mappings and their tilings, loop
// orders and parallel loop for the cheapest schedule under the cost model, honouring what the
// user pinned in a `schedule` block, and lowers the winner to the schedule IR. A statement no
// instruction runs fully gets scalar code.
#pragma once

#include "diag/Diagnostic.h"
#include "schedule/Correction.h"
#include "schedule/CostModel.h"
#include "schedule/Search.h"
#include "schedule/Space.h"

namespace isam::schedule {

// A statement's schedule chosen by measurement (isamap tune), used instead of a search.
struct TunedChoice {
  int mapping = -1;          // index into the statement's mapping candidates
  std::vector<size_t> point; // a point of that mapping's Space (built with the statement's pins)
  std::string decisions;     // decisionText of what the point decoded to when it was measured
  std::string note;          // SearchReport::tuned
};

struct ScheduleOptions {
  std::string search = "beam";
  // Per statement, shared by the ways of binding it considers; each instruction that binds
  // alike (fma16, fma16_mem) is searched with its binding's share.
  Budget budget;
  uint64_t seed = 1;
  size_t mappingsConsidered = 3; // ways of binding the statement's indices
  size_t alternatives = 0;       // KernelSchedule::alternatives: at most this many per statement
  // By statement index. A choice whose point no longer decodes to its decisions (another
  // version of isamap, other pins) is ignored and the statement searched.
  std::map<size_t, TunedChoice> tuned;
  // Measurements of this machine fitted onto the analytical model (Correction.h); empty: the
  // model alone.
  Correction correction;
};

// Pins per statement index, read from the kernel's `schedule` blocks.
using StatementPins = std::map<size_t, std::pair<Pins, SourceRange>>;

KernelSchedule scheduleKernel(const ir::Kernel &kernel, const hw::Target &target,
                              const std::vector<mapping::StatementMappings> &mappings,
                              const StatementPins &pins, const ScheduleOptions &options,
                              DiagnosticSink &diags);

// The `schedule { ... }` block that pins `config`'s decisions, as a user would write it after
// the statement: `map`, the tiles of each level inside the outermost, the loop order of each
// level and the parallel loop. Decisions about fused indices (named `a*b`), which the language
// cannot name, are left to the search.
std::string pinText(const Config &config, const hw::Target &target);

} // namespace isam::schedule
