// Names: definition, references, highlights, rename, the outline and workspace symbols. The
// symbol index (core/index) answers; these functions put its answers in protocol terms.
//
// Each takes the analysis's lock itself. A position that is not on a name gives nothing
// (nullopt), except for rename, which says why in `why`.
#pragma once

#include "lsp/Analysis.h"
#include "lsp/Protocol.h"
#include "lsp/WorkspaceIndex.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace isam::lsp {

// What lies beyond a document, for the requests that are workspace-wide (references, rename,
// workspace symbols): the analyses of the open documents (the document's own may be among them)
// and the index entries of the workspace's other files. Analyses of different documents and
// index entries name the same symbol by its declarationKey.
struct Beyond {
  std::vector<std::shared_ptr<Analysis>> open;
  std::vector<std::shared_ptr<const IndexEntry>> indexed;
  // An analysis of a file that is not open, made on demand (by canonical path); may be empty.
  std::function<std::shared_ptr<Analysis>(const std::string &path)> analyse;
};

// The declarationKey of symbol `s` of `a`'s index, and the symbol of `a`'s index that a key
// names (-1: none). Both need a's lock.
std::string keyOfSymbol(Analysis &a, int s);
int symbolOfKey(Analysis &a, const std::string &key);

// On a name, its declaration; on an import's path, the start of the file it resolved to.
std::optional<Location> definition(Analysis &a, Position p);
// Each import's path in the document, linked to the file it resolved to.
std::vector<DocumentLink> documentLinks(Analysis &a);
// The declaration first (unless left out), then the uses by file and offset: in the document
// and its imports, and in every open document and workspace file of `beyond` that uses it.
std::optional<std::vector<Location>>
references(Analysis &a, Position p, bool includeDeclaration = true, const Beyond &beyond = {});
// The occurrences in the document itself: the declaration written, the uses read.
std::optional<std::vector<DocumentHighlight>> highlights(Analysis &a, Position p);

// Renaming refuses what is not a name, a name declared in a shipped description (a library, not
// the user's file), and a new name the index refuses (SymbolIndex::canRename) in the document's
// analysis or another open document's, or that a workspace file using the symbol declares for
// a symbol of the same kind at its top level. The edit covers every use `beyond` knows.
std::optional<PrepareRename> prepareRename(Analysis &a, Position p, std::string *why);
std::optional<WorkspaceEdit> rename(Analysis &a, Position p, const std::string &newName,
                                    std::string *why, const Beyond &beyond = {});

// The document's outline: top-level symbols with their children, and a kernel's statements
// ("s0: C[i, j] += ...", cut at 80 characters).
std::vector<DocumentSymbol> documentSymbols(Analysis &a);
// The symbols of every open analysis and workspace file whose name contains `query` as a
// case-insensitive subsequence (tensors, indices, size parameters and operands left out); a file
// loaded by several analyses is listed once. Stops early, with what it has, when `stop` says so.
std::vector<SymbolInformation> workspaceSymbols(const Beyond &beyond, const std::string &query,
                                                const StopFn &stop = {});

} // namespace isam::lsp
