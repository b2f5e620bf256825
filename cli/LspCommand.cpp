// `isamap lsp [--stdio | --listen [ADDRESS:]PORT [--allow-remote]]`: the language server. Over
// stdio by default (editors start it so; VS Code's client passes --stdio), or on TCP, where it
// serves any number of clients at once until SIGINT or SIGTERM (lsp/Transport.h).
//
// Listening is loopback-only unless --allow-remote says otherwise: whoever can connect can ask
// the server to read files, and there is no authentication.
#include "Commands.h"

#include "lsp/Transport.h"
#include "viz/RenderWorker.h"

#include <filesystem>
#include <iostream>
#include <mutex>

namespace isam::cli {

Action registerLsp(CLI::App &app) {
  struct Options {
    bool stdio = false;
    std::string listen;
    bool allowRemote = false;
  };
  auto opts = std::make_shared<Options>();
  auto *cmd = app.add_subcommand("lsp", "Serve the Language Server Protocol (stdio by default)");
  auto *stdio = cmd->add_flag("--stdio", opts->stdio, "Talk over stdin and stdout (the default)");
  auto *listen =
      cmd->add_option("--listen", opts->listen,
                      "Serve TCP clients on [ADDRESS:]PORT, 127.0.0.1 by default (port 0 picks a "
                      "free one, printed on stderr); runs until SIGINT or SIGTERM")
          ->excludes(stdio);
  cmd->add_flag("--allow-remote", opts->allowRemote,
                "Allow --listen on an address other machines can reach (no authentication: "
                "they can read the workspace's files)")
      ->needs(listen);
  return [opts]() {
    // Diagrams are drawn by `isamap render-worker` processes, which Graphviz's leaks and heap
    // damage cannot outlive (viz/RenderWorker.h).
    std::error_code error;
    std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error)
      viz::useRenderWorker({{self.string(), "render-worker"}});
    try {
      if (opts->listen.empty())
        return lsp::serveStdio();
      std::string error;
      auto where = lsp::parseListenAddress(opts->listen, error);
      if (!where) {
        std::cerr << "isamap lsp: " << error << "\n";
        return 2;
      }
      std::string shown = where->address.find(':') != std::string::npos ? "[" + where->address + "]"
                                                                        : where->address;
      if (!where->loopback && !opts->allowRemote) {
        std::cerr << "isamap lsp: --listen " << opts->listen
                  << " would accept connections from other machines, with no authentication; "
                     "listen on 127.0.0.1 (--listen PORT), or pass --allow-remote\n";
        return 2;
      }
      if (!where->loopback)
        std::cerr << "isamap lsp: warning: listening on " << shown
                  << ", which other machines can reach: anyone who connects can make the server "
                     "read .isam files under the workspace folders they name\n";
      std::mutex logMutex;
      return lsp::serveTcp(
          where->address, where->port,
          [&](uint16_t bound) {
            std::lock_guard lock(logMutex);
            std::cerr << "isamap lsp: listening on " << shown << ":" << bound << std::endl;
          },
          [&](const std::string &line) {
            std::lock_guard lock(logMutex);
            std::cerr << "isamap lsp: " << line << std::endl;
          });
    } catch (const std::exception &e) {
      std::cerr << "isamap lsp: " << e.what() << "\n";
      return 1;
    }
  };
}

} // namespace isam::cli
