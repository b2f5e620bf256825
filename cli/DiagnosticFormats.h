// Diagnostics for CI systems, from the same diagnostics the text and JSON forms print:
//   - SARIF 2.1.0, the static-analysis log format that code-scanning views read: one run of the
//     tool "isamap" whose rules are the diagnostic codes reported (with their summaries), and a
//     result per diagnostic with its location (1-based lines and columns), notes as related
//     locations, and fix-its as fixes;
//   - GitHub Actions workflow commands (`::error file=F,line=L,col=C,...,title=E0307::message`),
//     one line each, which a workflow shows as annotations on the changed lines.
#pragma once

#include "driver/Session.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

namespace isam::cli {

nlohmann::json sarifLog(const std::vector<Session *> &sessions);
void printGithubAnnotations(const std::vector<Session *> &sessions, std::ostream &out);

} // namespace isam::cli
