// The background index of the workspace's files: which files it takes, what an entry holds
// (declarations and the declarations each name resolves to, by declarationKey), and that fresh()
// never answers with an entry made from other text than the files' and open documents' now.
#include "lsp/WorkspaceIndex.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace isam;
using namespace isam::lsp;

namespace {

namespace fs = std::filesystem;

const char *kKernel = "kernel scale<N>(X: f32[N]) -> (Y: f32[N]) {\n  Y[i] = X[i] * 2.0;\n}\n";
const char *kUser = "import \"a.isam\";\ninstance s = scale<16>;\n";

class LspWorkspaceIndex : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::path(test::tempFile("ws-index", "a.isam", kKernel)).parent_path().string();
    dir = canonicalPath(dir);
    write("b.isam", kUser);
    // Not indexed: a build tree's copy and a hidden folder's.
    write("build/CMakeCache.txt", "");
    write("build/copy.isam", kKernel);
    write(".cache/hidden.isam", kKernel);
    settings.workspaceFolders = {dir};
  }
  void TearDown() override { fs::remove_all(dir); }

  std::string write(const std::string &name, const std::string &text) {
    fs::path p = fs::path(dir) / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  std::string path(const std::string &name) const { return dir + "/" + name; }

  static const IndexEntry *entryOf(const std::vector<std::shared_ptr<const IndexEntry>> &entries,
                                   const std::string &path) {
    for (const auto &e : entries)
      if (e->path == path)
        return e.get();
    return nullptr;
  }

  std::string dir;
  Settings settings;
};

TEST_F(LspWorkspaceIndex, IndexesTheWorkspacesFilesButBuildTreesAndHiddenFolders) {
  WorkspaceIndex index;
  index.rescan(settings);
  auto entries = index.fresh({});
  std::vector<std::string> paths;
  for (const auto &e : entries)
    paths.push_back(e->path);
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{path("a.isam"), path("b.isam")}));
}

TEST_F(LspWorkspaceIndex, EntriesNameDeclarationsByFileAndOffset) {
  WorkspaceIndex index;
  index.rescan(settings);
  auto entries = index.fresh({});
  const IndexEntry *a = entryOf(entries, path("a.isam"));
  const IndexEntry *b = entryOf(entries, path("b.isam"));
  ASSERT_TRUE(a && b);
  std::string scale = declarationKey(path("a.isam"), std::string(kKernel).find("scale"));
  ASSERT_FALSE(a->symbols.empty());
  EXPECT_EQ(a->symbols[0].info.name, "scale");
  EXPECT_EQ(a->symbols[0].key, scale);
  EXPECT_EQ(a->symbols[0].kind, index::SymbolKind::Kernel);
  // b's instance uses a's kernel, from inside the instance's declaration.
  auto use = std::find_if(b->uses.begin(), b->uses.end(),
                          [&](const IndexEntry::Use &u) { return u.key == scale; });
  ASSERT_NE(use, b->uses.end());
  EXPECT_FALSE(use->isDeclaration);
  EXPECT_EQ(use->range.start, (Position{1, 13}));
  ASSERT_GE(use->container, 0);
  EXPECT_EQ(b->symbols[size_t(use->container)].info.name, "s");
}

TEST_F(LspWorkspaceIndex, FreshFollowsOpenDocumentsAndTheDisk) {
  WorkspaceIndex index;
  index.rescan(settings);
  ASSERT_EQ(index.fresh({}).size(), 2u);
  // a.isam open with two more lines: left out of the answer, and b's use now names the kernel at
  // its offset in the open text.
  std::string opened = std::string("\n\n") + kKernel;
  auto entries = index.fresh({{path("a.isam"), opened}});
  ASSERT_EQ(entries.size(), 1u);
  std::string moved = declarationKey(path("a.isam"), opened.find("scale"));
  EXPECT_TRUE(std::any_of(entries[0]->uses.begin(), entries[0]->uses.end(),
                          [&](const IndexEntry::Use &u) { return u.key == moved; }));
  // b.isam changed on disk: read again.
  write("b.isam", std::string("// two\n// lines\n") + kUser);
  const IndexEntry *b = entryOf(index.fresh({}), path("b.isam"));
  ASSERT_TRUE(b);
  ASSERT_FALSE(b->symbols.empty());
  EXPECT_EQ(b->symbols[0].info.location.range.start.line, 3u);
  // Deleted and scanned again: forgotten.
  fs::remove(path("b.isam"));
  index.rescan(settings);
  EXPECT_FALSE(entryOf(index.fresh({}), path("b.isam")));
  // A stopped request gets what it has: nothing here.
  EXPECT_TRUE(index.fresh({}, [] { return true; }).empty());
}

// An entry read from a file that was written again while it was being made is not taken for
// current: once the writes stop, fresh() answers with the file's last text.
TEST_F(LspWorkspaceIndex, AFileWrittenWhileIndexedIsReadAgain) {
  WorkspaceIndex index;
  index.rescan(settings);
  const int writes = 300;
  std::atomic<bool> done = false;
  std::thread writer([&] {
    // Each text one line longer than the last, so that no two have the same size.
    std::string comments;
    for (int i = 0; i < writes; ++i) {
      comments += "//\n";
      write("b.isam", comments + kUser);
    }
    done = true;
  });
  while (!done)
    index.fresh({});
  writer.join();
  const IndexEntry *b = entryOf(index.fresh({}), path("b.isam"));
  ASSERT_TRUE(b);
  ASSERT_FALSE(b->symbols.empty());
  EXPECT_EQ(b->symbols[0].info.location.range.start.line, uint32_t(writes + 1));
  // And read once: the entry is the same while the file does not change.
  EXPECT_EQ(entryOf(index.fresh({}), path("b.isam")), b);
}

} // namespace
