// NumPy's .npy and .npz formats (interp/NumpyFiles.h, interp/ZipArchive.h): round trips of
// every element type, headers as NumPy writes them in each version, order and byte order, and
// each damaged or unfitting file named in a DataError. Round trips through NumPy itself are
// NumpyCliTest's.
#include "interp/NumpyFiles.h"
#include "driver/Session.h"
#include "interp/ZipArchive.h"
#include "support/Reference.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace isam;
using interp::DataError;
namespace fs = std::filesystem;

namespace {

// An .npy file as NumPy writes one by hand: header text padded to 64 bytes, then `data`.
std::string npy(const std::string &dict, const std::string &data, int version = 1) {
  std::string header = dict;
  size_t prefix = version == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += char(version);
  out += char(0);
  for (size_t i = 0; i < prefix - 8; ++i)
    out += char((header.size() >> (8 * i)) & 0xFF);
  return out + header + data;
}

template <class T> std::string raw(std::initializer_list<T> values) {
  std::string s;
  for (T v : values)
    s.append(reinterpret_cast<const char *>(&v), sizeof(T));
  return s;
}

std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const DataError &e) {
    return e.what();
  } catch (const interp::ZipError &e) {
    return e.what();
  }
  return "(no error)";
}

bool has(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

TEST(NumpyFiles, EveryElementTypeRoundTrips) {
  using ir::ElemType;
  struct Case {
    ElemType type;
    std::vector<double> values; // rounded to the type below
    const char *dtype;
  };
  std::vector<Case> cases = {
      {ElemType::F32, {1.5, -0.0, 3.4028234663852886e38, 1e-45, INFINITY, NAN}, "<f4"},
      {ElemType::F64, {0.1, -1e300, 4.9e-324, -INFINITY}, "<f8"},
      {ElemType::F16,
       {1.0, -65504.0, 5.960464477539063e-08, 6.103515625e-05, 0.333251953125, INFINITY, -0.0},
       "<f2"},
      {ElemType::BF16, {1.0078125, -3.0e38, 0.0}, "<f4"}, // bf16 values are float32 values
      {ElemType::I8, {-128, 127, 0, -1}, "|i1"},
      {ElemType::I32, {-2147483648.0, 2147483647.0, 7}, "<i4"},
  };
  for (auto &c : cases) {
    SCOPED_TRACE(ir::elemTypeName(c.type));
    for (double &v : c.values)
      v = interp::roundTo(c.type, v);
    std::vector<int64_t> shape = {int64_t(c.values.size())};
    interp::NpyArray a = interp::parseNpy(interp::formatNpy(c.type, shape, c.values));
    EXPECT_EQ(a.dtype, c.dtype);
    EXPECT_EQ(a.shape, shape);
    ASSERT_EQ(a.values.size(), c.values.size());
    for (size_t i = 0; i < c.values.size(); ++i)
      if (std::isnan(c.values[i]))
        EXPECT_TRUE(std::isnan(a.values[i]));
      else
        EXPECT_EQ(std::memcmp(&a.values[i], &c.values[i], 8), 0) << a.values[i];
  }
  // The data starts at a multiple of 64 bytes, as NumPy's own files do.
  std::string bytes = interp::formatNpy(ir::ElemType::F32, {2, 3}, std::vector<double>(6, 1.0));
  EXPECT_EQ((bytes.size() - 24) % 64, 0u);
  EXPECT_TRUE(has(bytes, "'shape': (2, 3), }")) << bytes;
}

TEST(NumpyFiles, ReadsEveryLayoutNumpyWrites) {
  // Fortran order: the first index varies fastest in the file.
  auto f = interp::parseNpy(npy("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }",
                                raw<int16_t>({0, 3, 1, 4, 2, 5})));
  EXPECT_EQ(f.values, (std::vector<double>{0, 1, 2, 3, 4, 5}));
  // Big-endian doubles, format version 2.0, a 1-tuple shape.
  double be = 0;
  uint64_t bits = 0x3FF8000000000000ULL; // 1.5
  for (int i = 0; i < 8; ++i)
    reinterpret_cast<unsigned char *>(&be)[i] = uint8_t(bits >> (56 - 8 * i));
  auto b = interp::parseNpy(
      npy("{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }", raw<double>({be}), 2));
  EXPECT_EQ(b.values, (std::vector<double>{1.5}));
  // Booleans, unsigned and 64-bit integers, a 0-d array.
  EXPECT_EQ(interp::parseNpy(npy("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
                                 raw<uint8_t>({1, 0})))
                .values,
            (std::vector<double>{1, 0}));
  EXPECT_EQ(interp::parseNpy(npy("{'descr': '<u4', 'fortran_order': False, 'shape': (), }",
                                 raw<uint32_t>({4000000000u})))
                .values,
            (std::vector<double>{4e9}));
  EXPECT_EQ(interp::parseNpy(npy("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }",
                                 raw<int64_t>({-5})))
                .values,
            (std::vector<double>{-5}));
}

TEST(NumpyFiles, DamagedFilesSayWhatIsWrong) {
  EXPECT_TRUE(has(errorOf([] { interp::parseNpy("PK\x03\x04 not npy"); }), "not a .npy file"));
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }";
  EXPECT_TRUE(has(errorOf([&] {
                    interp::parseNpy(npy(dict, raw<float>({1, 2, 3})));
                  }),
                  "needs 16 bytes of data, the file has 12"));
  EXPECT_TRUE(has(errorOf([] {
                    interp::parseNpy(
                        npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
                            raw<float>({1})));
                  }),
                  "structured type"));
  EXPECT_TRUE(has(errorOf([] {
                    interp::parseNpy(
                        npy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
                            raw<float>({1, 2})));
                  }),
                  "'<c8' is not one isamap reads"));
  EXPECT_TRUE(has(errorOf([] { interp::readZip("not a zip archive at all, just text here"); }),
                  "not a zip archive"));
}

