// Memory a command is about to allocate, checked before it allocates: an instance too large for
// this machine gets "needs N GiB, more than the M GiB available" and exit 1, not an abort on
// std::bad_alloc (main.cpp still catches that, as a last resort).
#pragma once

#include "ir/Compute.h"

#include <optional>
#include <string>

namespace isam::cli {

// The memory this process may use: physical memory, or less when a resource limit says so
// (ulimit -v, ulimit -d).
double availableMemoryBytes();

// What `run` holds at once for one instance: every tensor as doubles (`doubleCopies` of them:
// the inputs, the result, the reference) and, when `nativeCopy`, once more in its own element
// type (native buffers, the simulator's memory). As a double: the sum may exceed 2^64.
double runBytes(const ir::Kernel &kernel, int doubleCopies, bool nativeCopy);

// The message for `what` needing `bytes` when that is more than available, else nullopt.
std::optional<std::string> exceedsMemory(const std::string &what, double bytes);

} // namespace isam::cli
