// `isamap run --target` through the real binary: native code compiled in process, checked
// against the reference interpreter (--check), timed (--repeat), on a chosen number of threads
// (--threads), in text and JSON; and the usage and input errors. (`run --interpret` is tested
// with `schedule` in ScheduleCliTest.cpp.)
#include "support/JsonOutput.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <regex>
#include <set>

using namespace isam;

namespace {

const std::string kIsamap = ISAMAP_BINARY;

test::RunResult runCmd(const std::string &args) {
  return test::run(kIsamap + " run " + args);
}

bool has(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

const std::string kGemmSmall = test::samplePath("gemm.isam") + " --instance gemm_small";

// A shipped target for another architecture than this process's, and that architecture's name
// as LLVM spells it.
#if defined(__aarch64__)
const char *const kForeignTarget = "x86_avx2";
const char *const kForeignArch = "x86_64";
#else
const char *const kForeignTarget = "arm_neon";
const char *const kForeignArch = "aarch64";
#endif

} // namespace

TEST(RunNativeCli, CheckPasses) {
  auto r = runCmd(kGemmSmall + " --target host --check");
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out,
      std::regex(
          R"(^gemm_small on host: compiled in [0-9.,]+ (ns|us|ms|s) \(map and schedule )"
          R"([0-9.,]+ (ns|us|ms|s), LLVM [0-9.,]+ (ns|us|ms|s)\); ran 1x on \d+ threads?: best )")))
      << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(\ncheck gemm_small: max abs error \S+, max rel error \S+ )"
                        R"(\(tolerance \S+\) PASS\n)")))
      << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(\n  C: 35 elements, sum \S+, sum\|x\| \S+, first( \S+){8}\n)")))
      << r.out;
  EXPECT_FALSE(has(r.out, "nan")) << r.out;
}

TEST(RunNativeCli, RepeatTimesSeveralRuns) {
  auto r = runCmd(kGemmSmall + " --target host --repeat 3");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out,
      std::regex(
          R"(; ran 3x on \d+ threads?: best [0-9.,]+ (ns|us|ms|s), median [0-9.,]+ (ns|us|ms|s), )"
          R"([0-9.e+,-]+ GFLOP/s)")))
      << r.out;
  auto zero = runCmd(kGemmSmall + " --target host --repeat 0");
  EXPECT_EQ(zero.exitCode, 2) << zero.out;
}

TEST(RunNativeCli, ThreadsOption) {
  for (int threads : {1, 2, 3}) {
    auto r = runCmd(kGemmSmall + " --target host --check --threads " + std::to_string(threads));
    ASSERT_EQ(r.exitCode, 0) << threads << ": " << r.out << r.err;
    std::string word = threads == 1 ? " thread:" : " threads:";
    EXPECT_TRUE(has(r.out, "on " + std::to_string(threads) + word)) << r.out;
    EXPECT_TRUE(has(r.out, ") PASS\n")) << r.out;
  }
  // The environment variable, when no --threads is given.
  auto env = test::run("ISAMAP_NUM_THREADS=3 " + kIsamap + " run " + kGemmSmall +
                       " --target host --check --format=json");
  ASSERT_EQ(env.exitCode, 0) << env.err;
  EXPECT_EQ(test::instancesOf(env.out)[0]["threads"], 3) << env.out;
  auto zero = runCmd(kGemmSmall + " --target host --threads 0");
  EXPECT_EQ(zero.exitCode, 2) << zero.out;
}

