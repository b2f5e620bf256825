// `isamap compile` through the real binary: every --emit kind writes its file (symbols in the
// object, a label in the assembly, definitions in the IR, a header that C and C++ compile, a
// shared library that computes a GEMM when loaded), a C and a C++ program linked with the
// object run right, cross targets give code for their architecture, the default output name,
// JSON, and errors: exit codes, messages, and no output (not even a temporary) left behind.
#include "support/TestSupport.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <dlfcn.h>
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

// A path quoted for the shell. (Built up rather than with "'" + ... + "'", on which GCC 12 at -O3
// gives a false -Wrestrict warning.)
std::string sh(const fs::path &p) {
  std::string s(1, '\'');
  s.append(p.string()).push_back('\'');
  return s;
}

// An empty directory for one test, removed with everything in it at the end.
class TempDir {
public:
  explicit TempDir(const std::string &name)
      : path_(fs::temp_directory_path() / ("isamap-compile-cli-" + std::to_string(getpid())) /
              name) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const fs::path &path() const { return path_; }
  fs::path operator/(const std::string &name) const { return path_ / name; }
  // The names in the directory, sorted.
  std::vector<std::string> list() const {
    std::vector<std::string> out;
    for (const auto &e : fs::directory_iterator(path_))
      out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

private:
  fs::path path_;
};

test::RunResult compile(const std::string &args) {
  return test::run(kIsamap + " compile " + args);
}

const std::string kGemmSmall =
    test::samplePath("gemm.isam") + " --instance gemm_small --target host";

// The first of these programs on the PATH, or "".
std::string findTool(std::initializer_list<const char *> names) {
  for (const char *n : names)
    if (test::run(std::string("command -v ") + n).exitCode == 0)
      return n;
  return "";
}

std::string objdump() {
  return findTool({"llvm-objdump-16", "llvm-objdump"});
}
std::string nm() {
  return findTool({"llvm-nm-16", "llvm-nm", "nm"});
}

// gemm_small = gemm<7, 5, 13> on inputs whose products and sums are exact in f32 (multiples of
// 1/8, small): any order of summation gives these results exactly.
constexpr int kM = 7, kN = 5, kK = 13;
float inputA(int i) {
  return float(i % 7 - 3) * 0.25f;
}
float inputB(int i) {
  return float(i % 5 - 2) * 0.5f;
}
std::vector<double> expectedC() {
  std::vector<double> c(kM * kN, 0.0);
  for (int m = 0; m < kM; ++m)
    for (int n = 0; n < kN; ++n)
      for (int k = 0; k < kK; ++k)
        c[size_t(m * kN + n)] += double(inputA(m * kK + k)) * double(inputB(k * kN + n));
  return c;
}

// A C (or C++) program that includes the header, fills A and B as above and C with garbage,
// calls both entry points and prints C after each, one value a line.
const char *kDriver = R"(#include "gemm.h"
#include <stdio.h>

int main(void) {
  float A[7 * 13], B[13 * 5], C[7 * 5];
  for (int i = 0; i < 7 * 13; ++i)
    A[i] = (float)(i % 7 - 3) * 0.25f;
  for (int i = 0; i < 13 * 5; ++i)
    B[i] = (float)(i % 5 - 2) * 0.5f;
  for (int i = 0; i < 7 * 5; ++i)
    C[i] = -12345.0f;
  gemm_small(A, B, C);
  for (int i = 0; i < 7 * 5; ++i)
    printf("%.9g\n", C[i]);
  for (int i = 0; i < 7 * 5; ++i)
    C[i] = 777.0f;
  void *args[3] = {A, B, C};
  gemm_small__args(args);
  for (int i = 0; i < 7 * 5; ++i)
    printf("%.9g\n", C[i]);
  return 0;
}
)";

std::vector<double> parseLines(const std::string &text) {
  std::vector<double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    out.push_back(std::stod(line));
  return out;
}

// Two small instances of two kernels in one file.
const char *kTwoKernels = "kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                          "  C[m, n] += A[m, k] * B[k, n];\n"
                          "}\n"
                          "kernel act<N>(X: f32[N], Bias: f32[N]) -> (Y: f32[N]) {\n"
                          "  Y[i] = relu(X[i] + Bias[i]);\n"
                          "}\n"
                          "instance g3 = gemm<3, 4, 5>;\n"
                          "instance a9 = act<9>;\n";

} // namespace

// ---- every --emit kind ----------------------------------------------------------------------

