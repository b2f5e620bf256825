// Elements as their bytes in memory (little-endian, IEEE formats): what generated code, the
// accelerator simulator's memories and the tests exchange with the interpreter's doubles.
#pragma once

#include "ir/Compute.h"

#include <cstdint>

namespace isam::ir {

// IEEE half and bfloat16 bits, rounding to nearest even.
uint16_t halfBits(float f);
float halfValue(uint16_t bits);
uint16_t bf16Bits(float f);
float bf16Value(uint16_t bits);

// One element of type `t` at `p` (elemTypeBytes(t) bytes), written from or read into a double;
// a write rounds to the type.
void storeElement(ElemType t, unsigned char *p, double v);
double loadElement(ElemType t, const unsigned char *p);

} // namespace isam::ir
