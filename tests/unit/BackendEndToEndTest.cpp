// The LLVM backend end to end, in process: kernels scheduled for `host`, compiled by the ORC JIT
// (backends/llvm/Jit.h), run on the interpreter's seeded inputs through NativeBuffers and
// compared with the reference interpreter within interp::tolerance. Every *small* and *unit*
// instance of every sample; the sample kernels bound with odd sizes (primes, 1) so that every
// loop has a remainder against every vector width and tile; every element type and function;
// thread counts (given to the call, or ISAMAP_NUM_THREADS) that do not divide the parallel loop;
// the same kernel twice in one Jit; and the targets a Jit must refuse.
#include "backends/llvm/Jit.h"
#include "backends/llvm/NativeBuffers.h"
#include "hw/Host.h"
#include "interp/Interpreter.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

using namespace isam;
namespace fs = std::filesystem;

namespace {

// What to compile: an instance of a sample (file and --instance), a sample kernel bound with
// sizes (file, --kernel and -D), or a kernel given as text.
struct Case {
  std::string name; // the test's name
  std::string file; // samples/FILE; empty when `text` is the source
  std::string text;
  InstanceSelector selector;
  bool reciprocalMath = false; // SessionOptions::reciprocalMath
};

void PrintTo(const Case &c, std::ostream *os) {
  *os << c.name;
}

std::string render(Session &s) {
  std::string out;
  for (const auto &d : s.diagnostics().all())
    out += renderDiagnostic(d, s.sources()) + "\n";
  return out.empty() ? "(no diagnostics)" : out;
}

std::vector<std::string> sampleFiles() {
  std::vector<std::string> files;
  for (const auto &e : fs::directory_iterator(test::sourceDir() + "/samples"))
    if (e.path().extension() == ".isam")
      files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

bool isSmall(const std::string &instance) {
  return instance.find("small") != std::string::npos || instance.find("unit") != std::string::npos;
}

// Every *small* / *unit* instance of every sample, found by loading the samples.
std::vector<Case> sampleCases() {
  std::vector<Case> out;
  for (const auto &file : sampleFiles()) {
    Session s;
    if (!s.loadFile(test::samplePath(file)))
      continue; // reported by SampleInstancesAreDiscovered
    for (const auto &k : s.instances({})) {
      if (!isSmall(k.name))
        continue;
      Case c;
      c.name = k.name;
      c.file = file;
      c.selector.instance = k.name;
      out.push_back(c);
    }
  }
  return out;
}

Case bound(const std::string &file, const std::string &kernel,
           const std::vector<std::pair<std::string, int64_t>> &sizes) {
  Case c;
  c.file = file;
  c.name = kernel;
  c.selector.kernel = kernel;
  for (size_t i = 0; i < sizes.size(); ++i) {
    c.selector.sizes[sizes[i].first] = sizes[i].second;
    c.name += (i ? "x" : "_") + std::to_string(sizes[i].second);
  }
  return c;
}

// The sample kernels with odd sizes: primes and 1 (remainders against every vector width and
// tile, degenerate loops), each small enough for the interpreter to run in well under a second.
Case text(const std::string &name, const std::string &source);

// A pointwise convolution pinned to w on the lanes and rows of h in the register tile.
const std::string kPointwiseBlocked =
    "kernel pw<C, H, W, F>(T: f32[C, H, W], P: f32[F, C]) -> (O: f32[F, H, W]) {\n"
    "  O[f, h, w] += P[f, c] * T[c, h, w];\n"
    "  schedule { map fma16; tile ZMM: w 16, h 4, f 4; }\n"
    "}\n";

std::vector<Case> oddCases() {
  return {
      bound("gemm.isam", "gemm", {{"M", 67}, {"N", 131}, {"K", 257}}),
      bound("gemm.isam", "gemm", {{"M", 1}, {"N", 17}, {"K", 3}}),
      bound("gemm.isam", "gemm", {{"M", 19}, {"N", 1}, {"K", 1}}),
      bound("gemm.isam", "gemm_tn", {{"M", 31}, {"N", 1}, {"K", 29}}),
      bound("gemm.isam", "gemm_nt", {{"M", 13}, {"N", 37}, {"K", 1}}),
      // Transposed layouts large enough for tiles at every cache level (and packs).
      bound("gemm.isam", "gemm_tn", {{"M", 131}, {"N", 67}, {"K", 257}}),
      bound("gemm.isam", "gemm_nt", {{"M", 67}, {"N", 131}, {"K", 257}}),
      bound("gemm.isam", "gemm_bf16", {{"M", 5}, {"N", 23}, {"K", 37}}),
      bound("batched_gemm.isam", "bgemm", {{"NB", 3}, {"M", 11}, {"N", 13}, {"K", 7}}),
      bound("batched_gemm.isam", "bgemm_shared", {{"NB", 2}, {"M", 5}, {"N", 17}, {"K", 3}}),
      bound("conv2d.isam", "conv2d",
            {{"N", 1}, {"C", 3}, {"H", 11}, {"W", 13}, {"K", 5}, {"R", 3}, {"S", 3}}),
      bound("conv2d.isam", "conv2d_s2",
            {{"N", 1}, {"C", 2}, {"H", 11}, {"W", 13}, {"K", 3}, {"R", 3}, {"S", 5}}),
      bound("conv2d.isam", "conv2d_nhwc",
            {{"N", 1}, {"H", 7}, {"W", 11}, {"C", 3}, {"K", 5}, {"R", 3}, {"S", 2}}),
      bound("dwsep.isam", "dwsep", {{"C", 5}, {"H", 7}, {"W", 11}, {"F", 3}}),
      // Large enough for the pointwise GEMM's register tiles and packs (w or f on the lanes).
      bound("dwsep.isam", "dwsep", {{"C", 37}, {"H", 13}, {"W", 15}, {"F", 29}}),
      // T packed into L2 in blocks of the register tile's rows of h, with w on the lanes whole
      // (b) or in blocks (a), and partial blocks at the ends.
      text("pw_blocked_a", kPointwiseBlocked + "instance pw_blocked_a = pw<33, 45, 51, 13>;\n"),
      text("pw_blocked_b", kPointwiseBlocked + "instance pw_blocked_b = pw<31, 61, 67, 9>;\n"),
      bound("gru.isam", "gru_cell", {{"B", 2}, {"I", 11}, {"H", 13}}),
      bound("lstm.isam", "lstm_cell", {{"B", 2}, {"I", 7}, {"H", 17}}),
      bound("attention.isam", "attention", {{"NH", 3}, {"S", 5}, {"T", 7}, {"D", 11}}),
      bound("attention.isam", "attention", {{"NH", 1}, {"S", 1}, {"T", 13}, {"D", 3}}),
      bound("maxpool.isam", "maxpool2x2", {{"N", 1}, {"C", 3}, {"H", 7}, {"W", 11}}),
      bound("maxpool.isam", "maxpool3x3s2", {{"N", 1}, {"C", 2}, {"H", 5}, {"W", 3}}),
      bound("mlp.isam", "mlp2", {{"B", 5}, {"I", 13}, {"H", 17}, {"O", 3}}),
      bound("mlp.isam", "mlp2", {{"B", 13}, {"I", 257}, {"H", 131}, {"O", 7}}),
  };
}

Case text(const std::string &name, const std::string &source) {
  Case c;
  c.name = name;
  c.text = source;
  c.selector.instance = name;
  return c;
}

Case reciprocal(Case c) {
  c.reciprocalMath = true;
  return c;
}

// exp, log, tanh and sigmoid of f32 over the ranges where each overflows, underflows or
// saturates, and a GRU-like gate.
const std::string kTranscendental =
    "kernel tr<N>(X: f32[N], W: f32[N])\n"
    "    -> (E: f32[N], L: f32[N], T: f32[N], S: f32[N], G: f32[N]) {\n"
    "  E[i] = exp(X[i] * 100) + exp(W[i] * 0.5);\n"
    "  L[i] = log(abs(X[i]) * 1e30) + log(abs(X[i]) * 1e-30);\n"
    "  T[i] = tanh(X[i] * 12) + tanh(W[i] * 0.5);\n"
    "  S[i] = sigmoid(X[i] * 120) + sigmoid(W[i] * 3);\n"
    "  G[i] = sigmoid(X[i] + W[i]) * tanh(W[i] * 2);\n"
    "}\n";

// Element types, functions and shapes the samples do not use.
std::vector<Case> typeCases() {
  return {
      text("f16_gemm", "kernel h<M, N, K>(A: f16[M, K], B: f16[K, N]) -> (C: f16[M, N]) {\n"
                       "  C[m, n] += A[m, k] * B[k, n];\n"
                       "}\n"
                       "instance f16_gemm = h<5, 19, 11>;\n"),
      text("bf16_out", "kernel b<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: bf16[M, N]) {\n"
                       "  T[m, n] += A[m, k] * B[k, n];\n"
                       "  C[m, n] = bf16(T[m, n]);\n"
                       "}\n"
                       "instance bf16_out = b<3, 17, 7>;\n"),
      text("i8_dot_i32", "kernel q<M, N, K>(A: i8[M, K], B: i8[K, N]) -> (C: i32[M, N]) {\n"
                         "  C[m, n] += i32(A[m, k]) * i32(B[k, n]);\n"
                         "}\n"
                         "instance i8_dot_i32 = q<7, 23, 29>;\n"),
      text("i8_saturating", "kernel s<N>(A: i8[N], B: i8[N]) -> (O: i8[N]) {\n"
                            "  O[i] = A[i] * B[i] * 3;\n"
                            "}\n"
                            "instance i8_saturating = s<37>;\n"),
      text("f64_gemm", "kernel d<M, N, K>(A: f64[M, K], B: f64[K, N]) -> (C: f64[M, N]) {\n"
                       "  C[m, n] += A[m, k] * B[k, n];\n"
                       "}\n"
                       "instance f64_gemm = d<7, 11, 13>;\n"),
      text("functions", "kernel f<N, M>(X: f32[N, M]) -> (Y: f32[N, M], Mx: f32[N], Mn: f32[N]) {\n"
                        "  Y[i, j] = exp(X[i, j]) + tanh(X[i, j]) + sigmoid(X[i, j])\n"
                        "          + relu(X[i, j]) + sqrt(abs(X[i, j])) + log(abs(X[i, j]) + 1)\n"
                        "          + max(X[i, j], 0.25) - min(X[i, j], -0.5) / 3 + abs(X[i, j]);\n"
                        "  Mx[i] max= X[i, j] * X[i, j];\n"
                        "  Mn[i] min= -X[i, j];\n"
                        "}\n"
                        "instance functions = f<5, 23>;\n"),
      text("scalar_dot", "kernel dot<N>(A: f32[N], B: f32[N]) -> (S: f32) {\n"
                         "  S += A[i] * B[i];\n"
                         "}\n"
                         "instance scalar_dot = dot<101>;\n"),
      // Divisions by constants (ir/Canonicalize.h): exact ones are multiplications, on odd sizes
      // and a reduction (an average pool); the others stay divisions.
      text("divisions", "kernel v<H, W>(X: f32[H, W], F: f16[W]) -> (Y: f32[W], Z: f16[W], "
                        "T: f32[W]) {\n"
                        "  Y[w] += X[h, w] / 8;\n"
                        "  Z[w] = F[w] / -0.5 + F[w] / 3;\n"
                        "  T[w] = X[0, w] / 7;\n"
                        "}\n"
                        "instance divisions = v<13, 37>;\n"),
      reciprocal(text("reciprocal_math",
                      "kernel r<H, W>(X: f32[H, W], F: f16[W]) -> (Y: f32[W], Z: f16[W]) {\n"
                      "  Y[w] += X[h, w] / 13;\n"
                      "  Z[w] = F[w] / 3;\n"
                      "}\n"
                      "instance reciprocal_math = r<13, 37>;\n")),
      // Partial mappings whose operands are expressions of one access each: the packs
      // compute them (conversions, functions), the instruction the rest.
      text("computed_operands",
           "kernel c<M, N, K>(A: f16[M, K], B: bf16[K, N], X: f32[M, N]) -> (C: f32[M, N], "
           "Y: f32[M, N]) {\n"
           "  C[m, n] += f32(A[m, k]) * f32(B[k, n]);\n"
           "  Y[m, n] = tanh(X[m, n]) * sigmoid(X[m, n] * 2);\n"
           "}\n"
           "instance computed_operands = c<19, 37, 29>;\n"),
      // exp, log, tanh and sigmoid (backends/llvm/VectorMath) over wide ranges (overflow and
      // underflow of exp, saturation of tanh and sigmoid) on sizes with a remainder against
      // every vector width, in every element type; integer-typed calls are computed in double.
      text("transcendental_37", kTranscendental + "instance transcendental_37 = tr<37>;\n"),
      text("transcendental_1000", kTranscendental + "instance transcendental_1000 = tr<1000>;\n"),
      text("transcendental_f64",
           "kernel d<N>(X: f64[N]) -> (E: f64[N], L: f64[N], T: f64[N], S: f64[N]) {\n"
           "  E[i] = exp(X[i] * 720);\n"
           "  L[i] = log(abs(X[i]) * 1e300) + log(abs(X[i]) * 1e-300);\n"
           "  T[i] = tanh(X[i] * 20) + tanh(X[i] * 0.5);\n"
           "  S[i] = sigmoid(X[i] * 800) + sigmoid(X[i] * 3);\n"
           "}\n"
           "instance transcendental_f64 = d<37>;\n"),
      text("transcendental_half",
           "kernel h<N>(X: f16[N], Y: bf16[N]) -> (A: f16[N], B: bf16[N]) {\n"
           "  A[i] = exp(X[i] * 10) + log(abs(X[i]) + 0.01) + tanh(X[i] * 4) + sigmoid(X[i] * 9);\n"
           "  B[i] = exp(Y[i] * 60) + log(abs(Y[i]) + 0.01) + tanh(Y[i] * 4) + sigmoid(Y[i] * 9);\n"
           "}\n"
           "instance transcendental_half = h<37>;\n"),
      text("transcendental_int",
           "kernel q<N>(A: i32[N], B: i8[N]) -> (P: i32[N], Q: i8[N]) {\n"
           "  P[i] = exp(A[i] * 3) + log(A[i] * A[i] + 1) * 100 + tanh(A[i]) + sigmoid(A[i] * 9);\n"
           "  Q[i] = exp(B[i]) + log(B[i] * B[i] + 2) + sigmoid(B[i]);\n"
           "}\n"
           "instance transcendental_int = q<37>;\n"),
      // An output written, read back and written again.
      text("rewritten", "kernel k<N>(A: f32[N]) -> (B: f32[N], C: f32[N]) {\n"
                        "  B[i] = A[i];\n"
                        "  C[i] = B[i] * 2;\n"
                        "  B[i] = C[i] + 1;\n"
                        "}\n"
                        "instance rewritten = k<29>;\n"),
  };
}

std::vector<Case> allCases() {
  std::vector<Case> out = sampleCases();
  for (auto *more : {oddCases, typeCases})
    for (const auto &c : more())
      out.push_back(c);
  return out;
}

// Deterministic: the candidate budget, never the clock, stops the search.
schedule::ScheduleOptions options() {
  schedule::ScheduleOptions o;
  o.budget.candidates = 3000;
  o.budget.milliseconds = 1e9;
  return o;
}

// A case loaded, scheduled for host and compiled.
struct Compiled {
  std::unique_ptr<Session> session;
  ir::Kernel kernel;
  std::optional<hw::Target> target;
  schedule::KernelSchedule schedule;
  std::unique_ptr<backend::Jit> jit;
  backend::EntryFn entry = nullptr;

  std::string describe() const { return schedule::printSchedule(schedule, kernel, *target); }
};

void load(const Case &c, Compiled &out, const std::string &targetName = "host") {
  SessionOptions sessionOptions;
  sessionOptions.reciprocalMath = c.reciprocalMath;
  out.session = std::make_unique<Session>(sessionOptions);
  if (c.file.empty()) {
    out.session->loadText(c.name + ".isam", c.text);
  } else {
    ASSERT_TRUE(out.session->loadFile(test::samplePath(c.file))) << render(*out.session);
  }
  auto kernels = out.session->instances(c.selector);
  ASSERT_EQ(kernels.size(), 1u) << render(*out.session);
  out.kernel = kernels[0];
  out.target = out.session->target(targetName);
  ASSERT_TRUE(out.target) << render(*out.session);
  out.schedule = out.session->schedule(out.kernel, *out.target, options());
  ASSERT_FALSE(out.session->diagnostics().hasErrors()) << render(*out.session);
  ASSERT_EQ(out.schedule.statements.size(), out.kernel.statements.size());
}

void compile(const Case &c, Compiled &out, const std::string &targetName = "host") {
  ASSERT_NO_FATAL_FAILURE(load(c, out, targetName));
  auto jit = backend::Jit::create(*out.target);
  if (!jit && targetName != "host") {
    // A shipped description this CPU cannot run (another architecture, missing features).
    GTEST_SKIP() << llvm::toString(jit.takeError());
  }
  ASSERT_TRUE(bool(jit)) << llvm::toString(jit.takeError());
  out.jit = std::move(*jit);
  auto entry = out.jit->add(out.kernel, out.schedule);
  ASSERT_TRUE(bool(entry)) << llvm::toString(entry.takeError()) << "\n" << out.describe();
  out.entry = *entry;
  ASSERT_NE(out.entry, nullptr);
}

bool hasNaN(const std::vector<double> &v, size_t *where) {
  for (size_t i = 0; i < v.size(); ++i)
    if (std::isnan(v[i])) {
      *where = i;
      return true;
    }
  return false;
}

// The outputs in `native` against the reference: no NaN left (toNative poisons float outputs
// with NaN bytes, so an element the kernel never wrote shows up; the references have no NaN),
// and the largest relative error within the tolerance.
void expectOutputsMatch(const Compiled &c, const interp::Buffers &inputs,
                        const interp::Buffers &ref, const backend::NativeBuffers &native,
                        const std::string &context) {
  const ir::Kernel &k = c.kernel;
  interp::Buffers got = inputs;
  backend::fromNative(k, native, got);
  for (size_t t = 0; t < k.tensors.size(); ++t) {
    if (k.tensors[t].role != ir::TensorRole::Output)
      continue;
    size_t at = 0;
    ASSERT_FALSE(hasNaN(ref[t], &at)) << "the reference has NaN at " << k.tensors[t].name << "["
                                      << at << "]: inputs unfit for this test";
    EXPECT_FALSE(hasNaN(got[t], &at))
        << k.name << " " << context << ": " << k.tensors[t].name << "[" << at
        << "] is NaN, the value toNative put there: never written, or overwritten with what was "
           "there before\n"
        << c.describe();
  }
  auto cmp = interp::compareOutputs(k, ref, got);
  double tol = interp::tolerance(k);
  EXPECT_TRUE(std::isfinite(cmp.maxAbsError))
      << k.name << " " << context << ": " << cmp.worstTensor << "[" << cmp.worstIndex << "]\n"
      << c.describe();
  EXPECT_LE(cmp.maxRelError, tol) << k.name << " " << context << ": worst at " << cmp.worstTensor
                                  << "[" << cmp.worstIndex << "], got "
                                  << got[size_t(k.tensorIndex(cmp.worstTensor))][cmp.worstIndex]
                                  << ", want "
                                  << ref[size_t(k.tensorIndex(cmp.worstTensor))][cmp.worstIndex]
                                  << "\n"
                                  << c.describe();
}

// Runs the compiled kernel on fresh buffers of the seeded inputs and checks the outputs, and
// that the inputs were left alone.
void runAndCompare(const Compiled &c, uint64_t seed, const std::string &context = "") {
  const ir::Kernel &k = c.kernel;
  interp::Buffers inputs = interp::randomInputs(k, seed);
  interp::Buffers ref = inputs;
  interp::run(k, ref);
  backend::NativeBuffers native = backend::toNative(k, inputs);
  std::vector<std::vector<unsigned char>> before = native.storage;
  c.entry(native.args.data());
  std::string what = context + " (seed " + std::to_string(seed) + ")";
  ASSERT_NO_FATAL_FAILURE(expectOutputsMatch(c, inputs, ref, native, what));
  for (size_t t = 0; t < k.tensors.size(); ++t)
    if (k.tensors[t].role == ir::TensorRole::Input) {
      EXPECT_TRUE(native.storage[t] == before[t])
          << k.name << what << ": the kernel wrote to its input " << k.tensors[t].name;
    }
}

// Sets an environment variable for a scope and restores it (or its absence) after.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::string &value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  const char *name_;
  std::optional<std::string> old_;
};

// The iterations of the kernel's parallel loops (the most any statement's has; 0: none), from
// the schedule IR. Generated code runs min(threads, iterations) threads.
int64_t parallelTrips(const schedule::Node &n, const schedule::Config &c) {
  int64_t trips = 0;
  if (n.kind == schedule::Node::Kind::Loop && n.parallel && n.v >= 0 && n.step > 0)
    trips = (c.vindices[size_t(n.v)].extent + n.step - 1) / n.step;
  for (const auto &child : n.body)
    trips = std::max(trips, parallelTrips(child, c));
  return trips;
}

int64_t parallelTrips(const schedule::KernelSchedule &ks) {
  int64_t trips = 0;
  for (const auto &s : ks.statements)
    trips = std::max(trips, parallelTrips(s.root, s.config));
  return trips;
}

} // namespace

