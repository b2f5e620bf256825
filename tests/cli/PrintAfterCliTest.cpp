// `--print-after=STAGE` on the commands that run the pipeline (schedule, compile, run): each
// stage's result goes to stderr under a `// ---- after STAGE: WHAT ----` heading, is what the
// command that shows that result prints (dump-ir, map, schedule, compile --emit), and leaves
// the command's own output unchanged; an unknown stage, one the command does not reach, or
// `list` is a usage error (exit 2) that lists the command's stages.
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

using namespace isam;

namespace {

const std::string kIsamap = ISAMAP_BINARY;

bool has(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

const std::string kGemmSmall = test::samplePath("gemm.isam") + " --instance gemm_small";
const char *const kHeading = "// ---- after ";

// The printed stages: each heading (without the dashes) and the text under it, in order.
std::vector<std::pair<std::string, std::string>> sections(const std::string &err) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(kHeading, 0) == 0 && line.size() > 19 &&
        line.compare(line.size() - 5, 5, " ----") == 0) {
      out.emplace_back(line.substr(14, line.size() - 19), "");
      continue;
    }
    if (!out.empty())
      out.back().second += line + "\n";
  }
  return out;
}

std::string section(const std::string &err, const std::string &heading) {
  for (const auto &[h, text] : sections(err))
    if (h == heading)
      return text;
  ADD_FAILURE() << "no section '" << heading << "' in:\n" << err.substr(0, 3000);
  return "";
}

// stdout without the lines that hold times (they differ from run to run).
std::string withoutTimes(const std::string &out) {
  std::istringstream in(out);
  std::string kept;
  for (std::string line; std::getline(in, line);)
    if (!has(line, " ms"))
      kept += line + "\n";
  return kept;
}

} // namespace

TEST(PrintAfterCli, RunPrintsEveryStageInOrderAndKeepsItsOutput) {
  auto plain = test::run(kIsamap + " run " + kGemmSmall + " --target host --check");
  ASSERT_EQ(plain.exitCode, 0) << plain.err;
  EXPECT_FALSE(has(plain.err, kHeading)) << plain.err;
  auto r = test::run(kIsamap + " run " + kGemmSmall +
                     " --target host --check --print-after=parse,sema --print-after "
                     "mapping,schedule,llvm-ir,asm");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::vector<std::string> headings;
  for (const auto &[h, text] : sections(r.err))
    headings.push_back(h);
  std::vector<std::string> want = {"parse: " + test::samplePath("gemm.isam"),
                                   "sema: gemm_small",
                                   "sema: target host",
                                   "mapping: gemm_small on host",
                                   "schedule: gemm_small on host",
                                   "llvm-ir: gemm_small on host",
                                   "asm: gemm_small on host"};
  EXPECT_EQ(headings, want) << r.err.substr(0, 3000);
  EXPECT_EQ(withoutTimes(r.out), withoutTimes(plain.out));
  EXPECT_TRUE(has(r.out, ") PASS\n")) << r.out;
  // The parse stage: an outline of the declarations, where each starts.
  std::string parse = section(r.err, "parse: " + test::samplePath("gemm.isam"));
  EXPECT_TRUE(std::regex_search(parse, std::regex(R"(^kernel gemm<M, N, K>\(A, B\) -> \(C\): )"
                                                  R"(1 statement \(\d+:1\)$)",
                                                  std::regex::multiline)))
      << parse;
  EXPECT_TRUE(
      std::regex_search(parse, std::regex(R"(^instance gemm_small = gemm<7, 5, 13>; \(\d+:1\)$)",
                                          std::regex::multiline)))
      << parse;
  // The code: the generated module, with the entry point that takes the thread count.
  std::string ir = section(r.err, "llvm-ir: gemm_small on host");
  EXPECT_TRUE(std::regex_search(ir, std::regex(R"(\ndefine [^\n]*@gemm_small__args_threads\()")))
      << ir.substr(0, 2000);
  EXPECT_TRUE(has(section(r.err, "asm: gemm_small on host"), "\ngemm_small__args_threads:"));
}

