// The tuning database: what `isamap tune` measured, as one JSON file of records, each the
// schedule that ran fastest for one kernel instance on one target and one exact machine.
// `schedule`, `compile`, `run` and the language server use a matching record instead of
// searching (the schedule's text says "tuned: ... measured"); records from another machine are
// ignored, never trusted.
//
// A record is keyed by
//   - the instance's structure: its tensors and statements as ir::printKernel prints them,
//     without the instance's name (two instances of one shape share a record);
//   - the target's name;
//   - the machine (machineKey): for native code the CPU's name, its features and its cores;
//     for an accelerator, its description's text (the simulator times what it describes).
// and holds, per statement, the mapping and the point of its search space that was measured
// with the decisions that point decoded to (schedule::TunedChoice), so that a record written by
// another version of isamap, whose space decodes the point differently, is ignored.
//
// Each record also keeps every schedule measured (features, the model's prediction, the
// measurement): the samples the model's correction for that machine is fitted on
// (schedule/Correction.h), which `schedule`, `compile`, `run` and the language server apply to
// every search for that target and machine (the schedule says "the model corrected by N
// measurements of this machine").
//
// The file: {"format": "isamap-tuning-1", "features": [names], "records": [...]}; samples
// recorded under other feature names are not fitted. Written whole or not at all
// (source/FileIo.h). A missing file is an empty database.
#pragma once

#include "hw/Hardware.h"
#include "ir/Compute.h"
#include "schedule/Scheduler.h"

#include <llvm/Support/Error.h>

#include <optional>
#include <string>
#include <vector>

namespace isam::pipeline {

struct TuningRecord {
  std::string instance;  // the instance's name when it was tuned (for people)
  std::string structure; // structureKey
  std::string target;
  std::string machine; // machineKey
  std::map<size_t, schedule::TunedChoice> statements;
  double measuredMs = 0; // the tuned schedule, best of its timed runs
  double untunedMs = 0;  // the search's pick, measured in the same run
  double modelMs = 0;    // the cost model's estimate of the tuned schedule
  unsigned threads = 0;
  size_t trials = 0; // schedules measured
  std::string date;  // YYYY-MM-DD
  // Every schedule measured: its features and the analytical model's prediction against the
  // measurement, what the model's correction for this machine is fitted on.
  std::vector<schedule::CorrectionSample> samples;
};

std::string structureKey(const ir::Kernel &kernel);
std::string machineKey(const hw::Target &target);

class TuningDb {
public:
  // The file's records; an empty database when the file does not exist. Fails naming the file
  // when it cannot be read or is not a tuning database.
  static llvm::Expected<TuningDb> load(const std::string &path);
  // Writes every record to `path` (whole or not at all).
  llvm::Error save(const std::string &path) const;

  // The record for `kernel` on `target` (this machine), or null.
  const TuningRecord *find(const ir::Kernel &kernel, const hw::Target &target) const;
  // Adds `record`, replacing one with the same key.
  void put(TuningRecord record);
  // Adds `other`'s records; where both have one for a key, the faster measurement stays.
  void merge(const TuningDb &other);

  const std::vector<TuningRecord> &records() const { return records_; }

  // The model's correction for `target` on this machine, fitted on its records' samples
  // (schedule::fitCorrection; empty with too few of them).
  schedule::Correction correction(const hw::Target &target) const;

private:
  TuningRecord *lookup(const std::string &structure, const std::string &target,
                       const std::string &machine);
  std::vector<TuningRecord> records_;
};

// The database file the user named: `flag` when given, else $ISAMAP_TUNING_DB, else "" (none).
std::string tuningDbPath(const std::string &flag);

// "2.31 ms measured on 2026-11-27 (untuned 2.90 ms)": SearchReport::tuned for a record.
std::string tunedNote(const TuningRecord &record);

// The ScheduleOptions::tuned of a record, each choice's note set.
std::map<size_t, schedule::TunedChoice> tunedChoices(const TuningRecord &record);

} // namespace isam::pipeline
