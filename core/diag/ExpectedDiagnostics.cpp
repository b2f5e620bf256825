#include "diag/ExpectedDiagnostics.h"

#include <cctype>
#include <optional>

namespace isam {

namespace {

// The byte offset of the line comment in `line` (a `//` outside a string literal), if any.
std::optional<size_t> commentStart(std::string_view line) {
  bool inString = false;
  for (size_t i = 0; i + 1 < line.size(); ++i) {
    if (line[i] == '"')
      inString = !inString;
    else if (!inString && line[i] == '/' && line[i + 1] == '/')
      return i;
  }
  return std::nullopt;
}

std::optional<Severity> severityNamed(std::string_view word) {
  if (word == "error")
    return Severity::Error;
  if (word == "warning")
    return Severity::Warning;
  if (word == "info")
    return Severity::Info;
  if (word == "note")
    return Severity::Note;
  return std::nullopt;
}

// 'word', built by appending: GCC 12 warns falsely (-Wrestrict) on "'" + std::string(...).
std::string quoted(std::string_view word) {
  std::string out = "'";
  out.append(word);
  out += '\'';
  return out;
}

bool isCode(std::string_view word) {
  if (word.size() != 5 || (word[0] != 'E' && word[0] != 'W' && word[0] != 'I'))
    return false;
  for (size_t i = 1; i < word.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(word[i])))
      return false;
  return true;
}

// Reads the expectations of one comment into `out`, starting after each "expected-".
class CommentReader {
public:
  CommentReader(std::string_view comment, FileId file, uint32_t line, uint32_t lineCount,
                Expectations &out)
      : text_(comment), file_(file), line_(line), lineCount_(lineCount), out_(out) {}

  void readAll() {
    static constexpr std::string_view kPrefix = "expected-";
    for (size_t at = text_.find(kPrefix); at != std::string_view::npos;
         at = text_.find(kPrefix, pos_)) {
      pos_ = at + kPrefix.size();
      readOne();
    }
  }

private:
  void readOne() {
    std::string_view word = readWhile([](char c) { return std::isalpha(c) || c == '-'; });
    if (word == "no-diagnostics") {
      out_.noDiagnostics = true;
      return;
    }
    std::optional<Severity> severity = severityNamed(word);
    if (!severity)
      return fail("unknown expectation " + quoted("expected-" + std::string(word)) +
                  " (error, warning, info, note or no-diagnostics)");
    ExpectedDiagnostic e;
    e.severity = *severity;
    e.writtenAt = line_;
    std::optional<uint32_t> line = readLine();
    if (!line)
      return;
    e.line = *line;
    skipSpaces();
    std::string_view code = readWhile([](char c) { return std::isalnum(c); });
    if (!code.empty() && !isCode(code))
      return fail(quoted(code) + " is not a diagnostic code (like E0203)");
    e.code = std::string(code);
    skipSpaces();
    if (text_.substr(pos_, 2) != "{{")
      return fail("an expectation needs its message text in {{...}}");
    size_t close = text_.find("}}", pos_ + 2);
    if (close == std::string_view::npos)
      return fail("'{{' without its '}}'");
    e.text = std::string(text_.substr(pos_ + 2, close - pos_ - 2));
    pos_ = close + 2;
    if (e.text.empty())
      return fail("an expectation's {{...}} must not be empty");
    out_.expected.push_back(std::move(e));
  }

  // The expected line: the comment's own, or `@+N` / `@-N` from it.
  std::optional<uint32_t> readLine() {
    if (pos_ >= text_.size() || text_[pos_] != '@')
      return line_;
    ++pos_;
    char sign = pos_ < text_.size() ? text_[pos_++] : 0;
    std::string_view digits = readWhile([](char c) { return std::isdigit(c); });
    if ((sign != '+' && sign != '-') || digits.empty() || digits.size() > 6) {
      fail("a line offset is written @+N or @-N");
      return std::nullopt;
    }
    int64_t target = int64_t(line_) + (sign == '+' ? 1 : -1) * std::stoll(std::string(digits));
    if (target < 0 || target >= int64_t(lineCount_)) {
      fail("the line offset points outside the file");
      return std::nullopt;
    }
    return uint32_t(target);
  }

