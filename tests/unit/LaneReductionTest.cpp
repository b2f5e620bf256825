// Lane-reduced mappings: a reduction index of the statement on the lanes of an accumulating
// element-wise instruction, finished by a horizontal reduction the description states (acc +=
// a[i] into a scalar). Found from the semantics alone; checked by mapping::verify.
#include "interp/Interpreter.h"
#include "mapping/Mapping.h"
#include "mapping/Verify.h"
#include "schedule/CostModel.h"
#include "schedule/Execute.h"
#include "schedule/Geometry.h"
#include "schedule/Search.h"
#include "schedule/Space.h"
#include "schedule/Verify.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace isam;

namespace {

// `vec` has the finishers; `nofold` lacks them; `narrow` folds 4 lanes where its vectors have 8.
const char *kTargets = R"(
target vec {
  cores 1; clock 1 GHz;
  memory MEM { size 1 GiB; }
  memory L1 : MEM { size 32 KiB; line 64 B; }
  registers V : L1 { count 16; width 32 B; }
  move load8(dst: out f32[8] in V, src: f32[8] in L1) { dst[i] = src[i]; }
  move store8(dst: out f32[8] in L1, src: f32[8] in V) { dst[i] = src[i]; }
  move bcast8(dst: out f32[8] in V, src: f32 in L1) { dst[i] = src; }
  instr fma8(acc: inout f32[8] in V, a: f32[8] in V, b: f32 in V) { acc[i] += a[i] * b; }
  instr fma8v(acc: inout f32[8] in V, a: f32[8] in V, b: f32[8] in V) { acc[i] += a[i] * b[i]; }
  instr addacc8(acc: inout f32[8] in V, a: f32[8] in V) { acc[i] += a[i]; }
  instr maxacc8(acc: inout f32[8] in V, a: f32[8] in V) { acc[i] max= a[i]; }
  instr hsum8(acc: inout f32 in V, a: f32[8] in V) { acc += a[i]; } cost { latency 10; per_cycle 1/4; }
  instr hmax8(acc: inout f32 in V, a: f32[8] in V) { acc max= a[i]; } cost { latency 8; per_cycle 1/4; }
}
target nofold {
  cores 1; clock 1 GHz;
  memory MEM { size 1 GiB; }
  memory L1 : MEM { size 32 KiB; line 64 B; }
  registers V : L1 { count 16; width 32 B; }
  move load8(dst: out f32[8] in V, src: f32[8] in L1) { dst[i] = src[i]; }
  move store8(dst: out f32[8] in L1, src: f32[8] in V) { dst[i] = src[i]; }
  instr fma8v(acc: inout f32[8] in V, a: f32[8] in V, b: f32[8] in V) { acc[i] += a[i] * b[i]; }
}
target narrow {
  cores 1; clock 1 GHz;
  memory MEM { size 1 GiB; }
  memory L1 : MEM { size 32 KiB; line 64 B; }
  registers V : L1 { count 16; width 32 B; }
  move load8(dst: out f32[8] in V, src: f32[8] in L1) { dst[i] = src[i]; }
  move store8(dst: out f32[8] in L1, src: f32[8] in V) { dst[i] = src[i]; }
  instr fma8v(acc: inout f32[8] in V, a: f32[8] in V, b: f32[8] in V) { acc[i] += a[i] * b[i]; }
  instr hsum4(acc: inout f32 in V, a: f32[4] in V) { acc += a[i]; }
}
)";

const char *kGemv = R"(
kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) { C[m, n] += A[m, k] * B[k, n]; }
instance g = gemm<7, 3, 13>;
)";

struct Mapped {
  std::unique_ptr<Session> session;
  ir::Kernel kernel;
  hw::Target target;
  mapping::StatementMappings result;
  std::string name(int instruction) const {
    return target.instructions.at(size_t(instruction)).name;
  }
  std::string print() const { return mapping::printMappings(result, kernel, target); }
  const mapping::Candidate *laneReduced() const {
    for (const auto &c : result.candidates)
      if (c.laneReduced >= 0)
        return &c;
    return nullptr;
  }
};

