#include "schedule/Search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <unordered_map>

namespace isam::schedule {

namespace {

using Clock = std::chrono::steady_clock;
using Point = std::vector<size_t>;

// Evaluates points, remembers the best, and enforces the budget.
class Evaluator {
public:
  Evaluator(const Space &space, const CostModel &model, const Budget &budget)
      : space_(space), model_(model), budget_(budget), start_(Clock::now()),
        scratch_(space.decode(Point(space.knobs().size(), 0))) {}

  bool exhausted() {
    if (result.budgetExhausted)
      return true;
    if (result.evaluated >= budget_.candidates)
      result.stop = SearchReport::Stop::Candidates;
    else if (std::chrono::duration<double, std::milli>(Clock::now() - start_).count() >
             budget_.milliseconds)
      result.stop = SearchReport::Stop::Time;
    result.budgetExhausted = result.stop != SearchReport::Stop::None;
    return result.budgetExhausted;
  }

  // Cycles of the point (infinity if invalid); points are evaluated at most once.
  double operator()(const Point &p) {
    if (auto it = seen_.find(p); it != seen_.end())
      return it->second;
    if (exhausted())
      return INFINITY;
    ++result.evaluated;
    Config &c = scratch_;
    space_.decodeInto(p, c);
    Cost cost = model_.evaluate(c);
    if (cost.valid)
      c.doubleBuffered = cost.doubleBuffered;
    double cycles = cost.valid ? cost.score : INFINITY;
    if (!cost.valid)
      result.lastInvalidReason = cost.invalidReason;
    if (cost.valid)
      rank(p, c, cost);
    if (cost.valid && (!result.found || cycles < result.cost.score)) {
      result.found = true;
      result.point = p;
      result.config = c;
      result.cost = std::move(cost);
    }
    seen_.emplace(p, cycles);
    return cycles;
  }

  SearchResult result;

private:
  // Keeps the Budget::keep cheapest points in result.ranked; among equal scores, the first seen.
  void rank(const Point &p, const Config &c, const Cost &cost) {
    auto &ranked = result.ranked;
    if (budget_.keep == 0 ||
        (ranked.size() == budget_.keep && cost.score >= ranked.back().cost.score))
      return;
    auto at = std::upper_bound(ranked.begin(), ranked.end(), cost.score,
                               [](double score, const Ranked &r) { return score < r.cost.score; });
    ranked.insert(at, Ranked{p, c, cost});
    if (ranked.size() > budget_.keep)
      ranked.pop_back();
  }

