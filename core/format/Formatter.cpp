#include "format/Formatter.h"

#include "syntax/Tokens.h"

#include <algorithm>
#include <vector>

namespace isam::format {

namespace {

using syntax::Token;
using syntax::TokenKind;

bool isBreak(char c) {
  return c == '\n' || c == '\r';
}
bool isBlank(char c) {
  return c == ' ' || c == '\t' || c == '\f';
}
bool isWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The column after `s` when it starts at `column`, as an editor shows it: a UTF-8 character is
// one column, a tab moves to the next multiple of 8, and a line break goes back to 0.
size_t advanceColumn(size_t column, std::string_view s) {
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '\n' || c == '\r')
      column = 0;
    else if (c == '\t')
      column = column / 8 * 8 + 8;
    else if ((c & 0xC0) != 0x80)
      ++column;
  }
  return column;
}

// Where the line after the last line break in s[from, to) starts, or `from` if there is none.
size_t afterLastBreak(std::string_view s, size_t from, size_t to) {
  for (size_t i = to; i > from; --i)
    if (isBreak(s[i - 1]))
      return i;
  return from;
}

// Line breaks in whitespace: CRLF, LF and a lone CR are one each.
uint32_t countBreaks(std::string_view s) {
  uint32_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n' || (s[i] == '\r' && (i + 1 == s.size() || s[i + 1] != '\n')))
      ++n;
  }
  return n;
}

// What is kept as written: the rest of the line after an unterminated string, and everything
// after an unterminated block comment (the user is probably in the middle of typing them).
enum Verbatim : uint8_t { Formatted = 0, RestOfLine = 1, RestOfFile = 2 };

// The original text's tokens and the whitespace around them.
struct Analysis {
  std::string_view text;
  std::vector<Token> tokens;
  std::vector<uint32_t> breaks;      // line breaks between token i - 1 and token i
  std::vector<std::string_view> gap; // the whitespace before token i after its last line break
  std::vector<size_t> column;        // token i's column in the original
  std::vector<uint8_t> verbatim;     // a Verbatim
  bool crlf = false;
};

// A token's text as formatted: a line comment loses its trailing blanks (the grammar makes
// them part of the comment, but they are trailing whitespace all the same).
std::string_view formattedText(std::string_view text, const Token &t) {
  std::string_view s = syntax::tokenText(text, t);
  if (t.kind == TokenKind::LineComment)
    while (!s.empty() && isBlank(s.back()))
      s.remove_suffix(1);
  return s;
}

Analysis analyse(std::string_view text) {
  Analysis a;
  a.text = text;
  a.tokens = syntax::lex(text);
  size_t n = a.tokens.size();
  a.breaks.resize(n);
  a.gap.resize(n);
  a.column.resize(n);
  a.verbatim.assign(n, Formatted);
  size_t pos = 0, column = 0;
  for (size_t i = 0; i < n; ++i) {
    const Token &t = a.tokens[i];
    std::string_view before = text.substr(pos, t.begin - pos);
    a.breaks[i] = countBreaks(before);
    size_t gapStart = afterLastBreak(text, pos, t.begin);
    a.gap[i] = text.substr(gapStart, t.begin - gapStart);
    a.column[i] = column = advanceColumn(column, before);
    column = advanceColumn(column, syntax::tokenText(text, t));
    pos = t.end;
  }
  for (size_t i = 0; i < n; ++i) {
    const Token &t = a.tokens[i];
    if (t.kind == TokenKind::Unexpected && syntax::tokenText(text, t) == "\"") {
      for (size_t j = i + 1; j < n && a.breaks[j] == 0; ++j)
        a.verbatim[j] = std::max<uint8_t>(a.verbatim[j], RestOfLine);
    }
    // '/' and '*' next to each other are a comment that never ends (else they would have been
    // one BlockComment token).
    if (i + 1 < n && t.kind == TokenKind::Punctuation && syntax::tokenText(text, t) == "/" &&
        a.tokens[i + 1].begin == t.end && syntax::tokenText(text, a.tokens[i + 1]) == "*") {
      std::fill(a.verbatim.begin() + i, a.verbatim.end(), RestOfFile);
      break;
    }
  }
  // The first line break between tokens decides (a block comment's or a string's, which may
  // hold an escaped one, are the token's own).
  for (size_t i = 0, from = 0; i <= n; ++i) {
    size_t to = i < n ? a.tokens[i].begin : text.size();
    size_t at = text.substr(0, to).find_first_of("\r\n", from);
    if (at != std::string_view::npos) {
      a.crlf = text.compare(at, 2, "\r\n") == 0;
      break;
    }
    from = i < n ? a.tokens[i].end : to;
  }
  return a;
}

