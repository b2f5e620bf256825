#include "syntax/Parser.h"
#include "syntax/Tokens.h"

#include "IsamLexer.h"
#include "IsamParser.h"
#include "antlr4-runtime.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace isam {

const char *ast::assignOpText(AssignOp op) {
  switch (op) {
  case AssignOp::Assign:
    return "=";
  case AssignOp::Sum:
    return "+=";
  case AssignOp::Max:
    return "max=";
  case AssignOp::Min:
    return "min=";
  case AssignOp::Prod:
    return "*=";
  }
  return "=";
}

const char *ast::operandRoleText(OperandRole r) {
  switch (r) {
  case OperandRole::In:
    return "in";
  case OperandRole::Out:
    return "out";
  case OperandRole::InOut:
    return "inout";
  }
  return "in";
}

namespace {

using gen::IsamLexer;
using gen::IsamParser;
using P = IsamParser;

// Replaces bytes ANTLR cannot take with ASCII so that every byte offset stays a char index: the
// lexer then reports token positions that are byte offsets into the original text. Non-ASCII
// text is only legal in comments and strings, whose text is taken from the original bytes.
std::string asciiShadow(const std::string &text, FileId file, DiagnosticSink &diags) {
  std::string out = text;
  bool reportedInvalid = false;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = text[i];
    if (c < 0x80) {
      if (c == 0)
        out[i] = '\x7f';
      ++i;
      continue;
    }
    size_t len = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    bool valid = len > 0 && i + len <= text.size();
    for (size_t k = 1; valid && k < len; ++k)
      valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (!valid) {
      if (!reportedInvalid)
        diags.error("E0102", {file, uint32_t(i), uint32_t(i + 1)},
                    "the file is not valid UTF-8 (byte 0x" +
                        std::string(1, "0123456789abcdef"[c >> 4]) +
                        std::string(1, "0123456789abcdef"[c & 15]) + ")");
      reportedInvalid = true;
      len = 1;
    }
    for (size_t k = 0; k < len; ++k)
      out[i + k] = '\x7f';
    i += len;
  }
  return out;
}

// Whether the byte at `at` belongs to the UTF-8 character that starts at `lead` (the sequences
// asciiShadow accepts as valid).
bool continuesCharacter(std::string_view text, size_t lead, size_t at) {
  unsigned char c = text[lead];
  size_t len = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (at <= lead || at >= lead + len || lead + len > text.size())
    return false;
  for (size_t k = lead + 1; k < lead + len; ++k)
    if ((static_cast<unsigned char>(text[k]) & 0xC0) != 0x80)
      return false;
  return true;
}

std::string tokenDisplay(antlr4::Token *t) {
  if (!t || t->getType() == antlr4::Token::EOF)
    return "end of file";
  std::string s = t->getText();
  if (s.size() > 24)
    s = s.substr(0, 21) + "...";
  return "'" + s + "'";
}

// Turns ANTLR's messages into ones that do not need parser vocabulary.
class DiagnosticListener : public antlr4::BaseErrorListener {
public:
  DiagnosticListener(FileId file, const std::string &text, DiagnosticSink &diags,
                     uint32_t maxErrors)
      : file_(file), text_(text), diags_(diags), maxErrors_(maxErrors) {}

  void syntaxError(antlr4::Recognizer *, antlr4::Token *offending, size_t, size_t,
                   const std::string &msg, std::exception_ptr) override {
    if (count_ >= maxErrors_)
      return;
    if (++count_ == maxErrors_) {
      diags_.error("E0105", {}, "too many syntax errors; giving up on this file");
      return;
    }
    SourceRange range = rangeOf(offending);
    errorOffsets.push_back(range.begin);
    if (offending && offending->getType() == IsamLexer::UNEXPECTED) {
      unsigned char c = text_[range.begin];
      if (c >= 0x80) {
        // The whole UTF-8 sequence, not its first byte.
        while (range.end < text_.size() &&
               (static_cast<unsigned char>(text_[range.end]) & 0xC0) == 0x80)
          ++range.end;
        diags_.error("E0101", range,
                     "unexpected non-ASCII character (only comments and strings may hold one)");
      } else if (c == '"') {
        diags_.error("E0101", range,
                     "unterminated string: a string ends with '\"' on the same line");
      } else {
        std::string shown = c < 0x20 || c == 0x7f ? "control character"
                                                  : "character '" + std::string(1, char(c)) + "'";
        diags_.error("E0101", range, "unexpected " + shown);
      }
      errorOffsets.push_back(range.begin);
      return;
    }
    // ANTLR's messages, taken apart with plain string code: std::regex recurses once per
    // character and overflowed the stack on a long token. The offending token is quoted from
    // the token itself (tokenDisplay bounds it), never from the message.
    std::string missing, expected;
    if (splitMessage(msg, "missing ", " at ", false, missing)) {
      // Point just after the previous token, where the missing one belongs.
      uint32_t at = previousTokenEnd(range.begin);
      auto &d = diags_.error("E0101", {file_, at, at},
                             "expected " + bounded(missing) + " before " + tokenDisplay(offending));
      if (missing.size() >= 3 && missing.front() == '\'' && missing.back() == '\'')
        d.fix({file_, at, at}, missing.substr(1, missing.size() - 2));
    } else if (splitMessage(msg, "extraneous input ", " expecting ", true, expected) ||
               splitMessage(msg, "mismatched input ", " expecting ", true, expected)) {
      const std::string &set = expected;
      bool wantsSemi = set == "';'" || set.find(", ';'") != std::string::npos ||
                       set.find("{';'") != std::string::npos;
      if (wantsSemi && offending &&
          (offending->getType() == IsamLexer::RBRACE ||
           offending->getLine() > previousLine(range.begin))) {
        // The common case: a statement or declaration missing its ';' at the end of a line.
        uint32_t at = previousTokenEnd(range.begin);
        diags_.error("E0101", {file_, at, at}, "expected ';' before " + tokenDisplay(offending))
            .fix({file_, at, at}, ";");
      } else {
        diags_.error("E0101", range,
                     "unexpected " + tokenDisplay(offending) + "; expected " +
                         bounded(expecting(set)));
      }
    } else {
      diags_.error("E0101", range, "unexpected " + tokenDisplay(offending) + " here");
    }
  }

