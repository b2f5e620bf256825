// Tuning by measurement: the search's alternatives (cheapest first, spread over register
// tiles), a tuned choice scheduling exactly as it was measured and ignored when it no longer
// decodes to that, the tuning database (keys, round trip, merge, malformed files), and
// tuneInstance on the JIT and on the simulator.
#include "pipeline/Tuner.h"
#include "pipeline/TuningDb.h"
#include "schedule/Scheduler.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>

using namespace isam;
namespace fs = std::filesystem;

namespace {

const std::string kGemm = "kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                          "  C[m, n] += A[m, k] * B[k, n];\n"
                          "}\n"
                          "instance big = gemm<1760, 128, 1760>;\n"
                          "instance odd = gemm<37, 45, 29>;\n"
                          "instance odd_again = gemm<37, 45, 29>;\n"
                          "instance other = gemm<38, 45, 29>;\n";

struct Loaded {
  std::unique_ptr<Session> session = std::make_unique<Session>();
  std::vector<ir::Kernel> kernels;
  std::optional<hw::Target> target;
};

Loaded load(const std::string &target, const std::string &instance) {
  Loaded l;
  l.session->loadText("t.isam", kGemm);
  l.kernels = l.session->instances({instance, "", {}});
  l.target = l.session->target(target);
  EXPECT_EQ(l.kernels.size(), 1u);
  EXPECT_TRUE(l.target);
  return l;
}

schedule::ScheduleOptions withAlternatives(size_t n) {
  schedule::ScheduleOptions o;
  o.alternatives = n;
  return o;
}

std::string tempPath(const std::string &name) {
  fs::path dir = fs::temp_directory_path() / ("isamap-tuning-" + std::to_string(getpid()));
  fs::create_directories(dir);
  return (dir / name).string();
}

} // namespace

TEST(Tuning, TheSearchReturnsSpreadAlternativesCheapestFirst) {
  Loaded l = load("x86_avx512", "big");
  auto ks = l.session->schedule(l.kernels[0], *l.target, withAlternatives(8));
  ASSERT_EQ(ks.alternatives.size(), 1u);
  const auto &pick = ks.statements[0];
  const auto &alts = ks.alternatives[0];
  ASSERT_EQ(alts.size(), 8u);
  EXPECT_FALSE(pick.point.empty());
  std::set<std::string> decisions{schedule::decisionText(pick.config, *l.target)};
  std::set<std::vector<int64_t>> registerTiles{pick.config.tiles.back()};
  for (size_t i = 0; i < alts.size(); ++i) {
    EXPECT_FALSE(alts[i].point.empty());
    EXPECT_GE(alts[i].cost.score, pick.cost.score) << i;
    if (i > 0) {
      EXPECT_GE(alts[i].cost.score, alts[i - 1].cost.score) << i;
    }
    EXPECT_TRUE(decisions.insert(schedule::decisionText(alts[i].config, *l.target)).second)
        << "alternative " << i << " repeats a schedule";
    registerTiles.insert(alts[i].config.tiles.back());
  }
  // Spread: most of them run another register tile than the pick and each other.
  EXPECT_GE(registerTiles.size(), 5u);
  // Without asking, none (and the pick is the same).
  auto plain = l.session->schedule(l.kernels[0], *l.target);
  EXPECT_TRUE(plain.alternatives.empty());
  EXPECT_EQ(schedule::decisionText(plain.statements[0].config, *l.target),
            schedule::decisionText(pick.config, *l.target));
}

TEST(Tuning, ATunedChoiceSchedulesAsItWasMeasuredOrNotAtAll) {
  Loaded l = load("x86_avx512", "big");
  auto ks = l.session->schedule(l.kernels[0], *l.target, withAlternatives(4));
  const auto &alt = ks.alternatives.at(0).at(2);
  std::string measured = schedule::decisionText(alt.config, *l.target);
  schedule::ScheduleOptions o;
  o.tuned[0] = {alt.config.mapping, alt.point, measured, "1.5 ms measured on 2026-11-27"};
  auto tuned = l.session->schedule(l.kernels[0], *l.target, o);
  EXPECT_EQ(schedule::decisionText(tuned.statements[0].config, *l.target), measured);
  EXPECT_EQ(tuned.statements[0].search.tuned, "1.5 ms measured on 2026-11-27");
  EXPECT_EQ(schedule::searchText(tuned.statements[0].search),
            "tuned: 1.5 ms measured on 2026-11-27");
  EXPECT_NE(schedule::printSchedule(tuned, l.kernels[0], *l.target)
                .find("\n  tuned: 1.5 ms measured on 2026-11-27\n"),
            std::string::npos);
  EXPECT_FALSE(l.session->diagnostics().hasErrors());

  // A point that decodes to other decisions (another version of the space), one out of range,
  // or a mapping that does not exist: searched as if there were no record.
  std::string pickText = schedule::decisionText(ks.statements[0].config, *l.target);
  for (auto bad :
       {schedule::TunedChoice{alt.config.mapping, alt.point, measured + " ", ""},
        schedule::TunedChoice{alt.config.mapping, std::vector<size_t>(3, 0), measured, ""},
        schedule::TunedChoice{99, alt.point, measured, ""}}) {
    schedule::ScheduleOptions ignored;
    ignored.tuned[0] = bad;
    auto searched = l.session->schedule(l.kernels[0], *l.target, ignored);
    EXPECT_TRUE(searched.statements[0].search.tuned.empty());
    EXPECT_EQ(searched.statements[0].search.strategy, "beam");
    EXPECT_EQ(schedule::decisionText(searched.statements[0].config, *l.target), pickText);
  }
}

