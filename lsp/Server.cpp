#include "lsp/Server.h"
#include "lsp/ProtocolJson.h"
#include "lsp/Uri.h"

#include <iostream>

namespace isam::lsp {

// A queue of requests served in order by the threads that pop it.
class Server::Queue {
public:
  void push(Pending p) {
    {
      std::lock_guard lock(mutex_);
      items_.push_back(std::move(p));
    }
    wake_.notify_one();
  }
  // Blocks; nullopt once stopped.
  std::optional<Pending> pop() {
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [&] { return stopped_ || !items_.empty(); });
    if (items_.empty())
      return std::nullopt;
    Pending p = std::move(items_.front());
    items_.pop_front();
    return p;
  }
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopped_ = true;
      items_.clear();
    }
    wake_.notify_all();
  }

private:
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Pending> items_;
  bool stopped_ = false;
};

Server::Server(Send send, ServerOptions options)
    : send_(std::move(send)), features_(features()), quick_(std::make_unique<Queue>()),
      slow_(std::make_unique<Queue>()) {
  workspace_ = std::make_unique<Workspace>(
      [this](const std::string &uri, int64_t version, std::vector<LspDiagnostic> diagnostics) {
        publishDiagnostics(uri, version, diagnostics);
      },
      [this](const std::string &message) {
        notify("window/showMessage", {{"type", 2}, {"message", message}});
      },
      Workspace::Background{[this](const std::string &token, const std::string &title) {
                              progressBegin(token, title);
                            },
                            [this](const std::string &token, const std::string &message,
                                   int percentage) { progressReport(token, message, percentage); },
                            [this](const std::string &token) { progressEnd(token); }});
  workspace_->updateSettings([&](Settings &s) { s.confineImports = options.confineImports; });
  quickThread_ = std::thread([this] { work(*quick_); });
  for (int i = 0; i < kSlowWorkers; ++i)
    slowThreads_.emplace_back([this] { work(*slow_); });
}

Server::~Server() {
  {
    // Running requests notice and stop at their next check.
    std::lock_guard lock(inflightMutex_);
    for (auto &[_, request] : inflight_)
      request.second->cancelled = true;
  }
  quick_->stop();
  slow_->stop();
  quickThread_.join();
  for (std::thread &t : slowThreads_)
    t.join();
  workspace_.reset();
}

void Server::sendJson(const json &message) {
  // Invalid UTF-8 from a document (echoed in a message) is replaced rather than thrown on.
  std::string body = message.dump(-1, ' ', false, json::error_handler_t::replace);
  std::lock_guard lock(sendMutex_);
  send_(body);
}

void Server::notify(const std::string &method, const json &params) {
  sendJson(notification(method, params));
}

void Server::log(int type, const std::string &message) {
  notify("window/logMessage", {{"type", type}, {"message", message}});
}

void Server::publishDiagnostics(const std::string &uri, int64_t version,
                                const std::vector<LspDiagnostic> &diagnostics) {
  if (pullDiagnostics_) {
    // The client pulls; it is told to pull again when what it has is no longer what it would get.
    if (refreshDiagnostics_ && version >= 0 && workspace_->pulledOther(uri, version, diagnostics))
      sendJson({{"jsonrpc", "2.0"},
                {"id", "isamap/refresh-diagnostics/" + std::to_string(nextRefresh_++)},
                {"method", "workspace/diagnostic/refresh"}});
    return;
  }
  json params = {{"uri", uri}, {"diagnostics", diagnostics}};
  if (version >= 0)
    params["version"] = version;
  notify("textDocument/publishDiagnostics", params);
}

bool Server::receive(const std::string &body) {
  json message;
  try {
    message = parseMessage(body);
  } catch (const RpcError &e) {
    sendJson(errorResponse(nullptr, e.code, e.what()));
    return true;
  }
  dispatch(message);
  return state_ != State::Exited;
}

