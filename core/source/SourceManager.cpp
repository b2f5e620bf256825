#include "source/SourceManager.h"

#include <algorithm>

namespace isam {

SourceRange SourceRange::to(const SourceRange &other) const {
  if (!valid())
    return other;
  if (!other.valid())
    return *this;
  return {file, std::min(begin, other.begin), std::max(end, other.end)};
}

FileId SourceManager::addFile(std::string path, std::string text) {
  File f{std::move(path), std::move(text), {0}};
  for (uint32_t i = 0; i < f.text.size(); ++i)
    if (f.text[i] == '\n')
      f.lineStarts.push_back(i + 1);
  files_.push_back(std::move(f));
  return FileId(files_.size() - 1);
}

LineColumn SourceManager::lineColumn(FileId id, uint32_t offset) const {
  const auto &starts = files_[id].lineStarts;
  offset = std::min<uint32_t>(offset, uint32_t(files_[id].text.size()));
  auto it = std::upper_bound(starts.begin(), starts.end(), offset);
  uint32_t line = uint32_t(it - starts.begin()) - 1;
  return {line, offset - starts[line]};
}

uint32_t SourceManager::offsetOf(FileId id, LineColumn position) const {
  const auto &f = files_[id];
  if (position.line >= f.lineStarts.size())
    return uint32_t(f.text.size());
  uint32_t start = f.lineStarts[position.line];
  uint32_t lineEnd = position.line + 1 < f.lineStarts.size() ? f.lineStarts[position.line + 1]
                                                             : uint32_t(f.text.size());
  return std::min(start + position.column, lineEnd);
}

std::string_view SourceManager::lineText(FileId id, uint32_t line) const {
  const auto &f = files_[id];
  if (line >= f.lineStarts.size())
    return {};
  uint32_t start = f.lineStarts[line];
  uint32_t end = line + 1 < f.lineStarts.size() ? f.lineStarts[line + 1] : uint32_t(f.text.size());
  std::string_view view(f.text.data() + start, end - start);
  while (!view.empty() && (view.back() == '\n' || view.back() == '\r'))
    view.remove_suffix(1);
  return view;
}

std::optional<FileId> SourceManager::find(std::string_view path) const {
  for (size_t i = files_.size(); i-- > 0;)
    if (files_[i].path == path)
      return FileId(i);
  return std::nullopt;
}

} // namespace isam