TEST(Tuning, TheDatabaseIsKeyedByStructureTargetAndMachine) {
  Loaded odd = load("host", "odd"), again = load("host", "odd_again"),
         other = load("host", "other");
  const hw::Target &host = *odd.target;
  EXPECT_EQ(pipeline::structureKey(odd.kernels[0]), pipeline::structureKey(again.kernels[0]));
  EXPECT_NE(pipeline::structureKey(odd.kernels[0]), pipeline::structureKey(other.kernels[0]));
  EXPECT_EQ(pipeline::structureKey(odd.kernels[0]).find("odd"), std::string::npos);

  pipeline::TuningRecord r;
  r.instance = "odd";
  r.structure = pipeline::structureKey(odd.kernels[0]);
  r.target = host.name;
  r.machine = pipeline::machineKey(host);
  r.statements[0] = {3, {1, 2, 3}, "map fma16 #3; ...", ""};
  r.measuredMs = 2.5;
  r.untunedMs = 3;
  r.date = "2026-11-27";
  std::vector<double> features(schedule::featureNames().size(), 0.5);
  for (int i = 0; i < 30; ++i)
    r.samples.push_back({features, 1.0 + i, 2.0 + 2 * i});
  pipeline::TuningDb db;
  db.put(r);
  EXPECT_NE(db.find(again.kernels[0], host), nullptr) << "another instance of the same shape";
  // Its samples fit this machine's correction (measured twice the prediction), not another's.
  EXPECT_NEAR(db.correction(host).factor(features), 2.0, 1e-3);
  hw::Target bigger = host;
  bigger.cores += 1;
  EXPECT_TRUE(db.correction(bigger).empty());
  EXPECT_EQ(db.find(other.kernels[0], host), nullptr);
  hw::Target otherMachine = host;
  otherMachine.cores += 1;
  EXPECT_EQ(db.find(odd.kernels[0], otherMachine), nullptr) << "another machine's record";
  hw::Target otherTarget = host;
  otherTarget.name = "x86_avx512";
  EXPECT_EQ(db.find(odd.kernels[0], otherTarget), nullptr);

  // Round trip; a second put of the key replaces.
  std::string path = tempPath("db.json");
  fs::remove(path);
  auto empty = pipeline::TuningDb::load(path);
  ASSERT_TRUE(bool(empty)) << "a missing file is an empty database";
  EXPECT_TRUE(empty->records().empty());
  ASSERT_FALSE(bool(db.save(path)));
  auto loaded = pipeline::TuningDb::load(path);
  ASSERT_TRUE(bool(loaded));
  const pipeline::TuningRecord *found = loaded->find(odd.kernels[0], host);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->statements.at(0).point, (std::vector<size_t>{1, 2, 3}));
  EXPECT_EQ(found->statements.at(0).mapping, 3);
  EXPECT_EQ(found->statements.at(0).decisions, "map fma16 #3; ...");
  ASSERT_EQ(found->samples.size(), 30u);
  EXPECT_EQ(found->samples[3].features, features);
  EXPECT_EQ(found->samples[3].measured, 8.0);
  // Samples recorded under other feature names are dropped on reading.
  std::string renamed = test::readFile(path);
  renamed.replace(renamed.find("\"intercept\""), 11, "\"something\"");
  auto renamedDb = pipeline::TuningDb::load(test::tempFile("tuning", "renamed.json", renamed));
  ASSERT_TRUE(bool(renamedDb));
  EXPECT_TRUE(renamedDb->records().at(0).samples.empty());
  EXPECT_TRUE(renamedDb->correction(host).empty());
  EXPECT_EQ(pipeline::tunedNote(*found), "2.50 ms measured on 2026-11-27 (untuned 3.00 ms)");
  EXPECT_EQ(pipeline::tunedChoices(*found).at(0).note, pipeline::tunedNote(*found));
  r.measuredMs = 2;
  loaded->put(r);
  EXPECT_EQ(loaded->records().size(), 1u);
  EXPECT_EQ(loaded->records()[0].measuredMs, 2);

  // Merging keeps the faster measurement of a key and every other record.
  pipeline::TuningDb slower, elsewhere;
  r.measuredMs = 9;
  slower.put(r);
  r.target = "x86_avx512";
  elsewhere.put(r);
  db.merge(slower);
  db.merge(elsewhere);
  ASSERT_EQ(db.records().size(), 2u);
  EXPECT_EQ(db.find(odd.kernels[0], host)->measuredMs, 2.5);

  // Not a database: an error naming the file.
  std::string bad = test::tempFile("tuning", "bad.json", "{\"records\": []}");
  auto notDb = pipeline::TuningDb::load(bad);
  ASSERT_FALSE(bool(notDb));
  EXPECT_NE(llvm::toString(notDb.takeError()).find("bad.json: not a tuning database"),
            std::string::npos);
  // A directory, or anything else that exists and is no database, is an error, never empty.
  auto directory = pipeline::TuningDb::load(fs::temp_directory_path().string());
  ASSERT_FALSE(bool(directory));
  llvm::consumeError(directory.takeError());
  std::string broken = test::tempFile("tuning", "broken.json", "{\"format\": \"isamap-tu");
  auto notJson = pipeline::TuningDb::load(broken);
  ASSERT_FALSE(bool(notJson));
  llvm::consumeError(notJson.takeError());
}

