// `isamap check` and `isamap dump-ir` through the real binary.
#include "support/JsonOutput.h"
#include "support/TestSupport.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

using namespace isam;
namespace fs = std::filesystem;

namespace {

const std::string kIsamap = ISAMAP_BINARY;

std::string tempFile(const std::string &name, const std::string &text) {
  return test::tempFile("cli", name, text);
}

const char *kGood = "kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = relu(A[i]); }\n"
                    "instance k8 = k<8>;\n";
const char *kBad = "kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = relu(A[i]) + C[i];\n}\n";

} // namespace

TEST(CheckCli, JsonDiagnostics) {
  std::string path = tempFile("bad.isam", kBad);
  auto r = test::run(kIsamap + " check --format=json " + path);
  EXPECT_EQ(r.exitCode, 1);
  auto j = test::jsonDocument(r.out)["diagnostics"];
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["file"], path);
  EXPECT_EQ(j[0]["code"], "E0203");
  EXPECT_EQ(j[0]["severity"], "error");
  EXPECT_EQ(j[0]["range"]["start"]["line"], 1);
  EXPECT_EQ(j[0]["range"]["start"]["character"], 22);
  EXPECT_EQ(j[0]["range"]["end"]["character"], 23);
}

TEST(CheckCli, SeveralFilesReportAll) {
  auto r = test::run(kIsamap + " check --format=json " + tempFile("good.isam", kGood) + " " +
                     tempFile("bad.isam", kBad) + " " + tempFile("bad2.isam", "kernel ;"));
  EXPECT_EQ(r.exitCode, 1);
  auto j = test::jsonDocument(r.out)["diagnostics"];
  EXPECT_GE(j.size(), 2u);
}

TEST(CheckCli, MissingFileIsAnError) {
  auto r = test::run(kIsamap + " check /nonexistent/x.isam");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("E0603"), std::string::npos);
  auto d = test::run(kIsamap + " check " + fs::temp_directory_path().string());
  EXPECT_EQ(d.exitCode, 1);
}

TEST(CheckCli, UsageErrorsExitTwo) {
  EXPECT_EQ(test::run(kIsamap).exitCode, 2);
  EXPECT_EQ(test::run(kIsamap + " check").exitCode, 2);
  EXPECT_EQ(test::run(kIsamap + " frobnicate x").exitCode, 2);
  EXPECT_EQ(test::run(kIsamap + " check --format=xml x.isam").exitCode, 2);
  EXPECT_EQ(test::run(kIsamap + " dump-ir x.isam --instance a --kernel b").exitCode, 2);
}

TEST(CheckCli, HelpAndVersion) {
  auto v = test::run(kIsamap + " --version");
  EXPECT_EQ(v.exitCode, 0);
  // The release, the source revision (a hash, or "unknown" outside a git checkout) and LLVM's.
  EXPECT_TRUE(std::regex_search(
      v.out,
      std::regex(R"(^isamap 0\.\d+\.\d+ \(revision ([0-9a-f]{7,}(-dirty)?|unknown), LLVM 16\.)")))
      << v.out;
  for (const char *cmd : {"", " check", " dump-ir", " compile", " run", " schedule", " targets"}) {
    auto h = test::run(kIsamap + cmd + " --help");
    EXPECT_EQ(h.exitCode, 0) << cmd;
    EXPECT_NE(h.out.find("Usage"), std::string::npos) << cmd;
    // The choices by name, not CLI11's enum internals (`ENUM:value in {json->1,text->0}`).
    EXPECT_EQ(h.out.find("->"), std::string::npos) << cmd << "\n" << h.out;
    EXPECT_EQ(h.out.find("ENUM"), std::string::npos) << cmd << "\n" << h.out;
    auto version = test::run(kIsamap + cmd + " --version");
    EXPECT_EQ(version.exitCode, 0) << cmd;
    EXPECT_EQ(version.out, v.out) << cmd;
  }
}

// ---- CI formats: SARIF 2.1.0 and GitHub workflow annotations --------------------------------

namespace {
// Three errors: an unknown function (a suggestion in the message only: the fix would change
// the meaning), an unknown tensor, and a misspelt schedule item with a fix-it.
const char *kFixable = "kernel k<N>(A: f32[N]) -> (B: f32[N], C: f32[N]) {\n"
                       "  B[i] = rlu(A[i]);\n"
                       "  schedule { paralel: i; }\n"
                       "  C[i] = A[i] + D[i];\n"
                       "}\n";
} // namespace

