// Compiler values to LSP values: byte ranges to UTF-16 ranges, diagnostics, locations.
// Every function needs the analysis's lock held.
#pragma once

#include "lsp/Analysis.h"
#include "lsp/Rpc.h"

namespace isam::lsp {

json positionJson(Position p);
Position positionOf(const json &position); // RpcError(InvalidParams) when malformed
json rangeJson(Analysis &a, SourceRange r);
// The URI of a loaded file: the document's own URI for its main file.
std::string uriOf(Analysis &a, FileId file);
json location(Analysis &a, SourceRange r);
// The byte offset in the document of an LSP position.
uint32_t offsetIn(Analysis &a, const json &position);

// LSP Diagnostic objects for the document. Problems in imported files are shown at the import
// that brings them in (the editor shows each file's own problems when it is opened).
std::vector<json> lspDiagnostics(Analysis &a, const std::vector<Diagnostic> &diagnostics);

} // namespace isam::lsp