// ---- every case ---------------------------------------------------------------------------

class HostKernel : public ::testing::TestWithParam<Case> {};

TEST_P(HostKernel, MatchesTheReferenceInterpreter) {
  Compiled c;
  ASSERT_NO_FATAL_FAILURE(compile(GetParam(), c));
  ASSERT_NO_FATAL_FAILURE(runAndCompare(c, 1));
  ASSERT_NO_FATAL_FAILURE(runAndCompare(c, 2));
}

INSTANTIATE_TEST_SUITE_P(Host, HostKernel, ::testing::ValuesIn(allCases()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return info.param.name;
                         });

// The shipped x86 descriptions other than host's: generic (no instruction: every statement is
// scalar code) and x86_avx2 (8-lane instructions, where host has 16), on the small samples
// and the element-type cases. Skipped where this CPU cannot run them.
struct TargetCase {
  Case c;
  std::string target;
};

void PrintTo(const TargetCase &c, std::ostream *os) {
  *os << c.c.name << " on " << c.target;
}

std::vector<TargetCase> otherTargetCases() {
  std::vector<TargetCase> out;
  for (const char *target : {"generic", "x86_avx2"}) {
    for (const auto &c : sampleCases())
      out.push_back({c, target});
    for (const auto &c : typeCases())
      out.push_back({c, target});
  }
  return out;
}

