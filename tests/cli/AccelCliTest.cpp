// The accelerator through the real binary: `isamap run --target systolic16 --check` on every
// sample's small instances, its JSON report (cycles, utilization, bytes per memory, the trace's
// path) and trace file, `isamap compile --emit=asm|stream` for systolic16, the description
// variants found with -I, and the usage errors.
#include "support/JsonOutput.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using namespace isam;
namespace fs = std::filesystem;

namespace {

const std::string kIsamap = ISAMAP_BINARY;

bool has(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

test::RunResult isamap(const std::string &args) {
  return test::run(kIsamap + " " + args);
}

std::string gemm() {
  return test::samplePath("gemm.isam");
}

} // namespace

TEST(AccelCli, EverySmallSampleInstancePassesOnTheSimulator) {
  auto instances = test::smallSampleInstances();
  ASSERT_GE(instances.size(), 20u);
  for (const auto &[file, instance] : instances) {
    auto r = isamap("run " + file + " --instance " + instance +
                    " --target systolic16 --check --format=json");
    ASSERT_EQ(r.exitCode, 0) << instance << ":\n" << r.out << r.err;
    auto result = test::instancesOf(r.out).at(0);
    EXPECT_EQ(result["check"]["passed"], true) << instance << ": " << result["check"].dump();
    EXPECT_EQ(result["simulator"], "isamap accel") << instance;
  }
}

TEST(AccelCli, JsonReportsCyclesUtilizationBytesAndTrace) {
  std::string trace = test::tempFile("accelcli", "t.json", "");
  fs::remove(trace);
  auto r = isamap("run " + gemm() +
                  " --kernel gemm -D M=64 -D N=48 -D K=40 --target systolic16 "
                  "--check --format=json --trace " +
                  trace);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  auto result = test::instancesOf(r.out).at(0);
  EXPECT_GT(result["cycles"].get<double>(), 0);
  double utilization = result["utilization"].get<double>();
  EXPECT_GT(utilization, 0);
  EXPECT_LE(utilization, 1);
  EXPECT_GT(result["estimatedCycles"].get<double>(), 0);
  EXPECT_TRUE(result.contains("costModelError"));
  for (const char *m : {"DRAM", "SPAD", "ACC"})
    EXPECT_TRUE(result["bytes"].contains(m)) << m;
  // A, B and C are read from DRAM; C is written back to it.
  EXPECT_GE(result["bytes"]["DRAM"]["out"].get<uint64_t>(), uint64_t(64 * 40 + 40 * 48) * 4);
  EXPECT_GE(result["bytes"]["DRAM"]["in"].get<uint64_t>(), uint64_t(64 * 48) * 4);
  EXPECT_EQ(result["trace"], trace);
  auto doc = nlohmann::json::parse(test::readFile(trace));
  EXPECT_GT(doc["traceEvents"].size(), 40u);
  EXPECT_EQ(result["check"]["passed"], true);
}

TEST(AccelCli, TextReportNamesCyclesAndTheCostModel) {
  auto r = isamap("run " + gemm() + " --instance gemm_small --target systolic16 --check");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(has(r.out, "gemm_small on systolic16 (simulated): ")) << r.out;
  EXPECT_TRUE(has(r.out, "of the compute peak; the cost model estimated ")) << r.out;
  EXPECT_TRUE(has(r.out, "instructions: load ")) << r.out;
  EXPECT_TRUE(has(r.out, "\ncheck gemm_small: ")) << r.out;
  EXPECT_TRUE(has(r.out, "PASS")) << r.out;
}

TEST(AccelCli, SeveralInstancesGetOneTraceEach) {
  std::string file = test::tempFile("accelcli", "two.isam", R"(
kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
}
instance first = gemm<7, 5, 13>;
instance second = gemm<20, 18, 3>;
)");
  std::string dir = fs::path(file).parent_path().string();
  auto r =
      isamap("run " + file + " --target systolic16 --format=json --trace " + dir + "/multi.json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto results = test::instancesOf(r.out);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["trace"], dir + "/multi.first.json");
  EXPECT_EQ(results[1]["trace"], dir + "/multi.second.json");
  for (const auto &result : results)
    EXPECT_GT(nlohmann::json::parse(test::readFile(result["trace"]))["traceEvents"].size(), 4u);
  EXPECT_FALSE(fs::exists(dir + "/multi.json"));
}

TEST(AccelCli, CompileWritesTheListingAndTheStream) {
  std::string dir = fs::path(test::tempFile("accelcli", "y", "")).parent_path().string();
  auto r =
      isamap("compile " + gemm() + " --instance gemm_small --target systolic16 -o " + dir + "/g.s");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::string listing = test::readFile(dir + "/g.s");
  EXPECT_TRUE(has(listing, "; gemm_small on systolic16: isamap instruction stream")) << listing;
  EXPECT_TRUE(has(listing, "\n  matmul ACC[")) << listing;
  auto s = isamap("compile " + gemm() +
                  " --instance gemm_small --target systolic16 --emit=stream -o " + dir + "/g.json");
  ASSERT_EQ(s.exitCode, 0) << s.err;
  auto stream = nlohmann::json::parse(test::readFile(dir + "/g.json"));
  EXPECT_EQ(stream["format"], "isamap-accel-stream");
  EXPECT_EQ(stream["target"], "systolic16");
  size_t matmuls = 0;
  for (const auto &op : stream["ops"])
    matmuls += op.value("op", "") == "mma";
  EXPECT_EQ(matmuls, 1u);
}

TEST(AccelCli, RunsAStreamFromAFile) {
  std::string dir = fs::path(test::tempFile("accelcli", "z", "")).parent_path().string();
  std::string sizes = " --kernel gemm -D M=40 -D N=33 -D K=20 --target systolic16";
  ASSERT_EQ(isamap("compile " + gemm() + sizes + " --emit=stream -o " + dir + "/s.json").exitCode,
            0);
  auto own = isamap("run " + gemm() + sizes + " --format=json --check");
  auto read =
      isamap("run " + gemm() + sizes + " --format=json --check --stream " + dir + "/s.json");
  ASSERT_EQ(own.exitCode, 0) << own.err;
  ASSERT_EQ(read.exitCode, 0) << read.err;
  auto a = test::instancesOf(own.out).at(0), b = test::instancesOf(read.out).at(0);
  EXPECT_EQ(a["cycles"], b["cycles"]);
  EXPECT_EQ(a["outputs"], b["outputs"]);
  EXPECT_EQ(b["check"]["passed"], true);

  // A stream that drops the write-back computes nothing into C: the check says so.
  auto stream = nlohmann::json::parse(test::readFile(dir + "/s.json"));
  auto &ops = stream["ops"];
  for (size_t i = ops.size(); i-- > 0;)
    if (ops[i].value("op", "") == "mvout")
      ops.erase(i);
  std::ofstream(dir + "/broken.json") << stream.dump();
  auto broken = isamap("run " + gemm() + sizes + " --check --stream " + dir + "/broken.json");
  EXPECT_EQ(broken.exitCode, 1);
  EXPECT_TRUE(has(broken.out, "FAIL")) << broken.out;

  for (const std::string &bad : {std::string("/nonexistent.json"), dir + "/z"}) {
    auto r = isamap("run " + gemm() + sizes + " --stream " + bad);
    EXPECT_EQ(r.exitCode, 1) << bad;
    EXPECT_TRUE(has(r.err, "isamap run: ")) << r.err;
  }
  auto other = isamap("run " + gemm() + " --instance gemm_small --target systolic16 --stream " +
                      dir + "/s.json");
  EXPECT_EQ(other.exitCode, 1);
  EXPECT_TRUE(has(other.err, "the stream is for gemm on systolic16, not gemm_small")) << other.err;
}

TEST(AccelCli, VariantsAreFoundOnTheIncludePath) {
  auto cycles = [](const std::string &target) {
    auto r = isamap("run " + gemm() + " --kernel gemm -D M=512 -D N=16 -D K=256 --target " +
                    target + " -I " + test::sourceDir() + "/hwdesc/variants --format=json");
    EXPECT_EQ(r.exitCode, 0) << target << ": " << r.err;
    return r.exitCode == 0 ? test::instancesOf(r.out).at(0)["cycles"].get<double>() : 0.0;
  };
  double base = cycles("systolic16"), half = cycles("systolic16_halfbw");
  EXPECT_GT(half, 1.8 * base);
}

TEST(AccelCli, UsageErrors) {
  auto obj = isamap("compile " + gemm() +
                    " --instance gemm_small --target systolic16 --emit=obj "
                    "-o /dev/null");
  EXPECT_EQ(obj.exitCode, 2);
  EXPECT_TRUE(has(obj.err, "--emit=asm")) << obj.err;
  auto repeat = isamap("run " + gemm() + " --instance gemm_small --target systolic16 --repeat 3");
  EXPECT_EQ(repeat.exitCode, 2);
  EXPECT_TRUE(has(repeat.err, "is simulated")) << repeat.err;
  auto trace = isamap("run " + gemm() + " --instance gemm_small --target host --trace t.json");
  EXPECT_EQ(trace.exitCode, 2);
  EXPECT_TRUE(has(trace.err, "--trace and --stream are for simulated targets")) << trace.err;
  auto unwritable = isamap(
      "run " + gemm() + " --instance gemm_small --target systolic16 --trace /nonexistent/t.json");
  EXPECT_EQ(unwritable.exitCode, 1);
  EXPECT_TRUE(has(unwritable.err, "cannot write the trace")) << unwritable.err;
}
