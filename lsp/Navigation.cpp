#include "lsp/Navigation.h"
#include "lsp/Convert.h"
#include "lsp/Uri.h"

#include "driver/Session.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

namespace isam::lsp {

namespace {

using index::OccurrenceKind;
using IK = index::SymbolKind;

// The symbol occurrence at `p`, or null.
const index::Occurrence *symbolAt(Analysis &a, Position p) {
  const index::Occurrence *o = a.index().at(a.mainFile(), offsetOf(a, p));
  return o && o->kind == OccurrenceKind::Symbol && o->symbol >= 0 ? o : nullptr;
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
                     symbolKindOf(sym.kind),
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

// A declaration as every analysis and index entry names it (declarationKey's parts).
struct Key {
  std::string path;
  uint32_t offset = 0;
  std::string text() const { return declarationKey(path, offset); }
};

Key keyOf(Analysis &a, const index::Symbol &s) {
  return {canonicalPath(a.sources().path(s.nameRange.file)), s.nameRange.begin};
}

// The symbol of `b`'s index declared at `key`, or -1. Needs b's lock.
int symbolOf(Analysis &b, const Key &key) {
  const auto &symbols = b.index().symbols();
  std::map<FileId, bool> inFile; // whether a file is key.path, found once per file
  for (size_t i = 0; i < symbols.size(); ++i) {
    const SourceRange &r = symbols[i].nameRange;
    if (r.begin != key.offset)
      continue;
    auto it = inFile.find(r.file);
    if (it == inFile.end())
      it = inFile.emplace(r.file, canonicalPath(b.sources().path(r.file)) == key.path).first;
    if (it->second)
      return int(i);
  }
  return -1;
}

struct Found {
  Location location;
  bool isDeclaration = false;
};

// Every occurrence of symbol `s` that `a`'s index knows. Needs a's lock.
void collect(Analysis &a, int s, std::vector<Found> &out) {
  for (const auto &r : a.index().references(s))
    out.push_back({locationOf(a, r.range), r.isDeclaration});
}

// The occurrences the open documents other than `a` and the workspace files know of the
// symbol declared at `key`.
void collectBeyond(Analysis &a, const Key &key, const Beyond &beyond, std::vector<Found> &out) {
  for (const auto &b : beyond.open) {
    if (b.get() == &a)
      continue;
    auto lock = b->lock();
    if (int s = symbolOf(*b, key); s >= 0)
      collect(*b, s, out);
  }
  std::string k = key.text();
  for (const auto &entry : beyond.indexed)
    for (const auto &use : entry->uses)
      if (use.key == k)
        out.push_back({{entry->uri, use.range}, use.isDeclaration});
}

// The declaration first, then the uses by file and position, each once.
void order(std::vector<Found> &found) {
  auto rank = [](const Found &f) {
    return std::tie(f.location.uri, f.location.range.start, f.location.range.end);
  };
  std::stable_sort(found.begin(), found.end(), [&](const Found &x, const Found &y) {
    if (x.isDeclaration != y.isDeclaration)
      return x.isDeclaration;
    return rank(x) < rank(y);
  });
  // A file is named by its canonical path: a document's own URI may spell it otherwise (a
  // symbolic link), and one edit sent under two names would be applied twice.
  std::map<std::string, std::string> files;
  auto fileOf = [&](const std::string &uri) -> const std::string & {
    auto it = files.find(uri);
    if (it == files.end())
      it = files.emplace(uri, canonicalPath(uriToPath(uri).value_or(uri))).first;
    return it->second;
  };
  std::set<std::tuple<std::string, Position, Position>> seen;
  std::erase_if(found, [&](const Found &f) {
    return !seen.insert({fileOf(f.location.uri), f.location.range.start, f.location.range.end})
                .second;
  });
}

// Whether a symbol of kind `a` and one of kind `b` share a namespace across files (where a new
// name declared in another file conflicts).
bool sameGlobalNamespace(IK a, IK b) {
  auto space = [](IK k) {
    switch (k) {
    case IK::Kernel:
      return 1;
    case IK::Instance:
      return 2;
    case IK::Target:
    case IK::System:
      return 3;
    default:
      return 0;
    }
  };
  return space(a) != 0 && space(a) == space(b);
}

} // namespace

std::string keyOfSymbol(Analysis &a, int s) {
  return keyOf(a, a.index().symbols()[size_t(s)]).text();
}

int symbolOfKey(Analysis &a, const std::string &key) {
  size_t hash = key.rfind('#');
  if (hash == std::string::npos)
    return -1;
  Key k{key.substr(0, hash), 0};
  try {
    k.offset = uint32_t(std::stoul(key.substr(hash + 1)));
  } catch (const std::exception &) {
    return -1;
  }
  return symbolOf(a, k);
}

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

std::optional<std::vector<Location>> references(Analysis &a, Position p, bool includeDeclaration,
                                                const Beyond &beyond) {
  std::vector<Found> found;
  Key key;
  {
    auto lock = a.lock();
    const index::Occurrence *o = symbolAt(a, p);
    if (!o)
      return std::nullopt;
    collect(a, o->symbol, found);
    key = keyOf(a, a.index().symbols()[size_t(o->symbol)]);
  }
  collectBeyond(a, key, beyond, found);
  order(found);
  std::vector<Location> out;
  for (auto &f : found)
    if (includeDeclaration || !f.isDeclaration)
      out.push_back(std::move(f.location));
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
                                    std::string *why, const Beyond &beyond) {
  std::vector<Found> found;
  Key key;
  std::string name;
  IK kind;
  {
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
    collect(a, o->symbol, found);
    key = keyOf(a, s);
    name = s.name;
    kind = s.kind;
  }
  auto refuse = [&](const std::string &reason) {
    *why = "cannot rename '" + name + "' to '" + newName + "': " + reason;
    return std::nullopt;
  };
  for (const auto &b : beyond.open) {
    if (b.get() == &a)
      continue;
    auto lock = b->lock();
    int s = symbolOf(*b, key);
    if (s < 0)
      continue;
    std::string reason;
    if (!b->index().canRename(s, newName, &reason))
      return refuse(reason + " (in " + b->document().path + ")");
  }
  std::string k = key.text();
  for (const auto &entry : beyond.indexed) {
    bool uses = std::any_of(entry->uses.begin(), entry->uses.end(),
                            [&](const IndexEntry::Use &u) { return u.key == k; });
    if (!uses)
      continue;
    for (const auto &d : entry->symbols)
      if (d.info.name == newName && d.info.containerName.empty() &&
          sameGlobalNamespace(kind, d.kind))
        return refuse("'" + newName + "' is already declared as a " +
                      index::symbolKindName(d.kind) + " in " + entry->path);
  }
  collectBeyond(a, key, beyond, found);
  order(found);
  WorkspaceEdit edit;
  for (const auto &f : found)
    edit.changes[f.location.uri].push_back({f.location.range, newName});
  return edit;
}

std::vector<DocumentSymbol> documentSymbols(Analysis &a) {
  auto lock = a.lock();
  std::vector<DocumentSymbol> out;
  for (int s : a.index().topLevel(a.mainFile()))
    out.push_back(documentSymbolOf(a, s));
  return out;
}

std::vector<SymbolInformation> workspaceSymbols(const Beyond &beyond, const std::string &query,
                                                const StopFn &stop) {
  std::vector<SymbolInformation> out;
  std::set<std::string> seen; // a file imported by several documents is listed once
  auto add = [&](SymbolInformation info, const std::string &key) {
    if (seen.insert(key).second)
      out.push_back(std::move(info));
  };
  for (const auto &a : beyond.open) {
    if (stop && stop())
      return out;
    auto lock = a->lock();
    const auto &symbols = a->index().symbols();
    for (const index::Symbol &sym : symbols) {
      if (!inOutline(sym.kind) || sym.kind == IK::Tensor || !matches(query, sym.name))
        continue;
      add({sym.name, symbolKindOf(sym.kind), locationOf(*a, sym.nameRange),
           sym.parent >= 0 ? symbols[size_t(sym.parent)].name : std::string()},
          keyOf(*a, sym).text());
    }
  }
  for (const auto &entry : beyond.indexed)
    for (const auto &d : entry->symbols)
      if (d.kind != IK::Tensor && matches(query, d.info.name))
        add(d.info, d.key);
  return out;
}

} // namespace isam::lsp
