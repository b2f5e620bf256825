// `isamap fmt` through the real binary: rewriting in place (atomically, only when something
// changes), --check, --stdout and stdin, errors and exit codes.
#include "support/TestSupport.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace isam;
namespace fs = std::filesystem;

namespace {

const std::string kIsamap = ISAMAP_BINARY;

const char *kMessy = "kernel k<N>(A:f32[N])->(B:f32[N]){\n\n  B[i]=relu( A[i] );   // r\n}\n"
                     "instance k8=k< 8 >;";
const char *kClean = "kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = relu(A[i]);   // r\n}\n"
                     "instance k8 = k<8>;\n";

// A fresh directory for one test, so that leftover temporaries can be counted; removed after.
struct FreshDir {
  explicit FreshDir(const std::string &name)
      : path(fs::temp_directory_path() / ("isamap-fmt-" + std::to_string(getpid()) + "-" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~FreshDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  FreshDir(const FreshDir &) = delete;
  FreshDir &operator=(const FreshDir &) = delete;
  fs::path path;
};

std::string write(const fs::path &dir, const std::string &name, const std::string &text) {
  fs::path p = dir / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

size_t entries(const fs::path &dir) {
  return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

std::string quote(const std::string &s) {
  return "'" + s + "'";
}

} // namespace

TEST(FmtCli, RewritesInPlace) {
  FreshDir fresh("rewrite");
  const fs::path &dir = fresh.path;
  std::string messy = write(dir, "messy.isam", kMessy), clean = write(dir, "clean.isam", kClean);
  fs::permissions(messy, fs::perms(0640));
  auto r = test::run(kIsamap + " fmt " + quote(messy) + " " + quote(clean));
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(test::readFile(messy), kClean);
  EXPECT_EQ(test::readFile(clean), kClean);
  // The permissions are kept, and no temporary is left beside the files.
  EXPECT_EQ(fs::status(messy).permissions(), fs::perms(0640));
  EXPECT_EQ(entries(dir), 2u);
}

TEST(FmtCli, FormattedFilesAreNotWritten) {
  FreshDir fresh("untouched");
  const fs::path &dir = fresh.path;
  std::string clean = write(dir, "clean.isam", kClean);
  auto before = fs::last_write_time(clean);
  fs::last_write_time(clean, before - std::chrono::hours(1));
  before = fs::last_write_time(clean);
  struct stat st;
  ASSERT_EQ(stat(clean.c_str(), &st), 0);
  ino_t inode = st.st_ino;
  auto r = test::run(kIsamap + " fmt " + quote(clean));
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(fs::last_write_time(clean), before);
  ASSERT_EQ(stat(clean.c_str(), &st), 0);
  EXPECT_EQ(st.st_ino, inode);
}

TEST(FmtCli, CheckListsFilesThatWouldChange) {
  FreshDir fresh("check");
  const fs::path &dir = fresh.path;
  std::string messy = write(dir, "messy.isam", kMessy), clean = write(dir, "clean.isam", kClean);
  auto r = test::run(kIsamap + " fmt --check " + quote(messy) + " " + quote(clean));
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_EQ(r.out, messy + "\n");
  EXPECT_EQ(test::readFile(messy), kMessy); // nothing written
  auto ok = test::run(kIsamap + " fmt --check " + quote(clean));
  EXPECT_EQ(ok.exitCode, 0) << ok.err;
  EXPECT_EQ(ok.out, "");
  EXPECT_EQ(entries(dir), 2u);
}

TEST(FmtCli, ShippedFilesAreFormatted) {
  std::string files;
  for (const char *sub : {"samples", "hwdesc"})
    for (const auto &entry : fs::directory_iterator(test::sourceDir() + "/" + sub))
      if (entry.path().extension() == ".isam")
        files += ' ' + quote(entry.path().string());
  auto r = test::run(kIsamap + " fmt --check" + files);
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(FmtCli, StdoutAndStdin) {
  FreshDir fresh("stdout");
  const fs::path &dir = fresh.path;
  std::string messy = write(dir, "messy.isam", kMessy);
  auto r = test::run(kIsamap + " fmt --stdout " + quote(messy));
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, kClean);
  EXPECT_EQ(test::readFile(messy), kMessy);
  auto in = test::run(kIsamap + " fmt -", kMessy);
  EXPECT_EQ(in.exitCode, 0) << in.err;
  EXPECT_EQ(in.out, kClean);
  auto check = test::run(kIsamap + " fmt --check -", kMessy);
  EXPECT_EQ(check.exitCode, 1);
  EXPECT_EQ(check.out, "<stdin>\n");
  // CRLF stays CRLF.
  auto crlf = test::run(kIsamap + " fmt -", "a=b;\r\nc = d ;\r\n");
  EXPECT_EQ(crlf.out, "a = b;\r\nc = d;\r\n");
}

TEST(FmtCli, UnreadableFilesAreErrorsAndTheOthersStillFormatted) {
  FreshDir fresh("missing");
  const fs::path &dir = fresh.path;
  std::string messy = write(dir, "messy.isam", kMessy);
  std::string missing = (dir / "nope.isam").string();
  auto r = test::run(kIsamap + " fmt " + quote(missing) + " " + quote(messy) + " " +
                     quote(dir.string()));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("cannot read '" + missing + "': No such file or directory"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("it is a directory"), std::string::npos) << r.err;
  EXPECT_EQ(test::readFile(messy), kClean);
}

TEST(FmtCli, SyntaxErrorsStillFormat) {
  auto r = test::run(kIsamap + " fmt -", "kernel k(A: f32[N]) -> (B: f32[N]) {\nB[i]=A[i]\n}\n");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "kernel k(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i]\n}\n");
}

TEST(FmtCli, SymbolicLinksAreFollowed) {
  FreshDir fresh("link");
  const fs::path &dir = fresh.path;
  std::string messy = write(dir, "messy.isam", kMessy);
  fs::path link = dir / "link.isam";
  fs::create_symlink(messy, link);
  auto r = test::run(kIsamap + " fmt " + quote(link.string()));
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(test::readFile(messy), kClean);
  EXPECT_EQ(entries(dir), 2u);
}

TEST(FmtCli, NothingIsHalfWritten) {
  // Writing fails part way (a file size limit, its signal ignored so that write() reports
  // EFBIG): the file keeps its old text and the temporary is removed.
  FreshDir fresh("half");
  const fs::path &dir = fresh.path;
  std::string big;
  for (int i = 0; i < 200; ++i)
    big += "instance i" + std::to_string(i) + "=k< 1,2 >;\n";
  std::string path = write(dir, "big.isam", big);
  // dash counts `ulimit -f` in 512-byte blocks: 2 blocks leave room for the error message.
  auto r = test::run("trap '' XFSZ; ulimit -f 2; " + kIsamap + " fmt " + quote(path));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("cannot write '" + path + "': File too large"), std::string::npos) << r.err;
  EXPECT_EQ(test::readFile(path), big);
  EXPECT_EQ(entries(dir), 1u);
}

TEST(FmtCli, UsageErrorsExitTwo) {
  EXPECT_EQ(test::run(kIsamap + " fmt").exitCode, 2);
  EXPECT_EQ(test::run(kIsamap + " fmt --check --stdout x.isam").exitCode, 2);
  EXPECT_EQ(test::run(kIsamap + " fmt --frobnicate x.isam").exitCode, 2);
  auto help = test::run(kIsamap + " fmt --help");
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("--check"), std::string::npos);
}
