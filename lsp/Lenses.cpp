// Code lenses (per statement: how it maps and runs on the configured target) and code actions
// (the fix-its of diagnostics, and "pin this schedule", which writes the statement's chosen
// schedule as a `schedule` block after it, replacing one that is there).
#include "lsp/Convert.h"
#include "lsp/Features.h"
#include "lsp/Focus.h"

#include "schedule/Scheduler.h"

namespace isam::lsp {

json codeLens(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  json out = json::array();
  for (const auto &k : a->mainAst().kernels) {
    for (size_t i = 0; i < k.statements.size(); ++i) {
      call.checkCancelled();
      Focus f;
      f.kernel = &k;
      f.subject.kernel = k.name.name;
      f.statement = i;
      std::string problem;
      auto s = summarize(*a, f, call.cancelled, &problem);
      if (!s) {
        // One lens per kernel says why there are none.
        if (i == 0)
          out.push_back({{"range", rangeJson(*a, k.statements[i].range)},
                         {"command", {{"title", problem}, {"command", ""}}}});
        continue;
      }
      json range = rangeJson(*a, k.statements[i].range);
      json args = {a->document().uri, range["start"]};
      out.push_back({{"range", range},
                     {"command",
                      {{"title", summaryTitle(*s)},
                       {"command", "isamap.showMappings"},
                       {"arguments", args}}}});
      out.push_back({{"range", range},
                     {"command",
                      {{"title", "show schedule"},
                       {"command", "isamap.showSchedule"},
                       {"arguments", args}}}});
    }
  }
  return out;
}

namespace {

bool overlaps(const json &a, const json &b) {
  auto before = [](const json &p, const json &q) {
    return p["line"].get<int64_t>() < q["line"].get<int64_t>() ||
           (p["line"] == q["line"] &&
            p["character"].get<int64_t>() <= q["character"].get<int64_t>());
  };
  return before(a["start"], b["end"]) && before(b["start"], a["end"]);
}

} // namespace

json codeAction(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  const json &range = required(call.params, "range");
  uint32_t from = offsetIn(*a, required(range, "start"));
  json out = json::array();
  // Quick fixes: the fix-its of the current diagnostics that touch the range (those of the
  // schedule blocks included, as they are published).
  std::vector<Diagnostic> all = a->checkDiagnostics();
  for (auto &d : a->scheduleDiagnostics(call.cancelled))
    all.push_back(std::move(d));
  call.checkCancelled();
  for (const auto &d : lspDiagnostics(*a, all)) {
    if (!d.contains("data") || !overlaps(d["range"], range))
      continue;
    for (const auto &fix : d["data"]["fixes"]) {
      std::string title = fix["newText"].get<std::string>().empty()
                              ? "Remove"
                              : "Change to '" + fix["newText"].get<std::string>() + "'";
      json diagnostic = d;
      diagnostic.erase("data");
      out.push_back({{"title", title},
                     {"kind", "quickfix"},
                     {"diagnostics", {diagnostic}},
                     {"isPreferred", true},
                     {"edit", {{"changes", {{a->document().uri, {fix}}}}}}});
    }
  }
  // Pin this schedule.
  if (auto ref = a->statementAt(from)) {
    Focus f;
    f.kernel = ref->kernel;
    f.subject.kernel = ref->kernel->name.name;
    f.statement = ref->index;
    const ir::Kernel *k = a->instance(f.subject);
    const schedule::KernelSchedule *ks = k ? a->schedule(f.subject, call.cancelled) : nullptr;
    size_t s = SIZE_MAX;
    if (k)
      s = irStatementOf(f, *k).value_or(SIZE_MAX);
    call.checkCancelled();
    if (ks && s < ks->statements.size()) {
      const ast::Statement &st = ref->kernel->statements[ref->index];
      const std::string &text = a->sources().text(a->mainFile());
      // Indent the block like the statement.
      uint32_t lineStart = st.range.begin;
      while (lineStart > 0 && text[lineStart - 1] != '\n')
        --lineStart;
      std::string indent = text.substr(lineStart, st.range.begin - lineStart);
      if (indent.find_first_not_of(" \t") != std::string::npos)
        indent = "  ";
      std::string block = schedule::pinText(ks->statements[s].config, *a->target());
      std::string indented;
      for (char c : block) {
        indented.push_back(c);
        if (c == '\n')
          indented += indent;
      }
      SourceRange replace{a->mainFile(), st.range.end, st.range.end};
      for (const auto &b : ref->kernel->schedules)
        if (b.afterStatement == ref->index + 1)
          replace = {a->mainFile(), st.range.end, b.range.end};
      out.push_back(
          {{"title", "Pin this schedule (" + ks->target + ", instance " + k->name + ")"},
           {"kind", "refactor.rewrite"},
           {"edit",
            {{"changes",
              {{a->document().uri,
                {{{"range", rangeJson(*a, replace)}, {"newText", "\n" + indent + indented}}}}}}}}});
    }
  }
  return out;
}

} // namespace isam::lsp
