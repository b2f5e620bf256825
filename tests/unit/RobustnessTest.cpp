// Bad input of any kind gives diagnostics, never a crash or a hang.
#include "support/TestSupport.h"
#include "syntax/Parser.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <random>

using namespace isam;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> shippedFiles() {
  std::vector<std::string> out;
  for (const char *dir : {"samples", "hwdesc"})
    if (fs::is_directory(test::sourceDir() + "/" + dir))
      for (const auto &e : fs::directory_iterator(test::sourceDir() + "/" + dir))
        if (e.path().extension() == ".isam")
          out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

TEST(Robustness, RandomBytes) {
  std::mt19937 rng(42);
  for (int round = 0; round < 300; ++round) {
    std::string text(rng() % 400, '\0');
    for (auto &c : text)
      c = char(rng() % 256);
    auto s = test::analyse(text);
    (void)s;
  }
}

TEST(Robustness, RandomTokens) {
  const char *pieces[] = {
      "kernel", "instance", "target", "memory", "instr",  "move",  "system", "(",   ")",
      "[",      "]",        "{",      "}",      "<",      ">",     ",",      ":",   ";",
      "=",      "+=",       "max=",   "->",     "..",     "*",     "+",      "-",   "/",
      "f32",    "A",        "i",      "16",     "2.5",    "where", "in",     "out", "inout",
      "\"s\"",  "cost",     "asm",    "GiB",    "import", "*=",    "?",      "<=",  "==",
      "!=",     "&&",       "||",     "!",      "pad",    "inf",   "%"};
  std::mt19937 rng(7);
  for (int round = 0; round < 500; ++round) {
    std::string text;
    for (int n = rng() % 60; n > 0; --n)
      text += std::string(pieces[rng() % std::size(pieces)]) + " ";
    auto s = test::analyse(text);
    (void)s;
  }
}

TEST(Robustness, TruncatedAndShuffledShippedFiles) {
  std::mt19937 rng(3);
  for (const auto &path : shippedFiles()) {
    std::string text = test::readFile(path);
    for (size_t cut = 0; cut < text.size(); cut += std::max<size_t>(1, text.size() / 23)) {
      auto s = test::analyse(text.substr(0, cut));
      (void)s;
    }
    std::vector<std::string> lines;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i)
      if (i == text.size() || text[i] == '\n') {
        lines.push_back(text.substr(start, i - start));
        start = i + 1;
      }
    for (int round = 0; round < 5; ++round) {
      std::shuffle(lines.begin(), lines.end(), rng);
      std::string shuffled;
      for (const auto &l : lines)
        shuffled += l + "\n";
      auto s = test::analyse(shuffled);
      (void)s;
    }
  }
}

TEST(Robustness, DeepNestingIsRejectedNotRecursed) {
  std::string text = "kernel k(A: f32[4]) -> (B: f32[4]) { B[i] = " + std::string(100000, '(') +
                     "A[i]" + std::string(100000, ')') + "; }";
  auto s = test::analyse(text);
  EXPECT_EQ(test::withCode(*s, "E0103").size(), 1u);
  std::string minus =
      "kernel k(A: f32[4]) -> (B: f32[4]) { B[i] = " + std::string(100000, '-') + "A[i]; }";
  auto m = test::analyse(minus);
  EXPECT_EQ(test::withCode(*m, "E0103").size(), 1u);
}

TEST(Robustness, LongStatementIsRejected) {
  std::string sum = "A[i]";
  for (int i = 0; i < 20000; ++i)
    sum += " + A[i]";
  auto s = test::analyse("kernel k(A: f32[4]) -> (B: f32[4]) { B[i] = " + sum + "; }");
  EXPECT_EQ(test::withCode(*s, "E0104").size(), 1u);
}

TEST(Robustness, HugeLiterals) {
  auto s = test::analyse(R"(
kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i] * 1e999999 + 99999999999999999999999999; }
instance a = k<99999999999999999999999999999>;
instance b = k<1099511627776000>;
target t { clock 1e400 GHz; memory M { size 99999999999999999999999 GiB; } }
)");
  EXPECT_TRUE(s->diagnostics().hasErrors());
  EXPECT_GE(test::withCode(*s, "E0302").size(), 1u);
}

