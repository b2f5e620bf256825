// isamap_difftest itself, run as a user would: the summary line, the exit status, the files
// --out writes (with a failure injected, since a fixed bug must not be what the test needs),
// minimisation, and usage errors.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace {

struct Result {
  int exitCode = -1;
  std::string out;
};

Result runDifftest(const std::string &args) {
  std::string command = std::string(ISAMAP_DIFFTEST_BINARY) + " " + args + " 2>&1";
  Result r;
  FILE *p = popen(command.c_str(), "r");
  if (!p)
    return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    r.out.append(buf.data(), n);
  int status = pclose(p);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string freshDir(const std::string &name) {
  fs::path dir = fs::temp_directory_path() / ("isamap-difftest-" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  return dir.string();
}

} // namespace

TEST(DifftestCampaign, PassingKernelsExitZeroWithASummary) {
  Result r = runDifftest("--seed 11 --count 4 --targets generic,systolic16 --cross-every 0 "
                         "--no-partial-writes --no-self-read --no-multi-offset --no-diagonal "
                         "--no-implicit-chains --no-implicit-scalars --no-int-overflow");
  EXPECT_EQ(r.exitCode, 0) << r.out;
  // Per kernel: the row interpreter, then per target the schedule IR and the executor.
  EXPECT_NE(r.out.find("4 kernels, 20 executions, 0 mismatches, 0 errors"), std::string::npos)
      << r.out;
}

TEST(DifftestCampaign, AFailingKernelIsMinimisedAndWrittenWithAHeader) {
  std::string dir = freshDir("crash");
  Result r = runDifftest("--seed 5 --count 1 --targets generic --cross-every 0 --timeout 20 "
                         "--no-diagonal --inject-fault abort --minimize --minimize-tries 40 "
                         "--out " +
                         dir);
  EXPECT_EQ(r.exitCode, 1) << r.out;
  EXPECT_NE(r.out.find("1 kernels, 1 executions, 0 mismatches, 0 errors, 0 exceptions, 1 crashes"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("FAIL seed 5: (test) fault crash"), std::string::npos) << r.out;
  std::vector<fs::path> files;
  for (const auto &e : fs::directory_iterator(dir))
    files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u) << r.out;
  std::ifstream in(files[0]);
  std::stringstream text;
  text << in.rdbuf();
  std::string t = text.str();
  EXPECT_NE(t.find("// isamap_difftest finding: seed 5"), std::string::npos) << t;
  EXPECT_NE(t.find("failure: crash"), std::string::npos) << t;
  EXPECT_NE(t.find("signal"), std::string::npos) << t;
  EXPECT_NE(t.find("reproduce: isamap_difftest --seed 5 --count 1 --targets (test) --no-diagonal"),
            std::string::npos)
      << t;
  // Minimised to one statement writing a constant.
  EXPECT_NE(t.find("kernel k() -> ("), std::string::npos) << t;
  EXPECT_NE(t.find(" = 1;\n}"), std::string::npos) << t;
  fs::remove_all(dir);
}

TEST(DifftestCampaign, AHangIsATimeout) {
  Result r = runDifftest("--seed 5 --count 1 --targets generic --timeout 2 --inject-fault hang");
  EXPECT_EQ(r.exitCode, 1) << r.out;
  EXPECT_NE(r.out.find("1 timeouts"), std::string::npos) << r.out;
}

TEST(DifftestCampaign, UsageErrorsExitTwo) {
  EXPECT_EQ(runDifftest("--disable no-such-feature").exitCode, 2);
  EXPECT_EQ(runDifftest("--count 0").exitCode, 2);
  EXPECT_EQ(runDifftest("--targets ,").exitCode, 2);
  EXPECT_EQ(runDifftest("--bogus").exitCode, 2);
  Result help = runDifftest("--help");
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("--no-partial-writes"), std::string::npos) << help.out;
}
