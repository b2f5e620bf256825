// `isamap dump-ir FILE`: the compute IR of the selected instances and the hardware model of
// every target and system the file declares or imports, as readable text or as JSON
// ({"version": 1, "kernels", "targets", "systems"}: report/Json.h's forms).
#include "Commands.h"
#include "Common.h"
#include "report/Json.h"

#include <iostream>
#include <memory>

namespace isam::cli {

Action registerDumpIr(CLI::App &app) {
  struct Options {
    std::string file;
    CommonOptions common;
    SelectorOptions selector;
  };
  auto opts = std::make_shared<Options>();
  auto *cmd = app.add_subcommand("dump-ir", "Print the compute IR and the hardware model");
  cmd->add_option("file", opts->file, "The .isam file")->required();
  addCommonOptions(*cmd, opts->common);
  addReciprocalMathOption(*cmd, opts->common);
  addSelectorOptions(*cmd, opts->selector);
  return [opts]() {
    Session session(sessionOptions(opts->common));
    std::vector<ir::Kernel> kernels;
    if (int failed =
            loadInstances(session, opts->file, opts->selector, Format::Text, kernels, nullptr))
      return failed;
    std::vector<hw::Target> targets = session.allTargets();
    std::vector<hw::System> systems;
    for (const auto &[name, _] : session.symbols().systems)
      if (auto s = session.system(name))
        systems.push_back(std::move(*s));
    printDiagnostics(session, Format::Text);
    if (session.diagnostics().hasErrors())
      return 1;
    if (opts->common.format == Format::Json) {
      nlohmann::json out = {{"kernels", nlohmann::json::array()},
                            {"targets", nlohmann::json::array()},
                            {"systems", nlohmann::json::array()}};
      for (const auto &k : kernels)
        out["kernels"].push_back(report::kernelJson(k, session.sources()));
      for (const auto &t : targets)
        out["targets"].push_back(report::targetJson(t));
      for (const auto &s : systems)
        out["systems"].push_back(s.name);
      printJsonDocument(out);
      return 0;
    }
    for (const auto &k : kernels)
      std::cout << ir::printKernel(k) << "\n";
    for (const auto &t : targets)
      std::cout << hw::printTarget(t) << "\n";
    for (const auto &s : systems)
      std::cout << hw::printSystem(s) << "\n";
    return 0;
  };
}

} // namespace isam::cli