  SourceRange rangeOf(antlr4::Token *t) const {
    if (!t || t->getType() == antlr4::Token::EOF || t->getStartIndex() == INVALID_INDEX) {
      uint32_t end = uint32_t(text_.size());
      return {file_, end, end};
    }
    return {file_, uint32_t(t->getStartIndex()), uint32_t(t->getStopIndex() + 1)};
  }

private:
  // For "PREFIX a SEP b": the part that is not the offending token's text (which may hold SEP
  // itself, e.g. in a string): `b` when `takeTail` (SEP searched from the end), else `a` (SEP
  // searched from the start).
  static bool splitMessage(const std::string &msg, std::string_view prefix, std::string_view sep,
                           bool takeTail, std::string &part) {
    if (msg.compare(0, prefix.size(), prefix) != 0)
      return false;
    size_t at = takeTail ? msg.rfind(sep) : msg.find(sep, prefix.size());
    if (at == std::string::npos || at < prefix.size())
      return false;
    part = takeTail ? msg.substr(at + sep.size()) : msg.substr(prefix.size(), at - prefix.size());
    return true;
  }

  // Token sets come from the grammar's vocabulary and stay short; bounded all the same.
  static std::string bounded(std::string s) { return boundedText(std::move(s), 200); }

  static std::string expecting(std::string set) {
    if (set.size() > 2 && set.front() == '{' && set.back() == '}') {
      set = set.substr(1, set.size() - 2);
      size_t commas = std::count(set.begin(), set.end(), ',');
      if (commas > 5)
        return "one of " + std::to_string(commas + 1) + " possible tokens";
      return "one of " + set;
    }
    return set;
  }

  // The 1-based line of the text before `offset`, skipping whitespace.
  size_t previousLine(uint32_t offset) const {
    uint32_t end = previousTokenEnd(offset);
    return size_t(std::count(text_.begin(), text_.begin() + end, '\n')) + 1;
  }

  uint32_t previousTokenEnd(uint32_t offset) const {
    // Skip whitespace backwards; comments are rare enough here not to matter.
    while (offset > 0 && std::isspace(static_cast<unsigned char>(text_[offset - 1])))
      --offset;
    return offset;
  }

public:
  std::vector<uint32_t> errorOffsets;

private:
  FileId file_;
  const std::string &text_;
  DiagnosticSink &diags_;
  uint32_t maxErrors_;
  uint32_t count_ = 0;
};

// The ASCII shadow as the character stream tokens take their text from. (ANTLRInputStream would
// first copy the whole file into UTF-32.)
class ShadowStream : public antlr4::CharStream {
public:
  explicit ShadowStream(const std::string &text) : text_(text) {}

  void consume() override {
    if (pos_ >= text_.size())
      throw antlr4::IllegalStateException("cannot consume EOF");
    ++pos_;
  }
  size_t LA(ssize_t i) override {
    if (i == 0)
      return 0; // undefined, as in ANTLRInputStream
    ssize_t at = ssize_t(pos_) + (i > 0 ? i - 1 : i);
    if (at < 0 || size_t(at) >= text_.size())
      return antlr4::IntStream::EOF;
    return static_cast<unsigned char>(text_[size_t(at)]);
  }
  ssize_t mark() override { return -1; }
  void release(ssize_t) override {}
  size_t index() override { return pos_; }
  void seek(size_t index) override { pos_ = std::min(index, text_.size()); }
  size_t size() override { return text_.size(); }
  std::string getSourceName() const override { return antlr4::IntStream::UNKNOWN_SOURCE_NAME; }
  std::string getText(const antlr4::misc::Interval &interval) override {
    if (interval.a < 0 || interval.b < interval.a || size_t(interval.a) >= text_.size())
      return "";
    return text_.substr(size_t(interval.a), size_t(interval.b - interval.a) + 1);
  }
  std::string toString() const override { return text_; }

private:
  const std::string &text_;
  size_t pos_ = 0;
};

// The scanner's tokens: what CommonToken holds in 64 bytes instead of 112, their memory from the
// parse's arena rather than one allocation and one free each (a file has tens of thousands).
class ScannedToken final : public antlr4::WritableToken {
public:
  ScannedToken(antlr4::TokenSource *source, size_t type, size_t channel, size_t start, size_t stop,
               size_t line, size_t column)
      : source_(source), start_(start), stop_(stop), type_(packType(type)),
        channel_(uint32_t(channel)), line_(uint32_t(line)), column_(uint32_t(column)) {}

  static void *operator new(size_t size, gen::ParseArena &arena) { return arena.allocate(size); }
  // The token stream still deletes each token: that runs the destructor, and the arena frees the
  // memory afterwards.
  static void operator delete(void *) {}
  static void operator delete(void *, gen::ParseArena &) {}

  // As CommonToken's: the text set, else the source's, and "<EOF>" for the end of file.
  std::string getText() const override {
    if (text_)
      return *text_;
    antlr4::CharStream *input = getInputStream();
    if (start_ < input->size() && stop_ < input->size())
      return input->getText(antlr4::misc::Interval(start_, stop_));
    return "<EOF>";
  }
  size_t getType() const override { return type_ == eofType ? antlr4::Token::EOF : type_; }
  size_t getLine() const override { return line_; }
  size_t getCharPositionInLine() const override { return column_; }
  size_t getChannel() const override { return channel_; }
  size_t getTokenIndex() const override { return index_; }
  size_t getStartIndex() const override { return start_; }
  size_t getStopIndex() const override { return stop_; }
  antlr4::TokenSource *getTokenSource() const override { return source_; }
  antlr4::CharStream *getInputStream() const override { return source_->getInputStream(); }
  // CommonToken's format, with the type as a number.
  std::string toString() const override {
    std::string text = getText();
    return "[@" + std::to_string(ssize_t(index_)) + "," + std::to_string(start_) + ":" +
           std::to_string(ssize_t(stop_)) + "='" + text + "',<" +
           std::to_string(ssize_t(getType())) + ">" +
           (channel_ > 0 ? ",channel=" + std::to_string(channel_) : "") + "," +
           std::to_string(line_) + ":" + std::to_string(column_) + "]";
  }

  void setText(const std::string &text) override { text_ = std::make_unique<std::string>(text); }
  void setType(size_t type) override { type_ = packType(type); }
  void setLine(size_t line) override { line_ = uint32_t(line); }
  void setCharPositionInLine(size_t column) override { column_ = uint32_t(column); }
  void setChannel(size_t channel) override { channel_ = uint32_t(channel); }
  void setTokenIndex(size_t index) override { index_ = index; }

private:
  // Types fit 32 bits, but for EOF (size_t(-1)).
  static constexpr uint32_t eofType = UINT32_MAX;
  static uint32_t packType(size_t type) {
    return type == antlr4::Token::EOF ? eofType : uint32_t(type);
  }

  antlr4::TokenSource *source_;
  std::unique_ptr<std::string> text_; // only if set: the text is the source's
  size_t start_, stop_, index_ = INVALID_INDEX;
  uint32_t type_, channel_, line_, column_;
};

