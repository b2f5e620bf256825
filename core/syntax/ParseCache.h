// Incremental parsing for editors: a file is cut into its top-level declarations, and each
// declaration whose text was parsed before (at any offset, in any file) reuses that parse
// instead of running the parser again. An edit inside one kernel of a 2,000-line file then
// parses that kernel only.
//
// Contract: for text without syntax errors, `parse` gives the AST and diagnostics that
// parseFile gives. With syntax errors, recovery is per declaration and so can only be better:
// an error never swallows the declarations after it (the whole-file parser gives up at the first
// unexpected token between declarations), and the error limit (ParseLimits::maxErrors) counts
// per declaration. The cut follows the grammar's tokens (syntax/Tokens.h): a
// declaration ends at a `;` or a closing `}` at brace depth 0; the comments and whitespace
// before it belong to it. The cache is safe to share between threads and sessions; it keeps at
// most `maxEntries` declarations, dropping the least recently used, so its memory stays bounded
// however long an editing session lasts.
#pragma once

#include "diag/Diagnostic.h"
#include "syntax/Ast.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace isam {

class ParseCache {
public:
  explicit ParseCache(size_t maxEntries = 4096) : maxEntries_(maxEntries) {}

  ast::File parse(FileId file, const SourceManager &sm, DiagnosticSink &diags);

  size_t size() const;
  // Parser runs and reuses since construction (for tests and benchmarks).
  size_t parses() const;
  size_t reuses() const;

  // The [begin, end) byte ranges of the top-level declarations of `text` (exposed for tests).
  static std::vector<std::pair<uint32_t, uint32_t>> split(std::string_view text);

private:
  struct Entry {
    std::shared_ptr<const ast::File> ast; // ranges relative to the declaration's text
    std::vector<Diagnostic> diagnostics;  // likewise
    uint64_t lastUse = 0;
  };

  size_t maxEntries_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  uint64_t clock_ = 0;
  size_t parses_ = 0, reuses_ = 0;
};

} // namespace isam