class OtherTargetKernel : public ::testing::TestWithParam<TargetCase> {};

TEST_P(OtherTargetKernel, MatchesTheReferenceInterpreter) {
  Compiled c;
  ASSERT_NO_FATAL_FAILURE(compile(GetParam().c, c, GetParam().target));
  if (IsSkipped())
    return;
  EXPECT_EQ(c.target->name, GetParam().target);
  ASSERT_NO_FATAL_FAILURE(runAndCompare(c, 1));
}

INSTANTIATE_TEST_SUITE_P(X86, OtherTargetKernel, ::testing::ValuesIn(otherTargetCases()),
                         [](const ::testing::TestParamInfo<TargetCase> &info) {
                           return info.param.c.name + "_on_" + info.param.target;
                         });

TEST(BackendEndToEnd, SampleInstancesAreDiscovered) {
  // Every sample file loads and contributes at least one small or unit instance; the
  // parameterised suite above is only as good as this list.
  auto cases = sampleCases();
  std::set<std::string> files;
  for (const auto &c : cases)
    files.insert(c.file);
  for (const auto &f : sampleFiles())
    EXPECT_TRUE(files.count(f)) << f << " has no *small* or *unit* instance (or did not load)";
  EXPECT_GE(files.size(), 9u);
  std::set<std::string> names;
  for (const auto &c : cases)
    names.insert(c.name);
  for (const char *n : {"gemm_small", "gemm_unit", "conv_s2_small", "attention_small",
                        "maxpool3x3s2_small", "lstm_unit"})
    EXPECT_TRUE(names.count(n)) << n;
}

TEST(BackendEndToEnd, AttentionWithOneKey) {
  // Not named small or unit, but the softmax of one element (exactly 1) is its own remainder.
  Case c;
  c.name = "attention_one_key";
  c.file = "attention.isam";
  c.selector.instance = "attention_one_key";
  Compiled k;
  ASSERT_NO_FATAL_FAILURE(compile(c, k));
  ASSERT_NO_FATAL_FAILURE(runAndCompare(k, 3));
}

// Lane-reduced mappings (k on the lanes of the element-wise FMA, each element of C folded by
// the description's horizontal sum), pinned so that they run whatever the cost model prefers:
// GEMV and N <= 5, k not a multiple of the lanes, M odd; and row sums and maxima.
TEST(BackendEndToEnd, LaneReducedMappingsMatchTheReference) {
  for (const char *target : {"host", "x86_avx2"}) {
    auto probe = test::analyse("");
    auto t = probe->target(target);
    ASSERT_TRUE(t);
    std::string lanes = t->instruction("fma16v") ? "16" : "8";
    std::string source = "kernel g<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                         "  C[m, n] += A[m, k] * B[k, n];\n"
                         "  schedule { map fma" +
                         lanes +
                         "v; }\n"
                         "}\n"
                         "kernel rs<M, K>(A: f32[M, K]) -> (y: f32[M]) { y[m] += A[m, k]; }\n"
                         "kernel rm<M, K>(A: f32[M, K]) -> (y: f32[M]) { y[m] max= A[m, k]; }\n"
                         "instance g1 = g<37, 1, 45>;\ninstance g2 = g<9, 2, 100>;\n"
                         "instance g3 = g<13, 3, 257>;\ninstance g4 = g<5, 4, 33>;\n"
                         "instance g5 = g<11, 5, 7>;\ninstance glong = g<3, 1, 1000>;\n"
                         "instance gwide = g<67, 16, 131>;\n"
                         "instance rsum = rs<13, 17>;\ninstance rmax = rm<33, 45>;\n"
                         // One register tile spans the reduction: its folded lanes are the
                         // whole result (the Init is folded; nothing to add them onto).
                         "instance gk1 = g<29, 1, 16>;\ninstance gk2 = g<7, 3, 32>;\n"
                         "instance rsk = rs<13, 16>;\ninstance rmk = rm<5, 32>;\n";
    for (const char *instance : {"g1", "g2", "g3", "g4", "g5", "glong", "gwide", "rsum", "rmax",
                                 "gk1", "gk2", "rsk", "rmk"}) {
      SCOPED_TRACE(std::string(instance) + " on " + target);
      Compiled c;
      ASSERT_NO_FATAL_FAILURE(compile(text(instance, source), c, target));
      if (IsSkipped())
        return;
      if (instance[0] == 'g') {
        EXPECT_GE(c.schedule.statements.at(0).config.finisher, 0) << c.describe();
      }
      ASSERT_NO_FATAL_FAILURE(runAndCompare(c, 1));
      ASSERT_NO_FATAL_FAILURE(runAndCompare(c, 2));
    }
  }
}

