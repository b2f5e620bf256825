// Search strategies over a Space, guided by a CostModel, within a budget of evaluated
// candidates and milliseconds. Deterministic for a seed as long as the candidate budget, not
// the time budget, is what stops the search.
#pragma once

#include "schedule/CostModel.h"
#include "schedule/Space.h"

#include <cstdint>
#include <memory>

namespace isam::schedule {

struct Budget {
  // Enough for a beam of sixteen over a large GEMM's five mappings to converge (12,000-20,000
  // candidates, 0.2-0.35 s on this repository's x86 host); at 3000 it stopped short of
  // schedules the model rates 3-7% faster, which ran 5-10% faster (5124 x 9124 x 2048: 105 ->
  // 110 GFLOP/s), and at 8000 35 x 700 x 2048's (82% of the peak rated against 93%, measured
  // 0.88x as fast).
  static constexpr size_t kDefaultCandidates = 20000;
  size_t candidates = kDefaultCandidates;
  double milliseconds = 2000;
  size_t keep = 0; // SearchResult::ranked holds at most this many of the cheapest candidates
};

// A point of a Space (one option per knob) with what the model made of it.
struct Ranked {
  std::vector<size_t> point;
  Config config;
  Cost cost;
};

struct SearchResult {
  bool found = false;
  std::vector<size_t> point; // the best one's
  Config config;
  Cost cost;
  std::vector<Ranked> ranked; // the Budget::keep cheapest valid points, cheapest first
  size_t evaluated = 0;
  bool budgetExhausted = false;
  SearchReport::Stop stop = SearchReport::Stop::None; // which budget, when one stopped it
  bool covered = false;                               // every point of the space costed
  std::string lastInvalidReason;                      // why the last rejected point was rejected
};

class SearchStrategy {
public:
  virtual ~SearchStrategy() = default;
  virtual std::string name() const = 0;
  virtual SearchResult run(const Space &space, const CostModel &model, const Budget &budget,
                           uint64_t seed) const = 0;
};

// "exhaustive", "beam" or "random" (random sampling, then evolution of the best); nullptr for
// an unknown name.
std::unique_ptr<SearchStrategy> makeStrategy(const std::string &name);

} // namespace isam::schedule
