// A kernel's tensors in NumPy's file formats: `.npy` (one array, format versions 1.0 to 3.0)
// and `.npz` (a zip archive of NAME.npy entries, stored or deflated), so that `run` takes
// users' own data and gives results NumPy and PyTorch read.
//
// Reading converts any NumPy numeric or boolean array (little- or big-endian, C or Fortran
// order) to the tensor's element type as the language's cast does (interp::roundTo); its shape
// must be the tensor's. Writing uses each tensor's own type ('<f4', '<f8', '<f2', '|i1',
// '<i4'); bf16, which NumPy lacks, is written as float32, which holds every bf16 value exactly.
#pragma once

#include "interp/Interpreter.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace isam::interp {

struct DataError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<double> values; // row-major (C order), whatever the file's order
  std::string dtype;          // as the header spells it, e.g. "<f4"
};

// Parses one .npy file's bytes; throws DataError saying what is wrong.
NpyArray parseNpy(const std::string &bytes);
// The .npy bytes (format 1.0, or 2.0 for a header past 64 KiB) of `values`, row-major, in the
// element type's dtype.
std::string formatNpy(ir::ElemType type, const std::vector<int64_t> &shape,
                      const std::vector<double> &values);

// Reads every input of `kernel` into `buffers` from `path`: a directory holding NAME.npy per
// input, or an .npz archive with a NAME (or NAME.npy) entry per input. Throws DataError naming
// the path and the tensor: a missing input, a shape or type that does not fit, a damaged file.
void readInputs(const ir::Kernel &kernel, const std::string &path, Buffers &buffers);

// Writes every output of `kernel` to `path`: an .npz archive when it ends in ".npz", else a
// directory (created if missing) with NAME.npy per output. Each file is written whole or not
// at all (writeFileAtomically). Throws DataError on failure.
void writeOutputs(const ir::Kernel &kernel, const Buffers &buffers, const std::string &path);

} // namespace isam::interp
