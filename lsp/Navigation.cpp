// Definition, references, highlights, rename, outlines and workspace symbols: the symbol index
// (core/index) answers; this file turns its answers into LSP values.
#include "lsp/Convert.h"
#include "lsp/Features.h"

#include "driver/Session.h"

#include <algorithm>
#include <cctype>

namespace isam::lsp {

namespace {

using index::OccurrenceKind;
using index::SymbolKind;

// The symbol occurrence under the cursor, or null.
const index::Occurrence *symbolAt(Analysis &a, const json &params) {
  uint32_t offset = offsetIn(a, required(params, "position"));
  const index::Occurrence *o = a.index().at(a.mainFile(), offset);
  return o && o->kind == OccurrenceKind::Symbol && o->symbol >= 0 ? o : nullptr;
}

int lspSymbolKind(SymbolKind k) {
  switch (k) {
  case SymbolKind::Kernel:
    return 12; // Function
  case SymbolKind::Instance:
    return 14; // Constant
  case SymbolKind::Target:
    return 2; // Module
  case SymbolKind::System:
    return 3; // Namespace
  case SymbolKind::Memory:
  case SymbolKind::Registers:
    return 23; // Struct
  case SymbolKind::Unit:
    return 5; // Class
  case SymbolKind::Instruction:
  case SymbolKind::Move:
    return 6; // Method
  case SymbolKind::SizeParam:
    return 26; // TypeParameter
  case SymbolKind::Tensor:
    return 18; // Array
  case SymbolKind::Index:
    return 13; // Variable
  case SymbolKind::Operand:
    return 8; // Field
  }
  return 13;
}

bool inOutline(SymbolKind k) {
  return k != SymbolKind::Index && k != SymbolKind::SizeParam && k != SymbolKind::Operand;
}

// Whether the file is one of the shipped descriptions (a library: not renamed from a user's
// file).
bool shipped(Analysis &a, FileId file) {
  std::string dir = canonicalPath(defaultHwdescDir()) + "/";
  std::string path = canonicalPath(a.sources().path(file));
  return path.compare(0, dir.size(), dir) == 0;
}

json documentSymbolOf(Analysis &a, int s) {
  const index::Symbol &sym = a.index().symbols()[size_t(s)];
  json children = json::array();
  for (int c : a.index().children(s))
    if (inOutline(a.index().symbols()[size_t(c)].kind))
      children.push_back(documentSymbolOf(a, c));
  // A kernel's statements, which are not symbols but are what a kernel is made of.
  if (sym.kind == SymbolKind::Kernel)
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
          children.push_back({{"name", name},
                              {"kind", 25 /* Operator */},
                              {"range", rangeJson(a, st.range)},
                              {"selectionRange", rangeJson(a, st.range)}});
        }
  json j = {{"name", sym.name},
            {"kind", lspSymbolKind(sym.kind)},
            {"range", rangeJson(a, sym.fullRange)},
            {"selectionRange", rangeJson(a, sym.nameRange)}};
  if (!sym.detail.empty())
    j["detail"] = sym.detail;
  if (!children.empty())
    j["children"] = children;
  return j;
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

json definition(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  const index::Occurrence *o = symbolAt(*a, call.params);
  if (!o)
    return nullptr;
  return location(*a, a->index().symbols()[size_t(o->symbol)].nameRange);
}

json references(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  const index::Occurrence *o = symbolAt(*a, call.params);
  if (!o)
    return nullptr;
  bool withDeclaration = true;
  if (call.params.contains("context") && call.params["context"].is_object())
    withDeclaration = call.params["context"].value("includeDeclaration", true);
  json out = json::array();
  for (const auto &r : a->index().references(o->symbol))
    if (withDeclaration || !r.isDeclaration)
      out.push_back(location(*a, r.range));
  return out;
}

json documentHighlight(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  const index::Occurrence *o = symbolAt(*a, call.params);
  if (!o)
    return nullptr;
  json out = json::array();
  for (const auto &r : a->index().references(o->symbol))
    if (r.range.file == a->mainFile())
      out.push_back({{"range", rangeJson(*a, r.range)}, {"kind", r.isDeclaration ? 3 : 2}});
  return out;
}

json prepareRename(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  const index::Occurrence *o = symbolAt(*a, call.params);
  if (!o)
    throw RpcError(RequestFailed, "there is no name to rename here");
  const index::Symbol &s = a->index().symbols()[size_t(o->symbol)];
  if (shipped(*a, s.nameRange.file))
    throw RpcError(RequestFailed, "'" + s.name + "' is declared in a shipped description (" +
                                      a->sources().path(s.nameRange.file) + ")");
  return {{"range", rangeJson(*a, o->range)}, {"placeholder", s.name}};
}

json rename(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  std::string newName = stringAt(call.params, "newName");
  const index::Occurrence *o = symbolAt(*a, call.params);
  if (!o)
    throw RpcError(RequestFailed, "there is no name to rename here");
  const index::Symbol &s = a->index().symbols()[size_t(o->symbol)];
  if (shipped(*a, s.nameRange.file))
    throw RpcError(RequestFailed, "'" + s.name + "' is declared in a shipped description (" +
                                      a->sources().path(s.nameRange.file) + ")");
  std::string why;
  if (!a->index().canRename(o->symbol, newName, &why))
    throw RpcError(RequestFailed, "cannot rename '" + s.name + "' to '" + newName + "': " + why);
  json changes = json::object();
  for (const auto &r : a->index().references(o->symbol)) {
    std::string uri = uriOf(*a, r.range.file);
    if (!changes.contains(uri))
      changes[uri] = json::array();
    changes[uri].push_back({{"range", rangeJson(*a, r.range)}, {"newText", newName}});
  }
  return {{"changes", changes}};
}

json documentSymbol(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  json out = json::array();
  for (int s : a->index().topLevel(a->mainFile()))
    out.push_back(documentSymbolOf(*a, s));
  return out;
}

json workspaceSymbol(Call &call) {
  std::string query = optionalString(call.params, "query");
  json out = json::array();
  std::set<std::string> seen; // a file imported by several documents is listed once
  for (auto &a : call.workspace.allCurrent()) {
    call.checkCancelled();
    auto lock = a->lock();
    const auto &symbols = a->index().symbols();
    for (size_t s = 0; s < symbols.size(); ++s) {
      const index::Symbol &sym = symbols[s];
      if (!inOutline(sym.kind) || sym.kind == SymbolKind::Tensor || !matches(query, sym.name))
        continue;
      json loc = location(*a, sym.nameRange);
      std::string key = loc["uri"].get<std::string>() + ":" + std::to_string(sym.nameRange.begin);
      if (!seen.insert(key).second)
        continue;
      json j = {{"name", sym.name}, {"kind", lspSymbolKind(sym.kind)}, {"location", loc}};
      if (sym.parent >= 0)
        j["containerName"] = symbols[size_t(sym.parent)].name;
      out.push_back(j);
    }
  }
  return out;
}

} // namespace isam::lsp