int Server::serve(MessageReader &reader) {
  for (;;) {
    ReadResult r = reader.next();
    switch (r.kind) {
    case ReadResult::Kind::Message:
      if (!receive(r.body))
        return exitCode_;
      break;
    case ReadResult::Kind::End:
    case ReadResult::Kind::Truncated:
      // The client went away without `exit`.
      return 1;
    case ReadResult::Kind::BadHeader:
    case ReadResult::Kind::TooLarge:
      // The message cannot be read, so its id is unknown: answer as JSON-RPC does for a
      // request that could not be parsed.
      sendJson(errorResponse(
          nullptr, r.kind == ReadResult::Kind::TooLarge ? InvalidRequest : ParseError, r.problem));
      log(1, "isamap lsp: " + r.problem);
      break;
    }
  }
}

void Server::dispatch(const json &message) {
  if (!message.is_object()) {
    sendJson(errorResponse(nullptr, InvalidRequest,
                           message.is_array() ? "batches are not part of the protocol"
                                              : "a message must be a JSON object"));
    return;
  }
  json id = message.contains("id") ? message["id"] : json();
  bool hasId = message.contains("id");
  if (hasId && !id.is_string() && !id.is_number_integer()) {
    sendJson(errorResponse(nullptr, InvalidRequest, "'id' must be an integer or a string"));
    return;
  }
  if (!message.contains("method")) {
    // A response to a request of ours: only a progress token's creation needs anything.
    if (!hasId || (!message.contains("result") && !message.contains("error")))
      sendJson(errorResponse(hasId ? id : json(), InvalidRequest, "no 'method'"));
    else if (id.is_string() && id.get<std::string>().starts_with(kProgressPrefix))
      progressCreated(id.get<std::string>().substr(kProgressPrefix.size()),
                      !message.contains("error"));
    return;
  }
  if (!message["method"].is_string() || message.value("jsonrpc", json()) != "2.0") {
    if (hasId)
      sendJson(errorResponse(id, InvalidRequest,
                             "a request needs \"jsonrpc\": \"2.0\" and a string 'method'"));
    else
      log(1, "isamap lsp: ignored a notification without \"jsonrpc\": \"2.0\" or a method name");
    return;
  }
  std::string method = message["method"];
  json params = message.contains("params") && !message["params"].is_null() ? message["params"]
                                                                           : json::object();
  if (!params.is_object() && !params.is_array()) {
    if (hasId)
      sendJson(errorResponse(id, InvalidParams, "'params' must be an object or an array"));
    return;
  }

  if (method == "exit") {
    exitCode_ = state_ == State::ShutDown ? 0 : 1;
    state_ = State::Exited;
    return;
  }
  if (state_ == State::Uninitialized && method != "initialize") {
    if (hasId)
      sendJson(errorResponse(id, ServerNotInitialized, "the server has not been initialized"));
    return; // notifications before initialize are dropped, as the specification says
  }
  if (!hasId) {
    try {
      onNotification(method, params);
    } catch (const RpcError &e) {
      log(1, "isamap lsp: " + method + ": " + e.what());
    } catch (const json::exception &e) {
      log(1, "isamap lsp: " + method + ": malformed parameters: " + e.what());
    }
    return;
  }
  try {
    if (method == "initialize") {
      if (state_ != State::Uninitialized)
        throw RpcError(InvalidRequest, "initialize was already received");
      sendJson(response(id, initialize(params)));
      state_ = State::Running;
      return;
    }
    if (state_ == State::ShutDown)
      throw RpcError(InvalidRequest, "the server is shutting down");
    if (method == "shutdown") {
      state_ = State::ShutDown;
      sendJson(response(id, nullptr));
      return;
    }
    auto f = features_.find(method);
    if (f == features_.end())
      throw RpcError(MethodNotFound, "unknown method '" + method + "'");
    auto state = std::make_shared<Request>();
    if (params.is_object() && params.contains("textDocument") &&
        params["textDocument"].is_object() && params["textDocument"].contains("uri") &&
        params["textDocument"]["uri"].is_string())
      state->uri = params["textDocument"]["uri"];
    {
      std::lock_guard lock(inflightMutex_);
      inflight_[id.dump()] = {id, state};
    }
    enqueue({id, method, params, state}, f->second.slow);
  } catch (const RpcError &e) {
    sendJson(errorResponse(id, e.code, e.what()));
  } catch (const json::exception &e) {
    sendJson(errorResponse(id, InvalidParams, std::string("malformed parameters: ") + e.what()));
  }
}

