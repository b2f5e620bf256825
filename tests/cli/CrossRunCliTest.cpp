// `isamap run --target` for another architecture through the real binary: AArch64 (arm_neon)
// and RISC-V (riscv_rvv) code cross-linked with Debian's cross compilers and run under
// qemu-user, checked against the reference interpreter on every sample's small instances, on
// f16 kernels and on exp, log, tanh and sigmoid; the emulated timing's label; the message when
// the tools are missing or the emulator crashes; and, on the host, x86_avx2 code run natively.
// The emulated tests skip (saying why) when the cross tools are absent.
#include "support/FunctionKernels.h"
#include "support/JsonOutput.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

using namespace isam;
namespace fs = std::filesystem;

namespace {

const std::string kIsamap = ISAMAP_BINARY;

bool has(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

struct Tools {
  const char *target, *compiler, *compilerPackage, *emulator, *sysroot, *packages;
};
const Tools kArm = {"arm_neon",
                    "aarch64-linux-gnu-gcc",
                    "gcc-aarch64-linux-gnu",
                    "qemu-aarch64",
                    "/usr/aarch64-linux-gnu",
                    "gcc-aarch64-linux-gnu libc6-dev-arm64-cross libgomp1-arm64-cross qemu-user"};
const Tools kRiscv = {
    "riscv_rvv",
    "riscv64-linux-gnu-gcc",
    "gcc-riscv64-linux-gnu",
    "qemu-riscv64",
    "/usr/riscv64-linux-gnu",
    "gcc-riscv64-linux-gnu libc6-dev-riscv64-cross libgomp1-riscv64-cross qemu-user"};

// Empty when the tools are there, else why the test skips.
std::string missingTools(const Tools &t) {
  for (const char *program : {t.compiler, t.emulator})
    if (test::run(std::string("command -v ") + program).exitCode != 0)
      return std::string(program) + " is not installed (apt-get install " + t.packages + ")";
  if (!fs::exists(std::string(t.sysroot) + "/lib/libgomp.so.1"))
    return std::string(t.sysroot) + "/lib/libgomp.so.1 is missing (apt-get install " + t.packages +
           ")";
  return "";
}

// This process's scratch directory, removed at exit.
fs::path scratchRoot() {
  struct Root {
    fs::path path = fs::temp_directory_path() / ("isamap-crosstest-" + std::to_string(getpid()));
    ~Root() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  };
  static Root root;
  return root.path;
}

// A fresh, empty directory for TMPDIR, so that a run's leftovers can be seen.
std::string freshTmpDir(const std::string &name) {
  fs::path dir = scratchRoot() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

bool isEmptyDir(const std::string &dir) {
  return fs::is_empty(dir);
}

// Runs every small instance for `target` with --check and expects each to pass.
void checkSmallInstances(const std::string &target, const std::string &emulator) {
  auto instances = test::smallSampleInstances();
  ASSERT_GE(instances.size(), 20u); // 23 when written
  std::string tmp = freshTmpDir(target);
  for (const auto &[file, instance] : instances) {
    auto r = test::run("TMPDIR=" + tmp + " " + kIsamap + " run " + file + " --instance " +
                       instance + " --target " + target + " --check --format=json");
    ASSERT_EQ(r.exitCode, 0) << instance << " on " << target << ":\n" << r.out << r.err;
    auto results = test::instancesOf(r.out);
    ASSERT_EQ(results.size(), 1u) << r.out;
    const auto &result = results[0];
    EXPECT_EQ(result["instance"], instance);
    EXPECT_EQ(result["check"]["passed"], true) << instance << ": " << result["check"].dump();
    EXPECT_LE(result["check"]["maxRelError"].get<double>(),
              result["check"]["tolerance"].get<double>());
    if (emulator.empty()) {
      EXPECT_FALSE(result.contains("emulator")) << instance;
      EXPECT_TRUE(result.contains("gflops")) << instance;
    } else {
      EXPECT_EQ(result.value("emulator", ""), emulator) << instance;
      EXPECT_FALSE(result.contains("gflops")) << instance << ": emulated speed is not reported";
    }
    EXPECT_FALSE(has(r.out, "nan") || has(r.out, "null")) << instance << ": " << r.out;
  }
  EXPECT_TRUE(isEmptyDir(tmp)) << "temporary files left in " << tmp;
}

} // namespace

TEST(CrossRunCli, ArmNeonSmallInstancesPassUnderQemu) {
#if defined(__aarch64__)
  GTEST_SKIP() << "the host is AArch64: arm_neon runs natively (RunCliTest)";
#endif
  if (auto why = missingTools(kArm); !why.empty())
    GTEST_SKIP() << why;
  checkSmallInstances("arm_neon", "qemu-aarch64");
}

TEST(CrossRunCli, RiscvRvvSmallInstancesPassUnderQemu) {
  if (auto why = missingTools(kRiscv); !why.empty())
    GTEST_SKIP() << why;
  checkSmallInstances("riscv_rvv", "qemu-riscv64");
}

// k on the lanes of the element-wise FMA and max (lanes 4 and 8), folded by faddp/fmaxv and
// vfredusum/vfredmax as the descriptions state them: odd sizes, under qemu.
// The GEMMs are pinned to the element-wise FMA, which only a lane-reduced mapping runs them on:
// the search may rate another mapping above it on these small sizes (13 x 3 x 29 on riscv_rvv:
// vfmacc_vf with n on 3 of 8 lanes).
TEST(CrossRunCli, LaneReducedMappingsPassUnderQemu) {
  std::string missing;
  for (const Tools *tools : {&kArm, &kRiscv}) {
#if defined(__aarch64__)
    if (tools == &kArm)
      continue;
#endif
    if (std::string why = missingTools(*tools); !why.empty()) {
      missing += why + "; ";
      continue;
    }
    std::string fma = tools == &kArm ? "fmla4v" : "vfmacc_vv";
    std::string file = test::tempFile("crossrun", "lanes_" + fma + ".isam", R"(
kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
  schedule { map )" + fma + R"(; }
}
kernel rowmax<M, K>(A: f32[M, K]) -> (y: f32[M]) { y[m] max= A[m, k]; }
instance gemv = gemm<37, 1, 45>;
instance n3 = gemm<13, 3, 29>;
instance rmax = rowmax<33, 45>;
)");
    for (const char *instance : {"gemv", "n3", "rmax"}) {
      auto s = test::run(kIsamap + " schedule " + file + " --instance " + instance + " --target " +
                         tools->target);
      EXPECT_TRUE(has(s.out, "across lanes, then")) << instance << " on " << tools->target << ":\n"
                                                    << s.out << s.err;
      auto r = test::run(kIsamap + " run " + file + " --instance " + instance + " --target " +
                         tools->target + " --check");
      EXPECT_EQ(r.exitCode, 0) << instance << " on " << tools->target << ":\n" << r.out << r.err;
      EXPECT_TRUE(has(r.out, "PASS")) << instance << " on " << tools->target << ":\n" << r.out;
    }
  }
  if (!missing.empty())
    GTEST_SKIP() << missing;
}

TEST(CrossRunCli, TextReportLabelsEmulatedTiming) {
  if (auto why = missingTools(kRiscv); !why.empty())
    GTEST_SKIP() << why;
  auto r = test::run(kIsamap + " run " + test::samplePath("gemm.isam") +
                     " --instance gemm_small --target riscv_rvv --check --repeat 3 --threads 3");
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out,
      std::regex(
          R"(^gemm_small on riscv_rvv: compiled in [0-9.,]+ (ns|us|ms|s) \(map and )"
          R"(schedule [0-9.,]+ (ns|us|ms|s), LLVM [0-9.,]+ (ns|us|ms|s)\); ran 3x on 3 threads under )"
          R"(qemu-riscv64: best [0-9.,]+ (ns|us|ms|s), median [0-9.,]+ (ns|us|ms|s) )"
          R"(\(emulated: not the target's speed\)\n)")))
      << r.out;
  EXPECT_FALSE(has(r.out, "GFLOP/s")) << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(\ncheck gemm_small: max abs error \S+, max rel error \S+ )"
                        R"(\(tolerance \S+\) PASS\n)")))
      << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(\n  C: 35 elements, sum \S+, sum\|x\| \S+, first( \S+){8}\n)")))
      << r.out;
}

