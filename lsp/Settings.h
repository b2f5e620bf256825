// What the client configures: from `initializationOptions` and the `isamap` section of
// workspace/didChangeConfiguration. Every field has a default, so a client that sends nothing
// gets a working server.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace isam::lsp {

struct Settings {
  std::string target = "host"; // mapping diagnostics, hover, lenses and custom requests use it
  std::vector<std::string> includeDirs;      // searched for imports, as the CLI's -I
  std::vector<std::string> workspaceFolders; // searched for imports after includeDirs
  int debounceMs = 150;            // quiet time after an edit before the document is analysed
  double mappingBudgetMs = 200;    // per statement, for live mapping results
  size_t scheduleCandidates = 400; // per statement, for lenses and hovers (requests may ask more)
  bool mappingDiagnostics = true;
  // The tuning database (isamap tune) whose measured schedules hovers and lenses show (relative:
  // to the first workspace folder); empty: ISAMAP_TUNING_DB, if set.
  std::string tuningDb;
  // Set by the server for its transport (TCP), never by the client: imports are read only
  // inside workspaceFolders, includeDirs and the shipped hwdesc/.
  bool confineImports = false;

  bool operator==(const Settings &) const = default;
};

// Reads the fields present in `j` (an `isamap` settings object) into `s`; fields of the wrong
// type are left alone and named in `problems`.
void readSettings(const nlohmann::json &j, Settings &s, std::vector<std::string> &problems);

} // namespace isam::lsp
