// What the cost model charges for reading an input in place against packing it: rows a page
// apart that evict each other in a few cache sets wait for every line fetched again; a pack
// reads its tile at the rate of the slowest level it comes through (DRAM's: one core's misses
// in flight), not at the rate of the cache it fills; and an input whose far rows a spatial
// index walks (a GEMM's A along m) may be packed, read in place first; and register tiles that
// walk such rows a page apart per step wait once a walk spans more than kFarWalkReachBytes.
#include "schedule/CostModel.h"
#include "schedule/Geometry.h"
#include "schedule/Space.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <map>

using namespace isam;

namespace {

struct Gemm {
  Session session;
  std::vector<ir::Kernel> kernels;
  std::optional<hw::Target> target;
  std::vector<mapping::StatementMappings> maps;
  schedule::KernelSchedule chosen;

  Gemm(const std::string &text, const std::string &targetName) {
    session.loadText("g.isam", text);
    kernels = session.instances({});
    target = session.target(targetName);
    EXPECT_EQ(kernels.size(), 1u);
    EXPECT_TRUE(target.has_value());
    maps = session.mappings(kernels.at(0), *target);
    schedule::ScheduleOptions options;
    options.budget.candidates = 3000;
    options.budget.milliseconds = 1e9;
    chosen = session.schedule(kernels.at(0), *target, options);
  }
  const schedule::Config &config() const { return chosen.statements.at(0).config; }
  schedule::Cost cost(const schedule::Config &c) const {
    schedule::AnalyticalModel model(kernels.at(0), *target, maps.at(0));
    return model.evaluate(c);
  }
  int operandOf(const std::string &tensor) const {
    const auto &c = config();
    for (size_t o = 0; o < c.operands.size(); ++o)
      if (c.operands[o].tensor >= 0 &&
          kernels.at(0).tensors[size_t(c.operands[o].tensor)].name == tensor)
        return int(o);
    return -1;
  }
  int levelNamed(const std::string &name) const {
    const auto &c = config();
    for (size_t l = 0; l < c.levels.size(); ++l)
      if (c.levels[l].name == name)
        return int(l);
    return -1;
  }
  std::string describe() const { return schedule::printSchedule(chosen, kernels.at(0), *target); }
};

TEST(PackCost, RowsThatEvictEachOtherWaitForTheirRefetches) {
  // TN 7680 x 256 x 2560 on x86_avx512 (L1 of 8 ways): A's rows lie 30 KiB apart, in two sets,
  // and the reduction walks them; each register tile reads 256 of them, and the tiles of 16
  // columns read each element 16 times, too often for the register loop's prefetch
  // (Prefetch.h).
  // In place they are fetched again from L2 for every register tile that shares their lines,
  // one after another. Measured here (TN 7680 x 64 x 2560, not prefetched), in place ran at 0.44
  // of packed (~31 cycles per row); charged as bandwidth alone, in place would rate cheaper than
  // the pack, which costs a copy.
  Gemm g("kernel gemm_tn<M, N, K>(A: f32[K, M], B: f32[K, N]) -> (C: f32[M, N]) {\n"
         "  C[m, n] += A[k, m] * B[k, n];\n  schedule { map fma16; tile ZMM: n 16; }\n}\n"
         "instance g = gemm_tn<7680, 256, 2560>;\n",
         "x86_avx512");
  int a = g.operandOf("A");
  ASSERT_GE(a, 0);
  schedule::Config packed = g.config();
  bool isPacked = false;
  for (size_t l = 0; l < packed.levels.size(); ++l)
    isPacked = isPacked || packed.operands[size_t(a)].staged[l];
  ASSERT_TRUE(isPacked) << g.describe();
  schedule::Config inPlace = packed;
  auto &p = inPlace.operands[size_t(a)];
  std::fill(p.staged.begin(), p.staged.end(), false);
  std::fill(p.staging.begin(), p.staging.end(), schedule::Staging{});
  schedule::Cost packedCost = g.cost(packed), inPlaceCost = g.cost(inPlace);
  ASSERT_TRUE(packedCost.valid && inPlaceCost.valid) << inPlaceCost.invalidReason;
  EXPECT_GT(inPlaceCost.cycles, packedCost.cycles) << g.describe();
}

TEST(PackCost, APackReadsAtTheRateOfWhereItsTileComesFrom) {
  // 8 x 1000 x 6144: B (24.6 MB) is read once, so the search reads it in place. Packed into
  // L2 instead, the pack's loop reads all of B from DRAM with nothing to overlap it: at most
  // 24 misses of 64 B in flight per core over 400 cycles (x86_avx512's DRAM), not at the 32 B a
  // cycle L3 feeds L2 with. (B's rows lie less than a page apart: read in place, its lines
  // cost no demand misses of their own, farSteps in CostModel.cpp.)
  Gemm g("kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
         "  C[m, n] += A[m, k] * B[k, n];\n}\ninstance g = gemm<8, 1000, 6144>;\n",
         "x86_avx512");
  int b = g.operandOf("B"), l2 = g.levelNamed("L2");
  ASSERT_GE(b, 0);
  ASSERT_GE(l2, 0);
  schedule::Config inPlace = g.config();
  for (bool staged : inPlace.operands[size_t(b)].staged)
    ASSERT_FALSE(staged) << "a read-once B is read in place\n" << g.describe();
  schedule::Config packed = inPlace;
  packed.operands[size_t(b)].staged[size_t(l2)] = true;
  packed.operands[size_t(b)].staging[size_t(l2)] = {schedule::Staging::Kind::Pack};
  schedule::Cost before = g.cost(inPlace), after = g.cost(packed);
  ASSERT_TRUE(before.valid && after.valid) << after.invalidReason;
  double bBytes = 1000.0 * 6144 * 4;
  double cores = std::max(1.0, double(g.target->cores));
  double dramRate = cores * 24 * 64 / 400.0;
  EXPECT_GT(after.cycles - before.cycles, 0.9 * bBytes / dramRate) << g.describe();
}

// Config g chose, with input `tensor` read in place.
schedule::Config inPlace(const Gemm &g, const std::string &tensor) {
  schedule::Config c = g.config();
  int o = g.operandOf(tensor);
  EXPECT_GE(o, 0);
  if (o >= 0) {
    auto &p = c.operands[size_t(o)];
    std::fill(p.staged.begin(), p.staged.end(), false);
    std::fill(p.staging.begin(), p.staging.end(), schedule::Staging{});
  }
  return c;
}

TEST(PackCost, LinesAPageApartPerReductionStepWaitWhereTheInnermostCacheFetchesThemAgain) {
  // 35 x 8457 x 2048, B read in place (its rows 33 KiB apart, a page per step of k): register
  // tiles of 7 rows read 1024-row blocks of B that L2 keeps and the tiles of the other four
  // groups of rows fetch again into L1, where no prefetcher follows them. That ran at 45-55
  // GFLOP/s on one core of this repository's x86 host, against 92 with 128-row blocks that L1
  // keeps for the other rows; charged at L2's bandwidth alone, it rated 97% of the peak.
  Gemm g("kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
         "  C[m, n] += A[m, k] * B[k, n];\n  schedule { map fma16_mem; "
         "tile L3: n 128, m 35, k 2048; tile L2: n 64, m 35, k 2048; "
         "tile L1: n 64, m 7, k 1024; tile ZMM: n 32, m 7, k 1024; "
         "order DRAM: n, m, k; order L3: n, m, k; order L2: m, k, n; }\n}\n"
         "instance g = gemm<35, 8457, 2048>;\n",
         "x86_avx512");
  schedule::Cost cost = g.cost(inPlace(g, "B"));
  ASSERT_TRUE(cost.valid) << cost.invalidReason;
  // Each line of B is fetched into L1 five times, four of them from L2 (latency 14), three at
  // a time, on two cores.
  double lines = 8457.0 * 2048 * 4 / 64;
  double waits = 4 * lines * 14 / 3 / 2;
  EXPECT_GT(cost.cycles - cost.computeCycles, 0.9 * waits) << g.describe();
}

TEST(PackCost, FarRowsWalkedBySpatialIndexMayBePacked) {
  // NT 512 x 512 x 1024: A's rows (m) lie 4 KiB apart, all in one set of an 8-way L1, and a
  // register tile of more than 8 of them evicts its own lines at every reduction step. A may
  // be packed at any cache level (BLIS packs A for L2), and is read in place by default.
  Gemm g("kernel gemm_nt<M, N, K>(A: f32[M, K], B: f32[N, K]) -> (C: f32[M, N]) {\n"
         "  C[m, n] += A[m, k] * B[n, k];\n}\ninstance g = gemm_nt<512, 512, 1024>;\n",
         "x86_avx512");
  int a = g.operandOf("A");
  ASSERT_GE(a, 0);
  const auto &maps = g.maps.at(0);
  schedule::Space space(g.kernels.at(0), *g.target, maps, g.config().mapping, {});
  size_t knob = space.knobs().size();
  for (size_t k = 0; k < space.knobs().size(); ++k)
    if (space.knobs()[k].name == "pack operand " + std::to_string(a))
      knob = k;
  ASSERT_LT(knob, space.knobs().size());
  EXPECT_GE(space.knobs()[knob].options, 3u) << "in place, and at least L1 and L2";
  auto point = space.heuristicPoint();
  point[knob] = 0;
  schedule::Config first = space.decode(point);
  for (size_t l = 0; l < first.levels.size(); ++l)
    EXPECT_FALSE(first.operands[size_t(a)].staged[l])
        << "the first option reads A in place, not at " << first.levels[l].name << " ("
        << int(first.operands[size_t(a)].staging[l].kind) << ")";
  std::set<int> packedAt;
  for (size_t option = 1; option < space.knobs()[knob].options; ++option) {
    point[knob] = option;
    schedule::Config c = space.decode(point);
    for (size_t l = 0; l < c.levels.size(); ++l)
      if (c.operands[size_t(a)].staged[l]) {
        EXPECT_EQ(c.operands[size_t(a)].staging[l].kind, schedule::Staging::Kind::Pack);
        packedAt.insert(int(l));
      }
  }
  EXPECT_EQ(packedAt.size(), space.knobs()[knob].options - 1);
}

// A TN GEMM of M x 64 x 4096 in 16 x 16 register tiles of 256 steps of k, L2 holding blocks of
// 64 x 64 x 1024: costed with the blocks of k outermost in L2 (the 16 register tiles of a block
// walk the same 256 rows of A) and with k innermost (each tile goes on along all 1024 rows).
struct TnWalks {
  Gemm g;
  schedule::Cost within, beyond;
  double steps = 0; // of the register tiles' walks over the whole statement
  double cores = 1;