TEST(CrossRunCli, SameOutputsOnEveryTarget) {
  // The same seed gives the same inputs everywhere: the outputs' sums agree across targets.
  std::vector<const Tools *> targets;
  for (const Tools *t : {&kArm, &kRiscv})
    if (missingTools(*t).empty())
      targets.push_back(t);
  if (targets.empty())
    GTEST_SKIP() << missingTools(kArm);
  auto sumOf = [](const std::string &target) {
    auto r = test::run(kIsamap + " run " + test::samplePath("mlp.isam") +
                       " --instance mlp_small --seed 7 --target " + target + " --format=json");
    EXPECT_EQ(r.exitCode, 0) << target << ": " << r.err;
    if (r.exitCode != 0)
      return 0.0;
    return test::instancesOf(r.out)[0]["outputs"][0]["sum"].get<double>();
  };
  auto ref = test::run(kIsamap + " run " + test::samplePath("mlp.isam") +
                       " --instance mlp_small --seed 7 --interpret --format=json");
  ASSERT_EQ(ref.exitCode, 0) << ref.err;
  double expected = test::instancesOf(ref.out)[0]["outputs"][0]["sum"].get<double>();
  for (const Tools *t : targets)
    EXPECT_NEAR(sumOf(t->target), expected, 1e-3 * (1 + std::fabs(expected))) << t->target;
}

