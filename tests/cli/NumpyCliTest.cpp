// `isamap run --inputs/--outputs` against NumPy itself (Debian's python3-numpy): inputs saved by
// np.save, np.savez and np.savez_compressed in every layout NumPy writes, results loaded by
// np.load and compared with NumPy's own computation; every element type round trips; and the
// errors a user meets.
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace isam;
namespace fs = std::filesystem;

namespace {

const std::string kIsamap = ISAMAP_BINARY;

bool has(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

class NumpyCli : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("isamap-numpy-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    auto probe = python("import numpy");
    ASSERT_EQ(probe.exitCode, 0) << "NumPy is missing: scripts/install-deps.sh installs "
                                    "python3-numpy\n"
                                 << probe.err;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs a Python script in the scratch directory.
  test::RunResult python(const std::string &script) {
    std::ofstream(dir_ / "script.py") << "import numpy as np\n" << script;
    return test::run("cd " + dir_.string() + " && " + ISAMAP_PYTHON3 + " script.py");
  }
  test::RunResult isamap(const std::string &args) {
    return test::run("cd " + dir_.string() + " && " + kIsamap + " " + args);
  }
  void write(const std::string &name, const std::string &text) {
    std::ofstream(dir_ / name) << text;
  }

  fs::path dir_;
};

const char *const kGemm = "kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                          "  C[m, n] += A[m, k] * B[k, n];\n"
                          "}\n"
                          "instance g = gemm<37, 19, 23>;\n"
                          "instance other = gemm<2, 2, 2>;\n";

} // namespace

TEST_F(NumpyCli, ResultsMatchNumpysOwnProduct) {
  write("gemm.isam", kGemm);
  auto made = python("rng = np.random.default_rng(4)\n"
                     "A = rng.standard_normal((37, 23))\n" // float64
                     "B = np.asfortranarray(rng.standard_normal((23, 19), dtype=np.float32))\n"
                     "np.savez('in.npz', A=A, B=B)\n"
                     "np.savez_compressed('inz.npz', A=A, B=B)\n"
                     "import os; os.mkdir('in')\n"
                     "np.save('in/A.npy', A.astype('>f4')); np.save('in/B.npy', B)\n");
  ASSERT_EQ(made.exitCode, 0) << made.err;
  struct Case {
    std::string inputs, how, outputs;
  };
  for (const Case &c :
       {Case{"in.npz", "--interpret", "out1.npz"}, Case{"inz.npz", "--target host --check", "out2"},
        Case{"in", "--target host --check", "out3.npz"}}) {
    auto r = isamap("run gemm.isam --instance g " + c.how + " --inputs " + c.inputs +
                    " --outputs " + c.outputs);
    ASSERT_EQ(r.exitCode, 0) << c.inputs << ": " << r.out << r.err;
    EXPECT_TRUE(has(r.out, "outputs written to " + c.outputs)) << r.out;
    std::string load = fs::path(c.outputs).extension() == ".npz"
                           ? "np.load('" + c.outputs + "')['C']"
                           : "np.load('" + c.outputs + "/C.npy')";
    auto compared =
        python("z = np.load('in.npz')\n"
               "want = z['A'].astype(np.float32).astype(np.float64) @ z['B']\n"
               "C = " +
               load +
               "\n"
               "assert C.dtype == np.float32 and C.shape == (37, 19), (C.dtype, C.shape)\n"
               "err = np.abs(C - want).max()\n"
               "assert err < 1e-4, err\n"
               "print('ok')\n");
    EXPECT_EQ(compared.exitCode, 0) << c.inputs << ": " << compared.err;
    EXPECT_EQ(compared.out, "ok\n");
  }
}

TEST_F(NumpyCli, EveryElementTypeRoundTrips) {
  write("copy.isam",
        "kernel copy<N>(A: f16[N], B: bf16[N], C: f32[N], D: f64[N], E: i8[N], F: i32[N]) ->\n"
        "    (P: f16[N], Q: bf16[N], R: f32[N], S: f64[N], T: i8[N], U: i32[N]) {\n"
        "  P[i] = A[i];\n  Q[i] = B[i];\n  R[i] = C[i];\n  S[i] = D[i];\n  T[i] = E[i];\n"
        "  U[i] = F[i];\n"
        "}\n"
        "instance c = copy<5>;\n");
  auto made = python("np.savez('in.npz', A=np.array([1, -2.5, 65504, 6e-8, np.inf], np.float16),\n"
                     "  B=np.array([1, 1.0078125, -3, 0.5, 2**100], np.float32),\n"
                     "  C=np.array([0.1, -1e30, 1e-40, 3, 4], np.float32), D=np.array([0.1, 1e300, "
                     "-5e-324, 7, 8]),\n"
                     "  E=np.array([-128, 127, 0, -1, 5], np.int8),\n"
                     "  F=np.array([-2**31, 2**31 - 1, 0, 1, -1], np.int32))\n");
  ASSERT_EQ(made.exitCode, 0) << made.err;
  auto r = isamap("run copy.isam --interpret --inputs in.npz --outputs out.npz");
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  auto compared = python("i, o = np.load('in.npz'), np.load('out.npz')\n"
                         "for a, b in zip('ABCDEF', 'PQRSTU'):\n"
                         "  want = i[a].astype(np.float32) if a == 'B' else i[a]\n"
                         "  assert o[b].dtype == want.dtype, (b, o[b].dtype)\n"
                         "  assert np.array_equal(o[b], want), (b, o[b], want)\n"
                         "print('ok')\n");
  EXPECT_EQ(compared.exitCode, 0) << compared.err;
  EXPECT_EQ(compared.out, "ok\n");
}

TEST_F(NumpyCli, ErrorsNameTheFileAndTheTensor) {
  write("gemm.isam", kGemm);
  auto made = python("np.savez('wrong.npz', A=np.zeros((23, 37)), B=np.zeros((23, 19)))\n"
                     "np.savez('partial.npz', A=np.zeros((37, 23)))\n"
                     "open('text.npz', 'w').write('hello')\n");
  ASSERT_EQ(made.exitCode, 0) << made.err;
  auto shape = isamap("run gemm.isam --instance g --interpret --inputs wrong.npz");
  EXPECT_EQ(shape.exitCode, 1);
  EXPECT_TRUE(has(shape.err, "wrong.npz:A.npy: A is (37, 23) in the kernel, the file holds "
                             "(23, 37)"))
      << shape.err;
  auto missing = isamap("run gemm.isam --instance g --interpret --inputs partial.npz");
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_TRUE(has(missing.err, "partial.npz: no data for B (inputs of g)")) << missing.err;
  auto text = isamap("run gemm.isam --instance g --interpret --inputs text.npz");
  EXPECT_EQ(text.exitCode, 1);
  EXPECT_TRUE(has(text.err, "not a zip archive")) << text.err;
  auto several = isamap("run gemm.isam --interpret --outputs out.npz");
  EXPECT_EQ(several.exitCode, 1);
  EXPECT_TRUE(has(several.err, "selects 2; name one with --instance")) << several.err;
  EXPECT_FALSE(fs::exists(dir_ / "out.npz"));
}