void Server::enqueue(Pending p, bool slow) {
  (slow ? slow_ : quick_)->push(std::move(p));
}

void Server::work(Queue &queue) {
  while (auto p = queue.pop()) {
    answer(*p);
    std::lock_guard lock(inflightMutex_);
    inflight_.erase(p->id.dump());
  }
}

void Server::respond(Request &r, const json &message) {
  std::lock_guard lock(r.mutex);
  if (r.answered)
    return;
  for (const json &token : r.progressOpen)
    sendJson(notification("$/progress", {{"token", token}, {"value", {{"kind", "end"}}}}));
  r.progressOpen.clear();
  r.answered = true;
  sendJson(message);
}

void Server::progress(Request &r, const json &message) {
  std::lock_guard lock(r.mutex);
  if (r.answered)
    return;
  const json &token = message["params"]["token"];
  std::string kind = message["params"]["value"].value("kind", "");
  if (kind == "begin")
    r.progressOpen.push_back(token);
  else if (kind == "end")
    std::erase(r.progressOpen, token);
  sendJson(message);
}

void Server::abandon(const std::string &key, const json &id, int code, const std::string &why) {
  std::shared_ptr<Request> r;
  {
    std::lock_guard lock(inflightMutex_);
    auto it = inflight_.find(key);
    if (it == inflight_.end())
      return;
    r = it->second.second;
  }
  // Answered first, so that the work, stopping, cannot answer with a code of its own.
  respond(*r, errorResponse(id, code, why));
  r->cancelled = true;
}

void Server::answer(Pending &p) {
  Request &r = *p.state;
  auto cancelled = [state = p.state] { return state->cancelled.load(); };
  try {
    if (cancelled())
      throw RpcError(RequestCancelled, "cancelled");
    Call call{p.params, *workspace_, cancelled, [this, &r](const json &m) { progress(r, m); }};
    json result = features_.at(p.method).handler(call);
    respond(r, response(p.id, std::move(result)));
  } catch (const RpcError &e) {
    respond(r, errorResponse(p.id, e.code, e.what()));
  } catch (const json::exception &e) {
    respond(r,
            errorResponse(p.id, InvalidParams, std::string("malformed parameters: ") + e.what()));
  } catch (const std::exception &e) {
    log(1, "isamap lsp: " + p.method + " failed: " + e.what());
    respond(r, errorResponse(p.id, InternalError, p.method + " failed: " + e.what()));
  }
}

// Server-made progress: a token is used only once the client has answered its creation, so
// what happens before (reports, even the end) waits for that answer or is dropped.
void Server::progressBegin(const std::string &token, const std::string &title) {
  if (!showProgress_)
    return;
  {
    std::lock_guard lock(progressMutex_);
    progress_[token] = {title, false, false};
  }
  sendJson({{"jsonrpc", "2.0"},
            {"id", std::string(kProgressPrefix) + token},
            {"method", "window/workDoneProgress/create"},
            {"params", {{"token", token}}}});
}

void Server::progressCreated(const std::string &token, bool ok) {
  std::lock_guard lock(progressMutex_);
  auto it = progress_.find(token);
  if (it == progress_.end())
    return;
  if (ok) {
    json begin = {{"kind", "begin"}, {"title", it->second.title}, {"percentage", 0}};
    notify("$/progress", {{"token", token}, {"value", begin}});
  }
  if (!ok || it->second.ended) {
    if (ok)
      notify("$/progress", {{"token", token}, {"value", {{"kind", "end"}}}});
    progress_.erase(it);
    return;
  }
  it->second.created = true;
}

