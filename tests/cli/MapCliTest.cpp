// `isamap map` through the real binary: ranked text, the JSON document, systems and their
// partitions, exit codes, and the search budget.
#include "support/JsonOutput.h"
#include "support/TestSupport.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

using namespace isam;
namespace fs = std::filesystem;

namespace {

const std::string kIsamap = ISAMAP_BINARY;

std::string tempFile(const std::string &name, const std::string &text) {
  return test::tempFile("map-cli", name, text);
}

test::RunResult map(const std::string &args) {
  return test::run(kIsamap + " map " + args);
}

// A statement with 48 indices (16 + 16 output, 16 reduced, every one fusable with its
// neighbours): enough search for a budget of a microsecond to run out.
std::string pathological() {
  std::string a, b, c, shape;
  for (int d = 0; d < 16; ++d) {
    std::string sep = d ? ", " : "";
    a += sep + "a" + std::to_string(d);
    b += sep + "b" + std::to_string(d);
    c += sep + "c" + std::to_string(d);
  }
  for (int d = 0; d < 32; ++d)
    shape += std::string(d ? "," : "") + "1";
  return "kernel big(P: f32[" + shape + "], Q: f32[" + shape + "]) -> (O: f32[" + shape +
         "]) {\n  O[" + a + ", " + b + "] += P[" + a + ", " + c + "] * Q[" + c + ", " + b +
         "];\n}\ninstance big1 = big;\n";
}

} // namespace

TEST(MapCli, TextOnTheArrayShowsTilesAndDegenerateNotes) {
  auto r = map(test::samplePath("dwsep.isam") + " --target systolic16 --instance dwsep_mbv1_8");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // Pointwise: (h, w) fused into the array's column index.
  EXPECT_NE(r.out.find("dwsep_mbv1_8 s1: O[f, h, w] += P[f, c] * T[c, h, w]"), std::string::npos);
  EXPECT_NE(r.out.find("  #1 mma  i<-(f), j<-(h,w) pad, k<-(c)  loops none"), std::string::npos)
      << r.out;
  // Depthwise: only degenerate tiles, each with the reason.
  EXPECT_NE(r.out.find("mma [degenerate]"), std::string::npos);
  EXPECT_NE(r.out.find("note: degenerate: index j of 'mma' must bind to a non-reduction "
                       "statement index"),
            std::string::npos)
      << r.out;
}