TEST(Tuning, TuningMeasuresCandidatesAndTheRecordIsUsed) {
  for (const char *target : {"host", "systolic16"}) {
    SCOPED_TRACE(target);
    Session session;
    pipeline::Options o;
    o.target = target;
    o.schedule.alternatives = 3;
    pipeline::Pipeline p(session, o);
    ASSERT_TRUE(p.parse(test::tempFile("tuning", "gemm.isam", kGemm)));
    auto kernels = p.instantiate({"odd", "", {}});
    ASSERT_EQ(kernels.size(), 1u);
    auto executor = p.executor();
    ASSERT_TRUE(bool(executor)) << llvm::toString(executor.takeError());
    pipeline::TuneOptions t;
    t.trials = 4;
    size_t calls = 0;
    auto result = pipeline::tuneInstance(
        p, **executor, kernels[0], t,
        [&](const pipeline::Trial &, size_t done, size_t) { EXPECT_EQ(done, ++calls); });
    ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
    EXPECT_EQ(calls, result->trials.size());
    ASSERT_GE(result->trials.size(), 2u);
    EXPECT_LE(result->trials.size(), 4u);
    EXPECT_EQ(result->trials[0].statement, pipeline::Trial::kPick);
    EXPECT_TRUE(result->checkedByInterpreter);
    for (const auto &trial : result->trials) {
      EXPECT_TRUE(trial.error.empty()) << trial.error;
      EXPECT_TRUE(trial.checked);
      EXPECT_TRUE(trial.passed) << trial.maxRelError;
      EXPECT_GT(trial.measuredMs, 0);
      EXPECT_GT(trial.modelMs, 0);
    }
    const pipeline::TuningRecord &r = result->record;
    EXPECT_LE(r.measuredMs, r.untunedMs);
    EXPECT_EQ(r.trials, result->trials.size());
    ASSERT_EQ(r.statements.size(), 1u);
    // Every measured schedule is a sample for the model's correction.
    ASSERT_EQ(r.samples.size(), result->trials.size());
    for (size_t i = 0; i < r.samples.size(); ++i) {
      EXPECT_EQ(r.samples[i].features.size(), schedule::featureNames().size());
      EXPECT_EQ(r.samples[i].predicted, result->trials[i].baseModelMs);
      EXPECT_EQ(r.samples[i].measured, result->trials[i].measuredMs);
    }

    // The record, through the pipeline: scheduled as measured, and says so.
    pipeline::TuningDb db;
    db.put(r);
    pipeline::Options tunedOptions;
    tunedOptions.target = target;
    tunedOptions.tuning = &db;
    Session again;
    pipeline::Pipeline q(again, tunedOptions);
    ASSERT_TRUE(q.parse(test::tempFile("tuning", "gemm.isam", kGemm)));
    auto same = q.instantiate({"odd_again", "", {}});
    ASSERT_EQ(same.size(), 1u);
    auto scheduled = q.schedule(same[0]);
    ASSERT_TRUE(scheduled);
    const auto &s = scheduled->schedule.statements.at(0);
    EXPECT_EQ(s.search.tuned, pipeline::tunedNote(r));
    EXPECT_EQ(schedule::decisionText(s.config, *q.target()), r.statements.at(0).decisions);
  }
}

