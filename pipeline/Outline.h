// What `--print-after=parse` prints: a file's syntax tree as an outline, one line per
// declaration (imports, kernels with their parameters and statement counts, instances as
// written, targets and systems with what they declare) and where it starts (line:column).
#pragma once

#include "source/SourceManager.h"
#include "syntax/Ast.h"

#include <string>

namespace isam::pipeline {

std::string outline(const ast::File &file, const SourceManager &sources);

} // namespace isam::pipeline
