#include "lsp/WorkspaceIndex.h"
#include "lsp/Convert.h"
#include "lsp/Uri.h"

#include "driver/Session.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

namespace isam::lsp {

namespace fs = std::filesystem;

std::string declarationKey(const std::string &canonicalFile, uint32_t offset) {
  return canonicalFile + '#' + std::to_string(offset);
}

namespace {

// What a file is now: an open document's text (its hash), or the file's modification time and
// size on disk; "-" if it cannot be read.
std::string stampOf(const std::string &path, const std::map<std::string, std::string> &overlays) {
  // (Appended, not concatenated: GCC 12 warns wrongly about `"o" + std::to_string(...)`.)
  std::string stamp;
  if (auto it = overlays.find(path); it != overlays.end()) {
    stamp.append("o").append(std::to_string(std::hash<std::string>{}(it->second)));
    return stamp.append(":").append(std::to_string(it->second.size()));
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return "-";
  stamp.append("d").append(
      std::to_string(int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec));
  return stamp.append(":").append(std::to_string(st.st_size));
}

// The stamp of a file whose text `read` was read from it earlier. A file written between that
// read and now has a new stamp but other text than the entry was made from: the stamp is taken
// before reading the file again, and kept only if that read still gives `read` (a later write
// changes the stamp again, so the entry is never taken for current by mistake).
std::string stampOf(const std::string &path, const std::string &read,
                    const std::map<std::string, std::string> &overlays) {
  std::string stamp = stampOf(path, overlays);
  if (overlays.count(path) || stamp == "-")
    return stamp;
  std::optional<std::string> now = readTextFile(path);
  return now && *now == read ? stamp : "changed";
}

} // namespace

// The stamps of files now, each found once per use of the cache.
class WorkspaceIndex::Stamps {
public:
  explicit Stamps(const std::map<std::string, std::string> &overlays) : overlays_(overlays) {}
  // Whether every file `e` read is as it was then.
  bool current(const IndexEntry &e) {
    return std::all_of(e.stamps.begin(), e.stamps.end(),
                       [&](const auto &s) { return of(s.first) == s.second; });
  }

private:
  const std::string &of(const std::string &path) {
    auto it = known_.find(path);
    if (it == known_.end())
      it = known_.emplace(path, stampOf(path, overlays_)).first;
    return it->second;
  }
  const std::map<std::string, std::string> &overlays_;
  std::map<std::string, std::string> known_;
};

namespace {

// Directories a scan does not enter: hidden ones, npm's and CMake build trees (which hold
// copies of sources).
bool skipped(const fs::path &dir) {
  std::string name = dir.filename().string();
  std::error_code ec;
  return (!name.empty() && name[0] == '.') || name == "node_modules" ||
         fs::exists(dir / "CMakeCache.txt", ec);
}

std::vector<std::string> walk(const std::vector<std::string> &folders) {
  std::vector<std::string> out;
  for (const auto &folder : folders) {
    std::error_code ec;
    fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec),
        end;
    size_t visited = 0;
    for (; !ec && it != end && out.size() < WorkspaceIndex::kMaxFiles &&
           ++visited <= WorkspaceIndex::kMaxVisited;
         it.increment(ec)) {
      if (it->is_directory(ec)) {
        if (skipped(it->path()))
          it.disable_recursion_pending();
        continue;
      }
      if (it->path().extension() == ".isam" && it->is_regular_file(ec) &&
          it->file_size(ec) <= WorkspaceIndex::kMaxFileBytes)
        out.push_back(canonicalPath(it->path().string()));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Parses the file and its imports and keeps what IndexEntry holds.
std::shared_ptr<IndexEntry> indexFile(const std::string &path, std::string text,
                                      const Settings &settings,
                                      const std::map<std::string, std::string> &overlays) {
  auto entry = std::make_shared<IndexEntry>();
  entry->path = path;
  entry->uri = pathToUri(path);
  Session session(sessionOptions(settings, overlays));
  session.loadText(path, text);
  const SourceManager &sources = session.sources();
  std::vector<std::string> canonical;
  for (FileId f = 0; f < sources.fileCount(); ++f) {
    canonical.push_back(canonicalPath(sources.path(f)));
    entry->stamps[canonical.back()] = stampOf(canonical.back(), sources.text(f), overlays);
  }
  const ast::File *main = session.mainFile();
  if (!main)
    return entry;
  index::SymbolIndex ix = index::SymbolIndex::build(session.files());
  LineMap lines(text);
  auto range = [&](SourceRange r) { return Range{lines.position(r.begin), lines.position(r.end)}; };
  auto keyOf = [&](const index::Symbol &s) {
    return declarationKey(canonical[size_t(s.nameRange.file)], s.nameRange.begin);
  };
  const auto &symbols = ix.symbols();
  std::vector<int> top = ix.topLevel(main->id);
  auto declare = [&](int s) {
    const index::Symbol &sym = symbols[size_t(s)];
    entry->symbols.push_back(
        {SymbolInformation{sym.name,
                           symbolKindOf(sym.kind),
                           {entry->uri, range(sym.nameRange)},
                           sym.parent >= 0 ? symbols[size_t(sym.parent)].name : std::string()},
         keyOf(sym), sym.kind, range(sym.fullRange), sym.detail});
  };
  std::vector<std::pair<SourceRange, int>> containers; // top-level declarations, in order
  for (int s : top) {
    containers.push_back({symbols[size_t(s)].fullRange, int(entry->symbols.size())});
    declare(s);
    for (int c : ix.children(s))
      if (inOutline(symbols[size_t(c)].kind))
        declare(c);
  }
  for (const index::Occurrence &o : ix.occurrences(main->id)) {
    if (o.kind != index::OccurrenceKind::Symbol || o.symbol < 0)
      continue;
    int container = -1;
    for (const auto &[r, at] : containers)
      if (r.begin <= o.range.begin && o.range.end <= r.end)
        container = at;
    entry->uses.push_back(
        {keyOf(symbols[size_t(o.symbol)]), range(o.range), o.isDeclaration, container});
  }
  return entry;
}

} // namespace

WorkspaceIndex::WorkspaceIndex(Progress progress, Overlays overlays)
    : progress_(std::move(progress)), overlays_(std::move(overlays)), thread_([this] { run(); }) {}

WorkspaceIndex::~WorkspaceIndex() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void WorkspaceIndex::rescan(const Settings &settings) {
  {
    std::lock_guard lock(mutex_);
    // Entries made with another search path may resolve imports differently.
    if (settings.includeDirs != settings_.includeDirs ||
        settings.workspaceFolders != settings_.workspaceFolders ||
        settings.confineImports != settings_.confineImports) {
      entries_.clear();
      ++searchPathChanges_;
    }
    settings_ = settings;
    ++asked_;
  }
  wake_.notify_all();
}

std::vector<std::string> WorkspaceIndex::files() const {
  std::lock_guard lock(mutex_);
  return files_;
}

std::vector<std::string> WorkspaceIndex::walked() {
  std::vector<std::string> folders;
  uint64_t scan;
  {
    std::lock_guard lock(mutex_);
    if (walked_ == asked_)
      return files_;
    folders = settings_.workspaceFolders;
    scan = asked_;
  }
  std::vector<std::string> found = walk(folders);
  std::lock_guard lock(mutex_);
  if (scan > walked_) {
    walked_ = scan;
    files_ = found;
    // Files gone from the workspace are forgotten.
    for (auto it = entries_.begin(); it != entries_.end();)
      it = std::binary_search(files_.begin(), files_.end(), it->first) ? std::next(it)
                                                                       : entries_.erase(it);
  }
  return files_;
}

std::shared_ptr<const IndexEntry>
WorkspaceIndex::refresh(const std::string &path, const std::map<std::string, std::string> &overlays,
                        Stamps &stamps) {
  std::lock_guard working(work_);
  Settings settings;
  uint64_t made;
  {
    std::lock_guard lock(mutex_);
    made = searchPathChanges_;
    auto it = entries_.find(path);
    if (it != entries_.end() && stamps.current(*it->second))
      return it->second;
    settings = settings_;
  }
  std::optional<std::string> text = readTextFile(path);
  std::shared_ptr<const IndexEntry> entry =
      text ? indexFile(path, std::move(*text), settings, overlays) : nullptr;
  std::lock_guard lock(mutex_);
  if (made != searchPathChanges_) // made with a search path that has changed since
    return entry;
  if (entry)
    entries_[path] = entry;
  else
    entries_.erase(path);
  return entry;
}

std::vector<std::shared_ptr<const IndexEntry>>
WorkspaceIndex::fresh(const std::map<std::string, std::string> &overlays, const StopFn &stop) {
  std::vector<std::shared_ptr<const IndexEntry>> out;
  Stamps stamps(overlays);
  for (const auto &path : walked()) {
    if (stop && stop())
      break;
    if (overlays.count(path))
      continue;
    if (auto entry = refresh(path, overlays, stamps))
      out.push_back(std::move(entry));
  }
  return out;
}

void WorkspaceIndex::run() {
  uint64_t done = 0;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (done == asked_) {
      wake_.wait(lock);
      continue;
    }
    uint64_t scan = asked_;
    lock.unlock();
    std::vector<std::string> files = walked();
    std::map<std::string, std::string> overlays = overlays_ ? overlays_() : decltype(overlays){};
    // What needs indexing, so that progress counts only real work.
    std::vector<std::string> todo;
    Stamps stamps(overlays); // shared with refresh(): each file is looked at once per scan
    {
      std::lock_guard guard(mutex_);
      for (const auto &path : files) {
        auto it = entries_.find(path);
        if (!overlays.count(path) && (it == entries_.end() || !stamps.current(*it->second)))
          todo.push_back(path);
      }
    }
    bool reporting = !todo.empty() && progress_.begin;
    if (reporting)
      progress_.begin("Indexing the workspace");
    int reported = 0;
    for (size_t i = 0; i < todo.size(); ++i) {
      {
        std::lock_guard guard(mutex_);
        if (stopping_ || asked_ != scan)
          break;
      }
      refresh(todo[i], overlays, stamps);
      int percentage = int(100 * (i + 1) / todo.size());
      if (reporting && percentage >= reported + 10) {
        reported = percentage;
        progress_.report(std::to_string(i + 1) + " of " + std::to_string(todo.size()) + " files",
                         percentage);
      }
    }
    if (reporting)
      progress_.end();
    lock.lock();
    done = scan;
  }
}

} // namespace isam::lsp