Mapped mapOne(const std::string &kernelText, const std::string &target) {
  Mapped m;
  m.session = test::analyse(std::string(kTargets) + kernelText);
  EXPECT_FALSE(m.session->diagnostics().hasErrors())
      << renderDiagnostic(m.session->diagnostics().all().front(), m.session->sources());
  auto ks = m.session->instances({});
  EXPECT_EQ(ks.size(), 1u);
  m.kernel = ks.at(0);
  auto t = m.session->target(target);
  EXPECT_TRUE(t.has_value());
  m.target = *t;
  m.result = mapping::mapStatement(m.kernel, 0, m.target);
  return m;
}

std::string messages(const std::vector<Diagnostic> &ds) {
  std::string out;
  for (const auto &d : ds)
    out += d.message + "\n";
  return out;
}

// The lane-reduced mapping of statement 0 of each instance on a shipped target, searched,
// lowered and checked: one instance's schedule, its text and the mapping's finisher.
struct LaneSchedule {
  std::unique_ptr<Session> session;
  ir::Kernel kernel;
  hw::Target target;
  std::vector<mapping::StatementMappings> mappings;
  schedule::KernelSchedule schedule;
  bool found = false;
  std::string text() const { return schedule::printSchedule(schedule, kernel, target); }
};

LaneSchedule laneSchedule(const std::string &text, const std::string &target,
                          const std::string &instance) {
  LaneSchedule r;
  r.session = test::analyse(text);
  InstanceSelector selector;
  selector.instance = instance;
  auto ks = r.session->instances(selector);
  auto t = r.session->target(target);
  if (ks.size() != 1 || !t)
    return r;
  r.kernel = ks[0];
  r.target = *t;
  r.mappings = r.session->mappings(r.kernel, r.target);
  const auto &m = r.mappings.at(0);
  int chosen = -1;
  for (size_t c = 0; c < m.candidates.size() && chosen < 0; ++c)
    if (m.candidates[c].laneReduced >= 0)
      chosen = int(c);
  if (chosen < 0)
    return r;
  schedule::Space space(r.kernel, r.target, m, chosen, schedule::Pins{});
  schedule::AnalyticalModel model(r.kernel, r.target, m);
  schedule::Budget budget;
  budget.candidates = 300;
  budget.milliseconds = 1e9;
  auto best = schedule::makeStrategy("beam")->run(space, model, budget, 1);
  if (!best.found)
    return r;
  r.schedule.kernel = r.kernel.name;
  r.schedule.target = r.target.name;
  r.schedule.statements.push_back(schedule::lower(r.kernel, r.target, m, best.config, best.cost));
  r.found = true;
  return r;
}

const char *kShapes = R"(
kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) { C[m, n] += A[m, k] * B[k, n]; }
kernel rowmax<M, K>(A: f32[M, K]) -> (y: f32[M]) { y[m] max= A[m, k]; }
kernel rowsum<M, K>(A: f32[M, K]) -> (y: f32[M]) { y[m] += A[m, k]; }
instance gemv_odd = gemm<37, 1, 45>;
instance n2 = gemm<9, 2, 33>;
instance n3 = gemm<37, 3, 45>;
instance n5 = gemm<5, 5, 100>;
instance k7 = gemm<3, 4, 7>;
instance long_k = gemm<11, 1, 1000>;
instance rowmax_odd = rowmax<33, 45>;
instance rowsum_odd = rowsum<13, 17>;
)";

} // namespace

