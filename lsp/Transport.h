// Where the server's messages travel: the process's stdin and stdout (what editors start a
// server with), or TCP connections (Boost.Asio), for clients that connect to a running server
// and for debugging.
//
// Over TCP every connection is served independently: its own Server, documents, settings and
// analyses, on its own threads, so one client's edits, settings, `shutdown` or disconnection
// never touch another's. At most kMaxTcpClients connections are served at a time; one more is
// answered with a JSON-RPC error and closed. A connection's server confines imports to the
// workspace roots it was given (Settings::confineImports): whoever can connect can make the
// server read files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace isam::lsp {

// Serves on stdin/stdout until `exit` or the end of input. Anything else the process would
// print to stdout (a library's message) goes to stderr instead, so that it cannot corrupt the
// protocol stream. Returns the exit code.
int serveStdio();

// `--listen`'s value: PORT (the loopback address), HOST:PORT or [IPv6]:PORT, HOST an IP address
// or `localhost` (127.0.0.1).
struct ListenAddress {
  std::string address; // an IP address, without brackets
  uint16_t port = 0;
  bool loopback = false; // 127.0.0.0/8 or ::1 (also IPv4-mapped): only this machine can connect
};
// nullopt, with `error` saying why, when `text` is not one.
std::optional<ListenAddress> parseListenAddress(const std::string &text, std::string &error);

constexpr size_t kMaxTcpClients = 16;

// Listens on `address`:`port` (port 0 picks a free one), calls `listening` with the port, and
// serves every connection as said above until SIGINT or SIGTERM, which closes the connections
// (their servers end as when a client goes away) and returns 0. `log` gets one line per
// connection and per problem. Throws std::runtime_error when the address cannot be bound.
int serveTcp(const std::string &address, uint16_t port,
             const std::function<void(uint16_t port)> &listening,
             const std::function<void(const std::string &line)> &log);

} // namespace isam::lsp
