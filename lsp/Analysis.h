// One analysed version of one open document: a compiler Session over its text (with the other
// open documents as overlays), the symbol index of everything it loaded, and the diagnostics.
// Mapping and scheduling results for the document's kernels are computed on first use and kept.
//
// Thread safety: the Session is not thread-safe, and stages it runs lazily add files to its
// SourceManager, so every use of an Analysis goes through lock(). The document, settings and
// loaded paths are immutable and may be read without it.
#pragma once

#include "driver/Session.h"
#include "index/SymbolIndex.h"
#include "lsp/Documents.h"
#include "lsp/Settings.h"
#include "lsp/TuningRecords.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace isam::lsp {

class SummaryCache;

// The compiler session options of the settings: the imports' search path (include directories,
// then workspace folders), where imports may be read from, and the open documents' texts.
SessionOptions sessionOptions(const Settings &settings,
                              std::map<std::string, std::string> overlays);

// Polled between stages of long work; true means the result is no longer wanted.
using StopFn = std::function<bool()>;

class Analysis {
public:
  // `parses`, if given, is shared by the analyses of an editing session (syntax/ParseCache.h).
  // `summaries`, if given, is shared likewise (Summaries.h); without it the analysis makes one.
  Analysis(Document doc, std::map<std::string, std::string> overlays, Settings settings,
           std::shared_ptr<ParseCache> parses = nullptr,
           std::shared_ptr<SummaryCache> summaries = nullptr);

  const Document &document() const { return doc_; }
  const Settings &settings() const { return settings_; }
  // Canonical paths of every file this analysis read (the document and its imports).
  const std::set<std::string> &loadedPaths() const { return loaded_; }
  // Whether this analysis is of `doc`'s version and text, with `settings`, and read the same
  // texts as the open documents `overlays` (by canonical path) give for the files it loaded.
  // An analysis made while the client changed one of those is not current, though its
  // document's version is.
  bool madeFrom(const Document &doc, const Settings &settings,
                const std::map<std::string, std::string> &overlays) const;

  [[nodiscard]] std::unique_lock<std::mutex> lock() { return std::unique_lock(mutex_); }

  // Computes what mappingDiagnostics() and scheduleDiagnostics() need, taking the lock a kernel
  // at a time (call it without the lock), so that other requests are answered in between.
  // `step(done, total)` is called before each kernel, and once more when all are done.
  void prepareDiagnostics(const StopFn &stop = {},
                          const std::function<void(size_t done, size_t total)> &step = {});

  // Everything below needs lock() held.
  Session &session() { return *session_; }
  const SourceManager &sources() { return session_->sources(); }
  FileId mainFile() const { return main_; }
  const ast::File &mainAst() const { return *session_->mainFile(); }
  const index::SymbolIndex &index() const { return index_; }
  // Syntax and semantic problems of every loaded file, as found by the full check.
  const std::vector<Diagnostic> &checkDiagnostics() const { return check_; }
  const LineMap &lines(FileId file);

  // What a mapping, schedule or picture is of: a kernel of the document, the instance that
  // stands for it (default: the first one declared for it, in the document and then its
  // imports) and the target (default: the configured one).
  struct Subject {
    std::string kernel;
    std::string instance;
    std::string target;
  };

  // A target by name (empty: the configured one); null if it does not resolve, with the reason
  // in `problem`.
  const hw::Target *target(const std::string &name = {}, std::string *problem = nullptr);
  // The kernel declared in this document or an import, by name.
  const ast::KernelDecl *kernelDecl(const std::string &name);
  // The declaration of the instance that stands for the subject; null when there is none.
  const ast::InstanceDecl *instanceDecl(const Subject &s);
  // The subject's instance; null (with the reason in `problem`) when there is none or it has
  // errors.
  const ir::Kernel *instance(const Subject &s, std::string *problem = nullptr);
  const std::vector<mapping::StatementMappings> *mappings(const Subject &s, const StopFn &stop = {},
                                                          std::string *problem = nullptr);
  const schedule::KernelSchedule *schedule(const Subject &s, const StopFn &stop = {},
                                           std::string *problem = nullptr);
  // Info diagnostics for the document's statements no instruction of the target runs.
  std::vector<Diagnostic> mappingDiagnostics(const StopFn &stop = {});
  // The problems of the document's schedule pins on the configured target (E0701-E0703: an
  // instruction that cannot run the statement, a pin no mapping fits or no schedule meets),
  // which only scheduling finds: each kernel of the document that pins something is scheduled
  // for its default instance. The blocks' own problems (E0704, E0705) are the full check's.
  std::vector<Diagnostic> scheduleDiagnostics(const StopFn &stop = {});

  // Statement summaries kept across versions, and the digest of what they depend on besides a
  // kernel and its instance: the settings that steer the search, the tuning records, every
  // file read but the document, and the document's imports, targets and systems.
  SummaryCache &summaries() { return *summaries_; }
  const std::string &summaryContext();

  // The statement of the document at `offset`: its kernel and position among the kernel's
  // statements.
  struct StatementRef {
    const ast::KernelDecl *kernel = nullptr;
    size_t index = 0;
  };
  std::optional<StatementRef> statementAt(uint32_t offset) const;
  // The IR statement of an instance that an AST statement became (matched by source range).
  static std::optional<size_t> irStatement(const ir::Kernel &k, const ast::Statement &s);

private:
  Document doc_;
  Settings settings_;
  std::mutex mutex_;
  std::unique_ptr<Session> session_;
  FileId main_ = kNoFile;
  index::SymbolIndex index_;
  std::vector<Diagnostic> check_;
  std::set<std::string> loaded_;
  std::map<std::string, std::string> overlaysRead_; // the overlays of loaded_ files, as read
  std::map<FileId, LineMap> lines_;
  TuningRecords tuning_; // as it was when this analysis was made
  std::shared_ptr<SummaryCache> summaries_;
  std::string summaryContext_; // made on first use
  static std::string key(const Subject &s) {
    return s.kernel + '\n' + s.instance + '\n' + s.target;
  }

  std::map<std::string, std::pair<std::optional<hw::Target>, std::string>> targets_;
  std::map<std::string, std::pair<std::optional<ir::Kernel>, std::string>> instances_;
  std::map<std::string, std::vector<mapping::StatementMappings>> mappings_;
  std::map<std::string, std::optional<schedule::KernelSchedule>> schedules_;
  std::map<std::string, std::vector<Diagnostic>> scheduleErrors_; // by key, as schedules_
};

} // namespace isam::lsp
