#include "interp/NumpyFiles.h"

#include "interp/ZipArchive.h"
#include "source/FileIo.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace isam::interp {

namespace {

namespace fs = std::filesystem;

const char kMagic[] = "\x93NUMPY";

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// The value of `key` in the header's Python dict literal, as written (a quoted string, True or
// False, or a parenthesised tuple).
std::string headerField(const std::string &header, const std::string &key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    throw DataError("its header has no '" + key + "'");
  at = header.find(':', at);
  if (at == std::string::npos)
    throw DataError("its header is not a dict");
  at = header.find_first_not_of(' ', at + 1);
  if (at == std::string::npos)
    throw DataError("its header ends after '" + key + "'");
  char open = header[at];
  char close = open == '(' ? ')' : open == '\'' || open == '"' ? open : open == '[' ? ']' : 0;
  size_t end = close ? header.find(close, at + 1) : header.find_first_of(",}", at);
  if (end == std::string::npos)
    throw DataError("its header's '" + key + "' does not end");
  return header.substr(at, end - at + (close ? 1 : 0));
}

std::vector<int64_t> parseShape(const std::string &tuple) {
  std::vector<int64_t> shape;
  std::string inner = tuple.substr(1, tuple.size() - 2);
  std::stringstream in(inner);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t first = item.find_first_not_of(" L");
    if (first == std::string::npos)
      continue;
    char *end = nullptr;
    long long v = std::strtoll(item.c_str() + first, &end, 10);
    if (v < 0 || end == item.c_str() + first)
      throw DataError("its shape " + tuple + " is not a tuple of sizes");
    shape.push_back(v);
  }
  return shape;
}

