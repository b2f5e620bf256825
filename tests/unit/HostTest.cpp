// The `host` target (core/hw/Host.h): which shipped description a CPU gets, how the description
// is made exact for the machine, and Session::target("host") (detection, unless a loaded file
// declares its own `target host`).
#include "hw/Host.h"
#include "backends/llvm/Calibrate.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <llvm/ADT/StringRef.h>
#include <llvm/TargetParser/Host.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>
#include <tuple>

using namespace isam;

namespace {

hw::HostCpu cpu(const std::string &triple, std::vector<std::string> features) {
  hw::HostCpu c;
  c.triple = triple;
  c.cpu = "some-cpu";
  std::sort(features.begin(), features.end()); // as detectHost gives them
  c.features = std::move(features);
  c.threads = 3;
  return c;
}

const std::vector<std::string> kAvx512 = {"sse4.2",   "avx",      "avx2",     "fma",      "avx512f",
                                          "avx512vl", "avx512bw", "avx512dq", "avx512cd", "bmi2"};

std::vector<std::string> names(const std::vector<hw::Instruction> &instrs) {
  std::vector<std::string> out;
  for (const auto &i : instrs)
    out.push_back(i.name);
  return out;
}

// The description's peak arithmetic rate in GFLOP/s per core: its fastest instruction's flops
// per cycle at its clock (what hw::calibrate compares a measurement with).
double describedGflops(const hw::Target &t) {
  double best = 0;
  for (const auto &i : t.instructions) {
    if (i.isMove || i.semantics.statements.empty())
      continue;
    const ir::Statement &s = i.semantics.statements[0];
    best = std::max(best, double(s.pointCount()) * s.flopsPerPoint() * i.cost.perCycle);
  }
  return best * t.clockHz / 1e9;
}

// A meter that answers `gflops` and records the vector width it was asked about.
hw::FmaMeter fixedMeter(std::optional<double> gflops, unsigned *askedBytes = nullptr) {
  return [gflops, askedBytes](const hw::HostCpu &, unsigned vectorBytes) {
    if (askedBytes)
      *askedBytes = vectorBytes;
    return gflops;
  };
}

std::string render(Session &s) {
  std::string out;
  for (const auto &d : s.diagnostics().all())
    out += renderDiagnostic(d, s.sources()) + "\n";
  return out;
}

} // namespace

TEST(HostDescription, X86PicksTheWidestVectorDescriptionItsFeaturesAllow) {
  EXPECT_EQ(hw::hostDescriptionName(cpu("x86_64-pc-linux-gnu", kAvx512)), "x86_avx512");
  EXPECT_EQ(hw::hostDescriptionName(cpu("x86_64-unknown-linux-gnu", kAvx512)), "x86_avx512");
  EXPECT_EQ(hw::hostDescriptionName(cpu("x86_64-pc-linux-gnu", {"avx", "avx2", "fma", "sse4.2"})),
            "x86_avx2");
  // Any one of the AVX-512 subsets missing: no AVX-512.
  for (const char *missing : {"avx512f", "avx512vl", "avx512bw", "avx512dq", "fma"}) {
    auto f = kAvx512;
    f.erase(std::find(f.begin(), f.end(), missing));
    EXPECT_NE(hw::hostDescriptionName(cpu("x86_64-pc-linux-gnu", f)), "x86_avx512") << missing;
  }
  auto noBw = kAvx512;
  noBw.erase(std::find(noBw.begin(), noBw.end(), "avx512bw"));
  EXPECT_EQ(hw::hostDescriptionName(cpu("x86_64-pc-linux-gnu", noBw)), "x86_avx2");
  // AVX2 without FMA (or neither): nothing shipped fits.
  EXPECT_EQ(hw::hostDescriptionName(cpu("x86_64-pc-linux-gnu", {"avx", "avx2"})), "generic");
  EXPECT_EQ(hw::hostDescriptionName(cpu("x86_64-pc-linux-gnu", {"sse2", "sse4.2"})), "generic");
  EXPECT_EQ(hw::hostDescriptionName(cpu("x86_64-pc-linux-gnu", {})), "generic");
  // AVX-512 feature names on another architecture mean nothing.
  EXPECT_EQ(hw::hostDescriptionName(cpu("i686-pc-linux-gnu", kAvx512)), "generic");
}