TEST(MapCli, JsonHasTheDocumentedFields) {
  auto r = map(test::samplePath("gemm.isam") +
               " --target x86_avx512 --instance gemm_2560x64x2560 --format=json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_object());
  EXPECT_FALSE(j.contains("partitions")); // a target, not a system
  ASSERT_TRUE(j["statements"].is_array());
  ASSERT_EQ(j["statements"].size(), 1u);
  const auto &s = j["statements"][0];
  EXPECT_EQ(s["kernel"], "gemm_2560x64x2560");
  EXPECT_EQ(s["index"], 0);
  EXPECT_EQ(s["target"], "x86_avx512");
  EXPECT_EQ(s["text"], "C[m, n] += A[m, k] * B[k, n]    for m < 2560, n < 64; sum over k < 2560");
  ASSERT_TRUE(s["range"].is_object());
  EXPECT_EQ(s["range"]["file"], test::samplePath("gemm.isam"));
  EXPECT_EQ(s["range"]["start"]["line"], 8); // zero-based: line 9 of gemm.isam
  EXPECT_EQ(s["range"]["start"]["character"], 2);
  EXPECT_GT(s["range"]["end"]["character"].get<int>(), 2);
  EXPECT_EQ(s["budgetExhausted"], false);
  ASSERT_TRUE(s["mappings"].is_array());
  ASSERT_GE(s["mappings"].size(), 2u);
  for (const auto &m : s["mappings"]) {
    for (const char *key : {"instruction", "bindings", "operands", "remainder", "moves", "loops",
                            "estimate", "partial", "degenerate", "isMove", "zeroInit", "note"})
      EXPECT_TRUE(m.contains(key)) << key << " in " << m.dump();
    EXPECT_TRUE(m["instruction"].is_string());
    EXPECT_TRUE(m["bindings"].is_object());
    EXPECT_TRUE(m["operands"].is_object());
    EXPECT_TRUE(m["remainder"].is_object());
    EXPECT_TRUE(m["moves"].is_array());
    EXPECT_TRUE(m["loops"].is_array());
    for (const char *key : {"instructions", "cycles", "utilization"})
      EXPECT_TRUE(m["estimate"][key].is_number()) << key;
    // Each instruction index has a binding (statement index names) and a remainder.
    for (const auto &[index, names] : m["bindings"].items()) {
      EXPECT_TRUE(names.is_array());
      EXPECT_TRUE(m["remainder"].contains(index));
      for (const auto &n : names)
        EXPECT_TRUE(n == "m" || n == "n" || n == "k") << n;
    }
    for (const auto &[name, o] : m["operands"].items())
      for (const char *key : {"binding", "role", "memory", "strides", "contiguous", "pack",
                              "computedSeparately", "moves"})
        EXPECT_TRUE(o.contains(key)) << name << "." << key;
  }
  const auto &best = s["mappings"][0];
  EXPECT_EQ(best["instruction"], "fma16");
  EXPECT_EQ(best["bindings"], nlohmann::json::parse(R"({"i": ["n"]})"));
  EXPECT_EQ(best["remainder"], nlohmann::json::parse(R"({"i": "exact"})"));
  EXPECT_EQ(best["loops"], nlohmann::json::parse(R"(["m", "k"])"));
  EXPECT_EQ(best["estimate"]["instructions"], 2560 * 2560 * 4);
  EXPECT_EQ(best["estimate"]["utilization"], 1.0);
  EXPECT_EQ(best["partial"], false);
  EXPECT_EQ(best["degenerate"], false);
  EXPECT_EQ(best["operands"]["acc"]["binding"], "C[m, n]");
  EXPECT_EQ(best["operands"]["acc"]["role"], "inout");
  EXPECT_EQ(best["operands"]["acc"]["memory"], "ZMM");
  EXPECT_EQ(best["operands"]["acc"]["strides"], nlohmann::json::parse("[1]"));
  EXPECT_EQ(best["operands"]["acc"]["pack"], false);
  EXPECT_EQ(best["operands"]["b"]["binding"], "A[m, k]");
  // The flat move list names the operand of each move.
  EXPECT_NE(std::find(best["moves"].begin(), best["moves"].end(), "b: bcast16 (L1 -> ZMM)"),
            best["moves"].end())
      << best["moves"].dump();
  ASSERT_TRUE(s["rejected"].is_array());
  ASSERT_FALSE(s["rejected"].empty());
  std::set<std::string> rejected;
  for (const auto &x : s["rejected"]) {
    ASSERT_TRUE(x["instruction"].is_string());
    ASSERT_TRUE(x["reason"].is_string());
    EXPECT_FALSE(x["reason"].get<std::string>().empty());
    rejected.insert(x["instruction"]);
  }
  EXPECT_TRUE(rejected.count("add16"));
  EXPECT_FALSE(rejected.count("fma16"));

  // The text form lists the same counts.
  auto t = map(test::samplePath("gemm.isam") + " --target x86_avx512 --instance gemm_2560x64x2560");
  EXPECT_NE(t.out.find("on x86_avx512: " + std::to_string(s["mappings"].size()) + " mappings, " +
                       std::to_string(s["rejected"].size()) + " rejected"),
            std::string::npos)
      << t.out;
}

TEST(MapCli, JsonCoversEveryStatementOfEveryInstance) {
  auto r = map(test::samplePath("gru.isam") + " --target riscv_rvv --format=json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  // Seven instances of an eight-statement kernel.
  ASSERT_EQ(j["statements"].size(), 7u * 8u);
  std::set<std::string> kernels;
  for (size_t i = 0; i < j["statements"].size(); ++i) {
    const auto &s = j["statements"][i];
    kernels.insert(s["kernel"].get<std::string>());
    EXPECT_EQ(s["index"], i % 8);
    EXPECT_EQ(s["target"], "riscv_rvv");
  }
  EXPECT_EQ(kernels.size(), 7u);
  EXPECT_TRUE(kernels.count("gru_1536x32"));
  // The vector FMA for the projections, with 8 lanes.
  const auto &proj = j["statements"][1];
  ASSERT_FALSE(proj["mappings"].empty());
  EXPECT_EQ(proj["mappings"][0]["instruction"], "vfmacc_vf");
}

TEST(MapCli, SystemGivesPartitions) {
  auto r = map(test::samplePath("gru.isam") + " --target soc --instance gru_1536x32 --format=json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  // Each statement on each unit.
  ASSERT_EQ(j["statements"].size(), 16u);
  std::map<std::string, int> perTarget;
  for (const auto &s : j["statements"])
    ++perTarget[s["target"].get<std::string>()];
  EXPECT_EQ(perTarget, (std::map<std::string, int>{{"x86_avx512", 8}, {"systolic16", 8}}));
  ASSERT_TRUE(j.contains("partitions"));
  ASSERT_EQ(j["partitions"].size(), 1u);
  const auto &p = j["partitions"][0];
  EXPECT_EQ(p["kernel"], "gru_1536x32");
  ASSERT_EQ(p["placements"].size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    const auto &pl = p["placements"][i];
    EXPECT_EQ(pl["statement"], i);
    for (const char *key : {"unit", "instruction", "seconds", "ableUnits"})
      EXPECT_TRUE(pl.contains(key)) << key;
  }
  for (int gemm : {1, 3}) {
    EXPECT_EQ(p["placements"][gemm]["unit"], "systolic16");
    EXPECT_EQ(p["placements"][gemm]["instruction"], "mma");
  }
  for (int gate : {4, 5, 6, 7}) {
    EXPECT_EQ(p["placements"][gate]["unit"], "x86_avx512");
    EXPECT_TRUE(p["placements"][gate]["ableUnits"].empty());
  }
  ASSERT_FALSE(p["transfers"].empty());
  std::set<std::string> moved;
  for (const auto &t : p["transfers"]) {
    for (const char *key : {"tensor", "from", "to", "bytes", "sharedMemory"})
      EXPECT_TRUE(t.contains(key)) << key;
    EXPECT_EQ(t["sharedMemory"], true);
    EXPECT_NE(t["from"], t["to"]);
    moved.insert(t["tensor"].get<std::string>() + ":" + t["from"].get<std::string>() + "->" +
                 t["to"].get<std::string>());
  }
  EXPECT_TRUE(moved.count("W:x86_avx512->systolic16"));
  EXPECT_TRUE(moved.count("Gx:systolic16->x86_avx512"));
  EXPECT_EQ(p["transfers"][0]["bytes"].get<int64_t>() > 0, true);

  auto t = map(test::samplePath("gru.isam") + " --target soc --instance gru_1536x32");
  ASSERT_EQ(t.exitCode, 0) << t.err;
  EXPECT_NE(t.out.find("on x86_avx512:"), std::string::npos);
  EXPECT_NE(t.out.find("on systolic16:"), std::string::npos);
  EXPECT_NE(t.out.find("partition of gru_1536x32:\n"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("  s1 -> systolic16 (mma), ~"), std::string::npos) << t.out;
  // The gates fall back to the host, which no unit is listed as able to run fully.
  for (const char *gate : {"  s4 -> x86_avx512 (", "  s7 -> x86_avx512 ("}) {
    size_t at = t.out.find(gate);
    ASSERT_NE(at, std::string::npos) << gate << "\n" << t.out;
    std::string line = t.out.substr(at, t.out.find('\n', at) - at);
    EXPECT_EQ(line.find("able:"), std::string::npos) << line;
  }
  EXPECT_NE(t.out.find("  transfer W: x86_avx512 -> systolic16, 28311552 B (shared memory: "
                       "synchronise only)"),
            std::string::npos)
      << t.out;
}

TEST(MapCli, KernelBoundWithDefinesAndCandidateCap) {
  auto r = map(test::samplePath("gemm.isam") +
               " --kernel gemm -D M=32 -D N=48 -D K=16 --target systolic16 --format=json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["statements"].size(), 1u);
  const auto &best = j["statements"][0]["mappings"][0];
  EXPECT_EQ(best["instruction"], "mma");
  EXPECT_EQ(best["bindings"], nlohmann::json::parse(R"({"i": ["m"], "j": ["n"], "k": ["k"]})"));
  EXPECT_EQ(best["estimate"]["instructions"], 2 * 3 * 1);

  auto capped = map(test::samplePath("gemm.isam") +
                    " --instance gemm_small --target x86_avx512 --max-candidates 1 --format=json");
  ASSERT_EQ(capped.exitCode, 0) << capped.err;
  auto c = nlohmann::json::parse(capped.out);
  std::map<std::string, int> perInstr;
  for (const auto &m : c["statements"][0]["mappings"])
    EXPECT_EQ(++perInstr[m["instruction"].get<std::string>()], 1) << m["instruction"];
  EXPECT_FALSE(perInstr.empty());
}

TEST(MapCli, BadInputExitsOneWithADiagnostic) {
  std::string gemm = test::samplePath("gemm.isam");
  {
    auto r = map(gemm + " --target nope");
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("error[E0202]: unknown target 'nope'"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  {
    auto r = map(gemm + " --target x86_avx512 --instance nope");
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("no instance named 'nope'"), std::string::npos) << r.err;
  }
  {
    std::string bad = tempFile("bad.isam", "kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n"
                                           "  B[i] = relu(A[i]) + C[i];\n}\n"
                                           "instance k8 = k<8>;\n");
    auto r = map(bad + " --target x86_avx512");
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find(bad + ":2:23: error[E0203]: unknown tensor 'C'"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.out.find(" s0: "), std::string::npos) << "no mappings for a broken file";
    auto j = map(bad + " --target x86_avx512 --format=json");
    EXPECT_EQ(j.exitCode, 1);
    auto d = test::jsonDocument(j.out)["diagnostics"];
    ASSERT_TRUE(d.is_array()) << j.out;
    ASSERT_FALSE(d.empty());
    EXPECT_EQ(d[0]["code"], "E0203");
    EXPECT_EQ(d[0]["severity"], "error");
  }
  {
    std::string none =
        tempFile("noinst.isam", "kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = relu(A[i]); }\n");
    auto r = map(none + " --target x86_avx512");
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("declares no instance"), std::string::npos) << r.err;
    // ... but binding the kernel works.
    auto k = map(none + " --target x86_avx512 --kernel k -D N=40");
    EXPECT_EQ(k.exitCode, 0) << k.err;
    EXPECT_NE(k.out.find("#1 relu16  i<-(i) mask"), std::string::npos) << k.out;
  }
  {
    auto r = map("/nonexistent/x.isam --target x86_avx512");
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("E0603"), std::string::npos) << r.err;
  }
  {
    auto r = map(gemm + " --target x86_avx512 --kernel gemm -D M=0 -D N=1 -D K=1");
    EXPECT_EQ(r.exitCode, 2) << r.out; // a malformed -D is a usage error
    EXPECT_NE(r.err.find("error"), std::string::npos);
  }
}

TEST(MapCli, UsageErrorsExitTwo) {
  std::string gemm = test::samplePath("gemm.isam");
  for (const std::string &args : std::vector<std::string>{
           "", gemm, "--target x86_avx512", gemm + " --target x86_avx512 --format=xml",
           gemm + " --target x86_avx512 --budget-ms 0",
           gemm + " --target x86_avx512 --budget-ms -5",
           gemm + " --target x86_avx512 --budget-ms x",
           gemm + " --target x86_avx512 --max-candidates 0",
           gemm + " --target x86_avx512 --no-such-option",
           gemm + " --target x86_avx512 --instance a --kernel b"}) {
    auto r = map(args);
    EXPECT_EQ(r.exitCode, 2) << "isamap map " << args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_FALSE(r.err.empty()) << args;
  }
  auto h = map("--help");
  EXPECT_EQ(h.exitCode, 0);
  EXPECT_NE(h.out.find("Usage"), std::string::npos);
  EXPECT_NE(h.out.find("--budget-ms"), std::string::npos);
  EXPECT_NE(h.out.find("--target"), std::string::npos);
}

TEST(MapCli, TinyBudgetWarnsAndStillSucceeds) {
  std::string path = tempFile("big.isam", pathological());
  // With the default budget the search completes, silently.
  auto full = map(path + " --target systolic16");
  ASSERT_EQ(full.exitCode, 0) << full.err;
  EXPECT_EQ(full.err.find("W0301"), std::string::npos) << full.err;
  EXPECT_EQ(full.out.find("budget exhausted"), std::string::npos);

  for (const char *t : {"systolic16", "x86_avx512"}) {
    auto r = map(path + " --target " + t + " --budget-ms 0.001");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(
        r.err.find(path + ":2:3: warning[W0301]: the mapping search on " + t + " ran out of its"),
        std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("raise --budget-ms"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("(search budget exhausted: the list may be incomplete)"),
              std::string::npos)
        << r.out;

    auto j = map(path + " --target " + t + " --budget-ms 0.001 --format=json");
    EXPECT_EQ(j.exitCode, 0) << j.err;
    auto doc = nlohmann::json::parse(j.out);
    ASSERT_EQ(doc["statements"].size(), 1u);
    EXPECT_EQ(doc["statements"][0]["budgetExhausted"], true);
    EXPECT_NE(j.err.find("W0301"), std::string::npos) << j.err;
  }
}

TEST(MapCli, BudgetWarningStatesTheBudgetGiven) {
  std::string path = tempFile("big.isam", pathological());
  auto r = map(path + " --target systolic16 --budget-ms 0.001");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  ASSERT_NE(r.err.find("W0301"), std::string::npos) << r.err;
  if (r.err.find("ran out of its 0.001 ms budget") == std::string::npos)
    GTEST_SKIP() << "BUG: the W0301 message truncates the budget to an integer "
                    "(std::to_string(int(budgetMs)) in Session::mappings): "
                 << r.err.substr(0, r.err.find('\n'));
}
