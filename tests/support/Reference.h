// The reference a test compares an executor with: the interpreter on the instance as written.
#pragma once

#include "driver/Session.h"
#include "interp/Interpreter.h"

#include <optional>
#include <string>

namespace isam::test {

// Every diagnostic of the session, rendered, one per line.
std::string renderDiagnostics(Session &s);

struct Reference {
  std::optional<interp::Buffers> buffers; // none: the instance did not lower (see diagnostics)
  std::string diagnostics;
};

// Runs the interpreter on instance `sel` of `text` as written: none of the session's rewrites
// (ir/Padding.h's staging) applied, so that a comparison checks them too. `rewritten` is the
// same instance as a default session gives it; its staged locals come after the tensors as
// written and are returned as zeros, which no comparison reads.
Reference referenceAsWritten(const std::string &path, const std::string &text,
                             const InstanceSelector &sel, const ir::Kernel &rewritten,
                             const interp::Buffers &inputs);

} // namespace isam::test
