#include "lsp/Convert.h"
#include "lsp/Uri.h"

namespace isam::lsp {

Range rangeOf(Analysis &a, SourceRange r) {
  if (!r.valid())
    return {};
  const LineMap &lines = a.lines(r.file);
  return {lines.position(r.begin), lines.position(r.end)};
}

std::string uriOf(Analysis &a, FileId file) {
  if (file == a.mainFile())
    return a.document().uri;
  return pathToUri(canonicalPath(a.sources().path(file)));
}

Location locationOf(Analysis &a, SourceRange r) {
  return {uriOf(a, r.file), rangeOf(a, r)};
}

SymbolKind symbolKindOf(index::SymbolKind k) {
  using L = SymbolKind;
  using IK = index::SymbolKind;
  switch (k) {
  case IK::Kernel:
    return L::Function;
  case IK::Instance:
    return L::Constant;
  case IK::Target:
    return L::Module;
  case IK::System:
    return L::Namespace;
  case IK::Memory:
  case IK::Registers:
    return L::Struct;
  case IK::Unit:
    return L::Class;
  case IK::Instruction:
  case IK::Move:
    return L::Method;
  case IK::SizeParam:
    return L::TypeParameter;
  case IK::Tensor:
    return L::Array;
  case IK::Index:
    return L::Variable;
  case IK::Operand:
    return L::Field;
  }
  return L::Variable;
}

bool inOutline(index::SymbolKind k) {
  using IK = index::SymbolKind;
  return k != IK::Index && k != IK::SizeParam && k != IK::Operand;
}

uint32_t offsetOf(Analysis &a, Position p) {
  return a.lines(a.mainFile()).offset(p);
}

namespace {

LspDiagnostic::Severity severityOf(Severity s) {
  switch (s) {
  case Severity::Error:
    return LspDiagnostic::Severity::Error;
  case Severity::Warning:
    return LspDiagnostic::Severity::Warning;
  case Severity::Info:
    return LspDiagnostic::Severity::Information;
  case Severity::Note:
    return LspDiagnostic::Severity::Hint;
  }
  return LspDiagnostic::Severity::Error;
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

std::vector<LspDiagnostic> lspDiagnostics(Analysis &a, const std::vector<Diagnostic> &diagnostics) {
  std::vector<LspDiagnostic> out;
  for (const auto &d : diagnostics) {
    LspDiagnostic l;
    l.severity = severityOf(d.severity);
    l.code = d.code;
    l.message = d.message;
    if (d.range.valid() && d.range.file != a.mainFile()) {
      LineColumn lc = a.sources().lineColumn(d.range.file, d.range.begin);
      l.message =
          a.sources().path(d.range.file) + ":" + std::to_string(lc.line + 1) + ": " + l.message;
      l.range = rangeOf(a, importBringing(a, d.range.file));
    } else {
      l.range = rangeOf(a, d.range.valid() ? d.range : SourceRange{a.mainFile(), 0, 0});
    }
    for (const auto &n : d.notes) {
      if (n.range.valid() && (n.range.begin != d.range.begin || n.range.end != d.range.end))
        l.related.push_back({locationOf(a, n.range), n.message});
      else
        l.message += "\n" + n.message;
    }
    for (const auto &f : d.fixits)
      if (f.range.file == a.mainFile())
        l.fixes.push_back({rangeOf(a, f.range), f.replacement});
    out.push_back(std::move(l));
  }
  return out;
}

} // namespace isam::lsp