  template <typename Pred> std::string_view readWhile(Pred pred) {
    size_t begin = pos_;
    while (pos_ < text_.size() && pred(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
    return text_.substr(begin, pos_ - begin);
  }
  void skipSpaces() {
    readWhile([](char c) { return c == ' ' || c == '\t'; });
  }
  void fail(std::string message) { out_.malformed.push_back({file_, line_, std::move(message)}); }

  std::string_view text_;
  size_t pos_ = 0;
  FileId file_;
  uint32_t line_;
  uint32_t lineCount_;
  Expectations &out_;
};

bool matches(const ExpectedDiagnostic &e, Severity severity, const std::string &code,
             const std::string &message, uint32_t line) {
  return e.severity == severity && e.line == line && (e.code.empty() || e.code == code) &&
         message.find(e.text) != std::string::npos;
}

std::string describe(const ExpectedDiagnostic &e) {
  std::string s = std::string(severityName(e.severity));
  if (!e.code.empty())
    s += " " + e.code;
  return s + " {{" + e.text + "}}";
}

} // namespace

Expectations parseExpectations(const SourceManager &sm, FileId file) {
  Expectations out;
  for (uint32_t line = 0; line < sm.lineCount(file); ++line) {
    std::string_view text = sm.lineText(file, line);
    if (std::optional<size_t> at = commentStart(text))
      CommentReader(text.substr(*at), file, line, sm.lineCount(file), out).readAll();
  }
  if (out.noDiagnostics && !out.expected.empty())
    out.malformed.push_back(
        {file, out.expected.front().writtenAt,
         "expected-no-diagnostics cannot stand beside expectations of diagnostics"});
  return out;
}

std::vector<ExpectationProblem> verifyExpectations(const SourceManager &sm, FileId file,
                                                   const std::vector<Diagnostic> &diagnostics) {
  Expectations expectations = parseExpectations(sm, file);
  std::vector<ExpectationProblem> problems = expectations.malformed;
  std::vector<bool> met(expectations.expected.size(), false);
  auto claim = [&](Severity severity, const std::string &code, const std::string &message,
                   SourceRange range) -> bool {
    if (range.file != file)
      return false;
    uint32_t line = sm.lineColumn(file, range.begin).line;
    for (size_t i = 0; i < expectations.expected.size(); ++i)
      if (!met[i] && matches(expectations.expected[i], severity, code, message, line)) {
        met[i] = true;
        return true;
      }
    return false;
  };

  for (const Diagnostic &d : diagnostics) {
    if (d.severity != Severity::Note && !claim(d.severity, d.code, d.message, d.range)) {
      ExpectationProblem p;
      p.file = d.range.file;
      p.line = d.range.valid() ? sm.lineColumn(d.range.file, d.range.begin).line : 0;
      p.message =
          std::string("unexpected ") + severityName(d.severity) + "[" + d.code + "]: " + d.message;
      problems.push_back(std::move(p));
    }
    for (const DiagnosticNote &n : d.notes)
      claim(Severity::Note, d.code, n.message, n.range);
  }
  for (size_t i = 0; i < expectations.expected.size(); ++i)
    if (!met[i]) {
      const ExpectedDiagnostic &e = expectations.expected[i];
      problems.push_back(
          {file, e.line, "expected " + describe(e) + " was not produced on this line"});
    }
  return problems;
}

std::string renderExpectationProblem(const ExpectationProblem &p, const SourceManager &sm) {
  if (p.file == kNoFile || p.file >= sm.fileCount())
    return "<no location>: " + p.message + "\n";
  return sm.path(p.file) + ":" + std::to_string(p.line + 1) + ": " + p.message + "\n";
}

} // namespace isam
