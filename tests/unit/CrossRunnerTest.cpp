// CrossRunner against fake toolchains: a PATH directory holding (or not) a cross compiler and
// qemu, and a sysroot directory holding (or not) the C library and libgomp.
//  - The preflight (create) names each missing part with the Debian package that provides it,
//    and only the missing packages are in the install command.
//  - A run whose emulator exits non-zero, dies by a signal or outlives the timeout says which.
// And the half-float conversions the riscv64 driver defines, against the host compiler's
// _Float16 on every half, on every float near a rounding boundary and on doubles.
#include "backends/llvm/Cross.h"
#include "driver/Session.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace isam;
namespace fs = std::filesystem;

namespace {

bool has(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

hw::Target armTarget() {
  hw::Target t;
  t.name = "arm_neon";
  t.triple = "aarch64-unknown-linux-gnu";
  return t;
}

// A fresh directory <tmp>/isamap-preflight-<pid>/<name>, removed by the fixture.
class CrossPreflight : public ::testing::Test {
protected:
  fs::path root = fs::temp_directory_path() / ("isamap-preflight-" + std::to_string(getpid()));
  fs::path bin = root / "bin", usr = root / "usr", sysroot = usr / "aarch64-linux-gnu";

  void SetUp() override {
    fs::remove_all(root);
    fs::create_directories(bin);
    fs::create_directories(sysroot / "include");
    fs::create_directories(sysroot / "lib");
  }
  void TearDown() override { fs::remove_all(root); }

  void touch(const fs::path &file, bool executable = false, const std::string &script = "") {
    std::ofstream(file) << "#!/bin/sh\n" << script;
    if (executable)
      fs::permissions(file, fs::perms::owner_all, fs::perm_options::add);
  }
  void installCompilerAndQemu() {
    touch(bin / "aarch64-linux-gnu-gcc", true);
    touch(bin / "qemu-aarch64", true);
  }
  void installLibc() {
    touch(sysroot / "include" / "stdio.h");
    touch(sysroot / "lib" / "crt1.o");
    touch(sysroot / "lib" / "libc.so");
  }
  void installLibgomp() { touch(sysroot / "lib" / "libgomp.so.1"); }

  // The preflight's error, or "" when it passed.
  std::string preflight() {
    backend::CrossRunnerOptions where{{bin.string()}, usr.string()};
    auto runner = backend::CrossRunner::create(armTarget(), where);
    if (runner)
      return "";
    return llvm::toString(runner.takeError());
  }
};

// A complete fake toolchain whose compiler only creates its output file and whose emulator
// runs `qemuScript`; run() runs gemm_small (scheduled for arm_neon) through it.
class CrossRunOutcome : public CrossPreflight {
protected:
  void SetUp() override {
    CrossPreflight::SetUp();
    touch(bin / "aarch64-linux-gnu-gcc", true,
          "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && : > \"$2\"; shift; done\n");
    installLibc();
    installLibgomp();
  }

  // The run's error ("" when it succeeded).
  std::string runWith(const std::string &qemuScript, unsigned timeoutSeconds = 600) {
    touch(bin / "qemu-aarch64", true, qemuScript);
    Session session;
    EXPECT_TRUE(session.loadFile(test::samplePath("gemm.isam")));
    auto kernels = session.instances({"gemm_small", "", {}});
    auto target = session.target("arm_neon");
    if (kernels.size() != 1 || !target)
      return "cannot load gemm_small for arm_neon";
    auto schedule = session.schedule(kernels[0], *target);
    backend::CrossRunnerOptions options{{bin.string()}, usr.string(), timeoutSeconds};
    auto runner = backend::CrossRunner::create(*target, options);
    if (!runner)
      return llvm::toString(runner.takeError());
    interp::Buffers buffers = interp::randomInputs(kernels[0], 1);
    auto times = (*runner)->run(kernels[0], schedule, buffers, 1);
    if (times)
      return "";
    return llvm::toString(times.takeError());
  }
};

} // namespace

TEST_F(CrossPreflight, CompleteToolchainPasses) {
  installCompilerAndQemu();
  installLibc();
  installLibgomp();
  EXPECT_EQ(preflight(), "");
}

TEST_F(CrossPreflight, MissingCLibraryNamesItsPackage) {
  // What `apt-get install --no-install-recommends gcc-aarch64-linux-gnu` leaves: the compiler
  // and libgomp, no C library headers or crt files.
  installCompilerAndQemu();
  installLibgomp();
  std::string err = preflight();
  EXPECT_TRUE(has(err, (sysroot / "include" / "stdio.h").string())) << err;
  EXPECT_TRUE(has(err, (sysroot / "lib" / "crt1.o").string())) << err;
  EXPECT_TRUE(has(err, "Install them with: apt-get install libc6-dev-arm64-cross (")) << err;
  EXPECT_FALSE(has(err, "libgomp")) << err;
  EXPECT_FALSE(has(err, "qemu-aarch64 (not on the PATH)")) << err;
  EXPECT_TRUE(has(err, "arm_neon")) << err;
}

TEST_F(CrossPreflight, HeadersAloneAreNotEnough) {
  installCompilerAndQemu();
  installLibgomp();
  touch(sysroot / "include" / "stdio.h");
  std::string err = preflight();
  EXPECT_FALSE(has(err, "stdio.h")) << err;
  EXPECT_TRUE(has(err, "crt1.o")) << err;
  EXPECT_TRUE(has(err, "libc.so")) << err;
  EXPECT_TRUE(has(err, "apt-get install libc6-dev-arm64-cross (")) << err;
}

TEST_F(CrossPreflight, EveryMissingPartIsNamedOnce) {
  std::string err = preflight();
  for (const char *part :
       {"aarch64-linux-gnu-gcc (not on the PATH)", "qemu-aarch64 (not on the PATH)", "stdio.h",
        "crt1.o", "libc.so", "libgomp.so.1"})
    EXPECT_TRUE(has(err, part)) << part << " in " << err;
  EXPECT_TRUE(has(err, "apt-get install gcc-aarch64-linux-gnu qemu-user libc6-dev-arm64-cross "
                       "libgomp1-arm64-cross ("))
      << err;
}

TEST_F(CrossPreflight, MissingOpenMPRuntimeNamesItsPackage) {
  installCompilerAndQemu();
  installLibc();
  std::string err = preflight();
  EXPECT_TRUE(has(err, "libgomp.so.1 (the OpenMP runtime)")) << err;
  EXPECT_TRUE(has(err, "apt-get install libgomp1-arm64-cross (")) << err;
}

TEST_F(CrossRunOutcome, NonZeroExitSaysTheStatusAndStandardError) {
  std::string err = runWith("echo 'driver: cannot open x' >&2\nexit 3\n");
  EXPECT_TRUE(has(err, "running gemm_small under qemu-aarch64 failed (exit status 3)")) << err;
  EXPECT_TRUE(has(err, "\ndriver: cannot open x")) << err;
}

TEST_F(CrossRunOutcome, DeathBySignalIsACrashNotATimeout) {
  std::string err = runWith("echo 'qemu: something broke' >&2\nkill -SEGV $$\n");
  EXPECT_TRUE(has(err, "running gemm_small under qemu-aarch64 crashed (SIGSEGV, ")) << err;
  EXPECT_TRUE(has(err, "\nqemu: something broke")) << err;
  EXPECT_FALSE(has(err, "timed out")) << err;
}

TEST_F(CrossRunOutcome, AbortIsACrashToo) {
  std::string err = runWith("kill -ABRT $$\n");
  EXPECT_TRUE(has(err, "crashed (SIGABRT, ")) << err;
}

TEST_F(CrossRunOutcome, TimeoutIsATimeout) {
  // The emulator never finishes; the runner kills it after its timeout (1 s here).
  std::string err = runWith("exec sleep 600\n", 1);
  EXPECT_TRUE(has(err, "running gemm_small under qemu-aarch64 timed out after 1 s")) << err;
  EXPECT_FALSE(has(err, "crashed")) << err;
}

namespace {

// Compares the helpers with GCC's _Float16 (x86-64: correctly rounded, to nearest even). NaNs
// compare by NaN-ness and sign; everything else by bits.
const char *kHalfCheck = R"(
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned short bitsOf(_Float16 h) { unsigned short b; memcpy(&b, &h, 2); return b; }
static int same(unsigned short want, unsigned short got) {
  if ((want & 0x7C00) == 0x7C00 && (want & 0x3FF))
    return (got & 0x7C00) == 0x7C00 && (got & 0x3FF) && ((want ^ got) & 0x8000) == 0;
  return want == got;
}
static long bad, checked;
static void checkDouble(double d) {
  ++checked;
  if (!same(bitsOf((_Float16)d), isamapHalfFromDouble(d)) && bad++ < 10)
    printf("from %a: want %04x, got %04x\n", d, bitsOf((_Float16)d), isamapHalfFromDouble(d));
}
int main(void) {
  /* Every half, widened. */
  for (unsigned h = 0; h < 65536; ++h) {
    unsigned short hb = (unsigned short)h;
    _Float16 x;
    memcpy(&x, &hb, 2);
    float want = (float)x, got = isamapHalfToFloat(hb);
    ++checked;
    if (!(isnan(want) ? isnan(got) && signbit(want) == signbit(got)
                      : memcmp(&want, &got, 4) == 0) && bad++ < 10)
      printf("widen %04x: want %a, got %a\n", h, want, got);
  }
  /* Every float whose 13 bits below a half's precision are at or next to 0, the tie or the
     top: every rounding boundary, overflow and underflow included, with both signs. */
  unsigned lows[] = {0, 1, 0x7FF, 0x800, 0xFFF, 0x1000, 0x1001, 0x17FF, 0x1800, 0x1FFF};
  for (unsigned hi = 0; hi < (1u << 19); ++hi)
    for (unsigned l = 0; l < sizeof lows / sizeof *lows; ++l) {
      unsigned fb = hi << 13 | lows[l];
      float f;
      memcpy(&f, &fb, 4);
      ++checked;
      if (!same(bitsOf((_Float16)f), __truncsfhf2_check(f)) && bad++ < 10)
        printf("narrow float %08x: want %04x, got %04x\n", fb, bitsOf((_Float16)f),
               __truncsfhf2_check(f));
    }
  /* Doubles in and around the half range: exact ties, and one unit of a double either side
     (rounding through a float first would turn those into ties). */
  srand(1);
  for (long i = 0; i < 2000000; ++i) {
    unsigned long long db = (unsigned long long)rand() << 42 ^ (unsigned long long)rand() << 21 ^
                            (unsigned long long)rand();
    db = (db & ~(0xFFFull << 52)) | (unsigned long long)(i & 1) << 63 |
         (unsigned long long)(1023 - 28 + rand() % 46) << 52;
    if (i % 3 == 0)
      db = (db & ~0x3FFFFFFFFFFull) | ((1ull << 41) + (unsigned long long)(i % 5) - 2);
    double d;
    memcpy(&d, &db, 8);
    checkDouble(d);
  }
  checkDouble(65504.0);
  checkDouble(65519.99);
  checkDouble(65520.0);
  checkDouble(0x1p-25);
  checkDouble(0x1.0000000000001p-25);
  checkDouble(-0x1p-26);
  checkDouble(INFINITY);
  checkDouble(-NAN);
  printf("%ld checked, %ld wrong\n", checked, bad);
  return bad != 0;
}
)";

} // namespace

