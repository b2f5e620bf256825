// The elementary functions beyond exp, log, tanh and sigmoid (rsqrt, erf, pow, sin, cos, exp2,
// log2, floor, round) on every executor of this machine: the schedule-IR interpreter
// (`schedule --check`), native code (`run --target host --check`) and the accelerator simulator,
// where they run as host steps (`run --target systolic16 --check`), each against the reference
// interpreter, in f32, f64 and i32, on a size with a vector remainder. The qemu targets run the
// same kernels in CrossRunCliTest.cpp.
#include "support/FunctionKernels.h"
#include "support/JsonOutput.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace isam;

namespace {

const std::string kIsamap = ISAMAP_BINARY;

std::string kernels() {
  return test::tempFile("functions", "functions.isam", test::kFunctionKernels);
}

void expectPassed(const std::string &command, const std::string &what) {
  auto r = test::run(command);
  ASSERT_EQ(r.exitCode, 0) << what << ":\n" << r.out << r.err;
  auto instances = test::instancesOf(r.out);
  ASSERT_EQ(instances.size(), 1u) << r.out;
  const auto &check = instances[0]["check"];
  EXPECT_EQ(check["passed"], true) << what << ": " << r.out;
}

} // namespace

TEST(FunctionsCli, NativeCodeComputesWhatTheReferenceDoes) {
  for (const char *instance : test::kFunctionInstances)
    expectPassed(kIsamap + " run " + kernels() + " --instance " + instance +
                     " --target host --check --format=json",
                 instance);
}

TEST(FunctionsCli, TheScheduleInterpreterComputesWhatTheReferenceDoes) {
  for (const char *instance : test::kFunctionInstances)
    expectPassed(kIsamap + " schedule " + kernels() + " --instance " + instance +
                     " -t x86_avx512 --check --format=json",
                 instance);
}

TEST(FunctionsCli, TheSimulatorRunsThemAsHostSteps) {
  for (const char *instance : test::kFunctionInstances)
    expectPassed(kIsamap + " run " + kernels() + " --instance " + instance +
                     " --target systolic16 --check --format=json",
                 instance);
}