// Makes rule contexts come from `arena` while in scope (ArenaRuleContext, grammar/Isam.g4).
class ContextArenaScope {
public:
  explicit ContextArenaScope(gen::ParseArena &arena) : previous_(gen::ArenaRuleContext::arena) {
    gen::ArenaRuleContext::arena = &arena;
  }
  ~ContextArenaScope() { gen::ArenaRuleContext::arena = previous_; }
  ContextArenaScope(const ContextArenaScope &) = delete;
  ContextArenaScope &operator=(const ContextArenaScope &) = delete;

private:
  gen::ParseArena *previous_;
};

// The lexer. ANTLR's generated lexer simulates its ATN per character (a locked hash lookup for
// every DFA edge), which took a third of `check`; this scanner produces the same tokens directly.
// Fixed-text tokens (keywords, operators) come from the generated vocabulary, so they follow the
// grammar by themselves; NUMBER, ID, STRING, the comments, WS and UNEXPECTED are written out here
// and must follow their rules in grammar/Isam.g4. Debug builds compare every file's tokens with
// the generated lexer's (checkAgainstGeneratedLexer).
class Scanner : public antlr4::TokenSource {
public:
  // `text` is the ASCII shadow of `file` that `input` holds: tokens take their text from `input`,
  // and their memory from `arena`.
  Scanner(FileId file, const std::string &text, antlr4::CharStream &input, gen::ParseArena &arena)
      : file_(file), arena_(arena), text_(text), input_(input) {}

  std::unique_ptr<antlr4::Token> nextToken() override {
    for (;;) {
      size_t start = pos_, line = line_, column = column_;
      if (start >= text_.size()) {
        // As ANTLR's lexer: EOF is an empty token just past the end.
        return token(antlr4::Token::EOF, antlr4::Token::DEFAULT_CHANNEL, start, start - 1, line,
                     column);
      }
      auto [type, length] = longestMatch(start);
      advance(length);
      if (type == IsamLexer::WS)
        continue;
      bool comment = type == IsamLexer::LINE_COMMENT || type == IsamLexer::BLOCK_COMMENT;
      if (comment)
        comments_.push_back({{file_, uint32_t(start), uint32_t(start + length)}});
      return token(type, comment ? antlr4::Token::HIDDEN_CHANNEL : antlr4::Token::DEFAULT_CHANNEL,
                   start, start + length - 1, line, column);
    }
  }

  // The comments scanned (the hidden tokens), gathered here rather than by walking all tokens
  // again once they have gone cold.
  std::vector<ast::Comment> takeComments() { return std::move(comments_); }

  size_t getLine() const override { return line_; }
  size_t getCharPositionInLine() override { return column_; }
  antlr4::CharStream *getInputStream() override { return &input_; }
  std::string getSourceName() override { return input_.getSourceName(); }
  // Only error recovery creates tokens through the factory (the ones it pretends to insert).
  antlr4::TokenFactory<antlr4::CommonToken> *getTokenFactory() override {
    return antlr4::CommonTokenFactory::DEFAULT.get();
  }

private:
  struct Literal {
    std::string text;
    size_t type;
  };

  // The grammar's fixed-text tokens by their first character, in token-type order.
  static const std::array<std::vector<Literal>, 128> &literals() {
    static const std::array<std::vector<Literal>, 128> table = [] {
      std::array<std::vector<Literal>, 128> byFirst;
      antlr4::ANTLRInputStream none;
      IsamLexer lexer(&none);
      const antlr4::dfa::Vocabulary &vocabulary = lexer.getVocabulary();
      for (size_t type = 1; type <= vocabulary.getMaxTokenType(); ++type) {
        // Quoted, as 'import'; the grammar's literals need no escapes.
        std::string quoted = vocabulary.getLiteralName(type);
        if (quoted.size() > 2)
          byFirst[static_cast<unsigned char>(quoted[1]) & 127].push_back(
              {quoted.substr(1, quoted.size() - 2), type});
      }
      return byFirst;
    }();
    return table;
  }

  static bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }
  static bool isIdStart(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }
  static bool isIdPart(unsigned char c) { return isIdStart(c) || isDigit(c); }
  static bool isSpace(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f';
  }

  unsigned char at(size_t i) const { return i < text_.size() ? text_[i] : 0; }

  // ANTLR's rule: the longest match wins, and of equally long ones the rule written first (every
  // fixed-text token is written before NUMBER, ..., UNEXPECTED, and types follow rule order).
  std::pair<size_t, size_t> longestMatch(size_t i) const {
    size_t bestType = IsamLexer::UNEXPECTED, bestLength = 1; // UNEXPECTED : . ;
    auto consider = [&](size_t type, size_t length) {
      if (length > bestLength || (length == bestLength && type < bestType)) {
        bestType = type;
        bestLength = length;
      }
    };
    unsigned char c = at(i);
    std::string_view rest = std::string_view(text_).substr(i);
    if (c < 128)
      for (const Literal &l : literals()[c])
        if (rest.substr(0, l.text.size()) == l.text)
          consider(l.type, l.text.size());
    consider(IsamLexer::NUMBER, number(i));
    if (isIdStart(c)) { // ID : [a-zA-Z_] [a-zA-Z_0-9]* ;
      size_t j = i + 1;
      while (isIdPart(at(j)))
        ++j;
      consider(IsamLexer::ID, j - i);
    }
    consider(IsamLexer::STRING, string(i));
    if (c == '/' && at(i + 1) == '/') { // LINE_COMMENT : '//' ~[\r\n]* ;
      size_t j = i + 2;
      while (j < text_.size() && text_[j] != '\r' && text_[j] != '\n')
        ++j;
      consider(IsamLexer::LINE_COMMENT, j - i);
    }
    if (c == '/' && at(i + 1) == '*') { // BLOCK_COMMENT : '/*' .*? '*/' ;
      size_t end = text_.find("*/", i + 2);
      if (end != std::string::npos)
        consider(IsamLexer::BLOCK_COMMENT, end + 2 - i);
    }
    if (isSpace(c)) { // WS : [ \t\r\n\u000C]+ ;
      size_t j = i + 1;
      while (isSpace(at(j)))
        ++j;
      consider(IsamLexer::WS, j - i);
    }
    return {bestType, bestLength};
  }

  // NUMBER : DIGIT+ ('.' DIGIT+)? ([eE] [+-]? DIGIT+)? ; the length of the match at i, or 0.
  // An optional part that is incomplete is not taken (`0..N`, `2e` lex as 0 .. N and 2 e).
  size_t number(size_t i) const {
    size_t j = i;
    while (isDigit(at(j)))
      ++j;
    if (j == i)
      return 0;
    if (at(j) == '.' && isDigit(at(j + 1))) {
      j += 2;
      while (isDigit(at(j)))
        ++j;
    }
    if (at(j) == 'e' || at(j) == 'E') {
      size_t k = j + 1;
      if (at(k) == '+' || at(k) == '-')
        ++k;
      if (isDigit(at(k))) {
        while (isDigit(at(k)))
          ++k;
        j = k;
      }
    }
    return j - i;
  }

  // STRING : '"' (~["\\\r\n] | '\\' .)* '"' ; the length of the match at i, or 0.
  size_t string(size_t i) const {
    if (at(i) != '"')
      return 0;
    for (size_t j = i + 1; j < text_.size(); ++j) {
      char c = text_[j];
      if (c == '"')
        return j + 1 - i;
      if (c == '\r' || c == '\n')
        return 0;
      if (c == '\\' && ++j >= text_.size())
        return 0;
    }
    return 0;
  }

  // Lines and columns count as ANTLR's lexer counts them: '\n' ends a line.
  void advance(size_t length) {
    for (size_t end = pos_ + length; pos_ < end; ++pos_) {
      if (text_[pos_] == '\n') {
        ++line_;
        column_ = 0;
      } else {
        ++column_;
      }
    }
  }

  std::unique_ptr<antlr4::Token> token(size_t type, size_t channel, size_t start, size_t stop,
                                       size_t line, size_t column) {
    return std::unique_ptr<antlr4::Token>(
        new (arena_) ScannedToken(this, type, channel, start, stop, line, column));
  }

  FileId file_;
  gen::ParseArena &arena_;
  const std::string &text_;
  antlr4::CharStream &input_;
  size_t pos_ = 0, line_ = 1, column_ = 0;
  std::vector<ast::Comment> comments_;
};