TEST(CompileCli, ObjectDefinesTheEntryPoints) {
  std::string tool = nm();
  if (tool.empty())
    GTEST_SKIP() << "no nm on the PATH";
  TempDir dir("obj");
  auto r = compile(kGemmSmall + " --emit=obj -o " + sh(dir / "gemm_small.o"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(^wrote .*gemm_small\.o: 1 instance for host \(map and schedule )")))
      << r.out;
  EXPECT_EQ(dir.list(), std::vector<std::string>{"gemm_small.o"});
  // An ELF object.
  EXPECT_EQ(test::readFile((dir / "gemm_small.o").string()).substr(0, 4), "\x7f"
                                                                          "ELF");
  auto syms = test::run(tool + " " + sh(dir / "gemm_small.o"));
  ASSERT_EQ(syms.exitCode, 0) << syms.err;
  EXPECT_TRUE(std::regex_search(syms.out, std::regex(R"(\sT gemm_small\n)"))) << syms.out;
  EXPECT_TRUE(std::regex_search(syms.out, std::regex(R"(\sT gemm_small__args\n)"))) << syms.out;
}

TEST(CompileCli, AssemblyHasTheEntryLabel) {
  TempDir dir("asm");
  auto r = compile(kGemmSmall + " --emit=asm -o " + sh(dir / "g.s"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::string s = test::readFile((dir / "g.s").string());
  EXPECT_TRUE(has(s, "\ngemm_small:")) << s.substr(0, 2000);
  EXPECT_TRUE(has(s, "\ngemm_small__args:")) << s.substr(0, 2000);
  EXPECT_TRUE(std::regex_search(s, std::regex(R"(\.globl\s+gemm_small\n)"))) << s.substr(0, 2000);
  EXPECT_EQ(dir.list(), std::vector<std::string>{"g.s"});
}

TEST(CompileCli, PackedBlocksKeepTheLanesContiguous) {
  // T packed into a cache level in blocks of the register tile's 4 rows of h: w, on the lanes,
  // stays innermost in the pack, so every FMA loads its 16 lanes with one vector load; with the
  // rows within a block innermost instead, each load was a gather of lanes 4 apart.
  TempDir dir("packed");
  std::ofstream(dir / "pw.isam")
      << "kernel pw<C, H, W, F>(T: f32[C, H, W], P: f32[F, C]) -> (O: f32[F, H, W]) {\n"
         "  O[f, h, w] += P[f, c] * T[c, h, w];\n"
         "  schedule { map fma16; tile ZMM: w 16, h 4, f 4; }\n"
         "}\n"
         "instance pw_wide = pw<32, 112, 112, 64>;\n";
  auto r = test::run(kIsamap + " compile " + sh(dir / "pw.isam") +
                     " --target x86_avx512 --budget-candidates 3000 --seed 1 --emit=llvm -o " +
                     sh(dir / "pw.ll") + " 2>&1");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  auto sched = test::run(kIsamap + " schedule " + sh(dir / "pw.isam") +
                         " --target x86_avx512 --budget-candidates 3000 --seed 1");
  ASSERT_TRUE(std::regex_search(sched.out, std::regex(R"(buffer T@L[0-9])")))
      << "no longer packs T: pick another shape\n"
      << sched.out;
  std::string ir = test::readFile((dir / "pw.ll").string());
  EXPECT_FALSE(has(ir, "gather")) << sched.out;
}

TEST(CompileCli, ARegisterTileOverTheWholeReductionStartsAtTheIdentity) {
  // The depthwise convolution's register tile spans r and s whole: each element of T is
  // computed in one tile from zero to the end, so T is not zeroed first (a memset of all of
  // it) and then loaded into the tile, only written once.
  TempDir dir("init");
  std::ofstream(dir / "dw.isam")
      << "kernel dw<C, H, W>(I: f32[C, H + 2, W + 2], D: f32[C, 3, 3]) -> (T: f32[C, H, W]) {\n"
         "  T[c, h, w] += I[c, h + r, w + s] * D[c, r, s];\n"
         "}\n"
         "instance dw8 = dw<512, 14, 14>;\n";
  auto sched = test::run(kIsamap + " schedule " + sh(dir / "dw.isam") +
                         " --target x86_avx512 --budget-candidates 3000 --seed 1");
  ASSERT_TRUE(std::regex_search(sched.out, std::regex(R"(ZMM\[[^\n]*r=3 s=3\])")))
      << "the register tile no longer spans the reduction: pick another shape\n"
      << sched.out;
  auto r = test::run(kIsamap + " compile " + sh(dir / "dw.isam") +
                     " --target x86_avx512 --budget-candidates 3000 --seed 1 --emit=llvm -o " +
                     sh(dir / "dw.ll") + " 2>&1");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  std::string ir = test::readFile((dir / "dw.ll").string());
  EXPECT_FALSE(std::regex_search(ir, std::regex(R"(llvm\.memset[^\n]*%T,)"))) << sched.out;
}

TEST(CompileCli, LlvmIrDefinesTheEntryPoints) {
  TempDir dir("llvm");
  auto r = compile(kGemmSmall + " --emit=llvm -o " + sh(dir / "g.ll"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::string s = test::readFile((dir / "g.ll").string());
  EXPECT_TRUE(std::regex_search(s, std::regex(R"(\ndefine [^\n]*@gemm_small\()")))
      << s.substr(0, 2000);
  EXPECT_TRUE(std::regex_search(s, std::regex(R"(\ndefine [^\n]*@gemm_small__args\()")))
      << s.substr(0, 2000);
  EXPECT_TRUE(has(s, "target triple = \"")) << s.substr(0, 2000);
  EXPECT_EQ(dir.list(), std::vector<std::string>{"g.ll"});
}

TEST(CompileCli, HeaderCompilesAsCAndCxx) {
  TempDir dir("header");
  auto r = compile(kGemmSmall + " --emit=header -o " + sh(dir / "gemm.h"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::string h = test::readFile((dir / "gemm.h").string());
  EXPECT_TRUE(has(h, "void gemm_small(const float *A, const float *B, float *C);")) << h;
  EXPECT_TRUE(has(h, "void gemm_small__args(void *const *args);")) << h;
  EXPECT_TRUE(has(h, "void gemm_small__args_threads(void *const *args, int threads);")) << h;
  // Strict C and C++, the header included twice (its guard), and a redeclaration that must
  // agree with the header's prototype.
  std::string use = "#include \"gemm.h\"\n#include \"gemm.h\"\n"
                    "void gemm_small(const float *A, const float *B, float *C);\n";
  std::ofstream(dir / "use.c") << use;
  std::ofstream(dir / "use.cpp") << use;
  auto c = test::run("cc -std=c99 -Wall -Wextra -pedantic -Werror -fsyntax-only -x c -I " +
                     sh(dir.path()) + " " + sh(dir / "use.c"));
  EXPECT_EQ(c.exitCode, 0) << c.err << h;
  auto cxx = test::run("c++ -std=c++17 -Wall -Wextra -pedantic -Werror -fsyntax-only -x c++ -I " +
                       sh(dir.path()) + " " + sh(dir / "use.cpp"));
  EXPECT_EQ(cxx.exitCode, 0) << cxx.err << h;
  // The header by itself too.
  auto alone = test::run("cc -fsyntax-only -Wall -Wextra -Werror -x c " + sh(dir / "gemm.h"));
  EXPECT_EQ(alone.exitCode, 0) << alone.err;
  // And a wrong redeclaration is caught, so the check above means something.
  std::ofstream(dir / "wrong.c") << "#include \"gemm.h\"\nvoid gemm_small(double *A);\n";
  auto wrong = test::run("cc -fsyntax-only -x c -I " + sh(dir.path()) + " " + sh(dir / "wrong.c"));
  EXPECT_NE(wrong.exitCode, 0) << "a conflicting prototype compiled: is the header empty?\n" << h;
}

TEST(CompileCli, HeaderDeclaresEachElementTypeByItsStorage) {
  TempDir dir("header-types");
  std::ofstream(dir / "t.isam")
      << "kernel t<N>(A: f16[N], B: bf16[N], C: f32[N], D: f64[N], E: i8[N]) -> (F: i32[N]) {\n"
         "  F[i] = i32(f32(A[i]) + f32(B[i]) + C[i] + f32(D[i]) + f32(E[i]));\n"
         "}\n"
         "instance t3 = t<3>;\n";
  auto r = compile(sh(dir / "t.isam") + " --target host --emit=header -o " + sh(dir / "t.h"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::string h = test::readFile((dir / "t.h").string());
  EXPECT_TRUE(has(h, "void t3(const uint16_t *A, const uint16_t *B, const float *C, "
                     "const double *D, const int8_t *E, int32_t *F);"))
      << h;
  // Self-contained: it includes what it uses.
  auto c = test::run("cc -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -x c " +
                     sh(dir / "t.h"));
  EXPECT_EQ(c.exitCode, 0) << c.err << h;
}

TEST(CompileCli, SharedLibraryComputesTheGemm) {
  TempDir dir("shared");
  auto r = compile(kGemmSmall + " --emit=shared -o " + sh(dir / "libgemm.so"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(dir.list(), std::vector<std::string>{"libgemm.so"});
  // Never closed: the OpenMP runtime it pulled in may keep threads in its code.
  void *lib = dlopen((dir / "libgemm.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  using Gemm = void (*)(const float *, const float *, float *);
  using Args = void (*)(void *const *);
  auto gemm = reinterpret_cast<Gemm>(dlsym(lib, "gemm_small"));
  auto args = reinterpret_cast<Args>(dlsym(lib, "gemm_small__args"));
  ASSERT_NE(gemm, nullptr) << dlerror();
  ASSERT_NE(args, nullptr) << dlerror();
  // General inputs this time (not exact): compare with a naive loop within a tolerance.
  std::vector<float> a(kM * kK), b(kK * kN), c(kM * kN, std::nanf(""));
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = std::sin(float(i) * 0.7f);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = std::cos(float(i) * 1.3f);
  gemm(a.data(), b.data(), c.data());
  std::vector<double> want(kM * kN, 0.0);
  for (int m = 0; m < kM; ++m)
    for (int n = 0; n < kN; ++n) {
      for (int k = 0; k < kK; ++k)
        want[size_t(m * kN + n)] += double(a[size_t(m * kK + k)]) * double(b[size_t(k * kN + n)]);
      EXPECT_NEAR(c[size_t(m * kN + n)], want[size_t(m * kN + n)], 1e-5) << m << ", " << n;
    }
  std::vector<float> c2(kM * kN, std::nanf(""));
  void *argv[3] = {a.data(), b.data(), c2.data()};
  args(argv);
  EXPECT_EQ(c2, c) << "the __args entry computes what the plain one does";
  // The same with the thread count given.
  using ArgsThreads = void (*)(void *const *, int);
  auto argsThreads = reinterpret_cast<ArgsThreads>(dlsym(lib, "gemm_small__args_threads"));
  ASSERT_NE(argsThreads, nullptr) << dlerror();
  for (int threads : {1, 3}) {
    std::vector<float> c3(kM * kN, std::nanf(""));
    void *argv3[3] = {a.data(), b.data(), c3.data()};
    argsThreads(argv3, threads);
    EXPECT_EQ(c3, c) << "__args_threads on " << threads << " threads";
  }
}

TEST(CompileCli, SharedLibraryLinkFailuresLeaveNothing) {
  // The object goes to a temporary (in TMPDIR) and the library to a temporary beside the
  // output: neither survives, whether cc is missing, fails, or succeeds.
  TempDir dir("shared-fail");
  fs::create_directories(dir / "tmp");
  fs::create_directories(dir / "bin");
  fs::create_directories(dir / "out");
  std::ofstream(dir / "bin" / "cc") << "#!/bin/sh\necho 'fake cc refuses' >&2\nexit 3\n";
  fs::permissions(dir / "bin" / "cc", fs::perms::owner_all);
  std::string env = "TMPDIR=" + sh(dir / "tmp") + " ";
  std::string args = " compile " + kGemmSmall + " --emit=shared -o " + sh(dir / "out" / "g.so");

  auto missing = test::run(env + "PATH=" + sh(dir / "nowhere") + " " + kIsamap + args);
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_TRUE(has(missing.err, "(cc)")) << missing.err;
  EXPECT_TRUE(fs::is_empty(dir / "out"));
  EXPECT_TRUE(fs::is_empty(dir / "tmp"));

  auto failing = test::run(env + "PATH=" + sh(dir / "bin") + " " + kIsamap + args);
  EXPECT_EQ(failing.exitCode, 1);
  EXPECT_TRUE(has(failing.err, "cc exited with 3")) << failing.err;
  EXPECT_TRUE(fs::is_empty(dir / "out"));
  EXPECT_TRUE(fs::is_empty(dir / "tmp"));

  auto ok = test::run(env + kIsamap + args);
  EXPECT_EQ(ok.exitCode, 0) << ok.err;
  EXPECT_TRUE(fs::is_empty(dir / "tmp"));
  EXPECT_TRUE(fs::exists(dir / "out" / "g.so"));
}

// ---- linking with the object ----------------------------------------------------------------

TEST(CompileCli, CAndCxxProgramsLinkedWithTheObjectRunRight) {
  TempDir dir("link");
  auto o = compile(kGemmSmall + " --emit=obj -o " + sh(dir / "gemm.o"));
  ASSERT_EQ(o.exitCode, 0) << o.err;
  auto h = compile(kGemmSmall + " --emit=header -o " + sh(dir / "gemm.h"));
  ASSERT_EQ(h.exitCode, 0) << h.err;
  std::ofstream(dir / "main.c") << kDriver;
  std::ofstream(dir / "main.cpp") << kDriver;
  std::vector<double> want = expectedC();
  for (const char *language : {"c", "c++"}) {
    std::string lang = language;
    SCOPED_TRACE(lang);
    std::string program = (dir / ("prog-" + lang)).string();
    std::string build =
        lang == "c" ? "cc -std=c99 -Wall -Wextra -Werror -o '" + program + "' " + sh(dir / "main.c")
                    : "c++ -Wall -Wextra -Werror -o '" + program + "' " + sh(dir / "main.cpp");
    auto b = test::run(build + " " + sh(dir / "gemm.o") + " -lgomp -lm");
    ASSERT_EQ(b.exitCode, 0) << b.err;
    for (const char *threads : {"", "ISAMAP_NUM_THREADS=1 ", "ISAMAP_NUM_THREADS=3 "}) {
      auto run = test::run(std::string(threads) + "'" + program + "'");
      ASSERT_EQ(run.exitCode, 0) << threads << run.err;
      std::vector<double> got = parseLines(run.out);
      ASSERT_EQ(got.size(), 2 * want.size()) << run.out;
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i], want[i]) << threads << "C[" << i << "]";
        EXPECT_EQ(got[want.size() + i], want[i]) << threads << "__args: C[" << i << "]";
      }
    }
  }
  // The expected values are not all zero (the comparison means something).
  EXPECT_GT(std::count_if(want.begin(), want.end(), [](double v) { return v != 0; }), 20);
}

TEST(CompileCli, EveryInstanceOfAFileInOneObjectAndHeader) {
  std::string tool = nm();
  if (tool.empty())
    GTEST_SKIP() << "no nm on the PATH";
  TempDir dir("two");
  std::string src = (dir / "two.isam").string();
  std::ofstream(src) << kTwoKernels;
  auto r = compile(sh(src) + " --target host -o " + sh(dir / "two.o") + " --format=json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kernels"], nlohmann::json({"g3", "a9"})) << r.out;
  auto syms = test::run(tool + " " + sh(dir / "two.o"));
  for (const char *s : {"g3", "g3__args", "a9", "a9__args"})
    EXPECT_TRUE(std::regex_search(syms.out, std::regex(std::string(R"(\sT )") + s + "\n")))
        << s << "\n"
        << syms.out;
  auto h = compile(sh(src) + " --target host --emit=header -o " + sh(dir / "two.h"));
  ASSERT_EQ(h.exitCode, 0) << h.err;
  std::string header = test::readFile((dir / "two.h").string());
  EXPECT_TRUE(has(header, "void g3(const float *A, const float *B, float *C);")) << header;
  EXPECT_TRUE(has(header, "void a9(const float *X, const float *Bias, float *Y);")) << header;
}

// ---- cross targets --------------------------------------------------------------------------

TEST(CompileCli, ArmNeonObjectIsAArch64WithVectorFma) {
  std::string tool = objdump();
  if (tool.empty())
    GTEST_SKIP() << "no llvm-objdump on the PATH";
  TempDir dir("arm");
  auto r = compile(test::samplePath("gemm.isam") +
                   " --instance gemm_small --target arm_neon "
                   "--emit=obj -o " +
                   sh(dir / "g.o"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto d = test::run(tool + " -d " + sh(dir / "g.o"));
  ASSERT_EQ(d.exitCode, 0) << d.err;
  EXPECT_TRUE(has(d.out, "file format elf64-littleaarch64")) << d.out.substr(0, 500);
  EXPECT_TRUE(has(d.out, "<gemm_small>:")) << d.out.substr(0, 500);
  // The description's fma4 instruction: FMLA on four f32 lanes.
  EXPECT_TRUE(std::regex_search(d.out, std::regex(R"(\bfmla\s+v\d+\.4s)")))
      << d.out.substr(0, 4000);
}

TEST(CompileCli, RiscvObjectIsRiscvWithVectorCode) {
  std::string tool = objdump();
  if (tool.empty())
    GTEST_SKIP() << "no llvm-objdump on the PATH";
  TempDir dir("riscv");
  auto r = compile(test::samplePath("gemm.isam") +
                   " --instance gemm_small --target riscv_rvv "
                   "--emit=obj -o " +
                   sh(dir / "g.o"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto d = test::run(tool + " -d " + sh(dir / "g.o"));
  ASSERT_EQ(d.exitCode, 0) << d.err;
  EXPECT_TRUE(has(d.out, "file format elf64-littleriscv")) << d.out.substr(0, 500);
  EXPECT_TRUE(has(d.out, "<gemm_small>:")) << d.out.substr(0, 500);
  // RVV: vector loads of f32 and a vector multiply-add.
  EXPECT_TRUE(std::regex_search(d.out, std::regex(R"(\bvle32\.v\b)"))) << d.out.substr(0, 4000);
  EXPECT_TRUE(std::regex_search(d.out, std::regex(R"(\bvf(macc|madd)\.v[vf]\b)")))
      << d.out.substr(0, 4000);
  EXPECT_TRUE(std::regex_search(d.out, std::regex(R"(\bvset(i)?vli\b)"))) << d.out.substr(0, 4000);
}

TEST(CompileCli, CrossSharedLibraryIsRefusedAndWritesNothing) {
  TempDir dir("arm-shared");
  auto r = compile(test::samplePath("gemm.isam") +
                   " --instance gemm_small --target arm_neon "
                   "--emit=shared -o " +
                   sh(dir / "g.so"));
  EXPECT_EQ(r.exitCode, 1) << r.out;
  EXPECT_TRUE(has(r.err, "linker")) << r.err;
  EXPECT_TRUE(has(r.err, "aarch64")) << r.err;
  EXPECT_EQ(dir.list(), std::vector<std::string>{});
  // An existing file of that name is left as it was.
  std::ofstream(dir / "g.so") << "old";
  auto again = compile(test::samplePath("gemm.isam") +
                       " --instance gemm_small --target "
                       "arm_neon --emit=shared -o " +
                       sh(dir / "g.so"));
  EXPECT_EQ(again.exitCode, 1);
  EXPECT_EQ(test::readFile((dir / "g.so").string()), "old");
  EXPECT_EQ(dir.list(), std::vector<std::string>{"g.so"});
}

// ---- the default output, JSON ---------------------------------------------------------------

TEST(CompileCli, DefaultOutputIsTheFileStemInTheCurrentDirectory) {
  TempDir dir("default");
  const std::pair<const char *, const char *> kinds[] = {{"obj", "gemm.o"},
                                                         {"asm", "gemm.s"},
                                                         {"llvm", "gemm.ll"},
                                                         {"header", "gemm.h"},
                                                         {"shared", "gemm.so"}};
  std::vector<std::string> want;
  for (const auto &[emit, file] : kinds) {
    std::string cmd = "cd " + sh(dir.path()) + " && " + kIsamap + " compile " +
                      test::samplePath("gemm.isam") + " --target host --instance gemm_small";
    if (std::string(emit) != "obj")
      cmd += std::string(" --emit=") + emit;
    auto r = test::run(cmd);
    ASSERT_EQ(r.exitCode, 0) << emit << ": " << r.err;
    EXPECT_TRUE(has(r.out, std::string("wrote ") + file + ":")) << r.out;
    want.push_back(file);
    std::sort(want.begin(), want.end());
    EXPECT_EQ(dir.list(), want) << emit;
  }
  EXPECT_GT(fs::file_size(dir / "gemm.o"), 0u);
}

TEST(CompileCli, JsonNamesTheOutputAndTheKernels) {
  TempDir dir("json");
  std::string out = (dir / "k.o").string();
  auto r = compile(test::samplePath("gemm.isam") +
                   " --target host --kernel gemm -D M=3 -D N=4 "
                   "-D K=5 --format json -o '" +
                   out + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["output"], out);
  EXPECT_EQ(j["kernels"], nlohmann::json::array({"gemm"}));
  EXPECT_EQ(j["target"], "host");
  EXPECT_EQ(j["emit"], "obj");
  EXPECT_TRUE(j["scheduleMilliseconds"].is_number()) << r.out;
  EXPECT_TRUE(j["llvmMilliseconds"].is_number()) << r.out;
  EXPECT_TRUE(fs::exists(out));
}

// ---- errors ---------------------------------------------------------------------------------

TEST(CompileCli, UnknownTarget) {
  TempDir dir("unknown-target");
  auto r = compile(test::samplePath("gemm.isam") + " --instance gemm_small --target x86_avx51 -o " +
                   sh(dir / "g.o"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(has(r.err, "unknown target 'x86_avx51'")) << r.err;
  // The shipped descriptions are candidates for the suggestion, loaded or not.
  EXPECT_TRUE(has(r.err, "did you mean 'x86_avx512'?")) << r.err;
  EXPECT_EQ(dir.list(), std::vector<std::string>{});
}

// A system is not a target: say so and name its units, rather than "did you mean" its own name.
TEST(CompileCli, SystemIsNotATarget) {
  TempDir dir("system");
  for (const char *command : {"compile", "run", "schedule"}) {
    auto r = test::run(kIsamap + " " + command + " " + test::samplePath("gemm.isam") +
                       " --instance gemm_small --target soc" +
                       (command == std::string("compile") ? " -o " + sh(dir / "g.o") : ""));
    EXPECT_EQ(r.exitCode, 1) << command;
    EXPECT_TRUE(has(r.err, "'soc' is a system, not a target; this command needs one target, "
                           "e.g. one of its units: 'x86_avx512', 'systolic16'"))
        << command << ": " << r.err;
    EXPECT_FALSE(has(r.err, "did you mean")) << command << ": " << r.err;
  }
  EXPECT_EQ(dir.list(), std::vector<std::string>{});
}

// --target NAME finds NAME.isam on the search path; when that file declares other targets, the
// message says which, and never suggests NAME itself.
TEST(CompileCli, TargetFileDeclaringAnotherName) {
  TempDir dir("other");
  fs::create_directories(dir / "inc");
  std::ofstream(dir / "inc" / "other.isam") << "target myacc { memory DRAM { size 1 GiB; } }\n";
  auto r = compile(test::samplePath("gemm.isam") + " --instance gemm_small --target other -I " +
                   sh(dir / "inc") + " -o " + sh(dir / "g.o"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(has(r.err, "unknown target 'other'; ")) << r.err;
  EXPECT_TRUE(has(r.err, "other.isam declares target 'myacc'")) << r.err;
  EXPECT_FALSE(has(r.err, "did you mean 'other'")) << r.err;
  auto typo = compile(kGemmSmall.substr(0, kGemmSmall.find(" --target")) +
                      " --target x86_avx3 -o " + sh(dir / "g.o"));
  EXPECT_TRUE(has(typo.err, "unknown target 'x86_avx3'; did you mean 'x86_avx2'?")) << typo.err;
  EXPECT_EQ(dir.list(), std::vector<std::string>{"inc"});
}

TEST(CompileCli, TargetWithoutNativeCode) {
  TempDir dir("systolic");
  std::ofstream(dir / "g.o") << "old";
  auto r = compile(test::samplePath("gemm.isam") +
                   " --instance gemm_small --target systolic16 --emit=obj "
                   "-o " +
                   sh(dir / "g.o"));
  EXPECT_EQ(r.exitCode, 2); // a usage error: what the target can emit is known up front
  EXPECT_TRUE(has(r.err, "systolic16")) << r.err;
  EXPECT_TRUE(has(r.err, "triple")) << r.err;
  EXPECT_EQ(test::readFile((dir / "g.o").string()), "old");
  EXPECT_EQ(dir.list(), std::vector<std::string>{"g.o"});
}

TEST(CompileCli, OutputInAMissingDirectory) {
  TempDir dir("missing-dir");
  for (const char *emit : {"obj", "header", "shared"}) {
    auto r = compile(kGemmSmall + " --emit=" + emit + " -o " + sh(dir / "no/such/g.out"));
    EXPECT_EQ(r.exitCode, 1) << emit;
    EXPECT_TRUE(has(r.err, "cannot write")) << emit << ": " << r.err;
    EXPECT_TRUE(has(r.err, "no/such/g.out")) << emit << ": " << r.err;
    EXPECT_EQ(dir.list(), std::vector<std::string>{}) << emit;
  }
}

TEST(CompileCli, OutputThatIsADirectory) {
  TempDir dir("is-dir");
  fs::create_directories(dir / "sub");
  auto r = compile(kGemmSmall + " -o " + sh(dir / "sub"));
  EXPECT_EQ(r.exitCode, 1) << r.out;
  EXPECT_TRUE(has(r.err, "cannot write")) << r.err;
  EXPECT_EQ(dir.list(), std::vector<std::string>{"sub"}) << "no temporary left beside it";
  EXPECT_TRUE(fs::is_directory(dir / "sub"));
  EXPECT_TRUE(fs::is_empty(dir / "sub"));
}

TEST(CompileCli, ExistingOutputIsReplacedWhole) {
  TempDir dir("replace");
  std::ofstream(dir / "g.h") << std::string(100000, 'x'); // longer than any header
  auto r = compile(kGemmSmall + " --emit=header -o " + sh(dir / "g.h"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::string h = test::readFile((dir / "g.h").string());
  EXPECT_FALSE(has(h, "xxxxxxxxxx")) << "old content left";
  EXPECT_LT(h.size(), 10000u);
  EXPECT_TRUE(has(h, "gemm_small")) << h;
  EXPECT_EQ(dir.list(), std::vector<std::string>{"g.h"});
}

TEST(CompileCli, UsageErrors) {
  auto bogus = compile(kGemmSmall + " --emit=bogus -o /dev/null");
  EXPECT_EQ(bogus.exitCode, 2);
  EXPECT_TRUE(has(bogus.err, "bogus")) << bogus.err;
  auto noTarget = compile(test::samplePath("gemm.isam") + " --instance gemm_small");
  EXPECT_EQ(noTarget.exitCode, 2);
  EXPECT_TRUE(has(noTarget.err, "--target")) << noTarget.err;
  auto both = compile(kGemmSmall + " --kernel gemm -D M=1");
  EXPECT_EQ(both.exitCode, 2) << both.err;
}

// --emit=stream is an accelerator's instruction stream: for a native target it is a usage
// error (it was an uncaught std::out_of_range, exit 134).
TEST(CompileCli, StreamForANativeTargetIsAUsageError) {
  TempDir dir("stream-host");
  auto r = compile(kGemmSmall + " --emit=stream -o " + sh(dir / "g.json"));
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(has(r.err, "--emit=stream")) << r.err;
  EXPECT_TRUE(has(r.err, "--emit=obj, asm, llvm, shared or header")) << r.err;
  EXPECT_EQ(dir.list(), std::vector<std::string>{});
}

TEST(CompileCli, SyntaxErrorWritesNothing) {
  TempDir dir("syntax");
  std::ofstream(dir / "bad.isam")
      << "kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i] +; }\ninstance k4 = k<4>;\n";
  for (const char *emit : {"obj", "header", "shared"}) {
    auto r = test::run("cd " + sh(dir.path()) + " && " + kIsamap + " compile bad.isam " +
                       "--target host --emit=" + emit);
    EXPECT_EQ(r.exitCode, 1) << emit;
    EXPECT_TRUE(has(r.err, "bad.isam:1:54: error[E0101]")) << r.err;
    EXPECT_EQ(dir.list(), std::vector<std::string>{"bad.isam"}) << emit;
  }
  // With an explicit output, and a file already there: left alone.
  std::ofstream(dir / "out.o") << "old";
  auto r = compile(sh(dir / "bad.isam") + " --target host -o " + sh(dir / "out.o"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(test::readFile((dir / "out.o").string()), "old");
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"bad.isam", "out.o"}));
}

TEST(CompileCli, UnknownInstance) {
  TempDir dir("unknown-instance");
  auto r = compile(test::samplePath("gemm.isam") + " --instance gemm_smal --target host -o " +
                   sh(dir / "g.o"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(has(r.err, "did you mean 'gemm_small'?")) << r.err;
  EXPECT_EQ(dir.list(), std::vector<std::string>{});
}

// ---- symbol names ---------------------------------------------------------------------------

namespace {

// The functions a header declares.
std::vector<std::string> declaredFunctions(const std::string &header) {
  std::vector<std::string> out;
  std::regex decl(R"(\nvoid (\w+)\()");
  for (auto it = std::sregex_iterator(header.begin(), header.end(), decl);
       it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

} // namespace

TEST(CompileCli, HeaderAndObjectAgreeWhenNamesClash) {
  // Instance names are the C symbols. A name the generated code itself calls (atoi and getenv
  // read ISAMAP_NUM_THREADS), or one that is another instance's companion (g and g__args, or
  // g__args_threads), must either be refused with a message naming it, or give an object that
  // defines every function the header declares under that very name, and a header that
  // compiles.
  std::string tool = nm();
  if (tool.empty())
    GTEST_SKIP() << "no nm on the PATH";
  const std::string gemm = "kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                           "  C[m, n] += A[m, k] * B[k, n];\n"
                           "}\n";
  const std::pair<const char *, std::string> cases[] = {
      {"atoi", gemm + "instance atoi = gemm<5, 4, 3>;\n"},
      {"g__args", gemm + "instance g = gemm<3, 4, 5>;\ninstance g__args = gemm<5, 4, 3>;\n"},
      {"g__args_threads",
       gemm + "instance g = gemm<3, 4, 5>;\ninstance g__args_threads = gemm<5, 4, 3>;\n"},
  };
  for (const auto &[name, text] : cases) {
    SCOPED_TRACE(name);
    TempDir dir(std::string("clash-") + name);
    std::ofstream(dir / "k.isam") << text;
    auto o = compile(sh(dir / "k.isam") + " --target host -o " + sh(dir / "k.o"));
    if (o.exitCode == 1) {
      EXPECT_TRUE(has(o.err, name)) << o.err;
      EXPECT_FALSE(fs::exists(dir / "k.o"));
      continue;
    }
    ASSERT_EQ(o.exitCode, 0) << o.err;
    auto h = compile(sh(dir / "k.isam") + " --target host --emit=header -o " + sh(dir / "k.h"));
    ASSERT_EQ(h.exitCode, 0) << h.err;
    std::string header = test::readFile((dir / "k.h").string());
    auto syms = test::run(tool + " " + sh(dir / "k.o"));
    ASSERT_EQ(syms.exitCode, 0) << syms.err;
    auto declared = declaredFunctions(header);
    EXPECT_GE(declared.size(), 2u) << header;
    for (const auto &f : declared)
      EXPECT_TRUE(std::regex_search(syms.out, std::regex(R"(\sT )" + f + "\n")))
          << "BUG: the header declares " << f << " and the object does not define it:\n"
          << syms.out;
    auto c = test::run("cc -fsyntax-only -Wall -Werror -x c " + sh(dir / "k.h"));
    EXPECT_EQ(c.exitCode, 0) << "BUG: the header does not compile:\n" << c.err;
  }
}

// ---- object, header and depfile in one run (what isamap_add_kernels runs) ---------------------

TEST(CompileCli, ObjectHeaderAndDepfileInOneRun) {
  TempDir dir("depfile");
  std::ofstream(dir / "layers.isam") << "kernel act<N>(X: f32[N]) -> (Y: f32[N]) {\n"
                                        "  Y[i] = relu(X[i]);\n"
                                        "}\n";
  std::ofstream(dir / "my kernels.isam") << "import \"layers.isam\";\n"
                                            "instance a9 = act<9>;\n";
  auto r = compile(sh(dir / "my kernels.isam") + " --target x86_avx2 -o " + sh(dir / "k.o") +
                   " --header " + sh(dir / "k.h") + " --depfile " + sh(dir / "k.d"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(has(r.out, "k.o and " + (dir / "k.h").string())) << r.out;
  EXPECT_TRUE(has(test::readFile((dir / "k.h").string()), "void a9(const float *X, float *Y);"));
  EXPECT_GT(fs::file_size(dir / "k.o"), 0u);
  // Make syntax: both outputs, then every file read, spaces escaped.
  std::string d = test::readFile((dir / "k.d").string());
  std::string escaped = (dir / "my kernels.isam").string();
  escaped.insert(escaped.rfind(' '), "\\");
  EXPECT_EQ(d.rfind((dir / "k.o").string() + " " + (dir / "k.h").string() + ":", 0), 0u) << d;
  EXPECT_TRUE(has(d, escaped)) << d;
  EXPECT_TRUE(has(d, (dir / "layers.isam").string())) << d;
  EXPECT_TRUE(has(d, "x86_avx2.isam")) << d;
}

TEST(CompileCli, HeaderForAnAcceleratorIsAUsageErrorAndWritesNothing) {
  TempDir dir("accel-header");
  auto r = compile(test::samplePath("gemm.isam") + " --instance gemm_small --target systolic16 " +
                   "-o " + sh(dir / "g.s") + " --header " + sh(dir / "g.h"));
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(has(r.err, "no C header")) << r.err;
  EXPECT_EQ(dir.list(), std::vector<std::string>{});
}

TEST(CompileCli, AnUnwritableDepfileLeavesNoObjectOrHeader) {
  TempDir dir("depfile-missing-dir");
  auto r = compile(kGemmSmall + " -o " + sh(dir / "g.o") + " --header " + sh(dir / "g.h") +
                   " --depfile " + sh(dir / "no/such/g.d"));
  EXPECT_EQ(r.exitCode, 1) << r.out;
  EXPECT_TRUE(has(r.err, "cannot write the depfile")) << r.err;
  EXPECT_EQ(dir.list(), std::vector<std::string>{}) << "a build must not see a stale pair";
}

TEST(CompileCli, DashIsStdoutAndTheReportGoesToStderr) {
  TempDir dir("stdout");
  auto r = test::run("cd " + sh(dir.path()) + " && " + kIsamap + " compile " + kGemmSmall +
                     " --emit=header -o -");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(has(r.out, "void gemm_small(const float *A, const float *B, float *C);")) << r.out;
  EXPECT_FALSE(has(r.out, "wrote")) << r.out;
  EXPECT_TRUE(has(r.err, "wrote /dev/stdout")) << r.err;
  EXPECT_EQ(dir.list(), std::vector<std::string>{}) << "no file named '-'";
}
