// The documents the client has open: their text as the client sees it, kept in step by full and
// incremental changes (textDocument/didOpen, didChange, didClose).
//
// Versions are the client's: they only have to increase, and may jump (clients count in their
// own ways). The store is shared by the reading thread, which applies changes, and the analysis
// and request threads, which take snapshots; every member locks.
#pragma once

#include "lsp/Positions.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace isam::lsp {

struct Document {
  std::string uri;
  std::string path; // the filesystem path, or the URI for documents not on disk
  std::string languageId;
  int64_t version = 0;
  std::string text;
};

struct TextChange {
  std::optional<std::pair<Position, Position>> range; // none: the whole text
  std::string text;
};

class DocumentStore {
public:
  void open(Document doc);
  // Applies the changes in order; false (and nothing changed) if the document is not open.
  bool change(const std::string &uri, int64_t version, const std::vector<TextChange> &changes);
  void close(const std::string &uri);

  std::optional<Document> get(const std::string &uri) const;
  std::vector<Document> all() const;
  // Texts of the open documents by canonical path, for the compiler's overlays.
  std::map<std::string, std::string> overlays() const;

private:
  mutable std::mutex mutex_;
  std::map<std::string, Document> documents_;
};

// One change applied to a text (exposed for tests).
void applyChange(std::string &text, const TextChange &change);

// The whole text of a file on disk; nullopt if it cannot be read (or is a directory).
std::optional<std::string> readTextFile(const std::string &path);

// The canonical form of a path (the key the compiler's session uses for overlays).
std::string canonicalPath(const std::string &path);

} // namespace isam::lsp
