#include "pipeline/Tuner.h"

#include <algorithm>
#include <chrono>
#include <ctime>

namespace isam::pipeline {

namespace {

using Clock = std::chrono::steady_clock;

// A candidate must beat the best so far by this fraction to replace it: timings of one schedule
// on a shared machine spread by a few percent.
constexpr double kMargin = 0.03;
// Timed calls per candidate fill about this long (at least kMinRepeat, at most kMaxRepeat): a
// kernel of a few microseconds needs thousands of calls before its best one is its speed
// rather than a scheduler's hiccup.
constexpr double kTimedSeconds = 0.2;
constexpr size_t kMinRepeat = 3, kMaxRepeat = 5000;
// Rounds of the final interleaved re-measurement of the winner and the pick.
constexpr int kConfirmRounds = 3;
// The row interpreter runs about 2e9 operations a second on two cores: beyond this many (~10 s),
// candidates are checked against the search's pick instead (itself checked against the reference
// by the end-to-end tests on the sizes they cover), and the trials say so.
constexpr double kReferenceFlops = 2e10;

std::string today() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

double modelMs(const schedule::KernelSchedule &ks, const hw::Target &target) {
  double cycles = 0;
  for (const auto &s : ks.statements)
    cycles += s.cost.cycles;
  return cycles / target.clockHz * 1e3;
}

// The model's figures of a candidate, for the trial and for fitting the correction.
void describe(const schedule::KernelSchedule &ks, const hw::Target &target, Trial &t) {
  std::vector<std::vector<double>> features;
  std::vector<double> cycles;
  for (const auto &s : ks.statements) {
    features.push_back(schedule::scheduleFeatures(s.config, s.cost, target));
    cycles.push_back(s.cost.cycles / s.cost.correction);
  }
  t.modelMs = modelMs(ks, target);
  double base = 0;
  for (double c : cycles)
    base += c;
  t.baseModelMs = base / target.clockHz * 1e3;
  t.features = schedule::kernelFeatures(features, cycles);
}

// One instance's measurements: its inputs, the reference's outputs, and how often to time.
class Bench {
public:
  Bench(Executor &executor, const ir::Kernel &kernel, const hw::Target &target,
        const TuneOptions &options)
      : executor_(executor), kernel_(kernel), target_(target), options_(options),
        inputs_(interp::randomInputs(kernel, options.seed)) {
    if (options.check && kernel.flopCount() <= kReferenceFlops) {
      reference_ = inputs_;
      interp::runRows(kernel, reference_);
      byInterpreter_ = true;
    }
  }

  // Whether candidates are checked against the interpreter (else against the pick's output).
  bool byInterpreter() const { return byInterpreter_; }

