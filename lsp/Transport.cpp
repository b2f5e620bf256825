#include "lsp/Transport.h"
#include "lsp/Framing.h"
#include "lsp/Rpc.h"
#include "lsp/Server.h"
#include "source/FileIo.h"

#include <boost/asio.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <list>
#include <memory>
#include <stdexcept>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace isam::lsp {

namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

// Reads a file descriptor for MessageReader: the bytes read, 0 at the end or on an error.
size_t readFd(int fd, char *buffer, size_t capacity) {
  for (;;) {
    ssize_t n = ::read(fd, buffer, capacity);
    if (n < 0 && errno == EINTR)
      continue;
    return n > 0 ? size_t(n) : 0;
  }
}

// Writes all of `data` to a socket; false once the peer has gone. MSG_NOSIGNAL: a client that
// disconnects must not end the process (SIGPIPE) and with it every other client.
bool sendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data.remove_prefix(size_t(n));
  }
  return true;
}

// One client: its own server on its own thread, reading and writing the socket's descriptor.
// The descriptor is closed by the listener once the thread has been joined, so that it can
// never be shut down after its number was reused.
struct Connection {
  int fd = -1;
  std::string peer;
  std::atomic<bool> done{false};
  std::thread thread;
};

using Log = std::function<void(const std::string &line)>;
using Connections = std::list<std::unique_ptr<Connection>>;

// Opens, binds and listens; throws with the reason when it cannot.
void listenOn(tcp::acceptor &acceptor, const std::string &address, uint16_t port) {
  boost::system::error_code ec;
  asio::ip::address ip = asio::ip::make_address(address, ec);
  if (ec)
    throw std::runtime_error("'" + address + "' is not an IP address");
  tcp::endpoint endpoint(ip, port);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec)
    acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec)
    acceptor.bind(endpoint, ec);
  if (!ec)
    acceptor.listen(int(kMaxTcpClients), ec);
  if (ec)
    throw std::runtime_error("cannot listen on " + address + ":" + std::to_string(port) + ": " +
                             ec.message());
}

// Joins and closes the connections whose client has left.
void reap(Connections &connections) {
  for (auto it = connections.begin(); it != connections.end();) {
    if (!(*it)->done) {
      ++it;
      continue;
    }
    (*it)->thread.join();
    ::close((*it)->fd);
    it = connections.erase(it);
  }
}

// A client over the limit gets a JSON-RPC error saying why, then the connection is closed.
void refuse(int fd, const std::string &peer, const Log &log) {
  std::string why =
      "the server serves at most " + std::to_string(kMaxTcpClients) + " clients at a time";
  sendAll(fd, frame(errorResponse(nullptr, RequestFailed, why).dump()));
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
  log("refused " + peer + ": " + why);
}

// The client's own server on its own thread, until the client leaves (or the listener shuts
// the socket down); then it marks itself done for reap.
std::unique_ptr<Connection> serveClient(int fd, const std::string &peer, const Log &log) {
  auto connection = std::make_unique<Connection>();
  connection->fd = fd;
  connection->peer = peer;
  Connection *self = connection.get();
  connection->thread = std::thread([self, &log] {
    int code = 1;
    try {
      ServerOptions options;
      options.confineImports = true;
      Server server([fd = self->fd](const std::string &body) { sendAll(fd, frame(body)); },
                    options);
      MessageReader reader(
          [fd = self->fd](char *buffer, size_t capacity) { return readFd(fd, buffer, capacity); });
      code = server.serve(reader);
    } catch (const std::exception &e) {
      log(self->peer + ": " + e.what());
    }
    ::shutdown(self->fd, SHUT_RDWR);
    log("client " + self->peer + " disconnected (exit code " + std::to_string(code) + ")");
    self->done = true;
  });
  log("client " + peer + " connected");
  return connection;
}

