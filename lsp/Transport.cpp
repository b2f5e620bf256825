#include "lsp/Transport.h"
#include "lsp/Framing.h"
#include "lsp/Server.h"
#include "source/FileIo.h"

#include <boost/asio.hpp>

#include <cerrno>
#include <stdexcept>
#include <unistd.h>

namespace isam::lsp {

int serveStdio() {
  // The protocol gets a private copy of stdout; fd 1 becomes stderr for everyone else.
  int out = ::dup(STDOUT_FILENO);
  if (out < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
    throw std::runtime_error("cannot set up stdout for the protocol");
  Server server([out](const std::string &body) { writeAll(out, frame(body)); });
  MessageReader reader([](char *buffer, size_t capacity) -> size_t {
    for (;;) {
      ssize_t n = ::read(STDIN_FILENO, buffer, capacity);
      if (n < 0 && errno == EINTR)
        continue;
      return n > 0 ? size_t(n) : 0;
    }
  });
  int code = server.serve(reader);
  ::close(out);
  return code;
}

int serveTcp(const std::string &address, uint16_t port,
             const std::function<void(uint16_t port)> &listening) {
  namespace asio = boost::asio;
  using asio::ip::tcp;
  asio::io_context io;
  boost::system::error_code ec;
  asio::ip::address ip = asio::ip::make_address(address, ec);
  if (ec)
    throw std::runtime_error("'" + address + "' is not an IP address");
  tcp::acceptor acceptor(io);
  tcp::endpoint endpoint(ip, port);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec)
    acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec)
    acceptor.bind(endpoint, ec);
  if (!ec)
    acceptor.listen(1, ec);
  if (ec)
    throw std::runtime_error("cannot listen on " + address + ":" + std::to_string(port) + ": " +
                             ec.message());
  listening(acceptor.local_endpoint().port());
  tcp::socket socket(io);
  acceptor.accept(socket, ec);
  if (ec)
    throw std::runtime_error("accepting a connection failed: " + ec.message());
  acceptor.close();
  socket.set_option(tcp::no_delay(true), ec);
  Server server([&socket](const std::string &body) {
    boost::system::error_code wec;
    asio::write(socket, asio::buffer(frame(body)), wec); // a client gone: the read ends too
  });
  MessageReader reader([&socket](char *buffer, size_t capacity) -> size_t {
    boost::system::error_code rec;
    size_t n = socket.read_some(asio::buffer(buffer, capacity), rec);
    return rec ? 0 : n;
  });
  int code = server.serve(reader);
  socket.shutdown(tcp::socket::shutdown_both, ec);
  return code;
}

} // namespace isam::lsp
