// What an import may read (driver/Imports.h): isam files only, for every front end, and only
// inside Session's importRoots when a front end sets them. A file that is not an isam file is one
// diagnostic at the import that never quotes it.
#include "support/TestSupport.h"

#include "diag/Diagnostic.h"
#include "driver/Imports.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace isam;
namespace fs = std::filesystem;

namespace {

const std::string kKernel = "kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; }\n";

class Dir {
public:
  explicit Dir(const std::string &name) {
    static int counter = 0;
    path_ = fs::temp_directory_path() / ("isamap-imports-" + std::to_string(getpid()) + "-" +
                                         std::to_string(counter++) + "-" + name);
    fs::remove_all(path_);
    fs::create_directories(path_);
    path_ = fs::canonical(path_);
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string write(const std::string &name, const std::string &text) const {
    fs::path p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  std::string path() const { return path_.string(); }

private:
  fs::path path_;
};

std::string rendered(Session &s) {
  std::string out;
  for (const auto &d : s.diagnostics().all())
    out += renderDiagnostic(d, s.sources()) + "\n";
  return out;
}

std::unique_ptr<Session> load(const std::string &main, SessionOptions options = {}) {
  auto s = std::make_unique<Session>(std::move(options));
  EXPECT_TRUE(s->loadFile(main));
  s->checkAll();
  return s;
}

SessionOptions confinedTo(std::vector<std::string> roots) {
  SessionOptions o;
  o.importRoots = std::move(roots);
  o.importRootsReason = "the reason";
  return o;
}

} // namespace

TEST(ImportRule, WhatIsAnIsamFile) {
  using imports::whyNotIsam;
  EXPECT_FALSE(whyNotIsam(""));
  EXPECT_FALSE(whyNotIsam("  \n// only a comment\n"));
  EXPECT_FALSE(whyNotIsam(kKernel));
  EXPECT_FALSE(whyNotIsam("/* caf\xc3\xa9 */\n// x\ntarget t { }"));
  for (const char *decl : {"import", "kernel", "instance", "target", "system"})
    EXPECT_FALSE(whyNotIsam(std::string(decl) + " x")) << decl;
  EXPECT_TRUE(whyNotIsam("root:$6$salt$hash:19000:0:99999:7:::\n"));
  EXPECT_TRUE(whyNotIsam("kernels are here\n"));
  EXPECT_TRUE(whyNotIsam("123 kernel"));
  EXPECT_TRUE(whyNotIsam("/* never closed kernel"));
  EXPECT_TRUE(whyNotIsam("{ \"json\": 1 }"));
  EXPECT_EQ(whyNotIsam(std::string("kernel\0x", 8)), "it holds NUL bytes");
  EXPECT_EQ(whyNotIsam("kernel k // caf\xe9\n"), "it is not UTF-8 text");
  EXPECT_EQ(whyNotIsam("kernel \xed\xa0\x80"), "it is not UTF-8 text");     // a surrogate
  EXPECT_EQ(whyNotIsam("kernel \xc0\xaf"), "it is not UTF-8 text");         // overlong '/'
  EXPECT_EQ(whyNotIsam("kernel \xf4\x90\x80\x80"), "it is not UTF-8 text"); // past U+10FFFF
  EXPECT_FALSE(whyNotIsam("kernel \xf0\x9d\x9b\xbc \xe2\x86\x92"));
  EXPECT_TRUE(imports::hasIsamExtension("a/b.isam"));
  EXPECT_FALSE(imports::hasIsamExtension("a.isam/b"));
  EXPECT_FALSE(imports::hasIsamExtension("/etc/shadow"));
  EXPECT_FALSE(imports::hasIsamExtension(".isam"));
  EXPECT_TRUE(imports::isInside("/a/b/c.isam", "/a/b"));
  EXPECT_TRUE(imports::isInside("/a/b", "/a/b/"));
  EXPECT_FALSE(imports::isInside("/a/bc/d.isam", "/a/b"));
  EXPECT_FALSE(imports::isInside("/a", "/a/b"));
}

TEST(ImportRule, AFileThatIsNotIsamIsOneDiagnosticThatNeverQuotesIt) {
  Dir dir("rule");
  const std::string secret = "root:$6$SECRETHASH:19000:0:99999:7:::\ndaemon:*:19000\n";
  dir.write("shadow", secret);
  dir.write("shadow.isam", secret);
  dir.write("nul.isam", kKernel + std::string("\0", 1));
  dir.write("latin1.isam", "kernel k // caf\xe9 SECRETLATIN\n");
  std::string main = dir.write("main.isam", "import \"shadow\";\nimport \"shadow.isam\";\n"
                                            "import \"nul.isam\";\nimport \"latin1.isam\";\n"
                                            "import \"" +
                                                dir.path() + "/shadow\";\n" + kKernel);
  auto s = load(main);
  auto d = test::withCode(*s, "E0605");
  ASSERT_EQ(d.size(), 5u) << rendered(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "\"shadow\"");
  EXPECT_EQ(d[0].message, "'shadow' is not an isam file: an import names a file ending in .isam");
  EXPECT_EQ(d[1].message, "'shadow.isam' is not an isam file: it does not begin with a "
                          "declaration (import, kernel, instance, target or system)");
  EXPECT_EQ(d[2].message, "'nul.isam' is not an isam file: it holds NUL bytes");
  EXPECT_EQ(d[3].message, "'latin1.isam' is not an isam file: it is not UTF-8 text");
  EXPECT_EQ(test::rangeText(*s, d[4]), "\"" + dir.path() + "/shadow\"");
  // Nothing else: the files were not parsed, and nothing of them is shown.
  EXPECT_EQ(s->diagnostics().all().size(), 5u) << rendered(*s);
  EXPECT_EQ(s->files().size(), 1u);
  std::string out = rendered(*s);
  for (const char *leak : {"root", "SECRET", "daemon"})
    EXPECT_EQ(out.find(leak), std::string::npos) << leak << " in:\n" << out;
}

TEST(ImportRule, IsamFilesStillImportAndReportTheirOwnErrors) {
  Dir dir("ok");
  dir.write("lib.isam", "// a library\n" + kKernel);
  dir.write("broken.isam", "kernel broken( {\n");
  std::string main =
      dir.write("main.isam", "import \"lib.isam\";\nimport \"broken.isam\";\ninstance x = k<4>;\n");
  auto s = load(main);
  EXPECT_EQ(s->files().size(), 3u);
  EXPECT_TRUE(test::withCode(*s, "E0605").empty());
  EXPECT_FALSE(test::withCode(*s, "E0101").empty()) << rendered(*s);
  EXPECT_EQ(s->instances({}).size(), 1u);
}

TEST(ImportRoots, ImportsInsideTheRootsAndTheShippedDescriptionsResolve) {
  Dir ws("ws"), inc("inc");
  ws.write("sub/lib.isam", kKernel);
  inc.write("other.isam", "kernel k2<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; }\n");
  std::string main = ws.write("main.isam", "import \"sub/lib.isam\";\nimport \"other.isam\";\n"
                                           "import \"x86_avx2.isam\";\n"
                                           "import \"hwdesc/arm_neon.isam\";\n"
                                           "instance x = k<4>;\n");
  SessionOptions options = confinedTo({ws.path()});
  options.searchPath = {inc.path()};
  options.importRoots->push_back(inc.path());
  auto s = load(main, options);
  EXPECT_FALSE(s->diagnostics().hasErrors()) << rendered(*s);
  EXPECT_EQ(s->files().size(), 5u);
  EXPECT_TRUE(s->target("x86_avx512").has_value()) << rendered(*s); // shipped, loaded by name
}

TEST(ImportRoots, AnImportOutsideIsRefusedWithoutLookingAtIt) {
  Dir ws("ws"), outside("outside");
  std::string there = outside.write("lib.isam", kKernel);
  fs::create_symlink(there, ws.path() + "/link.isam");
  fs::create_symlink(outside.path(), ws.path() + "/linkdir");
  std::string main = ws.write("main.isam", "import \"" + there +
                                               "\";\n"
                                               "import \"../" +
                                               fs::path(outside.path()).filename().string() +
                                               "/lib.isam\";\n"
                                               "import \"link.isam\";\n"
                                               "import \"linkdir/lib.isam\";\n"
                                               "import \"/etc/isamap-absent-42.isam\";\n"
                                               "import \"absent-inside.isam\";\n");
  auto s = load(main, confinedTo({ws.path()}));
  auto d = test::withCode(*s, "E0604");
  ASSERT_EQ(d.size(), 5u) << rendered(*s);
  EXPECT_EQ(d[0].message, "'" + there + "' is outside the directories imports may read");
  ASSERT_GE(d[0].notes.size(), 3u);
  EXPECT_EQ(d[0].notes[0].message, "the reason");
  EXPECT_EQ(d[0].notes[1].message, "imports may read files under " + ws.path());
  EXPECT_EQ(test::rangeText(*s, d[2]), "\"link.isam\"");
  // A missing file inside is still "not found"; one outside is refused whether it exists or not.
  auto missing = test::withCode(*s, "E0601");
  ASSERT_EQ(missing.size(), 1u) << rendered(*s);
  EXPECT_EQ(test::rangeText(*s, missing[0]), "\"absent-inside.isam\"");
  EXPECT_EQ(s->files().size(), 1u);

  // Unconfined (the CLI), the same imports are read.
  auto free = load(main);
  EXPECT_TRUE(test::withCode(*free, "E0604").empty());
  EXPECT_EQ(free->files().size(), 2u) << rendered(*free); // one canonical file, loaded once
}
