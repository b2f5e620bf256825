#include "schedule/Scheduler.h"

#include "schedule/PointwiseCost.h"

#include <algorithm>

namespace isam::schedule {

namespace {

// Below this many cycles on one core a statement's scalar code runs on one thread: a parallel
// loop's fork and join cost a few microseconds.
constexpr double kParallelCycles = 1 << 15;

// Scalar code: the statement's loop nest over the outermost memory, with its longest-enough
// write index shared among the cores when the statement is large enough to be worth it.
StatementSchedule scalarSchedule(const ir::Kernel &kernel, const hw::Target &target,
                                 size_t statement) {
  StatementSchedule out;
  Config &c = out.config;
  c.statement = statement;
  c.mapping = -1;
  const ir::Statement &s = kernel.statements[statement];
  for (size_t i = 0; i < s.indices.size(); ++i) {
    VirtualIndex v;
    v.name = s.indices[i].name;
    v.stmtIndices = {int(i)};
    v.extent = s.indices[i].extent;
    v.reduction = s.indices[i].reduction;
    c.vindices.push_back(v);
  }
  for (size_t m = 0; m < target.memories.size() && c.levels.empty(); ++m)
    if (target.memories[m].parent < 0) {
      Level level;
      level.memory = int(m);
      level.name = target.memories[m].name;
      c.levels.push_back(level);
      c.tiles.push_back({});
      c.order.push_back({});
      for (size_t v = 0; v < c.vindices.size(); ++v) {
        c.tiles[0].push_back(c.vindices[v].extent);
        c.order[0].push_back(int(v));
      }
      c.doubleBuffered.push_back(false);
    }
  if (!c.levels.empty() && target.cores > 1 &&
      pointwiseCycles(kernel, target, statement, 1) >= kParallelCycles) {
    // The outermost write index with a couple of rows per core, else the longest one.
    auto extent = [&](int v) { return c.vindices[size_t(v)].extent; };
    for (size_t v = 0; v < c.vindices.size() && c.parallel < 0; ++v)
      if (!c.vindices[v].reduction && extent(int(v)) >= 2 * int64_t(target.cores))
        c.parallel = int(v);
    if (c.parallel < 0) {
      int longest = -1;
      for (size_t v = 0; v < c.vindices.size(); ++v)
        if (!c.vindices[v].reduction && extent(int(v)) > 1 &&
            (longest < 0 || extent(int(v)) > extent(longest)))
          longest = int(v);
      c.parallel = longest;
    }
  }
  out.root.kind = Node::Kind::Block;
  if (s.reduce != ir::ReduceOp::None && !s.accumulates) {
    Node init;
    init.kind = Node::Kind::Init;
    init.init = s.reduce;
    out.root.body.push_back(init);
  }
  Node scalar;
  scalar.kind = Node::Kind::Scalar;
  if (c.parallel >= 0) {
    Node loop;
    loop.kind = Node::Kind::Loop;
    loop.v = c.parallel;
    loop.level = 0;
    loop.step = 1;
    loop.parallel = true;
    loop.body.push_back(scalar);
    out.root.body.push_back(loop);
  } else {
    out.root.body.push_back(scalar);
  }
  out.cost.valid = true;
  out.cost.bound = Bound::ScalarCode;
  double cores = 1;
  if (c.parallel >= 0)
    cores = double(std::min<int64_t>(target.cores, c.vindices[size_t(c.parallel)].extent));
  out.cost.cycles = pointwiseCycles(kernel, target, statement, cores);
  out.cost.computeCycles = out.cost.cycles;
  return out;
}

// Whether a candidate accumulates (a reduction) into a result whose lanes, the instruction
// result's last dimension, run along a fused run of statement indices whose innermost extent
// is not a whole number of vectors: every register tile of it may wrap a row, and stays in
// memory (CostModel: accumulatorsInMemory). Where rows are whole vectors (a GRU's three gates
// side by side, 2560 columns each), tiles that divide a row stay in registers, and the model
// costs each tile as it is.
bool accumulatesOnWrappingLanes(const mapping::Candidate &cand, const ir::Statement &s,
                                const hw::Target &target) {
  const ir::Kernel &sem = target.instructions[size_t(cand.instruction)].semantics;
  if (sem.statements.empty())
    return false;
  const ir::Statement &I = sem.statements[0];
  if (I.reduce == ir::ReduceOp::None || I.lhs.indices.empty() ||
      I.lhs.indices.back().terms.size() != 1)
    return false;
  const std::string &lane = I.indices[size_t(I.lhs.indices.back().terms[0].first)].name;
  for (const auto &b : cand.bindings)
    if (b.instrIndex == lane)
      return b.stmtIndices.size() > 1 &&
             s.indices[size_t(b.stmtIndices.back())].extent % std::max<int64_t>(1, b.instrExtent) !=
                 0;
  return false;
}

// The mappings worth scheduling for statement `m`: full and non-degenerate, those of the
// pinned instruction if one is pinned (E0701 when it has none), best first but those with
// accumulators on wrapping fused lanes last, at most `considered` of them.
std::vector<int> mappingsToSearch(const mapping::StatementMappings &m, const Pins &pin,
                                  const SourceRange &pinRange, const ir::Statement &statement,
                                  const hw::Target &target, size_t considered,
                                  DiagnosticSink &diags) {
  std::vector<int> choices;
  bool laneReducedSkipped = false;
  for (size_t c = 0; c < m.candidates.size(); ++c) {
    const auto &cand = m.candidates[c];
    if (!mapping::schedulable(cand))
      continue;
    if (!pin.instruction.empty() &&
        target.instructions[size_t(cand.instruction)].name != pin.instruction)
      continue;
    // A lane-reduced result's register tile of lanes, folded at write-back, is native code's
    // (backends/llvm); the accelerator emitter has no op for it.
    if (cand.laneReduced >= 0 && target.triple.empty()) {
      laneReducedSkipped = true;
      continue;
    }
    choices.push_back(int(c));
  }
  if (!pin.instruction.empty() && choices.empty()) {
    std::string reason;
    for (const auto &r : m.rejected)
      if (target.instructions[size_t(r.instruction)].name == pin.instruction)
        reason = r.reason;
    if (reason.empty() && laneReducedSkipped)
      reason = "its only mappings reduce across lanes, which accelerators do not run yet";
    diags.error("E0701", pinRange,
                "the pinned instruction '" + pin.instruction + "' cannot run statement s" +
                    std::to_string(m.index) + (reason.empty() ? "" : ": " + reason));
  }
  // Accumulators on fused lanes that wrap rows are kept in memory, whatever the mapper
  // ranked them: the other mappings go first, so that the few considered include a
  // register-resident one (on MobileNet's 56 x 56 pointwise GEMM, w on the lanes ranked
  // fifth, behind h*w and f, and ran 1.5x faster than both).
  std::stable_partition(choices.begin(), choices.end(), [&](int c) {
    return !accumulatesOnWrappingLanes(m.candidates[size_t(c)], statement, target);
  });
  if (choices.size() > considered)
    choices.resize(considered);
  return choices;
}

} // namespace

KernelSchedule scheduleKernel(const ir::Kernel &kernel, const hw::Target &target,
                              const std::vector<mapping::StatementMappings> &mappings,
                              const StatementPins &pins, const ScheduleOptions &options,
                              DiagnosticSink &diags) {
  KernelSchedule out;
  out.kernel = kernel.name;
  out.target = target.name;
  auto strategy = makeStrategy(options.search);
  for (const auto &m : mappings) {
    Pins pin;
    SourceRange pinRange;
    if (auto it = pins.find(m.index); it != pins.end())
      std::tie(pin, pinRange) = it->second;
    const ir::Statement &statement = kernel.statements[m.index];
    std::vector<int> choices =
        mappingsToSearch(m, pin, pinRange, statement, target, options.mappingsConsidered, diags);
    SearchResult best;
    Budget share = options.budget;
    if (!choices.empty()) {
      share.candidates = std::max<size_t>(1, share.candidates / choices.size());
      share.milliseconds /= double(choices.size());
    }
    AnalyticalModel model(kernel, target, m);
    std::string invalid;
    // A pin may fit some of the mappings and not others: those it does not fit are skipped,
    // and it is an error only when it fits none.
    std::vector<std::string> firstProblems;
    size_t fitting = 0;
    SearchReport report;
    report.strategy = strategy->name();
    report.covered = true;
    for (int c : choices) {
      Space space(kernel, target, m, c, pin);
      if (!space.pinProblems().empty()) {
        if (firstProblems.empty())
          firstProblems = space.pinProblems();
        continue;
      }
      ++fitting;
      SearchResult r = strategy->run(space, model, share, options.seed);
      ++report.mappings;
      report.evaluated += r.evaluated;
      report.spaceSize += space.size();
      report.covered = report.covered && r.covered;
      if (report.stop == SearchReport::Stop::None)
        report.stop = r.stop;
      if (!r.found && !r.lastInvalidReason.empty())
        invalid = r.lastInvalidReason;
      if (r.found && (!best.found || r.cost.score < best.cost.score))
        best = std::move(r);
    }
    if (fitting == 0)
      for (const auto &problem : firstProblems)
        diags.error("E0702", pinRange, "cannot use this schedule pin: " + problem);
    if (!best.found) {
      if (fitting > 0 && pinRange.valid())
        diags.error("E0703", pinRange,
                    "no schedule satisfies the pinned decisions for s" + std::to_string(m.index) +
                        (invalid.empty() ? "" : ": " + invalid));
      out.statements.push_back(scalarSchedule(kernel, target, m.index));
      continue;
    }
    // An exhaustive search that a budget stopped has seen a corner of the space (an odometer
    // over the knobs), and its pick can be far worse than a beam's: say so.
    if (options.search == "exhaustive" && !report.covered)
      diags.warning("W0706", m.range,
                    "the exhaustive schedule search of s" + std::to_string(m.index) + " on " +
                        target.name + " costed " + std::to_string(report.evaluated) + " of " +
                        formatCount(report.spaceSize) + " candidate schedules before its " +
                        (report.stop == SearchReport::Stop::Time ? "time" : "candidate") +
                        " budget ran out: its pick is the best of those only (use --search beam, "
                        "or raise --budget-candidates and --budget-ms)");
    out.statements.push_back(lower(kernel, target, m, best.config, best.cost));
    out.statements.back().search = report;
  }
  return out;
}

std::string pinText(const Config &config, const hw::Target &target) {
  auto nameable = [&](int v) { return config.vindices[v].name.find('*') == std::string::npos; };
  std::string out = "schedule {";
  auto item = [&](const std::string &text) {
    out += "\n  ";
    out += text;
  };
  if (config.mapping >= 0)
    item("map " + target.instructions[size_t(config.instruction)].name + ";");
  for (size_t l = 1; l < config.levels.size(); ++l) {
    std::string tiles;
    for (size_t v = 0; v < config.vindices.size(); ++v)
      if (nameable(int(v)))
        tiles += (tiles.empty() ? "" : ", ") + config.vindices[v].name + " " +
                 std::to_string(config.tiles[l][v]);
    if (!tiles.empty())
      item("tile " + config.levels[l].name + ": " + tiles + ";");
  }
  for (size_t l = 0; l < config.levels.size(); ++l) {
    std::string order;
    bool all = true;
    for (int v : config.order[l]) {
      all = all && nameable(v);
      order += (order.empty() ? "" : ", ") + config.vindices[v].name;
    }
    if (all && !order.empty())
      item("order " + config.levels[l].name + ": " + order + ";");
  }
  if (config.parallel >= 0 && nameable(config.parallel))
    item("parallel: " + config.vindices[config.parallel].name + ";");
  out += "\n}";
  return out;
}

} // namespace isam::schedule
