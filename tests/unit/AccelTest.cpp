// The accelerator backend (backends/accel/): the instruction stream emitted from systolic16
// schedules, its listing and JSON form, the simulator's function (every sample's small
// instances against the reference interpreter, memories at their real capacities) and time
// (issue rates and latencies, double buffering, the DRAM limit), the trace, and the description
// variants in hwdesc/variants/.
#include "backends/accel/Emit.h"
#include "backends/accel/Simulator.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <set>

using namespace isam;

namespace {

struct Compiled {
  std::unique_ptr<Session> session;
  ir::Kernel kernel;
  hw::Target target;
  schedule::KernelSchedule schedule;
};

// One instance of a sample (or a kernel bound with sizes) scheduled for `target`.
Compiled compile(const std::string &sample, const InstanceSelector &sel,
                 const std::string &target = "systolic16") {
  Compiled c;
  SessionOptions options;
  options.searchPath = {test::sourceDir() + "/hwdesc/variants"};
  c.session = std::make_unique<Session>(options);
  EXPECT_TRUE(c.session->loadFile(sample));
  auto kernels = c.session->instances(sel);
  EXPECT_EQ(kernels.size(), 1u);
  c.kernel = kernels.front();
  auto t = c.session->target(target);
  EXPECT_TRUE(t.has_value()) << target;
  c.target = *t;
  c.schedule = c.session->schedule(c.kernel, c.target);
  EXPECT_FALSE(c.session->diagnostics().hasErrors());
  return c;
}

Compiled gemm(int64_t m, int64_t n, int64_t k, const std::string &target = "systolic16") {
  InstanceSelector sel;
  sel.kernel = "gemm";
  sel.sizes = {{"M", m}, {"N", n}, {"K", k}};
  return compile(test::samplePath("gemm.isam"), sel, target);
}

double timed(const Compiled &c) {
  return accel::simulate(c.kernel, c.target, c.schedule, nullptr).cycles;
}

// One systolic16 mma on the accumulator tile at `accAddress`, reading fixed scratchpad tiles.
accel::Op mmaCall(const hw::Target &t, uint64_t accAddress) {
  accel::Op op;
  op.instruction = int(t.instruction("mma") - t.instructions.data());
  op.statement = 0;
  int acc = t.memoryIndex("ACC"), spad = t.memoryIndex("SPAD");
  op.regions = {{acc, accAddress, {64, 4}, {16, 16}},
                {spad, 0, {64, 4}, {16, 16}},
                {spad, 1024, {64, 4}, {16, 16}}};
  return op;
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

} // namespace

TEST(AccelEmit, ListingFollowsTheDescriptionsAsmTemplates) {
  InstanceSelector sel;
  sel.instance = "gemm_small";
  auto c = compile(test::samplePath("gemm.isam"), sel);
  accel::Program p = accel::program(c.kernel, c.target, c.schedule);
  std::string text = accel::listing(p, c.kernel, c.target);
  // C[7, 5] = A[7, 13] * B[13, 5]: one tile of each operand, masked to its valid part.
  EXPECT_NE(text.find("mvin SPAD[0x0], DRAM[0x0, stride 52, 7x13], 16"), std::string::npos) << text;
  EXPECT_EQ(count(text, "\n  mvin "), 2u) << text;
  EXPECT_EQ(count(text, "\n  mvin_acc ACC["), 1u) << text;
  EXPECT_EQ(count(text, "\n  matmul ACC[0x0, 7x5], SPAD["), 1u) << text;
  EXPECT_EQ(count(text, "\n  mvout DRAM["), 1u) << text;
  EXPECT_NE(text.find("; host: clear C over m [0, 7) n [0, 5) to 0"), std::string::npos) << text;
  EXPECT_EQ(text.find('{'), std::string::npos) << "an unreplaced placeholder:\n" << text;
}

TEST(AccelEmit, TileAlreadyInPlaceIsNotMovedAgain) {
  // N = 16: one column of tiles, so B's [K, 16] panel serves every row block of A.
  auto c = gemm(256, 16, 256);
  accel::Program p = accel::program(c.kernel, c.target, c.schedule);
  uint64_t intoSpad = 0;
  int spad = c.target.memoryIndex("SPAD");
  for (const auto &op : p.ops)
    if (op.kind == accel::Op::Kind::Instr && c.target.instructions[op.instruction].isMove &&
        op.regions[0].memory == spad)
      intoSpad += uint64_t(op.regions[1].valid[0] * op.regions[1].valid[1] * 4);
  EXPECT_EQ(intoSpad, uint64_t(256 * 256 + 256 * 16) * 4) << "each of A and B moved once";
}

TEST(AccelEmit, StreamRoundTripsThroughJson) {
  auto c = gemm(40, 24, 33);
  accel::Program p = accel::program(c.kernel, c.target, c.schedule);
  nlohmann::json j = accel::toJson(p, c.target);
  accel::Program back = accel::fromJson(nlohmann::json::parse(j.dump()), c.kernel, c.target);
  EXPECT_EQ(accel::toJson(back, c.target), j);

  interp::Buffers a = interp::randomInputs(c.kernel, 3), b = a;
  accel::Simulator s1(c.kernel, c.target, &a), s2(c.kernel, c.target, &b);
  for (auto *s : {&s1, &s2}) {
    const accel::Program &q = s == &s1 ? p : back;
    s->layout(q.allocations);
    for (const auto &op : q.ops)
      s->op(op);
  }
  EXPECT_EQ(s1.finish().cycles, s2.finish().cycles);
  EXPECT_EQ(a, b);
}

// compile --emit=asm|stream write through these sinks as ops are emitted, in pieces of about a
// MiB: the text is exactly the whole program's listing and JSON form.
TEST(AccelEmit, StreamingSinksWriteWhatTheWholeProgramGives) {
  auto c = gemm(2048, 64, 2048); // a listing of several MiB: flushed in pieces
  accel::Program p = accel::program(c.kernel, c.target, c.schedule);
  std::string listing, json;
  size_t pieces = 0;
  accel::ListingSink ls(c.kernel, c.target, [&](std::string_view t) { listing += t, ++pieces; });
  accel::emit(c.kernel, c.target, c.schedule, ls);
  ls.finish();
  accel::JsonSink js(c.kernel, c.target, [&](std::string_view t) { json += t; });
  accel::emit(c.kernel, c.target, c.schedule, js);
  js.finish();
  EXPECT_EQ(listing, accel::listing(p, c.kernel, c.target));
  EXPECT_GT(pieces, 1u) << "the listing was written in one piece, " << listing.size() << " B";
  EXPECT_EQ(json, accel::toJson(p, c.target).dump());
  // The sink's JSON is what the simulator reads back.
  accel::Program back = accel::fromJson(nlohmann::json::parse(json), c.kernel, c.target);
  EXPECT_EQ(back.ops.size(), p.ops.size());
}

// A failed write stops the emission with the writer's error.
TEST(AccelEmit, AWriterErrorStopsTheEmission) {
  auto c = gemm(2048, 64, 2048);
  size_t calls = 0;
  accel::ListingSink ls(c.kernel, c.target, [&](std::string_view) {
    ++calls;
    throw accel::Error("cannot write 'x': No space left on device");
  });
  EXPECT_THROW(accel::emit(c.kernel, c.target, c.schedule, ls), accel::Error);
  EXPECT_EQ(calls, 1u);
}

// run checks an instance's tensors against the accelerator's DRAM before allocating anything.
TEST(AccelEmit, TensorsBeyondTheDramAreRefusedBeforeScheduling) {
  InstanceSelector sel;
  sel.kernel = "gemm";
  sel.sizes = {{"M", 65536}, {"N", 65536}, {"K", 65536}}; // 3 x 16 GiB > 4 GiB
  Session s;
  ASSERT_TRUE(s.loadFile(test::samplePath("gemm.isam")));
  auto kernels = s.instances(sel);
  ASSERT_EQ(kernels.size(), 1u);
  auto t = s.target("systolic16");
  ASSERT_TRUE(t.has_value());
  try {
    accel::checkTensorsFit(kernels[0], *t);
    ADD_FAILURE() << "no error";
  } catch (const accel::Error &e) {
    EXPECT_NE(std::string(e.what()).find("the tensors need 17179869184 B of DRAM's 4294967296"),
              std::string::npos)
        << e.what();
  }
  auto small = gemm(7, 5, 13);
  EXPECT_NO_THROW(accel::checkTensorsFit(small.kernel, small.target));
}

TEST(AccelEmit, MalformedStreamIsAnError) {
  auto c = gemm(16, 16, 16);
  accel::Program p = accel::program(c.kernel, c.target, c.schedule);
  nlohmann::json j = accel::toJson(p, c.target);
  auto expectError = [&](nlohmann::json bad, const std::string &fragment) {
    try {
      accel::fromJson(bad, c.kernel, c.target);
      ADD_FAILURE() << "accepted: " << fragment;
    } catch (const accel::Error &e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  auto wrongTarget = j;
  wrongTarget["target"] = "x86_avx512";
  expectError(wrongTarget, "not gemm on systolic16");
  auto unknownOp = j;
  unknownOp["ops"][1]["op"] = "vfmadd";
  expectError(unknownOp, "vfmadd is not described");
  auto missing = j;
  missing["ops"][1].erase("regions");
  expectError(missing, "malformed stream");
  expectError(nlohmann::json::object(), "malformed stream");
}

TEST(AccelSimulator, EverySmallSampleInstanceMatchesTheInterpreter) {
  auto instances = test::smallSampleInstances();
  ASSERT_GE(instances.size(), 20u);
  size_t ran = 0;
  for (const auto &[file, instance] : instances) {
    InstanceSelector sel;
    sel.instance = instance;
    auto c = compile(file, sel);
    interp::Buffers inputs = interp::randomInputs(c.kernel, 1), ref = inputs, got = inputs;
    interp::run(c.kernel, ref);
    accel::SimResult r = accel::simulate(c.kernel, c.target, c.schedule, &got);
    auto cmp = interp::compareOutputs(c.kernel, ref, got);
    EXPECT_LE(cmp.maxRelError, interp::tolerance(c.kernel))
        << instance << " at " << cmp.worstTensor;
    // Statements no instruction runs are the host's: they take no accelerator cycles.
    EXPECT_EQ(r.cycles > 0, r.instructions > 0) << instance;
    ran += r.instructions > 0;
  }
  EXPECT_GE(ran, 18u) << "instances with statements on the array";
}

TEST(AccelSimulator, MediumGemmWithRemaindersMatchesTheInterpreter) {
  for (auto [m, n, k] : {std::tuple{100, 70, 90}, {33, 129, 17}}) {
    auto c = gemm(m, n, k);
    interp::Buffers inputs = interp::randomInputs(c.kernel, 7), ref = inputs, got = inputs;
    interp::run(c.kernel, ref);
    accel::simulate(c.kernel, c.target, c.schedule, &got);
    EXPECT_LE(interp::compareOutputs(c.kernel, ref, got).maxRelError, interp::tolerance(c.kernel))
        << m << "x" << n << "x" << k;
  }
}

// A bf16 GEMM with f32 accumulation runs on the f32 array: the host converts A and B to f32
// as it packs their views (the mapping's computed operands), on odd sizes with remainders.
TEST(AccelSimulator, MixedPrecisionGemmConvertsInTheHostsPacks) {
  for (auto [m, n, k] : {std::tuple{37, 23, 41}, {5, 1, 17}}) {
    InstanceSelector sel;
    sel.kernel = "gemm_bf16";
    sel.sizes = {{"M", m}, {"N", n}, {"K", k}};
    auto c = compile(test::samplePath("gemm.isam"), sel);
    ASSERT_EQ(c.schedule.statements.size(), 1u);
    const schedule::Config &config = c.schedule.statements[0].config;
    ASSERT_GE(config.mapping, 0) << "the mixed-precision GEMM runs on the array";
    size_t computed = 0;
    for (const auto &p : config.operands)
      computed += p.computed.has_value();
    EXPECT_EQ(computed, 2u);
    accel::Program prog = accel::program(c.kernel, c.target, c.schedule);
    size_t views = 0;
    for (const auto &a : prog.allocations)
      if (a.view && a.computed) {
        ++views;
        EXPECT_EQ(accel::elementType(a, c.kernel), ir::ElemType::F32);
        EXPECT_EQ(a.bytes % 4, 0u);
      }
    EXPECT_EQ(views, 2u);
    std::string listing = accel::listing(prog, c.kernel, c.target);
    EXPECT_NE(listing.find("view of A computed by the host as f32(A[m, k]), f32["),
              std::string::npos)
        << listing.substr(0, 600);
    interp::Buffers inputs = interp::randomInputs(c.kernel, 5), ref = inputs, got = inputs;
    interp::run(c.kernel, ref);
    accel::SimResult r = accel::simulate(c.kernel, c.target, c.schedule, &got);
    EXPECT_GT(r.instructions, 0u);
    EXPECT_LE(interp::compareOutputs(c.kernel, ref, got).maxRelError, interp::tolerance(c.kernel))
        << m << "x" << n << "x" << k;

    // The stream's JSON form carries the expression, and reads back to the same program.
    nlohmann::json j = accel::toJson(prog, c.target);
    accel::Program back = accel::fromJson(nlohmann::json::parse(j.dump()), c.kernel, c.target);
    EXPECT_EQ(accel::toJson(back, c.target), j);
    for (auto &a : j["allocations"])
      if (a.contains("computes"))
        a["computes"]["kind"] = 99;
    EXPECT_THROW(accel::fromJson(j, c.kernel, c.target), accel::Error);
  }
}

TEST(AccelSimulator, AccessBeyondAMemorysCapacityIsAnError) {
  auto c = gemm(16, 16, 16);
  accel::Program p = accel::program(c.kernel, c.target, c.schedule);
  // Point the first move into the scratchpad past its 256 KiB.
  for (auto &op : p.ops)
    if (op.kind == accel::Op::Kind::Instr && op.regions[0].memory == c.target.memoryIndex("SPAD")) {
      op.regions[0].address = 256 * 1024 - 512;
      break;
    }
  interp::Buffers b = interp::randomInputs(c.kernel, 1);
  accel::Simulator sim(c.kernel, c.target, &b);
  sim.layout(p.allocations);
  try {
    for (const auto &op : p.ops)
      sim.op(op);
    ADD_FAILURE() << "an out-of-capacity access ran";
  } catch (const accel::Error &e) {
    std::string what = e.what();
    EXPECT_NE(what.find("SPAD[0x3fe00, 0x40200), beyond its 262144 B"), std::string::npos) << what;
  }
}

TEST(AccelSimulator, TilesBeyondTheScratchpadAreAnEmissionError) {
  auto c = gemm(512, 512, 512);
  // The schedule was made for 256 KiB; the same schedule on a 64 KiB scratchpad cannot be laid
  // out.
  hw::Target small = c.target;
  small.memories[size_t(small.memoryIndex("SPAD"))].sizeBytes = 64 * 1024;
  try {
    accel::program(c.kernel, small, c.schedule);
    ADD_FAILURE() << "emitted tiles that do not fit";
  } catch (const accel::Error &e) {
    EXPECT_NE(std::string(e.what()).find("more than its 65536"), std::string::npos) << e.what();
  }
}

TEST(AccelSimulator, IssueRateAndLatencyOfDependentAndIndependentCalls) {
  auto c = gemm(16, 16, 16);
  const hw::Target &t = c.target;
  auto run = [&](bool sameAccumulator) {
    accel::Simulator sim(c.kernel, t, nullptr);
    sim.layout({});
    for (int i = 0; i < 8; ++i)
      sim.op(mmaCall(t, sameAccumulator ? 0 : uint64_t(i % 4) * 1024));
    return sim.finish().cycles;
  };
  // A chain on one accumulator waits out each result's 48 cycles; four accumulators keep the
  // array issuing every 16 cycles.
  EXPECT_EQ(run(true), 8 * 48);
  EXPECT_EQ(run(false), 7 * 16 + 48);
}

TEST(AccelSimulator, AQueueLetsAReadyInstructionPassAWaitingOne) {
  auto c = gemm(16, 16, 16);
  hw::Target t = c.target;
  auto run = [&](uint32_t queue) {
    for (auto &u : t.units)
      if (u.name == "array")
        u.queue = queue;
    accel::Simulator sim(c.kernel, t, nullptr);
    sim.layout({});
    // The second call waits 48 cycles for the first's result; the third is independent.
    for (uint64_t a : {0, 0, 1024})
      sim.op(mmaCall(t, a));
    return sim.finish().cycles;
  };
  EXPECT_EQ(run(1), 48 + 16 + 48); // in order: the third starts after the second
  EXPECT_EQ(run(16), 48 + 48);     // the third starts at 16, while the second waits
}

TEST(AccelSimulator, DoubleBufferingOverlapsMovesWithCompute) {
  auto c = gemm(256, 256, 256);
  double overlapped = timed(c);
  for (auto &b : c.schedule.statements[0].buffers)
    b.doubleBuffered = false;
  double serial = timed(c);
  EXPECT_GT(serial, 1.3 * overlapped) << "double-buffered " << overlapped << ", single " << serial;
}

TEST(AccelSimulator, DramBandwidthLimitsMoves) {
  // N = 16: a streaming GEMM, bound by its loads.
  auto c = gemm(1024, 16, 512);
  double full = timed(c);
  c.target.memories[size_t(c.target.memoryIndex("DRAM"))].bandwidthBytesPerCycle /= 4;
  double quarter = timed(c);
  EXPECT_GT(quarter, 3.5 * full) << full << " vs " << quarter;
}

TEST(AccelSimulator, ReportsUtilizationAndBytesPerMemory) {
  auto c = gemm(512, 512, 512);
  auto r = accel::simulate(c.kernel, c.target, c.schedule, nullptr);
  // 512^3 multiply-accumulates at 256 a cycle.
  double ideal = 512.0 * 512 * 512 / 256;
  EXPECT_NEAR(r.utilization, ideal / r.cycles, 1e-9);
  EXPECT_GT(r.utilization, 0.85);
  for (const auto &m : r.memories)
    if (m.name == "DRAM") {
      EXPECT_GE(m.bytesOut, uint64_t(2 * 512 * 512 * 4)) << "A and B read at least once";
      EXPECT_GE(m.bytesIn, uint64_t(512 * 512 * 4)) << "C written at least once";
    }
  uint64_t calls = 0;
  for (const auto &u : r.units)
    if (u.name == "array")
      calls = u.instructions;
  EXPECT_EQ(calls, uint64_t(32 * 32 * 32));
}

TEST(AccelSimulator, TraceOpensAsAChromeTrace) {
  auto c = gemm(64, 48, 40);
  std::string path = test::tempFile("accel", "trace.json", "");
  accel::SimOptions options;
  options.tracePath = path;
  auto r = accel::simulate(c.kernel, c.target, c.schedule, nullptr, options);
  auto doc = nlohmann::json::parse(test::readFile(path));
  std::map<std::string, int> spans;
  std::set<std::string> lanes;
  for (const auto &e : doc["traceEvents"]) {
    if (e["ph"] == "X") {
      spans[e["name"]]++;
      EXPECT_GE(e["dur"].get<double>(), 0);
    }
    if (e["ph"] == "M" && e["name"] == "thread_name")
      lanes.insert(e["args"]["name"]);
  }
  EXPECT_EQ(spans["mma"], 4 * 3 * 3);
  EXPECT_GT(spans["mvin"], 0);
  EXPECT_GT(spans["mvout"], 0);
  EXPECT_EQ(lanes, (std::set<std::string>{"host", "load", "store", "array"}));
  EXPECT_EQ(doc["otherData"]["cycles"].get<double>(), r.cycles);
  EXPECT_EQ(r.traceDropped, 0u);
}

TEST(AccelCostModel, EstimateIsWithinAQuarterOfTheSimulationOnGemms) {
  for (auto [m, n, k] : {std::tuple{512, 512, 512}, {1024, 16, 1024}, {256, 128, 768}}) {
    auto c = gemm(m, n, k);
    double estimate = c.schedule.statements[0].cost.cycles, simulated = timed(c);
    EXPECT_NEAR(estimate / simulated, 1.0, 0.25) << m << "x" << n << "x" << k;
  }
}

// ---- description variants (hwdesc/variants/): no code change, only the text --------------

TEST(AccelVariants, HalfTheDramBandwidthSlowsBandwidthBoundGemms) {
  double base = timed(gemm(1024, 16, 512)), half = timed(gemm(1024, 16, 512, "systolic16_halfbw"));
  EXPECT_GT(half, 1.8 * base) << base << " vs " << half;
  // A large GEMM is compute-bound on systolic16 but not with half the bandwidth.
  auto big = gemm(512, 512, 512), bigHalf = gemm(512, 512, 512, "systolic16_halfbw");
  EXPECT_GT(timed(bigHalf), 1.15 * timed(big));
}

TEST(AccelVariants, SmallerScratchpadGetsSmallerTiles) {
  auto base = gemm(512, 512, 512), small = gemm(512, 512, 512, "systolic16_spad64k");
  auto spadBytes = [](const Compiled &c) {
    for (const auto &l : c.schedule.statements[0].cost.levels)
      if (l.memory == c.target.memoryIndex("SPAD"))
        return l.footprintBytes;
    return 0.0;
  };
  EXPECT_GT(spadBytes(base), 64 * 1024);
  EXPECT_LE(spadBytes(small), 64 * 1024);
  EXPECT_GT(timed(small), timed(base));
  // And what is emitted fits.
  auto r = accel::simulate(small.kernel, small.target, small.schedule, nullptr);
  EXPECT_GT(r.cycles, 0);
}

TEST(AccelVariants, A32x32ArrayRunsWiderCallsInFewerCycles) {
  auto base = gemm(512, 512, 512), wide = gemm(512, 512, 512, "systolic32");
  const auto &cfg = wide.schedule.statements[0].config;
  for (const auto &v : cfg.vindices)
    if (v.instrIndex >= 0) {
      EXPECT_EQ(v.instrExtent, 32) << v.name;
    }
  EXPECT_LT(timed(wide), 0.8 * timed(base));
  InstanceSelector sel;
  sel.instance = "gemm_small";
  auto c = compile(test::samplePath("gemm.isam"), sel, "systolic32");
  interp::Buffers inputs = interp::randomInputs(c.kernel, 1), ref = inputs, got = inputs;
  interp::run(c.kernel, ref);
  accel::simulate(c.kernel, c.target, c.schedule, &got);
  EXPECT_LE(interp::compareOutputs(c.kernel, ref, got).maxRelError, interp::tolerance(c.kernel));
}
