// The grammar's keywords come from one table (syntax::keywords, read from the generated lexer),
// which is exactly the grammar's word literals and agrees with how `lex` classifies words; the
// editor extension's TextMate grammar, which cannot read it, is checked against it.
#include "support/TestSupport.h"
#include "syntax/Tokens.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <string>
#include <vector>

using namespace isam;

namespace {

// The fixed-text lexer rules of grammar/Isam.g4 whose text is a word (`KERNEL : 'kernel' ;`),
// in the order written.
std::vector<std::string> grammarWords() {
  std::string g4 = test::readFile(test::sourceDir() + "/grammar/Isam.g4");
  std::vector<std::string> out;
  std::regex rule(R"(\n[A-Z_]+\s*:\s*'([A-Za-z]+)'\s*;)");
  for (auto it = std::sregex_iterator(g4.begin(), g4.end(), rule); it != std::sregex_iterator();
       ++it)
    out.push_back((*it)[1]);
  return out;
}

TEST(Keywords, AreTheGrammarsWordLiteralsInOrder) {
  std::vector<std::string> expected = grammarWords();
  ASSERT_GE(expected.size(), 20u) << "the grammar's keyword rules were not found";
  std::vector<std::string> actual(syntax::keywords().begin(), syntax::keywords().end());
  EXPECT_EQ(actual, expected);
}

TEST(Keywords, LexAsKeywordsAndNothingElseDoes) {
  for (std::string_view k : syntax::keywords()) {
    auto tokens = syntax::lex(k);
    ASSERT_EQ(tokens.size(), 1u) << k;
    EXPECT_EQ(tokens[0].kind, syntax::TokenKind::Keyword) << k;
    EXPECT_TRUE(syntax::isKeyword(k)) << k;
  }
  // Words the grammar leaves to sema: schedule items, element types, functions, units.
  for (std::string_view w : {"map", "tile", "order", "parallel", "f32", "max", "relu", "GiB"}) {
    auto tokens = syntax::lex(w);
    ASSERT_EQ(tokens.size(), 1u) << w;
    EXPECT_EQ(tokens[0].kind, syntax::TokenKind::Identifier) << w;
    EXPECT_FALSE(syntax::isKeyword(w)) << w;
  }
}

TEST(Keywords, TheEditorsTextMateGrammarHighlightsExactlyThem) {
  auto grammar = nlohmann::json::parse(
      test::readFile(test::sourceDir() + "/editor-extension/syntaxes/isam.tmLanguage.json"));
  std::set<std::string> highlighted;
  std::regex alternatives(R"(^\\b\(([a-z|]+)\)\\b$)");
  for (const auto &pattern : grammar["repository"]["keywords"]["patterns"]) {
    std::string match = pattern.at("match");
    std::smatch m;
    ASSERT_TRUE(std::regex_match(match, m, alternatives)) << match;
    std::string words = m[1];
    for (size_t b = 0, e; b <= words.size(); b = e + 1) {
      e = std::min(words.find('|', b), words.size());
      highlighted.insert(words.substr(b, e - b));
    }
  }
  std::set<std::string> expected(syntax::keywords().begin(), syntax::keywords().end());
  EXPECT_EQ(highlighted, expected);
}

} // namespace
