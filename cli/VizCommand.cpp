// `isamap viz FILE --what=kernel|hardware|mapping|schedule --format=dot|svg|png -o OUT`: a
// picture of a kernel's dataflow, a hardware description, a statement's mapping or a schedule,
// rendered in process by Graphviz. The output is written under the policy of source/FileIo.h
// (a regular file atomically, so that on any error nothing is written; a link, device or FIFO
// written through). `-o -` writes to stdout.
#include "Commands.h"
#include "Common.h"
#include "backends/llvm/Calibrate.h"
#include "viz/Render.h"
#include "viz/Viz.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <memory>

namespace isam::cli {

namespace {

// The format `--format` names, else the output's extension's (svg for `-` and others); empty
// when both are given and disagree.
std::string formatName(const std::string &flag, const std::string &output) {
  std::string ext = std::filesystem::path(output).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  std::string implied = ext == ".dot" || ext == ".gv" ? "dot"
                        : ext == ".png"               ? "png"
                        : ext == ".svg"               ? "svg"
                                                      : "";
  if (flag.empty())
    return implied.empty() ? "svg" : implied;
  return implied.empty() || implied == flag ? flag : "";
}

} // namespace

Action registerViz(CLI::App &app) {
  struct Options {
    std::string file, what, target, output, format, search = "beam";
    std::vector<std::string> includeDirs;
    SelectorOptions selector;
    size_t statement = 0;
    size_t mapping = 1;
    size_t maxNodes = viz::Graph::kDefaultMaxNodes;
    double budgetMs = 60000;
    size_t budgetCandidates = schedule::Budget::kDefaultCandidates;
    uint64_t seed = 1;
  };
  auto opts = std::make_shared<Options>();
  auto *cmd = app.add_subcommand(
      "viz", "Draw a kernel, a hardware description, a mapping or a schedule (Graphviz)");
  cmd->add_option("file", opts->file, "The .isam file")->required();
  cmd->add_option("--what", opts->what, "What to draw: kernel, hardware, mapping or schedule")
      ->required()
      ->check(CLI::IsMember({"kernel", "hardware", "mapping", "schedule"}));
  cmd->add_option("-t,--target", opts->target,
                  "Target or system name (default: the one the file declares)");
  auto *statement =
      cmd->add_option("--statement", opts->statement,
                      "Statement index (mapping: default 0; schedule: default every statement)");
  cmd->add_option("--mapping", opts->mapping, "Which mapping to draw, best first (default 1)")
      ->check(CLI::Range(size_t(1), size_t(1000000)));
  cmd->add_option("--format", opts->format,
                  "Output format: dot, svg or png (default: from OUT's extension, .dot or .gv, "
                  ".svg, .png; else svg)")
      ->check(CLI::IsMember({"dot", "svg", "png"}));
  cmd->add_option("-o,--output", opts->output, "Output file, or - for stdout")->required();
  cmd->add_option("--max-nodes", opts->maxNodes,
                  "Nodes drawn at most; the rest is summarised by one node (default 200)")
      ->check(CLI::Range(size_t(1), size_t(100000)));
  cmd->add_option("-I,--include", opts->includeDirs, "Directory searched for imports")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--search", opts->search, "Schedule search strategy")
      ->check(CLI::IsMember({"exhaustive", "beam", "random"}));
  cmd->add_option("--budget-ms", opts->budgetMs, "Schedule search time budget per statement")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--budget-candidates", opts->budgetCandidates,
                  "Schedules evaluated per statement at most")
      ->check(CLI::Range(size_t(1), size_t(100000000)));
  cmd->add_option("--seed", opts->seed, "Seed of the schedule search");
  addSelectorOptions(*cmd, opts->selector);
  return [opts, statement]() {
    std::string name = formatName(opts->format, opts->output);
    if (name.empty()) {
      std::cerr << "isamap viz: --format=" << opts->format << " but " << opts->output
                << " names another format; drop --format or rename the output\n";
      return 2;
    }
    SessionOptions so;
    so.searchPath = opts->includeDirs;
    so.hostMeter = backend::measureFmaGflops;
    Session session(so);
    InstanceSelector sel;
    if (!buildSelector(opts->selector, sel, session.diagnostics()) ||
        !session.loadFile(opts->file)) {
      printDiagnostics(session, Format::Text);
      return selectionFailure(session);
    }
    viz::Request r;
    r.what = *viz::parseWhat(opts->what);
    r.target = opts->target;
    r.selector = sel;
    if (statement->count() > 0)
      r.statement = opts->statement;
    r.mapping = opts->mapping - 1;
    r.options.maxNodes = opts->maxNodes;
    r.scheduleOptions.search = opts->search;
    r.scheduleOptions.budget.milliseconds = opts->budgetMs;
    r.scheduleOptions.budget.candidates = opts->budgetCandidates;
    r.scheduleOptions.seed = opts->seed;
    auto dot = viz::dotFor(session, r);
    if (!dot || session.diagnostics().hasErrors()) {
      printDiagnostics(session, Format::Text);
      return selectionFailure(session);
    }
    viz::Format format = name == "dot"   ? viz::Format::Dot
                         : name == "png" ? viz::Format::Png
                                         : viz::Format::Svg;
    viz::Rendered out = viz::render(*dot, format);
    if (!session.diagnostics().all().empty())
      printDiagnostics(session, Format::Text); // warnings
    if (!out.ok) {
      std::cerr << "isamap: error: Graphviz failed: " << out.error << "\n";
      return 1;
    }
    return writeTextOutput(opts->output, out.data);
  };
}

} // namespace isam::cli
