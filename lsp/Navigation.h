// Names: definition, references, highlights, rename, the outline and workspace symbols. The
// symbol index (core/index) answers; these functions put its answers in protocol terms.
//
// Each takes the analysis's lock itself. A position that is not on a name gives nothing
// (nullopt), except for rename, which says why in `why`.
#pragma once

#include "lsp/Analysis.h"
#include "lsp/Protocol.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace isam::lsp {

// On a name, its declaration; on an import's path, the start of the file it resolved to.
std::optional<Location> definition(Analysis &a, Position p);
// Each import's path in the document, linked to the file it resolved to.
std::vector<DocumentLink> documentLinks(Analysis &a);
// The declaration first (unless left out), then the uses by file and offset.
std::optional<std::vector<Location>> references(Analysis &a, Position p,
                                                bool includeDeclaration = true);
// The occurrences in the document itself: the declaration written, the uses read.
std::optional<std::vector<DocumentHighlight>> highlights(Analysis &a, Position p);

// Renaming refuses what is not a name, a name declared in a shipped description (a library, not
// the user's file), and a new name the index refuses (SymbolIndex::canRename).
std::optional<PrepareRename> prepareRename(Analysis &a, Position p, std::string *why);
std::optional<WorkspaceEdit> rename(Analysis &a, Position p, const std::string &newName,
                                    std::string *why);

// The document's outline: top-level symbols with their children, and a kernel's statements
// ("s0: C[i, j] += ...", cut at 80 characters).
std::vector<DocumentSymbol> documentSymbols(Analysis &a);
// The symbols of every analysis whose name contains `query` as a case-insensitive subsequence
// (tensors, indices, size parameters and operands left out); a file loaded by several analyses is
// listed once. Stops early, with what it has, when `stop` says so.
std::vector<SymbolInformation>
workspaceSymbols(const std::vector<std::shared_ptr<Analysis>> &analyses, const std::string &query,
                 const StopFn &stop = {});

} // namespace isam::lsp
