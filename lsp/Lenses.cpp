#include "lsp/Lenses.h"
#include "lsp/Convert.h"
#include "lsp/Focus.h"

#include "lsp/Summaries.h"

#include "schedule/Scheduler.h"

#include <chrono>

namespace isam::lsp {

namespace {

// Both lenses of statement `i` of `k` (summarizing it now if need be; with `onlyKnown`, only
// from a summary kept from before, or where there is nothing to schedule; else nothing, and
// false), or the one saying why there are none (on a kernel's first statement only). Needs a's
// lock.
bool statementLenses(Analysis &a, const ast::KernelDecl &k, size_t i, const StopFn &stop,
                     std::vector<CodeLens> &out, bool onlyKnown = false) {
  Focus f;
  f.kernel = &k;
  f.subject.kernel = k.name.name;
  f.statement = i;
  std::string problem;
  std::optional<StatementSummary> s;
  if (onlyKnown) {
    std::optional<std::string> key = summaryKey(a, f);
    std::optional<SummaryCache::Entry> known = key ? a.summaries().find(*key) : std::nullopt;
    // Not known and schedulable: left to resolve. (Without an instance or a target there is
    // nothing to schedule, and saying why is quick.)
    if (!known && a.instance(f.subject) && a.target(f.subject.target))
      return false;
    if (known) {
      s = known->summary;
      problem = known->problem;
    } else {
      s = summarize(a, f, stop, &problem);
    }
  } else {
    s = summarize(a, f, stop, &problem);
  }
  Range range = rangeOf(a, k.statements[i].range);
  if (!s) {
    if (i == 0)
      out.push_back({range, {problem, "", std::nullopt}, std::nullopt});
    return true;
  }
  std::pair<std::string, Position> args{a.document().uri, range.start};
  out.push_back({range, {summaryTitle(*s), "isamap.showMappings", args}, std::nullopt});
  out.push_back({range, {"show schedule", "isamap.showSchedule", args}, std::nullopt});
  return true;
}

} // namespace

std::vector<CodeLens> codeLenses(Analysis &a, const StopFn &stop, double budgetMs) {
  auto start = std::chrono::steady_clock::now();
  auto spent = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  };
  std::vector<CodeLens> out;
  const ast::File *file = nullptr; // the document's syntax tree never changes
  {
    auto lock = a.lock();
    file = &a.mainAst();
  }
  for (const auto &k : file->kernels) {
    for (size_t i = 0; i < k.statements.size(); ++i) {
      if (stop && stop())
        return out;
      // Locked per statement: quick requests are answered between two statements' schedules.
      auto lock = a.lock();
      bool overBudget = budgetMs >= 0 && spent() > budgetMs;
      if (statementLenses(a, k, i, stop, out, overBudget))
        continue;
      // Over the budget and not known: sent unresolved.
      CodeLens lens;
      lens.range = rangeOf(a, k.statements[i].range);
      lens.unresolved = {a.document().uri, a.document().version, lens.range.start, false};
      out.push_back(lens);
      lens.unresolved->schedule = true;
      out.push_back(std::move(lens));
    }
  }
  return out;
}

CodeLens resolveCodeLens(Analysis &a, const CodeLens &lens, const StopFn &stop) {
  CodeLens out;
  out.range = lens.range;
  auto lock = a.lock();
  auto ref = a.statementAt(offsetOf(a, lens.unresolved->statement));
  if (!ref)
    return out;
  std::vector<CodeLens> both;
  statementLenses(a, *ref->kernel, ref->index, stop, both);
  size_t which = lens.unresolved->schedule ? 1 : 0;
  if (which < both.size())
    out.command = both[which].command;
  return out;
}

namespace {

// The quick fixes of the problems that touch `range`.
void quickFixes(Analysis &a, Range range, const StopFn &stop, std::vector<CodeAction> &out) {
  // The current diagnostics, those of the schedule blocks included, as they are published.
  std::vector<Diagnostic> all = a.checkDiagnostics();
  for (auto &d : a.scheduleDiagnostics(stop))
    all.push_back(std::move(d));
  if (stop && stop())
    return;
  for (const auto &d : lspDiagnostics(a, all)) {
    if (d.fixes.empty() || !touches(d.range, range))
      continue;
    for (const auto &fix : d.fixes) {
      CodeAction action;
      action.title = fix.newText.empty() ? "Remove" : "Change to '" + fix.newText + "'";
      action.kind = "quickfix";
      action.diagnostics = {d};
      action.isPreferred = true;
      action.edit.changes[a.document().uri] = {fix};
      out.push_back(std::move(action));
    }
  }
}

// "Pin this schedule" for the statement at `offset`, if it has a schedule.
void pinSchedule(Analysis &a, uint32_t offset, const StopFn &stop, std::vector<CodeAction> &out) {
  auto ref = a.statementAt(offset);
  if (!ref)
    return;
  Focus f;
  f.kernel = ref->kernel;
  f.subject.kernel = ref->kernel->name.name;
  f.statement = ref->index;
  const ir::Kernel *k = a.instance(f.subject);
  const schedule::KernelSchedule *ks = k ? a.schedule(f.subject, stop) : nullptr;
  size_t s = SIZE_MAX;
  if (k)
    s = irStatementOf(f, *k).value_or(SIZE_MAX);
  if ((stop && stop()) || !ks || s >= ks->statements.size())
    return;
  const ast::Statement &st = ref->kernel->statements[ref->index];
  const std::string &text = a.sources().text(a.mainFile());
  // Indent the block like the statement.
  uint32_t lineStart = st.range.begin;
  while (lineStart > 0 && text[lineStart - 1] != '\n')
    --lineStart;
  std::string indent = text.substr(lineStart, st.range.begin - lineStart);
  if (indent.find_first_not_of(" \t") != std::string::npos)
    indent = "  ";
  std::string block = schedule::pinText(ks->statements[s].config, *a.target());
  std::string indented;
  for (char c : block) {
    indented.push_back(c);
    if (c == '\n')
      indented += indent;
  }
  SourceRange replace{a.mainFile(), st.range.end, st.range.end};
  for (const auto &b : ref->kernel->schedules)
    if (b.afterStatement == ref->index + 1)
      replace = {a.mainFile(), st.range.end, b.range.end};
  CodeAction action;
  action.title = "Pin this schedule (" + ks->target + ", instance " + k->name + ")";
  action.kind = "refactor.rewrite";
  action.edit.changes[a.document().uri] = {{rangeOf(a, replace), "\n" + indent + indented}};
  out.push_back(std::move(action));
}

} // namespace

bool kindWanted(const std::string &kind, const std::vector<std::string> &only) {
  if (only.empty())
    return true;
  for (const std::string &k : only)
    if (kind == k || (kind.starts_with(k) && kind.size() > k.size() && kind[k.size()] == '.'))
      return true;
  return false;
}

std::vector<CodeAction> codeActions(Analysis &a, Range range, const StopFn &stop,
                                    const std::vector<std::string> &only) {
  auto lock = a.lock();
  std::vector<CodeAction> out;
  uint32_t from = offsetOf(a, range.start);
  if (kindWanted("quickfix", only))
    quickFixes(a, range, stop, out);
  if (stop && stop())
    return out;
  if (kindWanted("refactor.rewrite", only))
    pinSchedule(a, from, stop, out);
  return out;
}

} // namespace isam::lsp