#ifndef NDEBUG
// The scanner must give exactly the generated lexer's tokens: type, channel, position and line.
void checkAgainstGeneratedLexer(const std::string &shadow,
                                const std::vector<antlr4::Token *> &scanned) {
  antlr4::ANTLRInputStream input(shadow);
  IsamLexer lexer(&input);
  lexer.removeErrorListeners();
  antlr4::CommonTokenStream expected(&lexer);
  expected.fill();
  std::vector<antlr4::Token *> want = expected.getTokens();
  assert(want.size() == scanned.size());
  for (size_t i = 0; i < want.size(); ++i) {
    assert(want[i]->getType() == scanned[i]->getType());
    assert(want[i]->getChannel() == scanned[i]->getChannel());
    assert(want[i]->getStartIndex() == scanned[i]->getStartIndex());
    assert(want[i]->getStopIndex() == scanned[i]->getStopIndex());
    assert(want[i]->getLine() == scanned[i]->getLine());
    assert(want[i]->getCharPositionInLine() == scanned[i]->getCharPositionInLine());
  }
}
#endif

// Rejects input the recursive-descent parser must not see: nesting that would exhaust the
// stack, and statements long enough to make later recursive passes deep.
bool withinLimits(antlr4::CommonTokenStream &tokens, FileId file, const ParseLimits &limits,
                  DiagnosticSink &diags) {
  uint32_t depth = 0, unaryRun = 0, statementTokens = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    antlr4::Token *t = tokens.get(i);
    if (t->getChannel() != antlr4::Token::DEFAULT_CHANNEL)
      continue;
    size_t type = t->getType();
    SourceRange r{file, uint32_t(t->getStartIndex()), uint32_t(t->getStopIndex() + 1)};
    switch (type) {
    case IsamLexer::LPAREN:
    case IsamLexer::LBRACK:
    case IsamLexer::LBRACE:
      ++depth;
      break;
    case IsamLexer::RPAREN:
    case IsamLexer::RBRACK:
    case IsamLexer::RBRACE:
      depth = depth > 0 ? depth - 1 : 0;
      break;
    default:
      break;
    }
    unaryRun = type == IsamLexer::MINUS ? unaryRun + 1 : 0;
    if (depth + unaryRun > limits.maxNesting) {
      diags.error("E0103", r,
                  "nesting is deeper than " + std::to_string(limits.maxNesting) +
                      " levels; isamap does not read this file further");
      return false;
    }
    statementTokens =
        (type == IsamLexer::SEMI || type == IsamLexer::LBRACE || type == IsamLexer::RBRACE)
            ? 0
            : statementTokens + 1;
    if (statementTokens > limits.maxStatementTokens) {
      diags.error("E0104", r,
                  "this statement is longer than " + std::to_string(limits.maxStatementTokens) +
                      " tokens; split it into several statements");
      return false;
    }
  }
  return true;
}

// The generated accessors (ctx->expr(), ctx->ID(), item->statement(), ...) dynamic_cast every
// child on every call, and a cast across the runtime's shared-library boundary compares type
// names. On the hot paths (expressions, statements, kernels) the builder classifies children by
// exact type instead; these helpers return what the accessor of the same name would.
bool isTerminal(antlr4::tree::ParseTree *t) {
  const std::type_info &type = typeid(*t);
  return type == typeid(antlr4::tree::TerminalNodeImpl) ||
         type == typeid(antlr4::tree::ErrorNodeImpl);
}

// Every other node of the tree is a context of a generated rule.
antlr4::ParserRuleContext *asRule(antlr4::tree::ParseTree *t) {
  return isTerminal(t) ? nullptr : static_cast<antlr4::ParserRuleContext *>(t);
}

// `c->rule()` for a rule invoked several times in `c`, as a view of the children rather than a
// vector: expressions are numerous enough for the copies to count.
template <class Ctx> class Rules {
public:
  Rules(antlr4::ParserRuleContext *c, size_t ruleIndex)
      : children_(c->children), ruleIndex_(ruleIndex) {}

  class Iterator {
  public:
    Iterator(const Rules &rules, size_t i) : rules_(rules), i_(rules.next(i)) {}
    Ctx *operator*() const { return static_cast<Ctx *>(rules_.children_[i_]); }
    Iterator &operator++() {
      i_ = rules_.next(i_ + 1);
      return *this;
    }
    bool operator!=(const Iterator &other) const { return i_ != other.i_; }

  private:
    const Rules &rules_;
    size_t i_;
  };
  Iterator begin() const { return {*this, 0}; }
  Iterator end() const { return {*this, children_.size()}; }

private:
  // The first matching child at or after i.
  size_t next(size_t i) const {
    for (; i < children_.size(); ++i)
      if (auto *r = asRule(children_[i]); r && r->getRuleIndex() == ruleIndex_)
        break;
    return i;
  }

  const std::vector<antlr4::tree::ParseTree *> &children_;
  size_t ruleIndex_;
};

template <class Ctx> Rules<Ctx> rules(antlr4::ParserRuleContext *c, size_t ruleIndex) {
  return {c, ruleIndex};
}

// `c->rule()` for a rule invoked at most once in `c`.
template <class Ctx> Ctx *rule(antlr4::ParserRuleContext *c, size_t ruleIndex) {
  for (auto *child : c->children)
    if (auto *r = asRule(child); r && r->getRuleIndex() == ruleIndex)
      return static_cast<Ctx *>(r);
  return nullptr;
}

