// Diagnostics a test file expects, written in its own comments (in the manner of MLIR's
// -verify-diagnostics), so that a test of an error reads as the source that has it:
//
//   B[i] = relu(A[i]) + C[i]; // expected-error E0203 {{unknown tensor 'C'}}
//   // expected-warning@+1 {{never read}}
//
// Grammar of one expectation, anywhere after `//` on a line:
//   expected-(error|warning|info|note)[@(+N|-N)] [CODE] {{TEXT}}
//   expected-no-diagnostics
// `@+N`/`@-N` moves the expected line from the comment's line; CODE (E0203, W0301) must equal
// the diagnostic's code when given; TEXT must occur in its message. A note is looked for among
// the notes of every diagnostic; notes nobody expects are not reported, every error, warning and
// info is (each must be matched by exactly one expectation, and each expectation by one).
//
// Contract: never throws; malformed expectations are problems of their own, so a typo in a test
// cannot make it pass.
#pragma once

#include "diag/Diagnostic.h"
#include "source/SourceManager.h"

#include <string>
#include <vector>

namespace isam {

struct ExpectedDiagnostic {
  Severity severity = Severity::Error;
  uint32_t line = 0;      // 0-based line the diagnostic must start on
  uint32_t writtenAt = 0; // 0-based line of the comment, for messages
  std::string code;       // empty: any code
  std::string text;       // must occur in the message
};

struct ExpectationProblem {
  FileId file = kNoFile;
  uint32_t line = 0; // 0-based
  std::string message;
};

struct Expectations {
  std::vector<ExpectedDiagnostic> expected;
  bool noDiagnostics = false; // `expected-no-diagnostics` was written
  std::vector<ExpectationProblem> malformed;
};

// The expectations written in `file`'s comments.
Expectations parseExpectations(const SourceManager &sm, FileId file);

// Every mismatch between what `file` expects and `diagnostics`: expectations nobody met,
// diagnostics nobody expected (also those located in other files or nowhere), and malformed
// expectations. Empty when the file's expectations are exactly met.
std::vector<ExpectationProblem> verifyExpectations(const SourceManager &sm, FileId file,
                                                   const std::vector<Diagnostic> &diagnostics);

// "file:line: message", one problem per line.
std::string renderExpectationProblem(const ExpectationProblem &p, const SourceManager &sm);

} // namespace isam