TEST(CheckCli, SarifLogHasOneRunRulesResultsLocationsAndFixes) {
  std::string path = tempFile("fixable.isam", kFixable);
  auto r = test::run(kIsamap + " check --format=sarif " + path);
  EXPECT_EQ(r.exitCode, 1);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["version"], "2.1.0");
  EXPECT_EQ(j["$schema"], "https://json.schemastore.org/sarif-2.1.0.json");
  ASSERT_EQ(j["runs"].size(), 1u);
  const auto &run = j["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "isamap");
  const auto &rules = run["tool"]["driver"]["rules"];
  const auto &results = run["results"];
  ASSERT_EQ(results.size(), 3u) << r.out;
  std::set<std::string> ids;
  for (const auto &rule : rules) {
    ids.insert(rule["id"].get<std::string>());
    EXPECT_FALSE(rule["shortDescription"]["text"].get<std::string>().empty()) << rule;
  }
  for (const auto &res : results) {
    SCOPED_TRACE(res.dump());
    std::string id = res["ruleId"];
    EXPECT_TRUE(ids.count(id));
    EXPECT_EQ(rules[res["ruleIndex"].get<size_t>()]["id"], id);
    EXPECT_EQ(res["level"], "error");
    EXPECT_FALSE(res["message"]["text"].get<std::string>().empty());
    const auto &loc = res["locations"][0]["physicalLocation"];
    EXPECT_EQ(loc["artifactLocation"]["uri"], "file://" + path);
    EXPECT_GE(loc["region"]["startLine"].get<int>(), 2); // 1-based lines
  }
  // `rlu`: line 2, columns 10..13 (1-based, end exclusive), no fix.
  const auto &first = results[0];
  EXPECT_EQ(
      first["locations"][0]["physicalLocation"]["region"],
      nlohmann::json({{"startLine", 2}, {"startColumn", 10}, {"endLine", 2}, {"endColumn", 13}}));
  EXPECT_FALSE(first.contains("fixes")) << first;
  // The schedule item's fix-it replaces `paralel` (line 3, columns 14..21) by `parallel`.
  const auto &item = results[2];
  ASSERT_TRUE(item.contains("fixes")) << item;
  const auto &replacement = item["fixes"][0]["artifactChanges"][0]["replacements"][0];
  EXPECT_EQ(replacement["insertedContent"]["text"], "parallel");
  EXPECT_EQ(
      replacement["deletedRegion"],
      nlohmann::json({{"startLine", 3}, {"startColumn", 14}, {"endLine", 3}, {"endColumn", 21}}));
}

TEST(CheckCli, SarifOfACleanFileHasAnEmptyRun) {
  auto r = test::run(kIsamap + " check --format=sarif " + tempFile("good.isam", kGood));
  EXPECT_EQ(r.exitCode, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["runs"][0]["results"], nlohmann::json::array());
}

TEST(CheckCli, GithubAnnotationsOneLineEach) {
  std::string path = tempFile("fixable.isam", kFixable);
  auto r = test::run(kIsamap + " check --format=github " + path);
  EXPECT_EQ(r.exitCode, 1);
  std::istringstream lines(r.out);
  std::string line;
  std::vector<std::string> all;
  while (std::getline(lines, line))
    all.push_back(line);
  ASSERT_EQ(all.size(), 3u) << r.out;
  EXPECT_EQ(
      all[0].rfind("::error file=" + path + ",line=2,col=10,endLine=2,endColumn=13,title=", 0), 0u)
      << all[0];
  EXPECT_NE(all[0].find("::unknown function 'rlu'"), std::string::npos) << all[0];
}

TEST(CheckCli, CiFormatsAreForCheckOnly) {
  auto r = test::run(kIsamap + " dump-ir --format=sarif " + tempFile("good.isam", kGood));
  EXPECT_EQ(r.exitCode, 2) << r.out;
}

// ---- isamap targets ------------------------------------------------------------------------

TEST(TargetsCli, ListsHostTheShippedAndTheIncludedDescriptions) {
  fs::path dir = fs::path(test::tempFile("targets", "myacc.isam",
                                         "target myacc { memory M { size 1 MiB; }\n"
                                         "  registers R : M { count 4; width 64 B; } }\n"))
                     .parent_path();
  auto r = test::run(kIsamap + " targets --format=json -I " + dir.string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto j = test::jsonDocument(r.out)["targets"];
  std::map<std::string, nlohmann::json> byName;
  for (const auto &t : j)
    byName[t["name"].get<std::string>()] = t;
  ASSERT_TRUE(byName.count("host")) << r.out;
  EXPECT_EQ(j[0]["name"], "host");
  EXPECT_GT(byName["host"]["peakGflops"].get<double>(), 0);
  for (const char *shipped : {"x86_avx2", "x86_avx512", "arm_neon", "riscv_rvv", "systolic16"})
    EXPECT_TRUE(byName.count(shipped)) << shipped << " in " << r.out;
  EXPECT_EQ(byName["systolic16"]["triple"], "");
  ASSERT_TRUE(byName.count("myacc")) << r.out;
  EXPECT_EQ(byName["myacc"]["file"], (dir / "myacc.isam").string());
  EXPECT_EQ(byName["myacc"]["memories"][0]["bytes"], 1 << 20);

  auto text = test::run(kIsamap + " targets");
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("systolic16  ("), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("runs on: simulator"), std::string::npos) << text.out;
}

