#include "Common.h"
#include "DiagnosticFormats.h"
#include "backends/llvm/Calibrate.h"
#include "pipeline/Pipeline.h"
#include "source/FileIo.h"

#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>

namespace isam::cli {

void addCommonOptions(CLI::App &cmd, CommonOptions &opts, bool ciFormats) {
  cmd.add_option("-I,--include", opts.includeDirs, "Directory searched for imports")
      ->check(CLI::ExistingDirectory);
  std::map<std::string, Format> formats = {{"text", Format::Text}, {"json", Format::Json}};
  if (ciFormats) {
    formats["sarif"] = Format::Sarif;
    formats["github"] = Format::Github;
  }
  std::vector<std::string> names;
  for (const auto &[name, format] : formats)
    names.push_back(name);
  // The choices by name in the help and in errors: CLI11's enum transformer shows its
  // internals there (`ENUM:value in {json->1,text->0} OR {1,0}`).
  cmd.add_option_function<std::string>(
         "--format", [&opts, formats](const std::string &v) { opts.format = formats.at(v); },
         ciFormats ? "Output format: text (the default), json, sarif (SARIF 2.1.0, for "
                     "code-scanning views) or github (workflow annotations)"
                   : "Output format: text (the default) or json")
      ->check(CLI::IsMember(names).description(""))
      ->type_name(ciFormats ? "text|json|sarif|github" : "text|json");
}

void addReciprocalMathOption(CLI::App &cmd, CommonOptions &opts) {
  cmd.add_flag("--reciprocal-math", opts.reciprocalMath,
               "Divide by a constant as a multiplication by its reciprocal rounded to the type, "
               "also where that is inexact (x / 3); exact ones (x / 64) always are");
}

void addSearchOptions(CLI::App &cmd, SearchOptions &opts) {
  cmd.add_option("--search", opts.search, "Search strategy")
      ->check(CLI::IsMember({"exhaustive", "beam", "random"}));
  cmd.add_option("--budget-ms", opts.budgetMs, "Search time budget per statement")
      ->check(kPositive);
  cmd.add_option("--budget-candidates", opts.budgetCandidates,
                 "Schedules evaluated per statement at most")
      ->check(CLI::Range(size_t(1), size_t(100000000)));
}

void addTuningDbOption(CLI::App &cmd, std::string &path) {
  cmd.add_option("--db", path,
                 "Tuning database (isamap tune) whose measured schedules are used (default: "
                 "ISAMAP_TUNING_DB)");
}

void addScheduleThreadsOption(CLI::App &cmd, unsigned &threads) {
  cmd.add_option("--threads", threads,
                 "Schedule for this many threads, at most the target's cores (default: its cores)")
      ->check(CLI::Range(1u, 4096u));
}

int loadTuningDb(const std::string &flag, const char *verb,
                 std::optional<pipeline::TuningDb> &out) {
  std::string path = pipeline::tuningDbPath(flag);
  if (path.empty())
    return 0;
  auto db = pipeline::TuningDb::load(path);
  if (!db) {
    std::cerr << "isamap " << verb << ": " << llvm::toString(db.takeError()) << "\n";
    return 1;
  }
  out = std::move(*db);
  return 0;
}

schedule::ScheduleOptions scheduleOptions(const SearchOptions &opts, uint64_t seed) {
  schedule::ScheduleOptions so;
  so.search = opts.search;
  so.budget.milliseconds = opts.budgetMs;
  so.budget.candidates = opts.budgetCandidates;
  so.seed = seed;
  return so;
}

void addSelectorOptions(CLI::App &cmd, SelectorOptions &opts) {
  cmd.add_option("--instance", opts.instance, "Work on this instance (default: every instance)");
  auto *kernel =
      cmd.add_option("--kernel", opts.kernel, "Work on this kernel, with sizes bound by -D");
  cmd.add_option("-D,--define", opts.defines, "Bind a size parameter: -D NAME=VALUE")
      ->needs(kernel);
  cmd.get_option("--instance")->excludes(kernel);
}

SessionOptions sessionOptions(const CommonOptions &opts) {
  SessionOptions s;
  s.searchPath = opts.includeDirs;
  s.hostMeter = backend::measureFmaGflops;
  s.reciprocalMath = opts.reciprocalMath;
  return s;
}

bool buildSelector(const SelectorOptions &opts, InstanceSelector &out, DiagnosticSink &diags) {
  out.instance = opts.instance;
  out.kernel = opts.kernel;
  bool ok = true;
  for (const auto &d : opts.defines) {
    auto eq = d.find('=');
    std::string name = d.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : d.substr(eq + 1);
    char *end = nullptr;
    errno = 0;
    long long v = value.empty() ? 0 : std::strtoll(value.c_str(), &end, 10);
    if (eq == std::string::npos || name.empty() || value.empty() || *end != 0 || errno || v <= 0 ||
        v > (1LL << 40)) {
      diags.error("E0409", {},
                  "-D expects NAME=VALUE with a positive integer VALUE, got '" + d + "'");
      ok = false;
      continue;
    }
    out.sizes[name] = v;
  }
  return ok;
}

int selectionFailure(Session &session) {
  // E0409 is only ever about -D: malformed, naming no size parameter of the kernel, or leaving
  // one unbound.
  for (const auto &d : session.diagnostics().all())
    if (d.severity == Severity::Error && d.code == "E0409")
      return 2;
  return 1;
}

namespace {

// Loads `file` and selects its instances with `parse` and `instantiate`, the session's own or
// the pipeline's stages.
int selectInstances(
    Session &session, const SelectorOptions &selector, Format format, std::vector<ir::Kernel> &out,
    const char *verb, const std::function<bool()> &parse,
    const std::function<std::vector<ir::Kernel>(const InstanceSelector &)> &instantiate) {
  InstanceSelector sel;
  if (buildSelector(selector, sel, session.diagnostics()) && parse())
    out = instantiate(sel);
  if (!session.diagnostics().hasErrors() && out.empty() && verb)
    session.diagnostics().error("E0202", {},
                                std::string("the file declares no instance to ") + verb +
                                    "; name one with --instance or bind a kernel with --kernel "
                                    "K -D NAME=VALUE");
  if (!session.diagnostics().hasErrors())
    return 0;
  printDiagnostics(session, format);
  return selectionFailure(session);
}

} // namespace

int loadInstances(Session &session, const std::string &file, const SelectorOptions &selector,
                  Format format, std::vector<ir::Kernel> &out, const char *verb) {
  return selectInstances(
      session, selector, format, out, verb, [&] { return session.loadFile(file); },
      [&](const InstanceSelector &sel) { return session.instances(sel); });
}

int loadInstances(pipeline::Pipeline &pipeline, const std::string &file,
                  const SelectorOptions &selector, Format format, std::vector<ir::Kernel> &out,
                  const char *verb) {
  return selectInstances(
      pipeline.session(), selector, format, out, verb, [&] { return pipeline.parse(file); },
      [&](const InstanceSelector &sel) { return pipeline.instantiate(sel); });
}

int checkTarget(pipeline::Pipeline &pipeline, Format format, const char *verb,
                const std::function<int(const hw::Target &)> &check) {
  const hw::Target *target = pipeline.target();
  if (!target) {
    printDiagnostics(pipeline.session(), format);
    return 1;
  }
  if (int status = check(*target))
    return status;
  if (std::string why = pipeline.unprintable(); !why.empty()) {
    std::cerr << "isamap " << verb << ": " << why << "\n";
    return 2;
  }
  return 0;
}

void addPrintAfterOption(CLI::App &cmd, std::vector<std::string> &names) {
  cmd.add_option("--print-after", names,
                 "Print a stage's result to stderr: parse, sema, mapping, schedule, llvm-ir or "
                 "asm (a comma-separated list, or repeated; 'list' lists the command's stages)");
}

int printAfterOption(const std::vector<std::string> &names, pipeline::Stage last,
                     const std::string &command, std::set<pipeline::Stage> &out) {
  std::string error;
  auto stages = pipeline::parsePrintAfter(names, last, command, error);
  if (!stages) {
    std::cerr << "isamap " << command.substr(0, command.find(' ')) << ": " << error << "\n";
    return 2;
  }
  out = std::move(*stages);
  return 0;
}

namespace {

nlohmann::json position(const SourceManager &sm, FileId file, uint32_t offset) {
  LineColumn lc = sm.lineColumn(file, offset);
  return {{"line", lc.line}, {"character", lc.column}};
}

nlohmann::json rangeJson(const SourceManager &sm, SourceRange r) {
  if (!r.valid())
    return nullptr;
  return {{"start", position(sm, r.file, r.begin)}, {"end", position(sm, r.file, r.end)}};
}

} // namespace

void printDiagnostics(const std::vector<Session *> &sessions, Format format) {
  if (format == Format::Sarif) {
    std::cout << sarifLog(sessions).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
    return;
  }
  if (format == Format::Github) {
    printGithubAnnotations(sessions, std::cout);
    return;
  }
  nlohmann::json out = nlohmann::json::array();
  for (Session *session : sessions) {
    const SourceManager &sm = session->sources();
    if (format == Format::Text) {
      for (const auto &d : session->diagnostics().all())
        std::cerr << renderDiagnostic(d, sm);
      continue;
    }
    for (const auto &d : session->diagnostics().all()) {
      nlohmann::json j = {{"file", d.range.valid() ? sm.path(d.range.file) : ""},
                          {"range", rangeJson(sm, d.range)},
                          {"severity", severityName(d.severity)},
                          {"code", d.code},
                          {"message", d.message}};
      nlohmann::json notes = nlohmann::json::array();
      for (const auto &n : d.notes)
        notes.push_back({{"file", n.range.valid() ? sm.path(n.range.file) : ""},
                         {"range", rangeJson(sm, n.range)},
                         {"message", n.message}});
      j["notes"] = notes;
      nlohmann::json fixes = nlohmann::json::array();
      for (const auto &f : d.fixits)
        fixes.push_back({{"range", rangeJson(sm, f.range)}, {"replacement", f.replacement}});
      j["fixes"] = fixes;
      out.push_back(j);
    }
  }
  if (format == Format::Text)
    return;
  printJsonDocument({{"diagnostics", out}});
}

void printJsonDocument(nlohmann::json document, std::ostream &out) {
  document["version"] = kJsonVersion;
  out << document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

int writeTextOutput(const std::string &path, std::string_view data) {
  if (path == "-") {
    std::cout.write(data.data(), std::streamsize(data.size()));
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "isamap: error: cannot write to stdout\n";
      return 1;
    }
    return 0;
  }
  std::string error;
  if (!writeFileAtomically(path, data, error)) {
    std::cerr << "isamap: error: " << error << "\n";
    return 1;
  }
  return 0;
}

} // namespace isam::cli
