#include "pipeline/TuningDb.h"

#include "source/FileIo.h"
#include "source/Quantities.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace isam::pipeline {

namespace {

constexpr const char *kFormat = "isamap-tuning-1";

using nlohmann::json;

json toJson(const TuningRecord &r) {
  json statements = json::array();
  for (const auto &[index, c] : r.statements)
    statements.push_back({{"statement", index},
                          {"mapping", c.mapping},
                          {"point", c.point},
                          {"decisions", c.decisions}});
  json samples = json::array();
  for (const auto &s : r.samples)
    samples.push_back(
        {{"features", s.features}, {"predictedMs", s.predicted}, {"measuredMs", s.measured}});
  return {{"samples", samples},         {"instance", r.instance},   {"structure", r.structure},
          {"target", r.target},         {"machine", r.machine},     {"statements", statements},
          {"measuredMs", r.measuredMs}, {"untunedMs", r.untunedMs}, {"modelMs", r.modelMs},
          {"threads", r.threads},       {"trials", r.trials},       {"date", r.date}};
}

TuningRecord fromJson(const json &j, bool featuresMatch) {
  TuningRecord r;
  r.instance = j.value("instance", "");
  r.structure = j.at("structure").get<std::string>();
  r.target = j.at("target").get<std::string>();
  r.machine = j.at("machine").get<std::string>();
  for (const auto &s : j.at("statements")) {
    schedule::TunedChoice c;
    c.mapping = s.at("mapping").get<int>();
    c.point = s.at("point").get<std::vector<size_t>>();
    c.decisions = s.at("decisions").get<std::string>();
    r.statements[s.at("statement").get<size_t>()] = c;
  }
  r.measuredMs = j.at("measuredMs").get<double>();
  r.untunedMs = j.value("untunedMs", 0.0);
  r.modelMs = j.value("modelMs", 0.0);
  r.threads = j.value("threads", 0u);
  r.trials = j.value("trials", size_t(0));
  r.date = j.value("date", "");
  if (j.contains("samples") && featuresMatch)
    for (const auto &s : j.at("samples"))
      r.samples.push_back({s.at("features").get<std::vector<double>>(),
                           s.at("predictedMs").get<double>(), s.at("measuredMs").get<double>()});
  return r;
}

llvm::Error fileError(const std::string &path, const std::string &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s", path.c_str(),
                                 what.c_str());
}

} // namespace

std::string structureKey(const ir::Kernel &kernel) {
  // printKernel's first line names the instance; the rest (tensors, statements) and the sizes
  // are its structure.
  std::string text = ir::printKernel(kernel);
  std::string head = "kernel " + kernel.kernelName;
  std::string sizes;
  for (const auto &[name, value] : kernel.sizes)
    sizes += (sizes.empty() ? "<" : ", ") + name + "=" + std::to_string(value);
  if (!sizes.empty())
    head += sizes + ">";
  size_t eol = text.find('\n');
  return head + (eol == std::string::npos ? "" : text.substr(eol));
}

std::string machineKey(const hw::Target &target) {
  if (target.triple.empty()) // an accelerator: the simulator times what is described
    return "simulated " + hw::printTarget(target);
  return target.cpu + " " + target.features + " cores=" + std::to_string(target.cores);
}

llvm::Expected<TuningDb> TuningDb::load(const std::string &path) {
  TuningDb db;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec)
    return db; // a database not yet written is empty
  std::ifstream in(path);
  if (!in)
    return fileError(path, "cannot read the tuning database");
  std::stringstream text;
  text << in.rdbuf();
  try {
    json j = json::parse(text.str());
    if (!j.is_object() || j.value("format", "") != kFormat)
      return fileError(path,
                       std::string("not a tuning database (no \"format\": \"") + kFormat + "\")");
    bool featuresMatch =
        j.value("features", std::vector<std::string>{}) == schedule::featureNames();
    for (const auto &r : j.at("records"))
      db.records_.push_back(fromJson(r, featuresMatch));
  } catch (const json::exception &e) {
    return fileError(path, std::string("not a tuning database: ") + e.what());
  }
  return db;
}

llvm::Error TuningDb::save(const std::string &path) const {
  json records = json::array();
  for (const auto &r : records_)
    records.push_back(toJson(r));
  json j = {{"format", kFormat}, {"features", schedule::featureNames()}, {"records", records}};
  std::string error;
  if (!writeFileAtomically(path, j.dump(1) + "\n", error))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s", error.c_str());
  return llvm::Error::success();
}

TuningRecord *TuningDb::lookup(const std::string &structure, const std::string &target,
                               const std::string &machine) {
  for (auto &r : records_)
    if (r.structure == structure && r.target == target && r.machine == machine)
      return &r;
  return nullptr;
}

const TuningRecord *TuningDb::find(const ir::Kernel &kernel, const hw::Target &target) const {
  return const_cast<TuningDb *>(this)->lookup(structureKey(kernel), target.name,
                                              machineKey(target));
}

schedule::Correction TuningDb::correction(const hw::Target &target) const {
  std::string machine = machineKey(target);
  std::vector<schedule::CorrectionSample> samples;
  for (const auto &r : records_)
    if (r.target == target.name && r.machine == machine)
      samples.insert(samples.end(), r.samples.begin(), r.samples.end());
  return schedule::fitCorrection(samples);
}

void TuningDb::put(TuningRecord record) {
  if (TuningRecord *old = lookup(record.structure, record.target, record.machine))
    *old = std::move(record);
  else
    records_.push_back(std::move(record));
}

void TuningDb::merge(const TuningDb &other) {
  for (const auto &r : other.records_) {
    TuningRecord *old = lookup(r.structure, r.target, r.machine);
    if (!old)
      records_.push_back(r);
    else if (r.measuredMs < old->measuredMs)
      *old = r;
  }
}

std::string tuningDbPath(const std::string &flag) {
  if (!flag.empty())
    return flag;
  if (const char *env = std::getenv("ISAMAP_TUNING_DB"); env && *env)
    return env;
  return "";
}

std::string tunedNote(const TuningRecord &record) {
  std::string note = formatDuration(record.measuredMs) + " measured on " + record.date;
  if (record.untunedMs > 0)
    note += " (untuned " + formatDuration(record.untunedMs) + ")";
  return note;
}

std::map<size_t, schedule::TunedChoice> tunedChoices(const TuningRecord &record) {
  std::map<size_t, schedule::TunedChoice> out = record.statements;
  std::string note = tunedNote(record);
  for (auto &[index, choice] : out)
    choice.note = note;
  return out;
}

} // namespace isam::pipeline
