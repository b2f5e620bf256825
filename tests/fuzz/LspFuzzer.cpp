// libFuzzer entry point for the language server: any bytes, as a client's stream on stdin, go
// through the base protocol's framing (MessageReader) and the server's JSON-RPC handling
// (Server::receive: the lifecycle, dispatch, notifications, and requests answered on the
// server's worker threads) without crashing, hanging or tripping a sanitizer. What the server
// sends is dropped.
//
// The loop is Server::serve's, with one addition that makes runs deterministic: before a
// `shutdown` or `exit` and at the end of the stream, it sends one quick and one slow request of
// its own and waits for their answers. Each kind is served in order by its own thread, so then
// every request before them has been answered, instead of being dropped when the server stops.
// The stream hands out its bytes in reads of 1 to 61 bytes (picked by the input's size), so that
// headers and bodies are split across reads at every place.
// scripts/fuzz.sh lsp runs it; the replay driver (Replay.cpp) replays tests/fuzz/corpus/lsp.
#include "lsp/Framing.h"
#include "lsp/Server.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>

namespace {

const char *kQuickProbe =
    R"({"jsonrpc":"2.0","id":"isamap-fuzz-quick","method":"workspace/symbol",)"
    R"("params":{"query":""}})";
const char *kSlowProbe =
    R"({"jsonrpc":"2.0","id":"isamap-fuzz-slow","method":"textDocument/codeLens",)"
    R"("params":{"textDocument":{"uri":"file:///isamap-fuzz/none.isam"}}})";

// Counts the answers to the two probes.
struct Answers {
  std::mutex mutex;
  std::condition_variable arrived;
  int count = 0;

  void onSend(const std::string &body) {
    if (body.find("\"isamap-fuzz-") == std::string::npos)
      return;
    auto message = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (!message.is_object() || !message.contains("id") || message.contains("method"))
      return;
    const auto &id = message["id"];
    if (id == "isamap-fuzz-quick" || id == "isamap-fuzz-slow") {
      std::lock_guard lock(mutex);
      ++count;
      arrived.notify_all();
    }
  }
};

bool isShutdownOrExit(const std::string &body) {
  auto message = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!message.is_object() || !message.contains("method"))
    return false;
  const auto &method = message["method"];
  return method == "shutdown" || method == "exit";
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t at = 0, chunk = size % 61 + 1;
  isam::lsp::MessageReader reader([&](char *buffer, size_t capacity) {
    size_t n = std::min({capacity, chunk, size - at});
    std::memcpy(buffer, data + at, n);
    at += n;
    return n;
  });
  Answers answers;
  isam::lsp::Server server([&](const std::string &body) { answers.onSend(body); });
  // Sends the probes and waits for both answers: every request before them is answered.
  auto drain = [&] {
    int before;
    {
      std::lock_guard lock(answers.mutex);
      before = answers.count;
    }
    server.receive(kQuickProbe);
    server.receive(kSlowProbe);
    std::unique_lock lock(answers.mutex);
    answers.arrived.wait(lock, [&] { return answers.count >= before + 2; });
  };
  for (;;) {
    isam::lsp::ReadResult r = reader.next();
    if (r.kind == isam::lsp::ReadResult::Kind::End ||
        r.kind == isam::lsp::ReadResult::Kind::Truncated) {
      drain();
      break;
    }
    if (r.kind != isam::lsp::ReadResult::Kind::Message)
      continue; // serve() answers a bad frame with an error and reads on
    if (isShutdownOrExit(r.body))
      drain();
    if (!server.receive(r.body))
      break;
  }
  return 0;
}
