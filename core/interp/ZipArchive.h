// Zip archives as NumPy's .npz files use them: reading entries stored or deflated (np.savez,
// np.savez_compressed, with or without Zip64 records), and writing stored entries. No
// encryption, no multi-disk archives. Deflate and CRC-32 come from zlib.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace isam::interp {

struct ZipError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Every entry of the archive in `bytes`, in the central directory's order, as (name, contents).
// Throws ZipError saying what is wrong (not a zip file, a truncated entry, a bad CRC, an
// unsupported compression method).
std::vector<std::pair<std::string, std::string>> readZip(const std::string &bytes);

// An archive of the entries, stored (uncompressed), as np.savez writes them. Throws ZipError
// when the archive would need Zip64 (an entry or the whole archive past 4 GiB).
std::string writeZip(const std::vector<std::pair<std::string, std::string>> &entries);

} // namespace isam::interp
