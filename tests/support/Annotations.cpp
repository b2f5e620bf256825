#include "support/Annotations.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace isam::test {

namespace {

[[noreturn]] void bad(const std::string &why) {
  throw std::invalid_argument("annotations: " + why);
}

} // namespace

Annotations::Annotations(std::string_view marked) {
  struct Open {
    std::string name;
    uint32_t begin;
  };
  std::vector<Open> open;
  for (size_t i = 0; i < marked.size();) {
    std::string name;
    size_t at = i;
    if (marked[i] == '$') {
      size_t j = i + 1;
      while (j < marked.size() &&
             (std::isalnum(static_cast<unsigned char>(marked[j])) || marked[j] == '_'))
        ++j;
      if (j == i + 1 || (marked.substr(j, 1) != "^" && marked.substr(j, 2) != "[["))
        bad("'$' must name a point '^' or a range '[['");
      name = std::string(marked.substr(i + 1, j - i - 1));
      at = j;
    }
    uint32_t here = uint32_t(code_.size());
    if (marked[at] == '^') {
      points_[name].push_back(here);
      i = at + 1;
    } else if (marked.substr(at, 2) == "[[") {
      open.push_back({name, here});
      i = at + 2;
    } else if (marked.substr(at, 2) == "]]" && !open.empty()) {
      ranges_[open.back().name].push_back({open.back().begin, here});
      open.pop_back();
      i = at + 2;
    } else {
      code_.push_back(marked[i]);
      ++i;
    }
  }
  if (!open.empty())
    bad("a range '" + open.back().name + "' is not closed");
  for (auto &[_, ranges] : ranges_) // in source order, an enclosing range first
    std::sort(ranges.begin(), ranges.end(), [](const ByteRange &a, const ByteRange &b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
    });
  lines_ = lsp::LineMap(code_);
}

std::vector<uint32_t> Annotations::pointOffsets(const std::string &name) const {
  auto it = points_.find(name);
  return it == points_.end() ? std::vector<uint32_t>{} : it->second;
}

uint32_t Annotations::pointOffset(const std::string &name) const {
  auto all = pointOffsets(name);
  if (all.size() != 1)
    bad("expected one point '" + name + "', found " + std::to_string(all.size()));
  return all.front();
}

lsp::Position Annotations::point(const std::string &name) const {
  return position(pointOffset(name));
}

std::vector<lsp::Position> Annotations::points(const std::string &name) const {
  std::vector<lsp::Position> out;
  for (uint32_t p : pointOffsets(name))
    out.push_back(position(p));
  return out;
}

std::vector<Annotations::ByteRange> Annotations::byteRanges(const std::string &name) const {
  auto it = ranges_.find(name);
  return it == ranges_.end() ? std::vector<ByteRange>{} : it->second;
}

Annotations::ByteRange Annotations::byteRange(const std::string &name) const {
  auto all = byteRanges(name);
  if (all.size() != 1)
    bad("expected one range '" + name + "', found " + std::to_string(all.size()));
  return all.front();
}

lsp::Range Annotations::range(const std::string &name) const {
  ByteRange r = byteRange(name);
  return {position(r.begin), position(r.end)};
}

std::vector<lsp::Range> Annotations::ranges(const std::string &name) const {
  std::vector<lsp::Range> out;
  for (const auto &r : byteRanges(name))
    out.push_back({position(r.begin), position(r.end)});
  return out;
}

} // namespace isam::test
