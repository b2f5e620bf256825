#include "Memory.h"
#include "source/Quantities.h"

#include <cstdio>
#include <sys/resource.h>
#include <unistd.h>

namespace isam::cli {

double availableMemoryBytes() {
  double bytes = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit limit;
    if (getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
      bytes = std::min(bytes, double(limit.rlim_cur));
  }
  return bytes;
}

double runBytes(const ir::Kernel &kernel, int doubleCopies, bool nativeCopy) {
  double bytes = 0;
  for (const auto &t : kernel.tensors)
    bytes += double(t.elementCount()) *
             (8.0 * doubleCopies + (nativeCopy ? ir::elemTypeBytes(t.type) : 0));
  return bytes;
}

std::optional<std::string> exceedsMemory(const std::string &what, double bytes) {
  double available = availableMemoryBytes();
  if (bytes <= available)
    return std::nullopt;
  return what + " needs " + formatBytes(bytes) + ", more than the " + formatBytes(available) +
         " of memory available";
}

} // namespace isam::cli