TEST(NumpyFiles, ZipArchivesRoundTripAndCatchCorruption) {
  std::vector<std::pair<std::string, std::string>> entries = {
      {"A.npy", std::string("first\0entry", 11)}, {"empty.npy", ""}, {"B.npy", "second"}};
  std::string zip = interp::writeZip(entries);
  EXPECT_EQ(interp::readZip(zip), entries);
  std::string damaged = zip;
  damaged[30 + 5 + 2] ^= 1; // a byte of A.npy's contents
  EXPECT_TRUE(has(errorOf([&] { interp::readZip(damaged); }), "A.npy: its contents do not match"));
  EXPECT_TRUE(has(errorOf([&] { interp::readZip(zip.substr(0, zip.size() - 30)); }), "zip"));
}

ir::Kernel gemmKernel() {
  Session s;
  s.loadText("g.isam", "kernel g<M, N, K>(A: f32[M, K], B: i8[K, N]) -> (C: f32[M, N]) {\n"
                       "  C[m, n] += A[m, k] * f32(B[k, n]);\n"
                       "}\n"
                       "instance t = g<2, 3, 4>;\n");
  auto ks = s.instances({});
  EXPECT_EQ(ks.size(), 1u) << test::renderDiagnostics(s);
  return ks.empty() ? ir::Kernel{} : ks[0];
}

std::string scratchDir(const std::string &name) {
  auto dir = fs::temp_directory_path() / ("isamap-npy-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir.string();
}

TEST(NumpyFiles, KernelInputsAndOutputsThroughDirectoriesAndArchives) {
  ir::Kernel k = gemmKernel();
  ASSERT_EQ(k.tensors.size(), 3u);
  interp::Buffers b = interp::randomInputs(k, 2);
  std::string dir = scratchDir("dir"), npz = dir + ".npz";
  // The inputs written as outputs would be, then read back as inputs: A (f32) and B (i8).
  ir::Kernel asOutputs = k;
  for (auto &t : asOutputs.tensors)
    t.role = ir::TensorRole::Output;
  interp::writeOutputs(asOutputs, b, dir);
  interp::writeOutputs(asOutputs, b, npz);
  for (const std::string &path : {dir, npz}) {
    interp::Buffers got(3);
    interp::readInputs(k, path, got);
    EXPECT_EQ(got[0], b[0]) << path;
    EXPECT_EQ(got[1], b[1]) << path;
  }
  // A missing input, a shape that does not fit, a path that is neither.
  fs::remove(fs::path(dir) / "B.npy");
  interp::Buffers got(3);
  EXPECT_TRUE(has(errorOf([&] { interp::readInputs(k, dir, got); }), "no data for B.npy"));
  interp::writeOutputs(asOutputs, interp::randomInputs(gemmKernel(), 1), dir);
  std::ofstream(fs::path(dir) / "B.npy", std::ios::binary)
      << interp::formatNpy(ir::ElemType::I8, {3, 4}, std::vector<double>(12, 1.0));
  EXPECT_TRUE(has(errorOf([&] { interp::readInputs(k, dir, got); }),
                  "B.npy: B is (4, 3) in the kernel, the file holds (3, 4)"));
  EXPECT_TRUE(has(errorOf([&] { interp::readInputs(k, dir + "/nothing", got); }),
                  "no such file or directory"));
  fs::remove_all(dir);
  fs::remove(npz);
}

} // namespace
