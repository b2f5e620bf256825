#include "lsp/Documents.h"
#include "lsp/Uri.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace isam::lsp {

std::optional<std::string> readTextFile(const std::string &path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return std::nullopt;
  return text.str();
}

std::string canonicalPath(const std::string &path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

void applyChange(std::string &text, const TextChange &change) {
  if (!change.range) {
    text = change.text;
    return;
  }
  LineMap lines(text);
  uint32_t begin = lines.offset(change.range->first), end = lines.offset(change.range->second);
  if (end < begin)
    std::swap(begin, end);
  text.replace(begin, end - begin, change.text);
}

void DocumentStore::open(Document doc) {
  std::lock_guard lock(mutex_);
  std::string uri = doc.uri;
  documents_[uri] = std::move(doc);
}

bool DocumentStore::change(const std::string &uri, int64_t version,
                           const std::vector<TextChange> &changes) {
  std::lock_guard lock(mutex_);
  auto it = documents_.find(uri);
  if (it == documents_.end())
    return false;
  for (const auto &c : changes)
    applyChange(it->second.text, c);
  it->second.version = version;
  return true;
}

void DocumentStore::close(const std::string &uri) {
  std::lock_guard lock(mutex_);
  documents_.erase(uri);
}

std::optional<Document> DocumentStore::get(const std::string &uri) const {
  std::lock_guard lock(mutex_);
  auto it = documents_.find(uri);
  if (it == documents_.end())
    return std::nullopt;
  return it->second;
}

std::vector<Document> DocumentStore::all() const {
  std::lock_guard lock(mutex_);
  std::vector<Document> out;
  for (const auto &[_, d] : documents_)
    out.push_back(d);
  return out;
}

std::map<std::string, std::string> DocumentStore::overlays() const {
  std::lock_guard lock(mutex_);
  std::map<std::string, std::string> out;
  for (const auto &[_, d] : documents_)
    if (uriToPath(d.uri))
      out[canonicalPath(d.path)] = d.text;
  return out;
}

} // namespace isam::lsp
