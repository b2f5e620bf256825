// `isamap check` and `isamap dump-ir` through the real binary.
#include "support/TestSupport.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
  auto j = nlohmann::json::parse(r.out);
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
  auto j = nlohmann::json::parse(r.out);
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
  EXPECT_NE(v.out.find("isamap 0."), std::string::npos);
  for (const char *cmd : {"", " check", " dump-ir"}) {
    auto h = test::run(kIsamap + cmd + " --help");
    EXPECT_EQ(h.exitCode, 0) << cmd;
    EXPECT_NE(h.out.find("Usage"), std::string::npos) << cmd;
    EXPECT_EQ(test::run(kIsamap + cmd + " --version").exitCode, 0) << cmd;
  }
}
