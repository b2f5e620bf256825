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
std::vector<CodeLens> codeLenses(Analysis &a, const StopFn &stop = {});

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