// The first rule context among the children: the chosen alternative of rules such as kernelItem.
antlr4::ParserRuleContext *firstRule(antlr4::ParserRuleContext *c) {
  for (auto *child : c->children)
    if (auto *r = asRule(child))
      return r;
  return nullptr;
}

// `c->TOKEN()` (error nodes included, as there): the first child token of `type`.
antlr4::Token *token(antlr4::ParserRuleContext *c, size_t type) {
  for (auto *child : c->children)
    if (isTerminal(child)) {
      antlr4::Token *t = static_cast<antlr4::tree::TerminalNode *>(child)->getSymbol();
      if (t->getType() == type)
        return t;
    }
  return nullptr;
}

// `c->TOKEN()` for a token that occurs several times in `c`.
std::vector<antlr4::Token *> tokens(antlr4::ParserRuleContext *c, size_t type) {
  std::vector<antlr4::Token *> out;
  for (auto *child : c->children)
    if (isTerminal(child)) {
      antlr4::Token *t = static_cast<antlr4::tree::TerminalNode *>(child)->getSymbol();
      if (t->getType() == type)
        out.push_back(t);
    }
  return out;
}

class AstBuilder {
public:
  AstBuilder(FileId file, const std::string &text) : file_(file), text_(text) {}

  ast::File build(P::FileContext *ctx) {
    ast::File f;
    f.id = file_;
    for (auto *item : ctx->topItem()) {
      if (auto *c = item->importDecl()) {
        if (c->STRING() && valid(c->STRING()->getSymbol()))
          f.imports.push_back({unquote(c->STRING()->getSymbol()), range(c->STRING()->getSymbol())});
      } else if (auto *c = item->kernelDecl()) {
        if (auto k = kernel(c))
          f.kernels.push_back(std::move(*k));
      } else if (auto *c = item->instanceDecl()) {
        if (auto i = instance(c))
          f.instances.push_back(std::move(*i));
      } else if (auto *c = item->targetDecl()) {
        if (auto t = target(c))
          f.targets.push_back(std::move(*t));
      } else if (auto *c = item->systemDecl()) {
        if (auto s = system(c))
          f.systems.push_back(std::move(*s));
      }
    }
    return f;
  }

private:
  static bool valid(antlr4::Token *t) {
    return t && t->getStartIndex() != INVALID_INDEX && t->getType() != antlr4::Token::EOF &&
           t->getTokenIndex() != INVALID_INDEX;
  }
  SourceRange range(antlr4::Token *t) const {
    if (!valid(t))
      return {};
    return {file_, uint32_t(t->getStartIndex()), uint32_t(t->getStopIndex() + 1)};
  }
  SourceRange range(antlr4::ParserRuleContext *c) const {
    SourceRange r = range(c->getStart());
    antlr4::Token *stop = c->getStop();
    if (valid(stop) && stop->getStopIndex() + 1 > r.begin)
      r.end = uint32_t(stop->getStopIndex() + 1);
    return r;
  }
  std::string textOf(antlr4::Token *t) const {
    SourceRange r = range(t);
    return text_.substr(r.begin, r.end - r.begin);
  }
  std::optional<ast::Ident> ident(antlr4::Token *t) const {
    if (!valid(t) || t->getType() != IsamLexer::ID)
      return std::nullopt;
    return ast::Ident{textOf(t), range(t)};
  }
  std::optional<ast::Ident> ident(antlr4::tree::TerminalNode *n) const {
    return n ? ident(n->getSymbol()) : std::nullopt;
  }
  std::string unquote(antlr4::Token *t) const {
    std::string raw = textOf(t), out;
    for (size_t i = 1; i + 1 < raw.size(); ++i) {
      if (raw[i] == '\\' && i + 2 < raw.size()) {
        char e = raw[++i];
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        out += raw[i];
      }
    }
    return out;
  }

  static bool broken(antlr4::ParserRuleContext *c) { return !c || c->exception != nullptr; }

  ast::ExprPtr expr(P::ExprContext *c) {
    if (broken(c))
      return nullptr;
    auto e = std::make_unique<ast::Expr>();
    e->range = range(c);
    // Each labelled alternative is its own subclass of ExprContext.
    const std::type_info &alt = typeid(*c);
    if (alt == typeid(P::NumberExprContext)) {
      antlr4::Token *number = token(c, IsamLexer::NUMBER);
      if (!number)
        return nullptr;
      std::string s = textOf(number);
      e->kind = ast::Expr::Kind::Number;
      e->number = std::strtod(s.c_str(), nullptr);
      e->isInteger = s.find_first_of(".eE") == std::string::npos;
      return e;
    }
    if (alt == typeid(P::NameExprContext)) {
      auto id = ident(token(c, IsamLexer::ID));
      if (!id)
        return nullptr;
      e->kind = ast::Expr::Kind::Name;
      e->name = *id;
      return e;
    }
    if (alt == typeid(P::AccessExprContext))
      return access(rule<P::AccessContext>(c, P::RuleAccess));
    if (alt == typeid(P::ParenExprContext))
      return expr(rule<P::ExprContext>(c, P::RuleExpr));
    if (alt == typeid(P::CallExprContext)) {
      auto id = ident(static_cast<P::CallExprContext *>(c)->callee);
      if (!id)
        return nullptr;
      e->kind = ast::Expr::Kind::Call;
      e->name = *id;
      for (auto *arg : rules<P::ExprContext>(c, P::RuleExpr)) {
        auto a = expr(arg);
        if (!a)
          return nullptr;
        e->args.push_back(std::move(a));
      }
      return e;
    }
    size_t operands = 2;
    antlr4::Token *op = nullptr;
    if (alt == typeid(P::NegExprContext) || alt == typeid(P::NotExprContext)) {
      e->kind = alt == typeid(P::NegExprContext) ? ast::Expr::Kind::Neg : ast::Expr::Kind::Not;
      operands = 1;
    } else if (alt == typeid(P::SelectExprContext)) {
      e->kind = ast::Expr::Kind::Select;
      operands = 3;
    } else if (alt == typeid(P::AddExprContext)) {
      op = static_cast<P::AddExprContext *>(c)->op;
    } else if (alt == typeid(P::MulExprContext)) {
      op = static_cast<P::MulExprContext *>(c)->op;
    } else if (alt == typeid(P::CompareExprContext)) {
      op = static_cast<P::CompareExprContext *>(c)->op;
    } else if (alt == typeid(P::AndExprContext)) {
      op = static_cast<P::AndExprContext *>(c)->op;
    } else if (alt == typeid(P::OrExprContext)) {
      op = static_cast<P::OrExprContext *>(c)->op;
    } else {
      return nullptr;
    }
    if (operands == 2) {
      if (!op)
        return nullptr;
      auto kind = binaryKind(op->getType());
      if (!kind)
        return nullptr;
      e->kind = *kind;
    }
    for (auto *o : rules<P::ExprContext>(c, P::RuleExpr)) {
      auto a = expr(o);
      if (!a)
        return nullptr;
      e->args.push_back(std::move(a));
    }
    if (e->args.size() != operands)
      return nullptr;
    return e;
  }

