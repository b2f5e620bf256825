// Marked-up source for tests of editor features: an .isam snippet with the places a test talks
// about marked in it, after clangd's Annotations.
//
//   kernel k<N>(A: f32[N]) -> (B: f32[N]) {
//     [[B]][i] = $read[[A^]][i];
//   }
//
// `^` marks a point, `[[` and `]]` a range (ranges may nest); `$name^` and `$name[[` name them.
// The markers are removed from code(); points and ranges are given in the text without them, as
// byte offsets and as LSP positions (UTF-16, lsp/Positions.h). Markup that does not balance, or
// asking for the one point or range of a name that has none or several, throws
// std::invalid_argument, which fails the test that did it.
//
// isam indexes with `[`, so a range marked right after one (`C[[[i]], j]`) is ambiguous: mark
// it with a name (`C[$i[[i]], j]`), whose `$` separates the brackets.
#pragma once

#include "lsp/Positions.h"
#include "lsp/Protocol.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace isam::test {

class Annotations {
public:
  struct ByteRange {
    uint32_t begin = 0, end = 0;
    bool operator==(const ByteRange &) const = default;
  };

  explicit Annotations(std::string_view marked);

  const std::string &code() const { return code_; }

  uint32_t pointOffset(const std::string &name = "") const;
  std::vector<uint32_t> pointOffsets(const std::string &name = "") const;
  lsp::Position point(const std::string &name = "") const;
  std::vector<lsp::Position> points(const std::string &name = "") const;

  ByteRange byteRange(const std::string &name = "") const;
  std::vector<ByteRange> byteRanges(const std::string &name = "") const;
  lsp::Range range(const std::string &name = "") const;
  std::vector<lsp::Range> ranges(const std::string &name = "") const;

  lsp::Position position(uint32_t offset) const { return lines_.position(offset); }

private:
  std::string code_;
  std::map<std::string, std::vector<uint32_t>> points_;
  std::map<std::string, std::vector<ByteRange>> ranges_;
  lsp::LineMap lines_{""};
};

} // namespace isam::test
