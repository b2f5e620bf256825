// The stages of the pipeline by the names `--print-after=STAGE` uses, in the order they run:
//   parse     the files' syntax trees (an outline of each file's declarations)
//   sema      the checked instances' compute IR, and the target's hardware model
//   mapping   every mapping of every statement onto the target's instructions
//   schedule  the schedule chosen for each statement: mapping, tiles, cost, schedule IR
//   llvm-ir   the LLVM IR of a native target's code, after LLVM's optimisation
//   asm       the assembly of a native target, or an accelerator's instruction listing
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace isam::pipeline {

enum class Stage { Parse, Sema, Mapping, Schedule, LlvmIr, Asm };

inline constexpr Stage kStages[] = {Stage::Parse,    Stage::Sema,   Stage::Mapping,
                                    Stage::Schedule, Stage::LlvmIr, Stage::Asm};

const char *stageName(Stage stage);
std::optional<Stage> stageNamed(std::string_view name);

// The stages up to and including `last`, by name, comma-separated ("parse, sema, mapping").
std::string stageNames(Stage last = Stage::Asm);

// The stages whose results to print, from the names given to --print-after (each may also be
// a comma-separated list). A name that is not a stage, or a stage after `last` (where the
// command stops), is a usage error: nullopt, and `error` says why and lists the stages
// `command` has. "list" gives that list as the error too.
std::optional<std::set<Stage>> parsePrintAfter(const std::vector<std::string> &names, Stage last,
                                               const std::string &command, std::string &error);

} // namespace isam::pipeline
