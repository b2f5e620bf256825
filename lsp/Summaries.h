// Statement summaries (Focus.h: how a statement maps and runs) kept across the versions of the
// documents, so that an edit schedules again only the kernels it touched: code lenses and hovers
// after an edit are answered from here for every other kernel.
//
// A summary is a function of the kernel's declaration (its schedule blocks included), the
// instance that stands for it, the target, and what else the analysis read: the descriptions
// and files it imported, the targets and systems the document declares, its imports, the
// settings that steer the search and the tuning database. The key holds the kernel's and the
// instance's text verbatim and the rest as the analysis's context digest (Analysis::
// summaryContext), so an edit to a comment between kernels, or to another kernel, keeps the
// entry, and any change to what the summary depends on misses it. Entries are never wrong, only
// unused; the cache forgets everything when it grows past kMaxEntries.
#pragma once

#include "lsp/Focus.h"

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace isam::lsp {

class SummaryCache {
public:
  struct Entry {
    std::optional<StatementSummary> summary;
    std::string problem; // why there is none
  };
  static constexpr size_t kMaxEntries = 20000;

  std::optional<Entry> find(const std::string &key);
  void put(const std::string &key, Entry entry);
  size_t size() const;
  size_t hits() const; // finds that found an entry

private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  size_t hits_ = 0;
};

// The key of the focus's statement summary; nullopt when the focus is not on a statement.
// Needs the analysis's lock.
std::optional<std::string> summaryKey(Analysis &a, const Focus &f);

} // namespace isam::lsp