void Server::progressReport(const std::string &token, const std::string &message, int percentage) {
  std::lock_guard lock(progressMutex_);
  auto it = progress_.find(token);
  if (it == progress_.end() || !it->second.created)
    return;
  json report = {{"kind", "report"}, {"message", message}, {"percentage", percentage}};
  notify("$/progress", {{"token", token}, {"value", report}});
}

void Server::progressEnd(const std::string &token) {
  std::lock_guard lock(progressMutex_);
  auto it = progress_.find(token);
  if (it == progress_.end())
    return;
  if (!it->second.created) {
    it->second.ended = true; // ended when the client answers the creation
    return;
  }
  notify("$/progress", {{"token", token}, {"value", {{"kind", "end"}}}});
  progress_.erase(it);
}

void Server::reportSettingsProblems(const std::vector<std::string> &problems) {
  for (const auto &p : problems)
    notify("window/showMessage", {{"type", 2}, {"message", "isamap: " + p}});
}

json Server::initialize(const json &params) {
  if (!params.is_object())
    throw RpcError(InvalidParams, "initialize takes an object");
  std::vector<std::string> problems;
  std::vector<std::string> folders;
  if (params.contains("workspaceFolders") && params["workspaceFolders"].is_array()) {
    for (const auto &f : params["workspaceFolders"])
      if (f.is_object() && f.contains("uri") && f["uri"].is_string())
        if (auto path = uriToPath(f["uri"]))
          folders.push_back(*path);
  } else if (params.contains("rootUri") && params["rootUri"].is_string()) {
    if (auto path = uriToPath(params["rootUri"]))
      folders.push_back(*path);
  }
  // Clients that can watch files for the server (Neovim, Emacs' eglot, VS Code) are asked to
  // once initialized: descriptions edited on disk then re-check the documents importing them.
  const json capabilities = params.value("capabilities", json::object());
  const auto canWatch = "/workspace/didChangeWatchedFiles/dynamicRegistration"_json_pointer;
  watchFiles_ =
      capabilities.is_object() && capabilities.contains(canWatch) && capabilities[canWatch] == true;
  const auto canShowProgress = "/window/workDoneProgress"_json_pointer;
  showProgress_ = capabilities.is_object() && capabilities.contains(canShowProgress) &&
                  capabilities[canShowProgress] == true;
  // Clients that pull diagnostics (textDocument/diagnostic) are not sent them as well: VS Code
  // would show both.
  pullDiagnostics_ = capabilities.is_object() &&
                     capabilities.contains("/textDocument/diagnostic"_json_pointer) &&
                     capabilities["/textDocument/diagnostic"_json_pointer].is_object();
  const auto canRefresh = "/workspace/diagnostics/refreshSupport"_json_pointer;
  refreshDiagnostics_ = capabilities.is_object() && capabilities.contains(canRefresh) &&
                        capabilities[canRefresh] == true;
  json options = params.value("initializationOptions", json());
  workspace_->updateSettings([&](Settings &s) {
    s.workspaceFolders = folders;
    readSettings(options, s, problems);
  });
  reportSettingsProblems(problems);
  json ours = serverCapabilities();
  if (pullDiagnostics_)
    ours["diagnosticProvider"] = {
        {"identifier", "isamap"}, {"interFileDependencies", true}, {"workspaceDiagnostics", false}};
  return {{"capabilities", ours},
          {"serverInfo", {{"name", "isamap"}, {"version", ISAMAP_VERSION}}}};
}