  static std::string text(int64_t m) {
    return "kernel gemm_tn<M, N, K>(A: f32[K, M], B: f32[K, N]) -> (C: f32[M, N]) {\n"
           "  C[m, n] += A[k, m] * B[k, n];\n"
           "  schedule { map fma16_mem; tile L3: n 64, m " +
           std::to_string(std::min<int64_t>(m, 1024)) +
           ", k 1024; tile L2: n 64, m 64, k 1024;\n"
           "    tile L1: n 16, m 16, k 256; tile ZMM: n 16, m 16, k 256; order L2: k, n, m; }\n"
           "}\ninstance g = gemm_tn<" +
           std::to_string(m) + ", 64, 4096>;\n";
  }

  explicit TnWalks(int64_t m) : g(text(m), "x86_avx512") {
    schedule::Config blocksFirst = g.config();
    int l2 = g.levelNamed("L2");
    std::map<std::string, int> index;
    for (size_t v = 0; v < blocksFirst.vindices.size(); ++v)
      index[blocksFirst.vindices[v].name] = int(v);
    if (l2 < 0 || blocksFirst.order[size_t(l2)] !=
                      std::vector<int>{index.at("k"), index.at("n"), index.at("m")})
      return;
    schedule::Config alongK = blocksFirst;
    alongK.order[size_t(l2)] = {index.at("n"), index.at("m"), index.at("k")};
    within = g.cost(blocksFirst);
    beyond = g.cost(alongK);
    // The calls over those of one step (16 rows of C, one call each).
    size_t regs = blocksFirst.levels.size() - 1;
    steps = schedule::callCount(blocksFirst) /
            double(schedule::tripsOf(blocksFirst, regs, size_t(index.at("m"))) *
                   schedule::tripsOf(blocksFirst, regs, size_t(index.at("n"))));
    cores = schedule::parallelSpeedup(blocksFirst, int(g.target->cores));
  }
};

TEST(FarWalk, AWalkAlongRowsAPageApartWaitsBeyondItsReach) {
  // A[k, m]'s rows lie 16 KiB apart, a page and more per step of k, and four register tiles of
  // B's columns read them: walks of 256 rows span 4 MiB, of 1024 rows 16 MiB. On this
  // repository's x86 host, walks of up to 384 rows ran 9-10 ms on two cores, 512 rows 15.
  TnWalks w(4096);
  ASSERT_TRUE(w.within.valid && w.beyond.valid) << w.g.describe();
  // Every step of every walk waits, on the cores the parallel loop uses.
  double wait = w.steps * schedule::kFarWalkStepCycles / w.cores;
  EXPECT_GT(w.beyond.cycles - w.within.cycles, 0.9 * wait) << w.g.describe();
  EXPECT_LT(w.beyond.cycles - w.within.cycles, 1.5 * wait) << w.g.describe();
}

TEST(FarWalk, RowsLessThanAPageApartWalkFreely) {
  // An A of 256 columns: its rows lie 1 KiB apart, under a page, and a walk of any length costs
  // no more than the traffic its order moves.
  TnWalks w(256);
  ASSERT_TRUE(w.within.valid && w.beyond.valid) << w.g.describe();
  EXPECT_LT(w.beyond.cycles - w.within.cycles, 0.2 * w.steps * schedule::kFarWalkStepCycles)
      << w.g.describe();
}

} // namespace
