// The tuning database the language server schedules with (pipeline/TuningDb.h): the file the
// settings name (isamap.tuningDb, else ISAMAP_TUNING_DB), read once per change of the file and
// shared by every analysis, so that hovers and lenses show the measured schedule that
// `isamap tune` (or the editor's tune command) recorded.
#pragma once

#include "pipeline/TuningDb.h"

#include <memory>
#include <string>
#include <vector>

namespace isam::lsp {

struct TuningRecords {
  std::shared_ptr<const pipeline::TuningDb> db; // null: none named, or it cannot be read
  std::string stamp; // the path and modification time read; an analysis made with another
                     // stamp is stale
};

// The database `setting` (or ISAMAP_TUNING_DB) names, as it is on disk now; a relative path is
// taken from the first of `workspaceFolders` (the editor's default is a file there).
TuningRecords tuningRecords(const std::string &setting,
                            const std::vector<std::string> &workspaceFolders);

} // namespace isam::lsp
