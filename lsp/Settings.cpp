#include "lsp/Settings.h"

namespace isam::lsp {

namespace {

template <class T, class Check>
void field(const nlohmann::json &j, const char *key, T &out, std::vector<std::string> &problems,
           Check check) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null())
    return;
  if (!check(*it)) {
    problems.push_back(std::string("isamap.") + key + " has the wrong type or value");
    return;
  }
  out = it->template get<T>();
}

bool stringList(const nlohmann::json &v) {
  if (!v.is_array())
    return false;
  for (const auto &e : v)
    if (!e.is_string())
      return false;
  return true;
}

} // namespace

void readSettings(const nlohmann::json &j, Settings &s, std::vector<std::string> &problems) {
  if (!j.is_object()) {
    if (!j.is_null())
      problems.push_back("isamap settings must be an object");
    return;
  }
  field(j, "target", s.target, problems,
        [](const nlohmann::json &v) { return v.is_string() && !v.get<std::string>().empty(); });
  field(j, "includeDirs", s.includeDirs, problems, stringList);
  field(j, "tuningDb", s.tuningDb, problems, [](const nlohmann::json &v) { return v.is_string(); });
  field(j, "debounceMs", s.debounceMs, problems, [](const nlohmann::json &v) {
    return v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= 10000;
  });
  field(j, "mappingBudgetMs", s.mappingBudgetMs, problems,
        [](const nlohmann::json &v) { return v.is_number() && v.get<double>() > 0; });
  field(j, "scheduleCandidates", s.scheduleCandidates, problems, [](const nlohmann::json &v) {
    return v.is_number_integer() && v.get<int64_t>() > 0 && v.get<int64_t>() <= 1000000;
  });
  field(j, "mappingDiagnostics", s.mappingDiagnostics, problems,
        [](const nlohmann::json &v) { return v.is_boolean(); });
}

} // namespace isam::lsp
