// The pipeline (pipeline/): the executor chosen once per target, every executor computing what
// the reference interpreter computes through the same stages, the thread count passed as an
// argument, and --print-after's stage names and printing.
#include "pipeline/Pipeline.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

using namespace isam;
using pipeline::ExecutorKind;
using pipeline::Stage;

namespace {

std::optional<hw::Target> shipped(const std::string &name) {
  Session session;
  session.loadText("t.isam", "");
  return session.target(name);
}

// gemm_small through parse, sema, mapping and schedule for `target`.
struct Through {
  Session session;
  std::ostringstream printed;
  std::unique_ptr<pipeline::Pipeline> p;
  std::vector<ir::Kernel> kernels;
  std::optional<pipeline::Scheduled> scheduled;

  explicit Through(const std::string &target, std::set<Stage> print = {}) {
    pipeline::Options o;
    o.target = target;
    o.printAfter = std::move(print);
    o.printTo = &printed;
    p = std::make_unique<pipeline::Pipeline>(session, o);
    EXPECT_TRUE(p->parse(test::samplePath("gemm.isam")));
    kernels = p->instantiate({"gemm_small", "", {}});
    EXPECT_EQ(kernels.size(), 1u);
    if (!target.empty() && kernels.size() == 1) {
      scheduled = p->schedule(kernels[0]);
      EXPECT_TRUE(scheduled);
    }
  }
};

} // namespace

TEST(Pipeline, TheExecutorIsChosenByTheTargetAlone) {
  EXPECT_EQ(pipeline::executorFor(nullptr), ExecutorKind::Interpreter);
  auto host = shipped("host"), accel = shipped("systolic16");
  ASSERT_TRUE(host && accel);
  EXPECT_EQ(pipeline::executorFor(&*host), ExecutorKind::Jit);
  EXPECT_EQ(pipeline::executorFor(&*accel), ExecutorKind::Simulator);
#if defined(__x86_64__)
  auto foreign = shipped("arm_neon");
#else
  auto foreign = shipped("x86_avx2");
#endif
  ASSERT_TRUE(foreign);
  EXPECT_EQ(pipeline::executorFor(&*foreign), ExecutorKind::Cross);
}

TEST(Pipeline, EveryExecutorComputesWhatTheInterpreterDoes) {
  for (const std::string target : {"", "host", "systolic16"}) {
    SCOPED_TRACE(target.empty() ? "interpreter" : target);
    Through t(target);
    ASSERT_EQ(t.kernels.size(), 1u);
    const ir::Kernel &k = t.kernels[0];
    auto executor = t.p->executor();
    ASSERT_TRUE(bool(executor)) << llvm::toString(executor.takeError());
    EXPECT_EQ((*executor)->kind(), pipeline::executorFor(t.p->target()));
    interp::Buffers ref = interp::randomInputs(k, 3), got = ref;
    interp::run(k, ref);
    pipeline::RunOptions options;
    options.repeat = 2;
    auto ran = (*executor)->run(k, t.scheduled ? &t.scheduled->schedule : nullptr, got, options);
    ASSERT_TRUE(bool(ran)) << llvm::toString(ran.takeError());
    auto cmp = interp::compareOutputs(k, ref, got);
    EXPECT_LE(cmp.maxRelError, interp::tolerance(k));
    if ((*executor)->kind() == ExecutorKind::Jit) {
      EXPECT_EQ(ran->milliseconds.size(), 2u);
      EXPECT_GT(ran->llvm.generateMs + ran->llvm.optimizeMs + ran->llvm.machineCodeMs, 0);
    }
    EXPECT_EQ(ran->simulation.has_value(), (*executor)->kind() == ExecutorKind::Simulator);
  }
}

TEST(Pipeline, TheThreadCountIsTheCallersFirst) {
  auto host = shipped("host");
  ASSERT_TRUE(host);
  auto executor = pipeline::Executor::create(&*host);
  ASSERT_TRUE(bool(executor)) << llvm::toString(executor.takeError());
  const char *old = std::getenv("ISAMAP_NUM_THREADS");
  std::string saved = old ? old : "";
  setenv("ISAMAP_NUM_THREADS", "5", 1);
  EXPECT_EQ((*executor)->threads(3), 3u);
  EXPECT_EQ((*executor)->threads(0), 5u);
  unsetenv("ISAMAP_NUM_THREADS");
  EXPECT_EQ((*executor)->threads(0), std::max(1u, host->cores));
  if (old)
    setenv("ISAMAP_NUM_THREADS", saved.c_str(), 1);
}

TEST(Pipeline, AnAcceleratorAdmitsOnlyWhatItsMemoryHolds) {
  auto accel = shipped("systolic16");
  ASSERT_TRUE(accel);
  auto executor = pipeline::Executor::create(&*accel);
  ASSERT_TRUE(bool(executor));
  Session session;
  session.loadText("big.isam", "kernel g<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) "
                               "{ C[m, n] += A[m, k] * B[k, n]; }\n"
                               "instance big = g<65536, 65536, 65536>;\n");
  auto kernels = session.instances({});
  ASSERT_EQ(kernels.size(), 1u);
  llvm::Error e = (*executor)->admit(kernels[0]);
  ASSERT_TRUE(bool(e));
  EXPECT_NE(llvm::toString(std::move(e)).find("big on systolic16: "), std::string::npos);
}

TEST(Pipeline, StagesPrintWhereAskedAndOnlyThose) {
  Through t("host", {Stage::Schedule});
  ASSERT_TRUE(t.scheduled);
  EXPECT_EQ(t.printed.str(),
            "// ---- after schedule: gemm_small on host ----\n" +
                schedule::printSchedule(t.scheduled->schedule, t.kernels[0], *t.p->target()));
  Through none("host");
  EXPECT_EQ(none.printed.str(), "");
}

TEST(Pipeline, PrintAfterNamesTheStagesInOrder) {
  std::string error;
  auto all = pipeline::parsePrintAfter({"asm,parse", "schedule"}, Stage::Asm, "run", error);
  ASSERT_TRUE(all) << error;
  EXPECT_EQ(*all, (std::set<Stage>{Stage::Parse, Stage::Schedule, Stage::Asm}));
  EXPECT_EQ(pipeline::stageNames(), "parse, sema, mapping, schedule, llvm-ir, asm");
  for (Stage s : pipeline::kStages)
    EXPECT_EQ(pipeline::stageNamed(pipeline::stageName(s)), s);
  EXPECT_FALSE(pipeline::parsePrintAfter({"llvm-ir"}, Stage::Schedule, "schedule", error));
  EXPECT_EQ(error, "--print-after=llvm-ir: schedule stops after schedule; the stages of schedule "
                   "are parse, sema, mapping, schedule");
  EXPECT_FALSE(pipeline::parsePrintAfter({"ir"}, Stage::Asm, "run", error));
  EXPECT_NE(error.find("'ir' is not a stage"), std::string::npos) << error;
}