  const Space &space_;
  const CostModel &model_;
  const Budget &budget_;
  Clock::time_point start_;
  // Decoded into for each evaluation: a Config per point would copy the skeleton's accesses.
  Config scratch_;
  struct PointHash {
    size_t operator()(const Point &p) const {
      size_t h = p.size();
      for (size_t x : p)
        h = h * 0x9E3779B97F4A7C15ull + x + 1;
      return h;
    }
  };
  std::unordered_map<Point, double, PointHash> seen_;
};

Point randomPoint(const Space &space, std::mt19937_64 &rng) {
  Point p;
  for (const auto &k : space.knobs())
    p.push_back(size_t(rng() % k.options));
  return p;
}

class Exhaustive : public SearchStrategy {
public:
  std::string name() const override { return "exhaustive"; }
  SearchResult run(const Space &space, const CostModel &model, const Budget &budget,
                   uint64_t) const override {
    Evaluator eval(space, model, budget);
    Point p(space.knobs().size(), 0);
    eval(space.heuristicPoint());
    while (!eval.exhausted()) {
      eval(p);
      // Odometer over the knobs.
      size_t k = 0;
      for (; k < p.size(); ++k) {
        if (++p[k] < space.knobs()[k].options)
          break;
        p[k] = 0;
      }
      if (k == p.size()) {
        eval.result.covered = true;
        break;
      }
    }
    return eval.result;
  }
};

// Keeps the `width` best points; each round tries every one-knob change of each.
class Beam : public SearchStrategy {
public:
  std::string name() const override { return "beam"; }
  SearchResult run(const Space &space, const CostModel &model, const Budget &budget,
                   uint64_t seed) const override {
    // Eight points climbed from 35 x 8457 x 2048's seeds into packing B in 1024-row blocks
    // (48% of the peak rated) and never reached the 128-row tiles reading B in place (63%,
    // and measured 1.7x faster); sixteen do, within the default budget, in 0.2 s.
    const size_t width = 16;
    std::mt19937_64 rng(seed);
    Evaluator eval(space, model, budget);
    std::vector<std::pair<double, Point>> beam;
    Point start = space.heuristicPoint();
    beam.push_back({eval(start), start});
    for (const Point &s : space.seedPoints())
      if (!eval.exhausted())
        beam.push_back({eval(s), s});
    for (size_t i = 1; i < width * 4 && !eval.exhausted(); ++i) {
      Point r = randomPoint(space, rng);
      beam.push_back({eval(r), r});
    }
    auto keepBest = [&] {
      std::stable_sort(beam.begin(), beam.end(),
                       [](const auto &a, const auto &b) { return a.first < b.first; });
      if (beam.size() > width)
        beam.resize(width);
    };
    keepBest();
    for (bool improved = true; improved && !eval.exhausted();) {
      improved = false;
      double best = beam.front().first;
      std::vector<std::pair<double, Point>> next = beam;
      for (const auto &[cost, p] : beam)
        for (size_t k = 0; k < p.size() && !eval.exhausted(); ++k) {
          size_t n = space.knobs()[k].options;
          for (size_t delta : {size_t(1), n - 1}) {
            if (n <= 1)
              continue;
            Point q = p;
            q[k] = (q[k] + delta) % n;
            next.push_back({eval(q), q});
          }
        }
      for (const auto &[cost, p] : beam) {
        for (const Point &q : space.parallelSplits(p))
          if (!eval.exhausted())
            next.push_back({eval(q), q});
        for (const Point &q : space.blockMoves(p))
          if (!eval.exhausted())
            next.push_back({eval(q), q});
      }
      beam = std::move(next);
      keepBest();
      improved = beam.front().first < best;
    }
    return eval.result;
  }
};

// Random sampling of a first population, then generations of mutated survivors.
class Random : public SearchStrategy {
public:
  std::string name() const override { return "random"; }
  SearchResult run(const Space &space, const CostModel &model, const Budget &budget,
                   uint64_t seed) const override {
    std::mt19937_64 rng(seed);
    Evaluator eval(space, model, budget);
    std::vector<std::pair<double, Point>> population;
    Point start = space.heuristicPoint();
    population.push_back({eval(start), start});
    for (const Point &s : space.seedPoints())
      if (!eval.exhausted())
        population.push_back({eval(s), s});
    for (size_t i = 0; i < 64 && !eval.exhausted(); ++i) {
      Point p = randomPoint(space, rng);
      population.push_back({eval(p), p});
    }
    while (!eval.exhausted()) {
      std::stable_sort(population.begin(), population.end(),
                       [](const auto &a, const auto &b) { return a.first < b.first; });
      population.resize(std::min<size_t>(population.size(), 16));
      size_t before = eval.result.evaluated;
      std::vector<std::pair<double, Point>> children;
      for (const auto &[cost, p] : population) {
        Point q = p;
        for (int m = 0; m < 2; ++m) {
          size_t k = rng() % q.size();
          q[k] = rng() % space.knobs()[k].options;
        }
        children.push_back({eval(q), q});
      }
      population.insert(population.end(), children.begin(), children.end());
      if (eval.result.evaluated == before && space.size() <= double(eval.result.evaluated)) {
        eval.result.covered = true; // every point has been seen
        break;
      }
      if (eval.result.evaluated == before) {
        Point fresh = randomPoint(space, rng);
        population.push_back({eval(fresh), fresh});
      }
    }
    return eval.result;
  }
};

} // namespace

std::unique_ptr<SearchStrategy> makeStrategy(const std::string &name) {
  if (name == "exhaustive")
    return std::make_unique<Exhaustive>();
  if (name == "beam")
    return std::make_unique<Beam>();
  if (name == "random")
    return std::make_unique<Random>();
  return nullptr;
}

} // namespace isam::schedule