// The schedule is made for the threads the code runs on: one thread, one core's schedule and
// one core's estimate (twice the cycles of two cores' parallel loop), from --threads or from
// ISAMAP_NUM_THREADS.
TEST(RunNativeCli, SchedulesForTheThreadsItRunsOn) {
  auto cycles = [](const std::string &text) {
    std::smatch m;
    return std::regex_search(text, m, std::regex(R"(cost: ([0-9,]+) cycles)"))
               ? std::stod(std::regex_replace(m[1].str(), std::regex(","), ""))
               : 0.0;
  };
  std::string gemm = test::samplePath("gemm.isam") +
                     " --instance gemm_1760x128x1760 --target host --print-after=schedule";
  auto two = runCmd(gemm + " --threads 2");
  ASSERT_EQ(two.exitCode, 0) << two.err;
  if (!has(two.err, "parallel over 2 cores"))
    GTEST_SKIP() << "this machine has one core";
  auto one = runCmd(gemm + " --threads 1");
  ASSERT_EQ(one.exitCode, 0) << one.err;
  EXPECT_FALSE(has(one.err, "parallel over 2 cores")) << one.err;
  EXPECT_TRUE(has(one.out, "on 1 thread:")) << one.out;
  ASSERT_GT(cycles(two.err), 0) << two.err;
  EXPECT_GT(cycles(one.err), 1.5 * cycles(two.err)) << one.err << two.err;
  auto env = test::run("ISAMAP_NUM_THREADS=1 " + kIsamap + " run " + gemm);
  ASSERT_EQ(env.exitCode, 0) << env.err;
  EXPECT_EQ(cycles(env.err), cycles(one.err)) << env.err;
  // `schedule` (and `compile`) make the same schedule when told the threads.
  auto scheduled = test::run(kIsamap + " schedule " + test::samplePath("gemm.isam") +
                             " --instance gemm_1760x128x1760 --target host --threads 1");
  ASSERT_EQ(scheduled.exitCode, 0) << scheduled.err;
  EXPECT_EQ(cycles(scheduled.out), cycles(one.err)) << scheduled.out;
}

TEST(RunNativeCli, JsonHasTheCheckAndTheTimes) {
  auto r = runCmd(kGemmSmall + " --target host --check --repeat 2 --threads 2 --format=json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = test::instancesOf(r.out)) << r.out;
  ASSERT_TRUE(j.is_array()) << r.out;
  ASSERT_EQ(j.size(), 1u);
  const auto &o = j[0];
  EXPECT_EQ(o["instance"], "gemm_small");
  EXPECT_EQ(o["seed"], 1);
  EXPECT_EQ(o["threads"], 2);
  ASSERT_TRUE(o["check"].is_object()) << r.out;
  EXPECT_EQ(o["check"]["passed"], true);
  EXPECT_LE(o["check"]["maxRelError"].get<double>(), o["check"]["tolerance"].get<double>());
  EXPECT_GT(o["check"]["tolerance"].get<double>(), 0);
  ASSERT_TRUE(o["gflops"].is_number()) << r.out;
  EXPECT_GT(o["gflops"].get<double>(), 0);
  EXPECT_EQ(o["milliseconds"]["runs"], 2);
  EXPECT_LE(o["milliseconds"]["best"].get<double>(), o["milliseconds"]["median"].get<double>());
  for (const char *k : {"schedule", "llvm", "llvmGenerate", "llvmOptimize", "llvmMachineCode"})
    EXPECT_TRUE(o["compileMilliseconds"][k].is_number()) << k << "\n" << r.out;
  ASSERT_EQ(o["outputs"].size(), 1u);
  EXPECT_EQ(o["outputs"][0]["tensor"], "C");
  EXPECT_EQ(o["outputs"][0]["elements"], 35);
  // Without --check, no check.
  auto plain = runCmd(kGemmSmall + " --target host --format=json");
  ASSERT_EQ(plain.exitCode, 0) << plain.err;
  EXPECT_FALSE(test::instancesOf(plain.out)[0].contains("check")) << plain.out;
}

TEST(RunNativeCli, NativeOutputsAgreeWithTheInterpreter) {
  // The same seeded inputs through both: the printed outputs agree within a tolerance.
  std::string args = test::samplePath("lstm.isam") +
                     " --kernel lstm_cell -D B=2 -D I=5 -D H=7 --seed 9 --show 100 --format=json";
  auto native = runCmd(args + " --target host");
  auto interpreted = runCmd(args + " --interpret");
  ASSERT_EQ(native.exitCode, 0) << native.err;
  ASSERT_EQ(interpreted.exitCode, 0) << interpreted.err;
  auto n = test::instancesOf(native.out)[0]["outputs"];
  auto i = test::instancesOf(interpreted.out)[0]["outputs"];
  ASSERT_EQ(n.size(), 2u);
  ASSERT_EQ(i.size(), 2u);
  std::set<std::string> tensors;
  for (size_t t = 0; t < 2; ++t) {
    ASSERT_EQ(n[t]["tensor"], i[t]["tensor"]);
    tensors.insert(n[t]["tensor"].get<std::string>());
    ASSERT_EQ(n[t]["first"].size(), 14u);
    ASSERT_EQ(i[t]["first"].size(), 14u);
    for (size_t e = 0; e < 14; ++e)
      EXPECT_NEAR(n[t]["first"][e].get<double>(), i[t]["first"][e].get<double>(), 1e-5)
          << n[t]["tensor"] << "[" << e << "]";
  }
  EXPECT_EQ(tensors, (std::set<std::string>{"Hn", "Cn"}));
}

TEST(RunNativeCli, EveryInstanceOfAFile) {
  std::string file =
      test::tempFile("run-cli", "two.isam",
                     "kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                     "  C[m, n] += A[m, k] * B[k, n];\n"
                     "}\n"
                     "instance g1 = gemm<3, 4, 5>;\n"
                     "instance g2 = gemm<11, 1, 7>;\n");
  auto r = runCmd(file + " --target host --check");
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\ncheck g1: .* PASS\n)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\ncheck g2: .* PASS\n)"))) << r.out;
}

