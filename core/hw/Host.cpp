#include "hw/Host.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <thread>

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
  return h;
}

std::string hostDescriptionName(const HostCpu &cpu) {
  auto has = [&](std::initializer_list<const char *> names) {
    for (const char *n : names)
      if (!std::binary_search(cpu.features.begin(), cpu.features.end(), std::string(n)))
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

Target hostTarget(const Target &description, const HostCpu &cpu) {
  Target t = description;
  t.name = "host";
  t.triple = cpu.triple;
  t.cpu = cpu.cpu;
  t.features.clear();
  for (const auto &f : cpu.features)
    t.features.append(t.features.empty() ? "+" : ",+").append(f);
  t.cores = cpu.threads;
  return t;
}

} // namespace isam::hw
