// Owns the text of every file a compilation reads and converts byte offsets to lines.
//
// Contract: a FileId stays valid for the SourceManager's lifetime and its text never changes;
// an edited document is added again as a new file. Ranges everywhere in isamap are byte
// offsets into these texts, half-open [begin, end).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace isam {

using FileId = uint32_t;
inline constexpr FileId kNoFile = UINT32_MAX;

struct SourceRange {
  FileId file = kNoFile;
  uint32_t begin = 0;
  uint32_t end = 0;

  bool valid() const { return file != kNoFile; }
  // The smallest range covering both (same file assumed; an invalid side is ignored).
  SourceRange to(const SourceRange &other) const;
};

// 0-based line and byte column.
struct LineColumn {
  uint32_t line = 0;
  uint32_t column = 0;
};

class SourceManager {
public:
  FileId addFile(std::string path, std::string text);

  const std::string &path(FileId id) const { return files_[id].path; }
  const std::string &text(FileId id) const { return files_[id].text; }
  size_t fileCount() const { return files_.size(); }

  LineColumn lineColumn(FileId id, uint32_t offset) const;
  uint32_t offsetOf(FileId id, LineColumn position) const;
  std::string_view lineText(FileId id, uint32_t line) const;
  uint32_t lineCount(FileId id) const { return uint32_t(files_[id].lineStarts.size()); }

  // The file most recently added under this path, if any.
  std::optional<FileId> find(std::string_view path) const;

private:
  struct File {
    std::string path;
    std::string text;
    std::vector<uint32_t> lineStarts;
  };
  std::vector<File> files_;
};

} // namespace isam
