#include "diag/Diagnostic.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace isam {

std::string DiagnosticSink::key(const std::string &code, SourceRange range,
                                const std::string &message) {
  return code + ":" + std::to_string(range.file) + ":" + std::to_string(range.begin) + ":" +
         std::to_string(range.end) + ":" + message;
}

std::string boundedText(std::string text, size_t max) {
  if (text.size() <= max)
    return text;
  size_t keep = max > 3 ? max - 3 : 0;
  // Never split a UTF-8 sequence: back up over continuation bytes.
  while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80)
    --keep;
  text.resize(keep);
  return text + "...";
}

std::string boundQuotedSpans(std::string message, size_t max) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  bool changed = false;
  size_t i = 0;
  for (;;) {
    // An opening quote follows a non-word character (so the apostrophe of "kernel's" is not
    // one); its span ends at the next quote that no word character follows.
    size_t open = message.find('\'', i);
    while (open != std::string::npos && open > 0 && word(message[open - 1]))
      open = message.find('\'', open + 1);
    if (open == std::string::npos)
      break;
    size_t close = message.find('\'', open + 1);
    while (close != std::string::npos && close + 1 < message.size() && word(message[close + 1]))
      close = message.find('\'', close + 1);
    if (close == std::string::npos)
      break;
    out.append(message, i, open + 1 - i);
    size_t length = close - open - 1;
    if (length > max) {
      out += boundedText(message.substr(open + 1, length), max);
      changed = true;
    } else {
      out.append(message, open + 1, length);
    }
    out += '\'';
    i = close + 1;
  }
  if (!changed)
    return message;
  out.append(message, i, std::string::npos);
  return out;
}

const char *severityName(Severity s) {
  switch (s) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Info:
    return "info";
  case Severity::Note:
    return "note";
  }
  return "error";
}

Diagnostic &DiagnosticSink::report(Severity severity, std::string code, SourceRange range,
                                   std::string message) {
  message = boundQuotedSpans(std::move(message));
  if (isDuplicate(code, range, message)) {
    scratch_ = {severity, std::move(code), range, std::move(message), {}, {}};
    return scratch_;
  }
  if (severity == Severity::Error)
    ++errors_;
  seen_.insert(key(code, range, message));
  diagnostics_.push_back({severity, std::move(code), range, std::move(message), {}, {}});
  return diagnostics_.back();
}

bool DiagnosticSink::isDuplicate(const std::string &code, SourceRange range,
                                 const std::string &message) const {
  return seen_.count(key(code, range, message)) > 0;
}

void DiagnosticSink::append(const DiagnosticSink &other) {
  for (const auto &d : other.diagnostics_) {
    seen_.insert(key(d.code, d.range, d.message));
    diagnostics_.push_back(d);
    if (d.severity == Severity::Error)
      ++errors_;
  }
}

namespace {

void renderLocated(std::ostringstream &out, const SourceManager &sm, SourceRange range,
                   const char *severity, const std::string &code, const std::string &message) {
  if (!range.valid()) {
    out << "isamap: " << severity << (code.empty() ? "" : "[" + code + "]") << ": " << message
        << "\n";
    return;
  }
  LineColumn lc = sm.lineColumn(range.file, range.begin);
  out << sm.path(range.file) << ":" << lc.line + 1 << ":" << lc.column + 1 << ": " << severity
      << (code.empty() ? "" : "[" + code + "]") << ": " << message << "\n";
  std::string_view line = sm.lineText(range.file, lc.line);
  if (line.size() > 240) // keep pathological one-line inputs readable
    return;
  out << "  " << line << "\n  ";
  for (uint32_t i = 0; i < lc.column && i < line.size(); ++i)
    out << (line[i] == '\t' ? '\t' : ' ');
  uint32_t width = 1;
  LineColumn endLc = sm.lineColumn(range.file, range.end);
  if (endLc.line == lc.line && endLc.column > lc.column)
    width = endLc.column - lc.column;
  out << '^';
  for (uint32_t i = 1; i < width; ++i)
    out << '~';
  out << "\n";
}

} // namespace

std::string renderDiagnostic(const Diagnostic &d, const SourceManager &sm) {
  std::ostringstream out;
  renderLocated(out, sm, d.range, severityName(d.severity), d.code, d.message);
  for (const auto &fix : d.fixits)
    if (fix.range.valid())
      out << "  fix: replace with '" << fix.replacement << "'\n";
  for (const auto &n : d.notes)
    renderLocated(out, sm, n.range, "note", "", n.message);
  return out.str();
}

std::string closestMatch(const std::string &word, const std::vector<std::string> &candidates) {
  std::string best;
  // Suggest only what is plausibly a typo: a third of the word at most, and never a
  // replacement of the whole word.
  size_t bestDistance = std::min(std::max<size_t>(1, word.size() / 3), word.size() - 1) + 1;
  // Only names a person types: a long one (pasted, generated or hostile) gets no suggestion,
  // which also keeps the quadratic distance below cheap.
  if (word.size() <= 1 || word.size() > 64)
    return best;
  for (const auto &c : candidates) {
    if (c.size() >= word.size() + bestDistance || word.size() >= c.size() + bestDistance)
      continue; // the lengths alone differ by more than the best distance so far
    // Levenshtein distance, two rows.
    std::vector<size_t> prev(c.size() + 1), cur(c.size() + 1);
    for (size_t j = 0; j <= c.size(); ++j)
      prev[j] = j;
    for (size_t i = 1; i <= word.size(); ++i) {
      cur[0] = i;
      for (size_t j = 1; j <= c.size(); ++j)
        cur[j] = std::min(
            {prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (word[i - 1] == c[j - 1] ? 0 : 1)});
      std::swap(prev, cur);
    }
    if (prev[c.size()] < bestDistance) {
      bestDistance = prev[c.size()];
      best = c;
    }
  }
  return best;
}

} // namespace isam
