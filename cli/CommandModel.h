// The subcommands and options as CLI11 holds them, flattened for the generated documents that
// must agree with them: shell completion (`isamap completion`) and the man page (`isamap man`).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace isam::cli {

struct OptionModel {
  std::vector<std::string> names; // "-t", "--target"
  std::string description;
  std::string valueName;            // "TEXT", "rows|points", ...; empty for a flag
  std::vector<std::string> choices; // a fixed set of values, when the option has one
  bool positional = false;          // a positional argument (names holds its name)
  bool repeated = false;            // may be given several times (or takes several values)
  bool takesValue() const { return !valueName.empty(); }
  // Whether its value is a path: a positional, or named by its value (FILE, DIR, PATH).
  bool takesPath() const;
};

struct CommandModel {
  std::string name, description;
  std::vector<OptionModel> options; // the positionals first
};

// Every subcommand of `root` in registration order, without the internal ones (render-worker),
// each with its options in help order (--help and --version included).
std::vector<CommandModel> describeCommands(const CLI::App &root);

} // namespace isam::cli
