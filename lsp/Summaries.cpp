#include "lsp/Summaries.h"

namespace isam::lsp {

std::optional<SummaryCache::Entry> SummaryCache::find(const std::string &key) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end())
    return std::nullopt;
  ++hits_;
  return it->second;
}

size_t SummaryCache::hits() const {
  std::lock_guard lock(mutex_);
  return hits_;
}

void SummaryCache::put(const std::string &key, Entry entry) {
  std::lock_guard lock(mutex_);
  if (entries_.size() >= kMaxEntries)
    entries_.clear();
  entries_.insert_or_assign(key, std::move(entry));
}

size_t SummaryCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

namespace {

std::string textOf(Analysis &a, const SourceRange &r) {
  if (!r.valid())
    return {};
  const std::string &text = a.sources().text(r.file);
  if (r.begin > r.end || r.end > text.size())
    return {};
  return text.substr(r.begin, r.end - r.begin);
}

} // namespace

std::optional<std::string> summaryKey(Analysis &a, const Focus &f) {
  if (!f.kernel || !f.statement)
    return std::nullopt;
  const ast::InstanceDecl *inst = a.instanceDecl(f.subject);
  // Lengths first, so that no text can end one part and begin the next.
  std::string kernel = textOf(a, f.kernel->range);
  std::string instance = inst ? textOf(a, inst->range) : "-";
  return a.summaryContext() + '\n' + f.subject.target + '\n' + std::to_string(*f.statement) + '\n' +
         std::to_string(kernel.size()) + ':' + kernel + std::to_string(instance.size()) + ':' +
         instance;
}

} // namespace isam::lsp
