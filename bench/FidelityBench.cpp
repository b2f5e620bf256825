// How far to trust the cost model: for each DeepBench GEMM size (the CSV in ../shared/data) and
// each full-size instance of the dwsep, gru and lstm samples, the schedules the search rates
// best (its pick and the alternatives `isamap tune` would measure, pipeline/Tuner.h) are run on
// the target (the JIT on this machine, or an accelerator's simulator) and their measured times
// set against the model's. Per shape:
//   ratio     measured / predicted time of the pick (above 1: the model promised more)
//   rho       Spearman's rank correlation of predicted and measured times over the candidates
//   pick      pick quality: the fastest candidate's time / the pick's, as `isamap tune` decides
//             (both timed again in turn; a candidate within 3% of the pick does not count), so
//             1 when the model's pick was the fastest
// then the median and worst of each.
//   build/bench/isamap_bench_fidelity [--target host] [--csv PATH] [--filter TEXT] [--limit N]
//                                     [--trials N] [--threads N] [--no-gemm] [--no-layers]
//                                     [--db PATH] [--json PATH]
#include "GemmProblems.h"
#include "IsamapCompile.h"
#include "backends/llvm/Calibrate.h"
#include "pipeline/Tuner.h"
#include "schedule/Correction.h"
#include "source/FileIo.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>

#ifndef ISAMAP_SOURCE_DIR
#define ISAMAP_SOURCE_DIR "."
#endif

namespace {

using namespace isam;
namespace fs = std::filesystem;

struct Settings {
  std::string target = "host", csv, filter, jsonPath, db, source = ISAMAP_SOURCE_DIR;
  const pipeline::TuningDb *tuning = nullptr; // --db, loaded
  size_t limit = 0, trials = 8;
  unsigned threads = 0;
  bool gemm = true, layers = true;
};

struct Row {
  std::string label, error;
  double predictedMs = 0, measuredMs = 0, bestMs = 0;
  double rho = NAN;
  size_t candidates = 0;
  // Every candidate measured, the pick first: for fitting the model's correction on the other
  // shapes (crossValidate).
  std::vector<schedule::CorrectionSample> samples;
  double ratio() const { return measuredMs / predictedMs; }
  double pickQuality() const { return bestMs / measuredMs; }
};

// Ranks of `v` (1-based), ties sharing their mean rank.
std::vector<double> ranks(const std::vector<double> &v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]])
      ++j;
    for (size_t t = i; t <= j; ++t)
      r[order[t]] = (double(i + j) / 2) + 1;
    i = j + 1;
  }
  return r;
}

// Spearman's rho: Pearson's correlation of the ranks; NaN with fewer than three values or when
// either side is constant.
double spearman(const std::vector<double> &x, const std::vector<double> &y) {
  if (x.size() < 3)
    return NAN;
  std::vector<double> rx = ranks(x), ry = ranks(y);
  double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / double(rx.size());
  double my = std::accumulate(ry.begin(), ry.end(), 0.0) / double(ry.size());
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : NAN;
}

double median(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
  if (v.empty())
    return NAN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// One instance: its candidates measured, the row filled.
Row measure(const Settings &s, const hw::Target &target, pipeline::Executor &executor,
            const std::string &file, const InstanceSelector &selector, const std::string &label) {
  Row row;
  row.label = label;
  Session session;
  pipeline::Options po;
  po.givenTarget = &target;
  po.schedule.alternatives = s.trials > 1 ? s.trials - 1 : 0;
  // With --db, the model as the database corrects it (its tuned schedules are not used: the
  // model is what is judged).
  po.tuning = s.tuning;
  po.tunedSchedules = false;
  pipeline::Pipeline p(session, po);
  std::vector<ir::Kernel> kernels;
  if (p.parse(file))
    kernels = p.instantiate(selector);
  if (kernels.size() != 1) {
    row.error = "cannot instantiate";
    return row;
  }
  pipeline::TuneOptions t;
  t.trials = s.trials;
  t.threads = s.threads;
  t.check = false; // isamap_bench_gemm checks results against the libraries
  t.budgetS = 600;
  auto tuned = pipeline::tuneInstance(p, executor, kernels[0], t);
  if (!tuned) {
    row.error = llvm::toString(tuned.takeError());
    return row;
  }
  std::vector<double> predicted, measured;
  for (const auto &trial : tuned->trials)
    if (trial.error.empty()) {
      predicted.push_back(trial.modelMs);
      measured.push_back(trial.measuredMs);
      row.samples.push_back({trial.features, trial.baseModelMs, trial.measuredMs});
    }
  const pipeline::Trial &pick = tuned->trials.front();
  row.predictedMs = pick.modelMs;
  // The tuner's verdict, which times the fastest candidate and the pick again in turn before
  // it believes one beat the other by more than its margin: one lucky or unlucky run of either
  // does not decide the pick quality.
  row.measuredMs = tuned->record.untunedMs;
  row.bestMs = tuned->record.measuredMs;
  row.rho = spearman(predicted, measured);
  row.candidates = measured.size();
  return row;
}

void printRow(const Row &r) {
  if (!r.error.empty()) {
    std::printf("%-28s %s\n", r.label.c_str(), r.error.c_str());
    return;
  }
  std::printf("%-28s %10.3f %10.3f %7.2f %6.2f %6.2f %5zu\n", r.label.c_str(), r.predictedMs,
              r.measuredMs, r.ratio(), r.rho, r.pickQuality(), r.candidates);
  std::fflush(stdout);
}

// The model corrected by measurements (schedule/Correction.h), judged on shapes it has not seen:
// for each shape, a correction fitted on every other shape's candidates predicts this one's
// pick. The correction scales predictions but not the search's ranking, so the pick, the rank
// correlation and the pick quality are the model's own.
std::vector<Row> crossValidate(const std::vector<Row> &rows) {
  std::vector<Row> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].error.empty() || rows[i].samples.empty())
      continue;
    std::vector<schedule::CorrectionSample> others;
    for (size_t j = 0; j < rows.size(); ++j)
      if (j != i)
        others.insert(others.end(), rows[j].samples.begin(), rows[j].samples.end());
    schedule::Correction c = schedule::fitCorrection(others);
    Row r = rows[i];
    const auto &pick = rows[i].samples.front();
    r.predictedMs = pick.predicted * c.factor(pick.features);
    out.push_back(r);
  }
  return out;
}