void Server::onNotification(const std::string &method, const json &params) {
  DocumentStore &docs = workspace_->documents();
  if (method == "textDocument/didOpen") {
    const json &doc = required(params, "textDocument");
    Document d;
    d.uri = stringAt(doc, "uri");
    d.path = uriToPath(d.uri).value_or(d.uri);
    d.languageId = optionalString(doc, "languageId");
    d.version = integerAt(doc, "version");
    d.text = stringAt(doc, "text");
    docs.open(std::move(d));
    workspace_->opened(stringAt(doc, "uri"));
  } else if (method == "textDocument/didChange") {
    const json &doc = required(params, "textDocument");
    std::string uri = stringAt(doc, "uri");
    int64_t version = integerAt(doc, "version");
    const json &changes = required(params, "contentChanges");
    if (!changes.is_array())
      throw RpcError(InvalidParams, "parameter 'contentChanges' must be an array");
    std::vector<TextChange> parsed;
    for (const auto &c : changes) {
      TextChange t;
      t.text = stringAt(c, "text");
      if (c.contains("range") && !c["range"].is_null()) {
        const json &r = c["range"];
        t.range = std::pair{positionParam(r, "start"), positionParam(r, "end")};
      }
      parsed.push_back(std::move(t));
    }
    if (!docs.change(uri, version, parsed))
      throw RpcError(InvalidParams, "didChange for '" + uri + "', which is not open");
    // What runs for the document's old text would answer about text the client no longer has.
    std::vector<std::pair<std::string, json>> stale;
    {
      std::lock_guard lock(inflightMutex_);
      for (const auto &[key, request] : inflight_)
        if (request.second->uri == uri)
          stale.emplace_back(key, request.first);
    }
    for (const auto &[key, id] : stale)
      abandon(key, id, ContentModified, "the document changed");
    workspace_->changed(uri);
  } else if (method == "textDocument/didClose") {
    std::string uri = stringAt(required(params, "textDocument"), "uri");
    auto doc = docs.get(uri);
    docs.close(uri);
    workspace_->closed(uri, doc ? doc->path : std::string());
  } else if (method == "textDocument/didSave" || method == "workspace/didChangeWatchedFiles") {
    workspace_->filesChanged();
  } else if (method == "workspace/didChangeConfiguration") {
    json settings = params.value("settings", json());
    if (settings.is_object() && settings.contains("isamap"))
      settings = settings["isamap"];
    std::vector<std::string> problems;
    workspace_->updateSettings([&](Settings &s) { readSettings(settings, s, problems); });
    reportSettingsProblems(problems);
  } else if (method == "workspace/didChangeWorkspaceFolders") {
    const json &event = required(params, "event");
    std::vector<std::string> added, removed;
    for (const char *key : {"added", "removed"})
      for (const auto &f : event.value(key, json::array()))
        if (auto path = uriToPath(stringAt(f, "uri")))
          (key[0] == 'a' ? added : removed).push_back(*path);
    workspace_->updateSettings([&](Settings &s) {
      for (const auto &r : removed)
        std::erase(s.workspaceFolders, r);
      s.workspaceFolders.insert(s.workspaceFolders.end(), added.begin(), added.end());
    });
  } else if (method == "$/cancelRequest") {
    const json &id = required(params, "id");
    abandon(id.dump(), id, RequestCancelled, "cancelled");
  } else if (method == "initialized" && watchFiles_) {
    // The client's answer needs nothing: a response to the server's request is ignored.
    json watcher = {{"globPattern", "**/*.isam"}};
    json registration = {{"id", "isamap/watch-isam-files"},
                         {"method", "workspace/didChangeWatchedFiles"},
                         {"registerOptions", {{"watchers", json::array({watcher})}}}};
    sendJson({{"jsonrpc", "2.0"},
              {"id", "isamap/watch-isam-files"},
              {"method", "client/registerCapability"},
              {"params", {{"registrations", json::array({registration})}}}});
  }
  // `$/setTrace` and other notifications need nothing; unknown ones are ignored, as the
  // specification allows.
}

} // namespace isam::lsp
