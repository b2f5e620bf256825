// The background index of the workspace's `.isam` files that are not open: what references,
// rename, workspace symbols and call hierarchy need of a file nobody opened, as clangd's
// background index keeps it.
//
// A scan walks the workspace folders for `.isam` files (skipping hidden directories,
// node_modules and CMake build trees; files over kMaxFileBytes are left out; at most kMaxFiles
// files and kMaxVisited directory entries per folder) and indexes each on
// the index's own thread, reporting work-done progress while it does. Indexing a file parses it
// and its imports (no semantic check, no target) and keeps only a compact entry: the symbols its
// text declares, and every name in its text with the declaration it resolves to, keyed by the
// declaring file's canonical path and offset (the key two analyses agree on).
//
// Entries are kept fresh lazily: fresh() first re-indexes, on the calling thread, every entry
// whose file or imports changed since (an open document's text is compared with the text read;
// a file on disk by its modification time and size), so a rename never edits stale offsets.
// fresh() also finishes the scan's work if the background has not yet. Open documents are left
// out of fresh()'s answer: their analyses are current and say more.
#pragma once

#include "lsp/Analysis.h"
#include "lsp/Protocol.h"

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace isam::lsp {

// The key of a declaration that analyses of different documents agree on: the canonical path of
// the declaring file and the byte offset of the declaring name.
std::string declarationKey(const std::string &canonicalFile, uint32_t offset);

struct IndexEntry {
  std::string path; // canonical
  std::string uri;
  // What the entry was made from: each file read (canonical path) with its stamp then.
  std::map<std::string, std::string> stamps;

  struct Declared {
    SymbolInformation info; // in the file itself
    std::string key;        // declarationKey of the symbol
    index::SymbolKind kind;
    Range fullRange; // the whole declaration
    std::string detail;
  };
  std::vector<Declared> symbols; // top-level symbols and their children, in source order

  struct Use {
    std::string key; // the declaration it resolves to (in this file or an import)
    Range range;
    bool isDeclaration = false;
    int container = -1; // the top-level symbol of `symbols` it appears in, or -1
  };
  std::vector<Use> uses; // every resolved name in the file's text
};

class WorkspaceIndex {
public:
  static constexpr size_t kMaxFileBytes = 1 << 20;
  static constexpr size_t kMaxFiles = 5000;
  // Directory entries a scan looks at per folder: a workspace opened at a home directory is not
  // walked to its end on every save.
  static constexpr size_t kMaxVisited = 200000;

  // Progress of a scan that indexes files: begin, reports (message, percentage), end.
  struct Progress {
    std::function<void(const std::string &title)> begin;
    std::function<void(const std::string &message, int percentage)> report;
    std::function<void()> end;
  };

  // The open documents' texts by canonical path, as the background indexes with them.
  using Overlays = std::function<std::map<std::string, std::string>()>;

  explicit WorkspaceIndex(Progress progress = {}, Overlays overlays = {});
  ~WorkspaceIndex();
  WorkspaceIndex(const WorkspaceIndex &) = delete;
  WorkspaceIndex &operator=(const WorkspaceIndex &) = delete;

  // Walks the folders of `settings` again (their files may have changed, appeared or gone) and
  // indexes in the background what is new or changed; `settings` also give the imports' search
  // path.
  void rescan(const Settings &settings);

  // The entries of every workspace file that is not among `overlays` (the open documents, by
  // canonical path), each up to date with the files on disk and `overlays`. Stops early, with
  // what it has, when `stop` says so.
  std::vector<std::shared_ptr<const IndexEntry>>
  fresh(const std::map<std::string, std::string> &overlays, const StopFn &stop = {});

  // The workspace's files found by the last scan (canonical paths), for tests and messages.
  std::vector<std::string> files() const;

private:
  void run();
  // Walks the folders if the scan asked for has not been walked yet; returns the files to index.
  std::vector<std::string> walked();
  // The entry of `path`, indexed again if it is missing or stale. Null if the file cannot be
  // read. Takes work_.
  class Stamps;
  std::shared_ptr<const IndexEntry> refresh(const std::string &path,
                                            const std::map<std::string, std::string> &overlays,
                                            Stamps &stamps);

  Progress progress_;
  Overlays overlays_;
  std::mutex work_;          // held while an entry is checked or made: a file is indexed once
  mutable std::mutex mutex_; // guards everything below
  Settings settings_;
  uint64_t searchPathChanges_ = 0; // entries made before the last change are not kept
  uint64_t asked_ = 0;             // scans asked for
  uint64_t walked_ = 0;            // the last scan whose folders were walked into files_
  std::vector<std::string> files_;
  std::map<std::string, std::shared_ptr<const IndexEntry>> entries_; // by canonical path
  bool stopping_ = false;
  std::condition_variable wake_;
  std::thread thread_;
};

} // namespace isam::lsp
