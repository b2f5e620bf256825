// `isamap schedule FILE --target NAME`: the chosen mapping, tiles, loop order and parallel loop
// of every statement, the schedule IR and the cost model's breakdown; `--check` executes the
// schedule and compares it with the reference interpreter.
#include "Commands.h"
#include "Common.h"
#include "ReferenceCheck.h"
#include "pipeline/Pipeline.h"
#include "report/Json.h"
#include "schedule/Execute.h"

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace isam::cli {

Action registerSchedule(CLI::App &app) {
  struct Options {
    std::string file, target;
    CommonOptions common;
    SelectorOptions selector;
    SearchOptions searchOptions;
    std::vector<std::string> printAfter;
    uint64_t seed = 1;
    unsigned threads = 0; // 0: the target's cores
    bool check = false;
    interp::Reference reference = interp::Reference::Rows;
  };
  auto opts = std::make_shared<Options>();
  auto *cmd = app.add_subcommand("schedule", "Choose and print a schedule for every statement");
  cmd->add_option("file", opts->file, "The .isam file")->required();
  cmd->add_option("-t,--target", opts->target,
                  "Target: a name (isamap targets lists them) or a description file")
      ->required();
  addSearchOptions(*cmd, opts->searchOptions);
  addTuningDbOption(*cmd, opts->searchOptions.tuningDb);
  addScheduleThreadsOption(*cmd, opts->threads);
  cmd->add_option("--seed", opts->seed, "Seed of the search and of --check's inputs");
  cmd->add_flag("--check", opts->check,
                "Execute the schedule on random inputs and compare with the reference");
  addReferenceOption(*cmd, opts->reference);
  addCommonOptions(*cmd, opts->common);
  addReciprocalMathOption(*cmd, opts->common);
  addSelectorOptions(*cmd, opts->selector);
  addPrintAfterOption(*cmd, opts->printAfter);
  return [opts]() {
    pipeline::Options po;
    if (int usage = printAfterOption(opts->printAfter, pipeline::Stage::Schedule, "schedule",
                                     po.printAfter))
      return usage;
    po.target = opts->target;
    po.threads = opts->threads;
    po.schedule = scheduleOptions(opts->searchOptions, opts->seed);
    std::optional<pipeline::TuningDb> tuning;
    if (int failed = loadTuningDb(opts->searchOptions.tuningDb, "schedule", tuning))
      return failed;
    po.tuning = tuning ? &*tuning : nullptr;
    Session session(sessionOptions(opts->common));
    pipeline::Pipeline p(session, po);
    std::vector<ir::Kernel> kernels;
    if (int failed =
            loadInstances(p, opts->file, opts->selector, opts->common.format, kernels, "schedule"))
      return failed;
    const hw::Target *target = p.target();
    if (!target) {
      printDiagnostics(session, opts->common.format);
      return 1;
    }
    nlohmann::json results = nlohmann::json::array();
    bool failed = false;
    for (const auto &k : kernels) {
      auto scheduled = p.schedule(k);
      if (!scheduled)
        break;
      const schedule::KernelSchedule &ks = scheduled->schedule;
      nlohmann::json j = report::scheduleJson(ks, k, *target);
      if (opts->common.format == Format::Text)
        std::cout << schedule::printSchedule(ks, k, *target) << "\n";
      if (opts->check) {
        interp::Buffers inputs = interp::randomInputs(k, opts->seed), got = inputs;
        schedule::execute(ks, k, *target, got, progressOnStderr(k.name, "schedule-IR"));
        bool text = opts->common.format == Format::Text;
        failed = !checkAgainstReference(k, inputs, got, opts->reference, text, j) || failed;
        if (text)
          std::cout << "\n";
      }
      results.push_back(j);
    }
    if (opts->common.format == Format::Json && !session.diagnostics().hasErrors())
      printJsonDocument({{"instances", results}});
    if (!session.diagnostics().all().empty())
      printDiagnostics(session, Format::Text);
    return session.diagnostics().hasErrors() || failed ? 1 : 0;
  };
}

} // namespace isam::cli
