#include "interp/ZipArchive.h"

#include <cstdint>
#include <zlib.h>

namespace isam::interp {

namespace {

constexpr uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEnd = 0x06054b50,
                   kEnd64 = 0x06064b50, kEnd64Locator = 0x07064b50;
constexpr uint32_t kSaturated = 0xFFFFFFFF;

// Little-endian fields at checked offsets.
class Reader {
public:
  explicit Reader(const std::string &bytes) : b_(bytes) {}

  uint64_t le(size_t at, int bytes) const {
    need(at, size_t(bytes));
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i)
      v = v << 8 | uint8_t(b_[at + size_t(i)]);
    return v;
  }
  std::string slice(size_t at, uint64_t size) const {
    need(at, size);
    return b_.substr(at, size_t(size));
  }
  void need(size_t at, uint64_t size) const {
    if (at > b_.size() || size > b_.size() - at)
      throw ZipError("truncated: a record runs past the end of the file");
  }
  size_t size() const { return b_.size(); }

private:
  const std::string &b_;
};

struct Directory {
  uint64_t entries = 0, offset = 0;
};

Directory findDirectory(const Reader &r) {
  if (r.size() < 22)
    throw ZipError("not a zip archive (too short)");
  size_t lowest = r.size() > 65557 ? r.size() - 65557 : 0;
  for (size_t at = r.size() - 22 + 1; at-- > lowest;) {
    if (r.le(at, 4) != kEnd)
      continue;
    Directory d{r.le(at + 10, 2), r.le(at + 16, 4)};
    if ((d.entries == 0xFFFF || d.offset == kSaturated) && at >= 20 &&
        r.le(at - 20, 4) == kEnd64Locator) {
      size_t end64 = size_t(r.le(at - 20 + 8, 8));
      if (r.le(end64, 4) != kEnd64)
        throw ZipError("a Zip64 locator points at no Zip64 end record");
      d.entries = r.le(end64 + 32, 8);
      d.offset = r.le(end64 + 48, 8);
    }
    return d;
  }
  throw ZipError("not a zip archive (no end of central directory record)");
}

std::string inflateRaw(const std::string &in, uint64_t size) {
  std::string out(size_t(size), '\0');
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
    throw ZipError("zlib could not start inflating");
  z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in.data()));
  z.avail_in = uInt(in.size());
  z.next_out = reinterpret_cast<Bytef *>(out.data());
  z.avail_out = uInt(out.size());
  int rc = inflate(&z, Z_FINISH);
  uint64_t produced = z.total_out;
  inflateEnd(&z);
  if (rc != Z_STREAM_END || produced != size)
    throw ZipError("a deflated entry does not inflate to its recorded size");
  return out;
}

uint32_t crc(const std::string &data) {
  return uint32_t(crc32(0L, reinterpret_cast<const Bytef *>(data.data()), uInt(data.size())));
}

} // namespace

std::vector<std::pair<std::string, std::string>> readZip(const std::string &bytes) {
  Reader r(bytes);
  Directory dir = findDirectory(r);
  std::vector<std::pair<std::string, std::string>> out;
  size_t at = size_t(dir.offset);
  for (uint64_t e = 0; e < dir.entries; ++e) {
    if (r.le(at, 4) != kCentralHeader)
      throw ZipError("a central directory entry is damaged");
    uint64_t flags = r.le(at + 8, 2), method = r.le(at + 10, 2), want = r.le(at + 16, 4);
    uint64_t csize = r.le(at + 20, 4), usize = r.le(at + 24, 4);
    size_t nameLen = size_t(r.le(at + 28, 2)), extraLen = size_t(r.le(at + 30, 2));
    size_t commentLen = size_t(r.le(at + 32, 2));
    uint64_t local = r.le(at + 42, 4);
    std::string name = r.slice(at + 46, nameLen);
    // A Zip64 extra field holds, in order, each field saturated above.
    for (size_t x = at + 46 + nameLen; x + 4 <= at + 46 + nameLen + extraLen;) {
      uint64_t id = r.le(x, 2), len = r.le(x + 2, 2);
      size_t f = x + 4;
      if (id == 1) {
        if (usize == kSaturated)
          usize = r.le(f, 8), f += 8;
        if (csize == kSaturated)
          csize = r.le(f, 8), f += 8;
        if (local == kSaturated)
          local = r.le(f, 8);
      }
      x += 4 + size_t(len);
    }
    if (flags & 1)
      throw ZipError(name + " is encrypted");
    if (r.le(size_t(local), 4) != kLocalHeader)
      throw ZipError(name + ": its local header is damaged");
    size_t data = size_t(local) + 30 + size_t(r.le(size_t(local) + 26, 2)) +
                  size_t(r.le(size_t(local) + 28, 2));
    std::string raw = r.slice(data, csize);
    std::string contents;
    if (method == 0)
      contents = std::move(raw);
    else if (method == 8)
      contents = inflateRaw(raw, usize);
    else
      throw ZipError(name + ": compression method " + std::to_string(method) +
                     " is not supported (only stored and deflated)");
    if (contents.size() != usize || crc(contents) != want)
      throw ZipError(name + ": its contents do not match their CRC-32");
    out.emplace_back(std::move(name), std::move(contents));
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

namespace {

void put(std::string &out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(char((v >> (8 * i)) & 0xFF));
}

// The fields a local and a central header share, from "version needed" to the name's length.
void common(std::string &out, const std::string &name, const std::string &data) {
  put(out, 20, 2);   // version needed: 2.0
  put(out, 0, 2);    // flags
  put(out, 0, 2);    // stored
  put(out, 0, 2);    // time: 00:00:00
  put(out, 0x21, 2); // date: 1980-01-01, as reproducible builds write it
  put(out, crc(data), 4);
  put(out, data.size(), 4);
  put(out, data.size(), 4);
  put(out, name.size(), 2);
}

} // namespace

std::string writeZip(const std::vector<std::pair<std::string, std::string>> &entries) {
  std::string out, central;
  for (const auto &[name, data] : entries) {
    if (data.size() >= kSaturated || out.size() >= kSaturated)
      throw ZipError(name + " would make the archive larger than 4 GiB; write a directory of "
                            ".npy files instead");
    uint64_t offset = out.size();
    put(out, kLocalHeader, 4);
    common(out, name, data);
    put(out, 0, 2); // no extra field
    out += name;
    out += data;
    put(central, kCentralHeader, 4);
    put(central, 20, 2); // made by: 2.0
    common(central, name, data);
    put(central, 0, 2); // extra
    put(central, 0, 2); // comment
    put(central, 0, 2); // disk
    put(central, 0, 2); // internal attributes
    put(central, 0, 4); // external attributes
    put(central, offset, 4);
    central += name;
  }
  if (entries.size() >= 0xFFFF || out.size() + central.size() >= kSaturated)
    throw ZipError("the archive would need Zip64; write a directory of .npy files instead");
  uint64_t directory = out.size();
  out += central;
  put(out, kEnd, 4);
  put(out, 0, 2);
  put(out, 0, 2);
  put(out, entries.size(), 2);
  put(out, entries.size(), 2);
  put(out, central.size(), 4);
  put(out, directory, 4);
  put(out, 0, 2);
  return out;
}

} // namespace isam::interp
