// `isamap check FILE...`: parse and analyse; exit 0 when clean, 1 on errors.
#include "Commands.h"
#include "Common.h"

#include <iostream>
#include <memory>

namespace isam::cli {

Action registerCheck(CLI::App &app) {
  struct Options {
    std::vector<std::string> files;
    CommonOptions common;
  };
  auto opts = std::make_shared<Options>();
  auto *cmd = app.add_subcommand("check", "Check files for errors (syntax, names, shapes, hardware)");
  cmd->add_option("files", opts->files, "The .isam files to check")->required();
  addCommonOptions(*cmd, opts->common);
  return [opts]() {
    bool errors = false;
    std::vector<std::unique_ptr<Session>> sessions;
    for (const auto &file : opts->files) {
      auto session = std::make_unique<Session>(sessionOptions(opts->common));
      if (session->loadFile(file))
        session->checkAll();
      errors = errors || session->diagnostics().hasErrors();
      sessions.push_back(std::move(session));
    }
    std::vector<Session *> all;
    for (auto &s : sessions)
      all.push_back(s.get());
    printDiagnostics(all, opts->common.format);
    return errors ? 1 : 0;
  };
}

} // namespace isam::cli