  static std::optional<ast::Expr::Kind> binaryKind(size_t token) {
    using K = ast::Expr::Kind;
    switch (token) {
    case IsamLexer::PLUS:
      return K::Add;
    case IsamLexer::MINUS:
      return K::Sub;
    case IsamLexer::STAR:
      return K::Mul;
    case IsamLexer::SLASH:
      return K::Div;
    case IsamLexer::PERCENT:
      return K::Mod;
    case IsamLexer::LT:
      return K::Lt;
    case IsamLexer::LE:
      return K::Le;
    case IsamLexer::GT:
      return K::Gt;
    case IsamLexer::GE:
      return K::Ge;
    case IsamLexer::EQ:
      return K::Eq;
    case IsamLexer::NE:
      return K::Ne;
    case IsamLexer::AND:
      return K::And;
    case IsamLexer::OR:
      return K::Or;
    default:
      return std::nullopt;
    }
  }

  ast::ExprPtr access(P::AccessContext *c) {
    if (broken(c))
      return nullptr;
    auto id = ident(c->name);
    if (!id)
      return nullptr;
    auto e = std::make_unique<ast::Expr>();
    e->kind = ast::Expr::Kind::Access;
    e->range = range(c);
    e->name = *id;
    for (auto *i : rules<P::ExprContext>(c, P::RuleExpr)) {
      auto a = expr(i);
      if (!a)
        return nullptr;
      e->args.push_back(std::move(a));
    }
    if (auto *pad = c->padValue()) {
      if (broken(pad))
        return nullptr;
      auto value = std::make_unique<ast::Expr>();
      if (auto *number = pad->NUMBER()) {
        std::string s = textOf(number->getSymbol());
        value->range = range(number->getSymbol());
        value->kind = ast::Expr::Kind::Number;
        value->number = std::strtod(s.c_str(), nullptr);
        value->isInteger = s.find_first_of(".eE") == std::string::npos;
      } else if (auto id = ident(pad->ID())) {
        value->kind = ast::Expr::Kind::Name;
        value->name = *id;
        value->range = id->range;
      } else {
        return nullptr;
      }
      if (pad->MINUS()) {
        auto neg = std::make_unique<ast::Expr>();
        neg->kind = ast::Expr::Kind::Neg;
        neg->range = range(pad);
        neg->args.push_back(std::move(value));
        value = std::move(neg);
      }
      e->pad = std::move(value);
    }
    return e;
  }

  std::optional<ast::TensorType> tensorType(P::TensorTypeContext *c) {
    if (broken(c))
      return std::nullopt;
    auto elem = ident(c->elem);
    if (!elem)
      return std::nullopt;
    ast::TensorType t{*elem, {}, range(c)};
    for (auto *d : rules<P::ExprContext>(c, P::RuleExpr)) {
      auto e = expr(d);
      if (!e)
        return std::nullopt;
      t.shape.push_back(std::move(e));
    }
    return t;
  }

  std::vector<ast::Ident> sizeParams(P::SizeParamsContext *c) {
    std::vector<ast::Ident> out;
    if (!c)
      return out;
    for (auto *n : tokens(c, IsamLexer::ID))
      if (auto id = ident(n))
        out.push_back(*id);
    return out;
  }

  std::vector<ast::TensorParam> tensorParams(P::TensorParamsContext *c) {
    std::vector<ast::TensorParam> out;
    if (!c)
      return out;
    for (auto *p : rules<P::TensorParamContext>(c, P::RuleTensorParam)) {
      if (broken(p))
        continue;
      auto name = ident(p->name);
      auto type = tensorType(rule<P::TensorTypeContext>(p, P::RuleTensorType));
      if (name && type)
        out.push_back({*name, std::move(*type), range(p)});
    }
    return out;
  }

  std::optional<ast::Statement> statement(P::StatementContext *c) {
    if (broken(c) || !c->op)
      return std::nullopt;
    ast::Statement s;
    if (c->lhs) {
      s.lhs = access(c->lhs);
    } else if (auto id = ident(c->scalar)) {
      s.lhs = std::make_unique<ast::Expr>();
      s.lhs->kind = ast::Expr::Kind::Name;
      s.lhs->name = *id;
      s.lhs->range = id->range;
    }
    s.rhs = expr(c->rhs);
    if (!s.lhs || !s.rhs)
      return std::nullopt;
    s.opRange = range(c->op);
    s.op = token(c->op, IsamLexer::PLUS_ASSIGN)   ? ast::AssignOp::Sum
           : token(c->op, IsamLexer::STAR_ASSIGN) ? ast::AssignOp::Prod
           : token(c->op, IsamLexer::MAX_ASSIGN)  ? ast::AssignOp::Max
           : token(c->op, IsamLexer::MIN_ASSIGN)  ? ast::AssignOp::Min
                                                  : ast::AssignOp::Assign;
    if (auto *w = rule<P::WhereClauseContext>(c, P::RuleWhereClause)) {
      for (auto *item : rules<P::WhereItemContext>(w, P::RuleWhereItem)) {
        if (broken(item))
          return std::nullopt;
        if (item->guard) {
          auto guard = expr(item->guard);
          if (!guard)
            return std::nullopt;
          s.guards.push_back(std::move(guard));
          continue;
        }
        auto *r = rule<P::RangeDeclContext>(item, P::RuleRangeDecl);
        if (!r || broken(r))
          return std::nullopt;
        auto index = ident(token(r, IsamLexer::ID));
        auto lo = expr(r->lo);
        auto hi = expr(r->hi);
        if (!index || !lo || !hi)
          return std::nullopt;
        s.where.push_back({*index, std::move(lo), std::move(hi), range(r)});
      }
    }
    s.range = range(c);
    return s;
  }