// A reduction tiled at the register level: the Init is folded into the register stages, the
// first of each element's stages (every reduction index at 0) starting at the identity and the
// later ones loading what it left. Odd sizes so that the last tiles are partial, one and two
// reduction indices, sums and maxima; toNative's NaN poison shows any element read before the
// first stage wrote it.
TEST(BackendEndToEnd, TiledReductionsStartAtTheIdentityInTheirFirstStage) {
  std::string source =
      "kernel g<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
      "  C[m, n] += A[m, k] * B[k, n];\n"
      "  schedule { map fma16; tile L1: k 24; }\n"
      "}\n"
      "kernel c<C, H, W, K, R, S>(I: f32[C, H, W], F: f32[K, C, R, S])\n"
      "    -> (O: f32[K, H - R + 1, W - S + 1]) {\n"
      "  O[k, h, w] += I[c, h + r, w + s] * F[k, c, r, s];\n"
      "  schedule { tile L1: c 2; }\n"
      "}\n"
      // c in tiles of 2 (5 = 2 + 2 + 1) outside r's loop: in c's remainder tile, whose begin
      // is a constant, no stage is the first, whatever r's begin.
      "kernel c2<C, H, W, K, R, S>(I: f32[C, H, W], F: f32[K, C, R, S])\n"
      "    -> (O: f32[K, H - R + 1, W - S + 1]) {\n"
      "  O[k, h, w] += I[c, h + r, w + s] * F[k, c, r, s];\n"
      "  schedule { tile L1: c 2, r 1; order L2: c, r, k, h, w, s; }\n"
      "}\n"
      "kernel rm<M, K, J>(A: f32[M, K, J]) -> (y: f32[M, J]) {\n"
      "  y[m, j] max= A[m, k, j];\n"
      "  schedule { map maxacc16; tile L1: k 3; }\n"
      "}\n"
      // k on the lanes, in blocks of 32 (33 = 32 + 1) outside the register tiles: the lanes
      // of the remainder block, whose begin is a constant other than 0, are folded onto what
      // the first block stored, not over it.
      "kernel gl<M, N, K>(A: f32[M, K], B: f32[N, K]) -> (C: f32[M, N]) {\n"
      "  C[m, n] += A[m, k] * B[n, k];\n"
      "  schedule { map fma16v; tile L3: k 32, m 8, n 4; tile ZMM: k 32, m 4, n 4; }\n"
      "}\n"
      "instance gemm = g<37, 45, 100>;\ninstance conv = c<5, 9, 11, 7, 3, 3>;\n"
      "instance rowmax = rm<9, 10, 19>;\ninstance conv2 = c2<5, 9, 11, 7, 3, 3>;\n"
      "instance lanes = gl<8, 4, 33>;\n";
  for (const char *instance : {"gemm", "conv", "rowmax", "conv2", "lanes"}) {
    SCOPED_TRACE(instance);
    Compiled c;
    ASSERT_NO_FATAL_FAILURE(compile(text(instance, source), c));
    const schedule::Config &config = c.schedule.statements.at(0).config;
    bool tiled = false;
    for (size_t v = 0; v < config.vindices.size(); ++v)
      tiled = tiled ||
              (config.vindices[v].reduction && config.tiles.back()[v] < config.vindices[v].extent);
    EXPECT_TRUE(tiled) << "the pins should tile a reduction in registers\n" << c.describe();
    ASSERT_NO_FATAL_FAILURE(runAndCompare(c, 1));
    ASSERT_NO_FATAL_FAILURE(runAndCompare(c, 2));
  }
}

// A sum over a long reduction that the register tiles split: each tile sums its block of k from
// zero and adds that onto C, as a BLAS micro-kernel does, so the rounding error grows with the
// block's length and the number of blocks rather than with K. Tiles that loaded C and went on
// adding to it (one chain of 300,000 additions per element) left errors ~20 times OpenBLAS's on
// 1024 x 16 x 500000. Pinned (k in blocks of 512 around the register tiles, 487 in the last) and
// as the search schedules it; with and without threads; the error against a double-precision sum of
// the same float inputs, relative to C's largest element.
TEST(BackendEndToEnd, LongSumsAddEachRegisterTilesBlockOntoTheResult) {
  std::string source =
      "kernel g<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
      "  C[m, n] += A[m, k] * B[k, n];\n"
      "}\n"
      "kernel p<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
      "  C[m, n] += A[m, k] * B[k, n];\n"
      "  schedule { map fma16; tile L3: k 512, m 16; tile ZMM: m 8; "
      "order DRAM: k, m, n; }\n"
      "}\n"
      "instance pinned = p<16, 16, 300007>;\ninstance searched = g<24, 16, 300007>;\n";
  for (const char *instance : {"pinned", "searched"}) {
    SCOPED_TRACE(instance);
    Compiled c;
    ASSERT_NO_FATAL_FAILURE(compile(text(instance, source), c));
    const ir::Kernel &k = c.kernel;
    int64_t M = k.tensors[0].shape[0], K = k.tensors[0].shape[1], N = k.tensors[1].shape[1];
    interp::Buffers inputs = interp::randomInputs(k, 7);
    const std::vector<double> &A = inputs[0], &B = inputs[1];
    std::vector<double> want(size_t(M * N), 0.0);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t kk = 0; kk < K; ++kk)
        for (int64_t n = 0; n < N; ++n)
          want[size_t(m * N + n)] += A[size_t(m * K + kk)] * B[size_t(kk * N + n)];
    double largest = 0;
    for (double w : want)
      largest = std::max(largest, std::fabs(w));
    for (int threads : {1, 2}) {
      backend::NativeBuffers native = backend::toNative(k, inputs);
      c.entry(native.args.data(), unsigned(threads));
      interp::Buffers got = inputs;
      backend::fromNative(k, native, got);
      double worst = 0;
      for (size_t i = 0; i < want.size(); ++i)
        worst = std::max(worst, std::fabs(got[2][i] - want[i]));
      EXPECT_LT(worst / largest, 3e-6) << threads << " threads\n" << c.describe();
    }
  }
}

// A register tile whose lanes run along fused indices (h*w) that wrap rows: laid out linearly
// from the tile's begin, so that its vectors stay in registers, each point addressing the
// tensors as its wrapped coordinates would. Rows of 7 and 5 columns, tiles that start inside a
// row and end in another, a last tile partial, three indices fused, one and two threads.
TEST(BackendEndToEnd, RegisterTilesOverFusedLanesThatWrapRowsMatchTheReference) {
  std::string source =
      "kernel pw<C, H, W, F>(T: f32[C, H, W], P: f32[F, C]) -> (O: f32[F, H, W]) {\n"
      "  O[f, h, w] += P[f, c] * T[c, h, w];\n"
      "}\n"
      "kernel pw3<C, A, B, D, F>(T: f32[C, A, B, D], P: f32[F, C]) -> (O: f32[F, A, B, D]) {\n"
      "  O[f, a, b, d] += P[f, c] * T[c, a, b, d];\n"
      "}\n"
      "instance one = pw<37, 5, 7, 19>;\ninstance wraps = pw<37, 9, 7, 19>;\n"
      "instance small = pw<3, 3, 5, 2>;\ninstance three = pw3<11, 3, 5, 7, 13>;\n";
  for (const char *instance : {"one", "wraps", "small", "three"}) {
    SCOPED_TRACE(instance);
    Compiled c;
    ASSERT_NO_FATAL_FAILURE(compile(text(instance, source), c));
    const schedule::Config &config = c.schedule.statements.at(0).config;
    bool fusedLanes = false;
    for (const auto &p : config.operands)
      if (p.output && !p.dims.empty() && p.dims.back() >= 0)
        fusedLanes = config.vindices[size_t(p.dims.back())].stmtIndices.size() > 1;
    EXPECT_TRUE(fusedLanes) << "the lanes should run along fused indices\n" << c.describe();
    ASSERT_NO_FATAL_FAILURE(runAndCompare(c, 1));
    ASSERT_NO_FATAL_FAILURE(runAndCompare(c, 2));
  }
}

