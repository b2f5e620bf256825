#include "ir/ElementBytes.h"

#include <cmath>
#include <cstring>

namespace isam::ir {

uint16_t bf16Bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f))
    return uint16_t((bits | 0x00400000u) >> 16);
  bits += 0x7FFF + ((bits >> 16) & 1);
  return uint16_t(bits >> 16);
}

float bf16Value(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t halfBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = uint16_t((x >> 16) & 0x8000);
  uint32_t abs = x & 0x7FFFFFFF;
  if (abs >= 0x7F800000) // inf or NaN
    return uint16_t(sign | 0x7C00 | (abs > 0x7F800000 ? 0x200 : 0));
  if (abs >= 0x477FF000) // rounds past the largest half
    return uint16_t(sign | 0x7C00);
  if (abs < 0x38800000) { // a subnormal half (or zero): scale into integer units of 2^-24
    float scaled = std::fabs(f) * 16777216.0f;
    return uint16_t(sign | uint16_t(std::nearbyint(scaled)));
  }
  uint32_t mant = abs + 0xC8000FFF + ((abs >> 13) & 1); // rebias and round to nearest even
  return uint16_t(sign | (mant >> 13));
}

float halfValue(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  float f;
  if (exp == 0) {
    f = std::ldexp(float(mant), -24);
    return sign ? -f : f;
  }
  uint32_t bits =
      exp == 31 ? sign | 0x7F800000 | (mant << 13) : sign | ((exp + 112) << 23) | (mant << 13);
  std::memcpy(&f, &bits, 4);
  return f;
}

void storeElement(ElemType t, unsigned char *p, double v) {
  switch (t) {
  case ElemType::F32: {
    float f = float(v);
    std::memcpy(p, &f, 4);
    return;
  }
  case ElemType::F64:
    std::memcpy(p, &v, 8);
    return;
  case ElemType::F16: {
    uint16_t b = halfBits(float(v));
    std::memcpy(p, &b, 2);
    return;
  }
  case ElemType::BF16: {
    uint16_t b = bf16Bits(float(v));
    std::memcpy(p, &b, 2);
    return;
  }
  case ElemType::I8: {
    int8_t i = int8_t(v);
    std::memcpy(p, &i, 1);
    return;
  }
  case ElemType::I32: {
    int32_t i = int32_t(v);
    std::memcpy(p, &i, 4);
    return;
  }
  }
}

double loadElement(ElemType t, const unsigned char *p) {
  switch (t) {
  case ElemType::F32: {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  case ElemType::F64: {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  case ElemType::F16: {
    uint16_t b;
    std::memcpy(&b, p, 2);
    return halfValue(b);
  }
  case ElemType::BF16: {
    uint16_t b;
    std::memcpy(&b, p, 2);
    return bf16Value(b);
  }
  case ElemType::I8: {
    int8_t i;
    std::memcpy(&i, p, 1);
    return i;
  }
  case ElemType::I32: {
    int32_t i;
    std::memcpy(&i, p, 4);
    return i;
  }
  }
  return 0;
}

} // namespace isam::ir
