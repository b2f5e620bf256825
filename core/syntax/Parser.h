// Parsing: text to AST. Never throws and never fails: it always returns a File, with syntax
// diagnostics (E01xx) for what it could not read. Recovery is ANTLR's (single-token insertion
// and deletion, then resynchronisation), so one mistake gives one message, not a cascade.
#pragma once

#include "diag/Diagnostic.h"
#include "syntax/Ast.h"

namespace isam {

struct ParseLimits {
  // Deeper bracket or unary nesting is rejected before parsing: the parser is recursive and
  // must not exhaust the stack on hostile input.
  uint32_t maxNesting = 200;
  // Tokens in one statement or declaration header; bounds recursion in later stages too.
  uint32_t maxStatementTokens = 4000;
  uint32_t maxErrors = 50;
};

ast::File parseFile(FileId file, const SourceManager &sm, DiagnosticSink &diags,
                    const ParseLimits &limits = {});

} // namespace isam
