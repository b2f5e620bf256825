#include "report/Json.h"

namespace isam::report {

std::optional<FileRange> fileRange(const SourceManager &sm, SourceRange r) {
  if (!r.valid())
    return std::nullopt;
  return FileRange{sm.path(r.file), sm.lineColumn(r.file, r.begin), sm.lineColumn(r.file, r.end)};
}

nlohmann::json rangeJson(const std::optional<FileRange> &r) {
  if (!r)
    return nullptr;
  return {{"file", r->file},
          {"start", {{"line", r->start.line}, {"character", r->start.column}}},
          {"end", {{"line", r->end.line}, {"character", r->end.column}}}};
}

nlohmann::json rangeJson(const SourceManager &sm, SourceRange r) {
  return rangeJson(fileRange(sm, r));
}

nlohmann::json mappingsJson(const mapping::StatementMappings &m, const ir::Kernel &k,
                            const hw::Target &target, const SourceManager &sm) {
  return mappingsJson(m, k, target, fileRange(sm, m.range));
}

nlohmann::json mappingsJson(const mapping::StatementMappings &m, const ir::Kernel &k,
                            const hw::Target &target, const std::optional<FileRange> &range) {
  const ir::Statement &s = k.statements[m.index];
  auto indexNames = [&](const std::vector<int> &idx) {
    nlohmann::json a = nlohmann::json::array();
    for (int i : idx)
      a.push_back(s.indices[i].name);
    return a;
  };
  nlohmann::json mappings = nlohmann::json::array();
  for (const auto &c : m.candidates) {
    nlohmann::json bindings = nlohmann::json::object(), remainder = nlohmann::json::object(),
                   operands = nlohmann::json::object(), moves = nlohmann::json::array();
    for (const auto &b : c.bindings) {
      bindings[b.instrIndex] = indexNames(b.stmtIndices);
      remainder[b.instrIndex] = mapping::remainderName(b.remainder);
    }
    for (const auto &o : c.operands) {
      operands[o.operand] = {{"binding", o.binding},
                             {"role", ir::tensorRoleName(o.role)},
                             {"memory", o.memory},
                             {"strides", o.strides},
                             {"contiguous", o.contiguous},
                             {"pack", o.needsPack},
                             {"computedSeparately", o.computedSeparately},
                             {"moves", nlohmann::json::array()}};
      for (const auto &mv : o.moves) {
        std::string text = mapping::moveStepText(mv, target);
        operands[o.operand]["moves"].push_back(text);
        moves.push_back(o.operand + ": " + text);
      }
    }
    mappings.push_back({{"instruction", target.instructions[size_t(c.instruction)].name},
                        {"isMove", c.isMove},
                        {"bindings", bindings},
                        {"operands", operands},
                        {"remainder", remainder},
                        {"moves", moves},
                        {"loops", indexNames(c.loops)},
                        {"partial", c.partial},
                        {"degenerate", c.degenerate},
                        {"zeroInit", c.zeroInit},
                        {"note", c.partialNote},
                        {"estimate",
                         {{"instructions", c.instructionCount},
                          {"cycles", c.cycles},
                          {"utilization", c.utilization}}}});
  }
  nlohmann::json rejected = nlohmann::json::array();
  for (const auto &r : m.rejected)
    rejected.push_back(
        {{"instruction", target.instructions[size_t(r.instruction)].name}, {"reason", r.reason}});
  return {{"kernel", m.kernel},   {"index", m.index},
          {"text", m.text},       {"range", rangeJson(range)},
          {"target", m.target},   {"mappings", mappings},
          {"rejected", rejected}, {"budgetExhausted", m.budgetExhausted}};
}

nlohmann::json scheduleJson(const schedule::KernelSchedule &ks, const ir::Kernel &k,
                            const hw::Target &target) {
  nlohmann::json statements = nlohmann::json::array();
  double total = 0, ideal = 0;
  const schedule::StatementSchedule *slowest = nullptr;
  for (const auto &ss : ks.statements) {
    const auto &c = ss.config;
    nlohmann::json tiles = nlohmann::json::object(), order = nlohmann::json::object(),
                   levels = nlohmann::json::array(), buffers = nlohmann::json::array();
    for (size_t l = 0; l < c.levels.size(); ++l) {
      nlohmann::json t = nlohmann::json::object(), o = nlohmann::json::array();
      for (size_t v = 0; v < c.vindices.size(); ++v)
        t[c.vindices[v].name] = c.tiles[l][v];
      for (int v : c.order[l])
        o.push_back(c.vindices[v].name);
      tiles[c.levels[l].name] = t;
      order[c.levels[l].name] = o;
    }
    for (const auto &lc : ss.cost.levels)
      levels.push_back({{"memory", target.memories[size_t(lc.memory)].name},
                        {"bytes", lc.bytes},
                        {"cycles", lc.cycles},
                        {"footprintBytes", lc.footprintBytes},
                        {"capacityBytes", lc.capacityBytes}});
    for (const auto &b : ss.buffers)
      buffers.push_back({{"name", b.name},
                         {"memory", b.memory},
                         {"shape", b.shape},
                         {"doubleBuffered", b.doubleBuffered}});
    // null where no search ran (scalar code); a tuned schedule says what was measured instead.
    nlohmann::json search = nullptr;
    if (!ss.search.tuned.empty())
      search = {{"tuned", ss.search.tuned}, {"text", schedule::searchText(ss.search)}};
    else if (!ss.search.strategy.empty()) {
      using Stop = schedule::SearchReport::Stop;
      search = {{"strategy", ss.search.strategy},
                {"mappings", ss.search.mappings},
                {"evaluated", ss.search.evaluated},
                {"spaceSize", ss.search.spaceSize},
                {"covered", ss.search.covered},
                {"stoppedBy", ss.search.stop == Stop::Candidates ? "candidates"
                              : ss.search.stop == Stop::Time     ? "time"
                                                                 : ""},
                {"text", schedule::searchText(ss.search)}};
    }
    statements.push_back(
        {{"statement", c.statement},
         {"text", ir::printStatement(k.statements[c.statement], k.tensors)},
         {"staged", k.statements[c.statement].staged},
         {"mapping", c.mapping < 0 ? "" : target.instructions[size_t(c.instruction)].name},
         {"tiles", tiles},
         {"order", order},
         {"parallel", c.parallel < 0 ? "" : c.vindices[c.parallel].name},
         {"cycles", ss.cost.cycles},
         {"utilization", ss.cost.utilization},
         {"bound", schedule::boundText(ss.cost, target)},
         {"accumulators", ss.cost.accumulators},
         {"registers", ss.cost.registersUsed},
         {"levels", levels},
         {"buffers", buffers},
         {"search", search}});
    total += ss.cost.cycles;
    ideal += ss.cost.cycles * ss.cost.utilization;
    if (!slowest || ss.cost.cycles > slowest->cost.cycles)
      slowest = &ss;
  }
  nlohmann::json out = {{"instance", k.name},
                        {"target", ks.target},
                        {"cycles", total},
                        {"utilization", total > 0 ? ideal / total : 0},
                        {"statements", statements}};
  // The instance's headline fields are those of its most expensive statement.
  if (slowest) {
    const auto &s = statements[&*slowest - &ks.statements[0]];
    for (const char *f : {"mapping", "tiles", "order", "bound", "levels", "parallel"})
      out[f] = s[f];
  }
  return out;
}

nlohmann::json kernelJson(const ir::Kernel &k, const SourceManager &sm) {
  nlohmann::json sizes = nlohmann::json::object();
  for (const auto &[name, value] : k.sizes)
    sizes[name] = value;
  nlohmann::json tensors = nlohmann::json::array();
  for (const auto &t : k.tensors)
    tensors.push_back({{"name", t.name},
                       {"role", ir::tensorRoleName(t.role)},
                       {"type", ir::elemTypeName(t.type)},
                       {"shape", t.shape}});
  nlohmann::json statements = nlohmann::json::array();
  for (const auto &s : k.statements) {
    nlohmann::json indices = nlohmann::json::array();
    for (const auto &i : s.indices)
      indices.push_back({{"name", i.name}, {"extent", i.extent}, {"reduction", i.reduction}});
    nlohmann::json guards = nlohmann::json::array();
    for (const auto &g : s.guards)
      guards.push_back(ir::printGuard(g, s));
    statements.push_back({{"text", ir::printStatement(s, k.tensors)},
                          {"writes", k.tensors[size_t(s.lhs.tensor)].name},
                          {"reduce", ir::reduceOpText(s.reduce)},
                          {"indices", std::move(indices)},
                          {"where", std::move(guards)},
                          {"staged", s.staged},
                          {"flopsPerPoint", s.flopsPerPoint()},
                          {"computedPoints", s.computedPointCount()},
                          {"range", rangeJson(sm, s.range)}});
  }
  return {{"name", k.name},
          {"kernel", k.kernelName},
          {"sizes", std::move(sizes)},
          {"tensors", std::move(tensors)},
          {"statements", std::move(statements)},
          {"flops", k.flopCount()}};
}

nlohmann::json targetJson(const hw::Target &t) {
  nlohmann::json memories = nlohmann::json::array();
  for (const auto &m : t.memories)
    memories.push_back({{"name", m.name},
                        {"bytes", m.sizeBytes},
                        {"registers", m.isRegisters},
                        {"parent", m.parent >= 0 ? nlohmann::json(t.memories[size_t(m.parent)].name)
                                                 : nlohmann::json(nullptr)}});
  nlohmann::json instructions = nlohmann::json::array();
  for (const auto &i : t.instructions)
    instructions.push_back(i.name);
  return {{"name", t.name},
          {"triple", t.triple},
          {"cpu", t.cpu},
          {"cores", t.cores},
          {"clockGHz", t.clockHz / 1e9},
          {"peakGflops", t.peakFlopsPerCycle() * t.clockHz * t.cores / 1e9},
          {"memories", std::move(memories)},
          {"instructions", std::move(instructions)}};
}

} // namespace isam::report