TEST(BackendEndToEnd, PrefetchedRowsMatchTheReference) {
  // A transposed GEMM whose register tiles read each row of A once, in runs shorter than the
  // prefetchers follow: the reduction loop prefetches rows ahead, past A's end for the last
  // tiles (a prefetch never faults). Odd sizes: a masked column tile, partial last tiles of m
  // and of k.
  std::string source = "kernel tn<M, N, K>(A: f32[K, M], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                       "  C[m, n] += A[k, m] * B[k, n];\n"
                       "}\n"
                       "instance odd = tn<517, 13, 1001>;\ninstance wide = tn<515, 16, 777>;\n";
  for (const char *target : {"host", "x86_avx2"})
    for (const char *instance : {"odd", "wide"}) {
      SCOPED_TRACE(std::string(instance) + " on " + target);
      Compiled c;
      ASSERT_NO_FATAL_FAILURE(compile(text(instance, source), c, target));
      if (c.entry == nullptr)
        continue; // skipped: this CPU cannot run the target
      bool prefetches = false;
      std::function<void(const schedule::Node &)> walk = [&](const schedule::Node &n) {
        prefetches = prefetches || !n.prefetches.empty();
        for (const auto &x : n.body)
          walk(x);
      };
      walk(c.schedule.statements.at(0).root);
      EXPECT_TRUE(prefetches) << "the rows of A should be prefetched\n" << c.describe();
      ASSERT_NO_FATAL_FAILURE(runAndCompare(c, 1));
      ASSERT_NO_FATAL_FAILURE(runAndCompare(c, 2));
    }
}

TEST(BackendEndToEnd, ResultTilesPrefetchedAsTheyStartMatchTheReference) {
  // C larger than x86_avx2's L3 (8.5 MB): each register tile of C prefetches the lines it
  // writes back, including those of the last tiles of m and n, which reach past C's rows and
  // past its end (a prefetch never faults). Odd sizes: masked column tiles (1031 = 64 x 16 + 7),
  // a last tile of 5 rows (2063 = 343 x 6 + 5), and m on the lanes (C's tile the transpose of
  // its rows; 2063 = 257 x 8 + 7, 1031 = 206 x 5 + 1). A short reduction keeps the reference
  // quick.
  std::string source = "kernel nn<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                       "  C[m, n] += A[m, k] * B[k, n];\n"
                       "  schedule { map fma8; tile YMM: n 16, m 6; }\n"
                       "}\n"
                       "kernel tn<M, N, K>(A: f32[K, M], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                       "  C[m, n] += A[k, m] * B[k, n];\n"
                       "  schedule { map fma8; tile YMM: m 8, n 5; }\n"
                       "}\n"
                       "instance odd = nn<2063, 1031, 3>;\ninstance lanes = tn<2063, 1031, 3>;\n";
  for (const char *instance : {"odd", "lanes"}) {
    SCOPED_TRACE(instance);
    Compiled c;
    ASSERT_NO_FATAL_FAILURE(compile(text(instance, source), c, "x86_avx2"));
    if (c.entry == nullptr)
      continue; // skipped: this CPU cannot run the target
    bool prefetched = false;
    std::function<void(const schedule::Node &)> walk = [&](const schedule::Node &n) {
      prefetched = prefetched || n.prefetchTile;
      for (const auto &x : n.body)
        walk(x);
    };
    walk(c.schedule.statements.at(0).root);
    EXPECT_TRUE(prefetched) << "C's register tiles should be prefetched\n" << c.describe();
    ASSERT_NO_FATAL_FAILURE(runAndCompare(c, 1));
  }
}

TEST(BackendEndToEnd, TransposedRegisterTilesMatchTheReference) {
  // m on the lanes of C[m, n] (row-major): the accumulators' register tile is the transpose of
  // C's rows, copied through square blocks transposed in registers. Odd sizes give partial blocks
  // both ways (13 of 16 lanes, 9 of 12 columns), tiles of one column (a gather, not
  // transposed), and sums over blocks of k added onto C. Column tiles that are not a multiple
  // of the lanes leave m alone on the lanes.
  struct Pinned {
    const char *target, *instruction, *registers, *tileA, *tileB;
  };
  for (const Pinned &t : {Pinned{"host", "fma16", "ZMM", "m 32, n 12", "m 16, n 9"},
                          Pinned{"x86_avx2", "fma8", "YMM", "m 16, n 6", "m 8, n 5"}}) {
    auto kernel = [&](const std::string &name, const std::string &tile) {
      return "kernel " + name + "<M, N, K>(A: f32[K, M], B: f32[K, N]) -> (C: f32[M, N]) {\n" +
             "  C[m, n] += A[k, m] * B[k, n];\n  schedule { map " + t.instruction + "; tile " +
             t.registers + ": " + tile + "; }\n}\n";
    };
    std::string source = kernel("tn_a", t.tileA) + kernel("tn_b", t.tileB) +
                         "instance a = tn_a<77, 25, 1000>;\ninstance b = tn_b<45, 19, 333>;\n"
                         "instance c = tn_b<250, 64, 129>;\n";
    for (const char *instance : {"a", "b", "c"}) {
      SCOPED_TRACE(std::string(instance) + " on " + t.target);
      Compiled c;
      ASSERT_NO_FATAL_FAILURE(compile(text(instance, source), c, t.target));
      if (c.entry == nullptr)
        continue; // skipped: this CPU cannot run the target
      const schedule::Config &config = c.schedule.statements.at(0).config;
      ASSERT_GE(config.mapping, 0) << c.describe();
      EXPECT_NE(c.describe().find("(m x"), std::string::npos) << c.describe();
      ASSERT_NO_FATAL_FAILURE(runAndCompare(c, 1));
      ASSERT_NO_FATAL_FAILURE(runAndCompare(c, 3));
    }
  }
}

TEST(BackendEndToEnd, TranscendentalInstructionsRunAsVectorCode) {
  // A target whose instructions compute exp, log, tanh and sigmoid: the statements map onto
  // them, so the functions are evaluated on 8 lanes at once (5 active in the remainder), over
  // the ranges where exp overflows and underflows and tanh and sigmoid saturate.
  const std::string source =
      "target vmath {\n"
      "  llvm triple \"x86_64-unknown-linux-gnu\" cpu \"haswell\" features \"+avx2,+fma\";\n"
      "  cores 2;\n"
      "  clock 3 GHz;\n"
      "  memory DRAM { size 16 GiB; bandwidth 25.6 GB/s; latency 230; }\n"
      "  memory L1 : DRAM { size 32 KiB; line 64 B; bandwidth 64 B/cycle; latency 5; }\n"
      "  registers YMM : L1 { count 16; width 32 B; }\n"
      "  unit fp { count 2; }\n"
      "  instr exp8(dst: out f32[8] in YMM, a: f32[8] in YMM) on fp { dst[i] = exp(a[i]); }\n"
      "    cost { latency 20; per_cycle 1/4; }\n"
      "  instr log8(dst: out f32[8] in YMM, a: f32[8] in YMM) on fp { dst[i] = log(a[i]); }\n"
      "    cost { latency 20; per_cycle 1/4; }\n"
      "  instr tanh8(dst: out f32[8] in YMM, a: f32[8] in YMM) on fp { dst[i] = tanh(a[i]); }\n"
      "    cost { latency 20; per_cycle 1/4; }\n"
      "  instr sigmoid8(dst: out f32[8] in YMM, a: f32[8] in YMM) on fp {\n"
      "    dst[i] = sigmoid(a[i]);\n"
      "  } cost { latency 20; per_cycle 1/4; }\n"
      "  move load8(dst: out f32[8] in YMM, src: f32[8] in L1) { dst[i] = src[i]; }\n"
      "    cost { latency 6; per_cycle 2; }\n"
      "  move store8(dst: out f32[8] in L1, src: f32[8] in YMM) { dst[i] = src[i]; }\n"
      "    cost { latency 1; per_cycle 1; }\n"
      "}\n"
      "kernel v<N>(X: f32[N]) -> (E: f32[N], L: f32[N], T: f32[N], S: f32[N]) {\n"
      "  W[i] = X[i] * 100;\n"
      "  A[i] = abs(X[i]) * 1e20;\n"
      "  E[i] = exp(W[i]);\n"
      "  L[i] = log(A[i]);\n"
      "  T[i] = tanh(W[i]);\n"
      "  S[i] = sigmoid(W[i]);\n"
      "}\n"
      "instance vmath_functions = v<37>;\n";
  Compiled k;
  ASSERT_NO_FATAL_FAILURE(compile(text("vmath_functions", source), k, "vmath"));
  if (IsSkipped())
    return;
  for (size_t s = 2; s < k.schedule.statements.size(); ++s)
    EXPECT_GE(k.schedule.statements[s].config.mapping, 0)
        << "statement " << s << " runs as scalar code\n"
        << k.describe();
  ASSERT_NO_FATAL_FAILURE(runAndCompare(k, 4));
}

