// `isamap map FILE --target NAME`: every mapping of every statement onto the target's
// instructions, ranked, with the rejections and their reasons; for a system, each unit's
// mappings and the partition.
#include "Commands.h"
#include "Common.h"
#include "mapping/Mapping.h"
#include "report/Json.h"

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace isam::cli {

Action registerMap(CLI::App &app) {
  struct Options {
    std::string file, target;
    CommonOptions common;
    SelectorOptions selector;
    double budgetMs = 500;
    size_t maxCandidates = 32;
  };
  auto opts = std::make_shared<Options>();
  auto *cmd =
      app.add_subcommand("map", "Find every way each statement runs on a target's instructions");
  cmd->add_option("file", opts->file, "The .isam file")->required();
  cmd->add_option("-t,--target", opts->target, "Target or system name (e.g. x86_avx512, soc)")
      ->required();
  cmd->add_option("--budget-ms", opts->budgetMs, "Search time budget per statement and target")
      ->check(kPositive);
  cmd->add_option("--max-candidates", opts->maxCandidates, "Mappings kept per instruction")
      ->check(CLI::Range(1, 10000));
  addCommonOptions(*cmd, opts->common);
  addReciprocalMathOption(*cmd, opts->common);
  addSelectorOptions(*cmd, opts->selector);
  return [opts]() {
    Session session(sessionOptions(opts->common));
    std::vector<ir::Kernel> kernels;
    if (int failed =
            loadInstances(session, opts->file, opts->selector, opts->common.format, kernels, "map"))
      return failed;
    // A system maps onto each of its units; a target onto itself.
    std::vector<hw::Target> units;
    std::optional<hw::System> system;
    if (session.isSystem(opts->target)) {
      system = session.system(opts->target);
      if (system) {
        std::vector<std::string> names = system->hosts;
        names.insert(names.end(), system->devices.begin(), system->devices.end());
        for (const auto &n : names)
          if (auto t = session.target(n))
            units.push_back(std::move(*t));
      }
    } else if (auto t = session.target(opts->target)) {
      units.push_back(std::move(*t));
    }
    if (session.diagnostics().hasErrors() || units.empty()) {
      printDiagnostics(session, opts->common.format);
      return 1;
    }
    mapping::MapOptions mo;
    mo.budgetMs = opts->budgetMs;
    mo.maxCandidatesPerInstruction = opts->maxCandidates;
    nlohmann::json statements = nlohmann::json::array(), partitions = nlohmann::json::array();
    std::string text;
    for (const auto &k : kernels) {
      std::vector<std::vector<mapping::StatementMappings>> perUnit;
      for (const auto &u : units) {
        perUnit.push_back(session.mappings(k, u, mo));
        for (const auto &m : perUnit.back()) {
          statements.push_back(report::mappingsJson(m, k, u, session.sources()));
          text += mapping::printMappings(m, k, u) + "\n";
        }
      }
      if (system) {
        auto p = mapping::partition(k, *system, units, perUnit);
        text += mapping::printPartition(p, k) + "\n";
        nlohmann::json placements = nlohmann::json::array(), transfers = nlohmann::json::array();
        for (const auto &pl : p.placements)
          placements.push_back({{"statement", pl.statement},
                                {"unit", pl.unit},
                                {"instruction", pl.instruction},
                                {"seconds", pl.seconds},
                                {"ableUnits", pl.ableUnits}});
        for (const auto &t : p.transfers)
          transfers.push_back({{"tensor", t.tensor},
                               {"from", t.from},
                               {"to", t.to},
                               {"bytes", t.bytes},
                               {"sharedMemory", t.sharedMemory}});
        partitions.push_back(
            {{"kernel", k.name}, {"placements", placements}, {"transfers", transfers}});
      }
    }
    if (opts->common.format == Format::Json) {
      nlohmann::json out = {{"statements", statements}};
      if (system)
        out["partitions"] = partitions;
      printJsonDocument(out);
    } else {
      std::cout << text;
    }
    if (!session.diagnostics().all().empty())
      printDiagnostics(session, Format::Text);
    return session.diagnostics().hasErrors() ? 1 : 0;
  };
}

} // namespace isam::cli
