#include "schedule/Scheduler.h"
#include "source/Quantities.h"

#include "schedule/PointwiseCost.h"

#include <algorithm>
#include <optional>
#include <set>

namespace isam::schedule {

namespace {

// Below this many cycles on one core a statement's scalar code runs on one thread: a parallel
// loop's fork and join cost a few microseconds.
constexpr double kParallelCycles = 1 << 15;

// The write index a `parallel` pin names in scalar code's loop nest, or -1 and why it cannot
// run in parallel.
int scalarParallelIndex(const ir::Statement &s, const hw::Target &target, const std::string &name,
                        std::string &why) {
  for (size_t i = 0; i < s.indices.size(); ++i) {
    if (s.indices[i].name != name)
      continue;
    if (s.indices[i].reduction)
      why = "it is a reduction";
    else if (target.cores <= 1 && target.triple.empty())
      why = "the target has one core and no threads";
    else if (s.indices[i].extent <= 1)
      why = "its loop has a single trip";
    else
      return int(i);
    return -1;
  }
  why = "it is not an index of the statement";
  return -1;
}

// Scalar code: the statement's loop nest over the outermost memory, with the pinned write index
// (`pinnedParallel`, -1 for none), else its longest-enough one when the statement is large
// enough to be worth it, shared among the cores.
StatementSchedule scalarSchedule(const ir::Kernel &kernel, const hw::Target &target,
                                 size_t statement, int pinnedParallel) {
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
  if (!c.levels.empty() && pinnedParallel >= 0) {
    c.parallel = pinnedParallel;
  } else if (!c.levels.empty() && target.cores > 1 &&
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

// Scalar code for a statement no mapping runs, over the pinned parallel index where there is
// one; where it cannot run in parallel, E0702 at the pin into `diags` (null: the pin's error
// was reported already).
StatementSchedule scalarPinned(const ir::Kernel &kernel, const hw::Target &target, size_t statement,
                               const Pins &pin, const SourceRange &pinRange,
                               DiagnosticSink *diags) {
  int parallel = -1;
  if (!pin.parallel.empty()) {
    std::string why;
    parallel = scalarParallelIndex(kernel.statements[statement], target, pin.parallel, why);
    if (parallel < 0 && diags)
      diags->error("E0702", pinRange,
                   "cannot use this schedule pin: cannot run '" + pin.parallel +
                       "' of scalar code in parallel: " + why);
  }
  return scalarSchedule(kernel, target, statement, parallel);
}

// The statement indices each instruction index of a mapping binds.
using Binding = std::vector<std::vector<int>>;
Binding bindingOf(const mapping::StatementMappings &m, int candidate) {
  Binding bound;
  for (const auto &b : m.candidates[size_t(candidate)].bindings)
    bound.push_back(b.stmtIndices);
  return bound;
}

// The distinct bindings of these candidates, in their order.
std::vector<Binding> bindingsOf(const mapping::StatementMappings &m,
                                const std::vector<int> &candidates) {
  std::vector<Binding> out;
  for (int c : candidates)
    if (std::find(out.begin(), out.end(), bindingOf(m, c)) == out.end())
      out.push_back(bindingOf(m, c));
  return out;
}

// The mappings worth scheduling for statement `m`: full and non-degenerate, those of the
// pinned instruction if one is pinned (E0701 when it has none), best first, those of at most
// `considered` ways of binding the statement's indices: counting instructions instead, two that
// bind alike (fma16 and fma16_mem) filled the few places considered where a third binding ran
// faster (MobileNet's 7 x 7 pointwise GEMM: h*w on the lanes, behind f twice and k across
// lanes).
std::vector<int> mappingsToSearch(const mapping::StatementMappings &m, const Pins &pin,
                                  const SourceRange &pinRange, const hw::Target &target,
                                  size_t considered, DiagnosticSink &diags) {
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
  // The first `considered` ways of binding, best first, each with every instruction that binds
  // so: they compile alike, but the model costs each by what it names (fma16's broadcast into a
  // register against fma16_mem's element read with each call, which is what the code does where
  // the register tile uses each broadcast once).
  std::vector<Binding> bindings = bindingsOf(m, choices);
  if (bindings.size() > considered)
    bindings.resize(considered);
  std::vector<int> kept;
  for (const Binding &bound : bindings)
    for (int c : choices)
      if (bindingOf(m, c) == bound)
        kept.push_back(c);
  return kept;
}

// The analytical model, corrected by measurements when the options carry a correction.
std::unique_ptr<CostModel> modelFor(const ir::Kernel &kernel, const hw::Target &target,
                                    const mapping::StatementMappings &m,
                                    const ScheduleOptions &options) {
  if (options.correction.empty())
    return std::make_unique<AnalyticalModel>(kernel, target, m);
  return std::make_unique<CorrectedModel>(kernel, target, m, options.correction);
}

// The tuned choice's schedule, when its point still decodes to the decisions that were
// measured and the model accepts it.
std::optional<StatementSchedule> tunedSchedule(const ir::Kernel &kernel, const hw::Target &target,
                                               const mapping::StatementMappings &m, const Pins &pin,
                                               const TunedChoice &choice,
                                               const ScheduleOptions &options) {
  if (choice.mapping < 0 || size_t(choice.mapping) >= m.candidates.size() ||
      !mapping::schedulable(m.candidates[size_t(choice.mapping)]))
    return std::nullopt;
  Space space(kernel, target, m, choice.mapping, pin);
  if (!space.pinProblems().empty() || choice.point.size() != space.knobs().size())
    return std::nullopt;
  for (size_t k = 0; k < choice.point.size(); ++k)
    if (choice.point[k] >= space.knobs()[k].options)
      return std::nullopt;
  Config config = space.decode(choice.point);
  if (decisionText(config, target) != choice.decisions)
    return std::nullopt;
  Cost cost = modelFor(kernel, target, m, options)->evaluate(config);
  if (!cost.valid)
    return std::nullopt;
  config.doubleBuffered = cost.doubleBuffered;
  StatementSchedule out = lower(kernel, target, m, config, cost);
  out.point = choice.point;
  out.search.tuned = choice.note;
  return out;
}

// What searching one statement's mappings found.
struct StatementSearch {
  SearchResult best;
  SearchReport report;
  std::vector<Ranked> ranked; // over all mappings, cheapest first (ScheduleOptions::alternatives)
  std::string invalid;        // why the last rejected candidate was rejected
  size_t fitting = 0;         // mappings the pins fit
  std::vector<std::string> firstProblems; // what the pins asked that the first mapping lacks
};

StatementSearch searchStatement(const ir::Kernel &kernel, const hw::Target &target,
                                const mapping::StatementMappings &m, const Pins &pin,
                                const std::vector<int> &choices, const SearchStrategy &strategy,
                                const ScheduleOptions &options) {
  StatementSearch out;
  Budget share = options.budget;
  // A share per way of binding, for each instruction that binds so: fma16_mem beside fma16
  // must not halve the search of either.
  if (size_t ways = bindingsOf(m, choices).size(); ways > 0) {
    share.candidates = std::max<size_t>(1, share.candidates / ways);
    share.milliseconds /= double(ways);
  }
  // Many more than asked for, so that alternativesOf can spread them over register tiles.
  share.keep = options.alternatives > 0 ? options.alternatives * 16 + 1 : 0;
  std::unique_ptr<CostModel> model = modelFor(kernel, target, m, options);
  SearchReport &report = out.report;
  report.strategy = strategy.name();
  report.covered = true;
  report.correctedBy = options.correction.samples;
  // A pin may fit some of the mappings and not others: those it does not fit are skipped,
  // and it is an error only when it fits none.
  for (int c : choices) {
    Space space(kernel, target, m, c, pin);
    if (!space.pinProblems().empty()) {
      if (out.firstProblems.empty())
        out.firstProblems = space.pinProblems();
      continue;
    }
    ++out.fitting;
    SearchResult r = strategy.run(space, *model, share, options.seed);
    ++report.mappings;
    report.evaluated += r.evaluated;
    report.spaceSize += space.size();
    report.covered = report.covered && r.covered;
    if (report.stop == SearchReport::Stop::None)
      report.stop = r.stop;
    if (!r.found && !r.lastInvalidReason.empty())
      out.invalid = r.lastInvalidReason;
    out.ranked.insert(out.ranked.end(), r.ranked.begin(), r.ranked.end());
    if (r.found && (!out.best.found || r.cost.score < out.best.cost.score))
      out.best = std::move(r);
  }
  std::stable_sort(out.ranked.begin(), out.ranked.end(),
                   [](const Ranked &a, const Ranked &b) { return a.cost.score < b.cost.score; });
  return out;
}

// The `count` alternatives to `best`, cheapest first but spread: the cheapest of each other
// mapping and register tile first, then of each other first cache tile, then the rest by cost.
// The model's top few are often one register tile in several loop orders, which run alike;
// measuring them would tell the tuner little.
std::vector<StatementSchedule> alternativesOf(const ir::Kernel &kernel, const hw::Target &target,
                                              const mapping::StatementMappings &m,
                                              const std::vector<Ranked> &ranked,
                                              const SearchResult &best, size_t count) {
  auto key = [](const Config &c, size_t levels) {
    std::vector<int64_t> k{c.mapping};
    for (size_t l = c.tiles.size(); l-- > 0 && levels-- > 0;)
      k.insert(k.end(), c.tiles[l].begin(), c.tiles[l].end());
    return k;
  };
  std::vector<bool> taken(ranked.size(), false);
  std::vector<size_t> chosen;
  for (size_t levels : {size_t(1), size_t(2), size_t(-1)}) {
    std::set<std::vector<int64_t>> seen{key(best.config, levels)};
    for (size_t i : chosen)
      seen.insert(key(ranked[i].config, levels));
    for (size_t i = 0; i < ranked.size() && chosen.size() < count; ++i) {
      const Ranked &r = ranked[i];
      bool isBest = r.config.mapping == best.config.mapping && r.point == best.point;
      if (taken[i] || isBest ||
          (levels != size_t(-1) && !seen.insert(key(r.config, levels)).second))
        continue;
      taken[i] = true;
      chosen.push_back(i);
    }
  }
  std::sort(chosen.begin(), chosen.end());
  std::vector<StatementSchedule> out;
  for (size_t i : chosen) {
    Config config = ranked[i].config;
    config.doubleBuffered = ranked[i].cost.doubleBuffered;
    out.push_back(lower(kernel, target, m, config, ranked[i].cost));
    out.back().point = ranked[i].point;
  }
  return out;
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
    if (options.alternatives > 0)
      out.alternatives.resize(out.statements.size() + 1);
    if (auto t = options.tuned.find(m.index); t != options.tuned.end())
      if (auto tuned = tunedSchedule(kernel, target, m, pin, t->second, options)) {
        out.statements.push_back(std::move(*tuned));
        continue;
      }
    std::vector<int> choices =
        mappingsToSearch(m, pin, pinRange, target, options.mappingsConsidered, diags);
    StatementSearch found = searchStatement(kernel, target, m, pin, choices, *strategy, options);
    // Whether an error at the pin says already that these pins cannot be honoured.
    bool pinRejected = !pin.instruction.empty() && choices.empty();
    if (found.fitting == 0)
      for (const auto &problem : found.firstProblems) {
        diags.error("E0702", pinRange, "cannot use this schedule pin: " + problem);
        pinRejected = true;
      }
    if (!found.best.found) {
      if (found.fitting > 0 && pinRange.valid()) {
        diags.error("E0703", pinRange,
                    "no schedule satisfies the pinned decisions for s" + std::to_string(m.index) +
                        (found.invalid.empty() ? "" : ": " + found.invalid));
        pinRejected = true;
      }
      out.statements.push_back(
          scalarPinned(kernel, target, m.index, pin, pinRange, pinRejected ? nullptr : &diags));
      continue;
    }
    const SearchReport &report = found.report;
    // An exhaustive search that a budget stopped has seen a corner of the space (an odometer
    // over the knobs), and its pick can be far worse than a beam's: say so.
    if (options.search == "exhaustive" && !report.covered)
      diags.warning("W0706", m.range,
                    "the exhaustive schedule search of s" + std::to_string(m.index) + " on " +
                        target.name + " costed " + formatCount(int64_t(report.evaluated)) + " of " +
                        formatNumber(report.spaceSize) + " candidate schedules before its " +
                        (report.stop == SearchReport::Stop::Time ? "time" : "candidate") +
                        " budget ran out: its pick is the best of those only (use --search beam, "
                        "or raise --budget-candidates and --budget-ms)");
    out.statements.push_back(lower(kernel, target, m, found.best.config, found.best.cost));
    out.statements.back().point = found.best.point;
    out.statements.back().search = report;
    if (options.alternatives > 0)
      out.alternatives.back() =
          alternativesOf(kernel, target, m, found.ranked, found.best, options.alternatives);
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
