#include "schedule/Correction.h"

#include <algorithm>
#include <cmath>

namespace isam::schedule {

const std::vector<std::string> &featureNames() {
  static const std::vector<std::string> names = {
      "intercept",          // a constant share of the peak the emitted code does not reach
      "memory bound",       // 1 - compute / predicted cycles: how far the roofline's max hides
      "few accumulators",   // 1 / independent accumulators: latency the chains do not hide
      "register pressure",  // registers used / registers
      "threads",            // log2 of the cores the parallel loop uses: fork, join, imbalance
      "lane folds",         // a lane-reduced mapping's folds at write-back
      "scalar code",        // no instruction: LLVM's vectoriser, not the model's instruction
      "packs",              // operands copied into packed panels
      "small kernel",       // fixed costs (calls, loop set-up) of kernels under a million cycles
      "model utilization"}; // the model's own share of the peak
  return names;
}

std::vector<double> scheduleFeatures(const Config &c, const Cost &cost, const hw::Target &target) {
  // The analytical model's own figures: a corrected cost's are undone.
  double cycles = std::max(cost.cycles / cost.correction, 1.0);
  double utilization = cost.utilization * cost.correction;
  uint32_t registers = 0;
  for (const auto &m : target.memories)
    if (m.isRegisters)
      registers = std::max(registers, m.registerCount);
  int packs = 0;
  for (const auto &p : c.operands)
    for (const auto &s : p.staging)
      packs += s.kind == Staging::Kind::Pack || s.kind == Staging::Kind::PackThenCopy ||
               s.kind == Staging::Kind::PackThenMove;
  bool scalar = c.mapping < 0;
  return {1.0,
          std::clamp(1 - cost.computeCycles / cycles, 0.0, 1.0),
          scalar ? 0.0 : 1.0 / std::max(1, cost.accumulators),
          registers > 0 ? double(cost.registersUsed) / registers : 0.0,
          std::log2(std::max(1.0, parallelSpeedup(c, int(target.cores)))),
          c.finisher >= 0 ? 1.0 : 0.0,
          scalar ? 1.0 : 0.0,
          packs / 2.0,
          std::max(0.0, 6 - std::log10(cycles)) / 3,
          std::clamp(utilization, 0.0, 1.0)};
}

std::vector<double> kernelFeatures(const std::vector<std::vector<double>> &statements,
                                   const std::vector<double> &cycles) {
  std::vector<double> out(featureNames().size(), 0.0);
  double total = 0;
  for (double c : cycles)
    total += c;
  for (size_t s = 0; s < statements.size() && s < cycles.size(); ++s)
    for (size_t f = 0; f < out.size() && f < statements[s].size(); ++f)
      out[f] += statements[s][f] * (total > 0 ? cycles[s] / total : 1.0 / double(cycles.size()));
  return out;
}

double Correction::factor(const std::vector<double> &features) const {
  if (weights.empty())
    return 1;
  double sum = 0;
  for (size_t f = 0; f < weights.size() && f < features.size(); ++f)
    sum += weights[f] * features[f];
  // A correction extrapolated far outside its samples is not trusted beyond a factor of 20.
  return std::exp(std::clamp(sum, -3.0, 3.0));
}

Correction fitCorrection(const std::vector<CorrectionSample> &samples, double ridge,
                         size_t minSamples) {
  Correction out;
  const size_t n = featureNames().size();
  std::vector<const CorrectionSample *> usable;
  for (const auto &s : samples)
    if (s.features.size() == n && s.predicted > 0 && s.measured > 0)
      usable.push_back(&s);
  if (n == 0 || usable.size() < std::max<size_t>(minSamples, 1))
    return out;
  // Normal equations (X'X + ridge I') w = X'y, solved by Gaussian elimination with partial
  // pivoting: n is ten, so nothing more is needed.
  // The augmented matrix [X'X + ridge I' | X'y], row-major.
  const size_t w = n + 1;
  std::vector<double> a(n * w, 0.0);
  auto at = [&](size_t r, size_t c) -> double & { return a[r * w + c]; };
  for (const auto *s : usable) {
    double y = std::log(s->measured / s->predicted);
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j)
        at(i, j) += s->features[i] * s->features[j];
      at(i, n) += s->features[i] * y;
    }
  }
  for (size_t i = 1; i < n; ++i)
    at(i, i) += ridge * double(usable.size());
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r)
      if (std::fabs(at(r, col)) > std::fabs(at(pivot, col)))
        pivot = r;
    if (std::fabs(at(pivot, col)) < 1e-12)
      return out; // the intercept's column alone can be singular (no samples): nothing fitted
    for (size_t j = 0; j < w; ++j)
      std::swap(at(col, j), at(pivot, j));
    for (size_t r = 0; r < n; ++r) {
      if (r == col)
        continue;
      double k = at(r, col) / at(col, col);
      for (size_t j = col; j < w; ++j)
        at(r, j) -= k * at(col, j);
    }
  }
  out.weights.resize(n);
  for (size_t i = 0; i < n; ++i)
    out.weights[i] = at(i, n) / at(i, i);
  out.samples = usable.size();
  double sq = 0;
  for (const auto *s : usable) {
    double e = std::log(out.factor(s->features)) - std::log(s->measured / s->predicted);
    sq += e * e;
  }
  out.rmsLogError = std::sqrt(sq / double(usable.size()));
  return out;
}

CorrectedModel::CorrectedModel(const ir::Kernel &kernel, const hw::Target &target,
                               const mapping::StatementMappings &mappings,
                               const Correction &correction)
    : base_(kernel, target, mappings), target_(target), correction_(correction) {}

Cost CorrectedModel::evaluate(const Config &config) const {
  Cost cost = base_.evaluate(config);
  if (!cost.valid || correction_.empty())
    return cost;
  double k = correction_.factor(scheduleFeatures(config, cost, target_));
  // The score, which the search ranks by, stays the analytical model's: fitted over the DeepBench
  // GEMMs and the sample layers and judged on shapes it was not fitted on, the correction
  // predicts the level well (measured/predicted median 1.55 -> 1.00) but ranks a shape's
  // candidates worse than the model alone (rank correlation 0.76 -> 0.63, worst pick quality
  // 0.83 -> 0.53; isamap_bench_fidelity). It corrects the numbers shown, not the choice.
  cost.cycles *= k;
  cost.utilization /= k;
  cost.correction = k;
  return cost;
}

} // namespace isam::schedule
