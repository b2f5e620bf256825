#include "lsp/Positions.h"

#include <algorithm>

namespace isam::lsp {

Utf8Step utf8Step(std::string_view text, uint32_t at) {
  auto byte = [&](uint32_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(at);
  uint32_t length = lead < 0x80         ? 1
                    : (lead >> 5) == 6  ? 2
                    : (lead >> 4) == 14 ? 3
                    : (lead >> 3) == 30 ? 4
                                        : 0;
  if (length <= 1 || at + length > text.size())
    return {1, 1};
  for (uint32_t i = 1; i < length; ++i)
    if ((byte(at + i) & 0xC0) != 0x80)
      return {1, 1};
  return {length, length == 4 ? 2u : 1u};
}

LineMap::LineMap(std::string_view text) : text_(text) {
  starts_.push_back(0);
  for (uint32_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      starts_.push_back(i + 1);
}

uint32_t LineMap::lineEnd(uint32_t line) const {
  uint32_t end = line + 1 < starts_.size() ? starts_[line + 1] - 1 : uint32_t(text_.size());
  if (end > starts_[line] && line + 1 < starts_.size() && text_[end - 1] == '\r')
    --end;
  return end;
}

uint32_t LineMap::offset(Position p) const {
  if (p.line >= starts_.size())
    return uint32_t(text_.size());
  uint32_t at = starts_[p.line], end = lineEnd(p.line), units = 0;
  while (at < end && units < p.character) {
    Utf8Step s = utf8Step(text_, at);
    // A position inside a surrogate pair is not a character boundary; it means the pair's end.
    units += s.units;
    at += s.bytes;
  }
  return std::min(at, end);
}

Position LineMap::position(uint32_t offset) const {
  offset = std::min(offset, uint32_t(text_.size()));
  uint32_t line =
      uint32_t(std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin()) - 1;
  uint32_t at = starts_[line], units = 0;
  while (at < offset) {
    Utf8Step s = utf8Step(text_, at);
    at += s.bytes;
    units += s.units;
  }
  return {line, units};
}

} // namespace isam::lsp
