// Packs at every cache level, end to end: an input packed into a cache level (a layout change,
// or rows far apart) may be packed at any cache level on its path (Space's pack knob), where
// the LLVM backend lays it out in blocks of the register tile (BLIS's micro-panels). Every
// pack level of every mapping that packs, on odd sizes, is compiled by the JIT and compared
// with the reference interpreter, and checked by the schedule verifier.
#include "backends/llvm/Jit.h"
#include "backends/llvm/NativeBuffers.h"
#include "interp/Interpreter.h"
#include "schedule/CostModel.h"
#include "schedule/Space.h"
#include "schedule/Verify.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <set>

using namespace isam;

namespace {

struct PackCase {
  std::string name, source;
  schedule::Pins pins;
};

void PrintTo(const PackCase &c, std::ostream *os) {
  *os << c.name;
}

// Odd sizes; the reduction walks rows a page or more apart in TN and NT (packed for that), and
// the pinned register tiles of NN put m on the lanes (A packed across its layout).
std::vector<PackCase> packCases() {
  schedule::Pins mOnLanes;
  mOnLanes.tiles["ZMM"] = {{"m", 32}, {"n", 3}};
  return {
      {"nn_m_on_lanes",
       "kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
       "  C[m, n] += A[m, k] * B[k, n];\n}\n"
       "instance g = gemm<77, 29, 53>;\n",
       mOnLanes},
      {"tn_far_rows",
       "kernel gemm_tn<M, N, K>(A: f32[K, M], B: f32[K, N]) -> (C: f32[M, N]) {\n"
       "  C[m, n] += A[k, m] * B[k, n];\n}\n"
       "instance g = gemm_tn<1031, 21, 67>;\n",
       {}},
      {"nt_far_rows",
       "kernel gemm_nt<M, N, K>(A: f32[M, K], B: f32[N, K]) -> (C: f32[M, N]) {\n"
       "  C[m, n] += A[m, k] * B[n, k];\n}\n"
       "instance g = gemm_nt<45, 37, 1029>;\n",
       {}},
  };
}

class PackLevel : public testing::TestWithParam<PackCase> {};

TEST_P(PackLevel, EveryPackLevelMatchesTheReference) {
  const PackCase &pc = GetParam();
  Session session;
  session.loadText(pc.name + ".isam", pc.source);
  auto kernels = session.instances({});
  ASSERT_EQ(kernels.size(), 1u);
  const ir::Kernel &k = kernels[0];
  auto target = session.target("x86_avx512");
  ASSERT_TRUE(target);
  auto jit = backend::Jit::create(*target);
  if (!jit)
    GTEST_SKIP() << llvm::toString(jit.takeError());
  auto maps = session.mappings(k, *target);
  ASSERT_EQ(maps.size(), 1u);
  interp::Buffers inputs = interp::randomInputs(k, 7), ref = inputs;
  interp::run(k, ref);
  std::set<std::string> levelsRun;
  int compiled = 0;
  for (size_t cand = 0; cand < maps[0].candidates.size(); ++cand) {
    if (maps[0].candidates[cand].partial || maps[0].candidates[cand].degenerate)
      continue; // never scheduled
    schedule::Space space(k, *target, maps[0], int(cand), pc.pins);
    if (!space.pinProblems().empty())
      continue;
    schedule::AnalyticalModel model(k, *target, maps[0]);
    size_t nk = space.knobs().size(), packKnobs = 0;
    for (const auto &knob : space.knobs())
      packKnobs += knob.name.rfind("pack ", 0) == 0 ? 1 : 0;
    if (packKnobs == 0)
      continue;
    // A few register-blocked starts, with each pack at each of its levels.
    auto seeds = space.seedPoints();
    for (size_t s = 0; s < seeds.size(); s += 29)
      for (size_t knob = nk - packKnobs; knob < nk; ++knob)
        for (size_t option = 0; option < space.knobs()[knob].options; ++option) {
          std::vector<size_t> point = seeds[s];
          point[knob] = option;
          schedule::Config config = space.decode(point);
          schedule::Cost cost = model.evaluate(config);
          if (!cost.valid)
            continue;
          config.doubleBuffered = cost.doubleBuffered;
          schedule::KernelSchedule ks;
          ks.statements.push_back(schedule::lower(k, *target, maps[0], config, cost));
          std::string text = schedule::printSchedule(ks, k, *target);
          for (const auto &d : schedule::verify(ks, k, *target, maps))
            ADD_FAILURE() << d.message << "\n" << text;
          auto entry = (*jit)->add(k, ks);
          ASSERT_TRUE(bool(entry)) << llvm::toString(entry.takeError()) << "\n" << text;
          backend::NativeBuffers native = backend::toNative(k, inputs);
          (*entry)(native.args.data());
          interp::Buffers got = inputs;
          backend::fromNative(k, native, got);
          auto cmp = interp::compareOutputs(k, ref, got);
          EXPECT_LE(cmp.maxRelError, interp::tolerance(k)) << text;
          for (const auto &b : ks.statements[0].buffers)
            if (config.operands[size_t(b.operand)].staging[size_t(b.level)].kind ==
                schedule::Staging::Kind::Pack)
              levelsRun.insert(b.memory);
          ++compiled;
        }
  }
  EXPECT_GT(compiled, 0);
  // Packs ran at more than the innermost cache level.
  EXPECT_GE(levelsRun.size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Gemm, PackLevel, testing::ValuesIn(packCases()),
                         [](const auto &info) { return info.param.name; });

TEST(PackLevel, APackReusedByManyRegisterTilesMovesOutOfL1) {
  // B of a wide NT GEMM is packed (its rows are far apart); packed at L1, it would be copied
  // again for every register tile of m; the search puts the pack where its tile is reused. (The
  // mapping is pinned: with k on the lanes neither input needs a pack.)
  Session session;
  session.loadText("nt.isam",
                   "kernel gemm_nt<M, N, K>(A: f32[M, K], B: f32[N, K]) -> (C: f32[M, N]) {\n"
                   "  C[m, n] += A[m, k] * B[n, k];\n  schedule { map fma16; }\n}\n"
                   "instance g = gemm_nt<512, 512, 1024>;\n");
  auto kernels = session.instances({});
  ASSERT_EQ(kernels.size(), 1u);
  auto target = session.target("x86_avx512");
  ASSERT_TRUE(target);
  schedule::ScheduleOptions options;
  options.budget.candidates = 3000;
  options.budget.milliseconds = 1e9;
  auto ks = session.schedule(kernels[0], *target, options);
  const auto &ss = ks.statements.at(0);
  std::string text = schedule::printSchedule(ks, kernels[0], *target);
  bool packed = false;
  for (const auto &b : ss.buffers)
    if (ss.config.operands[size_t(b.operand)].staging[size_t(b.level)].kind ==
        schedule::Staging::Kind::Pack) {
      packed = true;
      EXPECT_NE(b.memory, "L1") << text;
    }
  EXPECT_TRUE(packed) << text;
}

// The loops (by virtual index name) that enclose the first Stage node of buffer `buffer`.
bool enclosingLoops(const schedule::Node &n, const schedule::Config &c, int buffer,
                    std::vector<std::string> &loops) {
  if (n.kind == schedule::Node::Kind::Stage && n.buffer == buffer)
    return true;
  if (n.kind == schedule::Node::Kind::Loop)
    loops.push_back(c.vindices[size_t(n.v)].name);
  for (const auto &x : n.body)
    if (enclosingLoops(x, c, buffer, loops))
      return true;
  if (n.kind == schedule::Node::Kind::Loop)
    loops.pop_back();
  return false;
}

TEST(PackLevel, ALargeGemmPacksBOncePerBlockNotOncePerBlockOfRows) {
  // B of a large NN GEMM, packed into L2 inside a loop over m, is copied again for every block
  // of rows from L3, where a copy loop reads at a few lines per latency (kPackLinesInFlight),
  // not at L3's bandwidth: on this repository's x86 host 1024 x 1500 x 2560 spent 12% of its
  // time repacking B, and packing it once above the loop over m ran 10% faster.
  Session session;
  session.loadText("nn.isam",
                   "kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                   "  C[m, n] += A[m, k] * B[k, n];\n}\n"
                   "instance g = gemm<1024, 1500, 2560>;\n");
  auto kernels = session.instances({});
  ASSERT_EQ(kernels.size(), 1u);
  auto target = session.target("x86_avx512");
  ASSERT_TRUE(target);
  auto ks = session.schedule(kernels[0], *target, schedule::ScheduleOptions{});
  const auto &ss = ks.statements.at(0);
  std::string text = schedule::printSchedule(ks, kernels[0], *target);
  int packs = 0;
  for (size_t b = 0; b < ss.buffers.size(); ++b) {
    const auto &p = ss.config.operands[size_t(ss.buffers[b].operand)];
    if (p.staging[size_t(ss.buffers[b].level)].kind != schedule::Staging::Kind::Pack)
      continue;
    ++packs;
    EXPECT_EQ(kernels[0].tensors[size_t(p.tensor)].name, "B") << text;
    std::vector<std::string> loops;
    ASSERT_TRUE(enclosingLoops(ss.root, ss.config, int(b), loops)) << text;
    for (const auto &l : loops)
      EXPECT_NE(l, "m") << text;
  }
  EXPECT_EQ(packs, 1) << text;
}

} // namespace

