// --check and --interpret: a reference run (interp/RowInterpreter.h) with progress on stderr,
// and the comparison of a result with it, as `run` and `schedule` report it.
#pragma once

#include "interp/RowInterpreter.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace isam::cli {

// --reference rows|points: which interpreter --check (and run --interpret) uses.
void addReferenceOption(CLI::App &cmd, interp::Reference &reference);

// Progress of a long run (`what`: "reference", "schedule-IR") of `instance` on stderr. Silent
// for the first second; then, if the run will take more than a few seconds, a warning with the
// time it will take, extrapolated from the progress so far, and a bar rewritten in place on a
// terminal (a line every 10 s otherwise), cleared when done. ISAMAP_PROGRESS=always shows it
// for every run (and a last line when done), =never for none.
interp::RowProgress progressOnStderr(const std::string &instance, const std::string &what);

// Runs the reference on `inputs` and compares its outputs with `got`: the figures into
// result["check"], a line on stdout when `text`; false beyond interp::tolerance.
bool checkAgainstReference(const ir::Kernel &k, const interp::Buffers &inputs,
                           const interp::Buffers &got, interp::Reference reference, bool text,
                           nlohmann::json &result);

} // namespace isam::cli
