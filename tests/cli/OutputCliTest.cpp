// The output policy (source/FileIo.h) through the real binary, for every command that writes a
// file: a symbolic link and a FIFO are written through, never replaced by a regular file; a
// regular file is replaced whole; a compile killed by SIGTERM or SIGINT leaves no temporary
// (`.OUT.tmp-XXXXXX`) behind.
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace isam;
namespace fs = std::filesystem;

namespace {

const std::string kIsamap = ISAMAP_BINARY;

bool has(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string sh(const fs::path &p) {
  std::string s(1, '\'');
  s.append(p.string()).push_back('\'');
  return s;
}

class OutputCli : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("isamap-output-cli-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path operator/(const std::string &name) const { return dir_ / name; }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto &e : fs::directory_iterator(dir_))
      out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  // A link `name` to a regular file `name.target` holding "old".
  fs::path link(const std::string &name) {
    std::ofstream(dir_ / (name + ".target")) << "OLD-CONTENT";
    fs::create_symlink(dir_ / (name + ".target"), dir_ / name);
    return dir_ / name;
  }

  fs::path dir_;
};

const std::string kGemm = test::samplePath("gemm.isam") + " --instance gemm_small ";

// Every command and kind of output, with the text the file must then hold.
struct Writer {
  std::string name, args, expected;
};
std::vector<Writer> writers() {
  return {
      {"compile-obj", "compile " + kGemm + "--target host --emit=obj -o ", "ELF"},
      {"compile-header", "compile " + kGemm + "--target host --emit=header -o ", "gemm_small"},
      {"compile-llvm", "compile " + kGemm + "--target host --emit=llvm -o ", "define"},
      {"compile-shared", "compile " + kGemm + "--target host --emit=shared -o ", "ELF"},
      {"compile-asm-accel", "compile " + kGemm + "--target systolic16 --emit=asm -o ",
       "isamap instruction stream"},
      {"compile-stream", "compile " + kGemm + "--target systolic16 --emit=stream -o ",
       "isamap-accel-stream"},
      {"viz", "viz " + kGemm + "--what=kernel -o ", "<svg"},
      {"run-trace", "run " + kGemm + "--target systolic16 --trace ", "traceEvents"},
  };
}

} // namespace

TEST_F(OutputCli, SymbolicLinksAreWrittenThroughNotReplaced) {
  for (const auto &w : writers()) {
    fs::path l = link(w.name);
    auto r = test::run(kIsamap + " " + w.args + sh(l));
    ASSERT_EQ(r.exitCode, 0) << w.name << ": " << r.err;
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(l))) << w.name << ": the link was replaced";
    std::string got = test::readFile((dir_ / (w.name + ".target")).string());
    EXPECT_TRUE(has(got, w.expected)) << w.name << ": " << got.substr(0, 200);
    EXPECT_FALSE(has(got, "OLD-CONTENT")) << w.name;
  }
  // Only the links and their targets: no temporary beside either.
  EXPECT_EQ(entries().size(), 2 * writers().size());
}

TEST_F(OutputCli, FifosAreWrittenThroughNotReplaced) {
  for (const auto &w : writers()) {
    fs::path fifo = dir_ / (w.name + ".fifo");
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    std::string got;
    // The reader: opening a FIFO for reading waits for the writer, and reads until it closes.
    std::thread reader([&] {
      int fd = open(fifo.c_str(), O_RDONLY);
      if (fd < 0)
        return;
      char buffer[65536];
      for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;)
        got.append(buffer, size_t(n));
      close(fd);
    });
    auto r = test::run(kIsamap + " " + w.args + sh(fifo));
    if (r.exitCode != 0) {
      // Unblock the reader if the writer never opened the FIFO.
      int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0)
        close(fd);
    }
    reader.join();
    ASSERT_EQ(r.exitCode, 0) << w.name << ": " << r.err;
    EXPECT_TRUE(fs::is_fifo(fifo)) << w.name << ": the FIFO was replaced";
    EXPECT_TRUE(has(got, w.expected)) << w.name << ": " << got.substr(0, 200);
  }
  EXPECT_EQ(entries().size(), writers().size());
}

TEST_F(OutputCli, RegularFilesAreReplacedWhole) {
  for (const auto &w : writers()) {
    fs::path out = dir_ / w.name;
    std::ofstream(out) << std::string(3000000, 'x'); // longer than any of these outputs
    auto r = test::run(kIsamap + " " + w.args + sh(out));
    ASSERT_EQ(r.exitCode, 0) << w.name << ": " << r.err;
    std::string got = test::readFile(out.string());
    EXPECT_TRUE(has(got, w.expected)) << w.name;
    EXPECT_FALSE(has(got, "xxxxxxxxxx")) << w.name << ": old content left";
  }
  EXPECT_EQ(entries().size(), writers().size());
}

// A compile writing a listing of gigabytes, killed while it writes: the temporary goes with it,
// and the old output stays as it was. (Started directly rather than by a shell, which would
// have a background job ignore SIGINT.)
TEST_F(OutputCli, KilledCompileLeavesNoTemporary) {
  for (int sig : {SIGTERM, SIGINT}) {
    std::ofstream(dir_ / "OUT") << "OLD-CONTENT";
    std::vector<std::string> args = {kIsamap,
                                     "compile",
                                     test::samplePath("gemm.isam"),
                                     "--instance",
                                     "gemm_5124x9124x2560",
                                     "--target",
                                     "systolic16",
                                     "--emit=asm",
                                     "-o",
                                     (dir_ / "OUT").string()};
    std::vector<char *> argv;
    for (auto &a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      int null = open("/dev/null", O_WRONLY);
      dup2(null, 1);
      dup2(null, 2);
      execv(argv[0], argv.data());
      _exit(127);
    }
    // Wait (up to a minute) until the temporary exists and holds some of the listing.
    bool writing = false;
    for (int i = 0; i < 600 && !writing; ++i) {
      for (const auto &e : fs::directory_iterator(dir_))
        if (e.path().filename().string().rfind(".OUT.tmp-", 0) == 0 && fs::file_size(e.path()) > 0)
          writing = true;
      if (!writing)
        usleep(100000);
    }
    EXPECT_TRUE(writing) << "the compile never started writing";
    kill(pid, sig);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig)
        << "the compile ended otherwise than by signal " << sig << " (status " << status << ")";
    EXPECT_EQ(entries(), std::vector<std::string>{"OUT"}) << "signal " << sig;
    EXPECT_EQ(test::readFile((dir_ / "OUT").string()), "OLD-CONTENT") << "signal " << sig;
  }
}

TEST_F(OutputCli, DirectoriesAndMissingDirectoriesAreErrors) {
  fs::create_directories(dir_ / "sub");
  for (const auto &w : writers()) {
    auto d = test::run(kIsamap + " " + w.args + sh(dir_ / "sub"));
    EXPECT_EQ(d.exitCode, 1) << w.name;
    EXPECT_TRUE(has(d.err, "is a directory")) << w.name << ": " << d.err;
    auto m = test::run(kIsamap + " " + w.args + sh(dir_ / "no" / "such"));
    EXPECT_EQ(m.exitCode, 1) << w.name;
    EXPECT_TRUE(has(m.err, "does not exist")) << w.name << ": " << m.err;
  }
  EXPECT_EQ(entries(), std::vector<std::string>{"sub"});
  EXPECT_TRUE(fs::is_empty(dir_ / "sub"));
}
