// The language server: JSON-RPC dispatch, the protocol's lifecycle, and the threads that keep
// the reading thread free.
//
// The reading thread only parses messages, applies document changes and cancellations, and
// queues requests. Quick requests (hover, completion, navigation) are answered in order on one
// worker; slow ones (mappings, schedules, diagrams, target code, lenses, code actions) on a few
// others, so a long search never delays a hover, and one long compile does not hold up the
// lightbulb's code actions. Features take a document's analysis lock only for short steps (a
// statement's schedule, not a whole file's), so that requests on other threads are answered in
// between. Diagnostics come from the workspace's analysis thread: pushed
// (textDocument/publishDiagnostics), or, to a client that says it pulls them
// (textDocument.diagnostic), answered to textDocument/diagnostic, with
// workspace/diagnostic/refresh when a list it pulled has changed since; never both.
//
// Bad input never stops the server: malformed JSON is answered with ParseError, a message that
// is not a request with InvalidRequest, an unknown method with MethodNotFound, wrong parameters
// with InvalidParams, requests before `initialize` with ServerNotInitialized; notifications
// that are wrong are logged (window/logMessage), as they have no answer. A message nesting
// arrays and objects deeper than kMaxJsonDepth is a ParseError before anything recursive sees it.
#pragma once

#include "lsp/Call.h"
#include "lsp/Framing.h"
#include "lsp/Workspace.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace isam::lsp {

struct ServerOptions {
  // Imports only from the workspace roots, the include directories and the shipped hwdesc/
  // (a server whose client may be anyone who can connect: TCP).
  bool confineImports = false;
};

class Server {
public:
  // `send` writes one message body (the server frames nothing itself); it is called from
  // several threads, one at a time.
  using Send = std::function<void(const std::string &body)>;

  explicit Server(Send send, ServerOptions options = {});
  ~Server();
  Server(const Server &) = delete;
  Server &operator=(const Server &) = delete;

  // Handles one message body. False once `exit` has been received.
  bool receive(const std::string &body);
  // Reads messages until `exit` or the end of the stream; returns the process's exit code (0
  // after shutdown then exit, 1 otherwise, as the specification asks).
  int serve(MessageReader &reader);

private:
  // A request between its arrival and its answer. Exactly one answer is sent: the worker's, or
  // the reading thread's at once when the client cancels the request or edits its document
  // (RequestCancelled, ContentModified); the work then stops at its next check, and what it
  // still makes is dropped. Work-done progress it began is ended before the answer, and none is
  // sent after it (the token is the client's only until the answer).
  struct Request {
    std::string uri; // params.textDocument.uri, if any
    std::atomic<bool> cancelled{false};
    std::mutex mutex; // guards the two below, and orders what is sent for this request
    bool answered = false;
    std::vector<json> progressOpen; // tokens whose progress began and has not ended
  };
  struct Pending {
    json id;
    std::string method;
    json params;
    std::shared_ptr<Request> state;
  };
  class Queue;

  void sendJson(const json &message);
  void log(int type, const std::string &message);
  void dispatch(const json &message);
  void notify(const std::string &method, const json &params);
  void onNotification(const std::string &method, const json &params);
  json initialize(const json &params);
  void enqueue(Pending p, bool slow);
  void work(Queue &queue);
  void answer(Pending &p);
  // Sends `message` as the answer to `r` unless it was answered already.
  void respond(Request &r, const json &message);
  // Sends a $/progress notification of `r`'s work unless `r` was answered already.
  void progress(Request &r, const json &message);
  // Answers the request `key` (its id's JSON text) with `code` now, if it is still running, and
  // stops its work.
  void abandon(const std::string &key, const json &id, int code, const std::string &why);
  void publishDiagnostics(const std::string &uri, int64_t version,
                          const std::vector<LspDiagnostic> &diagnostics);
  void reportSettingsProblems(const std::vector<std::string> &problems);
  void progressBegin(const std::string &token, const std::string &title);
  void progressCreated(const std::string &token, bool ok);
  void progressReport(const std::string &token, const std::string &message, int percentage);
  void progressEnd(const std::string &token);

  Send send_;
  std::mutex sendMutex_;
  std::map<std::string, Feature> features_;
  std::unique_ptr<Workspace> workspace_;
  enum class State { Uninitialized, Running, ShutDown, Exited } state_ = State::Uninitialized;
  int exitCode_ = 1;
  bool watchFiles_ = false; // the client registers file watchers the server asks for
  // The client pulls diagnostics (none are pushed), and can be asked to pull again.
  std::atomic<bool> pullDiagnostics_{false}, refreshDiagnostics_{false};
  std::atomic<uint64_t> nextRefresh_{1};
  // The client shows work-done progress the server starts (window/workDoneProgress/create).
  std::atomic<bool> showProgress_{false};
  static constexpr std::string_view kProgressPrefix = "isamap/create-progress/";
  struct ServerProgress {
    std::string title;
    bool created = false; // the client answered the creation
    bool ended = false;   // ended before that answer
  };
  std::mutex progressMutex_;
  std::map<std::string, ServerProgress> progress_; // by token
  std::mutex inflightMutex_;
  std::map<std::string, std::pair<json, std::shared_ptr<Request>>> inflight_; // by id's JSON text
  std::unique_ptr<Queue> quick_, slow_;
  std::thread quickThread_;
  std::vector<std::thread> slowThreads_; // kSlowWorkers
  static constexpr int kSlowWorkers = 3;
};

} // namespace isam::lsp
