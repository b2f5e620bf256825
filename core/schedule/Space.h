// The space of schedules for one statement on one target, as knobs (each a list of options),
// and the decoding of a point (one option per knob) into a Config. Everything is derived from
// the mapping and the hardware description: the levels are the memories on the operands'
// paths, tile options are multiples of the instruction's extents, capacities and bandwidths
// come from the memories.
#pragma once

#include "schedule/Schedule.h"

#include <map>
#include <optional>

namespace isam::schedule {

// Decisions the user pinned in a `schedule` block (names as written).
struct Pins {
  std::string instruction;                                     // `map fma16;`
  std::map<std::string, std::map<std::string, int64_t>> tiles; // `tile L1: n 64, m 6;`
  std::map<std::string, std::vector<std::string>> order;       // `order L1: n, m, k;`
  std::string parallel;                                        // `parallel: m;`
};

struct Knob {
  std::string name;
  size_t options = 1;
};

class Space {
public:
  // `candidate` indexes mappings.candidates.
  Space(const ir::Kernel &kernel, const hw::Target &target,
        const mapping::StatementMappings &mappings, int candidate, const Pins &pins);

  const std::vector<Knob> &knobs() const { return knobs_; }
  double size() const; // product of the option counts
  Config decode(const std::vector<size_t> &point) const;
  // The same into `c`, a Config this Space decoded before: a search's evaluations reuse one.
  void decodeInto(const std::vector<size_t> &point, Config &c) const;
  // A point encoding a sensible default (the greedy start of local searches).
  std::vector<size_t> heuristicPoint() const;
  // Register-blocked starts in the manner of BLAS micro-kernels: a few vectors along the
  // instruction's index times a few rows of the other spatial indices in registers, a long
  // reduction at every level, and cache tiles growing outward; for a statement that reduces
  // over overlapping windows only (a depthwise convolution), also tiles along one window index
  // with the other indices at one. Local searches start from the best of them, which one-knob
  // moves alone rarely reach.
  std::vector<std::vector<size_t>> seedPoints() const;
  // Points that run a loop of `point` in parallel where it runs none (or its parallel loop has
  // one trip): for each index that may run in parallel, its outermost cache tile cut into two
  // to four shares, the loop over them parallel. A one-knob move reaches neither half alone
  // (a parallel loop of one trip, a serial loop of two), so a statement whose cache tiles hold
  // it whole would never be split. Empty where `point` already splits a loop.
  std::vector<std::vector<size_t>> parallelSplits(const std::vector<size_t> &point) const;
  // Points that move one index's tiles at every level together, an option up or down each:
  // one-knob moves cannot grow a block held alike at every level (k of 128 at L3, L2, L1 and
  // the registers) but through points no better, which a local search does not take.
  std::vector<std::vector<size_t>> blockMoves(const std::vector<size_t> &point) const;
  // What the pins asked for that this space cannot give (empty when fine).
  const std::vector<std::string> &pinProblems() const { return pinProblems_; }

private:
  // Whether at `point` the register tiles read some input's elements once each: its tile
  // covers every index the input does not depend on.
  bool readsAnInputOnce(const std::vector<size_t> &point) const;
  // The constructor's steps after the skeleton Config: options per knob, the pins, the knobs.
  void addOptions(const hw::Target &target, const std::vector<bool> &mayPack);
  void addPins(const Pins &pins);
  // Restricts the tiles so that the outermost level's loop over index `v` runs more than one
  // trip, as a pinned parallel loop must; why it cannot where it cannot (empty when fine).
  std::string splitForParallel(size_t v);
  void addKnobs();

  const ir::Kernel &kernel_;
  const hw::Target &target_;
  Config skeleton_;
  std::vector<std::vector<int64_t>> tileOptions_;           // per virtual index
  std::vector<std::vector<std::vector<int>>> orderOptions_; // per level: permutations
  std::vector<int> parallelOptions_;
  // Per input that is or may be packed: the cache levels its pack may go to, kNoPack where it
  // may be read in place. Packed where its tile is reused most, the copy is paid once for many
  // register tiles, as BLAS libraries pack B for the L3 block and A for the L2 block.
  static constexpr int kNoPack = -1;
  struct PackOption {
    size_t operand;
    int from; // where the skeleton packs it (kNoPack: read in place)
    std::vector<int> levels;
    // Read in place only when the register tiles read each element at most a few times
    // (mayReadInPlace): a pack made for rows the reduction walks far apart.
    bool boundedInPlace;
    // The virtual index along the input's innermost dimension (-1: none), that dimension's
    // extent, and the bytes of a row run that reads as well reused in place as packed.
    int innerV = -1;
    int64_t innerExtent = 0;
    int64_t longRunElements = 0;
  };
  std::vector<PackOption> packOptions_;
  // Whether a pack option's input may be read in place at c (its pack still in c): read at most
  // maxReadsInPlace times (Space.cpp), or at most kMaxPrefetchedReads times where the register
  // level's reduction loop then prefetches it (Prefetch.h): 35 x 8457 x 1760 and the GRU cells'
  // gate GEMMs ran 1.4-1.9x faster on this repository's x86 host with B (W) read in place and
  // prefetched than packed.
  bool mayReadInPlace(const Config &c, const PackOption &option) const;
  // Fills in where an input's rows run, for maxReadsInPlace (Space.cpp).
  void describeRows(PackOption &option, const ir::Kernel &kernel, const ir::Statement &s,
                    const hw::Target &target) const;
  std::vector<Knob> knobs_;
  // Knob positions: tiles for levels 1..n and each v, then orders for levels 0..n, then
  // parallel, then the level of each pack.
  size_t tileKnob(size_t level, size_t v) const;
  std::vector<std::vector<std::optional<int64_t>>> pinnedTiles_; // [level][v]
  std::vector<std::optional<std::vector<int>>> pinnedOrder_;
  std::optional<int> pinnedParallel_;
  std::vector<std::string> pinProblems_;
};

} // namespace isam::schedule
