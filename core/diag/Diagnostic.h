// Diagnostics: every problem isamap reports is a value with a stable code, a range, a message a
// person understands, and optionally notes and fix-its. Stages never throw on bad input; they
// append to a DiagnosticSink and carry on where they can.
#pragma once

#include "source/SourceManager.h"

#include <string>
#include <unordered_set>
#include <vector>

namespace isam {

enum class Severity { Error, Warning, Info, Note };

const char *severityName(Severity s);

// A message quotes names and tokens taken from the input, which may be arbitrarily long (a
// 30,000-character identifier): every quoted span ('...') longer than `max` bytes keeps its
// start and ends in "...". Applied to every message and note a sink receives.
std::string boundQuotedSpans(std::string message, size_t max = 64);
// `text` cut to at most `max` bytes (on a UTF-8 character boundary), ending in "..." when cut.
std::string boundedText(std::string text, size_t max);

struct FixIt {
  SourceRange range; // replaced text; an empty range inserts
  std::string replacement;
};

struct DiagnosticNote {
  SourceRange range;
  std::string message;
};

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string code; // stable, e.g. "E0102"; see diag/Codes.h
  SourceRange range;
  std::string message;
  std::vector<DiagnosticNote> notes;
  std::vector<FixIt> fixits;

  Diagnostic &note(SourceRange r, std::string msg) {
    notes.push_back({r, boundQuotedSpans(std::move(msg))});
    return *this;
  }
  Diagnostic &fix(SourceRange r, std::string replacement) {
    fixits.push_back({r, std::move(replacement)});
    return *this;
  }
};

class DiagnosticSink {
public:
  Diagnostic &report(Severity severity, std::string code, SourceRange range, std::string message);
  Diagnostic &error(std::string code, SourceRange range, std::string message) {
    return report(Severity::Error, std::move(code), range, std::move(message));
  }
  Diagnostic &warning(std::string code, SourceRange range, std::string message) {
    return report(Severity::Warning, std::move(code), range, std::move(message));
  }

  const std::vector<Diagnostic> &all() const { return diagnostics_; }
  size_t errorCount() const { return errors_; }
  bool hasErrors() const { return errors_ > 0; }
  void append(const DiagnosticSink &other);
  // A diagnostic identical to one already reported (same code, range and message) is dropped:
  // a kernel instantiated several times reports each structural problem once.
  bool isDuplicate(const std::string &code, SourceRange range, const std::string &message) const;

private:
  // Stable addresses are not promised: callers chain on the returned reference immediately.
  std::vector<Diagnostic> diagnostics_;
  static std::string key(const std::string &code, SourceRange range, const std::string &message);
  std::unordered_set<std::string> seen_;
  Diagnostic scratch_; // receives notes chained onto a dropped duplicate
  size_t errors_ = 0;
};

// Clang-style text: "file:line:col: error[E0102]: message", the source line and a caret.
std::string renderDiagnostic(const Diagnostic &d, const SourceManager &sm);

// The closest candidate within a small edit distance, for "did you mean" messages.
std::string closestMatch(const std::string &word, const std::vector<std::string> &candidates);

} // namespace isam