  // Measures `ks` into `trial` (its time, and its check when asked for).
  llvm::Error measure(const schedule::KernelSchedule &ks, Trial &trial) {
    interp::Buffers buffers = inputs_;
    bool simulated = executor_.kind() == ExecutorKind::Simulator;
    RunOptions run;
    run.repeat = simulated || repeat_ == 0 ? 1 : repeat_;
    run.threads = options_.threads;
    run.functional = !simulated || options_.check;
    auto ran = executor_.run(kernel_, &ks, buffers, run);
    if (!ran)
      return ran.takeError();
    if (simulated)
      trial.measuredMs = ran->simulation->cycles / target_.clockHz * 1e3;
    else
      trial.measuredMs = *std::min_element(ran->milliseconds.begin(), ran->milliseconds.end());
    if (!simulated && repeat_ == 0) { // the first measurement sets the pace
      repeat_ = size_t(std::clamp(kTimedSeconds * 1e3 / std::max(trial.measuredMs, 1e-3),
                                  double(kMinRepeat), double(kMaxRepeat)));
      return measure(ks, trial);
    }
    if (options_.check && reference_.empty()) { // the pick's output is the reference
      reference_ = std::move(buffers);
      return llvm::Error::success();
    }
    if (options_.check) {
      auto cmp = interp::compareOutputs(kernel_, reference_, buffers);
      trial.checked = true;
      trial.maxRelError = cmp.maxRelError;
      trial.passed = cmp.maxRelError <= interp::tolerance(kernel_);
    }
    return llvm::Error::success();
  }

private:
  Executor &executor_;
  const ir::Kernel &kernel_;
  const hw::Target &target_;
  const TuneOptions &options_;
  interp::Buffers inputs_, reference_;
  bool byInterpreter_ = false;
  size_t repeat_ = 0; // 0: not yet paced
};

// The record of the schedule `ks` (its times are filled in by the caller).
TuningRecord recordOf(const ir::Kernel &kernel, const hw::Target &target,
                      const schedule::KernelSchedule &ks) {
  TuningRecord r;
  r.instance = kernel.name;
  r.structure = structureKey(kernel);
  r.target = target.name;
  r.machine = machineKey(target);
  for (const auto &s : ks.statements)
    if (!s.point.empty())
      r.statements[s.config.statement] = {s.config.mapping, s.point,
                                          schedule::decisionText(s.config, target), ""};
  r.modelMs = modelMs(ks, target);
  r.date = today();
  return r;
}

} // namespace

bool canTune(const hw::Target &target, std::string &why) {
  if (executorFor(&target) == ExecutorKind::Cross) {
    why = target.name + " runs under an emulator here, whose times are not the target's: it " +
          "cannot be tuned for time on this machine";
    return false;
  }
  return true;
}

llvm::Expected<TuneResult> tuneInstance(Pipeline &pipeline, Executor &executor,
                                        const ir::Kernel &kernel, const TuneOptions &options,
                                        const TuneProgress &progress) {
  auto fail = [](const std::string &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s", message.c_str());
  };
  const hw::Target *target = pipeline.target();
  if (!target)
    return fail("no target to tune for");
  if (std::string why; !canTune(*target, why))
    return fail(why);
  if (auto e = executor.admit(kernel))
    return e;
  auto start = Clock::now();
  auto scheduled = pipeline.schedule(kernel);
  if (!scheduled)
    return fail(kernel.name + " cannot be scheduled on " + target->name);
  const schedule::KernelSchedule &pick = scheduled->schedule;
  TuneResult out;
  out.planned = 1;
  for (const auto &alts : pick.alternatives)
    out.planned += alts.size();
  out.planned = std::min(out.planned, std::max<size_t>(1, options.trials));

  Bench bench(executor, kernel, *target, options);
  schedule::KernelSchedule best = pick;
  Trial first;
  describe(pick, *target, first);
  if (auto e = bench.measure(pick, first))
    return e;
  first.adopted = first.passed;
  out.trials.push_back(first);
  if (progress)
    progress(first, 1, out.planned);
  double bestMs = first.measuredMs;
  bool pickPassed = first.passed;

  // Rank by rank, each statement's next alternative in place of its current schedule.
  size_t ranks = 0;
  for (const auto &alts : pick.alternatives)
    ranks = std::max(ranks, alts.size());
  for (size_t rank = 0; rank < ranks && out.trials.size() < out.planned; ++rank)
    for (size_t s = 0; s < pick.alternatives.size() && out.trials.size() < out.planned; ++s) {
      if (rank >= pick.alternatives[s].size())
        continue;
      if (std::chrono::duration<double>(Clock::now() - start).count() > options.budgetS) {
        out.stoppedByBudget = true;
        rank = ranks;
        break;
      }
      schedule::KernelSchedule candidate = best;
      candidate.statements[s] = pick.alternatives[s][rank];
      Trial t;
      t.statement = s;
      t.alternative = rank;
      describe(candidate, *target, t);
      if (auto e = bench.measure(candidate, t))
        t.error = llvm::toString(std::move(e));
      bool faster =
          t.error.empty() && t.passed && (!pickPassed || t.measuredMs < bestMs * (1 - kMargin));
      if (faster) {
        best = std::move(candidate);
        bestMs = t.measuredMs;
        pickPassed = true;
        t.adopted = true;
      }
      out.trials.push_back(t);
      if (progress)
        progress(t, out.trials.size(), out.planned);
    }

  // The winner against the pick once more, interleaved, so that one lucky run does not decide.
  double untunedMs = first.measuredMs;
  if (bestMs < first.measuredMs || !first.passed) {
    for (int round = 0; round < kConfirmRounds; ++round) {
      Trial again, pickAgain;
      if (auto e = bench.measure(best, again))
        return e;
      if (auto e = bench.measure(pick, pickAgain))
        return e;
      bestMs = std::min(bestMs, again.measuredMs);
      untunedMs = std::min(untunedMs, pickAgain.measuredMs);
    }
    if (first.passed && bestMs >= untunedMs) {
      best = pick;
      bestMs = untunedMs;
    }
  }
  if (!pickPassed)
    return fail("no schedule of " + kernel.name + " passed the check against the reference");
  out.record = recordOf(kernel, *target, best);
  out.record.measuredMs = bestMs;
  out.record.untunedMs = untunedMs;
  out.record.trials = out.trials.size();
  for (const auto &t : out.trials)
    if (t.error.empty() && t.passed)
      out.record.samples.push_back({t.features, t.baseModelMs, t.measuredMs});
  out.checkedByInterpreter = bench.byInterpreter();
  out.record.threads =
      executor.kind() == ExecutorKind::Simulator ? 0 : executor.threads(options.threads);
  return out;
}

} // namespace isam::pipeline
