// Code lenses (per statement: how it maps and runs on the configured target) and code actions
// (the fix-its of diagnostics, and "pin this schedule", which writes the statement's chosen
// schedule as a `schedule` block after it, replacing one that is there). Both take the
// analysis's lock (the lenses one statement at a time, so that other requests are answered in
// between) and run the mapper and the scheduler (the first time; the lenses' statement
// summaries are kept across versions, Summaries.h); `stop` is polled between statements and
// stages, and a stopped call returns what it has.
#pragma once

#include "lsp/Analysis.h"
#include "lsp/Protocol.h"

#include <vector>

namespace isam::lsp {

// Per statement of the document's kernels, in their default instances: "maps to fma16 × 24 |
// est. 87% of peak" (isamap.showMappings) and "show schedule" (isamap.showSchedule), both with
// the statement's start as their argument. A kernel whose statements cannot be summarized gets
// one lens, on its first statement, saying why.
//
// Statements whose summary is known (kept from an earlier version) get their lenses at once,
// the others too while `budgetMs` lasts (negative: no limit; the server gives 0); the rest are
// sent unresolved, for the client to resolve (codeLens/resolve) as they come into view, as VS
// Code and Neovim do. So a large file's visible lenses come first, and an edit's answer never
// waits for the kernels it did not touch.
std::vector<CodeLens> codeLenses(Analysis &a, const StopFn &stop = {}, double budgetMs = -1);
// The lens an unresolved one stands for, on `a` (the analysis of the version it names). A
// statement that cannot be summarized: its summary lens says why (on the kernel's first
// statement, else nothing: an empty title), its schedule lens has an empty title.
CodeLens resolveCodeLens(Analysis &a, const CodeLens &lens, const StopFn &stop = {});

// The quick fixes of the document's problems (schedule blocks' included) that touch `range`,
// then "Pin this schedule" for the statement at the range's start. With `only` (the request's
// context.only), just the actions of those kinds or kinds below them ("refactor" takes
// "refactor.rewrite"), and only those are computed.
std::vector<CodeAction> codeActions(Analysis &a, Range range, const StopFn &stop = {},
                                    const std::vector<std::string> &only = {});

// Whether an action of `kind` is one of `only`'s kinds or below one; any kind when `only` is
// empty.
bool kindWanted(const std::string &kind, const std::vector<std::string> &only);

} // namespace isam::lsp
