// A kernel's `schedule { ... }` blocks, checked against the kernel alone, and what they pin.
//
// A block pins decisions for the statement written just before it. Everything that does not
// depend on a target is checked here, once per kernel and whatever instances or targets it is
// later scheduled for:
//   - E0704, a malformed block: no statement before it, an unknown item (with the closest key
//     as a fix-it), an item of the wrong form (`map` and `parallel` take one name and no memory,
//     `tile MEMORY: i N` positive whole sizes up to 2^40, `order MEMORY: i, j`), and a decision
//     pinned twice with different values;
//   - E0705, a pin the statement cannot take: a name that is not an index of the statement (with
//     the closest index as a fix-it), `parallel` over a reduction index, an `order` that does
//     not name each index of the statement exactly once.
// What names the target (the instruction of `map`, the memories of `tile` and `order`) and what
// depends on the mapping (tile multiples, fused loops, whether the pins fit at all) is checked
// when scheduling (E0701-E0703), where the target is known.
//
// Contract: never throws; an item with an error pins nothing, the others still pin. Every
// result holds names as written and sizes as checked integers, so that the scheduler's pins are
// made from it without parsing or checking anything again. In a kernel that lost text to a
// syntax error only the items' forms are checked: which statement a block follows, and so its
// indices, is not known for sure.
#pragma once

#include "diag/Diagnostic.h"
#include "syntax/Ast.h"

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace isam::sema {

struct PinnedTile {
  ast::Ident memory;
  ast::Ident index;
  int64_t size = 0; // positive, at most 2^40
};

struct PinnedOrder {
  ast::Ident memory;
  std::vector<ast::Ident> indices; // outermost first; each index of the statement once
};

// What the blocks after one statement pin (several blocks after one statement add up).
struct StatementPins {
  SourceRange range; // the last block: where problems found when scheduling are reported
  std::optional<ast::Ident> instruction;
  std::vector<PinnedTile> tiles;      // one per (memory, index)
  std::vector<PinnedOrder> orders;    // one per memory
  std::optional<ast::Ident> parallel; // a write index of the statement
};

struct KernelPins {
  std::map<size_t, StatementPins> statements; // by position among the kernel's statements
  bool ok = true;                             // no block had an error: everything written is pinned
};

KernelPins checkScheduleBlocks(const ast::KernelDecl &kernel, DiagnosticSink &diags);

} // namespace isam::sema
