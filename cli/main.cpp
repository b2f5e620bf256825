// The `isamap` command: one binary, one subcommand per stage of the pipeline.
#include "Commands.h"
#include "Revision.h" // generated: ISAMAP_REVISION

#include <cstdio>
#include <iostream>
#include <malloc.h>
#include <new>
#include <stdexcept>

namespace {
const char *const kVersion =
    "isamap " ISAMAP_VERSION " (revision " ISAMAP_REVISION ", LLVM " ISAMAP_LLVM_VERSION ")";
} // namespace

int main(int argc, char **argv) {
  // glibc's fastbins postpone merging freed small blocks until a consolidation pass over all of
  // them, which the parse tree's tens of thousands of frees trigger again and again; without
  // fastbins, `isamap check` on a 5,000-line file runs about 10% faster.
  mallopt(M_MXFAST, 0);
  CLI::App app{"isamap: map deep-learning kernels onto described hardware", "isamap"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App *, isam::cli::Action>> commands;
  auto add = [&](isam::cli::Action (*reg)(CLI::App &)) {
    size_t before = app.get_subcommands({}).size();
    isam::cli::Action action = reg(app);
    commands.push_back({app.get_subcommands({})[before], std::move(action)});
  };
  add(isam::cli::registerCheck);
  add(isam::cli::registerCompile);
  add(isam::cli::registerDumpIr);
  add(isam::cli::registerFmt);
  add(isam::cli::registerLsp);
  add(isam::cli::registerMap);
  add(isam::cli::registerRenderWorker);
  add(isam::cli::registerSchedule);
  add(isam::cli::registerRun);
  add(isam::cli::registerTargets);
  add(isam::cli::registerTune);
  add(isam::cli::registerViz);
  add(isam::cli::registerCompletion);
  size_t beforeMan = app.get_subcommands({}).size();
  isam::cli::Action man = isam::cli::registerMan(app, kVersion);
  commands.push_back({app.get_subcommands({})[beforeMan], std::move(man)});
  for (auto &[cmd, _] : commands)
    cmd->set_version_flag("--version", kVersion);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    app.exit(e);
    return 2; // usage errors
  }
  for (auto &[cmd, action] : commands)
    if (cmd->parsed()) {
      // A result a line as it is known, also through a pipe (CI logs, `| tee`), where stdio
      // would buffer blocks; the servers' streams stay block-buffered.
      if (cmd->get_name() != "lsp" && cmd->get_name() != "render-worker")
        std::setvbuf(stdout, nullptr, _IOLBF, 0);
      // Commands check what they are about to allocate (cli/Memory.h); this is the last resort
      // for what they could not foresee, so that no size aborts the process.
      try {
        return action();
      } catch (const std::bad_alloc &) {
        std::cerr << "isamap " << cmd->get_name() << ": out of memory\n";
      } catch (const std::length_error &e) {
        std::cerr << "isamap " << cmd->get_name() << ": out of memory (" << e.what() << ")\n";
      }
      return 1;
    }
  return 2;
}