TEST(CrossRunCli, MissingToolsSayWhatToInstall) {
#if defined(__aarch64__)
  GTEST_SKIP() << "the host is AArch64: arm_neon needs no emulator";
#endif
  // A PATH without the cross compiler or qemu (the binary is named by its full path).
  std::string emptyBin = freshTmpDir("empty-bin");
  std::string tmp = freshTmpDir("missing-tools");
  for (const Tools *t : {&kArm, &kRiscv}) {
    auto r = test::run("PATH=" + emptyBin + " TMPDIR=" + tmp + " " + kIsamap + " run " +
                       test::samplePath("gemm.isam") + " --instance gemm_small --target " +
                       t->target + " --check");
    EXPECT_EQ(r.exitCode, 1) << t->target << ": " << r.out << r.err;
    // Only what is missing is named: here the compiler and the emulator, first.
    EXPECT_TRUE(has(r.err, std::string("apt-get install ") + t->compilerPackage + " qemu-user"))
        << r.err;
    EXPECT_TRUE(has(r.err, t->compiler)) << r.err;
    EXPECT_TRUE(has(r.err, t->emulator)) << r.err;
    EXPECT_TRUE(has(r.err, t->target)) << r.err;
    EXPECT_FALSE(has(r.err, "internal error") || has(r.err, "Assertion")) << r.err;
    EXPECT_EQ(r.out, "") << "nothing is run or reported";
  }
  EXPECT_TRUE(isEmptyDir(tmp)) << "temporary files left in " << tmp;
}

