// The JIT runs a description's code on whatever machine it is: the features the described CPU
// implies and the host lacks are turned off (backends/llvm/Jit.h, runnableOn). x86_avx512
// names AMD's znver4, which implies SSE4a; LLVM used its `insertq` for byte shuffles, and an
// Intel host died of SIGILL running them.
#include "backends/llvm/Jit.h"

#include <gtest/gtest.h>
#include <llvm/TargetParser/Host.h>

using namespace isam;

namespace {

hw::Target znver4() {
  hw::Target t;
  t.name = "x86_avx512";
  t.triple = "x86_64-unknown-linux-gnu";
  t.cpu = "znver4";
  t.features = "+avx512f,+fma";
  return t;
}

TEST(Jit, FeaturesTheCpuImpliesAndTheHostLacksAreOff) {
  llvm::StringMap<bool> intel{{"sse4a", false}, {"avx512f", true}, {"avx512bf16", false}};
  hw::Target t = backend::runnableOn(znver4(), intel);
  EXPECT_EQ(t.cpu, "znver4"); // still tuned for the described CPU
  EXPECT_EQ(t.features.rfind("+avx512f,+fma,", 0), 0u) << t.features;
  EXPECT_NE(t.features.find("-sse4a"), std::string::npos) << t.features;
  EXPECT_NE(t.features.find("-avx512bf16"), std::string::npos) << t.features;
  EXPECT_EQ(t.features.find("-avx512f"), std::string::npos) << t.features;
}

TEST(Jit, AHostWithEveryFeatureChangesNothing) {
  llvm::StringMap<bool> amd{{"sse4a", true}, {"avx512f", true}, {"avx512bf16", true}};
  EXPECT_EQ(backend::runnableOn(znver4(), amd).features, "+avx512f,+fma");
}

TEST(Jit, OtherArchitecturesAreUnchanged) {
  hw::Target arm = znver4();
  arm.triple = "aarch64-unknown-linux-gnu";
  arm.cpu = "neoverse-v1";
  llvm::StringMap<bool> none{{"sse4a", false}};
  EXPECT_EQ(backend::runnableOn(arm, none).features, arm.features);
}

// On this machine, whatever it is: only features it lacks are turned off.
TEST(Jit, OnlyWhatThisHostLacksIsTurnedOff) {
  llvm::StringMap<bool> host;
  llvm::sys::getHostCPUFeatures(host);
  hw::Target t = backend::runnableOn(znver4(), host);
  for (llvm::StringRef feature : llvm::split(t.features, ','))
    if (feature.consume_front("-")) {
      auto it = host.find(feature);
      EXPECT_TRUE(it != host.end() && !it->second) << feature.str();
    }
}

} // namespace