// ---- threads ------------------------------------------------------------------------------

// An input's pack that the parallel loop does not move is hoisted out of it: the threads share
// one panel, packed once (BLIS's B, packed per block of the reduction for all of M). Odd sizes,
// the last blocks partial, on 1 to 3 threads.
TEST(BackendEndToEnd, APanelSharedByTheThreadsIsPackedOnce) {
  Case c = text("panel", "kernel g<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                         "  C[m, n] += A[m, k] * B[k, n];\n"
                         "  schedule { tile L3: n 256, m 48, k 64; tile L1: n 32, m 8; "
                         "order DRAM: n, k, m; parallel: m; }\n"
                         "}\n"
                         "instance panel = g<101, 1030, 75>;\n");
  Compiled k;
  ASSERT_NO_FATAL_FAILURE(compile(c, k));
  // The stage of B sits above the parallel loop.
  const schedule::StatementSchedule &ss = k.schedule.statements.at(0);
  std::function<bool(const schedule::Node &, bool)> sharedPack = [&](const schedule::Node &n,
                                                                     bool inStage) {
    if (n.kind == schedule::Node::Kind::Loop && n.parallel)
      return inStage;
    bool stage = n.kind == schedule::Node::Kind::Stage &&
                 ss.config.operands[size_t(ss.buffers[size_t(n.buffer)].operand)].tensor == 1;
    for (const auto &x : n.body)
      if (sharedPack(x, inStage || stage))
        return true;
    return false;
  };
  EXPECT_TRUE(sharedPack(ss.root, false)) << k.describe();
  for (int threads : {1, 2, 3})
    ASSERT_NO_FATAL_FAILURE(runAndCompare(k, threads));
}

TEST(BackendEndToEnd, EveryThreadCountGivesTheSameResult) {
  // A batch of 7 (prime) products, the batch loop pinned parallel one product per trip (too
  // small to be worth the threads by itself): 1, 2 and 3 threads get uneven shares of it.
  Case c = text("par7", "kernel bgemm<NB, M, N, K>(A: f32[NB, M, K], B: f32[NB, K, N])\n"
                        "    -> (C: f32[NB, M, N]) {\n"
                        "  C[b, m, n] += A[b, m, k] * B[b, k, n];\n"
                        "  schedule { parallel: b; tile L3: b 1; }\n"
                        "}\n"
                        "instance par7 = bgemm<7, 11, 13, 5>;\n");
  Compiled k;
  ASSERT_NO_FATAL_FAILURE(compile(c, k));
  int64_t trips = parallelTrips(k.schedule);
  ASSERT_GE(trips, 5) << "this test needs a parallel loop of at least 5 iterations:\n"
                      << k.describe();
  interp::Buffers inputs = interp::randomInputs(k.kernel, 4);
  interp::Buffers ref = inputs;
  interp::run(k.kernel, ref);
  // The same buffers through every call: outputs are overwritten, not accumulated into.
  backend::NativeBuffers shared = backend::toNative(k.kernel, inputs);
  for (int threads : {1, 2, 3, 2, 1}) {
    // Given to the call, and (for the generated code's default) through the variable.
    backend::NativeBuffers given = backend::toNative(k.kernel, inputs);
    k.entry(given.args.data(), unsigned(threads));
    ASSERT_NO_FATAL_FAILURE(expectOutputsMatch(
        k, inputs, ref, given, "on " + std::to_string(threads) + " threads given to the call"));
    ScopedEnv env("ISAMAP_NUM_THREADS", std::to_string(threads));
    backend::NativeBuffers fresh = backend::toNative(k.kernel, inputs);
    k.entry(fresh.args.data());
    ASSERT_NO_FATAL_FAILURE(expectOutputsMatch(
        k, inputs, ref, fresh, "on " + std::to_string(threads) + " threads, fresh buffers"));
    k.entry(shared.args.data());
    ASSERT_NO_FATAL_FAILURE(expectOutputsMatch(
        k, inputs, ref, shared, "on " + std::to_string(threads) + " threads, reused buffers"));
  }
#if defined(__linux__)
  // The variable really sets the team size: 5 threads (more than this machine's cores, which
  // the target would use by default, and no more than the parallel loop's iterations) leave
  // libgomp's pool of at least 4 workers behind.
  {
    ScopedEnv env("ISAMAP_NUM_THREADS", "5");
    backend::NativeBuffers fresh = backend::toNative(k.kernel, inputs);
    k.entry(fresh.args.data());
    ASSERT_NO_FATAL_FAILURE(expectOutputsMatch(k, inputs, ref, fresh, "on 5 threads"));
    size_t threads = 0;
    for ([[maybe_unused]] const auto &task : fs::directory_iterator("/proc/self/task"))
      ++threads;
    EXPECT_GE(threads, 5u) << "ISAMAP_NUM_THREADS=5 did not start 5 threads (target cores: "
                           << k.target->cores << ")";
  }
  // The count the caller passes wins over the variable: 6 threads asked for with
  // ISAMAP_NUM_THREADS=1 grow the pool past the 5 above (ignoring the count would run one).
  if (trips >= 6) {
    ScopedEnv env("ISAMAP_NUM_THREADS", "1");
    backend::NativeBuffers fresh = backend::toNative(k.kernel, inputs);
    k.entry(fresh.args.data(), 6);
    ASSERT_NO_FATAL_FAILURE(expectOutputsMatch(k, inputs, ref, fresh, "on 6 threads, given"));
    size_t threads = 0;
    for ([[maybe_unused]] const auto &task : fs::directory_iterator("/proc/self/task"))
      ++threads;
    EXPECT_GE(threads, 6u) << "a count of 6 passed to the entry point did not start 6 threads";
  }
#endif
  // Nonsense in the variable: the target's cores.
  for (const char *value : {"0", "-4", "lots", ""}) {
    ScopedEnv env("ISAMAP_NUM_THREADS", value);
    backend::NativeBuffers fresh = backend::toNative(k.kernel, inputs);
    k.entry(fresh.args.data());
    ASSERT_NO_FATAL_FAILURE(expectOutputsMatch(
        k, inputs, ref, fresh, std::string("with ISAMAP_NUM_THREADS='") + value + "'"));
  }
}

// Scalar code (here: a function no instruction computes, and a reduction) large enough to be
// worth it gets a parallel loop over a write index; every thread count agrees with the
// reference.
TEST(BackendEndToEnd, LargeScalarCodeRunsInParallel) {
  Case c = text("gates", "kernel gates<B, H, K>(X: f32[B, H], W: f32[B, K]) -> (Y: f32[B, H], "
                         "S: f32[B]) {\n"
                         "  Y[b, h] = tanh(X[b, h]);\n"
                         "  S[b] += exp(W[b, k]);\n"
                         "}\n"
                         "instance gates = gates<67, 521, 523>;\n");
  Compiled k;
  ASSERT_NO_FATAL_FAILURE(compile(c, k));
  for (const auto &ss : k.schedule.statements)
    ASSERT_LT(ss.config.mapping, 0) << k.describe();
  ASSERT_GE(parallelTrips(k.schedule), 67) << k.describe();
  interp::Buffers inputs = interp::randomInputs(k.kernel, 9);
  interp::Buffers ref = inputs;
  interp::run(k.kernel, ref);
  for (int threads : {1, 2, 3}) {
    ScopedEnv env("ISAMAP_NUM_THREADS", std::to_string(threads));
    backend::NativeBuffers fresh = backend::toNative(k.kernel, inputs);
    k.entry(fresh.args.data());
    ASSERT_NO_FATAL_FAILURE(
        expectOutputsMatch(k, inputs, ref, fresh, "on " + std::to_string(threads) + " threads"));
  }
  // A one-core description keeps scalar code on one thread.
  Compiled one;
  ASSERT_NO_FATAL_FAILURE(load(c, one, "generic"));
  ASSERT_EQ(one.target->cores, 1u);
  EXPECT_EQ(parallelTrips(one.schedule), 0) << one.describe();
}

TEST(BackendEndToEnd, ScopedEnvRestoresTheEnvironment) {
  // The helper the thread test relies on.
  unsetenv("ISAMAP_TEST_SCOPED_ENV");
  {
    ScopedEnv e("ISAMAP_TEST_SCOPED_ENV", "3");
    ASSERT_NE(std::getenv("ISAMAP_TEST_SCOPED_ENV"), nullptr);
    EXPECT_STREQ(std::getenv("ISAMAP_TEST_SCOPED_ENV"), "3");
    {
      ScopedEnv inner("ISAMAP_TEST_SCOPED_ENV", "5");
      EXPECT_STREQ(std::getenv("ISAMAP_TEST_SCOPED_ENV"), "5");
    }
    EXPECT_STREQ(std::getenv("ISAMAP_TEST_SCOPED_ENV"), "3");
  }
  EXPECT_EQ(std::getenv("ISAMAP_TEST_SCOPED_ENV"), nullptr);
}

