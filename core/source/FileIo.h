// Writing files so that nothing is ever half-written.
#pragma once

#include <string>
#include <string_view>

namespace isam {

// Writes all of `data` to `fd`, retrying interrupted and partial writes; false on an error.
bool writeAll(int fd, std::string_view data);

// Writes `data` to `path` through a temporary file in the same directory and a rename, so that
// the file is either the old one or the whole new one; false (with `error` set, and nothing left
// behind) on failure. A symbolic link is followed (the file it names is replaced, the link
// stays), a replaced file keeps its permissions, and what is not a regular file (a device such
// as /dev/null or /dev/stdout, a FIFO) is written in place: a rename would replace the device.
bool writeFileAtomically(const std::string &path, std::string_view data, std::string &error);

} // namespace isam
