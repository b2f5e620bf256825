// Completion and signature help. The context comes from where the cursor is in the AST (top
// level, a kernel, a statement, a schedule block, a target, a system); the candidates from the
// symbol index, the configured target's memories and instructions, and the language's fixed
// vocabulary. The list is complete (the client filters by what has been typed) and names each
// label once.
#pragma once

#include "lsp/Analysis.h"
#include "lsp/Protocol.h"

#include <optional>

namespace isam::lsp {

// Both take the analysis's lock.
CompletionList completion(Analysis &a, Position p);
// Inside `kernel<...>` (an instance's sizes) or `f(...)` (a function of the language): the
// signature and the parameter the cursor is at. Nothing elsewhere.
std::optional<SignatureHelp> signatureHelp(Analysis &a, Position p);

} // namespace isam::lsp