TEST(CrossHalfFloat, ConversionsRoundToNearestEvenLikeGcc) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "the reference is GCC's _Float16 on x86-64";
#else
  std::string source = "#define ISAMAP_HALF_NO_LIBCALLS\n" + backend::halfFloatHelpersSource() +
                       "static unsigned short __truncsfhf2_check(float f) {\n"
                       "  return isamapHalfFromDouble(f);\n}\n" +
                       kHalfCheck;
  std::string file = test::tempFile("cross-half", "half.c", source);
  std::string exe = file + ".exe";
  auto built = test::run("gcc -std=c11 -O2 -Wall -Werror -o " + exe + " " + file + " -lm");
  ASSERT_EQ(built.exitCode, 0) << built.out << built.err;
  auto r = test::run(exe);
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, " 0 wrong")) << r.out;
#endif
}

TEST(CrossHalfFloat, LibcallsAreDefinedUnlessAskedNot) {
  std::string source = backend::halfFloatHelpersSource();
  for (const char *name :
       {"float __extendhfsf2(unsigned short", "double __extendhfdf2(unsigned short",
        "unsigned short __truncsfhf2(float", "unsigned short __truncdfhf2(double"})
    EXPECT_TRUE(has(source, name)) << name;
  EXPECT_TRUE(has(source, "#ifndef ISAMAP_HALF_NO_LIBCALLS")) << source;
}