TEST(LaneReduction, GemvPutsTheReductionOnTheLanes) {
  auto m = mapOne(kGemv, "vec");
  const auto *c = m.laneReduced();
  ASSERT_NE(c, nullptr) << m.print();
  EXPECT_EQ(m.name(c->instruction), "fma8v");
  EXPECT_EQ(m.name(c->finisher), "hsum8");
  ASSERT_EQ(c->laneReduced, 0);
  EXPECT_EQ(c->bindings[0].stmtIndices, std::vector<int>{2});    // i on k
  EXPECT_EQ(c->bindings[0].remainder, mapping::Remainder::Mask); // 13 = 8 + 5
  EXPECT_EQ(c->loops, (std::vector<int>{0, 1}));
  EXPECT_EQ(c->finisherCount, 7 * 3); // one fold per element of C
  EXPECT_EQ(c->instructionCount, 7 * 3 * 2);
  // A is read along its rows: no pack; B's column is strided (N = 3): packed; the accumulator is
  // a register temporary of its own, never packed.
  for (const auto &o : c->operands)
    EXPECT_EQ(o.needsPack, o.operand == "b") << o.operand;
  EXPECT_TRUE(mapping::verify(m.result, m.kernel, m.target).empty())
      << messages(mapping::verify(m.result, m.kernel, m.target));
  std::string text = m.print();
  EXPECT_NE(text.find("fma8v  i<-(k) mask across lanes, then hsum8  loops m,n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("note: each result element accumulates 8 lanes, folded by hsum8 (21 calls)"),
            std::string::npos)
      << text;
}

TEST(LaneReduction, TheFinisherIsCountedInTheEstimate) {
  auto m = mapOne(R"(
kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) { C[m, n] += A[m, k] * B[k, n]; }
instance g = gemm<7, 1, 13>;
)",
                  "vec");
  const auto *c = m.laneReduced();
  ASSERT_NE(c, nullptr);
  for (const auto &o : c->operands)
    EXPECT_FALSE(o.needsPack) << o.operand; // nothing else to charge
  // 14 fma8v at one per cycle and latency 1, 7 folds at a quarter per cycle and latency 10.
  EXPECT_DOUBLE_EQ(c->cycles, 14.0 + 1 + 7 * 4.0 + 10);
}

TEST(LaneReduction, MaxReductionNeedsAMaxFinisher) {
  auto m = mapOne(R"(
kernel rowmax<M, K>(A: f32[M, K]) -> (y: f32[M]) { y[m] max= A[m, k]; }
instance r = rowmax<5, 16>;
)",
                  "vec");
  const auto *c = m.laneReduced();
  ASSERT_NE(c, nullptr) << m.print();
  EXPECT_EQ(m.name(c->instruction), "maxacc8");
  EXPECT_EQ(m.name(c->finisher), "hmax8");
  EXPECT_EQ(c->bindings[0].remainder, mapping::Remainder::Exact);
  for (const auto &x : m.result.candidates)
    EXPECT_NE(m.name(x.instruction), "addacc8") << m.print();
}

TEST(LaneReduction, RowSumOnTheAccumulatingAdd) {
  auto m = mapOne(R"(
kernel rowsum<M, K>(A: f32[M, K]) -> (y: f32[M]) { y[m] += A[m, k]; }
instance r = rowsum<5, 19>;
)",
                  "vec");
  const auto *c = m.laneReduced();
  ASSERT_NE(c, nullptr) << m.print();
  EXPECT_EQ(m.name(c->instruction), "addacc8");
  EXPECT_EQ(m.name(c->finisher), "hsum8");
  EXPECT_EQ(c->finisherCount, 5);
}

TEST(LaneReduction, NoFinisherNoLaneReduction) {
  auto m = mapOne(kGemv, "nofold");
  EXPECT_EQ(m.laneReduced(), nullptr) << m.print();
  auto n = mapOne(kGemv, "narrow"); // hsum4 folds 4 lanes, fma8v has 8
  EXPECT_EQ(n.laneReduced(), nullptr) << n.print();
}

TEST(LaneReduction, ABroadcastOperandCannotCarryTheReduction) {
  // fma8's b is one element for all lanes: x[k] varies along the lanes, so k cannot go there.
  auto m = mapOne(kGemv, "vec");
  for (const auto &c : m.result.candidates)
    if (m.name(c.instruction) == "fma8") {
      EXPECT_LT(c.laneReduced, 0) << m.print();
    }
}

