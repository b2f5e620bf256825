#include "pipeline/Stage.h"

#include <sstream>
#include <vector>

namespace isam::pipeline {

const char *stageName(Stage stage) {
  switch (stage) {
  case Stage::Parse:
    return "parse";
  case Stage::Sema:
    return "sema";
  case Stage::Mapping:
    return "mapping";
  case Stage::Schedule:
    return "schedule";
  case Stage::LlvmIr:
    return "llvm-ir";
  case Stage::Asm:
    return "asm";
  }
  return "?";
}

std::optional<Stage> stageNamed(std::string_view name) {
  for (Stage s : kStages)
    if (name == stageName(s))
      return s;
  return std::nullopt;
}

std::string stageNames(Stage last) {
  std::string out;
  for (Stage s : kStages) {
    if (s > last)
      break;
    out += out.empty() ? "" : ", ";
    out += stageName(s);
  }
  return out;
}

std::optional<std::set<Stage>> parsePrintAfter(const std::vector<std::string> &names, Stage last,
                                               const std::string &command, std::string &error) {
  std::string stages = "the stages of " + command + " are " + stageNames(last);
  std::set<Stage> out;
  for (const auto &given : names) {
    std::stringstream list(given);
    for (std::string name; std::getline(list, name, ',');) {
      if (name == "list") {
        error = "--print-after=STAGE prints the result of STAGE to stderr; " + stages;
        return std::nullopt;
      }
      auto stage = stageNamed(name);
      if (!stage) {
        error = "--print-after: '" + name + "' is not a stage; " + stages;
        return std::nullopt;
      }
      if (*stage > last) {
        error = "--print-after=" + name + ": " + command + " stops after " + stageName(last) +
                "; " + stages;
        return std::nullopt;
      }
      out.insert(*stage);
    }
  }
  return out;
}

} // namespace isam::pipeline