  std::optional<ast::KernelDecl> kernel(P::KernelDeclContext *c) {
    auto name = ident(c->name);
    if (!name)
      return std::nullopt;
    ast::KernelDecl k;
    k.name = *name;
    k.range = range(c);
    k.sizeParams = sizeParams(rule<P::SizeParamsContext>(c, P::RuleSizeParams));
    k.inputs = tensorParams(c->inputs);
    k.outputs = tensorParams(c->outputs);
    for (auto *item : rules<P::KernelItemContext>(c, P::RuleKernelItem)) {
      antlr4::ParserRuleContext *chosen = firstRule(item);
      size_t kind = chosen ? chosen->getRuleIndex() : INVALID_INDEX;
      if (kind == P::RuleLocalDecl) {
        auto *l = static_cast<P::LocalDeclContext *>(chosen);
        auto lname = ident(l->name);
        auto type = tensorType(rule<P::TensorTypeContext>(l, P::RuleTensorType));
        if (!broken(l) && lname && type)
          k.locals.push_back({*lname, std::move(*type), range(l)});
      } else if (kind == P::RuleStatement) {
        if (auto st = statement(static_cast<P::StatementContext *>(chosen)))
          k.statements.push_back(std::move(*st));
      } else if (kind == P::RuleScheduleBlock) {
        auto *b = static_cast<P::ScheduleBlockContext *>(chosen);
        ast::ScheduleBlock block;
        block.range = range(b);
        block.afterStatement = k.statements.size();
        for (auto *si : b->scheduleItem()) {
          auto key = ident(si->key);
          if (broken(si) || !key)
            continue;
          ast::ScheduleItem it{*key, {}, {}, range(si)};
          if (si->level)
            it.level = ident(si->level);
          for (auto *v : si->scheduleValue()) {
            ast::ScheduleValue sv;
            sv.range = range(v);
            if (v->ID())
              sv.name = ident(v->ID());
            if (v->NUMBER())
              sv.number = std::strtod(textOf(v->NUMBER()->getSymbol()).c_str(), nullptr);
            it.values.push_back(std::move(sv));
          }
          block.items.push_back(std::move(it));
        }
        k.schedules.push_back(std::move(block));
      }
    }
    return k;
  }

  std::optional<ast::InstanceDecl> instance(P::InstanceDeclContext *c) {
    auto name = ident(c->name);
    auto kernel = ident(c->kernel);
    if (broken(c) || !name || !kernel)
      return std::nullopt;
    ast::InstanceDecl i{*name, *kernel, {}, range(c)};
    for (auto *a : c->expr()) {
      auto e = expr(a);
      if (!e)
        return std::nullopt;
      i.args.push_back(std::move(e));
    }
    return i;
  }

  std::optional<ast::Property> property(P::PropertyDeclContext *c) {
    if (broken(c))
      return std::nullopt;
    auto key = ident(c->key);
    auto *q = c->quantity();
    if (!key || broken(q) || !valid(q->num))
      return std::nullopt;
    ast::Quantity v;
    std::string num = textOf(q->num);
    v.value = std::strtod(num.c_str(), nullptr);
    v.isInteger = num.find_first_of(".eE") == std::string::npos;
    if (valid(q->den)) {
      double den = std::strtod(textOf(q->den).c_str(), nullptr);
      v.value = den == 0 ? INFINITY : v.value / den;
      v.isInteger = false;
    }
    if (auto *u = q->unit(); u && !broken(u)) {
      v.unitRange = range(u);
      for (auto *id : u->ID())
        v.unit += (v.unit.empty() ? "" : "/") + textOf(id->getSymbol());
    }
    v.range = range(q);
    return ast::Property{*key, std::move(v), range(c)};
  }

  std::vector<ast::Property> properties(const std::vector<P::PropertyDeclContext *> &cs) {
    std::vector<ast::Property> out;
    for (auto *p : cs)
      if (auto prop = property(p))
        out.push_back(std::move(*prop));
    return out;
  }

  std::optional<ast::InstrDecl> instr(P::InstrDeclContext *c) {
    auto name = ident(c->name);
    if (broken(c) || !name)
      return std::nullopt;
    ast::InstrDecl in;
    in.isMove = c->kind && c->kind->getType() == IsamLexer::MOVE;
    in.name = *name;
    in.range = range(c);
    in.sizeParams = sizeParams(c->sizeParams());
    for (auto *o : c->operand()) {
      auto oname = ident(o->name);
      auto type = tensorType(o->tensorType());
      if (broken(o) || !oname || !type)
        return std::nullopt;
      ast::OperandDecl op{*oname, ast::OperandRole::In, std::move(*type), ident(o->memory),
                          range(o)};
      if (o->role && o->role->getType() == IsamLexer::OUTPUT)
        op.role = ast::OperandRole::Out;
      else if (o->role && o->role->getType() == IsamLexer::INOUT)
        op.role = ast::OperandRole::InOut;
      in.operands.push_back(std::move(op));
    }
    if (c->unitName)
      in.unit = ident(c->unitName);
    for (auto *s : c->statement())
      if (auto st = statement(s))
        in.body.push_back(std::move(*st));
    if (auto *cost = c->costBlock(); cost && !broken(cost))
      in.cost = properties(cost->propertyDecl());
    if (auto *a = c->asmClause(); a && !broken(a) && a->STRING()) {
      in.asmTemplate = unquote(a->STRING()->getSymbol());
      in.asmRange = range(a->STRING()->getSymbol());
    }
    return in;
  }

  std::optional<ast::TargetDecl> target(P::TargetDeclContext *c) {
    auto name = ident(c->name);
    if (!name)
      return std::nullopt;
    ast::TargetDecl t;
    t.name = *name;
    t.range = range(c);
    for (auto *item : c->targetItem()) {
      if (auto *l = item->llvmDecl(); l && !broken(l)) {
        for (auto *f : l->llvmField()) {
          auto key = ident(f->key);
          if (key && valid(f->value))
            t.llvm.push_back({*key, unquote(f->value), range(f->value)});
        }
      } else if (auto *p = item->propertyDecl()) {
        if (auto prop = property(p))
          t.props.push_back(std::move(*prop));
      } else if (auto *m = item->memoryDecl()) {
        auto mname = ident(m->name);
        if (broken(m) || !mname)
          continue;
        ast::MemoryDecl mem{*mname, std::nullopt, false, properties(m->propertyDecl()), range(m)};
        if (m->parent)
          mem.parent = ident(m->parent);
        t.memories.push_back(std::move(mem));
      } else if (auto *r = item->registersDecl()) {
        auto rname = ident(r->name);
        if (broken(r) || !rname)
          continue;
        t.memories.push_back(
            {*rname, ident(r->parent), true, properties(r->propertyDecl()), range(r)});
      } else if (auto *u = item->unitDecl()) {
        auto uname = ident(u->name);
        if (!broken(u) && uname)
          t.units.push_back({*uname, properties(u->propertyDecl()), range(u)});
      } else if (auto *i = item->instrDecl()) {
        if (auto in = instr(i))
          t.instrs.push_back(std::move(*in));
      }
    }
    return t;
  }

  std::optional<ast::MemRef> memRef(P::MemRefContext *c) {
    if (broken(c))
      return std::nullopt;
    auto t = ident(c->target);
    auto m = ident(c->memory);
    if (!t || !m)
      return std::nullopt;
    return ast::MemRef{*t, *m, range(c)};
  }

