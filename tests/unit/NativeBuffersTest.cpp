// The conversions between the reference interpreter's buffers and the arrays generated code
// takes (backends/llvm/NativeBuffers.h): IEEE half and bfloat16 encodings (checked against
// definitions written here from the formats, not against the code under test: every bit
// pattern, ties to even, overflow, subnormals, infinities and NaN), and toNative/fromNative
// (storage types, ABI order, outputs poisoned with 0xFF bytes, round trips).
#include "backends/llvm/NativeBuffers.h"
#include "ir/ElementBytes.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace isam;
using ir::bf16Bits;
using ir::bf16Value;
using ir::halfBits;
using ir::halfValue;

namespace {

float floatOf(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// The value a half encodes, from the format: 1 sign bit, 5 exponent bits (bias 15), 10 mantissa
// bits; exponent 0 is subnormal (m * 2^-24), 31 is infinity or NaN.
double halfDefinition(uint16_t h) {
  int sign = h >> 15, e = (h >> 10) & 0x1F, m = h & 0x3FF;
  double v;
  if (e == 31)
    v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (e == 0)
    v = std::ldexp(double(m), -24);
  else
    v = std::ldexp(double(1024 + m), e - 25);
  return sign ? -v : v;
}

// A finite float rounded to the nearest half (ties to even), in double: the spacing of halves
// at |f| is 2^(e - 10) for a normal half of exponent e, 2^-24 below 2^-14; at and beyond
// 65520 (halfway between the largest half, 65504, and 2^16) the result is infinite.
double halfRounded(float f) {
  double a = std::fabs(double(f));
  int e = a == 0 ? -30 : std::ilogb(a);
  double ulp = std::ldexp(1.0, std::max(e, -14) - 10);
  double r = std::nearbyint(a / ulp) * ulp; // both exact: ulp is a power of two
  if (r >= 65536)
    r = std::numeric_limits<double>::infinity();
  return std::signbit(f) ? -r : r;
}

// A finite float rounded to the nearest bfloat16 (ties to even): 8 significant bits.
double bf16Rounded(float f) {
  double a = std::fabs(double(f));
  int e = a == 0 ? -200 : std::ilogb(a);
  double ulp = std::ldexp(1.0, std::max(e, -126) - 7);
  double r = std::nearbyint(a / ulp) * ulp;
  if (r >= std::ldexp(1.0, 128))
    r = std::numeric_limits<double>::infinity();
  return std::signbit(f) ? -r : r;
}

bool sameValue(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

} // namespace

// ---- half -----------------------------------------------------------------------------------

TEST(Half, KnownEncodings) {
  EXPECT_EQ(halfBits(0.0f), 0x0000);
  EXPECT_EQ(halfBits(-0.0f), 0x8000);
  EXPECT_EQ(halfBits(1.0f), 0x3C00);
  EXPECT_EQ(halfBits(-2.0f), 0xC000);
  EXPECT_EQ(halfBits(0.5f), 0x3800);
  EXPECT_EQ(halfBits(65504.0f), 0x7BFF);   // the largest half
  EXPECT_EQ(halfBits(0x1p-14f), 0x0400);   // the smallest normal
  EXPECT_EQ(halfBits(0x1p-24f), 0x0001);   // the smallest subnormal
  EXPECT_EQ(halfBits(0x3FFp-24f), 0x03FF); // the largest subnormal
  EXPECT_EQ(halfBits(-0x1p-24f), 0x8001);
  EXPECT_EQ(halfBits(0.333251953125f), 0x3555); // 1/3 rounded, exactly a half
  EXPECT_FLOAT_EQ(halfValue(0x3555), 0.333251953125f);
  EXPECT_EQ(halfValue(0x3C00), 1.0f);
  EXPECT_EQ(halfValue(0xC000), -2.0f);
  EXPECT_EQ(halfValue(0x7BFF), 65504.0f);
  EXPECT_EQ(halfValue(0x0001), 0x1p-24f);
  EXPECT_EQ(halfValue(0x03FF), 0x3FFp-24f);
  EXPECT_EQ(halfValue(0x0400), 0x1p-14f);
  EXPECT_TRUE(std::signbit(halfValue(0x8000)));
  EXPECT_EQ(halfValue(0x8000), 0.0f);
}

TEST(Half, TiesRoundToEven) {
  // Between 1 (0x3C00, even) and 1 + 2^-10 (0x3C01): the tie goes down, anything above up.
  EXPECT_EQ(halfBits(1.0f + 0x1p-11f), 0x3C00);
  EXPECT_EQ(halfBits(1.0f + 0x1p-11f + 0x1p-20f), 0x3C01);
  EXPECT_EQ(halfBits(1.0f + 0x1p-11f - 0x1p-20f), 0x3C00);
  // Between 0x3C01 (odd) and 0x3C02: the tie goes up.
  EXPECT_EQ(halfBits(1.0f + 3 * 0x1p-11f), 0x3C02);
  EXPECT_EQ(halfBits(-(1.0f + 3 * 0x1p-11f)), 0xBC02);
  // A carry into the exponent: 2 - 2^-11 is halfway between 0x3BFF (odd) and 2 (0x4000).
  EXPECT_EQ(halfBits(2.0f - 0x1p-11f), 0x4000);
  // Subnormal ties: 2^-25 is halfway between 0 and 2^-24; 3 * 2^-25 between 1 and 2 units.
  EXPECT_EQ(halfBits(0x1p-25f), 0x0000);
  EXPECT_EQ(halfBits(3 * 0x1p-25f), 0x0002);
  EXPECT_EQ(halfBits(5 * 0x1p-25f), 0x0002);
  EXPECT_EQ(halfBits(0x1p-25f + 0x1p-40f), 0x0001);
  // Halfway between the largest subnormal (0x03FF, odd) and the smallest normal (0x0400).
  EXPECT_EQ(halfBits(1023.5f * 0x1p-24f), 0x0400);
}

TEST(Half, OverflowInfinityAndNaN) {
  // 65520 is halfway between 65504 (0x7BFF, odd) and 2^16, which is not a half: infinity.
  EXPECT_EQ(halfBits(65520.0f), 0x7C00);
  EXPECT_EQ(halfBits(65519.996f), 0x7BFF);
  EXPECT_EQ(halfBits(-65520.0f), 0xFC00);
  EXPECT_EQ(halfBits(1e10f), 0x7C00);
  EXPECT_EQ(halfBits(std::numeric_limits<float>::max()), 0x7C00);
  EXPECT_EQ(halfBits(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(halfBits(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_TRUE(std::isinf(halfValue(0x7C00)) && halfValue(0x7C00) > 0);
  EXPECT_TRUE(std::isinf(halfValue(0xFC00)) && halfValue(0xFC00) < 0);
  // Any NaN, quiet or signalling (payload only in the low bits, which a plain shift would
  // lose), stays a NaN: exponent all ones and a non-zero mantissa.
  for (uint32_t nan : {0x7FC00000u, 0x7F800001u, 0xFF800001u, 0x7FFFFFFFu, 0x7F802000u}) {
    uint16_t h = halfBits(floatOf(nan));
    EXPECT_EQ(h & 0x7C00, 0x7C00) << std::hex << nan;
    EXPECT_NE(h & 0x03FF, 0) << std::hex << nan << " became " << h;
    EXPECT_TRUE(std::isnan(halfValue(h))) << std::hex << nan;
  }
  EXPECT_TRUE(std::isnan(halfValue(0x7E00)));
  EXPECT_TRUE(std::isnan(halfValue(0x7C01)));
  EXPECT_TRUE(std::isnan(halfValue(0xFFFF)));
  // Below half the smallest subnormal: a signed zero.
  EXPECT_EQ(halfBits(0x1p-26f), 0x0000);
  EXPECT_EQ(halfBits(-0x1p-26f), 0x8000);
  EXPECT_EQ(halfBits(std::numeric_limits<float>::denorm_min()), 0x0000);
}

TEST(Half, EveryBitPatternDecodesByTheFormatAndRoundTrips) {
  for (uint32_t h = 0; h <= 0xFFFF; ++h) {
    float v = halfValue(uint16_t(h));
    ASSERT_TRUE(sameValue(v, halfDefinition(uint16_t(h)))) << std::hex << h << ": " << v;
    if (std::isnan(v)) {
      uint16_t back = halfBits(v);
      ASSERT_TRUE((back & 0x7C00) == 0x7C00 && (back & 0x3FF) != 0) << std::hex << h;
    } else {
      ASSERT_EQ(halfBits(v), h) << std::hex << h;
    }
  }
}

TEST(Half, RandomFloatsRoundToTheNearestHalf) {
  std::mt19937 rng(7);
  // Exponents spread over the half range and a bit beyond on both sides, so that normals,
  // subnormals, underflow to zero and overflow are all drawn; every mantissa bit random.
  std::uniform_int_distribution<uint32_t> exponent(127 - 28, 127 + 17), mantissa(0, 0x7FFFFF),
      sign(0, 1);
  for (int i = 0; i < 400000; ++i) {
    float f = floatOf(sign(rng) << 31 | exponent(rng) << 23 | mantissa(rng));
    double want = halfRounded(f);
    double got = halfValue(halfBits(f));
    ASSERT_TRUE(sameValue(got, want)) << std::hexfloat << f << " gave " << got << ", want " << want;
  }
}

// ---- bfloat16 -------------------------------------------------------------------------------

TEST(BFloat16, KnownEncodings) {
  EXPECT_EQ(bf16Bits(0.0f), 0x0000);
  EXPECT_EQ(bf16Bits(-0.0f), 0x8000);
  EXPECT_EQ(bf16Bits(1.0f), 0x3F80);
  EXPECT_EQ(bf16Bits(-2.0f), 0xC000);
  EXPECT_EQ(bf16Bits(3.0f), 0x4040);
  EXPECT_EQ(bf16Value(0x3F80), 1.0f);
  EXPECT_EQ(bf16Value(0x4049), 3.140625f);
  EXPECT_EQ(bf16Bits(3.14159265f), 0x4049);
  EXPECT_EQ(bf16Value(0x0001), floatOf(0x00010000)); // a float subnormal
  EXPECT_EQ(bf16Bits(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(bf16Bits(-std::numeric_limits<float>::infinity()), 0xFF80);
}

TEST(BFloat16, TiesRoundToEvenAndOverflow) {
  // 1 + 2^-8 is halfway between 1 (0x3F80, even) and 1 + 2^-7 (0x3F81).
  EXPECT_EQ(bf16Bits(1.0f + 0x1p-8f), 0x3F80);
  EXPECT_EQ(bf16Bits(1.0f + 0x1p-8f + 0x1p-23f), 0x3F81);
  // 1 + 3 * 2^-8 is halfway between 0x3F81 (odd) and 0x3F82.
  EXPECT_EQ(bf16Bits(1.0f + 3 * 0x1p-8f), 0x3F82);
  EXPECT_EQ(bf16Bits(-(1.0f + 3 * 0x1p-8f)), 0xBF82);
  // A carry into the exponent.
  EXPECT_EQ(bf16Bits(2.0f - 0x1p-8f), 0x4000);
  // The largest float rounds past the largest bfloat16 (0x7F7F): infinity.
  EXPECT_EQ(bf16Bits(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(bf16Bits(floatOf(0x7F7F7FFF)), 0x7F7F);
  EXPECT_EQ(bf16Bits(floatOf(0x7F7F8000)), 0x7F80); // the tie above 0x7F7F (odd)
  // Float subnormals round the same way.
  EXPECT_EQ(bf16Bits(floatOf(0x00008000)), 0x0000);
  EXPECT_EQ(bf16Bits(floatOf(0x00018000)), 0x0002);
  EXPECT_EQ(bf16Bits(floatOf(0x00008001)), 0x0001);
}

TEST(BFloat16, NaNStaysNaN) {
  for (uint32_t nan : {0x7FC00000u, 0x7F800001u, 0xFF800001u, 0x7FFFFFFFu, 0x7FFF8000u}) {
    uint16_t b = bf16Bits(floatOf(nan));
    EXPECT_TRUE(std::isnan(bf16Value(b))) << std::hex << nan << " became " << b;
    EXPECT_EQ(uint32_t(b >> 15), nan >> 31) << std::hex << nan;
  }
}

TEST(BFloat16, EveryBitPatternRoundTrips) {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    float v = bf16Value(uint16_t(b));
    ASSERT_EQ(bitsOf(v), b << 16) << std::hex << b;
    if (std::isnan(v))
      ASSERT_TRUE(std::isnan(bf16Value(bf16Bits(v)))) << std::hex << b;
    else
      ASSERT_EQ(bf16Bits(v), b) << std::hex << b;
  }
}

TEST(BFloat16, RandomFloatsRoundToTheNearestBFloat16) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<uint32_t> exponent(0, 254), mantissa(0, 0x7FFFFF), sign(0, 1);
  for (int i = 0; i < 400000; ++i) {
    float f = floatOf(sign(rng) << 31 | exponent(rng) << 23 | mantissa(rng));
    double want = bf16Rounded(f);
    double got = bf16Value(bf16Bits(f));
    ASSERT_TRUE(sameValue(got, want)) << std::hexfloat << f << " gave " << got << ", want " << want;
  }
}

// ---- toNative / fromNative ------------------------------------------------------------------

namespace {

// Every element type in and out, and a local (which gets no storage and no argument).
const char *kEveryType =
    "kernel types<N>(A: f16[N], B: bf16[N], C: f32[N], D: f64[N], E: i8[N], F: i32[N])\n"
    "    -> (P: f16[N], Q: bf16[N], R: f32[N], S: f64[N], T: i8[N], U: i32[N]) {\n"
    "  P[i] = A[i];\n"
    "  Q[i] = B[i];\n"
    "  L[i] = C[i] * 2;\n"
    "  R[i] = L[i];\n"
    "  S[i] = D[i];\n"
    "  T[i] = E[i];\n"
    "  U[i] = F[i];\n"
    "}\n"
    "instance types7 = types<7>;\n";

ir::Kernel everyTypeKernel() {
  auto s = test::analyse(kEveryType);
  EXPECT_FALSE(s->diagnostics().hasErrors());
  InstanceSelector sel;
  sel.instance = "types7";
  auto ks = s->instances(sel);
  EXPECT_EQ(ks.size(), 1u);
  return ks.empty() ? ir::Kernel{} : ks[0];
}

// The bytes generated code stores for v in type t, from the formats.
std::vector<unsigned char> encode(ir::ElemType t, double v) {
  std::vector<unsigned char> b(size_t(ir::elemTypeBytes(t)));
  auto put = [&](auto x) { std::memcpy(b.data(), &x, sizeof x); };
  switch (t) {
  case ir::ElemType::F16:
    put(halfBits(float(v)));
    break;
  case ir::ElemType::BF16:
    put(bf16Bits(float(v)));
    break;
  case ir::ElemType::F32:
    put(float(v));
    break;
  case ir::ElemType::F64:
    put(v);
    break;
  case ir::ElemType::I8:
    put(int8_t(v));
    break;
  case ir::ElemType::I32:
    put(int32_t(v));
    break;
  }
  return b;
}

} // namespace

TEST(NativeBuffers, InputsInTheirStorageTypeOutputsPoisonedInAbiOrder) {
  ir::Kernel k = everyTypeKernel();
  ASSERT_EQ(k.tensors.size(), 13u);
  interp::Buffers b = interp::randomInputs(k, 5);
  backend::NativeBuffers n = backend::toNative(k, b);
  ASSERT_EQ(n.storage.size(), k.tensors.size());
  // Inputs, then outputs, in declaration order; the local has neither storage nor argument.
  ASSERT_EQ(n.args.size(), 12u);
  size_t arg = 0;
  for (size_t t = 0; t < k.tensors.size(); ++t) {
    const ir::Tensor &tensor = k.tensors[t];
    SCOPED_TRACE(tensor.name);
    if (tensor.role == ir::TensorRole::Local) {
      EXPECT_EQ(tensor.name, "L");
      EXPECT_TRUE(n.storage[t].empty());
      continue;
    }
    EXPECT_EQ(tensor.name, std::string(1, "ABCDEFPQRSTU"[arg]));
    ASSERT_EQ(n.args[arg], static_cast<void *>(n.storage[t].data()));
    ++arg;
    size_t bytes = size_t(ir::elemTypeBytes(tensor.type));
    ASSERT_EQ(n.storage[t].size(), 7 * bytes);
    for (size_t i = 0; i < 7; ++i) {
      std::vector<unsigned char> got(n.storage[t].begin() + long(i * bytes),
                                     n.storage[t].begin() + long((i + 1) * bytes));
      if (tensor.role == ir::TensorRole::Input)
        EXPECT_EQ(got, encode(tensor.type, b[t][i])) << i;
      else
        EXPECT_EQ(got, std::vector<unsigned char>(bytes, 0xFF)) << i;
    }
  }
}

TEST(NativeBuffers, OutputsReadBackInEveryType) {
  ir::Kernel k = everyTypeKernel();
  ASSERT_EQ(k.tensors.size(), 13u);
  interp::Buffers b = interp::randomInputs(k, 9);
  // The interpreter's inputs are already rounded to their types, so they survive a trip
  // through storage exactly. Copy each input's bytes to the output of the same type, as the
  // kernel would, and read the outputs back.
  backend::NativeBuffers n = backend::toNative(k, b);
  const char *pairs[][2] = {{"A", "P"}, {"B", "Q"}, {"D", "S"}, {"E", "T"}, {"F", "U"}};
  for (auto &p : pairs)
    n.storage[size_t(k.tensorIndex(p[1]))] = n.storage[size_t(k.tensorIndex(p[0]))];
  // R (f32) gets bytes written here: 1.5, -0.25, then the f32 rounding of 0.1.
  float r[7] = {1.5f, -0.25f, 0.1f, 0, -0.0f, 3e38f, -1e-40f};
  auto &rs = n.storage[size_t(k.tensorIndex("R"))];
  std::memcpy(rs.data(), r, sizeof r);
  interp::Buffers got = b;
  for (size_t t = 0; t < got.size(); ++t)
    if (k.tensors[t].role == ir::TensorRole::Output)
      got[t].assign(3, 42.0); // wrong size and contents: fromNative must replace both
  backend::fromNative(k, n, got);
  for (auto &p : pairs) {
    EXPECT_EQ(got[size_t(k.tensorIndex(p[1]))], b[size_t(k.tensorIndex(p[0]))]) << p[1];
  }
  ASSERT_EQ(got[size_t(k.tensorIndex("R"))].size(), 7u);
  for (size_t i = 0; i < 7; ++i)
    EXPECT_TRUE(sameValue(got[size_t(k.tensorIndex("R"))][i], double(r[i]))) << i;
  // Inputs and the local are left alone.
  for (const char *in : {"A", "B", "C", "D", "E", "F", "L"})
    EXPECT_EQ(got[size_t(k.tensorIndex(in))], b[size_t(k.tensorIndex(in))]) << in;
  // The inputs really span their types' ranges (the round trip is not about zeros).
  double spread = 0;
  for (double v : b[size_t(k.tensorIndex("E"))])
    spread += std::fabs(v);
  EXPECT_GT(spread, 0);
}

TEST(NativeBuffers, HalfAndBFloat16StorageHoldsTheRoundedBits) {
  // Values the interpreter would round: toNative stores the nearest half / bfloat16.
  ir::Kernel k = everyTypeKernel();
  ASSERT_EQ(k.tensors.size(), 13u);
  interp::Buffers b = interp::randomInputs(k, 1);
  size_t a = size_t(k.tensorIndex("A")), bb = size_t(k.tensorIndex("B"));
  b[a] = {1.0 + 0x1p-11, 1.0 + 3 * 0x1p-11, 65520, -0x1p-25, 0x1p-24, 1.0 / 3, -7.25};
  b[bb] = {1.0 + 0x1p-8, 1.0 + 3 * 0x1p-8, 3.14159265, -0.0, 3.4e38, 1.0 / 3, -7.25};
  backend::NativeBuffers n = backend::toNative(k, b);
  uint16_t h[7], f[7];
  std::memcpy(h, n.storage[a].data(), sizeof h);
  std::memcpy(f, n.storage[bb].data(), sizeof f);
  const uint16_t wantHalf[7] = {0x3C00, 0x3C02, 0x7C00, 0x8000, 0x0001, 0x3555, 0xC740};
  const uint16_t wantBf16[7] = {0x3F80, 0x3F82, 0x4049, 0x8000, 0x7F80, 0x3EAB, 0xC0E8};
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(h[i], wantHalf[i]) << i;
    EXPECT_EQ(f[i], wantBf16[i]) << i;
  }
}
