// Internal to sema/: lowering of statements and size expressions, shared by kernels and by
// instruction bodies (whose semantics are written in the same notation).
#pragma once

#include "sema/Sema.h"

#include <set>

namespace isam::sema::detail {

struct Sizes {
  std::set<std::string> names;                            // declared size parameters
  const std::map<std::string, int64_t> *values = nullptr; // nullptr: sizes not bound yet
  bool bound() const { return values != nullptr; }
};

// Checks that a shape/size expression uses only integers, size parameters and + - * /, and,
// when sizes are bound, evaluates it. `what` names the expression in messages.
std::optional<int64_t> evalSize(const ast::Expr &e, const Sizes &sizes, DiagnosticSink &diags,
                                const std::string &what);

struct LowerContext {
  std::vector<ir::Tensor> tensors;
  std::vector<bool> written;      // per tensor: holds values (an earlier statement wrote it)
  std::vector<bool> shapeUnknown; // per tensor: an implicit local, shaped by its first write
  Sizes sizes;
  bool instruction = false; // instruction bodies: inputs/inout hold values on entry
  // The declaration lost statements to syntax errors: errors that may only be consequences
  // (reads of tensors a lost statement would have written) are not reported.
  bool incomplete = false;
  std::string instanceNote; // appended as a note to size-dependent errors, if non-empty
  SourceRange instanceRange;

  int find(const std::string &name) const;
};

// Lowers one statement. Without bound sizes only the structure is checked and the result is
// std::nullopt even when it is fine; `ok` tells whether errors were found.
std::optional<ir::Statement> lowerStatement(const ast::Statement &s, LowerContext &ctx,
                                            DiagnosticSink &diags, bool &ok);

} // namespace isam::sema::detail
