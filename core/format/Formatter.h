// The source formatter behind `isamap fmt`: one canonical layout of an .isam text.
//
// It works on tokens (syntax/Tokens.h), not on the AST, so it formats files with syntax errors
// too, and it only ever changes whitespace between tokens:
//
//  - Line breaks are the author's: lines are never joined or split. Runs of blank lines become
//    one; blank lines at the start of the file, right after a line ending in `{` and right
//    before a line starting with `}` go; trailing whitespace goes; the text ends with exactly one
//    line break (an empty or all-whitespace text becomes empty). A text whose first line break
//    between tokens is CRLF gets CRLF line breaks (all of them, lone CRs included); any other
//    text gets LF. (Line breaks inside a token, a block comment or a string's escaped one, are
//    the token's.)
//  - Indentation: `indentWidth` spaces per open `{`. A continuation line (one that does not
//    start a statement or declaration) is indented twice `indentWidth` past the line its
//    statement starts on, or, inside an unclosed `(`, `[` or `<` opened on an earlier line,
//    past the line holding that bracket; a line starting with the closing bracket goes back to
//    that line's indentation, and one starting with `{` to the statement's. A continuation line
//    that was aligned with the token after its unclosed bracket, or with a token of the line
//    above (`features` under `triple`), stays aligned with it. `cost` and `asm` after an
//    instruction's `}` continue its declaration; a line starting with a declaration keyword
//    (`kernel`, `instr`, `memory`, ...) starts one, even after a missing `;`. Indentation from
//    nesting stops growing at 200 columns.
//  - Spacing within a line is canonical: one space around binary operators, `=`, `+=`,
//    `max=`, `min=`, `->`, after `,`, `;` and `:`, and around braces; none inside brackets,
//    before `,` `;` `)` `]`, around `..` and `.`, between a name and its `(`, `[` or `<`
//    (`<` and `>` are always brackets: the language has no comparisons), after a unary minus,
//    and around `/` in hardware properties (`64 B/cycle`, `per_cycle 1/16`; elsewhere `/` is
//    division). `memory NAME : PARENT` and `registers NAME : PARENT` have a space before `:`.
//  - Comments keep their text, but for the trailing blanks of a `//` comment (which the grammar
//    counts as part of it). The whitespace before a comment that follows a token on its line is
//    kept as written (at least one space before `//`), so aligned comments stay aligned. A line
//    holding only comments is indented like code, or stays aligned with a trailing comment of
//    the line above. The lines of a block comment after its first are left untouched.
//  - What the formatter cannot read is left as written: the whitespace around an unexpected
//    character, the rest of the line after an unterminated string, and everything after an
//    unterminated block comment (but for trailing whitespace and line breaks). A line with an
//    unterminated string that ends in a backslash keeps one space after it, which stops the
//    backslash from escaping the line break.
//
// Formatting is idempotent, and every shipped sample and hardware description is a fixed point.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace isam::format {

struct FormatOptions {
  int indentWidth = 2; // spaces per brace level (clamped to 0..16); continuations get twice this
};

// The formatted text. It never changes meaning: the sequence of tokens (comments included, with
// their text, `//` comments up to trailing blanks) is the same before and after, which is
// verified by lexing the result; when it would not be (which no input is known to cause), the
// result is std::nullopt and `whyNot`, if given, says where.
std::optional<std::string> formatText(std::string_view text, const FormatOptions &options = {},
                                      std::string *whyNot = nullptr);

} // namespace isam::format