TEST(RunNativeCli, UsageErrors) {
  auto neither = runCmd(kGemmSmall);
  EXPECT_EQ(neither.exitCode, 2);
  EXPECT_TRUE(has(neither.err, "--interpret")) << neither.err;
  EXPECT_TRUE(has(neither.err, "--target")) << neither.err;
  auto checkAlone = runCmd(kGemmSmall + " --check");
  EXPECT_EQ(checkAlone.exitCode, 2);
  EXPECT_TRUE(has(checkAlone.err, "--target")) << checkAlone.err;
  auto checkInterpret = runCmd(kGemmSmall + " --interpret --check");
  EXPECT_EQ(checkInterpret.exitCode, 2);
  auto repeatAlone = runCmd(kGemmSmall + " --interpret --repeat 3");
  EXPECT_EQ(repeatAlone.exitCode, 2);
  auto threadsAlone = runCmd(kGemmSmall + " --interpret --threads 2");
  EXPECT_EQ(threadsAlone.exitCode, 2);
  auto both = runCmd(kGemmSmall + " --interpret --target host");
  EXPECT_EQ(both.exitCode, 2);
  EXPECT_TRUE(has(both.err, "excludes")) << both.err;
}

TEST(RunNativeCli, ForeignArchitectureWithoutCrossToolsIsAnInputError) {
  // With the cross tools and qemu-user the run is emulated (CrossRunCliTest); without them (an
  // empty PATH) it is an input error that names the architecture and the target.
  auto r = test::run("PATH=/nonexistent " + kIsamap + " run " + kGemmSmall + " --target " +
                     kForeignTarget + " --check");
  EXPECT_EQ(r.exitCode, 1) << r.out;
  EXPECT_TRUE(has(r.err, kForeignArch)) << r.err;
  EXPECT_TRUE(has(r.err, kForeignTarget)) << r.err;
  EXPECT_FALSE(has(r.out, "PASS")) << r.out;
}

