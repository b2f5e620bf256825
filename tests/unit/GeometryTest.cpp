// Schedule geometry (schedule/Geometry.h) on a hand-built Config: a fused virtual index whose
// boxes wrap, tiles and their footprints, steps and calls, the scratchpad layout; and the typed
// stage results (staging steps, bounds, move steps) rendered as the printers show them.
#include "schedule/Geometry.h"
#include "mapping/Mapping.h"

#include <gtest/gtest.h>

using namespace isam;

namespace {

ir::Affine term(int index, int64_t coef = 1, int64_t constant = 0) {
  ir::Affine a;
  a.terms = {{index, coef}};
  a.constant = constant;
  return a;
}

// O[f, h*w] += P[f, c] * T[c, h, w + 1] with f < 8, h < 3, w < 5, c < 4: virtual indices
// f (bound to a 4-lane instruction index), h*w fused (bound to 16 lanes), and the loop c.
struct Fixture {
  ir::Statement s;
  schedule::Config c;
  ir::Access t; // T[c, h, w + 1]

  Fixture() {
    s.indices = {{"f", 8, false, ""}, {"h", 3, false, ""}, {"w", 5, false, ""}, {"c", 4, true, ""}};
    t.tensor = 1;
    t.indices = {term(3), term(1), term(2, 1, 1)};
    schedule::VirtualIndex f{"f", {0}, 8, 4, 0, false, false};
    schedule::VirtualIndex hw{"h*w", {1, 2}, 15, 16, 1, false, false};
    schedule::VirtualIndex loop{"c", {3}, 4, 1, -1, true, false};
    c.vindices = {f, hw, loop};
    c.levels.resize(2);
    c.tiles = {{8, 15, 4}, {4, 16, 2}};
    c.order = {{0, 1, 2}, {2, 0, 1}};
  }
};

} // namespace

TEST(Geometry, StepsTripsAndCalls) {
  Fixture x;
  EXPECT_EQ(schedule::stepOf(x.c, 0, 0), 4); // the next level's tile
  EXPECT_EQ(schedule::tripsOf(x.c, 0, 0), 2);
  EXPECT_EQ(schedule::stepOf(x.c, 1, 0), 4); // innermost: the instruction's extent
  EXPECT_EQ(schedule::stepOf(x.c, 1, 2), 1);
  EXPECT_EQ(schedule::tripsOf(x.c, 1, 2), 2);
  EXPECT_EQ(schedule::tripsOf(x.c, 0, 2), 2);
  // f: 2 calls, h*w: 1 call, c: 4 calls.
  EXPECT_DOUBLE_EQ(schedule::callCount(x.c), 8);
  EXPECT_EQ(schedule::roundUp(15, 4), 16);
}

TEST(Geometry, ParallelSpeedupIsTheBusiestThreadsShare) {
  Fixture x;
  // A 3-level Config whose level-0 loop over f (extent 8, 4-lane calls) steps by the next
  // level's tile.
  x.c.levels.resize(3);
  x.c.order.push_back({2, 0, 1});
  x.c.parallel = 0;
  auto withStep = [&](int64_t step) {
    x.c.tiles = {{8, 15, 4}, {step, 16, 2}, {4, 16, 2}};
    return schedule::parallelSpeedup(x.c, 2);
  };
  EXPECT_DOUBLE_EQ(withStep(4), 2); // two trips of one call each
  EXPECT_DOUBLE_EQ(withStep(8), 1); // one trip: nothing to share
  x.c.vindices[0].extent = 12;
  x.c.tiles = {{12, 15, 4}, {4, 16, 2}, {4, 16, 2}};
  EXPECT_DOUBLE_EQ(schedule::parallelSpeedup(x.c, 2), 1.5); // three trips on two threads
  EXPECT_DOUBLE_EQ(schedule::parallelSpeedup(x.c, 3), 3);
  EXPECT_DOUBLE_EQ(schedule::parallelSpeedup(x.c, 8), 3); // no more threads than trips
  // A partial last trip: 12 in steps of 8 is 2 calls and 1 call.
  x.c.tiles = {{12, 15, 4}, {8, 16, 2}, {4, 16, 2}};
  EXPECT_DOUBLE_EQ(schedule::parallelSpeedup(x.c, 2), 1.5);
  x.c.parallel = -1;
  EXPECT_DOUBLE_EQ(schedule::parallelSpeedup(x.c, 2), 1);
}

TEST(Geometry, TileFootprintSplitsFusedIndices) {
  Fixture x;
  // A tile of 7 along h*w covers 2 values of h and all 5 of w; 2 of c.
  std::vector<int64_t> counts = schedule::statementCounts(x.s, x.c.vindices, {4, 7, 2});
  EXPECT_EQ(counts, (std::vector<int64_t>{4, 2, 5, 2}));
  EXPECT_EQ(schedule::tileFootprint(x.s, x.t, x.c.vindices, {4, 7, 2}),
            (std::vector<int64_t>{2, 2, 5}));
  ir::Access shifted;
  shifted.indices = {term(1, 2), term(2, -1)};
  EXPECT_EQ(schedule::accessExtents(shifted, counts), (std::vector<int64_t>{3, 5}));
}

