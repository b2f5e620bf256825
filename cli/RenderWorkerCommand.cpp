// `isamap render-worker`: not for users (hidden from the help). The language server starts it to
// draw diagrams out of its own process (viz/RenderWorker.h); it answers rendering jobs read from
// its standard input, a socket, until the server closes it.
#include "Commands.h"

#include "viz/RenderWorker.h"

namespace isam::cli {

Action registerRenderWorker(CLI::App &app) {
  auto *cmd = app.add_subcommand("render-worker", "Render diagrams for the language server");
  cmd->group(""); // hidden
  return []() { return viz::serveRenderJobs(0); };
}

} // namespace isam::cli