double halfToDouble(uint16_t h) {
  int exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  double sign = (h & 0x8000) ? -1 : 1;
  if (exponent == 0x1F)
    return mantissa ? NAN : sign * INFINITY;
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

// The bits of an f16 value (already rounded to f16 by roundTo, so the encoding is exact).
uint16_t halfBits(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  double a = std::fabs(v);
  if (std::isnan(v))
    return 0x7E00;
  if (std::isinf(v) || a >= 65520.0)
    return sign | 0x7C00;
  if (a < std::ldexp(1.0, -14))
    return sign | uint16_t(std::nearbyint(a * std::ldexp(1.0, 24)));
  int e = std::ilogb(a);
  auto mantissa = uint16_t(std::nearbyint((a / std::ldexp(1.0, e) - 1) * 1024));
  return sign | uint16_t((e + 15) << 10) | mantissa;
}

// One element of kind `kind` and `size` bytes at p, in the file's byte order.
double element(const unsigned char *p, char kind, int size, bool bigEndian) {
  unsigned char b[8];
  for (int i = 0; i < size; ++i)
    b[i] = bigEndian ? p[size - 1 - i] : p[i];
  uint64_t bits = 0;
  for (int i = size - 1; i >= 0; --i)
    bits = bits << 8 | b[i];
  if (kind == 'b')
    return bits ? 1 : 0;
  if (kind == 'u')
    return double(bits);
  if (kind == 'i') {
    int shift = 64 - 8 * size;
    return double(int64_t(bits << shift) >> shift);
  }
  if (size == 2)
    return halfToDouble(uint16_t(bits));
  if (size == 4) {
    float f;
    auto u = uint32_t(bits);
    std::memcpy(&f, &u, 4);
    return f;
  }
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

} // namespace

NpyArray parseNpy(const std::string &bytes) {
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic) != 0)
    throw DataError("not a .npy file (no \\x93NUMPY magic)");
  int major = uint8_t(bytes[6]);
  if (major < 1 || major > 3)
    throw DataError(".npy format version " + std::to_string(major) + " is not supported");
  size_t lenBytes = major == 1 ? 2 : 4, headerLen = 0;
  if (bytes.size() < 8 + lenBytes)
    throw DataError("truncated header");
  for (size_t i = lenBytes; i-- > 0;)
    headerLen = headerLen << 8 | uint8_t(bytes[8 + i]);
  size_t dataAt = 8 + lenBytes + headerLen;
  if (dataAt > bytes.size())
    throw DataError("truncated header");
  std::string header = bytes.substr(8 + lenBytes, headerLen);
  NpyArray a;
  std::string descr = headerField(header, "descr");
  if (descr.size() < 4 || descr.front() != '\'')
    throw DataError("its dtype " + descr + " is a structured type, which isamap does not read");
  a.dtype = descr.substr(1, descr.size() - 2);
  char order = a.dtype[0], kind = a.dtype[1];
  int size = std::atoi(a.dtype.c_str() + 2);
  bool known =
      (kind == 'b' && size == 1) ||
      ((kind == 'i' || kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8)) ||
      (kind == 'f' && (size == 2 || size == 4 || size == 8));
  if (!known || (order != '<' && order != '>' && order != '|' && order != '='))
    throw DataError("its dtype '" + a.dtype +
                    "' is not one isamap reads (booleans, integers and floats of 2, 4 or 8 bytes)");
  bool fortran = headerField(header, "fortran_order") == "True";
  a.shape = parseShape(headerField(header, "shape"));
  int64_t count = 1;
  for (int64_t d : a.shape)
    count *= d;
  if (uint64_t(count) * uint64_t(size) > bytes.size() - dataAt)
    throw DataError("truncated: " + shapeText(a.shape) + " '" + a.dtype + "' needs " +
                    std::to_string(count * size) + " bytes of data, the file has " +
                    std::to_string(bytes.size() - dataAt));
  const auto *data = reinterpret_cast<const unsigned char *>(bytes.data() + dataAt);
  a.values.resize(size_t(count));
  std::vector<int64_t> index(a.shape.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    // Row-major position i; in Fortran order the first index varies fastest in the file.
    int64_t at = i;
    if (fortran) {
      at = 0;
      for (size_t d = a.shape.size(); d-- > 0;)
        at = at * a.shape[d] + index[d];
      for (size_t d = a.shape.size(); d-- > 0;)
        if (++index[d] < a.shape[d])
          break;
        else
          index[d] = 0;
    }
    a.values[size_t(i)] = element(data + at * size, kind, size, order == '>');
  }
  return a;
}

std::string formatNpy(ir::ElemType type, const std::vector<int64_t> &shape,
                      const std::vector<double> &values) {
  std::string dtype;
  switch (type) {
  case ir::ElemType::F16:
    dtype = "<f2";
    break;
  case ir::ElemType::BF16:
  case ir::ElemType::F32:
    dtype = "<f4";
    break;
  case ir::ElemType::F64:
    dtype = "<f8";
    break;
  case ir::ElemType::I8:
    dtype = "|i1";
    break;
  case ir::ElemType::I32:
    dtype = "<i4";
    break;
  }
  std::string header =
      "{'descr': '" + dtype + "', 'fortran_order': False, 'shape': " + shapeText(shape) + ", }";
  // Padded with spaces and a newline so that the data starts at a multiple of 64 bytes.
  size_t prefix = header.size() + 64 + 10 > 65535 ? 12 : 10;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, 6);
  out += char(prefix == 10 ? 1 : 2);
  out += char(0);
  for (size_t i = 0; i < prefix - 8; ++i)
    out += char((header.size() >> (8 * i)) & 0xFF);
  out += header;
  for (double v : values) {
    switch (type) {
    case ir::ElemType::F16: {
      uint16_t h = halfBits(v);
      out.append(reinterpret_cast<const char *>(&h), 2);
      break;
    }
    case ir::ElemType::BF16:
    case ir::ElemType::F32: {
      auto f = float(v);
      out.append(reinterpret_cast<const char *>(&f), 4);
      break;
    }
    case ir::ElemType::F64:
      out.append(reinterpret_cast<const char *>(&v), 8);
      break;
    case ir::ElemType::I8:
      out += char(int8_t(v));
      break;
    case ir::ElemType::I32: {
      auto i = int32_t(v);
      out.append(reinterpret_cast<const char *>(&i), 4);
      break;
    }
    }
  }
  return out;
}