TEST(Geometry, BoxesWrapAcrossFusedIndices) {
  Fixture x;
  std::vector<int64_t> lo, hi;
  // h*w in [6, 9): h = 1, w = 1..3; f in [4, 8); c in [1, 2).
  schedule::statementBox(x.c, x.s, {4, 6, 1}, {4, 3, 1}, lo, hi);
  EXPECT_EQ(lo, (std::vector<int64_t>{4, 1, 1, 1}));
  EXPECT_EQ(hi, (std::vector<int64_t>{7, 1, 3, 1}));
  // h*w in [3, 7) crosses from h = 0 to h = 1: w spans its whole extent.
  schedule::statementBox(x.c, x.s, {0, 3, 0}, {8, 4, 4}, lo, hi);
  EXPECT_EQ(lo, (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(hi, (std::vector<int64_t>{7, 1, 4, 3}));
  std::vector<int64_t> first, count;
  schedule::accessBox(x.t, lo, hi, first, count);
  EXPECT_EQ(first, (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(count, (std::vector<int64_t>{4, 2, 5}));
  std::vector<int64_t> point;
  schedule::pointOf(x.c, x.s, {5, 13, 2}, point);
  EXPECT_EQ(point, (std::vector<int64_t>{5, 2, 3, 2}));
}

TEST(Geometry, ScratchpadLayoutPadsTheOperandsDimensions) {
  Fixture x;
  schedule::OperandPlacement p;
  p.tensor = 1;
  p.access = x.t;
  p.dims = {-1, 1}; // a [1, 16] operand along h*w
  p.shape = {1, 16};
  x.c.operands = {p};
  // The loop c moves the tile (f does not touch T), then the operand's own dimensions.
  EXPECT_EQ(schedule::layoutDims(x.c, 0), (std::vector<int>{2, -1, 1}));
  EXPECT_EQ(schedule::layoutTile(x.c, 0, 0, false), (std::vector<int64_t>{4, 1, 15}));
  EXPECT_EQ(schedule::layoutTile(x.c, 0, 0, true), (std::vector<int64_t>{4, 1, 16}));
  x.c.operands[0].dims.clear();
  EXPECT_TRUE(schedule::layoutDims(x.c, 0).empty());
}

TEST(StageResults, TypedStepsAndBoundsRenderAsThePrintersShowThem) {
  hw::Target t;
  t.memories.resize(3);
  t.memories[0].name = "DRAM";
  t.memories[1].name = "SPAD";
  t.memories[1].parent = 0;
  t.memories[2].name = "ACC";
  t.memories[2].parent = 0;
  t.units.resize(1);
  t.units[0].name = "dma";
  t.instructions.resize(2);
  t.instructions[0].name = "mma";
  t.instructions[1].name = "mvin";
  t.instructions[1].isMove = true;

  using K = schedule::Staging::Kind;
  EXPECT_EQ(schedule::stagingText({K::None}, t), "");
  EXPECT_EQ(schedule::stagingText({K::Copy}, t), "copy");
  EXPECT_EQ(schedule::stagingText({K::Pack}, t), "pack");
  EXPECT_EQ(schedule::stagingText({K::Move, 1}, t), "mvin");
  EXPECT_EQ(schedule::stagingText({K::PackThenCopy}, t), "pack, then copy");
  EXPECT_EQ(schedule::stagingText({K::PackThenMove, 1}, t), "pack, then mvin");
  EXPECT_EQ(schedule::stagingMove({K::PackThenMove, 1}, t), &t.instructions[1]);
  EXPECT_EQ(schedule::stagingMove({K::Copy}, t), nullptr);

  auto bound = [&](schedule::Bound b, int at = -1) {
    schedule::Cost cost;
    cost.bound = b;
    cost.boundAt = at;
    return schedule::boundText(cost, t);
  };
  using B = schedule::Bound;
  EXPECT_EQ(bound(B::None), "");
  EXPECT_EQ(bound(B::Compute), "compute");
  EXPECT_EQ(bound(B::Latency), "latency");
  EXPECT_EQ(bound(B::Bandwidth, 1), "SPAD bandwidth");
  EXPECT_EQ(bound(B::UnitBandwidth, 0), "the dma unit's bandwidth");
  EXPECT_EQ(bound(B::UnitBandwidth, -1), "the moves' bandwidth");
  EXPECT_EQ(bound(B::MovesNotOverlapped), "moves (not overlapped)");
  EXPECT_EQ(bound(B::ScalarCode), "scalar code");

  using M = mapping::MoveStep::Kind;
  EXPECT_EQ(mapping::moveStepText({M::Pack}, t), "pack (layout change)");
  EXPECT_EQ(mapping::moveStepText({M::Move, 1, 0, 1}, t), "mvin (DRAM -> SPAD)");
  EXPECT_EQ(mapping::moveStepText({M::Undescribed, -1, 2}, t), "(no move out of ACC is described)");
}