TEST(RunNativeCli, InputErrors) {
  auto unknownTarget = runCmd(kGemmSmall + " --target hots");
  EXPECT_EQ(unknownTarget.exitCode, 1);
  EXPECT_TRUE(has(unknownTarget.err, "unknown target 'hots'")) << unknownTarget.err;
  auto unknownInstance =
      runCmd(test::samplePath("gemm.isam") + " --instance gemm_smal --target host");
  EXPECT_EQ(unknownInstance.exitCode, 1);
  EXPECT_TRUE(has(unknownInstance.err, "did you mean 'gemm_small'?")) << unknownInstance.err;
}

TEST(RunNativeCli, InstanceNamedLikeALibraryFunctionDoesNotCrash) {
  // The generated code calls getenv and atoi (ISAMAP_NUM_THREADS) and libm (expf, tanhf): an
  // instance of one of those names must run right or be refused with a message naming it,
  // never take the place of the function its own code calls.
  std::string file =
      test::tempFile("run-cli", "clash.isam",
                     "kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                     "  C[m, n] += A[m, k] * B[k, n];\n"
                     "}\n"
                     "kernel e<N>(X: f32[N]) -> (Y: f32[N]) { Y[i] = exp(X[i]) + tanh(X[i]); }\n"
                     "instance getenv = gemm<3, 4, 5>;\n"
                     "instance atoi = gemm<5, 4, 3>;\n"
                     "instance expf = e<37>;\n");
  // --threads sets ISAMAP_NUM_THREADS, which the code then parses (with atoi).
  for (const char *name : {"getenv", "atoi", "expf"}) {
    auto r = runCmd(file + " --target host --check --threads 2 --instance " + name);
    if (r.exitCode >= 128) {
      ADD_FAILURE() << "BUG: `isamap run " << file << " --target host --check --threads 2 "
                    << "--instance " << name << "` crashed (signal " << r.exitCode - 128 << ")";
    } else if (r.exitCode == 0) {
      EXPECT_TRUE(has(r.out, ") PASS\n")) << r.out;
    } else {
      EXPECT_EQ(r.exitCode, 1);
      EXPECT_TRUE(has(r.err, name)) << r.err;
    }
  }
}

// An instance too large for this machine: said before anything is allocated, exit 1 (it was an
// abort on std::length_error or std::bad_alloc, exit 134). 2^20-cubed GEMM: 4 TiB per tensor.
TEST(RunCli, InstanceTooLargeForThisMachineSaysWhatItNeeds) {
  std::string big =
      test::samplePath("gemm.isam") + " --kernel gemm -D M=1048576 -D N=1048576 -D K=1048576 ";
  for (const char *how : {"--interpret", "--target host", "--target host --check"}) {
    auto r = test::run(kIsamap + " run " + big + how);
    EXPECT_EQ(r.exitCode, 1) << how << ": " << r.err;
    EXPECT_NE(r.err.find("isamap run: gemm needs "), std::string::npos) << how << ": " << r.err;
    EXPECT_NE(r.err.find(" TiB, more than the "), std::string::npos) << how << ": " << r.err;
  }
  // Under a 2 GiB address-space limit, 3 x 2^28 f32 elements (as doubles: 6 GiB) do not fit
  // either, though this machine may have the memory: the limit counts.
  auto limited =
      test::run("ulimit -v 2097152; " + kIsamap + " run " + test::samplePath("gemm.isam") +
                " --kernel gemm -D M=16384 -D N=16384 -D K=16384 --interpret");
  EXPECT_EQ(limited.exitCode, 1) << limited.err;
  EXPECT_NE(limited.err.find("more than the 2 GiB of memory available"), std::string::npos)
      << limited.err;
}

// The tensors exceed systolic16's described 4 GiB DRAM: refused before they are allocated or
// scheduled, as compile refuses them.
TEST(RunCli, TensorsBeyondAnAcceleratorsDramAreRefusedFirst) {
  auto r = test::run("ulimit -v 4194304; " + kIsamap + " run " + test::samplePath("gemm.isam") +
                     " --kernel gemm -D M=65536 -D N=65536 -D K=65536 --target systolic16");
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.err.find("gemm on systolic16: the tensors need 17179869184 B of DRAM's 4294967296"),
            std::string::npos)
      << r.err;
}