namespace {

// f16 kernels: every conversion to and from f16 (widening to f32 and f64, narrowing from f32
// and f64), f16 arithmetic, functions and reductions.
const char *kHalfKernels = R"(
kernel gemm16<M, N, K>(A: f16[M, K], B: f16[K, N]) -> (C: f16[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
}
instance gemm16_small = gemm16<7, 5, 13>;

kernel mixed<M, N, K>(A: f16[M, K], B: f16[K, N]) -> (C: f32[M, N]) {
  C[m, n] += f32(A[m, k]) * f32(B[k, n]);
}
instance mixed_small = mixed<3, 7, 31>;

kernel ew<N>(A: f16[N], B: f16[N]) -> (O: f16[N], P: f16[N], Q: f16[N], R: f16[N]) {
  O[i] = exp(A[i]) + tanh(B[i]);
  P[i] = max(A[i], B[i]) * sigmoid(A[i]);
  Q[i] = relu(A[i] - B[i]) / (abs(B[i]) + 1);
  R[i] = sqrt(abs(A[i])) + log(abs(B[i]) + 1);
}
instance ew_small = ew<37>;

kernel red<N, K>(A: f16[N, K]) -> (M: f16[N], S: f16[N]) {
  M[n] max= A[n, k];
  S[n] += A[n, k];
}
instance red_small = red<9, 17>;

kernel narrow<N>(A: f32[N], D: f64[N]) -> (O: f16[N], P: f16[N], Q: f64[N]) {
  O[i] = f16(A[i]);
  P[i] = f16(D[i]);
  Q[i] = f64(P[i]);
}
instance narrow_small = narrow<19>;

kernel toint<N>(A: f16[N]) -> (O: i32[N]) {
  O[i] = i32(A[i]);
}
instance toint_small = toint<19>;
)";

// exp, log, tanh and sigmoid (backends/llvm/VectorMath: vector IR, no library call) over their
// overflow, underflow and saturation ranges, in f32 and f64, on a size with a remainder.
const char *kTranscendentalKernels = R"(
kernel tr<N>(X: f32[N], W: f32[N])
    -> (E: f32[N], L: f32[N], T: f32[N], S: f32[N], G: f32[N]) {
  E[i] = exp(X[i] * 100) + exp(W[i] * 0.5);
  L[i] = log(abs(X[i]) * 1e30) + log(abs(X[i]) * 1e-30);
  T[i] = tanh(X[i] * 12) + tanh(W[i] * 0.5);
  S[i] = sigmoid(X[i] * 120) + sigmoid(W[i] * 3);
  G[i] = sigmoid(X[i] + W[i]) * tanh(W[i] * 2);
}
instance tr_small = tr<37>;

kernel trd<N>(X: f64[N]) -> (E: f64[N], L: f64[N], T: f64[N], S: f64[N]) {
  E[i] = exp(X[i] * 720);
  L[i] = log(abs(X[i]) * 1e300) + log(abs(X[i]) * 1e-300);
  T[i] = tanh(X[i] * 20) + tanh(X[i] * 0.5);
  S[i] = sigmoid(X[i] * 800) + sigmoid(X[i] * 3);
}
instance trd_small = trd<37>;
)";

} // namespace

TEST(CrossRunCli, HalfKernelsRunOnRiscvUnderQemu) {
  // Debian 12's riscv64 libgcc has no __extendhfsf2/__truncsfhf2: the driver defines them.
  // toint_small is left out: QEMU 7.2 itself crashes on the vfncvt.rtz.x.f.w that every
  // float-to-integer conversion becomes (an emulator bug, fixed in QEMU 8).
  if (auto why = missingTools(kRiscv); !why.empty())
    GTEST_SKIP() << why;
  std::string file = test::tempFile("crossrun-f16", "half.isam", kHalfKernels);
  for (const char *instance :
       {"gemm16_small", "mixed_small", "ew_small", "red_small", "narrow_small"}) {
    auto r = test::run(kIsamap + " run " + file + " --instance " + instance +
                       " --target riscv_rvv --check --format=json");
    ASSERT_EQ(r.exitCode, 0) << instance << ":\n" << r.out << r.err;
    auto results = test::instancesOf(r.out);
    EXPECT_EQ(results[0]["check"]["passed"], true) << instance << ": " << r.out;
  }
}

