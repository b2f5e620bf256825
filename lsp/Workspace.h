// The server's state shared by its threads: the open documents, the settings, the analysis of
// each document's current version, and the analysis thread that publishes diagnostics.
//
// Analysis runs off the reading thread and is debounced per document: an edit (re)starts the
// document's quiet period, and only when it passes is the document analysed. Work for a version
// that has been superseded stops at the next stage boundary, and diagnostics are published only
// for the version that is still current when they are ready, so a client never sees results for
// text it no longer has. Syntax and semantic diagnostics (schedule blocks' included) are
// published first; mapping diagnostics and the problems of schedule pins on the configured
// target follow, published together with them, once the mapper and the scheduler have run.
//
// Editing a document re-analyses the open documents that import it (directly or not). An
// analysis is current only while the document's text, the settings and the open documents it
// read are what they were when it was made; one made while any of them changed is neither
// returned nor published, but made again.
//
// The workspace folders' other `.isam` files are indexed in the background (WorkspaceIndex.h),
// scanned again when the settings or files on disk change.
//
// Per-document state that outlives one version's analysis (the last semantic tokens sent, which
// a delta is computed against) is kept here too, and forgotten when the document closes.
#pragma once

#include "lsp/Analysis.h"
#include "lsp/Documents.h"
#include "lsp/Protocol.h"
#include "lsp/Settings.h"
#include "lsp/Summaries.h"
#include "lsp/WorkspaceIndex.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace isam::lsp {

class Workspace {
public:
  // Called on the analysis thread with a document's diagnostics.
  using Publish = std::function<void(const std::string &uri, int64_t version,
                                     std::vector<LspDiagnostic> diagnostics)>;

  // Called on the analysis thread with a problem of the configuration the client should see
  // (window/showMessage): once per distinct message, e.g. a target setting that names no target.
  using Warn = std::function<void(const std::string &message)>;

  // Work-done progress of the analysis of a large document (kProgressKernels kernels or more):
  // begin, then reports (a message and a percentage), then end, on a token of the workspace's.
  struct Background {
    std::function<void(const std::string &token, const std::string &title)> begin;
    std::function<void(const std::string &token, const std::string &message, int percentage)>
        report;
    std::function<void(const std::string &token)> end;
  };
  static constexpr size_t kProgressKernels = 20;

  explicit Workspace(Publish publish, Warn warn = {}, Background background = {});
  ~Workspace();
  Workspace(const Workspace &) = delete;
  Workspace &operator=(const Workspace &) = delete;

  DocumentStore &documents() { return documents_; }
  Settings settings() const;
  // Changes the settings and re-analyses every open document.
  void updateSettings(const std::function<void(Settings &)> &change);

  // Notifications from the client, after the document store was updated.
  void opened(const std::string &uri);
  void changed(const std::string &uri);
  void closed(const std::string &uri, const std::string &path);
  // Files on disk changed (saved, created, deleted): every open document is analysed again.
  void filesChanged();

  // The analysis of the document's current version, computed now on the calling thread if the
  // analysis thread has not produced it yet. RpcError(InvalidParams) if the document is not open.
  std::shared_ptr<Analysis> current(const std::string &uri);
  // The current analyses of every open document.
  std::vector<std::shared_ptr<Analysis>> allCurrent();

  // The workspace's files that are not open, indexed and up to date (WorkspaceIndex::fresh).
  std::vector<std::shared_ptr<const IndexEntry>> indexed(const StopFn &stop = {});
  // An analysis of a file on disk that is not open (by canonical path), with the open documents'
  // texts and the settings; null if the file cannot be read. Not kept.
  std::shared_ptr<Analysis> analyseFile(const std::string &path);
  // The files the last scan of the workspace folders found.
  std::vector<std::string> workspaceFiles() const { return index_.files(); }

  // Pull diagnostics (textDocument/diagnostic): those last published for the document's current
  // version or, until the analysis thread has published any, its syntax and semantic problems
  // found now. The result id names the list (equal ids, equal lists); the id of each document's
  // last pull is remembered. RpcError(InvalidParams) if the document is not open.
  struct Pulled {
    std::string resultId;
    std::vector<LspDiagnostic> items;
  };
  Pulled pull(const std::string &uri);
  // Whether the client pulled the document's diagnostics and got another list than
  // `diagnostics` of `version` (it should then pull again: workspace/diagnostic/refresh).
  bool pulledOther(const std::string &uri, int64_t version,
                   const std::vector<LspDiagnostic> &diagnostics) const;

  // Keeps `data` as the open document's last semantic tokens under a new result id (unique in
  // this workspace), which it returns; a document that is not open keeps nothing.
  SemanticTokens rememberTokens(const std::string &uri, std::vector<uint32_t> data);
  // The tokens last remembered for the document, if they are those of `resultId`.
  std::optional<std::vector<uint32_t>> rememberedTokens(const std::string &uri,
                                                        const std::string &resultId) const;

private:
  WorkspaceIndex::Progress indexProgress();
  void schedule(const std::string &uri, std::chrono::milliseconds delay);
  // Re-analyses the open documents that read the document at `path` (empty: every one).
  void scheduleDependents(const std::string &uri);
  void scheduleDependents(const std::string &uri, const std::string &path);
  void run();
  void analyse(const std::string &uri);
  // Whether `a` is no longer wanted: its document changed or closed, another analysis of it is
  // pending, the server stops, or what it was made from changed (it is then scheduled again).
  bool superseded(const std::string &uri, const Analysis &a);

  Publish publish_;
  Warn warn_;
  Background background_;
  std::atomic<uint64_t> nextProgress_{1};
  // Shared by every analysis: an edit re-parses only the declarations it touched.
  std::shared_ptr<ParseCache> parses_ = std::make_shared<ParseCache>();
  // Likewise: an edit schedules again only the kernels it touched.
  std::shared_ptr<SummaryCache> summaries_ = std::make_shared<SummaryCache>();
  DocumentStore documents_;
  mutable std::mutex mutex_; // guards everything below
  Settings settings_;
  std::map<std::string, std::shared_ptr<Analysis>> cache_;
  std::map<std::string, std::chrono::steady_clock::time_point> pending_;
  std::map<std::string, SemanticTokens> tokens_; // by URI, of open documents
  // By URI, of open documents: the diagnostics last published, and the result id of the last pull.
  std::map<std::string, std::pair<int64_t, std::vector<LspDiagnostic>>> published_;
  std::map<std::string, std::string> pulled_;
  uint64_t nextTokensId_ = 1;
  std::string lastWarning_; // the last message given to warn_
  std::condition_variable wake_;
  bool stopping_ = false;
  // Held from the check that a document's diagnostics are current to their publication, and
  // while a closed document's are cleared: diagnostics of a closed document never follow the
  // empty ones.
  std::mutex publishMutex_;
  std::thread thread_;
  // Declared last: its thread reports progress through background_ and reads documents_.
  WorkspaceIndex index_;
};

} // namespace isam::lsp
