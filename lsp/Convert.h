// Compiler values to protocol values (Protocol.h): byte ranges to UTF-16 ranges, locations,
// diagnostics; and LSP positions back to byte offsets. Every function needs the analysis's lock
// held.
#pragma once

#include "lsp/Analysis.h"
#include "lsp/Protocol.h"

namespace isam::lsp {

// An invalid range (no place in a file) is the empty range at the start.
Range rangeOf(Analysis &a, SourceRange r);
// The URI of a loaded file: the document's own URI for its main file.
std::string uriOf(Analysis &a, FileId file);
Location locationOf(Analysis &a, SourceRange r);
// The protocol's kind of an index symbol's kind.
SymbolKind symbolKindOf(index::SymbolKind k);
// Whether outlines and symbol searches list symbols of this kind (indices, size parameters and
// operands are too many and too local).
bool inOutline(index::SymbolKind k);

// The byte offset in the document of an LSP position (clamped to the text, as the protocol asks).
uint32_t offsetOf(Analysis &a, Position p);

// The document's problems as the client shows them. Problems in imported files are shown at the
// import that brings them in (the editor shows each file's own problems when it is opened), their
// message prefixed with the file and line.
std::vector<LspDiagnostic> lspDiagnostics(Analysis &a, const std::vector<Diagnostic> &diagnostics);

} // namespace isam::lsp
