#include "lsp/Focus.h"
#include "lsp/Convert.h"
#include "lsp/Summaries.h"

namespace isam::lsp {

Focus focusOf(Analysis &a, const FocusParams &params) {
  Focus f;
  f.subject.target = params.target;
  f.subject.instance = params.instance;
  const ast::File &file = a.mainAst();
  bool hasPosition = params.position.has_value();
  if (!f.subject.instance.empty()) {
    const auto &instances = a.session().symbols().instances;
    if (auto it = instances.find(f.subject.instance); it != instances.end()) {
      f.subject.kernel = it->second->kernel.name;
      f.kernel = a.kernelDecl(f.subject.kernel);
    }
    // The position still picks the statement, when it is one of that instance's kernel.
    if (f.kernel && hasPosition)
      if (auto ref = a.statementAt(offsetOf(a, *params.position)); ref && ref->kernel == f.kernel)
        f.statement = ref->index;
    return f;
  }
  if (hasPosition) {
    uint32_t offset = offsetOf(a, *params.position);
    if (auto ref = a.statementAt(offset)) {
      f.kernel = ref->kernel;
      f.statement = ref->index;
    } else {
      for (const auto &k : file.kernels)
        if (offset >= k.range.begin && offset <= k.range.end)
          f.kernel = &k;
      for (const auto &inst : file.instances)
        if (offset >= inst.range.begin && offset <= inst.range.end) {
          f.subject.instance = inst.name.name;
          f.kernel = a.kernelDecl(inst.kernel.name);
          f.subject.kernel = inst.kernel.name;
          return f;
        }
    }
  }
  if (!f.kernel && !file.kernels.empty())
    f.kernel = &file.kernels.front();
  if (f.kernel)
    f.subject.kernel = f.kernel->name.name;
  return f;
}

std::optional<size_t> irStatementOf(const Focus &f, const ir::Kernel &k) {
  if (!f.kernel || !f.statement || *f.statement >= f.kernel->statements.size())
    return std::nullopt;
  return Analysis::irStatement(k, f.kernel->statements[*f.statement]);
}

} // namespace isam::lsp

namespace isam::lsp {

namespace {

std::optional<StatementSummary> summarizeNow(Analysis &a, const Focus &f, const StopFn &stop,
                                             std::string *problem) {
  const ir::Kernel *k = a.instance(f.subject, problem);
  if (!k)
    return std::nullopt;
  std::optional<size_t> s = irStatementOf(f, *k);
  if (!s) {
    if (problem)
      *problem = "the statement is not in the instance";
    return std::nullopt;
  }
  const auto *ks = a.schedule(f.subject, stop, problem);
  const auto *maps = ks ? a.mappings(f.subject, stop, problem) : nullptr;
  if (!ks || !maps || *s >= ks->statements.size() || *s >= maps->size())
    return std::nullopt;
  const schedule::StatementSchedule &ss = ks->statements[*s];
  StatementSummary out;
  out.instance = k->name;
  out.target = ks->target;
  out.cycles = ss.cost.cycles;
  out.utilization = ss.cost.utilization;
  const hw::Target *t = a.target(f.subject.target, problem);
  if (!t)
    return std::nullopt;
  out.bound = schedule::boundText(ss.cost, *t);
  out.search = schedule::searchText(ss.search);
  out.tuned = ss.search.tuned;
  int m = ss.config.mapping;
  if (m >= 0 && size_t(m) < (*maps)[*s].candidates.size()) {
    out.instruction = t->instructions[size_t(ss.config.instruction)].name;
    out.calls = (*maps)[*s].candidates[size_t(m)].instructionCount;
  }
  return out;
}

} // namespace

std::optional<StatementSummary> summarize(Analysis &a, const Focus &f, const StopFn &stop,
                                          std::string *problem) {
  std::optional<std::string> key = summaryKey(a, f);
  if (key)
    if (auto known = a.summaries().find(*key)) {
      if (problem)
        *problem = known->problem;
      return known->summary;
    }
  std::string why;
  std::optional<StatementSummary> out = summarizeNow(a, f, stop, &why);
  // A search that was stopped says nothing about the statement.
  if (key && !(stop && stop()))
    a.summaries().put(*key, {out, why});
  if (problem)
    *problem = why;
  return out;
}

std::string summaryTitle(const StatementSummary &s) {
  auto grouped = [](int64_t n) {
    std::string d = std::to_string(n), out;
    for (size_t i = 0; i < d.size(); ++i) {
      if (i && (d.size() - i) % 3 == 0)
        out.push_back(',');
      out.push_back(d[i]);
    }
    return out;
  };
  std::string title = s.instruction.empty()
                          ? "scalar code (no instruction runs it)"
                          : "maps to " + s.instruction + " \u00d7 " + grouped(s.calls);
  title += " | est. " + std::to_string(int(s.utilization * 100 + 0.5)) + "% of peak";
  if (!s.tuned.empty()) // "2.31 ms measured", without the date
    title += " | " + s.tuned.substr(0, s.tuned.find(" on "));
  return title;
}

} // namespace isam::lsp
