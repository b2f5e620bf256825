// Name resolution over ASTs, for editors: go to definition, references, rename, outlines,
// workspace symbols and semantic-token classification.
//
// Contract: `build` resolves every identifier of the files it is given (the main file and its
// imports, as Session::files() returns them) with the rules of sema/, which is the authority;
// where sema reports an unknown name, the index says Unresolved. It never throws and never
// crashes on a broken AST: parts lost to syntax errors are simply absent. It reads only the
// ASTs (no SourceManager, no diagnostics), so it is cheap enough to rebuild on every edit. The
// ASTs need not outlive the index: it copies what it keeps. All ranges are byte offsets, as
// everywhere in isamap.
//
// Scopes. Kernels, instances, targets and systems are visible across all files (targets and
// systems share one namespace, as for --target). A kernel's size parameters, tensors (inputs,
// outputs, `local` declarations and implicit locals, declared by their first write) and an
// instruction's size parameters and operands are visible in its body. Indices are implicit and
// belong to ONE statement: `m` in two statements is two symbols. A target's memories, units and
// instructions are visible inside that target and through `T.MEM` in systems. Where a name is
// declared twice, uses resolve to the first declaration (as in sema).
#pragma once

#include "syntax/Ast.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace isam::index {

enum class SymbolKind {
  Kernel,
  Instance,
  Target,
  System,
  Memory,
  Registers,
  Unit,
  Instruction,
  Move,
  SizeParam,
  Tensor,
  Index,
  Operand
};
// "kernel", "size parameter", ...: for messages and hovers.
const char *symbolKindName(SymbolKind kind);

// What an identifier occurrence is. Symbol: it names a declared symbol (possibly declaring it).
// The others classify names the user does not declare. Unresolved: a name that resolves to
// nothing, or a word in a fixed vocabulary that is not in it (a misspelt property key, unit,
// schedule key, llvm field, element type or function); sema reports those.
enum class OccurrenceKind {
  Symbol,
  ElemType,      // `f32` in a tensor type or a conversion `f32(x)`
  Function,      // `exp`, `max`, ... (sema::knownFunctions())
  PropertyKey,   // `size`, `bandwidth`, `per_cycle`, `cores`, ... known in its block
  UnitOfMeasure, // `KiB`, `B` and `cycle` of `B/cycle`, `GHz`, ...
  ScheduleKey,   // `map`, `tile`, `order`, `parallel`
  LlvmKey,       // `triple`, `cpu`, `features`
  Unresolved
};

struct Symbol {
  SymbolKind kind = SymbolKind::Kernel;
  std::string name;
  SourceRange nameRange; // the declaring identifier
  // The whole declaration: a kernel with its body, a tensor parameter with its type, a target
  // block, the statement of an index or an implicit local, ... Always contains nameRange.
  SourceRange fullRange;
  int parent = -1; // enclosing symbol (kernel of a tensor, target of a memory, instruction of
                   // an operand or index), -1 at top level
  // Short text for outlines and hovers: "<M, N, K>(A, B) -> (C)" for a kernel, "gemm<7, 5, 13>"
  // for an instance, "f32[M, K]" for a tensor ("local f32[...]", "implicit local"), "out
  // f32[R, 16] in SPAD" for an operand, "<R>(dst, src) on dma" for an instruction, the parent
  // memory for a memory, "index" or "reduction index" (with its `where` range) for an index,
  // the LLVM triple for a target, "host T, device U" for a system.
  std::string detail;
  bool isOutput = false; // tensors and operands: an output (or an inout operand)
};

struct Occurrence {
  SourceRange range;
  OccurrenceKind kind = OccurrenceKind::Unresolved;
  int symbol = -1; // kind Symbol only
  bool isDeclaration = false;
};

class SymbolIndex {
public:
  // Resolves every identifier of every file. Also indexed: `{operand}` and `{SIZE}`
  // placeholders in asm templates (rename must change them too), when the template has no
  // escape sequence (then its offsets are known exactly).
  static SymbolIndex build(const std::vector<const ast::File *> &files);

  const std::vector<Symbol> &symbols() const { return symbols_; }
  // Every identifier occurrence in `file`, sorted by range.begin (empty for an unknown file).
  const std::vector<Occurrence> &occurrences(FileId file) const;
  // The occurrence whose range contains `offset` (begin <= offset <= end, so a cursor just after
  // the name counts), or null.
  const Occurrence *at(FileId file, uint32_t offset) const;
  // The declaration and all uses of a symbol, across all files: the declaration first, then
  // the uses by file (in the order given to build) and offset.
  std::vector<Occurrence> references(int symbol) const;
  // Top-level symbols of a file and the children of a symbol, in source order (for outlines).
  std::vector<int> topLevel(FileId file) const;
  std::vector<int> children(int symbol) const;
  // Whether `newName` is a legal new name for `symbol`: an identifier, not a keyword, an element
  // type or a function name, and not the name of another symbol of the same scope (nor one it
  // would capture or be captured by: a tensor renamed to an index of one of its kernel's
  // statements). If not, `why` (if given) says why. For rename.
  bool canRename(int symbol, std::string_view newName, std::string *why = nullptr) const;

private:
  std::vector<Symbol> symbols_;
  std::vector<int> statementOf_; // per symbol: the statement scope of an index, else -1
  std::vector<std::pair<FileId, std::vector<Occurrence>>> files_;
  // children(s) are childList_[childStart_[s + 1] .. childStart_[s + 2]); top level at 0.
  std::vector<uint32_t> childStart_;
  std::vector<int> childList_;
};

} // namespace isam::index