TEST(LaneReduction, VerifierChecksTheFinisher) {
  auto m = mapOne(kGemv, "vec");
  const auto *found = m.laneReduced();
  ASSERT_NE(found, nullptr);
  auto verify = [&](const mapping::Candidate &c) {
    return messages(mapping::verify(c, m.kernel, 0, m.target));
  };
  mapping::Candidate c = *found;
  EXPECT_EQ(verify(c), "");
  c.finisherCount = 3;
  EXPECT_NE(verify(c).find("counts 3 finisher calls for 21 result elements"), std::string::npos)
      << verify(c);
  c = *found;
  c.finisher = int(m.target.instruction("fma8") - m.target.instructions.data());
  EXPECT_NE(verify(c).find("its finisher 'fma8' does not fold 8 lanes into one element with +="),
            std::string::npos)
      << verify(c);
  c = *found;
  c.finisher = -1;
  EXPECT_NE(verify(c).find("its finisher #-1 is not an instruction"), std::string::npos)
      << verify(c);
  c = *found;
  c.laneReduced = -1; // then i on k is a reduction bound to a write index, and a stray finisher
  EXPECT_NE(verify(c).find("does not reduce but is bound to statement index 'k'"),
            std::string::npos)
      << verify(c);
  EXPECT_NE(verify(c).find("has a finisher but is not lane-reduced"), std::string::npos)
      << verify(c);
}

// ---- schedules --------------------------------------------------------------------------------

TEST(LaneReductionSchedule, InterpreterMatchesTheReferenceOnOddSizes) {
  for (const char *target : {"x86_avx512", "x86_avx2", "arm_neon", "riscv_rvv"})
    for (const char *instance :
         {"gemv_odd", "n2", "n3", "n5", "k7", "long_k", "rowmax_odd", "rowsum_odd"}) {
      SCOPED_TRACE(std::string(instance) + " on " + target);
      auto r = laneSchedule(kShapes, target, instance);
      ASSERT_TRUE(r.found);
      EXPECT_TRUE(schedule::verify(r.schedule, r.kernel, r.target, r.mappings).empty())
          << messages(schedule::verify(r.schedule, r.kernel, r.target, r.mappings)) << r.text();
      for (uint64_t seed : {1, 2}) {
        interp::Buffers inputs = interp::randomInputs(r.kernel, seed);
        interp::Buffers ref = inputs, got = inputs;
        interp::run(r.kernel, ref);
        schedule::execute(r.schedule, r.kernel, r.target, got);
        auto cmp = interp::compareOutputs(r.kernel, ref, got);
        EXPECT_TRUE(std::isfinite(cmp.maxAbsError)) << r.text();
        EXPECT_LE(cmp.maxRelError, interp::tolerance(r.kernel)) << r.text();
      }
    }
}