// Median and worst of each figure, over the rows measured.
nlohmann::json summarise(const std::vector<Row> &rows) {
  std::vector<double> ratios, rhos, picks;
  double worstRatio = 1, worstPick = 1;
  for (const auto &r : rows) {
    if (!r.error.empty())
      continue;
    ratios.push_back(r.ratio());
    rhos.push_back(r.rho);
    picks.push_back(r.pickQuality());
    if (std::max(r.ratio(), 1 / r.ratio()) > std::max(worstRatio, 1 / worstRatio))
      worstRatio = r.ratio();
    worstPick = std::min(worstPick, r.pickQuality());
  }
  double good =
      double(std::count_if(picks.begin(), picks.end(), [](double q) { return q >= 0.95; }));
  std::printf("\nover %zu shapes: measured/predicted median %.2f, worst %.2f; rank correlation "
              "median %.2f; pick quality median %.2f, worst %.2f, >= 0.95 on %.0f of %zu\n",
              ratios.size(), median(ratios), worstRatio, median(rhos), median(picks), worstPick,
              good, picks.size());
  return {{"shapes", ratios.size()},   {"ratioMedian", median(ratios)}, {"ratioWorst", worstRatio},
          {"rhoMedian", median(rhos)}, {"pickMedian", median(picks)},   {"pickWorst", worstPick},
          {"pickAtLeast95", good}};
}

std::vector<Row> runGemms(const Settings &s, const hw::Target &target,
                          pipeline::Executor &executor) {
  std::vector<Row> rows;
  std::string error;
  auto problems = bench::readGemmProblems(s.csv, error);
  if (!problems) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return rows;
  }
  size_t duplicates = 0, skippedTT = 0;
  std::string file = s.source + "/samples/gemm.isam";
  for (const auto &p :
       bench::selectGemmProblems(*problems, s.filter, s.limit, duplicates, skippedTT)) {
    rows.push_back(measure(s, target, executor, file,
                           {"", bench::gemmKernelFor(p), {{"M", p.m}, {"N", p.n}, {"K", p.k}}},
                           p.label() + " " + p.layout()));
    printRow(rows.back());
  }
  return rows;
}

std::vector<Row> runLayers(const Settings &s, const hw::Target &target,
                           pipeline::Executor &executor) {
  std::vector<Row> rows;
  for (const char *sample : {"dwsep.isam", "gru.isam", "lstm.isam"}) {
    std::string file = s.source + "/samples/" + sample, error;
    for (const auto &name : bench::instanceNames(file, error)) {
      bool test = name.size() > 6 && (name.rfind("_small") == name.size() - 6 ||
                                      name.rfind("_unit") == name.size() - 5);
      if (test || name.find(s.filter) == std::string::npos)
        continue;
      rows.push_back(measure(s, target, executor, file, {name, "", {}}, name));
      printRow(rows.back());
    }
    if (!error.empty())
      std::fprintf(stderr, "%s: %s\n", file.c_str(), error.c_str());
  }
  return rows;
}

nlohmann::json rowsJson(const std::vector<Row> &rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto &r : rows)
    out.push_back(
        r.error.empty()
            ? nlohmann::json{{"shape", r.label},
                             {"predictedMs", r.predictedMs},
                             {"measuredMs", r.measuredMs},
                             {"bestMs", r.bestMs},
                             {"rho", std::isnan(r.rho) ? nlohmann::json() : nlohmann::json(r.rho)},
                             {"candidates", r.candidates}}
            : nlohmann::json{{"shape", r.label}, {"error", r.error}});
  return out;
}