TEST(Robustness, InvalidUtf8IsReportedOnce) {
  std::string text = "kernel k(A: f32[4]) -> (B: f32[4]) { B[i] = A[i]; } // \xff\xfe\n"
                     "instance x\xc3 = k;";
  auto s = test::analyse(text);
  EXPECT_EQ(test::withCode(*s, "E0102").size(), 1u);
  EXPECT_TRUE(s->diagnostics().hasErrors());
}

TEST(Robustness, NonAsciiInCommentsAndStringsIsFine) {
  auto s =
      test::analyse("// größe: ½ 🚀\nkernel k(A: f32[4]) -> (B: f32[4]) { B[i] = A[i]; /* é */ }\n");
  EXPECT_FALSE(s->diagnostics().hasErrors());
}

TEST(Robustness, NulBytes) {
  auto s = test::analyse(std::string("kernel k(A: f32[4]) -> (B: f32[4]) {\0 B[i] = A[i]; }", 48));
  EXPECT_TRUE(s->diagnostics().hasErrors());
}

// A syntax error at a token of tens of thousands of bytes: the syntax-error listener took
// ANTLR's message apart with std::regex, which recursed once per character and overflowed the
// stack (SIGSEGV). Every message quotes a bounded prefix of such a token.
TEST(Robustness, SyntaxErrorAtAVeryLongToken) {
  std::string big(200000, 'x');
  for (const std::string &text :
       {"kernel k(A: f32[4]) -> (B: f32[4]) { B[i] = A[i] " + big + "; }",       // mismatched
        "kernel k(A: f32[4]) -> (B: f32[4]) { B[i] = A[i]; }\n\"" + big + "\";", // a string
        "kernel k(A: f32[4]) -> (B: f32[4]) { B[i] = A[i] " + std::string(200000, '7') + "; }",
        "kernel " + big + "(A: f32[4]) -> (B: f32[4]) { B[i] = A[i] }\ninstance " + big + " = "}) {
    auto s = test::analyse(text);
    EXPECT_TRUE(s->diagnostics().hasErrors());
    for (const auto &d : s->diagnostics().all()) {
      EXPECT_LT(d.message.size(), 400u) << d.message.substr(0, 400);
      for (const auto &n : d.notes)
        EXPECT_LT(n.message.size(), 400u);
    }
  }
}

// Names that parse but are unknown reach sema's messages (and its "did you mean" search, which
// is quadratic in the name's length): both stay bounded.
TEST(Robustness, VeryLongNamesInSemanticMessages) {
  std::string big(100000, 'q');
  auto s = test::analyse("kernel " + big + "<N>(A: f32[N]) -> (B: f32[N]) { B[i] = " + big +
                         "y[i]; }\ninstance x = " + big + "z<4>;\n");
  ASSERT_TRUE(s->diagnostics().hasErrors());
  for (const auto &d : s->diagnostics().all()) {
    EXPECT_LT(d.message.size(), 400u) << d.message.substr(0, 400);
    EXPECT_NE(d.message.find("...'"), std::string::npos) << d.message.substr(0, 400);
  }
}

TEST(Robustness, BoundQuotedSpans) {
  std::string big(1000, 'a');
  EXPECT_EQ(boundQuotedSpans("unknown kernel '" + big + "'; did you mean 'k'?", 10),
            "unknown kernel 'aaaaaaa...'; did you mean 'k'?");
  // Apostrophes in words are not quotes; short spans are kept whole.
  std::string prose = "the statement's value is 'f32' but the instruction's is '" + big + "'";
  EXPECT_EQ(boundQuotedSpans(prose, 10),
            "the statement's value is 'f32' but the instruction's is 'aaaaaaa...'");
  EXPECT_EQ(boundQuotedSpans("'a' and 'b'", 10), "'a' and 'b'");
  EXPECT_EQ(boundQuotedSpans("an unclosed 'quote " + big, 10), "an unclosed 'quote " + big);
  // A cut never splits a UTF-8 character.
  EXPECT_EQ(boundedText("ab\xc3\xa9\xc3\xa9x", 6), "ab...");
}

TEST(Robustness, ASessionWithNoFileAsksForATargetWithoutCrashing) {
  // A library caller (a benchmark) may ask before loading anything: shipped descriptions are
  // found relative to the main file, so there is none, and the answer is "unknown", not a crash.
  for (const char *name : {"x86_avx512", "host", "no_such_target"}) {
    Session session;
    EXPECT_FALSE(session.target(name)) << name;
    EXPECT_TRUE(session.diagnostics().hasErrors()) << name;
  }
}
