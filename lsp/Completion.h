// Completion and signature help. The context comes from where the cursor is in the AST (top
// level, a kernel, a statement, a schedule block, a target, a system); the candidates from the
// symbol index, the configured target's memories and instructions, and the language's fixed
// vocabulary. The text just before the cursor narrows it: inside a subscript only indices and
// sizes, inside a kernel's signature sizes and element types, after `in` / `on` in a target its
// memories / units, after `map` in a schedule block the instructions, after `tile` / `order`
// the memories; only labels starting with the word being typed (any case) are listed, and then
// the list says it is incomplete. Names in scope sort before functions and types, which sort
// before keywords. Each label is listed once.
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
