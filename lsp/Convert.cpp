#include "lsp/Convert.h"
#include "lsp/Uri.h"

namespace isam::lsp {

json positionJson(Position p) {
  return {{"line", p.line}, {"character", p.character}};
}

Position positionOf(const json &position) {
  int64_t line = integerAt(position, "line"), character = integerAt(position, "character");
  if (line < 0 || character < 0 || line > UINT32_MAX || character > UINT32_MAX)
    throw RpcError(InvalidParams, "a position's line and character must be non-negative");
  return {uint32_t(line), uint32_t(character)};
}

json rangeJson(Analysis &a, SourceRange r) {
  if (!r.valid())
    return {{"start", positionJson({})}, {"end", positionJson({})}};
  const LineMap &lines = a.lines(r.file);
  return {{"start", positionJson(lines.position(r.begin))},
          {"end", positionJson(lines.position(r.end))}};
}

std::string uriOf(Analysis &a, FileId file) {
  if (file == a.mainFile())
    return a.document().uri;
  return pathToUri(canonicalPath(a.sources().path(file)));
}

json location(Analysis &a, SourceRange r) {
  return {{"uri", uriOf(a, r.file)}, {"range", rangeJson(a, r)}};
}

uint32_t offsetIn(Analysis &a, const json &position) {
  return a.lines(a.mainFile()).offset(positionOf(position));
}

namespace {

int severityCode(Severity s) {
  switch (s) {
  case Severity::Error:
    return 1;
  case Severity::Warning:
    return 2;
  case Severity::Info:
    return 3;
  case Severity::Note:
    return 4;
  }
  return 1;
}

// The import of the main file through which `file` was loaded (directly or not).
SourceRange importBringing(Analysis &a, FileId file) {
  const auto &imports = a.mainAst().imports;
  if (imports.empty())
    return {a.mainFile(), 0, 0};
  std::string path = canonicalPath(a.sources().path(file));
  for (const auto &imp : imports)
    if (path.size() >= imp.path.size() &&
        path.compare(path.size() - imp.path.size(), imp.path.size(), imp.path) == 0)
      return imp.range;
  return imports.front().range;
}

} // namespace

std::vector<json> lspDiagnostics(Analysis &a, const std::vector<Diagnostic> &diagnostics) {
  std::vector<json> out;
  for (const auto &d : diagnostics) {
    json j = {{"severity", severityCode(d.severity)}, {"code", d.code}, {"source", "isamap"}};
    std::string message = d.message;
    if (d.range.valid() && d.range.file != a.mainFile()) {
      LineColumn lc = a.sources().lineColumn(d.range.file, d.range.begin);
      message = a.sources().path(d.range.file) + ":" + std::to_string(lc.line + 1) + ": " + message;
      j["range"] = rangeJson(a, importBringing(a, d.range.file));
    } else {
      j["range"] = rangeJson(a, d.range.valid() ? d.range : SourceRange{a.mainFile(), 0, 0});
    }
    json related = json::array();
    for (const auto &n : d.notes) {
      if (n.range.valid() && (n.range.begin != d.range.begin || n.range.end != d.range.end))
        related.push_back({{"location", location(a, n.range)}, {"message", n.message}});
      else
        message += "\n" + n.message;
    }
    j["message"] = message;
    if (!related.empty())
      j["relatedInformation"] = related;
    // Fix-its travel with the diagnostic, for quick fixes (textDocument/codeAction).
    json fixes = json::array();
    for (const auto &f : d.fixits)
      if (f.range.file == a.mainFile())
        fixes.push_back({{"range", rangeJson(a, f.range)}, {"newText", f.replacement}});
    if (!fixes.empty())
      j["data"] = {{"fixes", fixes}};
    out.push_back(std::move(j));
  }
  return out;
}

} // namespace isam::lsp