TEST(PrintAfterCli, StagesPrintWhatTheirOwnCommandsPrint) {
  auto r = test::run(kIsamap + " schedule " + kGemmSmall +
                     " --target host --print-after=sema,mapping,schedule");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // schedule: exactly the schedule command's own output (on stdout, with a blank line after).
  EXPECT_EQ(section(r.err, "schedule: gemm_small on host") + "\n", r.out);
  // sema: the instance as dump-ir prints it.
  auto dump = test::run(kIsamap + " dump-ir " + kGemmSmall);
  ASSERT_EQ(dump.exitCode, 0) << dump.err;
  EXPECT_EQ(section(r.err, "sema: gemm_small") + "\n", dump.out);
  // mapping: the mappings as `isamap map` lists them.
  auto map = test::run(kIsamap + " map " + kGemmSmall + " --target host");
  ASSERT_EQ(map.exitCode, 0) << map.err;
  std::string mappings = section(r.err, "mapping: gemm_small on host");
  ASSERT_FALSE(mappings.empty());
  EXPECT_TRUE(has(map.out, mappings.substr(0, mappings.size() - 1))) << mappings << "\n---\n"
                                                                     << map.out;
}

TEST(PrintAfterCli, CompilePrintsTheCodeItWrites) {
  std::string dir = test::tempFile("print-after", "keep", "");
  dir = dir.substr(0, dir.rfind('/'));
  for (const auto &[target, emit, stage] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"host", "llvm", "llvm-ir"}, {"host", "asm", "asm"}, {"systolic16", "asm", "asm"}}) {
    SCOPED_TRACE(target + " " + emit);
    std::string plainOut = dir + "/plain." + emit, printedOut = dir + "/printed." + emit;
    auto plain = test::run(kIsamap + " compile " + kGemmSmall + " --target " + target +
                           " --emit=" + emit + " -o " + plainOut);
    ASSERT_EQ(plain.exitCode, 0) << plain.err;
    auto r = test::run(kIsamap + " compile " + kGemmSmall + " --target " + target +
                       " --emit=" + emit + " -o " + printedOut + " --print-after=" + stage);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    std::string written = test::readFile(printedOut);
    EXPECT_EQ(written, test::readFile(plainOut)) << "printing changed the file";
    EXPECT_EQ(section(r.err, stage + ": gemm_small on " + target), written);
  }
}

TEST(PrintAfterCli, StageNamesAreCheckedAndListed) {
  struct Case {
    std::string command, flag, says;
  };
  const std::string stages = "parse, sema, mapping, schedule, llvm-ir, asm";
  std::vector<Case> cases = {
      {"run " + kGemmSmall + " --target host", "--print-after=list",
       "isamap run: --print-after=STAGE prints the result of STAGE to stderr; the stages of run "
       "are " +
           stages + "\n"},
      {"compile " + kGemmSmall + " --target host", "--print-after=bogus",
       "isamap compile: --print-after: 'bogus' is not a stage; the stages of compile are " +
           stages + "\n"},
      {"schedule " + kGemmSmall + " --target host", "--print-after=sema,llvm-ir",
       "isamap schedule: --print-after=llvm-ir: schedule stops after schedule; the stages of "
       "schedule are parse, sema, mapping, schedule\n"},
      {"run " + kGemmSmall + " --interpret", "--print-after=mapping",
       "isamap run: --print-after=mapping: run --interpret stops after sema; the stages of run "
       "--interpret are parse, sema\n"},
      {"compile " + kGemmSmall + " --target systolic16", "--print-after=llvm-ir",
       "isamap compile: --print-after=llvm-ir: systolic16 has no LLVM backend (it names no "
       "triple); its code is printed after asm\n"},
  };
  for (const auto &c : cases) {
    auto r = test::run(kIsamap + " " + c.command + " " + c.flag);
    EXPECT_EQ(r.exitCode, 2) << c.command << " " << c.flag << "\n" << r.err;
    EXPECT_EQ(r.err, c.says) << c.command << " " << c.flag;
    EXPECT_EQ(r.out, "") << c.command << " " << c.flag;
  }
  // The interpreter's run prints what it reaches.
  auto r = test::run(kIsamap + " run " + kGemmSmall + " --interpret --print-after=sema");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(has(section(r.err, "sema: gemm_small"), "kernel gemm_small = gemm<M=7, N=5, K=13>"));
}