namespace {

// Whether the schedule of `instance` packs the input tensor named `tensor` anywhere.
bool packs(const std::string &source, const std::string &instance, const std::string &tensor,
           std::string &text) {
  Session session;
  session.loadText("rnn.isam", source);
  auto kernels = session.instances({});
  auto target = session.target("x86_avx512");
  EXPECT_TRUE(target && !kernels.empty());
  if (!target || kernels.empty())
    return false;
  for (const auto &k : kernels) {
    if (k.name != instance)
      continue;
    schedule::ScheduleOptions options;
    options.budget.candidates = 3000;
    options.budget.milliseconds = 1e9;
    auto ks = session.schedule(k, *target, options);
    const auto &ss = ks.statements.at(0);
    text = schedule::printSchedule(ks, k, *target);
    for (const auto &b : ss.buffers) {
      const auto &p = ss.config.operands[size_t(b.operand)];
      if (p.staging[size_t(b.level)].kind == schedule::Staging::Kind::Pack &&
          k.tensors[size_t(p.tensor)].name == tensor)
        return true;
    }
    return false;
  }
  ADD_FAILURE() << "no instance " << instance;
  return false;
}

} // namespace

TEST(PackLevel, ReusedRowsReadAsLongRunsStayInPlace) {
  // An RNN's gate projection: W's rows (4H columns) lie pages apart and the batch's register
  // tiles read each element a few times. An LSTM's W (16 x 2048 x 512) read 256 bytes of each
  // row per register tile: twice in place ran 1.25x faster than a pack's copy. A GRU's W
  // (32 x 4608 x 1536) read 64-128 bytes of a row per tile, three or four times: packed, 1.6x
  // faster than in place; in place with the register loop's prefetch (Prefetch.h), 1.45x
  // faster than packed (gru_1536x32 on this repository's x86 host, Zen 5).
  const std::string source =
      "kernel proj<B, I, H, G>(X: f32[B, I], W: f32[I, G, H]) -> (O: f32[B, G, H]) {\n"
      "  O[b, g, j] += X[b, k] * W[k, g, j];\n}\n"
      "instance lstm = proj<16, 512, 512, 4>;\ninstance gru = proj<32, 1536, 1536, 3>;\n";
  std::string text;
  EXPECT_FALSE(packs(source, "lstm", "W", text)) << text;
  EXPECT_FALSE(packs(source, "gru", "W", text)) << text;
  EXPECT_NE(text.find("prefetch W[k, g, j]"), std::string::npos) << text;
}