  std::optional<ast::SystemDecl> system(P::SystemDeclContext *c) {
    auto name = ident(c->name);
    if (!name)
      return std::nullopt;
    ast::SystemDecl s;
    s.name = *name;
    s.range = range(c);
    for (auto *item : c->systemItem()) {
      if (broken(item))
        continue;
      if (auto *h = dynamic_cast<P::HostItemContext *>(item)) {
        if (auto id = ident(h->ID()))
          s.hosts.push_back(*id);
      } else if (auto *d = dynamic_cast<P::DeviceItemContext *>(item)) {
        if (auto id = ident(d->ID()))
          s.devices.push_back(*id);
      } else if (auto *sh = dynamic_cast<P::SharedItemContext *>(item)) {
        std::vector<ast::MemRef> refs;
        for (auto *m : sh->memRef())
          if (auto r = memRef(m))
            refs.push_back(std::move(*r));
        s.shared.push_back(std::move(refs));
      } else if (auto *l = dynamic_cast<P::LinkItemContext *>(item)) {
        auto from = memRef(l->from);
        auto to = memRef(l->to);
        if (from && to)
          s.links.push_back({*from, *to, properties(l->propertyDecl()), range(l)});
      }
    }
    return s;
  }

  FileId file_;
  const std::string &text_;
};

} // namespace

ast::File parseFile(FileId file, const SourceManager &sm, DiagnosticSink &diags,
                    const ParseLimits &limits) {
  const std::string &text = sm.text(file);
  std::string shadow = asciiShadow(text, file, diags);

  // Tokens and rule contexts live in `arena`, declared first so that it outlives them.
  gen::ParseArena arena;
  ShadowStream input(shadow);
  Scanner scanner(file, shadow, input, arena);
  antlr4::CommonTokenStream tokens(&scanner);
  tokens.fill();
#ifndef NDEBUG
  checkAgainstGeneratedLexer(shadow, tokens.getTokens());
#endif

  ast::File empty;
  empty.id = file;
  if (!withinLimits(tokens, file, limits, diags))
    return empty;

  ContextArenaScope contextsInArena(arena);
  IsamParser parser(&tokens);
  parser.removeErrorListeners();
  // Two-stage parsing: the fast SLL mode succeeds on almost all input; only a failure pays for
  // full LL with error recovery and reporting.
  auto *interp = parser.getInterpreter<antlr4::atn::ParserATNSimulator>();
  interp->setPredictionMode(antlr4::atn::PredictionMode::SLL);
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  IsamParser::FileContext *tree = nullptr;
  try {
    tree = parser.file();
  } catch (const antlr4::ParseCancellationException &) {
    tree = nullptr;
  }
  DiagnosticListener listener(file, text, diags, limits.maxErrors);
  if (!tree) {
    tokens.seek(0);
    parser.reset();
    interp->setPredictionMode(antlr4::atn::PredictionMode::LL);
    parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
    parser.addErrorListener(&listener);
    tree = parser.file();
  }

  AstBuilder builder(file, text);
  ast::File result = builder.build(tree);
  auto hasErrorIn = [&](SourceRange r) {
    for (uint32_t at : listener.errorOffsets)
      if (at >= r.begin && at <= r.end)
        return true;
    return false;
  };
  for (auto &k : result.kernels)
    k.incomplete = hasErrorIn(k.range);
  for (auto &t : result.targets)
    for (auto &i : t.instrs)
      i.incomplete = hasErrorIn(i.range);
  result.comments = scanner.takeComments();
  return result;
}

const std::vector<std::string_view> &syntax::keywords() {
  static const std::vector<std::string> words = [] {
    std::vector<std::string> out;
    antlr4::ANTLRInputStream none;
    gen::IsamLexer lexer(&none);
    const antlr4::dfa::Vocabulary &vocabulary = lexer.getVocabulary();
    for (size_t type = 1; type <= vocabulary.getMaxTokenType(); ++type) {
      // Quoted, as 'import'; the grammar's literals need no escapes.
      std::string quoted = vocabulary.getLiteralName(type);
      if (quoted.size() > 2 && std::all_of(quoted.begin() + 1, quoted.end() - 1, [](char c) {
            return std::isalpha(static_cast<unsigned char>(c));
          }))
        out.push_back(quoted.substr(1, quoted.size() - 2));
    }
    return out;
  }();
  static const std::vector<std::string_view> views(words.begin(), words.end());
  return views;
}

bool syntax::isKeyword(std::string_view word) {
  const auto &all = keywords();
  return std::find(all.begin(), all.end(), word) != all.end();
}

// The parser's scanner over the same ASCII shadow, its tokens translated to the plain kinds.
std::vector<syntax::Token> syntax::lex(std::string_view text) {
  std::string original(text);
  DiagnosticSink ignored; // invalid UTF-8 is the parser's to report
  std::string shadow = asciiShadow(original, kNoFile, ignored);
  gen::ParseArena arena;
  ShadowStream input(shadow);
  Scanner scanner(kNoFile, shadow, input, arena);
  std::vector<Token> out;
  for (;;) {
    std::unique_ptr<antlr4::Token> t = scanner.nextToken();
    size_t type = t->getType();
    if (type == antlr4::Token::EOF)
      break;
    auto begin = uint32_t(t->getStartIndex()), end = uint32_t(t->getStopIndex() + 1);
    TokenKind kind;
    switch (type) {
    case IsamLexer::ID:
      kind = TokenKind::Identifier;
      break;
    case IsamLexer::NUMBER:
      kind = TokenKind::Number;
      break;
    case IsamLexer::STRING:
      kind = TokenKind::String;
      break;
    case IsamLexer::LINE_COMMENT:
      kind = TokenKind::LineComment;
      break;
    case IsamLexer::BLOCK_COMMENT:
      kind = TokenKind::BlockComment;
      break;
    case IsamLexer::UNEXPECTED:
      kind = TokenKind::Unexpected;
      break;
    default: {
      // Every other type is a fixed-text token; the words among them are keywords.
      bool word = std::all_of(text.begin() + begin, text.begin() + end,
                              [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
      kind = word ? TokenKind::Keyword : TokenKind::Punctuation;
      break;
    }
    }
    // The shadow turns each byte of a non-ASCII character into its own UNEXPECTED token; a
    // character is one token here. (A byte that is not part of valid UTF-8 stays alone.)
    if (kind == TokenKind::Unexpected && !out.empty() && out.back().kind == kind &&
        out.back().end == begin && continuesCharacter(text, out.back().begin, begin)) {
      out.back().end = end;
      continue;
    }
    out.push_back({kind, begin, end});
  }
  return out;
}

} // namespace isam
