// Semantic tokens: the lexer classifies keywords, numbers, strings, comments and operators; the
// symbol index classifies names by what they resolve to. Results are in the protocol's relative
// encoding (five integers per token: line delta, start delta, length, type, modifier bits); a
// token over several lines (a block comment) is one token per line, as clients without multiline
// token support need. A delta is one edit covering what changed since the previous result, which
// the workspace keeps per open document (Workspace::rememberTokens).
#pragma once

#include "lsp/Analysis.h"
#include "lsp/Protocol.h"

#include <string>
#include <vector>

namespace isam::lsp {

// The legend: indices into these lists are the token types and modifier bits of the encoding.
const std::vector<std::string> &semanticTokenTypes();
const std::vector<std::string> &semanticTokenModifiers();

// The document's tokens, encoded. Takes the analysis's lock.
std::vector<uint32_t> semanticTokens(Analysis &a);

// The tokens of `data` (encoded) that overlap the lines of `range` (a token starting before the
// range on its first line included), encoded again relative to each other.
std::vector<uint32_t> semanticTokensIn(const std::vector<uint32_t> &data, Range range);

// The edits that turn `before` into `after`: none when they are equal, else one replacing what
// lies between their common prefix and their common suffix.
std::vector<SemanticTokensEdit> semanticTokensEdits(const std::vector<uint32_t> &before,
                                                    const std::vector<uint32_t> &after);

} // namespace isam::lsp
