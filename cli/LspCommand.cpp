// `isamap lsp [--stdio | --listen ADDRESS:PORT]`: the language server. Over stdio by default
// (editors start it so; VS Code's client passes --stdio), or on one TCP connection.
#include "Commands.h"

#include "lsp/Transport.h"

#include <iostream>

namespace isam::cli {

Action registerLsp(CLI::App &app) {
  struct Options {
    bool stdio = false;
    std::string listen;
  };
  auto opts = std::make_shared<Options>();
  auto *cmd = app.add_subcommand("lsp", "Serve the Language Server Protocol (stdio by default)");
  auto *stdio = cmd->add_flag("--stdio", opts->stdio, "Talk over stdin and stdout (the default)");
  cmd->add_option("--listen", opts->listen,
                  "Serve one TCP connection on ADDRESS:PORT (127.0.0.1:0 picks a free port, "
                  "printed on stderr)")
      ->excludes(stdio);
  return [opts]() {
    try {
      if (opts->listen.empty())
        return lsp::serveStdio();
      // ADDRESS:PORT, or just PORT for the loopback address.
      std::string address = "127.0.0.1", port = opts->listen;
      if (auto colon = opts->listen.rfind(':'); colon != std::string::npos) {
        address = opts->listen.substr(0, colon);
        port = opts->listen.substr(colon + 1);
      }
      if (address.size() > 2 && address.front() == '[' && address.back() == ']')
        address = address.substr(1, address.size() - 2);
      char *end = nullptr;
      long p = std::strtol(port.c_str(), &end, 10);
      if (port.empty() || *end != 0 || p < 0 || p > 65535) {
        std::cerr << "isamap lsp: --listen expects ADDRESS:PORT with a port from 0 to 65535, not '"
                  << opts->listen << "'\n";
        return 1;
      }
      return lsp::serveTcp(address, uint16_t(p), [&](uint16_t bound) {
        std::cerr << "isamap lsp: listening on " << address << ":" << bound << std::endl;
      });
    } catch (const std::exception &e) {
      std::cerr << "isamap lsp: " << e.what() << "\n";
      return 1;
    }
  };
}

} // namespace isam::cli