TEST(BackendEndToEnd, ManyParallelCallsAreAllRight) {
  // Races between the threads of a parallel loop show up only now and then: many compilations
  // and calls, each call on fresh buffers (outputs poisoned with NaN; locals fresh from the
  // heap), with 2 and 3 threads. Kernels whose parallel loop runs over fused indices (g*j,
  // i*j), whose tiles wrap across rows of the inner index.
  const std::vector<Case> cases = {
      bound("gru.isam", "gru_cell", {{"B", 2}, {"I", 11}, {"H", 13}}),
      bound("lstm.isam", "lstm_cell", {{"B", 2}, {"I", 7}, {"H", 17}}),
      text("rows", "kernel s<N, M>(X: f32[N, M], W: f32[N, M]) -> (B: f32[N, M]) {\n"
                   "  B[i, j] = max(W[i, j], X[i, j]);\n"
                   "}\n"
                   "instance rows = s<6, 37>;\n"),
  };
  constexpr int kCompiles = 2, kCalls = 15;
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    for (const char *threads : {"2", "3"}) {
      ScopedEnv env("ISAMAP_NUM_THREADS", threads);
      std::string pattern, example, schedule;
      int wrong = 0;
      for (int compilation = 0; compilation < kCompiles; ++compilation) {
        Compiled k;
        ASSERT_NO_FATAL_FAILURE(compile(c, k));
        interp::Buffers inputs = interp::randomInputs(k.kernel, 1);
        interp::Buffers ref = inputs;
        interp::run(k.kernel, ref);
        double tol = interp::tolerance(k.kernel);
        pattern += compilation ? " " : "";
        for (int call = 0; call < kCalls; ++call) {
          backend::NativeBuffers native = backend::toNative(k.kernel, inputs);
          k.entry(native.args.data());
          interp::Buffers got = inputs;
          backend::fromNative(k.kernel, native, got);
          auto cmp = interp::compareOutputs(k.kernel, ref, got);
          bool ok = cmp.maxRelError <= tol;
          pattern += ok ? '.' : 'x';
          if (!ok && wrong++ == 0) {
            example = cmp.worstTensor + "[" + std::to_string(cmp.worstIndex) +
                      "]: relative error " + std::to_string(cmp.maxRelError);
            schedule = k.describe();
          }
        }
      }
      EXPECT_EQ(wrong, 0) << "BUG: " << wrong << " of " << kCompiles * kCalls << " calls on "
                          << threads
                          << " threads were wrong (per compilation, x = wrong: " << pattern
                          << "), e.g. " << example << "\n"
                          << schedule;
    }
  }
}

// ---- one Jit, several kernels -------------------------------------------------------------

TEST(BackendEndToEnd, TheSameKernelTwiceInOneJit) {
  Compiled k;
  ASSERT_NO_FATAL_FAILURE(compile(bound("gemm.isam", "gemm", {{"M", 7}, {"N", 5}, {"K", 13}}), k));
  // The same instance again: a second entry point beside the first.
  auto again = k.jit->add(k.kernel, k.schedule);
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  EXPECT_NE(*again, k.entry);
  // Another instance of the same name ("gemm", bound with other sizes): each entry computes
  // its own sizes.
  Compiled other;
  ASSERT_NO_FATAL_FAILURE(load(bound("gemm.isam", "gemm", {{"M", 3}, {"N", 11}, {"K", 2}}), other));
  ASSERT_EQ(other.kernel.name, k.kernel.name);
  auto third = k.jit->add(other.kernel, other.schedule);
  ASSERT_TRUE(bool(third)) << llvm::toString(third.takeError());
  other.entry = *third;
  backend::EntryFn first = k.entry;
  ASSERT_NO_FATAL_FAILURE(runAndCompare(k, 5, "first"));
  k.entry = *again;
  ASSERT_NO_FATAL_FAILURE(runAndCompare(k, 5, "second"));
  ASSERT_NO_FATAL_FAILURE(runAndCompare(other, 5, "other sizes"));
  // And the first still works after the others were added.
  k.entry = first;
  ASSERT_NO_FATAL_FAILURE(runAndCompare(k, 6, "first, after"));
}

TEST(BackendEndToEnd, TwoKernelsOfOneFileInOneJit) {
  Compiled a;
  ASSERT_NO_FATAL_FAILURE(
      compile(bound("lstm.isam", "lstm_cell", {{"B", 1}, {"I", 3}, {"H", 5}}), a));
  Compiled b;
  ASSERT_NO_FATAL_FAILURE(load(bound("gru.isam", "gru_cell", {{"B", 2}, {"I", 3}, {"H", 5}}), b));
  auto entry = a.jit->add(b.kernel, b.schedule);
  ASSERT_TRUE(bool(entry)) << llvm::toString(entry.takeError());
  b.entry = *entry;
  ASSERT_NO_FATAL_FAILURE(runAndCompare(a, 1, "lstm"));
  ASSERT_NO_FATAL_FAILURE(runAndCompare(b, 1, "gru"));
}

// ---- special values ----------------------------------------------------------------------

TEST(BackendEndToEnd, NaNAndInfinityFollowTheInterpreter) {
  // "Functions follow the interpreter's definitions, including its NaN behaviour for max, min
  // and relu": std::max(a, b) is a < b ? b : a (a NaN first argument wins, a NaN second one
  // loses), relu(NaN) is 0, and max= / min= reductions skip NaN. Inputs with NaN, infinities
  // and signed zeros in every lane position of rows longer than any vector.
  const std::string source =
      "kernel s<N, M>(X: f32[N, M], W: f32[N, M])\n"
      "    -> (R: f32[N, M], A: f32[N, M], B: f32[N, M], C: f32[N, M], D: f32[N, M],\n"
      "        Mx: f32[N], Mn: f32[N], Ab: f32[N, M]) {\n"
      "  R[i, j] = relu(X[i, j]);\n"
      "  A[i, j] = max(X[i, j], W[i, j]);\n"
      "  B[i, j] = max(W[i, j], X[i, j]);\n"
      "  C[i, j] = min(X[i, j], W[i, j]);\n"
      "  D[i, j] = min(W[i, j], X[i, j]);\n"
      "  Mx[i] max= X[i, j];\n"
      "  Mn[i] min= X[i, j];\n"
      "  Ab[i, j] = abs(X[i, j]);\n"
      "}\n"
      "instance special = s<6, 37>;\n";
  for (const char *target : {"host", "generic"}) {
    SCOPED_TRACE(target);
    Compiled k;
    ASSERT_NO_FATAL_FAILURE(compile(text("special", source), k, target));
    if (::testing::Test::IsSkipped())
      return;
    interp::Buffers inputs = interp::randomInputs(k.kernel, 12);
    const double nan = std::numeric_limits<double>::quiet_NaN(),
                 inf = std::numeric_limits<double>::infinity();
    auto &x = inputs[size_t(k.kernel.tensorIndex("X"))];
    auto &w = inputs[size_t(k.kernel.tensorIndex("W"))];
    const double specials[] = {nan, inf, -inf, -0.0, 0.0};
    for (size_t e = 0; e < x.size(); e += 3)
      x[e] = specials[(e / 3) % 5];
    for (size_t e = 1; e < w.size(); e += 4)
      w[e] = specials[(e / 4 + 2) % 5];
    // Row 0 all NaN but one; row 1 all NaN.
    for (size_t j = 0; j < 37; ++j) {
      x[j] = j == 20 ? 0.5 : nan;
      x[37 + j] = nan;
    }
    interp::Buffers ref = inputs;
    interp::run(k.kernel, ref);
    backend::NativeBuffers native = backend::toNative(k.kernel, inputs);
    k.entry(native.args.data());
    interp::Buffers got = inputs;
    backend::fromNative(k.kernel, native, got);
    for (size_t t = 0; t < k.kernel.tensors.size(); ++t) {
      if (k.kernel.tensors[t].role != ir::TensorRole::Output)
        continue;
      size_t wrong = 0, first = 0;
      for (size_t e = 0; e < ref[t].size(); ++e) {
        double r = ref[t][e], g = got[t][e];
        if (!((std::isnan(r) && std::isnan(g)) || r == g) && wrong++ == 0)
          first = e;
      }
      EXPECT_EQ(wrong, 0u) << k.kernel.tensors[t].name << "[" << first << "]: got " << got[t][first]
                           << ", want " << ref[t][first] << " (x " << x[first % x.size()] << ", w "
                           << w[first % w.size()] << ")\n"
                           << k.describe();
    }
    EXPECT_EQ(ref[size_t(k.kernel.tensorIndex("Mx"))][0], 0.5);
  }
}

// ---- the ABI: alignment, reentrancy ------------------------------------------------------

