// The language server's text model: UTF-16 positions against UTF-8 bytes, incremental changes,
// file URIs and settings.
#include "lsp/Documents.h"
#include "lsp/Positions.h"
#include "lsp/Settings.h"
#include "lsp/Uri.h"

#include <gtest/gtest.h>

using namespace isam::lsp;

TEST(LspPositions, AsciiLinesAndClamping) {
  LineMap m("ab\ncd\r\nef");
  EXPECT_EQ(m.lineCount(), 3u);
  EXPECT_EQ(m.offset({0, 0}), 0u);
  EXPECT_EQ(m.offset({1, 1}), 4u);
  EXPECT_EQ(m.offset({2, 2}), 9u);
  // Past the line's end: the line's end (before "\r\n"); past the last line: the text's end.
  EXPECT_EQ(m.offset({1, 99}), 5u);
  EXPECT_EQ(m.offset({7, 0}), 9u);
  EXPECT_EQ(m.position(4), (Position{1, 1}));
  EXPECT_EQ(m.position(9), (Position{2, 2}));
  EXPECT_EQ(m.position(100), (Position{2, 2}));
}

TEST(LspPositions, Utf16CodeUnits) {
  // "é" is 2 bytes and 1 unit; "→" 3 bytes, 1 unit; "𝛼" (U+1D6FC) 4 bytes, 2 units.
  std::string text = "// \xC3\xA9\xE2\x86\x92\xF0\x9D\x9B\xBC x\nA";
  LineMap m(text);
  EXPECT_EQ(m.offset({0, 3}), 3u);
  EXPECT_EQ(m.offset({0, 4}), 5u);  // after é
  EXPECT_EQ(m.offset({0, 5}), 8u);  // after →
  EXPECT_EQ(m.offset({0, 7}), 12u); // after the surrogate pair
  EXPECT_EQ(m.offset({0, 9}), 14u); // after " x"
  EXPECT_EQ(m.position(12), (Position{0, 7}));
  EXPECT_EQ(m.position(15), (Position{1, 0}));
  // A position inside a surrogate pair means the pair's end.
  EXPECT_EQ(m.offset({0, 6}), 12u);
}

TEST(LspPositions, InvalidUtf8CountsOneUnitPerByte) {
  std::string text = "a\xFF\xC3z";
  LineMap m(text);
  EXPECT_EQ(m.offset({0, 2}), 2u);
  EXPECT_EQ(m.offset({0, 3}), 3u);
  EXPECT_EQ(m.position(4), (Position{0, 4}));
}

TEST(LspPositions, RoundTripsEveryOffsetOfMixedText) {
  std::string text = "k\xC3\xA9y\n\xF0\x9D\x9B\xBC\r\n\n\xE2\x86\x92z";
  LineMap m(text);
  for (uint32_t o = 0; o <= text.size(); ++o) {
    // Offsets inside a multi-byte sequence are not positions; skip them.
    if (o < text.size() && (static_cast<unsigned char>(text[o]) & 0xC0) == 0x80)
      continue;
    if (o > 0 && o < text.size() && text[o - 1] == '\r')
      continue; // between '\r' and '\n': the line's end, which is before the '\r'
    EXPECT_EQ(m.offset(m.position(o)), o) << "offset " << o;
  }
}

TEST(LspDocuments, IncrementalChangesApplyInOrder) {
  DocumentStore store;
  store.open({"file:///t/a.isam", "/t/a.isam", "isam", 1, "kernel k\n"});
  ASSERT_TRUE(store.change("file:///t/a.isam", 7,
                           {{std::pair{Position{0, 7}, Position{0, 8}}, "abc"},
                            {std::pair{Position{1, 0}, Position{1, 0}}, "// \xF0\x9D\x9B\xBC\n"},
                            {std::pair{Position{1, 5}, Position{1, 5}}, "!"}}));
  auto d = store.get("file:///t/a.isam");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->version, 7);
  EXPECT_EQ(d->text, "kernel abc\n// \xF0\x9D\x9B\xBC!\n");
  ASSERT_TRUE(store.change("file:///t/a.isam", 42, {{std::nullopt, "whole"}}));
  EXPECT_EQ(store.get("file:///t/a.isam")->text, "whole");
  EXPECT_FALSE(store.change("file:///t/other.isam", 2, {{std::nullopt, "x"}}));
  store.close("file:///t/a.isam");
  EXPECT_FALSE(store.get("file:///t/a.isam"));
}

TEST(LspDocuments, OverlaysOnlyForFileUris) {
  DocumentStore store;
  store.open({"file:///t/a.isam", "/t/a.isam", "isam", 1, "A"});
  store.open({"untitled:Untitled-1", "untitled:Untitled-1", "isam", 1, "B"});
  auto overlays = store.overlays();
  EXPECT_EQ(overlays.size(), 1u);
  EXPECT_EQ(overlays.begin()->second, "A");
}

TEST(LspUri, FileUrisAndBack) {
  EXPECT_EQ(uriToPath("file:///home/u/a%20b/%C3%A9.isam"), "/home/u/a b/\xC3\xA9.isam");
  EXPECT_EQ(uriToPath("FILE://localhost/x.isam"), "/x.isam");
  EXPECT_FALSE(uriToPath("untitled:Untitled-1"));
  EXPECT_FALSE(uriToPath("file://server/share/x.isam"));
  EXPECT_EQ(pathToUri("/home/u/a b/\xC3\xA9.isam"), "file:///home/u/a%20b/%C3%A9.isam");
  EXPECT_EQ(uriToPath(pathToUri("/a/#b?c%")), "/a/#b?c%");
}

TEST(LspSettings, ReadsKnownFieldsAndNamesWrongOnes) {
  Settings s;
  std::vector<std::string> problems;
  readSettings({{"target", "x86_avx2"},
                {"debounceMs", 10},
                {"includeDirs", {"/a", 3}},
                {"mappingDiagnostics", false},
                {"tuningDb", "tuning.json"},
                {"unknown", 1}},
               s, problems);
  EXPECT_EQ(s.target, "x86_avx2");
  EXPECT_EQ(s.tuningDb, "tuning.json");
  EXPECT_EQ(s.debounceMs, 10);
  EXPECT_FALSE(s.mappingDiagnostics);
  EXPECT_TRUE(s.includeDirs.empty());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("includeDirs"), std::string::npos);
  readSettings("nonsense", s, problems);
  EXPECT_EQ(problems.size(), 2u);
  readSettings(nullptr, s, problems);
  EXPECT_EQ(problems.size(), 2u);
  readSettings({{"tuningDb", 7}}, s, problems);
  EXPECT_EQ(problems.size(), 3u);
  EXPECT_EQ(s.tuningDb, "tuning.json");
}