TEST(TargetsCli, TargetTakesADescriptionsPath) {
  std::string hw = test::sourceDir() + "/hwdesc/x86_avx2.isam";
  auto r = test::run(kIsamap + " schedule " + test::samplePath("gemm.isam") +
                     " --instance gemm_small --target " + hw);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("schedule of gemm_small on x86_avx2"), std::string::npos) << r.out;

  std::string two = test::tempFile("targets", "two.isam",
                                   "target a { memory M { size 1 MiB; } }\n"
                                   "target b { memory M { size 1 MiB; } }\n");
  auto bad = test::run(kIsamap + " schedule " + test::samplePath("gemm.isam") +
                       " --instance gemm_small --target " + two);
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_NE(bad.err.find("declares several targets ('a', 'b')"), std::string::npos) << bad.err;
  auto missing = test::run(kIsamap + " schedule " + test::samplePath("gemm.isam") +
                           " --instance gemm_small --target /nonexistent/acc.isam");
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find("cannot read the target description '/nonexistent/acc.isam'"),
            std::string::npos)
      << missing.err;
}

// ---- check --require-instructions: a CI gate on what runs as scalar code -------------------

TEST(CheckCli, RequireInstructionsFailsWhereAStatementRunsAsScalarCode) {
  const std::string kernels = "kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> "
                              "(C: f32[M, N]) {\n"
                              "  C[m, n] += A[m, k] * B[k, n];\n"
                              "}\n"
                              "kernel expo<N>(X: f32[N]) -> (Y: f32[N]) {\n"
                              "  Y[i] = floor(X[i]);\n"
                              "}\n"
                              "instance g = gemm<64, 64, 64>;\n";
  std::string mapped = tempFile("mapped.isam", kernels);
  auto ok = test::run(kIsamap + " check --target x86_avx512 --require-instructions " + mapped);
  EXPECT_EQ(ok.exitCode, 0) << ok.err;
  std::string scalar = tempFile("scalar.isam", kernels + "instance f = expo<37>;\n");
  auto r = test::run(kIsamap + " check --target x86_avx512 --require-instructions " +
                     "--format=github " + scalar);
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("::error file=" + scalar + ",line=5,col=3,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("title=E0706::s0 of f runs as scalar code on x86_avx512"), std::string::npos)
      << r.out;
  // Without the flag the same file is clean; the flag and the target need each other.
  EXPECT_EQ(test::run(kIsamap + " check " + scalar).exitCode, 0);
  EXPECT_EQ(test::run(kIsamap + " check --require-instructions " + scalar).exitCode, 2);
  EXPECT_EQ(test::run(kIsamap + " check --target x86_avx512 " + scalar).exitCode, 2);
}

// ---- dump-ir --format=json ------------------------------------------------------------------

TEST(DumpIrCli, JsonHasTheInstancesAndTheTargetsTheTextShows) {
  std::string file =
      tempFile("dump.isam", "import \"hwdesc/systolic16.isam\";\n"
                            "kernel tri<N>(A: f32[N, N]) -> (S: f32[N], O: f32[2 * N + 1]) {\n"
                            "  S[i] += A[i, j] where j <= i;\n"
                            "  O[2 * i + r] += A[i, r] where r in 0..3;\n"
                            "}\n"
                            "instance t5 = tri<5>;\n");
  auto text = test::run(kIsamap + " dump-ir " + file);
  auto r = test::run(kIsamap + " dump-ir --format=json " + file);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["version"], 1);
  ASSERT_EQ(j["kernels"].size(), 1u);
  const auto &k = j["kernels"][0];
  EXPECT_EQ(k["name"], "t5");
  EXPECT_EQ(k["kernel"], "tri");
  EXPECT_EQ(k["sizes"]["N"], 5);
  EXPECT_EQ(k["tensors"][2]["shape"], nlohmann::json({11}));
  ASSERT_EQ(k["statements"].size(), 2u);
  for (const auto &s : k["statements"]) // each statement as the text form prints it
    EXPECT_NE(text.out.find(s["text"].get<std::string>()), std::string::npos) << s["text"];
  EXPECT_EQ(k["statements"][0]["where"], nlohmann::json({"j <= i"}));
  EXPECT_EQ(k["statements"][0]["computedPoints"], 15);
  EXPECT_EQ(k["statements"][1]["indices"][0]["name"], "i'");
  EXPECT_DOUBLE_EQ(k["flops"].get<double>(), 15 + 15);
  ASSERT_EQ(j["targets"].size(), 1u);
  EXPECT_EQ(j["targets"][0]["name"], "systolic16");
  EXPECT_GT(j["targets"][0]["instructions"].size(), 0u);
}
