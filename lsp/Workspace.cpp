#include "lsp/Workspace.h"
#include "lsp/Convert.h"
#include "lsp/ProtocolJson.h"
#include "lsp/Rpc.h"
#include "lsp/Uri.h"

#include <algorithm>

namespace isam::lsp {

using Clock = std::chrono::steady_clock;

Workspace::Workspace(Publish publish, Warn warn, Background background)
    : publish_(std::move(publish)), warn_(std::move(warn)), background_(std::move(background)),
      thread_([this] { run(); }),
      index_(indexProgress(), [this] { return documents_.overlays(); }) {}

Workspace::~Workspace() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

Settings Workspace::settings() const {
  std::lock_guard lock(mutex_);
  return settings_;
}

void Workspace::updateSettings(const std::function<void(Settings &)> &change) {
  {
    std::lock_guard lock(mutex_);
    change(settings_);
    cache_.clear();
  }
  filesChanged();
}

WorkspaceIndex::Progress Workspace::indexProgress() {
  if (!background_.begin)
    return {};
  // One scan at a time runs on the index's thread, so one token at a time is live.
  auto token = std::make_shared<std::string>();
  return {[this, token](const std::string &title) {
            *token = "isamap/index/" + std::to_string(nextProgress_++);
            background_.begin(*token, title);
          },
          [this, token](const std::string &message, int percentage) {
            background_.report(*token, message, percentage);
          },
          [this, token] { background_.end(*token); }};
}

std::shared_ptr<Analysis> Workspace::analyseFile(const std::string &path) {
  std::optional<std::string> text = readTextFile(path);
  if (!text)
    return nullptr;
  Document doc{pathToUri(path), path, "isam", 0, std::move(*text)};
  return std::make_shared<Analysis>(std::move(doc), documents_.overlays(), settings(), parses_,
                                    summaries_);
}

std::vector<std::shared_ptr<const IndexEntry>> Workspace::indexed(const StopFn &stop) {
  return index_.fresh(documents_.overlays(), stop);
}

void Workspace::schedule(const std::string &uri, std::chrono::milliseconds delay) {
  {
    std::lock_guard lock(mutex_);
    pending_[uri] = Clock::now() + delay;
  }
  wake_.notify_all();
}

void Workspace::opened(const std::string &uri) {
  // A newly opened document may be imported by others (its text now overrides the file).
  scheduleDependents(uri);
  schedule(uri, std::chrono::milliseconds(0));
}

void Workspace::changed(const std::string &uri) {
  scheduleDependents(uri);
  schedule(uri, std::chrono::milliseconds(settings().debounceMs));
}

void Workspace::closed(const std::string &uri, const std::string &path) {
  {
    std::lock_guard lock(mutex_);
    cache_.erase(uri);
    pending_.erase(uri);
    tokens_.erase(uri);
    published_.erase(uri);
    pulled_.erase(uri);
  }
  // The documents that read the closed one's text now read its file instead.
  scheduleDependents(uri, path);
  std::lock_guard publishing(publishMutex_);
  publish_(uri, -1, {});
}

void Workspace::filesChanged() {
  std::vector<Document> docs = documents_.all();
  Settings settings;
  {
    std::lock_guard lock(mutex_);
    cache_.clear();
    settings = settings_;
  }
  index_.rescan(settings);
  for (const auto &d : docs)
    schedule(d.uri, std::chrono::milliseconds(0));
}

void Workspace::scheduleDependents(const std::string &uri) {
  auto doc = documents_.get(uri);
  scheduleDependents(uri, doc ? doc->path : std::string());
}

void Workspace::scheduleDependents(const std::string &uri, const std::string &documentPath) {
  std::string path = documentPath.empty() ? std::string() : canonicalPath(documentPath);
  std::vector<std::string> dependents;
  {
    std::lock_guard lock(mutex_);
    for (auto it = cache_.begin(); it != cache_.end();) {
      bool depends = it->first != uri && (path.empty() || it->second->loadedPaths().count(path));
      if (depends) {
        dependents.push_back(it->first);
        it = cache_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto &d : dependents)
    schedule(d, std::chrono::milliseconds(settings().debounceMs));
}

std::shared_ptr<Analysis> Workspace::current(const std::string &uri) {
  auto doc = documents_.get(uri);
  if (!doc)
    throw RpcError(InvalidParams, "the document '" + uri + "' is not open");
  std::map<std::string, std::string> overlays = documents_.overlays();
  Settings s;
  {
    std::lock_guard lock(mutex_);
    auto it = cache_.find(uri);
    if (it != cache_.end() && it->second->madeFrom(*doc, settings_, overlays))
      return it->second;
    s = settings_;
  }
  auto analysis = std::make_shared<Analysis>(*doc, std::move(overlays), s, parses_, summaries_);
  std::lock_guard lock(mutex_);
  // Keep whichever analysis is of the newer version (another thread may have finished first);
  // one made with settings changed meanwhile is not kept.
  if (s == settings_) {
    auto &slot = cache_[uri];
    if (!slot || slot->document().version <= doc->version)
      slot = analysis;
  }
  return analysis;
}

std::vector<std::shared_ptr<Analysis>> Workspace::allCurrent() {
  std::vector<std::shared_ptr<Analysis>> out;
  for (const auto &d : documents_.all())
    out.push_back(current(d.uri));
  return out;
}

namespace {

std::string resultIdOf(int64_t version, const std::vector<LspDiagnostic> &diagnostics) {
  std::string id = std::to_string(version);
  return id.append(":").append(std::to_string(std::hash<std::string>{}(json(diagnostics).dump())));
}

} // namespace

Workspace::Pulled Workspace::pull(const std::string &uri) {
  auto doc = documents_.get(uri);
  if (!doc)
    throw RpcError(InvalidParams, "the document '" + uri + "' is not open");
  Pulled out;
  bool found = false;
  {
    std::lock_guard lock(mutex_);
    if (auto it = published_.find(uri); it != published_.end() && it->second.first == doc->version)
      out.items = it->second.second, found = true;
  }
  if (!found) {
    std::shared_ptr<Analysis> a = current(uri);
    auto lock = a->lock();
    out.items = lspDiagnostics(*a, a->checkDiagnostics());
  }
  std::lock_guard lock(mutex_);
  // Published while the problems were found: that list is newer. (Checked under the lock that
  // publication takes before pulledOther, so a list published after this pull is refreshed.)
  if (auto it = published_.find(uri); it != published_.end() && it->second.first == doc->version)
    out.items = it->second.second;
  out.resultId = resultIdOf(doc->version, out.items);
  if (documents_.get(uri))
    pulled_[uri] = out.resultId;
  return out;
}

bool Workspace::pulledOther(const std::string &uri, int64_t version,
                            const std::vector<LspDiagnostic> &diagnostics) const {
  std::lock_guard lock(mutex_);
  auto it = pulled_.find(uri);
  return it != pulled_.end() && it->second != resultIdOf(version, diagnostics);
}

SemanticTokens Workspace::rememberTokens(const std::string &uri, std::vector<uint32_t> data) {
  std::lock_guard lock(mutex_);
  SemanticTokens tokens{std::to_string(nextTokensId_++), std::move(data)};
  // Checked under the lock that closed() takes after the document store forgets the document,
  // so tokens of a request that raced with didClose are never kept.
  if (documents_.get(uri))
    tokens_[uri] = tokens;
  return tokens;
}

std::optional<std::vector<uint32_t>>
Workspace::rememberedTokens(const std::string &uri, const std::string &resultId) const {
  std::lock_guard lock(mutex_);
  auto it = tokens_.find(uri);
  if (it == tokens_.end() || it->second.resultId != resultId)
    return std::nullopt;
  return it->second.data;
}

bool Workspace::superseded(const std::string &uri, const Analysis &a) {
  auto doc = documents_.get(uri);
  if (!doc || doc->version != a.document().version)
    return true;
  std::map<std::string, std::string> overlays = documents_.overlays();
  std::lock_guard lock(mutex_);
  if (pending_.count(uri) > 0 || stopping_)
    return true;
  if (!a.madeFrom(*doc, settings_, overlays)) {
    // Made from what has changed since (this runs on the analysis thread, which looks at
    // pending_ next).
    pending_[uri] = Clock::now();
    return true;
  }
  return false;
}

void Workspace::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (pending_.empty()) {
      wake_.wait(lock);
      continue;
    }
    auto next = pending_.begin();
    for (auto it = pending_.begin(); it != pending_.end(); ++it)
      if (it->second < next->second)
        next = it;
    if (next->second > Clock::now()) {
      wake_.wait_until(lock, next->second);
      continue;
    }
    std::string uri = next->first;
    pending_.erase(next);
    lock.unlock();
    try {
      analyse(uri);
    } catch (const RpcError &) {
      // The document was closed meanwhile.
    }
    lock.lock();
  }
}

void Workspace::analyse(const std::string &uri) {
  std::shared_ptr<Analysis> a = current(uri);
  int64_t version = a->document().version;
  auto stop = [&] { return superseded(uri, *a); };
  auto publishIfCurrent = [&](const std::vector<LspDiagnostic> &diagnostics) {
    std::lock_guard publishing(publishMutex_);
    if (stop())
      return false;
    {
      std::lock_guard lock(mutex_);
      published_[uri] = {version, diagnostics};
    }
    publish_(uri, version, diagnostics);
    return true;
  };
  std::vector<LspDiagnostic> diagnostics;
  std::string targetProblem;
  {
    auto lock = a->lock();
    diagnostics = lspDiagnostics(*a, a->checkDiagnostics());
    if (!a->target({}, &targetProblem))
      targetProblem = "isamap: the target setting '" + a->settings().target +
                      "' cannot be used: " + targetProblem +
                      "; mappings, lenses and diagrams need a target";
  }
  if (!targetProblem.empty() && warn_) {
    bool fresh = false;
    {
      std::lock_guard lock(mutex_);
      fresh = targetProblem != lastWarning_;
      lastWarning_ = targetProblem;
    }
    if (fresh)
      warn_(targetProblem);
  }
  if (!publishIfCurrent(diagnostics))
    return;
  std::vector<Diagnostic> later;
  size_t kernels = 0;
  {
    auto lock = a->lock();
    kernels = a->mainAst().kernels.size();
  }
  // A large document's mapping takes a while: the client may show how far it is.
  std::string token;
  if (background_.begin && kernels >= kProgressKernels) {
    token = "isamap/analysis/" + std::to_string(nextProgress_++);
    std::string name = a->document().path.substr(a->document().path.find_last_of("/:") + 1);
    background_.begin(token, "Mapping " + name);
  }
  int reported = 0;
  a->prepareDiagnostics(stop, [&](size_t done, size_t total) {
    int percentage = int(100 * done / std::max<size_t>(total, 1));
    if (!token.empty() && percentage >= reported + 10) {
      reported = percentage;
      background_.report(token, std::to_string(done) + " of " + std::to_string(total) + " kernels",
                         percentage);
    }
  });
  if (!token.empty())
    background_.end(token);
  {
    auto lock = a->lock();
    later = a->mappingDiagnostics(stop);
    if (stop())
      return;
    for (auto &d : a->scheduleDiagnostics(stop))
      later.push_back(std::move(d));
    if (later.empty() || stop())
      return;
    for (auto &d : lspDiagnostics(*a, later))
      diagnostics.push_back(std::move(d));
  }
  publishIfCurrent(diagnostics);
}

} // namespace isam::lsp
