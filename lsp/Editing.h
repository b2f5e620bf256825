// Formatting (the formatter of `isamap fmt`), folding ranges from the AST's blocks and comments,
// and inlay hints with each statement's inferred index ranges in the kernel's instance. Each
// takes the analysis's lock itself.
#pragma once

#include "lsp/Analysis.h"
#include "lsp/Protocol.h"

#include <optional>
#include <string>
#include <vector>

namespace isam::lsp {

// One edit replacing the whole text, none when it is formatted already; nothing, with the reason
// in `why`, when the formatter refuses the text (it only changes whitespace, and a text that
// does not lex cannot be checked).
std::optional<std::vector<TextEdit>> formatting(Analysis &a, const FormattingOptions &options,
                                                std::string *why);

// The formatter's changes to the lines `range` touches: the whole text is formatted, compared
// with the document line by line, and the changed lines (runs of them where lines were added
// or removed) that overlap the range are the edits, each replacing whole lines. Nothing, with the
// reason, as formatting() refuses.
std::optional<std::vector<TextEdit>> rangeFormatting(Analysis &a, const FormattingOptions &options,
                                                     Range range, std::string *why);

// Kernels, schedule blocks, targets and their memories, units and instructions, systems, the
// imports together, block comments and runs of line comments. A block's closing line stays
// visible, as editors show folded blocks.
std::vector<FoldingRange> foldingRanges(Analysis &a);

// For the statements that overlap `range`: after each, its iteration domain in the kernel's
// instance ("gemm_small: i < 4 j < 4 k Σ < 4"); after a local tensor written without a declared
// shape, the shape inferred (": f32[4, 4]", a Type hint). Nothing for a kernel with no instance.
std::vector<InlayHint> inlayHints(Analysis &a, Range range);

// For each position, the ranges an editor's "expand selection" steps through, innermost first:
// the word under it, the statement, the schedule block, the declaration (kernel, instance,
// target, system, import) and the whole document. Each range holds the one before it.
std::vector<SelectionRange> selectionRanges(Analysis &a, const std::vector<Position> &positions);

} // namespace isam::lsp
