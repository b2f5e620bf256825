// Pieces every subcommand shares: the options that select files and instances, and printing of
// diagnostics as text (clang-style) or JSON. The CLI only drives the core and formats results.
#pragma once

#include "driver/Session.h"
#include "pipeline/Stage.h"
#include "pipeline/TuningDb.h"

#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace isam::pipeline {
class Pipeline;
}

namespace isam::cli {

// Sarif and Github are diagnostics-only forms (`check`; DiagnosticFormats.h).
enum class Format { Text, Json, Sarif, Github };

struct CommonOptions {
  std::vector<std::string> includeDirs;
  Format format = Format::Text;
  bool reciprocalMath = false; // --reciprocal-math (SessionOptions::reciprocalMath)
};

struct SelectorOptions {
  std::string instance;
  std::string kernel;
  std::vector<std::string> defines; // NAME=VALUE
};

// A number greater than zero, with a message that says so (CLI::PositiveNumber's prints DBL_MAX).
inline const CLI::Validator kPositive(
    [](std::string &value) -> std::string {
      char *end = nullptr;
      double v = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != 0 || !(v > 0))
        return "must be a number greater than 0, not '" + value + "'";
      return {};
    },
    "POSITIVE");

// How the scheduler searches (schedule, run --target, compile).
struct SearchOptions {
  std::string search = "beam";
  double budgetMs = 2000;
  size_t budgetCandidates = schedule::Budget::kDefaultCandidates;
  std::string tuningDb; // --db (addTuningDbOption)
};

// ciFormats: --format also takes sarif and github (diagnostics only: `check`).
void addCommonOptions(CLI::App &cmd, CommonOptions &opts, bool ciFormats = false);
void addSearchOptions(CLI::App &cmd, SearchOptions &opts);
// --reciprocal-math, for the commands that work on a kernel's IR (dump-ir, map, schedule,
// compile, run).
void addReciprocalMathOption(CLI::App &cmd, CommonOptions &opts);
schedule::ScheduleOptions scheduleOptions(const SearchOptions &opts, uint64_t seed);
void addSelectorOptions(CLI::App &cmd, SelectorOptions &opts);

SessionOptions sessionOptions(const CommonOptions &opts);

// Parses -D values into sizes; reports malformed ones to the session's diagnostics.
bool buildSelector(const SelectorOptions &opts, InstanceSelector &out, DiagnosticSink &diags);

// The exit status of a failed selection: 2 (usage) when a -D option was the problem (malformed,
// naming no size parameter of the kernel, or a size parameter left unbound), else 1.
int selectionFailure(Session &session);

// Loads `file` and selects its instances (every one, a named one, or a kernel bound with -D).
// Returns 0, or on failure prints the diagnostics and returns the exit status
// (selectionFailure); with `verb` set ("map", "run", ...) a selection of no instance is a
// failure too.
int loadInstances(Session &session, const std::string &file, const SelectorOptions &selector,
                  Format format, std::vector<ir::Kernel> &out, const char *verb);
// The same through the pipeline's parse and sema stages (which print what --print-after asks).
int loadInstances(pipeline::Pipeline &pipeline, const std::string &file,
                  const SelectorOptions &selector, Format format, std::vector<ir::Kernel> &out,
                  const char *verb);

// The pipeline's target, checked for a command: 0, or the exit status after printing why not
// (1: no such target, with the session's diagnostics; `check`'s status for options the target
// cannot take; 2: a --print-after stage the target has no printer for).
int checkTarget(pipeline::Pipeline &pipeline, Format format, const char *verb,
                const std::function<int(const hw::Target &)> &check);

// --print-after=STAGE (repeatable, or a comma-separated list), for the commands that run the
// pipeline; its result goes to stderr (pipeline/Pipeline.h).
void addPrintAfterOption(CLI::App &cmd, std::vector<std::string> &names);
// The stages `names` asks for, in `out`; 0, or 2 after printing the usage error (an unknown
// stage, one after `last` where `command` stops, or "list") that lists the stages. `command`
// is the subcommand, and the mode that changes its stages if any ("run --interpret").
int printAfterOption(const std::vector<std::string> &names, pipeline::Stage last,
                     const std::string &command, std::set<pipeline::Stage> &out);

// --db PATH: the tuning database `schedule`, `compile` and `run` take measured schedules from.
void addTuningDbOption(CLI::App &cmd, std::string &path);
// --threads of the commands that schedule without running (schedule, compile): the threads the
// code is made for, at most the target's cores (pipeline::Options::threads).
void addScheduleThreadsOption(CLI::App &cmd, unsigned &threads);
// The database `flag` (or ISAMAP_TUNING_DB) names, in `out` (left empty when none is named);
// 0, or 1 after printing why it cannot be read.
int loadTuningDb(const std::string &flag, const char *verb, std::optional<pipeline::TuningDb> &out);

// Every command's --format=json output: one object, the same shape whatever the number of
// instances, with "version": kJsonVersion (raised when a field changes meaning or goes away;
// new fields do not raise it). docs/schemas/<command>.schema.json describes each.
constexpr int kJsonVersion = 1;
// Prints `document` (an object) with "version" set, on `out`; invalid UTF-8 in echoed user text
// is replaced rather than thrown on.
void printJsonDocument(nlohmann::json document, std::ostream &out = std::cout);

// Writes `data` to `path` (`-`: stdout; a file is replaced atomically, so a failed write leaves
// no half-written file); 0, or 1 after printing why on stderr.
int writeTextOutput(const std::string &path, std::string_view data);

// Prints the sessions' diagnostics to stderr (text) or stdout (JSON: {"version", "diagnostics"}).
void printDiagnostics(const std::vector<Session *> &sessions, Format format);
inline void printDiagnostics(Session &session, Format format) {
  printDiagnostics(std::vector<Session *>{&session}, format);
}

} // namespace isam::cli
