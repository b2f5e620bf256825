#include "DiagnosticFormats.h"

#include "diag/Codes.h"

#include <cctype>
#include <cstdio>
#include <map>

namespace isam::cli {

namespace {

// A path as a URI reference: relative paths stay relative (code-scanning views resolve them
// against the repository), absolute ones become file:// URIs; bytes outside RFC 3986's
// unreserved set and '/' are percent-encoded.
std::string uriOf(const std::string &path) {
  std::string out = !path.empty() && path[0] == '/' ? "file://" : "";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += char(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

nlohmann::json region(const SourceManager &sm, SourceRange r) {
  LineColumn begin = sm.lineColumn(r.file, r.begin), end = sm.lineColumn(r.file, r.end);
  return {{"startLine", begin.line + 1},
          {"startColumn", begin.column + 1},
          {"endLine", end.line + 1},
          {"endColumn", end.column + 1}};
}

nlohmann::json location(const SourceManager &sm, SourceRange r) {
  return {{"physicalLocation",
           {{"artifactLocation", {{"uri", uriOf(sm.path(r.file))}}}, {"region", region(sm, r)}}}};
}

// SARIF's levels are error, warning and note (and none).
const char *sarifLevel(Severity s) {
  return s == Severity::Info ? "note" : severityName(s);
}

nlohmann::json result(const Diagnostic &d, const SourceManager &sm, size_t ruleIndex) {
  nlohmann::json r = {{"ruleId", d.code},
                      {"ruleIndex", ruleIndex},
                      {"level", sarifLevel(d.severity)},
                      {"message", {{"text", d.message}}}};
  if (d.range.valid())
    r["locations"] = nlohmann::json::array({location(sm, d.range)});
  nlohmann::json related = nlohmann::json::array();
  for (const auto &n : d.notes)
    if (n.range.valid()) {
      nlohmann::json l = location(sm, n.range);
      l["id"] = related.size();
      l["message"] = {{"text", n.message}};
      related.push_back(std::move(l));
    }
  if (!related.empty())
    r["relatedLocations"] = std::move(related);
  nlohmann::json fixes = nlohmann::json::array();
  for (const auto &f : d.fixits)
    if (f.range.valid())
      fixes.push_back({{"description", {{"text", "replace with '" + f.replacement + "'"}}},
                       {"artifactChanges",
                        {{{"artifactLocation", {{"uri", uriOf(sm.path(f.range.file))}}},
                          {"replacements",
                           {{{"deletedRegion", region(sm, f.range)},
                             {"insertedContent", {{"text", f.replacement}}}}}}}}}});
  if (!fixes.empty())
    r["fixes"] = std::move(fixes);
  return r;
}

// A workflow command's message and property values, escaped as the runner expects.
std::string escaped(const std::string &s, bool property) {
  std::string out;
  for (char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else if (property && c == ':')
      out += "%3A";
    else if (property && c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

} // namespace

nlohmann::json sarifLog(const std::vector<Session *> &sessions) {
  std::map<std::string, std::string> summaries;
  for (const auto &c : diagnosticCodes())
    summaries[c.code] = c.summary;
  nlohmann::json rules = nlohmann::json::array(), results = nlohmann::json::array();
  std::map<std::string, size_t> ruleIndex; // in order of first report
  for (Session *session : sessions)
    for (const auto &d : session->diagnostics().all()) {
      auto [at, added] = ruleIndex.emplace(d.code, rules.size());
      if (added) {
        nlohmann::json rule = {{"id", d.code}};
        if (auto s = summaries.find(d.code); s != summaries.end())
          rule["shortDescription"] = {{"text", s->second}};
        rules.push_back(std::move(rule));
      }
      results.push_back(result(d, session->sources(), at->second));
    }
  nlohmann::json driver = {
      {"name", "isamap"}, {"version", ISAMAP_VERSION}, {"rules", std::move(rules)}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", nlohmann::json::array({{{"tool", {{"driver", std::move(driver)}}},
                                           {"results", std::move(results)}}})}};
}

void printGithubAnnotations(const std::vector<Session *> &sessions, std::ostream &out) {
  for (Session *session : sessions) {
    const SourceManager &sm = session->sources();
    for (const auto &d : session->diagnostics().all()) {
      const char *command = d.severity == Severity::Error     ? "error"
                            : d.severity == Severity::Warning ? "warning"
                                                              : "notice";
      out << "::" << command << " ";
      if (d.range.valid()) {
        LineColumn b = sm.lineColumn(d.range.file, d.range.begin),
                   e = sm.lineColumn(d.range.file, d.range.end);
        out << "file=" << escaped(sm.path(d.range.file), true) << ",line=" << b.line + 1
            << ",col=" << b.column + 1 << ",endLine=" << e.line + 1 << ",endColumn=" << e.column + 1
            << ",";
      }
      out << "title=" << escaped(d.code, true) << "::" << escaped(d.message, false) << "\n";
    }
  }
}

} // namespace isam::cli