// An accepted socket: served if there is room for one more client, refused otherwise.
void admit(tcp::socket socket, Connections &connections, const Log &log) {
  boost::system::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  auto remote = socket.remote_endpoint(ignored);
  std::string peer = remote.address().to_string() + ":" + std::to_string(remote.port());
  int fd = socket.release(ignored);
  if (fd < 0)
    return;
  reap(connections);
  if (connections.size() >= kMaxTcpClients) {
    refuse(fd, peer, log);
    return;
  }
  connections.push_back(serveClient(fd, peer, log));
}

} // namespace

int serveStdio() {
  // The protocol gets a private copy of stdout; fd 1 becomes stderr for everyone else.
  int out = ::dup(STDOUT_FILENO);
  if (out < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
    throw std::runtime_error("cannot set up stdout for the protocol");
  Server server([out](const std::string &body) { writeAll(out, frame(body)); });
  MessageReader reader(
      [](char *buffer, size_t capacity) { return readFd(STDIN_FILENO, buffer, capacity); });
  int code = server.serve(reader);
  ::close(out);
  return code;
}

std::optional<ListenAddress> parseListenAddress(const std::string &text, std::string &error) {
  ListenAddress out;
  std::string host = "127.0.0.1", port = text;
  if (auto colon = text.rfind(':'); colon != std::string::npos) {
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
      host = host.substr(1, host.size() - 2);
    else if (host.find(':') != std::string::npos) {
      error = "an IPv6 address takes brackets: [ADDRESS]:PORT, not '" + text + "'";
      return std::nullopt;
    }
  }
  char *end = nullptr;
  errno = 0;
  long p = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || *end != 0 || errno || p < 0 || p > 65535 ||
      !std::isdigit(static_cast<unsigned char>(port[0]))) {
    error = "--listen expects PORT or ADDRESS:PORT with a port from 0 to 65535, not '" + text + "'";
    return std::nullopt;
  }
  out.port = uint16_t(p);
  if (host == "localhost")
    host = "127.0.0.1";
  boost::system::error_code ec;
  asio::ip::address ip = asio::ip::make_address(host, ec);
  if (ec) {
    error = "'" + host + "' is not an IP address (nor localhost)";
    return std::nullopt;
  }
  if (ip.is_v6() && ip.to_v6().is_v4_mapped())
    out.loopback = ip.to_v6().to_v4().is_loopback();
  else
    out.loopback = ip.is_loopback();
  out.address = ip.to_string();
  return out;
}

int serveTcp(const std::string &address, uint16_t port,
             const std::function<void(uint16_t port)> &listening, const Log &log) {
  asio::io_context io;
  tcp::acceptor acceptor(io);
  listenOn(acceptor, address, port);
  listening(acceptor.local_endpoint().port());

  Connections connections;
  asio::steady_timer pause(io);
  std::function<void()> acceptNext = [&] {
    acceptor.async_accept([&](const boost::system::error_code &aec, tcp::socket socket) {
      if (aec == asio::error::operation_aborted)
        return; // stopped by a signal
      if (!aec) {
        admit(std::move(socket), connections, log);
        acceptNext();
        return;
      }
      // Out of descriptors, say: try again a little later rather than spin.
      log("accepting a connection failed: " + aec.message());
      pause.expires_after(std::chrono::milliseconds(100));
      pause.async_wait([&](const boost::system::error_code &tec) {
        if (!tec && acceptor.is_open())
          acceptNext();
      });
    });
  };
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code &, int) {
    boost::system::error_code ignored;
    acceptor.close(ignored);
    pause.cancel();
  });
  acceptNext();
  io.run();

  // Every reader sees the end of its stream; each server then ends as when its client leaves.
  for (auto &connection : connections)
    ::shutdown(connection->fd, SHUT_RDWR);
  for (auto &connection : connections) {
    connection->thread.join();
    ::close(connection->fd);
  }
  return 0;
}

} // namespace isam::lsp
