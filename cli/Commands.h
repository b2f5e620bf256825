// One function per subcommand: each registers its options and returns the action to run.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace isam::cli {

using Action = std::function<int()>;

Action registerCheck(CLI::App &app);
Action registerCompile(CLI::App &app);
// `completion` and `man` describe the other commands of `app`, so they are registered last.
Action registerCompletion(CLI::App &app);
Action registerMan(CLI::App &app, const std::string &version);
Action registerDumpIr(CLI::App &app);
Action registerFmt(CLI::App &app);
Action registerLsp(CLI::App &app);
Action registerMap(CLI::App &app);
Action registerRenderWorker(CLI::App &app);
Action registerRun(CLI::App &app);
Action registerSchedule(CLI::App &app);
Action registerTargets(CLI::App &app);
Action registerTune(CLI::App &app);
Action registerViz(CLI::App &app);

} // namespace isam::cli
