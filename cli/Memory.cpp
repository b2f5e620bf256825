#include "Memory.h"

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

std::string formatBytes(double bytes) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
  size_t u = 0;
  while (bytes >= 1024 && u + 1 < sizeof units / sizeof *units)
    bytes /= 1024, ++u;
  char text[64];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return text;
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