// Through a pipe, each instance's result is on stdout as soon as it is known: a CI log shows it
// while the next instance runs. The second instance here runs for minutes in the point
// interpreter; the command is killed after 4 s, so whatever stdio still buffered would be lost.
TEST(RunCli, StdoutIsLineBufferedThroughAPipe) {
  std::string file = test::tempFile("run-cli", "pipe.isam",
                                    "kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> "
                                    "(C: f32[M, N]) {\n"
                                    "  C[m, n] += A[m, k] * B[k, n];\n"
                                    "}\n"
                                    "instance a_small = gemm<3, 4, 5>;\n"
                                    "instance b_huge = gemm<2000, 2000, 2000>;\n");
  auto r = test::run("(timeout -s KILL 4 " + kIsamap + " run " + file +
                     " --interpret --reference points; true) | cat");
  EXPECT_NE(r.out.find("a_small: interpreted"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.out.find("b_huge: interpreted"), std::string::npos) << r.out;
}

// ---- the reference: rows or points, and its progress ------------------------------------------

TEST(RunReferenceCli, RowsAndPointsGiveTheSameOutputs) {
  // mlp_small has three statements: bias broadcasts (lanes over a written index) and GEMMs.
  std::string mlp = test::samplePath("mlp.isam") + " --instance mlp_small --seed 5 --interpret";
  auto rows = runCmd(mlp + " --format=json");
  auto points = runCmd(mlp + " --reference points --format=json");
  ASSERT_EQ(rows.exitCode, 0) << rows.err;
  ASSERT_EQ(points.exitCode, 0) << points.err;
  auto r = test::instancesOf(rows.out), p = test::instancesOf(points.out);
  ASSERT_EQ(r.size(), 1u) << rows.out;
  EXPECT_EQ(r[0]["outputs"], p[0]["outputs"]);
  auto checked = runCmd(kGemmSmall + " --target host --check --reference points");
  EXPECT_EQ(checked.exitCode, 0) << checked.out << checked.err;
  EXPECT_TRUE(has(checked.out, ") PASS\n")) << checked.out;
  auto bad = runCmd(kGemmSmall + " --interpret --reference fast");
  EXPECT_EQ(bad.exitCode, 2) << bad.out;
  EXPECT_TRUE(has(bad.err, "--reference")) << bad.err;
}

TEST(RunReferenceCli, ProgressOnStderrWhenAskedAndOnlyThen) {
  auto quiet = runCmd(kGemmSmall + " --target host --check");
  ASSERT_EQ(quiet.exitCode, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "") << "a short check shows no progress";
  auto shown = test::run("ISAMAP_PROGRESS=always " + kIsamap + " run " + kGemmSmall +
                         " --target host --check");
  ASSERT_EQ(shown.exitCode, 0) << shown.err;
  EXPECT_TRUE(std::regex_search(
      shown.err, std::regex(R"(^gemm_small reference run: 100% done in [0-9.,]+ (ns|us|ms|s)\n$)")))
      << shown.err;
  auto never = test::run("ISAMAP_PROGRESS=never " + kIsamap + " schedule " + kGemmSmall +
                         " --target host --check");
  ASSERT_EQ(never.exitCode, 0) << never.err;
  EXPECT_EQ(never.err, "");
  auto schedule = test::run("ISAMAP_PROGRESS=always " + kIsamap + " schedule " + kGemmSmall +
                            " --target host --check");
  ASSERT_EQ(schedule.exitCode, 0) << schedule.err;
  EXPECT_TRUE(has(schedule.err, "gemm_small schedule-IR run: 100% done in ")) << schedule.err;
  EXPECT_TRUE(has(schedule.err, "gemm_small reference run: 100% done in ")) << schedule.err;
}
