// The cost of statements no instruction runs (schedule/PointwiseCost.h): vector code bound by its
// arithmetic or by the memory its tensors fit in on a native target, divided among the cores of
// its parallel loop, which it gets when that estimate is large enough; the nominal point per
// cycle on a target without a native backend (there it is a step of the host).
#include "schedule/PointwiseCost.h"
#include "driver/Session.h"
#include "schedule/Scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

using namespace isam;

namespace {

struct Scheduled {
  std::unique_ptr<Session> session = std::make_unique<Session>();
  ir::Kernel kernel;
  std::optional<hw::Target> target;
  schedule::KernelSchedule ks;
};

Scheduled scheduleText(const std::string &text, const std::string &targetName) {
  Scheduled s;
  s.session->loadText("test.isam", text);
  std::vector<ir::Kernel> kernels = s.session->instances(InstanceSelector{});
  s.target = s.session->target(targetName);
  EXPECT_FALSE(s.session->diagnostics().hasErrors());
  if (kernels.size() != 1 || !s.target) {
    ADD_FAILURE() << "no kernel or no target " << targetName;
    return s;
  }
  s.kernel = kernels[0];
  schedule::ScheduleOptions options;
  s.ks = s.session->schedule(s.kernel, *s.target, options);
  EXPECT_EQ(s.ks.statements.size(), s.kernel.statements.size());
  return s;
}

bool hasParallelLoop(const schedule::Node &n) {
  if (n.kind == schedule::Node::Kind::Loop && n.parallel)
    return true;
  return std::any_of(n.body.begin(), n.body.end(), hasParallelLoop);
}

// tanh's argument reads two tensors, so no instruction runs an operand of it: scalar code.
const std::string kGates = "kernel gates<B, H>(X: f32[B, H], Z: f32[B, H]) -> (Y: f32[B, H]) {\n"
                           "  Y[b, h] = tanh(X[b, h] + Z[b, h]) * sigmoid(X[b, h]);\n"
                           "}\n";

TEST(PointwiseCost, CountsVectorOperationsPerPoint) {
  Scheduled s = scheduleText(kGates + "instance g = gates<2, 3>;\n", "x86_avx512");
  ASSERT_EQ(s.kernel.statements.size(), 1u);
  // Two polynomial sequences, an add and a multiply.
  EXPECT_DOUBLE_EQ(schedule::vectorOpsPerPoint(s.kernel.statements[0]), 42);
}

TEST(PointwiseCost, ArithmeticBoundCodeIsCostedAsVectorsOnEveryCore) {
  // 64 x 1024 points, 256 KiB per tensor (in L2): 42 operations per point on 16 lanes, shared by
  // the two cores of x86_avx512. Costed at one point per cycle it was 65536 cycles.
  Scheduled s = scheduleText(kGates + "instance g = gates<64, 1024>;\n", "x86_avx512");
  ASSERT_EQ(s.ks.statements.size(), 1u);
  const auto &ss = s.ks.statements[0];
  ASSERT_LT(ss.config.mapping, 0);
  EXPECT_EQ(ss.cost.bound, schedule::Bound::ScalarCode);
  EXPECT_TRUE(hasParallelLoop(ss.root));
  EXPECT_DOUBLE_EQ(ss.cost.cycles, 65536.0 * 42 / 16 / 2);
  EXPECT_DOUBLE_EQ(schedule::pointwiseCycles(s.kernel, *s.target, 0, 1), 65536.0 * 42 / 16);
}

TEST(PointwiseCost, MemoryBoundCodeIsCostedAtTheBandwidthOfWhereItsTensorsFit) {
  // Three 64 MiB tensors stream from DRAM (the whole socket's bandwidth, not per core): 12 bytes
  // per point take longer than an add and an exp per point on 16 lanes and two cores.
  Scheduled s = scheduleText("kernel f<N>(X: f32[N], Z: f32[N]) -> (Y: f32[N]) {\n"
                             "  Y[i] = exp(X[i] + Z[i]);\n"
                             "}\n"
                             "instance a = f<16777216>;\n",
                             "x86_avx512");
  ASSERT_EQ(s.ks.statements.size(), 1u);
  ASSERT_LT(s.ks.statements[0].config.mapping, 0);
  const hw::Memory *dram = nullptr;
  for (const auto &m : s.target->memories)
    if (m.parent < 0)
      dram = &m;
  ASSERT_NE(dram, nullptr);
  ASSERT_GT(dram->bandwidthBytesPerCycle, 0);
  EXPECT_DOUBLE_EQ(s.ks.statements[0].cost.cycles, 16777216.0 * 12 / dram->bandwidthBytesPerCycle);
  EXPECT_TRUE(hasParallelLoop(s.ks.statements[0].root));
}

TEST(PointwiseCost, ShortVectorCodeStaysOnOneThread) {
  // 40000 points used to be parallel by their count; as vector code, a division of them is
  // 15000 cycles, too few to pay for a parallel loop's fork and join.
  Scheduled s = scheduleText("kernel div<N>(X: f32[N]) -> (Y: f32[N]) {\n"
                             "  Y[i] = X[i] / 3;\n"
                             "}\n"
                             "instance a = div<40000>;\n",
                             "x86_avx512");
  ASSERT_EQ(s.ks.statements.size(), 1u);
  ASSERT_LT(s.ks.statements[0].config.mapping, 0);
  EXPECT_LT(s.ks.statements[0].cost.cycles, 40000);
  EXPECT_FALSE(hasParallelLoop(s.ks.statements[0].root));
}

TEST(PointwiseCost, AcceleratorTargetsKeepTheHostStepsNominalCost) {
  // systolic16 has no native backend: the statement is the host's, not costed in its cycles.
  Scheduled s = scheduleText(kGates + "instance g = gates<64, 1024>;\n", "systolic16");
  ASSERT_EQ(s.ks.statements.size(), 1u);
  ASSERT_TRUE(s.target->triple.empty());
  EXPECT_LT(s.ks.statements[0].config.mapping, 0);
  EXPECT_DOUBLE_EQ(s.ks.statements[0].cost.cycles, 65536);
}

} // namespace
