// `isamap check FILE...`: parse and analyse; exit 0 when clean, 1 on errors. With
// --verify-diagnostics, the files' `// expected-error {{...}}` comments are the expectation
// instead (diag/ExpectedDiagnostics.h): exit 0 exactly when they are met.
#include "Commands.h"
#include "Common.h"
#include "diag/ExpectedDiagnostics.h"

#include <iostream>
#include <memory>

namespace isam::cli {

namespace {

// Prints every mismatch between the file's expectations and its diagnostics to stderr.
bool verified(Session &session, bool loaded) {
  if (!loaded || !session.mainFile()) { // the file could not be read: nothing to verify against
    printDiagnostics(session, Format::Text);
    return false;
  }
  auto problems =
      verifyExpectations(session.sources(), session.mainFile()->id, session.diagnostics().all());
  for (const auto &p : problems)
    std::cerr << renderExpectationProblem(p, session.sources());
  return problems.empty();
}

} // namespace

Action registerCheck(CLI::App &app) {
  struct Options {
    std::vector<std::string> files;
    CommonOptions common;
    SearchOptions search;
    bool verify = false;
    std::string target;
    bool requireInstructions = false;
  };
  auto opts = std::make_shared<Options>();
  auto *cmd =
      app.add_subcommand("check", "Check files for errors (syntax, names, shapes, hardware)");
  cmd->add_option("files", opts->files, "The .isam files to check")->required();
  addCommonOptions(*cmd, opts->common, true);
  auto *target = cmd->add_option("-t,--target", opts->target,
                                 "The target --require-instructions schedules every instance on");
  auto *require =
      cmd->add_flag("--require-instructions", opts->requireInstructions,
                    "Fail (E0706) where a statement of an instance would run as scalar code on "
                    "--target instead of on one of its instructions")
          ->needs(target);
  target->needs(require);
  cmd->add_flag("--verify-diagnostics", opts->verify,
                "Check the diagnostics against the files' `// expected-error {{...}}` comments "
                "instead of printing them (exit 0 when they match)");
  return [opts]() {
    bool errors = false;
    std::vector<std::unique_ptr<Session>> sessions;
    for (const auto &file : opts->files) {
      auto session = std::make_unique<Session>(sessionOptions(opts->common));
      bool loaded = session->loadFile(file);
      if (loaded)
        session->checkAll();
      if (loaded && opts->requireInstructions && !session->diagnostics().hasErrors())
        if (auto target = session->target(opts->target)) // else the session says why
          session->requireInstructions(*target, scheduleOptions(opts->search, 1));
      if (opts->verify) {
        errors = !verified(*session, loaded) || errors;
        continue;
      }
      errors = errors || session->diagnostics().hasErrors();
      sessions.push_back(std::move(session));
    }
    if (opts->verify)
      return errors ? 1 : 0;
    std::vector<Session *> all;
    for (auto &s : sessions)
      all.push_back(s.get());
    printDiagnostics(all, opts->common.format);
    return errors ? 1 : 0;
  };
}

} // namespace isam::cli