bool isAny(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// Keywords that can only begin a declaration or an item: a line starting with one starts a new
// statement even when the previous one lacks its ';'.
bool startsDeclaration(std::string_view word) {
  return isAny(word, {"import", "kernel", "instance", "local", "schedule", "target", "llvm",
                      "memory", "registers", "unit", "instr", "move", "system", "host", "device",
                      "shared", "link"});
}

// What a block holds, from the last keyword before its '{' that introduces a block.
enum class Block { None, Code, Target, Properties, Schedule, System };

Block blockOf(std::string_view keyword) {
  if (isAny(keyword, {"kernel", "instr", "move"}))
    return Block::Code;
  if (keyword == "target")
    return Block::Target;
  if (isAny(keyword, {"memory", "registers", "unit", "cost", "link"}))
    return Block::Properties;
  if (keyword == "schedule")
    return Block::Schedule;
  if (keyword == "system")
    return Block::System;
  return Block::None;
}

// One formatting pass over the analysed text; `forced[i]` puts a space before token i where
// the spacing rules would put none (see formatText).
class Layout {
public:
  Layout(const Analysis &a, size_t width, const std::vector<bool> &forced)
      : a_(a), width_(width), forced_(forced), eol_(a.crlf ? "\r\n" : "\n") {}

  // The formatted text; token i is placed at [placed[i], placedEnd[i]) in it.
  std::string run(std::vector<size_t> &placed, std::vector<size_t> &placedEnd) {
    size_t n = a_.tokens.size();
    placed.assign(n, 0);
    placedEnd.assign(n, 0);
    unary_.assign(n, false);
    angle_.assign(n, false);
    for (size_t i = 0; i < n; ++i) {
      bool first = i == 0 || a_.breaks[i] > 0;
      if (first)
        startLine(i);
      else
        out_ += gapBefore(i);
      placed[i] = out_.size();
      size_t column = advanceColumn(column_, std::string_view(out_).substr(columnAt_));
      // The first token after an opening bracket, on its line: continuation lines aligned with
      // it stay so.
      if (openedBracket_ && !first && !isComment(i) && a_.verbatim[i] == Formatted) {
        brackets_.back().anchored = true;
        brackets_.back().anchorOld = a_.column[i];
        brackets_.back().anchorNew = column;
      }
      openedBracket_ = false;
      if (kind(i) == TokenKind::Unexpected && text(i) == "\"")
        lineHasQuote_ = true;
      std::string_view t = formattedText(a_.text, a_.tokens[i]);
      out_ += t;
      placedEnd[i] = out_.size();
      column_ = advanceColumn(column, t);
      columnAt_ = out_.size();
      if (std::any_of(t.begin(), t.end(), isBreak)) {
        // A block comment over several lines: what follows is on its last line.
        anchors_.clear();
      } else if (first ? lineAligned_ : !a_.gap[i].empty() && placed[i] > placedEnd[i - 1]) {
        // What a later line may align with: tokens after a space (before and after formatting:
        // `triple` in `llvm triple`, `+=`, a trailing comment; not the `]` of `B[i]`), and the
        // first token of a line that is itself aligned.
        anchors_.push_back({a_.column[i], column, isComment(i)});
      }
      if (significant(i))
        advance(i);
    }
    if (n > 0)
      endLine(n - 1);
    return std::move(out_);
  }

private:
  struct Anchor {
    size_t oldColumn, newColumn;
    bool comment;
  };
  struct Brace {
    Block kind;
    size_t statementIndent; // of the statement the block belongs to
  };
  struct Bracket {
    char open;
    size_t lineIndent; // of the line holding the bracket
    bool anchored = false;
    size_t anchorOld = 0, anchorNew = 0;
  };

  std::string_view text(size_t i) const { return syntax::tokenText(a_.text, a_.tokens[i]); }
  TokenKind kind(size_t i) const { return a_.tokens[i].kind; }
  bool isComment(size_t i) const {
    return kind(i) == TokenKind::LineComment || kind(i) == TokenKind::BlockComment;
  }
  bool is(size_t i, std::string_view punctuation) const {
    return kind(i) == TokenKind::Punctuation && text(i) == punctuation;
  }
  bool isKeyword(size_t i, std::string_view word) const {
    return kind(i) == TokenKind::Keyword && text(i) == word;
  }
  // Tokens that carry structure: not comments, not unexpected characters, not verbatim text.
  bool significant(size_t i) const {
    return !isComment(i) && kind(i) != TokenKind::Unexpected && a_.verbatim[i] == Formatted;
  }

  // `cost` and `asm` after an instruction's '}' continue its declaration.
  bool continuesClosedDeclaration(size_t i) const {
    return atBoundary_ && afterBrace_ && (isKeyword(i, "cost") || isKeyword(i, "asm"));
  }
  bool startsStatement(size_t i) const {
    if (atBoundary_)
      return !continuesClosedDeclaration(i);
    return !lineHasSignificant_ && kind(i) == TokenKind::Keyword && startsDeclaration(text(i));
  }

  // Hardware properties write units and ratios with a tight '/': `64 B/cycle`, `1/16`.
  bool inProperty() const {
    if (braces_.empty())
      return false;
    Block k = braces_.back().kind;
    return k == Block::Properties || (k == Block::Target && statementIsProperty_);
  }

  // Updates the structure with significant token i.
  void advance(size_t i) {
    bool starts = startsStatement(i);
    bool continues = !starts && continuesClosedDeclaration(i);
    if (starts) {
      statementIndent_ = std::max(lineIndent_, nested(braces_.size() * width_));
      statementIsProperty_ = kind(i) == TokenKind::Identifier;
      head_ = Block::None;
      brackets_.clear();
    } else if (continues) {
      statementIndent_ = closedIndent_;
      statementIsProperty_ = false;
    }
    if (starts || continues) {
      assigned_ = false;
      instanceStatement_ = isKeyword(i, "instance");
      pendingQuestions_ = 0;
    }
    atBoundary_ = afterBrace_ = false;
    unary_[i] =
        (is(i, "-") && !(previous_ != npos && (kind(previous_) == TokenKind::Identifier ||
                                               kind(previous_) == TokenKind::Number ||
                                               is(previous_, ")") || is(previous_, "]")))) ||
        is(i, "!");
    angle_[i] = isAngle(i);
    if (is(i, "?"))
      ++pendingQuestions_;
    else if (is(i, ":") && pendingQuestions_ > 0) // the ':' of `c ? a : b`
      --pendingQuestions_;
    if (isAny(text(i), {"=", "+=", "*=", "max=", "min="}))
      assigned_ = true;
    std::string_view t = text(i);
    if (kind(i) == TokenKind::Keyword && blockOf(t) != Block::None)
      head_ = blockOf(t);
    if (kind(i) == TokenKind::Punctuation) {
      if (t == "{") {
        braces_.push_back({head_, statementIndent_});
        atBoundary_ = true;
        brackets_.clear();
      } else if (t == "}") {
        closedIndent_ = braces_.empty() ? 0 : braces_.back().statementIndent;
        if (!braces_.empty())
          braces_.pop_back();
        atBoundary_ = afterBrace_ = true;
        brackets_.clear();
      } else if (t == ";") {
        atBoundary_ = true;
        brackets_.clear();
      } else if (t == "(" || t == "[" || (t == "<" && angle_[i])) {
        brackets_.push_back({t[0], lineIndent_});
        openedBracket_ = true;
      } else if (t == ")" || t == "]" || (t == ">" && angle_[i])) {
        if (matchingBracket(t[0]) != npos)
          brackets_.pop_back();
      }
    }
    previous2_ = previous_;
    previous_ = i;
    lineHasSignificant_ = true;
  }

  // Whether token i (a '<' or '>' not yet advanced over) brackets size parameters or arguments
  // (`kernel k<N>`, `instance x = k<4>`) rather than compares: a '<' after a name outside a
  // statement's value, a '>' that closes one.
  bool isAngle(size_t i) const {
    if (is(i, "<"))
      return previous_ != npos && kind(previous_) == TokenKind::Identifier &&
             (!assigned_ || instanceStatement_);
    return is(i, ">") && matchingBracket('>') != npos;
  }

  // The innermost unclosed bracket if `close` closes it, else npos. (A mismatched closer
  // closes nothing: the brackets are forgotten at the end of the statement anyway.)
  size_t matchingBracket(char close) const {
    char open = close == ')' ? '(' : close == ']' ? '[' : '<';
    return !brackets_.empty() && brackets_.back().open == open ? brackets_.size() - 1 : npos;
  }

  const Anchor *findAnchor(size_t oldColumn, bool commentsOnly) const {
    for (const Anchor &anchor : previousAnchors_)
      if (anchor.oldColumn == oldColumn && (anchor.comment || !commentsOnly))
        return &anchor;
    return nullptr;
  }

  // Ends the line whose last token is `last`. After an unterminated string on the line, a '\\'
  // ending it (a stray one, or the last character of a `//` comment that lost its trailing
  // blanks) would escape the line break and let the string go on, maybe to a closing quote:
  // it keeps a space after it. (With the space such a string ends no later than it did, and it
  // is unterminated either way, so the tokens are the same.)
  void endLine(size_t last) {
    if (lineHasQuote_ && formattedText(a_.text, a_.tokens[last]).back() == '\\')
      out_ += ' ';
    out_ += eol_;
  }

  void startLine(size_t i) {
    size_t blank = 0;
    if (i > 0) {
      endLine(i - 1);
      blank = a_.breaks[i] - 1;
      bool afterOpen = is(i - 1, "{") && a_.verbatim[i - 1] == Formatted;
      bool beforeClose = is(i, "}") && a_.verbatim[i] == Formatted;
      if (blank > 0 && !afterOpen && !beforeClose)
        out_ += eol_;
    }
    column_ = 0;
    columnAt_ = out_.size();
    previousAnchors_.clear();
    if (blank == 0)
      std::swap(previousAnchors_, anchors_);
    anchors_.clear();
    lineAligned_ = false;
    lineHasSignificant_ = lineHasQuote_ = false;
    if (a_.verbatim[i] == RestOfFile) {
      out_ += a_.gap[i];
      return;
    }
    lineIndent_ = indent(i);
    out_.append(lineIndent_, ' ');
  }

  // Indentation computed from nesting stops somewhere, so that hostile input (a '{' on each of
  // 100,000 lines) cannot make the output quadratic in size. Alignment, which copies a column of
  // the line above, needs no bound.
  static constexpr size_t maxIndent = 200;
  size_t nested(size_t columns) const { return std::min(columns, maxIndent); }

  // The indentation of the line starting with token i.
  size_t indent(size_t i) {
    size_t n = a_.tokens.size();
    // The line's first token that is not a comment decides (comments before it follow it).
    size_t f = i;
    while (f < n && isComment(f) && (f == i || a_.breaks[f] == 0))
      ++f;
    bool commentOnly = f == n || (f != i && a_.breaks[f] > 0);
    size_t depth = braces_.size();
    if (commentOnly) {
      if (const Anchor *anchor = findAnchor(a_.column[i], true)) {
        lineAligned_ = true;
        return anchor->newColumn;
      }
      return atBoundary_ ? nested(depth * width_) : continuation(i);
    }
    if (!significant(f))
      return atBoundary_ ? nested(depth * width_) : continuation(i);
    if (is(f, "}"))
      return nested((depth > 0 ? depth - 1 : 0) * width_);
    if (startsStatement(f))
      return nested(depth * width_);
    if (is(f, "{"))
      return statementIndent_;
    if (is(f, ")") || is(f, "]") || is(f, ">")) {
      size_t at = matchingBracket(text(f)[0]);
      if (at != npos)
        return brackets_[at].lineIndent;
    }
    return continuation(i);
  }

  // A continuation line: aligned as it was, else indented twice past its statement's line or
  // the line of its innermost unclosed bracket.
  size_t continuation(size_t i) {
    size_t old = a_.column[i];
    if (!brackets_.empty() && brackets_.back().anchored && brackets_.back().anchorOld == old) {
      lineAligned_ = true;
      return brackets_.back().anchorNew;
    }
    if (const Anchor *anchor = findAnchor(old, false)) {
      lineAligned_ = true;
      return anchor->newColumn;
    }
    size_t base = !brackets_.empty()           ? brackets_.back().lineIndent
                  : atBoundary_ && afterBrace_ ? closedIndent_
                                               : statementIndent_;
    return nested(base + 2 * width_);
  }

  std::string gapBefore(size_t j) const {
    size_t i = j - 1;
    if (a_.verbatim[j] != Formatted || kind(i) == TokenKind::Unexpected ||
        kind(j) == TokenKind::Unexpected || isComment(i) || isComment(j)) {
      if (a_.gap[j].empty() && (kind(j) == TokenKind::LineComment || forced_[j]))
        return std::string(1, ' ');
      return std::string(a_.gap[j]);
    }
    size_t spaces = spacesBetween(i, j);
    if (spaces == 0 && (forced_[j] || wouldJoin(i, j)))
      spaces = 1;
    return std::string(spaces, ' ');
  }

  // The canonical spacing between significant tokens i and j = i + 1 on one line.
  size_t spacesBetween(size_t i, size_t j) const {
    if (is(j, ",") || is(j, ";") || is(j, ")") || is(j, "]"))
      return 0;
    if (is(i, "(") || is(i, "[") || (is(i, "<") && angle_[i]) || (is(j, ">") && isAngle(j)))
      return 0;
    if (is(i, ".") || is(j, ".") || is(i, "..") || is(j, ".."))
      return 0;
    if (is(j, ":") && pendingQuestions_ > 0) // `c ? a : b`
      return 1;
    if (is(j, ":")) // `memory SPAD : DRAM`, but `A: f32`, `tile L1: n 64`
      return previous2_ != npos &&
                     (isKeyword(previous2_, "memory") || isKeyword(previous2_, "registers"))
                 ? 1
                 : 0;
    if (is(j, "("))
      return kind(i) == TokenKind::Identifier || is(i, ">") || unary_[i] ? 0 : 1;
    if (is(j, "["))
      return kind(i) == TokenKind::Identifier || is(i, "]") || is(i, ")") ? 0 : 1;
    if (is(j, "<") && isAngle(j))
      return 0;
    if (is(i, "{") && is(j, "}"))
      return 0;
    if (unary_[i])
      return is(j, "-") ? 1 : 0;
    if (is(i, "/") || is(j, "/"))
      return inProperty() ? 0 : 1;
    return 1;
  }

  // Whether tokens i and j written together would lex as something else. (formatText checks
  // the whole result anyway; this avoids a second pass in the cases that can be foreseen.)
  bool wouldJoin(size_t i, size_t j) const {
    char x = text(i).back(), y = text(j).front();
    return (isWordChar(x) && isWordChar(y)) || (x == '-' && y == '>') || (x == '.' && y == '.') ||
           ((x == '+' || x == '*' || x == '<' || x == '>' || x == '=' || x == '!') && y == '=') ||
           (x == '&' && y == '&') || (x == '|' && y == '|') ||
           (x == '/' && (y == '/' || y == '*')) ||
           (kind(i) == TokenKind::Number && text(j) == ".") ||
           (kind(i) == TokenKind::Identifier && (text(i) == "max" || text(i) == "min") && y == '=');
  }

  static constexpr size_t npos = size_t(-1);

  const Analysis &a_;
  size_t width_;
  const std::vector<bool> &forced_;
  std::string eol_;

  std::string out_;
  size_t column_ = 0, columnAt_ = 0;              // the column at out_[columnAt_]
  size_t lineIndent_ = 0;                         // of the current line
  std::vector<Anchor> anchors_, previousAnchors_; // of the current and the previous line
  bool lineAligned_ = false;                      // the current line kept an alignment
  bool lineHasSignificant_ = false;               // advance() saw a token of the current line
  bool lineHasQuote_ = false;                     // the line has an unterminated string

  std::vector<Brace> braces_;
  std::vector<Bracket> brackets_; // unclosed in the current statement
  bool openedBracket_ = false;    // the previous token opened brackets_.back()
  bool atBoundary_ = true;        // the next significant token starts a statement...
  bool afterBrace_ = false;       // ...after a '}'
  size_t statementIndent_ = 0, closedIndent_ = 0;
  bool statementIsProperty_ = false;
  Block head_ = Block::None;
  size_t previous_ = npos, previous2_ = npos; // the last two significant tokens
  std::vector<bool> unary_;
  std::vector<bool> angle_;        // a '<' or '>' around size parameters or arguments
  bool assigned_ = false;          // the statement has passed its assignment operator
  bool instanceStatement_ = false; // the statement is `instance x = k<...>;`
  size_t pendingQuestions_ = 0;    // '?' of the statement whose ':' has not come yet
};

// "line L, column C" of a byte offset, 1-based.
std::string where(std::string_view text, size_t offset) {
  size_t line = 1 + countBreaks(text.substr(0, offset));
  size_t column = 1 + advanceColumn(0, text.substr(0, offset));
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

} // namespace

std::optional<std::string> formatText(std::string_view text, const FormatOptions &options,
                                      std::string *whyNot) {
  Analysis a = analyse(text);
  size_t n = a.tokens.size();
  if (n == 0)
    return std::string();
  size_t width = size_t(std::clamp(options.indentWidth, 0, 16));
  std::vector<bool> forced(n, false);
  // The spacing rules put no space between some tokens; where the two would then lex as one
  // (or as others), a space is forced and the layout redone. Each round fixes one place, and
  // wouldJoin foresees the usual ones, so this almost never takes a second round.
  for (int round = 0; round < 64; ++round) {
    std::vector<size_t> placed, placedEnd;
    std::string out = Layout(a, width, forced).run(placed, placedEnd);
    std::vector<Token> again = syntax::lex(out);
    size_t k = 0;
    while (k < n && k < again.size() && again[k].kind == a.tokens[k].kind &&
           formattedText(out, again[k]) == formattedText(text, a.tokens[k]))
      ++k;
    if (k == n && again.size() == n)
      return out;
    // Tokens before k came out unchanged, so token k starts where it was placed; if it is
    // longer, it swallowed tokens after it across a gap left empty.
    size_t grownEnd = k < again.size() ? again[k].end : out.size();
    size_t fix = 0;
    for (size_t j = k + 1; j < n && placed[j] < grownEnd && fix == 0; ++j)
      if (placed[j] == placedEnd[j - 1] && !forced[j])
        fix = j;
    if (fix == 0) {
      if (whyNot) {
        size_t at = k < n ? a.tokens[k].begin : text.size();
        *whyNot = "formatting would change the tokens at " + where(text, at) +
                  "; the text is left as it is";
      }
      return std::nullopt;
    }
    forced[fix] = true;
  }
  if (whyNot)
    *whyNot = "formatting did not settle; the text is left as it is";
  return std::nullopt;
}

} // namespace isam::format