TEST(Tuning, EmulatedTargetsCannotBeTunedForTime) {
  Session session;
  session.loadText("t.isam", "");
#if defined(__x86_64__)
  auto foreign = session.target("arm_neon");
#else
  auto foreign = session.target("x86_avx2");
#endif
  ASSERT_TRUE(foreign);
  std::string why;
  EXPECT_FALSE(pipeline::canTune(*foreign, why));
  EXPECT_NE(why.find("emulator"), std::string::npos) << why;
  EXPECT_TRUE(pipeline::canTune(*session.target("host"), why));
  EXPECT_TRUE(pipeline::canTune(*session.target("systolic16"), why));
}

TEST(Tuning, ACorrectionFittedOnMeasurementsRecoversTheirLaw) {
  // measured = predicted * exp(0.4 + 0.9 * few accumulators - 0.5 * threads), exactly.
  const size_t n = schedule::featureNames().size();
  std::vector<schedule::CorrectionSample> samples;
  for (int i = 0; i < 60; ++i) {
    std::vector<double> f(n, 0.0);
    f[0] = 1;
    f[2] = 1.0 / (1 + i % 24);
    f[4] = i % 2;
    f[9] = 0.5 + 0.01 * (i % 7);
    double predicted = 1 + i;
    samples.push_back({f, predicted, predicted * std::exp(0.4 + 0.9 * f[2] - 0.5 * f[4])});
  }
  schedule::Correction c = schedule::fitCorrection(samples, 1e-6);
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c.samples, 60u);
  EXPECT_LT(c.rmsLogError, 1e-3);
  for (const auto &s : samples)
    EXPECT_NEAR(s.predicted * c.factor(s.features), s.measured, 1e-3 * s.measured);
  // Too few samples, or features of another version: nothing fitted, a factor of one.
  EXPECT_TRUE(schedule::fitCorrection({samples.begin(), samples.begin() + 10}).empty());
  std::vector<schedule::CorrectionSample> old = samples;
  for (auto &s : old)
    s.features.pop_back();
  EXPECT_TRUE(schedule::fitCorrection(old).empty());
  EXPECT_EQ(schedule::Correction{}.factor(samples[0].features), 1);
  // An extrapolation is bounded.
  schedule::Correction wild;
  wild.weights.assign(n, 0.0);
  wild.weights[0] = 50;
  EXPECT_NEAR(wild.factor(samples[0].features), std::exp(3.0), 1e-9);
}

TEST(Tuning, TheCorrectedModelScalesWhatTheAnalyticalOnePredicts) {
  Loaded l = load("x86_avx512", "big");
  auto maps = l.session->mappings(l.kernels[0], *l.target);
  auto plain = l.session->schedule(l.kernels[0], *l.target);
  const schedule::Config &config = plain.statements[0].config;
  schedule::AnalyticalModel base(l.kernels[0], *l.target, maps[0]);
  schedule::Correction c;
  c.weights.assign(schedule::featureNames().size(), 0.0);
  c.weights[0] = std::log(1.5);
  c.samples = 30;
  schedule::CorrectedModel corrected(l.kernels[0], *l.target, maps[0], c);
  schedule::Cost b = base.evaluate(config), k = corrected.evaluate(config);
  ASSERT_TRUE(b.valid && k.valid);
  EXPECT_NEAR(k.cycles, 1.5 * b.cycles, 1e-6 * b.cycles);
  EXPECT_NEAR(k.utilization, b.utilization / 1.5, 1e-9);
  EXPECT_NEAR(k.correction, 1.5, 1e-12);
  EXPECT_EQ(k.score, b.score) << "the search ranks by the analytical model";
  // Features are the analytical model's, corrected or not (up to the rounding of undoing the
  // factor).
  std::vector<double> fk = schedule::scheduleFeatures(config, k, *l.target),
                      fb = schedule::scheduleFeatures(config, b, *l.target);
  ASSERT_EQ(fk.size(), fb.size());
  for (size_t i = 0; i < fk.size(); ++i)
    EXPECT_NEAR(fk[i], fb[i], 1e-12) << schedule::featureNames()[i];
  // Scheduling under it says so, and costs with it.
  schedule::ScheduleOptions o;
  o.correction = c;
  auto ks = l.session->schedule(l.kernels[0], *l.target, o);
  EXPECT_EQ(ks.statements[0].search.correctedBy, 30u);
  EXPECT_NE(schedule::searchText(ks.statements[0].search)
                .find("; the model corrected by 30 measurements of this machine"),
            std::string::npos)
      << schedule::searchText(ks.statements[0].search);
  EXPECT_NEAR(ks.statements[0].cost.correction, 1.5, 1e-12);
  EXPECT_EQ(schedule::decisionText(ks.statements[0].config, *l.target),
            schedule::decisionText(config, *l.target))
      << "the correction changes the numbers shown, not the pick";
}