TEST(HostDescription, ArmRiscvAndOthers) {
  EXPECT_EQ(hw::hostDescriptionName(cpu("aarch64-unknown-linux-gnu", {"neon", "fp-armv8"})),
            "arm_neon");
  EXPECT_EQ(hw::hostDescriptionName(cpu("arm64-apple-darwin22.0.0", {"neon"})), "arm_neon");
  EXPECT_EQ(hw::hostDescriptionName(cpu("aarch64-unknown-linux-gnu", {"fp-armv8"})), "generic");
  EXPECT_EQ(
      hw::hostDescriptionName(cpu("riscv64-unknown-linux-gnu", {"a", "c", "d", "f", "m", "v"})),
      "riscv_rvv");
  EXPECT_EQ(hw::hostDescriptionName(cpu("riscv64-unknown-linux-gnu", {"a", "c", "d", "f", "m"})),
            "generic");
  EXPECT_EQ(hw::hostDescriptionName(cpu("riscv32-unknown-linux-gnu", {"v"})), "generic");
  EXPECT_EQ(hw::hostDescriptionName(cpu("powerpc64le-unknown-linux-gnu", {"altivec", "vsx"})),
            "generic");
  EXPECT_EQ(hw::hostDescriptionName(cpu("", {})), "generic");
  EXPECT_EQ(hw::hostDescriptionName(cpu("garbage", {"neon", "v", "avx2", "fma"})), "generic");
}

TEST(HostDescription, FeatureOrderDoesNotMatter) {
  // HostCpu::features is documented as the enabled features, with no word on their order;
  // a CPU built by hand (not by detectHost, which sorts) must be recognised all the same.
  hw::HostCpu c;
  c.triple = "x86_64-pc-linux-gnu";
  c.features = {"fma", "avx2", "avx"};
  EXPECT_EQ(hw::hostDescriptionName(c), "x86_avx2")
      << "BUG: hostDescriptionName binary-searches HostCpu::features, which only works when "
         "they are sorted";
  c.features = {"fma", "avx512vl", "avx512f", "avx512dq", "avx512bw", "avx2"};
  EXPECT_EQ(hw::hostDescriptionName(c), "x86_avx512");
}

TEST(HostTarget, TheDescriptionMadeExactForTheCpu) {
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; }\n");
  auto description = s->target("x86_avx512");
  ASSERT_TRUE(description) << render(*s);
  hw::HostCpu c = cpu("x86_64-pc-linux-gnu", {"avx512f", "fma", "avx2"});
  c.cpu = "sapphirerapids";
  c.threads = 5;
  hw::Target t = hw::hostTarget(*description, c);
  EXPECT_EQ(t.name, "host");
  EXPECT_EQ(t.triple, "x86_64-pc-linux-gnu");
  EXPECT_EQ(t.cpu, "sapphirerapids");
  EXPECT_EQ(t.features, "+avx2,+avx512f,+fma");
  EXPECT_EQ(t.cores, 5u);
  // Everything else is the description's.
  EXPECT_EQ(t.clockHz, description->clockHz);
  EXPECT_EQ(names(t.instructions), names(description->instructions));
  ASSERT_EQ(t.memories.size(), description->memories.size());
  for (size_t m = 0; m < t.memories.size(); ++m)
    EXPECT_EQ(t.memories[m].name, description->memories[m].name);
  EXPECT_GT(t.instructions.size(), 0u);
  // And the description itself is untouched.
  EXPECT_EQ(description->name, "x86_avx512");

  // No features: an empty list, not a lone "+".
  c.features.clear();
  EXPECT_EQ(hw::hostTarget(*description, c).features, "");
}

TEST(HostTarget, DetectHostDescribesThisProcess) {
  hw::HostCpu h = hw::detectHost();
  EXPECT_EQ(h.triple, llvm::sys::getProcessTriple());
  EXPECT_EQ(h.cpu, llvm::sys::getHostCPUName().str());
  EXPECT_GE(h.threads, 1u);
  EXPECT_TRUE(std::is_sorted(h.features.begin(), h.features.end()));
  for (const auto &f : h.features) {
    EXPECT_FALSE(f.empty());
    EXPECT_NE(f[0], '+') << f;
    EXPECT_NE(f[0], '-') << f;
  }
#if defined(__x86_64__)
  // Every x86-64 CPU has SSE2, which LLVM reports as a feature.
  EXPECT_TRUE(std::binary_search(h.features.begin(), h.features.end(), std::string("sse2")));
#endif
}

