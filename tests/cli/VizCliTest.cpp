// `isamap viz` through the real binary: each kind of picture in each format, stdout, atomic
// writes (nothing written on an error, no temporary left behind), bad input exits 1 with
// diagnostics, usage errors exit 2.
#include "support/TestSupport.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace isam;
namespace fs = std::filesystem;

namespace {

const std::string kIsamap = ISAMAP_BINARY;

std::string samplePath(const std::string &name) {
  return test::sourceDir() + "/samples/" + name;
}

// A fresh directory per test, removed at the end.
class VizCli : public ::testing::Test {
protected:
  void SetUp() override {
    static int counter = 0;
    dir_ = fs::temp_directory_path() /
           ("isamap-viz-cli-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string &name) const { return (dir_ / name).string(); }
  std::string write(const std::string &name, const std::string &text) const {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return path(name);
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto &e : fs::directory_iterator(dir_))
      out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  static test::RunResult viz(const std::string &args) {
    return test::run(kIsamap + " viz " + args);
  }

  fs::path dir_;
};

bool isPng(const std::string &data) {
  return data.size() > 8 && data.compare(0, 8, std::string("\x89PNG\r\n\x1a\n", 8)) == 0;
}

} // namespace

TEST_F(VizCli, EveryKindInEveryFormat) {
  struct Case {
    std::string what, args;
  };
  std::vector<Case> cases = {
      {"kernel", samplePath("dwsep.isam") + " --instance dwsep_small"},
      {"hardware", test::sourceDir() + "/hwdesc/systolic16.isam"},
      {"hardware", samplePath("gemm.isam") + " --target soc"},
      {"mapping", samplePath("dwsep.isam") + " --instance dwsep_small --target systolic16 "
                                             "--statement 1"},
      {"schedule", samplePath("gemm.isam") + " --instance gemm_small --target systolic16"},
      {"schedule", samplePath("mlp.isam") + " --instance mlp_small --target soc"},
  };
  int i = 0;
  for (const auto &c : cases) {
    for (const char *format : {"dot", "svg", "png"}) {
      std::string name = std::to_string(i++);
      name += ".";
      name += format;
      std::string out = path(name);
      auto r = viz(c.args + " --what=" + c.what + " --format=" + format + " -o " + out);
      ASSERT_EQ(r.exitCode, 0) << c.what << " " << c.args << "\n" << r.err;
      EXPECT_EQ(r.out, "");
      std::string data = test::readFile(out);
      if (std::string(format) == "dot")
        EXPECT_EQ(data.rfind("digraph ", 0), 0u) << data.substr(0, 100);
      else if (std::string(format) == "svg")
        EXPECT_NE(data.find("<svg"), std::string::npos);
      else
        EXPECT_TRUE(isPng(data));
      EXPECT_EQ(fs::status(out).permissions() & fs::perms::owner_read, fs::perms::owner_read);
    }
  }
  // Only the pictures: no temporary file is left behind.
  EXPECT_EQ(entries().size(), cases.size() * 3);
}

TEST_F(VizCli, StdoutAndKernelBoundWithDefines) {
  auto r = viz(samplePath("gemm.isam") + " --kernel gemm -D M=3 -D N=4 -D K=5 --what=kernel "
                                         "--format=dot -o -");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.rfind("digraph \"kernel gemm\"", 0), 0u) << r.out.substr(0, 80);
  EXPECT_NE(r.out.find("f32[3, 5]"), std::string::npos);
  // The same input gives the same bytes.
  EXPECT_EQ(viz(samplePath("gemm.isam") + " --kernel gemm -D M=3 -D N=4 -D K=5 --what=kernel "
                                          "--format=dot -o -")
                .out,
            r.out);
  auto png =
      viz(samplePath("gemm.isam") + " --instance gemm_small --what=kernel --format=png -o -");
  ASSERT_EQ(png.exitCode, 0) << png.err;
  EXPECT_TRUE(isPng(png.out));
}

// Graphviz's own ids are the addresses of interned names, and it orders clusters by id: the
// SVG then changed with anything that moved the heap (even the length of OUT). viz gives ids in
// reading order, so the same input gives the same SVG whatever the command line.
TEST_F(VizCli, SvgIsTheSameFromRunToRun) {
  std::string args = samplePath("dwsep.isam") + " --instance dwsep_small --what=kernel -o ";
  std::vector<std::string> outs = {path("a.svg"), path(std::string(40, 'b') + ".svg"),
                                   path(std::string(150, 'c') + ".svg")};
  for (const auto &out : outs)
    ASSERT_EQ(viz(args + out).exitCode, 0);
  // A relative OUT, from another directory; a relative FILE.
  ASSERT_EQ(
      test::run("cd '" + dir_.string() + "' && " + kIsamap + " viz " + args + "rel.svg").exitCode,
      0);
  outs.push_back(path("rel.svg"));
  ASSERT_EQ(test::run("cd '" + test::sourceDir() + "' && " + kIsamap +
                      " viz samples/dwsep.isam --instance dwsep_small --what=kernel -o " +
                      path("relfile.svg"))
                .exitCode,
            0);
  outs.push_back(path("relfile.svg"));
  auto first = viz(args + "-");
  for (const auto &out : outs)
    EXPECT_EQ(test::readFile(out), first.out) << out;
}

TEST_F(VizCli, AtomicWriteReplacesOrLeavesUntouched) {
  std::string out = write("picture.svg", "old");
  // A bad request: nothing written, the old file intact, no temporary left.
  auto bad = viz(samplePath("gemm.isam") + " --instance nope --what=kernel -o " + out);
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_NE(bad.err.find("E0202"), std::string::npos) << bad.err;
  EXPECT_EQ(test::readFile(out), "old");
  EXPECT_EQ(entries(), std::vector<std::string>{"picture.svg"});
  // A good one replaces it, again without leftovers.
  auto good = viz(samplePath("gemm.isam") + " --instance gemm_small --what=kernel -o " + out);
  ASSERT_EQ(good.exitCode, 0) << good.err;
  EXPECT_NE(test::readFile(out).find("<svg"), std::string::npos);
  EXPECT_EQ(entries(), std::vector<std::string>{"picture.svg"});
}

// A link stays a link (the file it names is replaced); a FIFO (like /dev/null or /dev/stdout)
// is written in place, never replaced by a rename.
TEST_F(VizCli, LinksAndFifosAreNotReplaced) {
  std::string args = samplePath("gemm.isam") + " --instance gemm_small --what=kernel -o ";
  std::string target = write("target.svg", "old");
  fs::create_symlink(target, dir_ / "link.svg");
  auto r = viz(args + path("link.svg"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.svg"));
  EXPECT_NE(test::readFile(target).find("<svg"), std::string::npos);

  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  auto f = test::run("timeout 60 cat '" + path("fifo") + "' > '" + path("copy") + "' & " + kIsamap +
                     " viz " + args + path("fifo") + "; status=$?; wait; exit $status");
  ASSERT_EQ(f.exitCode, 0) << f.err;
  EXPECT_TRUE(fs::is_fifo(dir_ / "fifo"));
  EXPECT_NE(test::readFile(path("copy")).find("<svg"), std::string::npos);
}

TEST_F(VizCli, UnwritableOutputIsAnError) {
  auto r = viz(samplePath("gemm.isam") + " --instance gemm_small --what=kernel -o " +
               path("missing/dir/x.svg"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  auto d =
      viz(samplePath("gemm.isam") + " --instance gemm_small --what=kernel -o " + dir_.string());
  EXPECT_EQ(d.exitCode, 1);
  EXPECT_NE(d.err.find("is a directory"), std::string::npos) << d.err;
  if (getuid() != 0) { // root writes anywhere
    fs::create_directories(dir_ / "ro");
    fs::permissions(dir_ / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    auto ro = viz(samplePath("gemm.isam") + " --instance gemm_small --what=kernel -o " +
                  path("ro/x.svg"));
    EXPECT_EQ(ro.exitCode, 1);
    EXPECT_NE(ro.err.find("cannot create"), std::string::npos) << ro.err;
    fs::permissions(dir_ / "ro", fs::perms::owner_all);
    EXPECT_TRUE(fs::is_empty(dir_ / "ro"));
  }
}

TEST_F(VizCli, BadInputExitsOneWithDiagnostics) {
  std::string out = path("x.svg");
  std::string bad = write("bad.isam", "kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n"
                                      "  B[i] = relu(A[i]) + C[i];\n}\ninstance k4 = k<4>;\n");
  auto r = viz(bad + " --what=kernel -o " + out);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("error[E0203]"), std::string::npos) << r.err;
  auto syntax = viz(write("syntax.isam", "kernel ;") + " --what=kernel -o " + out);
  EXPECT_EQ(syntax.exitCode, 1);
  EXPECT_NE(syntax.err.find("E0101"), std::string::npos) << syntax.err;
  auto missing = viz("/nonexistent/x.isam --what=kernel -o " + out);
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find("E0603"), std::string::npos);
  auto target = viz(samplePath("gemm.isam") +
                    " --instance gemm_small --what=mapping "
                    "--target systolic61 -o " +
                    out);
  EXPECT_EQ(target.exitCode, 1);
  EXPECT_NE(target.err.find("unknown target 'systolic61'"), std::string::npos) << target.err;
  auto statement = viz(samplePath("gemm.isam") +
                       " --instance gemm_small --what=mapping "
                       "--target systolic16 --statement 7 -o " +
                       out);
  EXPECT_EQ(statement.exitCode, 1);
  EXPECT_NE(statement.err.find("no statement s7"), std::string::npos) << statement.err;
  auto several = viz(samplePath("gemm.isam") + " --what=kernel -o " + out);
  EXPECT_EQ(several.exitCode, 1);
  EXPECT_NE(several.err.find("--instance"), std::string::npos) << several.err;
  auto noTarget = viz(samplePath("gemm.isam") + " --instance gemm_small --what=schedule -o " + out);
  EXPECT_EQ(noTarget.exitCode, 1);
  EXPECT_NE(noTarget.err.find("--target"), std::string::npos) << noTarget.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(entries(), (std::vector<std::string>{"bad.isam", "syntax.isam"}));
}

TEST_F(VizCli, UsageErrorsExitTwo) {
  std::string file = samplePath("gemm.isam") + " --instance gemm_small";
  EXPECT_EQ(viz(file + " -o -").exitCode, 2);                 // no --what
  EXPECT_EQ(viz(file + " --what=pictures -o -").exitCode, 2); // unknown kind
  EXPECT_EQ(viz(file + " --what=kernel --format=jpeg -o -").exitCode, 2);
  EXPECT_EQ(viz(file + " --what=kernel").exitCode, 2); // no -o
  EXPECT_EQ(viz("--what=kernel -o -").exitCode, 2);    // no file
  EXPECT_EQ(viz(file + " --what=mapping --mapping 0 -o -").exitCode, 2);
  EXPECT_EQ(viz(file + " --what=kernel --max-nodes 0 -o -").exitCode, 2);
  EXPECT_EQ(viz(samplePath("gemm.isam") + " --instance a --kernel b --what=kernel -o -").exitCode,
            2);
  auto help = viz("--help");
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("--what"), std::string::npos);
}

TEST_F(VizCli, MaxNodesCapsThePicture) {
  auto r = viz(samplePath("gemm.isam") + " --instance gemm_small --what=kernel --format=dot "
                                         "--max-nodes 2 -o -");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("\"ellipsis\""), std::string::npos);
  EXPECT_NE(r.out.find("2 more nodes"), std::string::npos) << r.out;
}

// A mapping past the last one is an error, not a picture of the error; -D used wrong is a usage
// error.
TEST_F(VizCli, MappingPastTheLastAndBadDefinesAreErrors) {
  std::string out = path("m.svg");
  auto r = viz(samplePath("gemm.isam") +
               " --instance gemm_small --what=mapping --target x86_avx2 --mapping 999 -o " + out);
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.err.find("there is no mapping #999 of s0 on x86_avx2: it has "), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out));
  for (const char *bad :
       {" --kernel gemm -D M=x", " --kernel gemm -D M", " --kernel gemm -D Q=3"}) {
    auto d = viz(samplePath("gemm.isam") + bad + " --what=kernel -o " + out);
    EXPECT_EQ(d.exitCode, 2) << bad << ": " << d.err;
    EXPECT_NE(d.err.find("E0409"), std::string::npos) << bad << ": " << d.err;
  }
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(VizCli, TheFormatFollowsTheOutputsExtension) {
  std::string k = samplePath("gemm.isam") + " --instance gemm_small --what=kernel -o ";
  for (const char *name : {"k.png", "k.PNG", "k.dot", "k.gv", "k.svg", "k.out"}) {
    SCOPED_TRACE(name);
    auto r = viz(k + path(name));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    std::string data = test::readFile(path(name));
    std::string ext = fs::path(name).extension().string();
    if (ext == ".png" || ext == ".PNG")
      EXPECT_TRUE(isPng(data));
    else if (ext == ".dot" || ext == ".gv")
      EXPECT_EQ(data.rfind("digraph", 0), 0u) << data.substr(0, 40);
    else
      EXPECT_NE(data.find("<svg"), std::string::npos) << data.substr(0, 80);
  }
  // An explicit --format that the extension contradicts is a usage error, found first.
  auto r = viz(k + path("k.png") + " --format=svg");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--format=svg but"), std::string::npos) << r.err;
  auto same = viz(k + path("k2.svg") + " --format=svg");
  EXPECT_EQ(same.exitCode, 0) << same.err;
}
