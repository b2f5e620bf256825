// The JSON forms of stage results, one definition shared by the CLI's `--format json` and the
// language server's custom requests, so that a script and an editor read the same fields.
#pragma once

#include "driver/Session.h"

#include <nlohmann/json.hpp>

namespace isam::report {

// A range as {file, start: {line, character}, end} with 0-based lines and byte columns; null
// when the range is not in a file.
nlohmann::json rangeJson(const SourceManager &sm, SourceRange r);

// A range resolved to its file's path and lines (what rangeJson writes), for a result kept
// apart from its SourceManager; nullopt when the range is not in a file.
struct FileRange {
  std::string file;
  LineColumn start, end;
};
std::optional<FileRange> fileRange(const SourceManager &sm, SourceRange r);
nlohmann::json rangeJson(const std::optional<FileRange> &r);

// One statement's mappings: every candidate, best first, with its bindings, operands, moves and
// estimate, and every rejected instruction with its reason.
nlohmann::json mappingsJson(const mapping::StatementMappings &m, const ir::Kernel &k,
                            const hw::Target &target, const SourceManager &sm);
// The same, with the statement's range already resolved (fileRange(sm, m.range)).
nlohmann::json mappingsJson(const mapping::StatementMappings &m, const ir::Kernel &k,
                            const hw::Target &target, const std::optional<FileRange> &range);

// A kernel's schedule: per statement the mapping, tiles and order per memory level, parallel
// loop, cost breakdown and buffers; the instance's totals and its slowest statement's headline.
nlohmann::json scheduleJson(const schedule::KernelSchedule &ks, const ir::Kernel &k,
                            const hw::Target &target);

// An instance's compute IR: its sizes, tensors (name, role, element type, shape) and
// statements (as `dump-ir` prints each, the written tensor, the reduction, the indices with
// their extents, the conditions, and the operations per computed point and in all), and the
// instance's FLOP count.
nlohmann::json kernelJson(const ir::Kernel &k, const SourceManager &sm);
// A hardware model: what runs it, cores, clock, peak, memories and instructions by name.
nlohmann::json targetJson(const hw::Target &t);

} // namespace isam::report