TEST(HostTarget, SessionTargetHostIsThisMachine) {
  Session s;
  s.loadText("test.isam", "kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; }\n");
  auto t = s.target("host");
  ASSERT_TRUE(t) << render(s);
  EXPECT_FALSE(s.diagnostics().hasErrors()) << render(s);
  EXPECT_EQ(t->name, "host");
  EXPECT_EQ(t->triple, llvm::sys::getProcessTriple());
  EXPECT_EQ(t->cpu, llvm::sys::getHostCPUName().str());
  EXPECT_GE(t->cores, 1u);
  unsigned hc = std::thread::hardware_concurrency();
  if (hc > 0) {
    EXPECT_LE(t->cores, hc);
  }
  EXPECT_FALSE(t->memories.empty());
  // Built from the description detection picks, with that description's instructions.
  hw::HostCpu h = hw::detectHost();
  auto description = s.target(hw::hostDescriptionName(h));
  ASSERT_TRUE(description);
  EXPECT_EQ(names(t->instructions), names(description->instructions));
  EXPECT_EQ(t->cores, h.threads);
  // The features are LLVM's for this CPU, in LLVM's "+a,+b" form.
  ASSERT_FALSE(h.features.empty());
  EXPECT_EQ(t->features.substr(0, 1 + h.features[0].size()), "+" + h.features[0]);
  EXPECT_EQ(size_t(std::count(t->features.begin(), t->features.end(), '+')), h.features.size());
  // Asked twice, the same target.
  auto again = s.target("host");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->features, t->features);
}

TEST(HostTarget, HostIsReservedSoNoFileCanShadowTheMachine) {
  // `host` is a keyword (of `system` declarations: `host T;`), so `target host` is a syntax
  // error and Session::target("host") always means the detected machine.
  Session s;
  s.loadText("test.isam",
             "target host {\n"
             "  llvm triple \"x86_64-unknown-linux-gnu\" cpu \"x86-64\" features \"\";\n"
             "  cores 3;\n"
             "  clock 1 GHz;\n"
             "  memory DRAM { size 1 GiB; }\n"
             "}\n");
  s.checkAll();
  ASSERT_TRUE(s.diagnostics().hasErrors());
  EXPECT_EQ(s.diagnostics().all().front().code, "E0101") << render(s);
  auto t = s.target("host");
  ASSERT_TRUE(t) << render(s);
  EXPECT_EQ(t->name, "host");
  EXPECT_EQ(t->cpu, hw::detectHost().cpu);
  EXPECT_EQ(t->cores, hw::detectHost().threads);
}

TEST(HostCalibration, ScalesThePeakUnitToTheMeasuredRateInWholePipes) {
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; }\n");
  auto description = s->target("x86_avx512");
  ASSERT_TRUE(description) << render(*s);
  hw::HostCpu c = cpu("x86_64-pc-linux-gnu", kAvx512);
  double described = describedGflops(*description);
  ASSERT_GT(described, 0);

  // 1.9 times the described rate rounds to two whole pipes: every arithmetic instruction on the
  // peak instruction's unit issues twice as fast, and the registers' parent loads twice as much
  // per cycle. The rest (0.95) is the clock, in steps of 0.25 GHz: 3.6 GHz becomes 3.5, and
  // DRAM's bandwidth, given per second, is that many more bytes per cycle.
  unsigned asked = 0;
  hw::Target t = hw::hostTarget(*description, c, fixedMeter(1.9 * described, &asked));
  EXPECT_EQ(asked, 64u) << "the meter is asked about the widest vector registers (zmm)";
  ASSERT_DOUBLE_EQ(description->clockHz, 3.6e9);
  EXPECT_DOUBLE_EQ(t.clockHz, 3.5e9);
  EXPECT_NEAR(describedGflops(t), 2 * described * 3.5 / 3.6, 1e-9 * described);
  ASSERT_EQ(t.instructions.size(), description->instructions.size());
  int peakUnit = -1;
  for (size_t i = 0; i < t.instructions.size(); ++i)
    if (t.instructions[i].cost.perCycle != description->instructions[i].cost.perCycle)
      peakUnit = t.instructions[i].unit;
  ASSERT_GE(peakUnit, 0);
  for (size_t i = 0; i < t.instructions.size(); ++i) {
    const auto &got = t.instructions[i], &was = description->instructions[i];
    bool scaled = !was.isMove && was.unit == peakUnit;
    EXPECT_DOUBLE_EQ(got.cost.perCycle, was.cost.perCycle * (scaled ? 2 : 1)) << was.name;
  }
  int perSecond = 0;
  for (size_t m = 0; m < t.memories.size(); ++m) {
    bool feedsRegisters = false;
    for (const auto &r : t.memories)
      feedsRegisters |= r.isRegisters && r.parent == int(m);
    double scale = feedsRegisters ? 2 : t.memories[m].bandwidthPerSecond ? 3.6 / 3.5 : 1;
    perSecond += t.memories[m].bandwidthPerSecond;
    EXPECT_DOUBLE_EQ(t.memories[m].bandwidthBytesPerCycle,
                     description->memories[m].bandwidthBytesPerCycle * scale)
        << t.memories[m].name;
  }
  EXPECT_EQ(perSecond, 1) << "x86_avx512 gives DRAM's bandwidth in GB/s, the caches' per cycle";

  // Slower than described: quarters of the rate, at the described clock when they match it.
  hw::Target half = hw::hostTarget(*description, c, fixedMeter(0.5 * described));
  EXPECT_NEAR(describedGflops(half), 0.5 * described, 1e-9 * described);
  EXPECT_DOUBLE_EQ(half.clockHz, description->clockHz);
}