namespace {

bool isInput(const ir::Tensor &t) {
  return t.role == ir::TensorRole::Input || t.role == ir::TensorRole::InOut;
}
bool isOutput(const ir::Tensor &t) {
  return t.role == ir::TensorRole::Output || t.role == ir::TensorRole::InOut;
}

std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw DataError(path + ": cannot be read");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The tensor's elements from the array read from `where`: its shape checked, each value cast.
void place(const ir::Tensor &t, const NpyArray &a, const std::string &where,
           std::vector<double> &out) {
  if (a.shape != t.shape)
    throw DataError(where + ": " + t.name + " is " + shapeText(t.shape) + " in the kernel, the " +
                    "file holds " + shapeText(a.shape));
  out.resize(a.values.size());
  for (size_t i = 0; i < a.values.size(); ++i)
    out[i] = roundTo(t.type, a.values[i]);
}

} // namespace

void readInputs(const ir::Kernel &k, const std::string &path, Buffers &b) {
  std::error_code ec;
  bool directory = fs::is_directory(path, ec);
  std::vector<std::pair<std::string, std::string>> entries;
  if (!directory) {
    if (!fs::exists(path, ec))
      throw DataError(path + ": no such file or directory");
    try {
      entries = readZip(readBytes(path));
    } catch (const ZipError &e) {
      throw DataError(path + ": " + e.what() + " (--inputs takes a directory or an .npz file)");
    }
  }
  b.resize(k.tensors.size());
  std::string missing;
  for (size_t t = 0; t < k.tensors.size(); ++t) {
    const ir::Tensor &tensor = k.tensors[t];
    if (!isInput(tensor))
      continue;
    std::string where, bytes;
    if (directory) {
      where = (fs::path(path) / (tensor.name + ".npy")).string();
      if (!fs::exists(where, ec)) {
        missing += (missing.empty() ? "" : ", ") + tensor.name + ".npy";
        continue;
      }
      bytes = readBytes(where);
    } else {
      auto found = std::find_if(entries.begin(), entries.end(), [&](const auto &e) {
        return e.first == tensor.name + ".npy" || e.first == tensor.name;
      });
      if (found == entries.end()) {
        missing += (missing.empty() ? "" : ", ") + tensor.name;
        continue;
      }
      where = path + ":" + found->first;
      bytes = found->second;
    }
    try {
      place(tensor, parseNpy(bytes), where, b[t]);
    } catch (const DataError &e) {
      std::string what = e.what();
      throw DataError(what.rfind(where, 0) == 0 ? what : where + ": " + what);
    }
  }
  if (!missing.empty())
    throw DataError(path + ": no data for " + missing + " (inputs of " + k.name + ")");
}

void writeOutputs(const ir::Kernel &k, const Buffers &b, const std::string &path) {
  std::vector<std::pair<std::string, std::string>> files;
  for (size_t t = 0; t < k.tensors.size(); ++t)
    if (isOutput(k.tensors[t]))
      files.emplace_back(k.tensors[t].name + ".npy",
                         formatNpy(k.tensors[t].type, k.tensors[t].shape, b[t]));
  std::string error;
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".npz") == 0) {
    try {
      if (!writeFileAtomically(path, writeZip(files), error))
        throw DataError(error);
    } catch (const ZipError &e) {
      throw DataError(path + ": " + e.what());
    }
    return;
  }
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec || !fs::is_directory(path))
    throw DataError(path + ": cannot create the directory" + (ec ? ": " + ec.message() : ""));
  for (const auto &[name, bytes] : files)
    if (!writeFileAtomically((fs::path(path) / name).string(), bytes, error))
      throw DataError(error);
}

} // namespace isam::interp
