// Where the server's messages travel: the process's stdin and stdout (what editors start a
// server with), or one TCP connection (Boost.Asio), for clients that connect to a running server
// and for debugging. Both serve until `exit` or until the client goes away.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace isam::lsp {

// Serves on stdin/stdout. Anything else the process would print to stdout (a library's message)
// goes to stderr instead, so that it cannot corrupt the protocol stream. Returns the exit code.
int serveStdio();

// Listens on `address`:`port` (port 0 picks a free one), calls `listening` with the port, serves
// the first connection and returns its exit code. Throws std::runtime_error when the address
// cannot be bound.
int serveTcp(const std::string &address, uint16_t port,
             const std::function<void(uint16_t port)> &listening);

} // namespace isam::lsp
