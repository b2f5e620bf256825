// Tuning by measurement (`isamap tune`): the schedules the search rated best for one instance,
// run for real and checked against the reference interpreter, the fastest kept as a
// TuningRecord.
//
// Contract:
//   - the search's pick is measured first, and a candidate replaces the best so far only when
//     it is faster by more than the noise margin (kMargin in Tuner.cpp) and its output passed
//     the check; a final interleaved re-measurement of the pick and the winner confirms it. So
//     a tuned schedule is never slower than the untuned one as measured.
//   - candidates are the alternatives the search returned (ScheduleOptions::alternatives, set by
//     the caller on the pipeline), cheapest first, one statement changed at a time from the
//     best so far (coordinate descent over the statements, rank by rank).
//   - native code is timed by the JIT on this machine (best of several calls); an accelerator's
//     schedule by its simulator's cycles at the described clock. Code for another architecture
//     runs under an emulator whose times are not the target's: tuneInstance refuses it.
//   - deterministic for given inputs and search seed, up to which candidates the timings favour.
#pragma once

#include "pipeline/Executor.h"
#include "pipeline/Pipeline.h"
#include "pipeline/TuningDb.h"

#include <functional>

namespace isam::pipeline {

struct TuneOptions {
  size_t trials = 16;   // schedules measured, the search's pick included
  double budgetS = 60;  // wall time for the instance, compiling and checking included
  unsigned threads = 0; // native code: as Executor::threads
  uint64_t seed = 1;    // the random inputs
  bool check = true;    // every measured candidate against the reference interpreter (the pick's
                        // output for instances of more than 2e9 operations)
};

struct Trial {
  static constexpr size_t kPick = size_t(-1);
  size_t statement = kPick; // the statement whose alternative this is (kPick: the search's pick)
  size_t alternative = 0;   // index into KernelSchedule::alternatives[statement]
  double modelMs = 0;       // the cost model's estimate of the whole kernel (corrected, if it is)
  double baseModelMs = 0;   // the analytical model's alone
  std::vector<double> features; // schedule::kernelFeatures of the candidate
  double measuredMs = 0;        // best of its runs
  bool checked = false;         // compared against the reference
  bool passed = true;           // the comparison passed (or none was made)
  double maxRelError = 0;
  bool adopted = false; // the best so far after it
  std::string error;    // why it could not run (it is then neither adopted nor failed)
};

struct TuneResult {
  std::vector<Trial> trials;
  TuningRecord record;          // the fastest schedule (the pick when nothing beat it)
  bool stoppedByBudget = false; // the time budget ended it before the trials ran out
  size_t planned = 0;           // candidates there were to measure, the pick included
  // Candidates were checked against the reference interpreter; false: against the search's
  // pick's output (instances too large to interpret in reasonable time), or not at all.
  bool checkedByInterpreter = false;
};

// Called after each trial (`done` of `planned`).
using TuneProgress = std::function<void(const Trial &trial, size_t done, size_t planned)>;

// Whether `target`'s times can be tuned for; when not, `why` says so.
bool canTune(const hw::Target &target, std::string &why);

// Tunes `kernel` on the pipeline's target with `executor` (made for it). Fails when the
// instance cannot be scheduled or the pick cannot run.
llvm::Expected<TuneResult> tuneInstance(Pipeline &pipeline, Executor &executor,
                                        const ir::Kernel &kernel, const TuneOptions &options,
                                        const TuneProgress &progress = {});

} // namespace isam::pipeline
