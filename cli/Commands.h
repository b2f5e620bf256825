// One function per subcommand: each registers its options and returns the action to run.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace isam::cli {

using Action = std::function<int()>;

Action registerCheck(CLI::App &app);
Action registerCompile(CLI::App &app);
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
