// LSP positions: a line and a character offset counted in UTF-16 code units (the protocol's
// default encoding, which every client supports), against isamap's byte offsets into UTF-8 text.
//
// Lines end at '\n' (a preceding '\r' belongs to the line ending). Out-of-range positions are
// clamped as the specification asks: a character past the line's end means the line's end, a
// line past the last means the end of the text. Bytes that are not valid UTF-8 count as one
// code unit each, so any text converts both ways without failing.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace isam::lsp {

struct Position {
  uint32_t line = 0;
  uint32_t character = 0;
  bool operator==(const Position &) const = default;
  auto operator<=>(const Position &) const = default; // line first, then character
};

// Owns a copy of the text, so that it stays valid however the original is stored.
class LineMap {
public:
  explicit LineMap(std::string_view text);

  uint32_t offset(Position p) const;
  Position position(uint32_t offset) const;
  uint32_t lineCount() const { return uint32_t(starts_.size()); }

private:
  // The end of line `line`'s content (before "\r\n" or "\n").
  uint32_t lineEnd(uint32_t line) const;

  std::string text_;
  std::vector<uint32_t> starts_;
};

// The length in bytes of the UTF-8 sequence starting with `lead`, and the UTF-16 code units it
// encodes (1 or 2); an invalid or truncated sequence is one byte, one unit.
struct Utf8Step {
  uint32_t bytes;
  uint32_t units;
};
Utf8Step utf8Step(std::string_view text, uint32_t at);

} // namespace isam::lsp
