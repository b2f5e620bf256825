#include "hw/Host.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

namespace fs = std::filesystem;

namespace isam::hw {

HostCpu detectHost() {
  HostCpu h;
  h.triple = llvm::sys::getProcessTriple();
  h.cpu = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features;
  llvm::sys::getHostCPUFeatures(features);
  for (const auto &f : features)
    if (f.second)
      h.features.push_back(f.first().str());
  std::sort(h.features.begin(), h.features.end());
  h.threads = std::max(1u, std::thread::hardware_concurrency());
  h.cacheBytes = readCacheSizes("/sys/devices/system/cpu/cpu0");
  h.cacheWays = readCacheWays("/sys/devices/system/cpu/cpu0");
  return h;
}

namespace {

std::string firstWord(const fs::path &file) {
  std::ifstream in(file);
  std::string w;
  in >> w;
  return w;
}

// Calls `each(level, dir)` for every data or unified cache below a sysfs CPU directory.
void forEachDataCache(const std::string &cpuDir,
                      const std::function<void(size_t, const fs::path &)> &each) {
  std::error_code ec;
  fs::path dir = fs::path(cpuDir) / "cache";
  if (!fs::is_directory(dir, ec))
    return;
  for (const auto &entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0)
      continue;
    std::string type = firstWord(entry.path() / "type");
    int level = std::atoi(firstWord(entry.path() / "level").c_str());
    if ((type != "Data" && type != "Unified") || level < 1 || level > 8)
      continue;
    each(size_t(level), entry.path());
  }
}

} // namespace

std::vector<uint64_t> readCacheSizes(const std::string &cpuDir) {
  std::vector<uint64_t> sizes;
  forEachDataCache(cpuDir, [&](size_t level, const fs::path &dir) {
    std::string size = firstWord(dir / "size");
    if (size.empty())
      return;
    char *end = nullptr;
    uint64_t bytes = std::strtoull(size.c_str(), &end, 10);
    if (end && (*end == 'K' || *end == 'k'))
      bytes <<= 10;
    else if (end && *end == 'M')
      bytes <<= 20;
    else if (end && *end == 'G')
      bytes <<= 30;
    if (sizes.size() < level)
      sizes.resize(level, 0);
    sizes[level - 1] = bytes;
  });
  return sizes;
}

std::vector<uint32_t> readCacheWays(const std::string &cpuDir) {
  std::vector<uint32_t> ways;
  forEachDataCache(cpuDir, [&](size_t level, const fs::path &dir) {
    unsigned long n = std::strtoul(firstWord(dir / "ways_of_associativity").c_str(), nullptr, 10);
    if (n == 0 || n > 1024)
      return;
    if (ways.size() < level)
      ways.resize(level, 0);
    ways[level - 1] = uint32_t(n);
  });
  return ways;
}

std::string hostDescriptionName(const HostCpu &cpu) {
  auto has = [&](std::initializer_list<const char *> names) {
    for (const char *n : names)
      if (std::find(cpu.features.begin(), cpu.features.end(), std::string(n)) == cpu.features.end())
        return false;
    return true;
  };
  llvm::Triple t(cpu.triple);
  if (t.getArch() == llvm::Triple::x86_64) {
    if (has({"avx512f", "avx512vl", "avx512bw", "avx512dq", "fma"}))
      return "x86_avx512";
    if (has({"avx2", "fma"}))
      return "x86_avx2";
  }
  if (t.getArch() == llvm::Triple::aarch64 && has({"neon"}))
    return "arm_neon";
  if (t.getArch() == llvm::Triple::riscv64 && has({"v"}))
    return "riscv_rvv";
  return "generic";
}

Target hostTarget(const Target &description, const HostCpu &cpu, const FmaMeter &meter) {
  Target t = description;
  t.name = "host";
  t.triple = cpu.triple;
  t.cpu = cpu.cpu;
  t.features.clear();
  for (const auto &f : cpu.features)
    t.features.append(t.features.empty() ? "+" : ",+").append(f);
  t.cores = cpu.threads;
  // The caches from the registers out, innermost first.
  std::vector<size_t> caches;
  for (const auto &m : t.memories)
    if (m.isRegisters && m.parent >= 0) {
      for (int c = m.parent; c >= 0 && t.memories[size_t(c)].parent >= 0;
           c = t.memories[size_t(c)].parent)
        caches.push_back(size_t(c));
      break;
    }
  for (size_t level = 0; level < caches.size() && level < cpu.cacheBytes.size(); ++level) {
    uint64_t &size = t.memories[caches[level]].sizeBytes;
    uint64_t reported = cpu.cacheBytes[level];
    if (reported > 0)
      size = level + 1 < caches.size() ? reported : std::min(size, reported);
  }
  for (size_t level = 0; level < caches.size() && level < cpu.cacheWays.size(); ++level)
    if (cpu.cacheWays[level] > 0)
      t.memories[caches[level]].ways = cpu.cacheWays[level];
  calibrate(t, cpu, meter);
  return t;
}

void calibrate(Target &t, const HostCpu &cpu, const FmaMeter &meter) {
  if (!meter)
    return;
  uint32_t vectorBytes = 0;
  for (const auto &m : t.memories)
    if (m.isRegisters)
      vectorBytes = std::max(vectorBytes, m.registerBytes);
  const Instruction *peak = t.peakInstruction();
  double best = t.peakFlopsPerCycle();
  if (!peak || vectorBytes == 0)
    return;
  std::optional<double> measured = meter(cpu, vectorBytes);
  if (!measured)
    return;
  double described = best * t.clockHz / 1e9;
  double factor = *measured / described;
  double pipes = 1;
  // More (or fewer) pipes than the description's core: every arithmetic instruction on the
  // peak instruction's unit issues that much faster. Pipes come in whole numbers.
  if (factor <= 0.8 || factor >= 1.25)
    pipes = factor >= 1 ? std::round(factor) : std::max(0.25, std::round(factor * 4) / 4);
  if (pipes != 1) {
    int unit = peak->unit;
    for (auto &i : t.instructions)
      if (!i.isMove && i.unit == unit)
        i.cost.perCycle *= pipes;
    // A core with that many more pipes loads that much more per cycle into its registers (every
    // design since the first AVX-512 and SVE cores pairs them).
    for (auto &m : t.memories)
      if (m.isRegisters && m.parent >= 0)
        t.memories[size_t(m.parent)].bandwidthBytesPerCycle *= pipes;
  }
  // The rest of the difference is the clock the cores run vector code at, which the OS does not
  // report (its figure is nominal): this Sapphire Rapids VM says 3.6 GHz and runs 512-bit FMAs
  // at ~2.95. Times the model shows are then this machine's. In steps of kClockStepHz, and only
  // when off by more than kClockToleranceHz, so that the noise of one measurement does not make
  // two runs choose differently.
  double clock = *measured / (best * pipes) * 1e9;
  if (std::abs(clock - t.clockHz) > kClockToleranceHz)
    t.setClock(std::max(kClockStepHz, std::round(clock / kClockStepHz) * kClockStepHz));
}

} // namespace isam::hw