// Runs the transcendental kernels on `tools`' target with --check; the integer one only with
// `integers` (QEMU 7.2 crashes on RISC-V's float-to-integer conversions: see above).
static void checkTranscendentals(const Tools &tools, bool integers = true) {
  auto check = [&](const std::string &file, const char *instance) {
    auto r = test::run(kIsamap + " run " + file + " --instance " + instance + " --target " +
                       tools.target + " --check --format=json");
    ASSERT_EQ(r.exitCode, 0) << instance << " on " << tools.target << ":\n" << r.out << r.err;
    auto results = test::instancesOf(r.out);
    EXPECT_EQ(results[0]["check"]["passed"], true)
        << instance << " on " << tools.target << ": " << r.out;
  };
  std::string file =
      test::tempFile("crossrun-transcendental", "transcendental.isam", kTranscendentalKernels);
  for (const char *instance : {"tr_small", "trd_small"})
    check(file, instance);
  // The functions that are LLVM intrinsics or C library calls (support/FunctionKernels.h).
  file = test::tempFile("crossrun-functions", "functions.isam", test::kFunctionKernels);
  for (const char *instance : test::kFunctionInstances)
    if (integers || std::string(instance) != "fnsi_small")
      check(file, instance);
}

TEST(CrossRunCli, TranscendentalFunctionsRunOnArmNeon) {
  if (auto why = missingTools(kArm); !why.empty())
    GTEST_SKIP() << why;
  checkTranscendentals(kArm);
}

TEST(CrossRunCli, TranscendentalFunctionsRunOnRiscvUnderQemu) {
  if (auto why = missingTools(kRiscv); !why.empty())
    GTEST_SKIP() << why;
  checkTranscendentals(kRiscv, false);
}

TEST(CrossRunCli, HalfWideningCompilesForRiscv) {
  // A vector load of f16 widened to f32 or f64 made LLVM 16 abort ("Cannot select: ... anyext
  // from v4f16") on RISC-V without Zvfh. Compiling needs no cross tools.
  std::string file = test::tempFile("crossrun-f16", "half.isam", kHalfKernels);
  for (const char *instance : {"mixed_small", "toint_small", "narrow_small"}) {
    std::string out = fs::path(file).parent_path() / (std::string(instance) + ".o");
    auto r = test::run(kIsamap + " compile " + file + " --instance " + instance +
                       " --target riscv_rvv --emit=obj -o " + out);
    EXPECT_EQ(r.exitCode, 0) << instance << ":\n" << r.out << r.err;
    EXPECT_FALSE(has(r.err, "LLVM ERROR")) << r.err;
    EXPECT_TRUE(fs::file_size(out) > 0) << instance;
  }
}

TEST(CrossRunCli, EmulatorCrashIsACrash) {
  // An emulator killed by a signal (as QEMU 7.2 is by its own assertion on some RVV code) is
  // reported as a crash with the signal's name, not as a timeout.
  if (auto why = missingTools(kRiscv); !why.empty())
    GTEST_SKIP() << why;
  std::string bin = freshTmpDir("crashing-qemu");
  std::string qemu = bin + "/qemu-riscv64";
  std::ofstream(qemu) << "#!/bin/sh\necho 'qemu-riscv64: assertion failed' >&2\nkill -SEGV $$\n";
  fs::permissions(qemu, fs::perms::owner_all, fs::perm_options::add);
  std::string tmp = freshTmpDir("crash-tmp");
  auto r = test::run("PATH=" + bin + ":$PATH TMPDIR=" + tmp + " " + kIsamap + " run " +
                     test::samplePath("gemm.isam") +
                     " --instance gemm_small --target riscv_rvv --check");
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "running gemm_small under qemu-riscv64 crashed (SIGSEGV, ")) << r.err;
  EXPECT_TRUE(has(r.err, "qemu-riscv64: assertion failed")) << r.err;
  EXPECT_FALSE(has(r.err, "timed out")) << r.err;
  EXPECT_TRUE(isEmptyDir(tmp)) << "temporary files left in " << tmp;
}

TEST(CrossRunCli, HostRunsX86Avx2SmallInstances) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "x86_avx2 code runs natively only on an x86-64 host";
#else
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    GTEST_SKIP() << "this x86-64 CPU lacks AVX2 or FMA";
  checkSmallInstances("x86_avx2", "");
#endif
}