TEST(HostCalibration, WithinAQuarterThePipesStayAndTheClockFollows) {
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; }\n");
  auto description = s->target("x86_avx2");
  ASSERT_TRUE(description) << render(*s);
  ASSERT_DOUBLE_EQ(description->clockHz, 3.4e9);
  hw::HostCpu c = cpu("x86_64-pc-linux-gnu", {"avx", "avx2", "fma"});
  double described = describedGflops(*description);
  // (measured / described, the clock): 4.08 GHz rounds to 4.0, 2.89 to 3.0; within 0.125 GHz of
  // the description's, without a measurement or without a meter, the clock stays.
  std::vector<std::pair<hw::FmaMeter, double>> cases = {
      {fixedMeter(1.2 * described), 4.0e9},  {fixedMeter(0.85 * described), 3.0e9},
      {fixedMeter(1.02 * described), 3.4e9}, {fixedMeter(0.98 * described), 3.4e9},
      {fixedMeter(std::nullopt), 3.4e9},     {hw::FmaMeter(), 3.4e9}};
  for (const auto &[meter, clock] : cases) {
    hw::Target t = hw::hostTarget(*description, c, meter);
    EXPECT_DOUBLE_EQ(t.clockHz, clock);
    for (size_t i = 0; i < t.instructions.size(); ++i)
      EXPECT_EQ(t.instructions[i].cost.perCycle, description->instructions[i].cost.perCycle);
    for (size_t m = 0; m < t.memories.size(); ++m) {
      const hw::Memory &was = description->memories[m];
      // Bytes per second stay what the description says.
      EXPECT_DOUBLE_EQ(t.memories[m].bandwidthBytesPerCycle,
                       was.bandwidthBytesPerCycle *
                           (was.bandwidthPerSecond ? description->clockHz / clock : 1))
          << was.name;
    }
  }
}

TEST(HostCalibration, TheSessionCalibratesTheHostWithItsMeter) {
  // SessionOptions::hostMeter is how a front end gives the core its measurement: the core
  // itself cannot run a JIT (ARCHITECTURE.md, "Layers").
  hw::HostCpu h = hw::detectHost();
  Session plain;
  plain.loadText("test.isam", "");
  auto description = plain.target(hw::hostDescriptionName(h));
  ASSERT_TRUE(description) << render(plain);
  double described = describedGflops(*description);
  if (described == 0)
    GTEST_SKIP() << "this machine's description (" << description->name << ") has no arithmetic";
  auto uncalibrated = plain.target("host");
  ASSERT_TRUE(uncalibrated);
  EXPECT_DOUBLE_EQ(describedGflops(*uncalibrated), described);

  SessionOptions options;
  int calls = 0;
  options.hostMeter = [&](const hw::HostCpu &, unsigned) -> std::optional<double> {
    ++calls;
    return 3 * described;
  };
  Session s(options);
  s.loadText("test.isam", "");
  auto t = s.target("host");
  ASSERT_TRUE(t) << render(s);
  EXPECT_EQ(calls, 1);
  EXPECT_NEAR(describedGflops(*t), 3 * described, 1e-9 * described);
}

TEST(HostCalibration, TheJitMeterMeasuresThisMachine) {
  // The meter the front ends pass: a real measurement, positive and finite, and the same when
  // asked again (measured once per process and width).
  hw::HostCpu h = hw::detectHost();
  std::optional<double> gflops = backend::measureFmaGflops(h, 16);
  ASSERT_TRUE(gflops) << "the FMA loop did not compile for " << h.cpu;
  EXPECT_GT(*gflops, 0);
  EXPECT_LT(*gflops, 1e6);
  EXPECT_EQ(backend::measureFmaGflops(h, 16), gflops);
}

