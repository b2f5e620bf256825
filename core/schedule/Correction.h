// A learned correction of the analytical model: what it leaves out (how well the emitted code
// hides the FMA latency with its accumulators, the cost of packs, of forking threads, of folding
// lanes, of small kernels) fitted on measurements of this machine (the tuning database's, or the
// fidelity benchmark's) as a log-linear factor on the model's cycles:
//
//   measured / predicted  ~  exp(w . features(config, cost))
//
// fitted by ridge regression of log(measured / predicted) on the features. The analytical model
// stays the physics and the ranking (the search's score is not corrected: see CorrectedModel);
// the correction scales what it predicts, so that the numbers shown are ones this machine
// delivers.
#pragma once

#include "schedule/CostModel.h"

#include <string>
#include <vector>

namespace isam::schedule {

// The names of scheduleFeatures' entries, in order; their count and names are its version
// (samples recorded under other names are not fitted).
const std::vector<std::string> &featureNames();

// The features of one statement's costed Config (all of order one), from the analytical model's
// figures (a corrected Cost's correction undone).
std::vector<double> scheduleFeatures(const Config &config, const Cost &cost,
                                     const hw::Target &target);

// A kernel's features: its statements', weighted by their share of the predicted cycles.
std::vector<double> kernelFeatures(const std::vector<std::vector<double>> &statements,
                                   const std::vector<double> &cycles);

struct CorrectionSample {
  std::vector<double> features;
  double predicted = 0, measured = 0; // any one unit
};

struct Correction {
  std::vector<double> weights; // empty: no correction (a factor of 1)
  size_t samples = 0;          // fitted on
  double rmsLogError = 0;      // of the fit on its samples, as a log ratio
  bool empty() const { return weights.empty(); }
  // exp(w . features): the factor on the model's cycles.
  double factor(const std::vector<double> &features) const;
};

// Ridge regression of log(measured / predicted) on the samples' features (`ridge` on every
// weight but the first, the intercept). Empty below `minSamples` samples.
Correction fitCorrection(const std::vector<CorrectionSample> &samples, double ridge = 0.3,
                         size_t minSamples = 24);

// The analytical model with a correction: cycles and utilization scaled by its factor
// (Cost::correction); the score, which the search ranks by, is the analytical model's.
class CorrectedModel : public CostModel {
public:
  CorrectedModel(const ir::Kernel &kernel, const hw::Target &target,
                 const mapping::StatementMappings &mappings, const Correction &correction);
  std::string name() const override { return "analytical, corrected"; }
  Cost evaluate(const Config &config) const override;

private:
  AnalyticalModel base_;
  const hw::Target &target_;
  const Correction &correction_;
};

} // namespace isam::schedule
