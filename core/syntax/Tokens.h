// The tokens of an .isam text, for tools that work below the AST: the formatter, and the
// language server's semantic tokens. They are exactly the tokens the parser reads (the same
// scanner produces both), comments included, with no parser or ANTLR type in sight.
//
// Contract: `lex` never fails and never throws. Every byte of the text is either inside exactly
// one token or is whitespace (' ', '\t', '\r', '\n', '\f'); tokens come in text order and do
// not overlap. Offsets are byte offsets into the text given, whatever it holds (non-ASCII text,
// invalid UTF-8, NUL bytes); like SourceRange's they are 32-bit, so a text is under 4 GiB.
//
// (This header is also compiled as C++17, by syntax/Parser.cpp.)
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace isam::syntax {

enum class TokenKind {
  Keyword,      // a fixed-text token that is a word: kernel, target, in, out, ...
  Identifier,   // names, and the words the grammar leaves to sema: f32, GiB, max, ...
  Number,       // 12, 3.6, 1e-3
  String,       // "..." on one line, quotes included
  LineComment,  // from // to the end of the line (the line break excluded)
  BlockComment, // /* ... */, possibly over several lines
  Punctuation,  // operators and brackets: += max= min= -> .. = + - * / ( ) [ ] { } < > , : ; .
  // A character no rule accepts. A non-ASCII character outside a comment or string is one token
  // (its whole UTF-8 sequence); an invalid byte is one token by itself. An unterminated string
  // is an Unexpected '"' followed by the tokens of the rest of the line, and an unterminated
  // block comment is '/' and '*' (Punctuation) followed by the tokens of the rest of the file:
  // as the parser sees them.
  Unexpected,
};

struct Token {
  TokenKind kind;
  uint32_t begin, end; // byte offsets into the text, half-open
};

// The text's tokens in order; whitespace is not a token.
std::vector<Token> lex(std::string_view text);

inline std::string_view tokenText(std::string_view text, const Token &t) {
  return text.substr(t.begin, t.end - t.begin);
}

// The grammar's keywords (its fixed-text tokens that are words: `kernel`, `in`, `link`, ...),
// in grammar order, read from the generated lexer's vocabulary: the one list, so tools cannot
// drift from the grammar. A keyword is never an identifier; `lex` gives it as TokenKind::Keyword.
const std::vector<std::string_view> &keywords();
bool isKeyword(std::string_view word);

} // namespace isam::syntax