TEST(LaneReductionSchedule, TheRegisterTileHoldsLanesAndIsFoldedAfter) {
  auto r = laneSchedule(kShapes, "x86_avx512", "n3");
  ASSERT_TRUE(r.found);
  const auto &ss = r.schedule.statements.at(0);
  EXPECT_EQ(r.target.instructions[size_t(ss.config.finisher)].name, "hsum16");
  int laneBuffers = 0;
  for (const auto &b : ss.buffers)
    if (b.lanes > 0) {
      ++laneBuffers;
      EXPECT_EQ(b.lanes, 16);
      EXPECT_EQ(b.memory, "ZMM");
    }
  EXPECT_EQ(laneBuffers, 1);
  std::string text = r.text();
  EXPECT_NE(text.find("mapping: fma16v (k x16 across lanes, then hsum16)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("stage C@ZMM <- C[m, n] x16 lanes from 0, folded by hsum16 after"),
            std::string::npos)
      << text;
}

TEST(LaneReductionSchedule, TheCostCountsTheFolds) {
  auto r = laneSchedule(kShapes, "x86_avx512", "long_k");
  ASSERT_TRUE(r.found);
  const auto &ss = r.schedule.statements.at(0);
  const hw::Instruction &fma = r.target.instructions[size_t(ss.config.instruction)];
  const hw::Instruction &fold = r.target.instructions[size_t(ss.config.finisher)];
  double calls = schedule::callCount(ss.config);
  // At least one fold per element of y, at the finisher's rate, besides the FMAs.
  double cores = ss.config.parallel >= 0 ? double(r.target.cores) : 1;
  EXPECT_GE(ss.cost.computeCycles * cores,
            calls / fma.cost.perCycle + 11 / fold.cost.perCycle - 1e-9);
}

TEST(LaneReductionSchedule, VerifierWantsTheLanesWhereTheFinisherFolds) {
  auto r = laneSchedule(kShapes, "x86_avx512", "n3");
  ASSERT_TRUE(r.found);
  auto ss = r.schedule.statements.at(0);
  for (auto &b : ss.buffers)
    if (b.lanes > 0)
      b.lanes = 8;
  EXPECT_NE(messages(schedule::verify(ss, r.kernel, r.target, r.mappings.at(0)))
                .find("holds 8 lanes per element where the finisher folds 16"),
            std::string::npos);
  ss = r.schedule.statements.at(0);
  ss.config.finisher = -1;
  EXPECT_NE(messages(schedule::verify(ss, r.kernel, r.target, r.mappings.at(0)))
                .find("the Config's finisher is #-1 but its mapping's is #"),
            std::string::npos);
}

// An accelerator (no LLVM triple) that states a horizontal sum: the mapper finds the
// lane-reduced mapping, but the scheduler does not choose it (the accelerator emitter has no
// op that folds a tile's lanes), and a pin on it says why.
TEST(LaneReductionSchedule, AcceleratorsDoNotScheduleThemYet) {
  const std::string accel = R"(
target lanes {
  clock 1 GHz;
  memory DRAM { size 1 GiB; bandwidth 16 B/cycle; }
  memory SPAD : DRAM { size 64 KiB; }
  move mvin<R>(dst: out f32[R, 8] in SPAD, src: f32[R, 8] in DRAM) { dst[i, j] = src[i, j]; }
  move mvout<R>(dst: out f32[R, 8] in DRAM, src: f32[R, 8] in SPAD) { dst[i, j] = src[i, j]; }
  instr vfma8(acc: inout f32[8] in SPAD, a: f32[8] in SPAD, b: f32[8] in SPAD) {
    acc[i] += a[i] * b[i];
  }
  instr hsum8(acc: inout f32 in SPAD, a: f32[8] in SPAD) { acc += a[i]; }
}
kernel gemv<M, K>(A: f32[M, K], x: f32[K]) -> (y: f32[M]) {
  y[m] += A[m, k] * x[k];
  PIN
}
instance v = gemv<5, 24>;
)";
  for (bool pinned : {false, true}) {
    std::string text = accel;
    text.replace(text.find("PIN"), 3, pinned ? "schedule { map vfma8; }" : "");
    auto session = test::analyse(text);
    InstanceSelector selector;
    selector.instance = "v";
    auto ks = session->instances(selector);
    auto t = session->target("lanes");
    ASSERT_EQ(ks.size(), 1u);
    ASSERT_TRUE(t);
    auto mappings = session->mappings(ks[0], *t);
    bool found = false;
    for (const auto &c : mappings.at(0).candidates)
      found = found || c.laneReduced >= 0;
    EXPECT_TRUE(found) << mapping::printMappings(mappings.at(0), ks[0], *t);
    auto ks0 = session->schedule(ks[0], *t);
    ASSERT_EQ(ks0.statements.size(), 1u);
    EXPECT_LT(ks0.statements[0].config.finisher, 0);
    std::string diags;
    for (const auto &d : session->diagnostics().all())
      diags += d.code + ": " + d.message + "\n";
    if (pinned) {
      EXPECT_NE(diags.find("E0701: the pinned instruction 'vfma8' cannot run statement s0: its "
                           "only mappings reduce across lanes, which accelerators do not run yet"),
                std::string::npos)
          << diags;
    } else {
      EXPECT_EQ(diags.find("E07"), std::string::npos) << diags;
    }
  }
}
