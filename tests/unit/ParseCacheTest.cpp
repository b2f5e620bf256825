// Incremental parsing (syntax/ParseCache): a session that reuses the parse of unchanged
// declarations sees exactly what a session that parses the whole file sees (diagnostics, the IR
// of every instance, every name's occurrence), on the shipped files and after edits of them.
#include "syntax/ParseCache.h"
#include "index/SymbolIndex.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

using namespace isam;
namespace fs = std::filesystem;

namespace {

// Everything a session derives from its parse, as text.
std::string observe(const std::string &text, std::shared_ptr<ParseCache> cache) {
  SessionOptions options;
  options.parseCache = std::move(cache);
  Session s(options);
  s.loadText("test.isam", text);
  s.checkAll();
  std::string out;
  for (const auto &d : s.diagnostics().all()) {
    out += renderDiagnostic(d, s.sources());
    for (const auto &f : d.fixits)
      out.append("fix ")
          .append(std::to_string(f.range.begin))
          .append("-")
          .append(std::to_string(f.range.end))
          .append(" ")
          .append(f.replacement)
          .append("\n");
  }
  for (const auto &k : s.instances({}))
    out += ir::printKernel(k);
  auto index = index::SymbolIndex::build(s.files());
  for (const auto &o : index.occurrences(s.mainFile()->id))
    out.append(std::to_string(o.range.begin))
        .append(":")
        .append(std::to_string(o.range.end))
        .append(":")
        .append(std::to_string(int(o.kind)))
        .append(o.isDeclaration ? "d " : " ");
  out += "\ncomments";
  for (const auto &c : s.mainFile()->comments)
    out.append(" ")
        .append(std::to_string(c.range.begin))
        .append("-")
        .append(std::to_string(c.range.end));
  return out;
}

std::vector<std::string> shippedTexts() {
  std::vector<std::string> out;
  for (const char *dir : {"samples", "hwdesc"})
    for (const auto &e : fs::directory_iterator(test::sourceDir() + "/" + dir))
      if (e.path().extension() == ".isam")
        out.push_back(test::readFile(e.path().string()));
  return out;
}

} // namespace

TEST(ParseCache, SplitsAtTopLevelDeclarations) {
  std::string text = "// a\nkernel k(A: f32[4]) -> (B: f32[4]) {\n  B[i] = A[i];\n}\n"
                     "instance x = k;\ntarget t { memory M { size 1 KiB; } }\n";
  auto parts = ParseCache::split(text);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(text.substr(parts[0].first, parts[0].second - parts[0].first),
            "// a\nkernel k(A: f32[4]) -> (B: f32[4]) {\n  B[i] = A[i];\n}");
  EXPECT_EQ(text.substr(parts[1].first, parts[1].second - parts[1].first), "\ninstance x = k;");
  EXPECT_EQ(parts.back().second, text.size());
}

TEST(ParseCache, ShippedFilesParseAsAWholeFileDoes) {
  auto cache = std::make_shared<ParseCache>();
  for (const auto &text : shippedTexts()) {
    std::string whole = observe(text, nullptr);
    EXPECT_EQ(observe(text, cache), whole);
    // Again: now every declaration comes from the cache.
    size_t parses = cache->parses();
    EXPECT_EQ(observe(text, cache), whole);
    EXPECT_EQ(cache->parses(), parses);
  }
  EXPECT_GT(cache->reuses(), 0u);
}

TEST(ParseCache, EditedFilesParseAsAWholeFileDoes) {
  // Random edits of the shipped files (insertions, deletions, stray braces and semicolons,
  // garbage), each compared with a whole-file parse, all through one cache.
  auto cache = std::make_shared<ParseCache>(64); // small: eviction is exercised too
  std::mt19937 rng(7);
  const std::vector<std::string> inserts = {"x",  " ", "\n",     "}", "{", ";",   "/*",
                                            "\"", "@", "kernel", "[", "(", "0..", "\xC3\xA9"};
  for (const auto &original : shippedTexts()) {
    std::string text = original;
    for (int edit = 0; edit < 12; ++edit) {
      size_t at = rng() % (text.size() + 1);
      if (rng() % 3 == 0 && at < text.size())
        text.erase(at, 1 + rng() % 8);
      else
        text.insert(at, inserts[rng() % inserts.size()]);
      // Without syntax errors, exactly the whole-file parse. With them, recovery differs (each
      // declaration is parsed alone, so an error never swallows the ones after it), and what
      // is checked is that reusing parses gives what parsing every declaration afresh gives.
      std::string whole = observe(text, nullptr);
      std::string reused = observe(text, cache);
      if (whole.find("error[E01") == std::string::npos)
        ASSERT_EQ(reused, whole) << "after edit " << edit << ":\n" << text;
      else
        ASSERT_EQ(reused, observe(text, std::make_shared<ParseCache>()))
            << "after edit " << edit << ":\n"
            << text;
    }
  }
  EXPECT_LE(cache->size(), 64u);
}
