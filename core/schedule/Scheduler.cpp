#include "schedule/Scheduler.h"

namespace isam::schedule {

namespace {

StatementSchedule scalarSchedule(const ir::Kernel &kernel, size_t statement) {
  StatementSchedule out;
  out.config.statement = statement;
  out.config.mapping = -1;
  const ir::Statement &s = kernel.statements[statement];
  for (size_t i = 0; i < s.indices.size(); ++i) {
    VirtualIndex v;
    v.name = s.indices[i].name;
    v.stmtIndices = {int(i)};
    v.extent = s.indices[i].extent;
    v.reduction = s.indices[i].reduction;
    out.config.vindices.push_back(v);
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
  out.root.body.push_back(scalar);
  out.cost.valid = true;
  out.cost.bound = "scalar code";
  out.cost.cycles = double(s.pointCount());
  out.cost.computeCycles = out.cost.cycles;
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
    // The mappings worth scheduling: full and non-degenerate, best first.
    std::vector<int> choices;
    for (size_t c = 0; c < m.candidates.size(); ++c) {
      const auto &cand = m.candidates[c];
      if (cand.partial || cand.degenerate)
        continue;
      if (!pin.instruction.empty() && cand.instruction != pin.instruction)
        continue;
      choices.push_back(int(c));
    }
    if (!pin.instruction.empty() && choices.empty()) {
      std::string reason;
      for (const auto &r : m.rejected)
        if (r.instruction == pin.instruction)
          reason = r.reason;
      diags.error("E0701", pinRange,
                  "the pinned instruction '" + pin.instruction + "' cannot run statement s" +
                      std::to_string(m.index) + (reason.empty() ? "" : ": " + reason));
    }
    if (choices.size() > options.mappingsConsidered)
      choices.resize(options.mappingsConsidered);
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
    for (int c : choices) {
      Space space(kernel, target, m, c, pin);
      if (!space.pinProblems().empty()) {
        if (firstProblems.empty())
          firstProblems = space.pinProblems();
        continue;
      }
      ++fitting;
      SearchResult r = strategy->run(space, model, share, options.seed);
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
      out.statements.push_back(scalarSchedule(kernel, m.index));
      continue;
    }
    out.statements.push_back(lower(kernel, target, m, best.config, best.cost));
  }
  return out;
}

} // namespace isam::schedule