// The correction fitted on every shape's samples, printed.
schedule::Correction fitAll(const std::vector<Row> &rows) {
  std::vector<schedule::CorrectionSample> samples;
  for (const auto &r : rows)
    samples.insert(samples.end(), r.samples.begin(), r.samples.end());
  schedule::Correction all = schedule::fitCorrection(samples);
  std::printf("\ncorrection fitted on all %zu samples (rms log error %.2f):", all.samples,
              all.rmsLogError);
  for (size_t f = 0; f < all.weights.size(); ++f)
    std::printf("%s %s %+.2f", f ? "," : "", schedule::featureNames()[f].c_str(), all.weights[f]);
  std::printf("\n");
  return all;
}

} // namespace

int main(int argc, char **argv) {
  Settings s;
  CLI::App app{"isamap's cost model against measured times of its best-rated schedules"};
  app.add_option("--target", s.target, "Target (host: the JIT; an accelerator: its simulator)");
  app.add_option("--csv", s.csv,
                 "DeepBench GEMM sizes (default ../shared/data/deepbench_gemm.csv)");
  app.add_option("--filter", s.filter, "Only shapes and instances whose label contains this");
  app.add_option("--limit", s.limit, "At most this many GEMM shapes");
  app.add_option("--trials", s.trials, "Candidates measured per shape, the pick included")
      ->check(CLI::Range(size_t(1), size_t(1000)));
  app.add_option("--threads", s.threads, "Threads of native code (default: the target's cores)");
  app.add_flag("!--no-gemm", s.gemm, "Skip the GEMM sizes");
  app.add_flag("!--no-layers", s.layers, "Skip the dwsep, gru and lstm instances");
  app.add_option("--db", s.db,
                 "Judge the model as this tuning database's measurements correct it (train on "
                 "other shapes than those measured here)");
  app.add_option("--json", s.jsonPath, "Also write the rows and the summary as JSON here");
  app.add_option("--source", s.source, "The isamap source tree (samples/)");
  CLI11_PARSE(app, argc, argv);
  if (s.csv.empty())
    s.csv = (fs::path(s.source).parent_path() / "shared/data/deepbench_gemm.csv").string();
  std::optional<pipeline::TuningDb> db;
  if (!s.db.empty()) {
    auto loaded = pipeline::TuningDb::load(s.db);
    if (!loaded) {
      std::fprintf(stderr, "%s\n", llvm::toString(loaded.takeError()).c_str());
      return 1;
    }
    db = std::move(*loaded);
    s.tuning = &*db;
  }

  SessionOptions targetOptions;
  targetOptions.hostMeter = backend::measureFmaGflops; // the host's measured FMA rate
  Session session(targetOptions);
  session.loadText("bench.isam", ""); // shipped descriptions are found beside the main file
  auto target = session.target(s.target);
  if (!target) {
    std::fprintf(stderr, "no target '%s'\n", s.target.c_str());
    return 1;
  }
  // The model predicts for the target's cores: on fewer threads, schedule for that many.
  if (s.threads > 0 && s.threads < target->cores)
    target->cores = s.threads;
  std::string why;
  if (!pipeline::canTune(*target, why)) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return 1;
  }
  auto executor = pipeline::Executor::create(&*target);
  if (!executor) {
    std::fprintf(stderr, "%s\n", llvm::toString(executor.takeError()).c_str());
    return 1;
  }
  std::printf("target %s (%s), %zu candidates per shape, %u threads\n", target->name.c_str(),
              target->cpu.empty() ? "simulated" : target->cpu.c_str(), s.trials,
              (*executor)->threads(s.threads));
  if (db) {
    schedule::Correction c = db->correction(*target);
    std::printf("the model corrected by %s: %zu measurements of this machine\n", s.db.c_str(),
                c.samples);
  }
  std::printf("\n");
  std::printf("%-28s %10s %10s %7s %6s %6s %5s\n", "shape", "model ms", "measured", "ratio", "rho",
              "pick", "cands");
  std::vector<Row> rows;
  if (s.gemm)
    rows = runGemms(s, *target, **executor);
  if (s.layers) {
    std::vector<Row> more = runLayers(s, *target, **executor);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  nlohmann::json summary = summarise(rows);
  // The same shapes under a correction fitted on the others' measurements.
  std::printf("\nthe model corrected by the other shapes' measurements (leave one shape out):\n");
  std::vector<Row> corrected = crossValidate(rows);
  for (const auto &r : corrected)
    printRow(r);
  nlohmann::json correctedSummary = summarise(corrected);
  schedule::Correction all = fitAll(rows);
  if (!s.jsonPath.empty()) {
    std::string error;
    nlohmann::json doc = {{"target", target->name},
                          {"rows", rowsJson(rows)},
                          {"summary", summary},
                          {"correctedRows", rowsJson(corrected)},
                          {"correctedSummary", correctedSummary},
                          {"correction", all.weights}};
    if (!writeFileAtomically(s.jsonPath, doc.dump(2) + "\n", error)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 1;
    }
  }
  return 0;
}
