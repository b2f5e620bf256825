#include "lsp/Navigation.h"
#include "lsp/Convert.h"
#include "lsp/Uri.h"

#include "driver/Session.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace isam::lsp {

namespace {

using index::OccurrenceKind;
using IK = index::SymbolKind;

// The symbol occurrence at `p`, or null.
const index::Occurrence *symbolAt(Analysis &a, Position p) {
  const index::Occurrence *o = a.index().at(a.mainFile(), offsetOf(a, p));
  return o && o->kind == OccurrenceKind::Symbol && o->symbol >= 0 ? o : nullptr;
}

SymbolKind lspSymbolKind(IK k) {
  using L = SymbolKind;
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

bool inOutline(IK k) {
  return k != IK::Index && k != IK::SizeParam && k != IK::Operand;
}

// Whether the file is one of the shipped descriptions (a library: not renamed from a user's
// file).
bool shipped(Analysis &a, FileId file) {
  std::string dir = canonicalPath(defaultHwdescDir()) + "/";
  std::string path = canonicalPath(a.sources().path(file));
  return path.compare(0, dir.size(), dir) == 0;
}

// The symbol to rename at `p`, or null with the reason in `why`.
const index::Occurrence *renameable(Analysis &a, Position p, std::string *why) {
  const index::Occurrence *o = symbolAt(a, p);
  if (!o) {
    *why = "there is no name to rename here";
    return nullptr;
  }
  const index::Symbol &s = a.index().symbols()[size_t(o->symbol)];
  if (shipped(a, s.nameRange.file)) {
    *why = "'" + s.name + "' is declared in a shipped description (" +
           a.sources().path(s.nameRange.file) + ")";
    return nullptr;
  }
  return o;
}

DocumentSymbol documentSymbolOf(Analysis &a, int s) {
  const index::Symbol &sym = a.index().symbols()[size_t(s)];
  DocumentSymbol out{sym.name,
                     sym.detail,
                     lspSymbolKind(sym.kind),
                     rangeOf(a, sym.fullRange),
                     rangeOf(a, sym.nameRange),
                     {}};
  for (int c : a.index().children(s))
    if (inOutline(a.index().symbols()[size_t(c)].kind))
      out.children.push_back(documentSymbolOf(a, c));
  // A kernel's statements, which are not symbols but are what a kernel is made of.
  if (sym.kind == IK::Kernel)
    for (const auto &k : a.mainAst().kernels)
      if (k.name.range.begin == sym.nameRange.begin)
        for (size_t i = 0; i < k.statements.size(); ++i) {
          const auto &st = k.statements[i];
          std::string text =
              a.sources().text(st.range.file).substr(st.range.begin, st.range.end - st.range.begin);
          std::replace_if(
              text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
          if (text.size() > 80)
            text.resize(77), text.append("...");
          std::string name = "s";
          name.append(std::to_string(i)).append(": ").append(text);
          Range range = rangeOf(a, st.range);
          out.children.push_back({name, "", SymbolKind::Operator, range, range, {}});
        }
  return out;
}

// Case-insensitive subsequence match, as editors filter symbol lists.
bool matches(const std::string &query, const std::string &name) {
  size_t i = 0;
  for (char c : name)
    if (i < query.size() && std::tolower(static_cast<unsigned char>(c)) ==
                                std::tolower(static_cast<unsigned char>(query[i])))
      ++i;
  return i == query.size();
}

} // namespace

std::optional<Location> definition(Analysis &a, Position p) {
  auto lock = a.lock();
  uint32_t offset = offsetOf(a, p);
  for (const auto &imp : a.mainAst().imports)
    if (offset >= imp.range.begin && offset <= imp.range.end) {
      std::optional<std::string> path = a.session().importedPath(imp);
      if (!path)
        return std::nullopt;
      return Location{pathToUri(canonicalPath(*path)), Range{}};
    }
  const index::Occurrence *o = symbolAt(a, p);
  if (!o)
    return std::nullopt;
  return locationOf(a, a.index().symbols()[size_t(o->symbol)].nameRange);
}

std::vector<DocumentLink> documentLinks(Analysis &a) {
  auto lock = a.lock();
  std::vector<DocumentLink> out;
  for (const auto &imp : a.mainAst().imports)
    if (std::optional<std::string> path = a.session().importedPath(imp)) {
      std::string file = canonicalPath(*path);
      out.push_back({rangeOf(a, imp.range), pathToUri(file), file});
    }
  return out;
}

std::optional<std::vector<Location>> references(Analysis &a, Position p, bool includeDeclaration) {
  auto lock = a.lock();
  const index::Occurrence *o = symbolAt(a, p);
  if (!o)
    return std::nullopt;
  std::vector<Location> out;
  for (const auto &r : a.index().references(o->symbol))
    if (includeDeclaration || !r.isDeclaration)
      out.push_back(locationOf(a, r.range));
  return out;
}

std::optional<std::vector<DocumentHighlight>> highlights(Analysis &a, Position p) {
  auto lock = a.lock();
  const index::Occurrence *o = symbolAt(a, p);
  if (!o)
    return std::nullopt;
  std::vector<DocumentHighlight> out;
  for (const auto &r : a.index().references(o->symbol))
    if (r.range.file == a.mainFile())
      out.push_back({rangeOf(a, r.range), r.isDeclaration ? DocumentHighlight::Kind::Write
                                                          : DocumentHighlight::Kind::Read});
  return out;
}

std::optional<PrepareRename> prepareRename(Analysis &a, Position p, std::string *why) {
  auto lock = a.lock();
  const index::Occurrence *o = renameable(a, p, why);
  if (!o)
    return std::nullopt;
  return PrepareRename{rangeOf(a, o->range), a.index().symbols()[size_t(o->symbol)].name};
}

std::optional<WorkspaceEdit> rename(Analysis &a, Position p, const std::string &newName,
                                    std::string *why) {
  auto lock = a.lock();
  const index::Occurrence *o = renameable(a, p, why);
  if (!o)
    return std::nullopt;
  const index::Symbol &s = a.index().symbols()[size_t(o->symbol)];
  std::string reason;
  if (!a.index().canRename(o->symbol, newName, &reason)) {
    *why = "cannot rename '" + s.name + "' to '" + newName + "': " + reason;
    return std::nullopt;
  }
  WorkspaceEdit edit;
  for (const auto &r : a.index().references(o->symbol))
    edit.changes[uriOf(a, r.range.file)].push_back({rangeOf(a, r.range), newName});
  return edit;
}

std::vector<DocumentSymbol> documentSymbols(Analysis &a) {
  auto lock = a.lock();
  std::vector<DocumentSymbol> out;
  for (int s : a.index().topLevel(a.mainFile()))
    out.push_back(documentSymbolOf(a, s));
  return out;
}

std::vector<SymbolInformation>
workspaceSymbols(const std::vector<std::shared_ptr<Analysis>> &analyses, const std::string &query,
                 const StopFn &stop) {
  std::vector<SymbolInformation> out;
  std::set<std::string> seen; // a file imported by several documents is listed once
  for (const auto &a : analyses) {
    if (stop && stop())
      return out;
    auto lock = a->lock();
    const auto &symbols = a->index().symbols();
    for (const index::Symbol &sym : symbols) {
      if (!inOutline(sym.kind) || sym.kind == IK::Tensor || !matches(query, sym.name))
        continue;
      Location location = locationOf(*a, sym.nameRange);
      if (!seen.insert(location.uri + ":" + std::to_string(sym.nameRange.begin)).second)
        continue;
      out.push_back({sym.name, lspSymbolKind(sym.kind), location,
                     sym.parent >= 0 ? symbols[size_t(sym.parent)].name : std::string()});
    }
  }
  return out;
}

} // namespace isam::lsp
