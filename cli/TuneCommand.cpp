// `isamap tune FILE --target T`: the schedules the search rates best for each selected
// instance, measured for real (pipeline/Tuner.h), the fastest kept in the tuning database that
// `schedule`, `compile`, `run` and the language server then use. `isamap tune --merge A B -o C`
// merges databases (a CI matrix tunes shards of a model zoo with --shard I/N).
#include "Commands.h"
#include "Common.h"
#include "pipeline/Pipeline.h"
#include "pipeline/Tuner.h"
#include "pipeline/TuningDb.h"
#include "source/Quantities.h"

#include <chrono>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace isam::cli {

namespace {

struct TuneOptions {
  std::string file, target, db, shard, output;
  std::vector<std::string> merge;
  CommonOptions common;
  SelectorOptions selector;
  SearchOptions search;
  pipeline::TuneOptions tune;
  bool retune = false;
};

// "I/N" with 1 <= I <= N: the instances whose position in the selection is I-1 modulo N.
bool parseShard(const std::string &text, size_t &index, size_t &count) {
  if (text.empty()) {
    index = 0, count = 1;
    return true;
  }
  unsigned long i = 0, n = 0;
  char rest = 0;
  if (std::sscanf(text.c_str(), "%lu/%lu%c", &i, &n, &rest) != 2 || n == 0 || i == 0 || i > n)
    return false;
  index = i - 1, count = n;
  return true;
}

int mergeDatabases(const TuneOptions &o) {
  if (o.output.empty()) {
    std::cerr << "isamap tune: --merge needs -o OUTPUT\n";
    return 2;
  }
  pipeline::TuningDb merged;
  for (const auto &path : o.merge) {
    auto db = pipeline::TuningDb::load(path);
    if (!db) {
      std::cerr << "isamap tune: " << llvm::toString(db.takeError()) << "\n";
      return 1;
    }
    merged.merge(*db);
  }
  if (auto e = merged.save(o.output)) {
    std::cerr << "isamap tune: " << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  std::cout << "merged " << o.merge.size() << " databases: " << merged.records().size()
            << " records in " << o.output << "\n";
  return 0;
}

// Progress on stderr: a line rewritten in place on a terminal, a line per trial otherwise.
pipeline::TuneProgress progressPrinter(const std::string &instance) {
  bool tty = isatty(STDERR_FILENO) != 0;
  return [tty, instance](const pipeline::Trial &t, size_t done, size_t planned) {
    std::string what = t.statement == pipeline::Trial::kPick
                           ? "the search's pick"
                           : "s" + std::to_string(t.statement) + " alternative " +
                                 std::to_string(t.alternative + 1);
    std::string result =
        !t.error.empty() ? "failed: " + t.error
        : !t.passed      ? "WRONG ANSWER (max rel error " + std::to_string(t.maxRelError) + ")"
                    : formatDuration(t.measuredMs) + " (model " + formatDuration(t.modelMs) + ")" +
                          (t.adopted ? ", best so far" : "");
    std::cerr << (tty ? "\r\033[K" : "") << instance << " [" << done << "/" << planned << "] "
              << what << ": " << result << (tty && done < planned && t.passed ? "" : "\n")
              << std::flush;
  };
}

nlohmann::json trialJson(const pipeline::Trial &t) {
  nlohmann::json j = {{"modelMs", t.modelMs}, {"adopted", t.adopted}};
  if (t.statement != pipeline::Trial::kPick)
    j["statement"] = t.statement, j["alternative"] = t.alternative;
  else
    j["pick"] = true;
  if (!t.error.empty())
    j["error"] = t.error;
  else
    j["measuredMs"] = t.measuredMs;
  if (t.checked)
    j["check"] = {{"maxRelError", t.maxRelError}, {"passed", t.passed}};
  return j;
}

// One instance's outcome as JSON, printed as a line when `text`; `wrong` when a candidate
// failed its check.
nlohmann::json reportInstance(const ir::Kernel &k, const pipeline::TuneResult &tuned, bool check,
                              bool text, bool &wrong) {
  const pipeline::TuningRecord &r = tuned.record;
  nlohmann::json trials = nlohmann::json::array();
  for (const auto &t : tuned.trials) {
    wrong = wrong || !t.passed;
    trials.push_back(trialJson(t));
  }
  std::string checkedBy = !check                       ? "not checked"
                          : tuned.checkedByInterpreter ? "checked against the reference"
                                                       : "checked against the search's pick";
  if (text) {
    std::string speedup = formatNumber(r.untunedMs / r.measuredMs) + "x";
    std::cout << k.name << " on " << r.target << ": " << formatDuration(r.measuredMs)
              << " tuned, untuned " << formatDuration(r.untunedMs) << " (" << speedup << "), model "
              << formatDuration(r.modelMs) << "; " << tuned.trials.size() << " of " << tuned.planned
              << " schedules measured"
              << (tuned.stoppedByBudget ? " before the time budget ran out" : "") << ", "
              << checkedBy << "\n";
  }
  return {{"instance", k.name},
          {"target", r.target},
          {"measuredMs", r.measuredMs},
          {"untunedMs", r.untunedMs},
          {"modelMs", r.modelMs},
          {"threads", r.threads},
          {"stoppedByBudget", tuned.stoppedByBudget},
          {"checked", checkedBy},
          {"trials", trials}};
}

int tuneInstances(TuneOptions &o) {
  if (!o.merge.empty())
    return mergeDatabases(o);
  if (o.file.empty() || o.target.empty()) {
    std::cerr << "isamap tune: give a FILE and --target T (or --merge A B -o C)\n";
    return 2;
  }
  std::string dbPath = pipeline::tuningDbPath(o.db);
  if (dbPath.empty()) {
    std::cerr << "isamap tune: name the tuning database with --db PATH or ISAMAP_TUNING_DB\n";
    return 2;
  }
  size_t shard = 0, shards = 1;
  if (!parseShard(o.shard, shard, shards)) {
    std::cerr << "isamap tune: --shard expects I/N with 1 <= I <= N, got '" << o.shard << "'\n";
    return 2;
  }
  auto db = pipeline::TuningDb::load(dbPath);
  if (!db) {
    std::cerr << "isamap tune: " << llvm::toString(db.takeError()) << "\n";
    return 1;
  }
  pipeline::Options po;
  po.target = o.target;
  po.threads = pipeline::requestedThreads(o.tune.threads);
  po.schedule = scheduleOptions(o.search, o.tune.seed);
  po.schedule.alternatives = o.tune.trials > 1 ? o.tune.trials - 1 : 0;
  // The candidates are ranked by the model as corrected by what the database measured before.
  po.tuning = &*db;
  po.tunedSchedules = false;
  Session session(sessionOptions(o.common));
  pipeline::Pipeline p(session, po);
  std::vector<ir::Kernel> kernels;
  if (int failed = loadInstances(p, o.file, o.selector, o.common.format, kernels, "tune"))
    return failed;
  if (int failed = checkTarget(p, o.common.format, "tune", [&](const hw::Target &t) {
        std::string why;
        if (pipeline::canTune(t, why)) // usage: this target cannot be tuned here
          return 0;
        std::cerr << "isamap tune: " << why << "\n";
        return 2;
      }))
    return failed;
  auto executor = p.executor();
  if (!executor) {
    std::cerr << "isamap tune: " << llvm::toString(executor.takeError()) << "\n";
    return 1;
  }
  bool text = o.common.format == Format::Text;
  nlohmann::json results = nlohmann::json::array();
  for (size_t i = 0; i < kernels.size(); ++i) {
    const ir::Kernel &k = kernels[i];
    if (i % shards != shard)
      continue;
    if (const auto *old = db->find(k, *p.target()); old && !o.retune) {
      if (text)
        std::cout << k.name << " on " << p.target()->name << ": already tuned ("
                  << pipeline::tunedNote(*old) << "); --retune measures it again\n";
      results.push_back({{"instance", k.name}, {"skipped", "already tuned"}});
      continue;
    }
    auto tuned = pipeline::tuneInstance(p, **executor, k, o.tune,
                                        text ? progressPrinter(k.name) : pipeline::TuneProgress{});
    if (!tuned) {
      if (session.diagnostics().hasErrors())
        printDiagnostics(session, Format::Text);
      std::cerr << "isamap tune: " << llvm::toString(tuned.takeError()) << "\n";
      return 1;
    }
    // A progress line rewritten in place ends at the last trial; one the budget cut short, here.
    if (text && isatty(STDERR_FILENO) && tuned->trials.size() < tuned->planned)
      std::cerr << "\n";
    const pipeline::TuningRecord &r = tuned->record;
    db->put(r);
    // Saved after every instance: a run that is stopped keeps what it measured, and the next
    // one skips it.
    if (auto e = db->save(dbPath)) {
      std::cerr << "isamap tune: " << llvm::toString(std::move(e)) << "\n";
      return 1;
    }
    bool wrong = false;
    results.push_back(reportInstance(k, *tuned, o.tune.check, text, wrong));
    if (wrong) {
      // A schedule the search offered computed a wrong answer: never used, always reported.
      std::cerr << "isamap tune: a candidate schedule of " << k.name
                << " failed the check against the reference (it was not kept); please "
                   "report this\n";
      return 1;
    }
  }
  if (!text)
    printJsonDocument({{"instances", results}});
  if (!session.diagnostics().all().empty())
    printDiagnostics(session, Format::Text);
  return session.diagnostics().hasErrors() ? 1 : 0;
}

} // namespace

Action registerTune(CLI::App &app) {
  auto opts = std::make_shared<TuneOptions>();
  auto *cmd = app.add_subcommand(
      "tune", "Measure the best-rated schedules and keep the fastest in a tuning database");
  cmd->add_option("file", opts->file, "The .isam file");
  cmd->add_option("-t,--target", opts->target, "Target to tune for (e.g. host)");
  cmd->add_option("--db", opts->db,
                  "The tuning database (default: ISAMAP_TUNING_DB); created when missing");
  cmd->add_option("--trials", opts->tune.trials,
                  "Schedules measured per instance, the search's pick included")
      ->check(CLI::Range(size_t(1), size_t(100000)));
  cmd->add_option("--budget-s", opts->tune.budgetS, "Wall-time budget per instance, in seconds")
      ->check(kPositive);
  cmd->add_option("--threads", opts->tune.threads,
                  "Threads (default: ISAMAP_NUM_THREADS, else the target's cores)")
      ->check(CLI::Range(1u, 4096u));
  cmd->add_option("--seed", opts->tune.seed, "Seed of the search and the random inputs");
  cmd->add_flag(
      "--no-check", [opts](int64_t) { opts->tune.check = false; },
      "Do not compare each measured schedule with the reference interpreter");
  cmd->add_option("--shard", opts->shard,
                  "Tune only the I-th of N shares of the selected instances (I/N, 1-based)");
  cmd->add_flag("--retune", opts->retune, "Measure instances the database already has again");
  cmd->add_option("--merge", opts->merge, "Merge these databases (the faster record wins)")
      ->expected(1, -1);
  cmd->add_option("-o,--output", opts->output, "Where --merge writes");
  addCommonOptions(*cmd, opts->common);
  addReciprocalMathOption(*cmd, opts->common);
  addSelectorOptions(*cmd, opts->selector);
  addSearchOptions(*cmd, opts->search);
  return [opts]() { return tuneInstances(*opts); };
}

} // namespace isam::cli