namespace {

// A sysfs CPU directory with the given caches: (level, type, size as sysfs writes it).
std::string fakeCpuDir(const std::string &name,
                       const std::vector<std::tuple<int, std::string, std::string>> &caches) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("isamap-host-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  for (size_t i = 0; i < caches.size(); ++i) {
    auto [level, type, size] = caches[i];
    std::filesystem::path index = dir / "cache" / ("index" + std::to_string(i));
    std::filesystem::create_directories(index);
    std::ofstream(index / "level") << level << "\n";
    std::ofstream(index / "type") << type << "\n";
    std::ofstream(index / "size") << size << "\n";
  }
  return dir.string();
}

TEST(HostCaches, ReadsDataAndUnifiedCachesByLevel) {
  std::string dir = fakeCpuDir("sizes", {{1, "Data", "48K"},
                                         {1, "Instruction", "64K"},
                                         {2, "Unified", "2048K"},
                                         {3, "Unified", "491520K"}});
  EXPECT_EQ(hw::readCacheSizes(dir),
            (std::vector<uint64_t>{48u << 10, 2048u << 10, uint64_t(491520) << 10}));
  std::filesystem::remove_all(dir);
  // Nothing reported (a container without sysfs): nothing known.
  EXPECT_TRUE(hw::readCacheSizes("/nonexistent/cpu0").empty());
  // A level the OS skips is unknown (0), not shifted down.
  std::string gap = fakeCpuDir("gap", {{1, "Data", "32K"}, {3, "Unified", "8M"}});
  EXPECT_EQ(hw::readCacheSizes(gap), (std::vector<uint64_t>{32u << 10, 0, 8u << 20}));
  std::filesystem::remove_all(gap);
}

TEST(HostCaches, ReadsTheirAssociativities) {
  std::string dir = fakeCpuDir("ways", {{1, "Data", "48K"},
                                        {1, "Instruction", "32K"},
                                        {2, "Unified", "2048K"},
                                        {3, "Unified", "491520K"}});
  // As sysfs lists them: index0 L1d (12), index1 L1i (8, not a data cache), index2 L2 (16);
  // the L3 reports none.
  std::ofstream(std::filesystem::path(dir) / "cache" / "index0" / "ways_of_associativity")
      << "12\n";
  std::ofstream(std::filesystem::path(dir) / "cache" / "index1" / "ways_of_associativity") << "8\n";
  std::ofstream(std::filesystem::path(dir) / "cache" / "index2" / "ways_of_associativity")
      << "16\n";
  EXPECT_EQ(hw::readCacheWays(dir), (std::vector<uint32_t>{12, 16}));
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(hw::readCacheWays("/nonexistent/cpu0").empty());
}

TEST(HostCaches, TheHostTargetHasThisMachinesCaches) {
  // L1 and L2 as reported (a 2-core Sapphire Rapids VM: 48 KiB, 2 MiB, where the Zen 4
  // description says 32 KiB and 1 MiB); the shared L3 the VM is told of (the socket's 480 MiB)
  // no larger than the description's share.
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; }\n");
  auto description = s->target("x86_avx512");
  ASSERT_TRUE(description) << render(*s);
  hw::HostCpu c = cpu("x86_64-pc-linux-gnu", kAvx512);
  c.cacheBytes = {48u << 10, 2u << 20, uint64_t(480) << 20};
  hw::Target t = hw::hostTarget(*description, c);
  auto size = [&](const hw::Target &target, const char *name) {
    for (const auto &m : target.memories)
      if (m.name == name)
        return m.sizeBytes;
    ADD_FAILURE() << "no memory " << name;
    return uint64_t(0);
  };
  EXPECT_EQ(size(t, "L1"), 48u << 10);
  EXPECT_EQ(size(t, "L2"), 2u << 20);
  // Associativities as reported; the description's where none is.
  c.cacheWays = {12, 0, 15};
  t = hw::hostTarget(*description, c);
  auto ways = [&](const hw::Target &target, const char *name) {
    for (const auto &m : target.memories)
      if (m.name == name)
        return m.ways;
    return uint32_t(0);
  };
  EXPECT_EQ(ways(t, "L1"), 12u);
  EXPECT_EQ(ways(t, "L2"), ways(*description, "L2"));
  EXPECT_EQ(ways(t, "L3"), 15u);
  c.cacheWays.clear();
  EXPECT_EQ(size(t, "L3"), size(*description, "L3"));
  EXPECT_EQ(size(t, "DRAM"), size(*description, "DRAM"));
  // A smaller last level than described is this machine's; an unreported level stays.
  c.cacheBytes = {0, 512u << 10, 4u << 20};
  t = hw::hostTarget(*description, c);
  EXPECT_EQ(size(t, "L1"), size(*description, "L1"));
  EXPECT_EQ(size(t, "L2"), 512u << 10);
  EXPECT_EQ(size(t, "L3"), 4u << 20);
}

} // namespace