TEST(BackendEndToEnd, ArraysNeedNoAlignmentBeyondTheElement) {
  // "no alignment required": every array one element past a vector boundary (malloc gives 16
  // bytes; an element more is aligned for no vector width).
  for (const Case &c : {bound("gemm.isam", "gemm", {{"M", 19}, {"N", 37}, {"K", 23}}),
                        bound("dwsep.isam", "dwsep", {{"C", 5}, {"H", 7}, {"W", 11}, {"F", 3}}),
                        bound("gemm.isam", "gemm_bf16", {{"M", 5}, {"N", 23}, {"K", 37}})}) {
    SCOPED_TRACE(c.name);
    Compiled k;
    ASSERT_NO_FATAL_FAILURE(compile(c, k));
    interp::Buffers inputs = interp::randomInputs(k.kernel, 8);
    interp::Buffers ref = inputs;
    interp::run(k.kernel, ref);
    backend::NativeBuffers aligned = backend::toNative(k.kernel, inputs);
    // The same bytes, one element further on in a larger array.
    backend::NativeBuffers shifted;
    shifted.storage.resize(aligned.storage.size());
    for (size_t t = 0; t < aligned.storage.size(); ++t) {
      if (aligned.storage[t].empty())
        continue;
      size_t bytes = size_t(ir::elemTypeBytes(k.kernel.tensors[t].type));
      shifted.storage[t].assign(bytes, 0);
      shifted.storage[t].insert(shifted.storage[t].end(), aligned.storage[t].begin(),
                                aligned.storage[t].end());
      shifted.args.push_back(shifted.storage[t].data() + bytes);
    }
    k.entry(shifted.args.data());
    // Back to where NativeBuffers expects the elements, and compare.
    for (size_t t = 0; t < aligned.storage.size(); ++t)
      if (!aligned.storage[t].empty())
        std::copy(shifted.storage[t].begin() + long(ir::elemTypeBytes(k.kernel.tensors[t].type)),
                  shifted.storage[t].end(), aligned.storage[t].begin());
    ASSERT_NO_FATAL_FAILURE(expectOutputsMatch(k, inputs, ref, aligned, "misaligned"));
  }
}

TEST(BackendEndToEnd, ConcurrentCallsOnSeparateBuffers) {
  // Locals and staging buffers are per call: two threads calling one entry at once (each
  // call with its own parallel team) do not see each other's data.
  Compiled k;
  ASSERT_NO_FATAL_FAILURE(
      compile(bound("dwsep.isam", "dwsep", {{"C", 7}, {"H", 13}, {"W", 11}, {"F", 5}}), k));
  constexpr int kCallers = 3, kCalls = 20;
  std::vector<interp::Buffers> inputs, refs;
  std::vector<std::vector<backend::NativeBuffers>> natives(kCallers);
  for (int i = 0; i < kCallers; ++i) {
    inputs.push_back(interp::randomInputs(k.kernel, uint64_t(20 + i)));
    refs.push_back(inputs.back());
    interp::run(k.kernel, refs.back());
    for (int j = 0; j < kCalls; ++j)
      natives[size_t(i)].push_back(backend::toNative(k.kernel, inputs.back()));
  }
  std::vector<std::thread> callers;
  for (int i = 0; i < kCallers; ++i)
    callers.emplace_back([&, i] {
      for (auto &n : natives[size_t(i)])
        k.entry(n.args.data());
    });
  for (auto &t : callers)
    t.join();
  for (int i = 0; i < kCallers; ++i)
    for (int j = 0; j < kCalls; ++j)
      ASSERT_NO_FATAL_FAILURE(
          expectOutputsMatch(k, inputs[size_t(i)], refs[size_t(i)], natives[size_t(i)][size_t(j)],
                             "caller " + std::to_string(i) + ", call " + std::to_string(j)));
}

// A kernel called from inside the caller's own OpenMP team (each member calling it on its own
// buffers) runs its parallel loops whole: on one thread given to the call, every iteration, not
// the share that thread's number in the caller's team would give it; on two, a team of its own.
// The team is started through libgomp's entry point, as `#pragma omp parallel` compiles to.
TEST(BackendEndToEnd, CallsFromInsideTheCallersOpenMPTeamRunEveryIteration) {
  Case c = text("inteam", "kernel g<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                          "  C[m, n] += A[m, k] * B[k, n];\n"
                          "  schedule { parallel: m; tile L3: m 16; }\n"
                          "}\n"
                          "instance inteam = g<67, 37, 19>;\n");
  Compiled k;
  ASSERT_NO_FATAL_FAILURE(compile(c, k));
  ASSERT_GE(parallelTrips(k.schedule), 4) << k.describe();
  using Body = void (*)(void *);
  auto gompParallel = reinterpret_cast<void (*)(Body, void *, unsigned, unsigned)>(
      dlsym(RTLD_DEFAULT, "GOMP_parallel"));
  auto threadNum = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "omp_get_thread_num"));
  ASSERT_TRUE(gompParallel && threadNum) << "the Jit loads libgomp";
  constexpr unsigned kMembers = 3;
  struct Team {
    const Compiled *k;
    int (*threadNum)();
    unsigned threads; // given to each call
    std::vector<backend::NativeBuffers> natives;
  };
  interp::Buffers inputs = interp::randomInputs(k.kernel, 5);
  interp::Buffers ref = inputs;
  interp::run(k.kernel, ref);
  for (unsigned threads : {1u, 2u}) {
    Team team{&k, threadNum, threads, {}};
    for (unsigned i = 0; i < kMembers; ++i)
      team.natives.push_back(backend::toNative(k.kernel, inputs));
    gompParallel(
        [](void *data) {
          auto *t = static_cast<Team *>(data);
          t->k->entry(t->natives[size_t(t->threadNum())].args.data(), t->threads);
        },
        &team, kMembers, 0);
    for (unsigned i = 0; i < kMembers; ++i)
      ASSERT_NO_FATAL_FAILURE(expectOutputsMatch(k, inputs, ref, team.natives[i],
                                                 "member " + std::to_string(i) + " calling on " +
                                                     std::to_string(threads) + " threads"));
  }
}

// ---- targets a Jit refuses ----------------------------------------------------------------

namespace {
// Shipped descriptions are found relative to a loaded file.
const char *const kAnyKernel = "kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; }\n";
} // namespace

TEST(BackendEndToEnd, JitRefusesAnotherArchitecture) {
  Session s;
  s.loadText("test.isam", kAnyKernel);
  // A target for an architecture this process is not: arm_neon here, x86 on an Arm machine.
  std::string foreign =
      hw::hostDescriptionName(hw::detectHost()) == "arm_neon" ? "x86_avx2" : "arm_neon";
  std::string arch = foreign == "arm_neon" ? "aarch64" : "x86_64";
  auto t = s.target(foreign);
  ASSERT_TRUE(t) << render(s);
  auto jit = backend::Jit::create(*t);
  ASSERT_FALSE(bool(jit)) << foreign << " should not run here";
  std::string message = llvm::toString(jit.takeError());
  EXPECT_NE(message.find(arch), std::string::npos) << message;
  EXPECT_NE(message.find(foreign), std::string::npos) << message;
}

TEST(BackendEndToEnd, JitRefusesATargetWithoutTriple) {
  Session s;
  s.loadText("test.isam", kAnyKernel);
  auto t = s.target("systolic16");
  ASSERT_TRUE(t) << render(s);
  ASSERT_TRUE(t->triple.empty());
  auto jit = backend::Jit::create(*t);
  ASSERT_FALSE(bool(jit));
  std::string message = llvm::toString(jit.takeError());
  EXPECT_NE(message.find("systolic16"), std::string::npos) << message;
  EXPECT_NE(message.find("triple"), std::string::npos) << message;
}

TEST(BackendEndToEnd, JitRefusesFeaturesThisCpuLacks) {
  Session s;
  s.loadText("test.isam", kAnyKernel);
  auto host = s.target("host");
  ASSERT_TRUE(host) << render(s);
  // XOP (AMD Bulldozer, dropped since Zen) on x86; SVE2 on Arm: no host of ours has it.
  std::string feature = host->triple.rfind("x86_64", 0) == 0 ? "xop" : "sve2";
  hw::HostCpu cpu = hw::detectHost();
  if (std::binary_search(cpu.features.begin(), cpu.features.end(), feature))
    GTEST_SKIP() << "this CPU has " << feature;
  hw::Target t = *host;
  t.name = "needs_" + feature;
  t.features += ",+" + feature;
  auto jit = backend::Jit::create(t);
  ASSERT_FALSE(bool(jit)) << "a CPU without " << feature << " cannot run " << t.features;
  std::string message = llvm::toString(jit.takeError());
  EXPECT_NE(message.find(feature), std::string::npos) << message;
  EXPECT_NE(message.find(t.name), std::string::npos) << message;
}

TEST(BackendEndToEnd, HostTargetAlwaysRunsHere) {
  Session s;
  s.loadText("test.isam", kAnyKernel);
  auto host = s.target("host");
  ASSERT_TRUE(host) << render(s);
  auto jit = backend::Jit::create(*host);
  EXPECT_TRUE(bool(jit)) << llvm::toString(jit.takeError());
}
