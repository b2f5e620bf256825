// The token list (syntax/Tokens.h) and the formatter (format/Formatter.h): the shipped files are
// fixed points, formatting is idempotent and keeps every token, and mangled variants of the
// shipped files format back to the originals.
#include "format/Formatter.h"
#include "support/TestSupport.h"
#include "syntax/Tokens.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <random>

using namespace isam;
using syntax::Token;
using syntax::TokenKind;

namespace {

std::string formatted(std::string_view text) {
  std::string why;
  auto out = format::formatText(text, {}, &why);
  EXPECT_TRUE(out.has_value()) << why << "\n--- input ---\n" << text;
  return out.value_or("");
}

std::vector<std::string> shippedFiles() {
  std::vector<std::string> files;
  for (const char *dir : {"samples", "hwdesc"})
    for (const auto &entry : std::filesystem::directory_iterator(test::sourceDir() + "/" + dir))
      if (entry.path().extension() == ".isam")
        files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// Kinds and texts, `//` comments without trailing blanks (the formatter strips those).
std::vector<std::pair<TokenKind, std::string>> tokenTexts(std::string_view text) {
  std::vector<std::pair<TokenKind, std::string>> out;
  for (const Token &t : syntax::lex(text)) {
    std::string s(syntax::tokenText(text, t));
    if (t.kind == TokenKind::LineComment)
      s.erase(s.find_last_not_of(" \t\f") + 1);
    out.push_back({t.kind, s});
  }
  return out;
}

// Messy inputs: every one must format to a fixed point with the same tokens.
const char *kMessy[] = {
    "kernel   gemm<M,N,K>( A:f32[M,K],B :f32[ K , N ] )->( C:f32[M,N] ){\n\n\n"
    "  C[m,n]+=A[m,k]*B[k,n] ;   // sum\n"
    "T[i] = - A[i] * -(B[i]) where i in 0 .. N;\n      S max=exp( (A[i]-M)/sqrt(D) );\n\n\n}\n"
    "instance g=gemm< 7,5 , 13 >;\n",
    "target t{\n  clock 1 GHz ;\n memory DRAM{size 4 GiB;bandwidth 32 B / cycle;}\n"
    "  memory SPAD:DRAM { size 256 KiB; }\n   registers Z: L1 {count 32;}\n"
    "  instr mma(acc: inout f32[16,16] in ACC, a: f32[16, 16] in SPAD)\n  on array {\n"
    "    acc[i, j] += a[i, k];\n  } cost {latency 48;per_cycle 1 / 16;} asm \"matmul {acc}\"\n"
    "  move mv<R>(d: out f32[R] in A, s: f32[R] in B) { d[i] = s[i]; }\n  cost { latency 1; }\n"
    "  asm \"x\";\n}\n",
    "system soc { host t; device u; shared t.DRAM , u.DRAM; link t.DRAM->u.DRAM { bandwidth 16 "
    "GB/s; } }\n",
    "kernel foo(\nA: f32[M, K],\n    B: f32[K,\nN]\n) -> (C: f32[M, N])\n{\n"
    "  C[m, n] += A[m, k]\n          * B[k, n];   // aligned\n                       // more\n"
    "   C[m, n] += max(A[m, k],\n                  B[k, n]);\n     D[i] = A[i] +\n  B[i]\n"
    "  where i in 0..N;\n}\n",
    "kernel k(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i]  @ 3 \xc3\xa9+x;\n"
    "\tasm \"unterminated {a},b  ;\n  C[i]=A[i];\n /* block\n      inner   \n   */   D[i]=A[i] ;\n"
    "  x = y /* c */+z;\n}\n  // after\n\n/* never ends\n   a  =  b ;\n",
    "x = 1 . 5;\ny = a - > b;\nz = x . . y;\nw = a / / b;\nmax = 1;\nk<- >;\nq = ( - - a);\n",
    "}}}\n  ) ] > kernel ( ( ( [\n  <\n   a\n;\n{{{\nb\n",
    "\t\tkernel\tk<N>\t(A:\tf32[N])\f->\t(B: f32[N]) {\r\n\tB[i]\t=\tA[i];\t\r\n}\r\n",
    "a;\rb;\r\rc;\n",
    "/* only */ /* comments */ // here\n\n\n// and here\n",
    "A[i]=\xff\xfe B[i] \xe2\x86\x92"
    "C[i];// \xff\n\"\xc3\xa9\" ;\n",
};

} // namespace

// ---- lex --------------------------------------------------------------------------------------

TEST(Lex, KindsAndOffsets) {
  std::string text = "kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] max= 2.5e3; } // c\n"
                     "asm \"x {a}\"; /* b */ in @";
  std::vector<std::pair<TokenKind, std::string>> want = {
      {TokenKind::Keyword, "kernel"}, {TokenKind::Identifier, "k"},
      {TokenKind::Punctuation, "<"},  {TokenKind::Identifier, "N"},
      {TokenKind::Punctuation, ">"},  {TokenKind::Punctuation, "("},
      {TokenKind::Identifier, "A"},   {TokenKind::Punctuation, ":"},
      {TokenKind::Identifier, "f32"}, {TokenKind::Punctuation, "["},
      {TokenKind::Identifier, "N"},   {TokenKind::Punctuation, "]"},
      {TokenKind::Punctuation, ")"},  {TokenKind::Punctuation, "->"},
      {TokenKind::Punctuation, "("},  {TokenKind::Identifier, "B"},
      {TokenKind::Punctuation, ":"},  {TokenKind::Identifier, "f32"},
      {TokenKind::Punctuation, "["},  {TokenKind::Identifier, "N"},
      {TokenKind::Punctuation, "]"},  {TokenKind::Punctuation, ")"},
      {TokenKind::Punctuation, "{"},  {TokenKind::Identifier, "B"},
      {TokenKind::Punctuation, "["},  {TokenKind::Identifier, "i"},
      {TokenKind::Punctuation, "]"},  {TokenKind::Punctuation, "max="},
      {TokenKind::Number, "2.5e3"},   {TokenKind::Punctuation, ";"},
      {TokenKind::Punctuation, "}"},  {TokenKind::LineComment, "// c"},
      {TokenKind::Keyword, "asm"},    {TokenKind::String, "\"x {a}\""},
      {TokenKind::Punctuation, ";"},  {TokenKind::BlockComment, "/* b */"},
      {TokenKind::Keyword, "in"},     {TokenKind::Unexpected, "@"},
  };
  EXPECT_EQ(tokenTexts(text), want);
  auto tokens = syntax::lex(text);
  ASSERT_FALSE(tokens.empty());
  EXPECT_EQ(tokens[0].begin, 0u);
  EXPECT_EQ(tokens[0].end, 6u);
  EXPECT_EQ(tokens.back().begin, uint32_t(text.size() - 1));
}

TEST(Lex, OffsetsAreBytesOfTheOriginalText) {
  // "é" is 2 bytes and "→" 3 in UTF-8; the parser sees each byte as one ASCII stand-in.
  std::string text = "// caf\xc3\xa9 \xe2\x86\x92 x\nA[i] = \"\xe2\x86\x92\"; /* \xc3\xa9 */ B";
  auto tokens = syntax::lex(text);
  ASSERT_EQ(tokens.size(), 10u);
  EXPECT_EQ(tokens[0].kind, TokenKind::LineComment);
  EXPECT_EQ(syntax::tokenText(text, tokens[0]), "// caf\xc3\xa9 \xe2\x86\x92 x");
  EXPECT_EQ(tokens[0].end, 14u);
  EXPECT_EQ(tokens[1].begin, 15u); // A
  EXPECT_EQ(tokens[6].kind, TokenKind::String);
  EXPECT_EQ(syntax::tokenText(text, tokens[6]), "\"\xe2\x86\x92\"");
  EXPECT_EQ(tokens[6].begin, 22u);
  EXPECT_EQ(tokens[6].end, 27u);
  EXPECT_EQ(tokens[8].kind, TokenKind::BlockComment);
  EXPECT_EQ(syntax::tokenText(text, tokens[8]), "/* \xc3\xa9 */");
  EXPECT_EQ(tokens[9].begin, uint32_t(text.size() - 1));
  EXPECT_EQ(syntax::tokenText(text, tokens[9]), "B");
}

TEST(Lex, NonAsciiCodeIsOneUnexpectedTokenPerCharacter) {
  // "→" outside a comment, an invalid byte, a NUL byte.
  std::string text = std::string("a \xe2\x86\x92 b \xff c ") + '\0' + " d";
  auto tokens = syntax::lex(text);
  ASSERT_EQ(tokens.size(), 7u);
  EXPECT_EQ(tokens[1].kind, TokenKind::Unexpected);
  EXPECT_EQ(syntax::tokenText(text, tokens[1]), "\xe2\x86\x92");
  EXPECT_EQ(tokens[3].kind, TokenKind::Unexpected);
  EXPECT_EQ(tokens[3].end - tokens[3].begin, 1u);
  EXPECT_EQ(tokens[5].kind, TokenKind::Unexpected);
  EXPECT_EQ(syntax::tokenText(text, tokens[5]), std::string(1, '\0'));
  EXPECT_EQ(syntax::tokenText(text, tokens[6]), "d");
  // Two characters next to each other are two tokens.
  std::string two = "\xc3\xa9\xc3\xa9";
  EXPECT_EQ(syntax::lex(two).size(), 2u);
}

TEST(Lex, UnterminatedStringAndComment) {
  std::string text = "asm \"abc;\nx /* open";
  std::vector<std::pair<TokenKind, std::string>> want = {
      {TokenKind::Keyword, "asm"},    {TokenKind::Unexpected, "\""},
      {TokenKind::Identifier, "abc"}, {TokenKind::Punctuation, ";"},
      {TokenKind::Identifier, "x"},   {TokenKind::Punctuation, "/"},
      {TokenKind::Punctuation, "*"},  {TokenKind::Identifier, "open"},
  };
  EXPECT_EQ(tokenTexts(text), want);
  EXPECT_TRUE(syntax::lex("").empty());
  EXPECT_TRUE(syntax::lex(" \t\r\n\f").empty());
}

TEST(Lex, CoversEveryByteAndAgreesWithTheParser) {
  for (const auto &path : shippedFiles()) {
    std::string text = test::readFile(path);
    auto tokens = syntax::lex(text);
    uint32_t pos = 0;
    for (const Token &t : tokens) {
      ASSERT_LE(pos, t.begin) << path;
      ASSERT_LT(t.begin, t.end) << path;
      for (uint32_t i = pos; i < t.begin; ++i)
        ASSERT_NE(std::string(" \t\r\n\f").find(text[i]), std::string::npos) << path << " @" << i;
      pos = t.end;
    }
    // The comments are the ones the parser collects.
    auto session = test::analyse(text);
    std::vector<std::pair<uint32_t, uint32_t>> fromParser, fromLex;
    for (const auto &c : session->mainFile()->comments)
      fromParser.push_back({c.range.begin, c.range.end});
    for (const Token &t : tokens)
      if (t.kind == TokenKind::LineComment || t.kind == TokenKind::BlockComment)
        fromLex.push_back({t.begin, t.end});
    EXPECT_EQ(fromLex, fromParser) << path;
  }
}

// ---- the formatter -----------------------------------------------------------------------------

TEST(Formatter, ShippedFilesAreFixedPoints) {
  auto files = shippedFiles();
  EXPECT_GE(files.size(), 10u);
  for (const auto &path : files) {
    std::string text = test::readFile(path);
    EXPECT_EQ(formatted(text), text) << path;
  }
}

TEST(Formatter, CanonicalSpacing) {
  std::pair<const char *, const char *> cases[] = {
      {"kernel gemm < M,N , K > ( A :f32 [M,K] , B: f32[K,N])->(C:f32[M,N]){\n}\n",
       "kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n}\n"},
      {"  C[ m,n ]+=A[m ,k]*B[k,n] ;\n", "C[m, n] += A[m, k] * B[k, n];\n"},
      {"O[n] max=I[2*h+r] where r in 0 .. 2 , s in 0..(N-1);\n",
       "O[n] max= I[2 * h + r] where r in 0..2, s in 0..(N - 1);\n"},
      {"S min=- A[i]*-(B[i])-- C[i];\n", "S min= -A[i] * -(B[i]) - -C[i];\n"},
      {"P[n]*=A[n,k]*-1;\n", "P[n] *= A[n, k] * -1;\n"},
      {"Y[i]=X[i]>0?X[i]:0.01*X[i];\n", "Y[i] = X[i] > 0 ? X[i] : 0.01 * X[i];\n"},
      {"Y[i]=X[i]<=-3||! (X[i]==2)&&X[i]!=L[i]?0:X[i]>=1?1:2;\n",
       "Y[i] = X[i] <= -3 || !(X[i] == 2) && X[i] != L[i] ? 0 : X[i] >= 1 ? 1 : 2;\n"},
      {"Y[i]=X[i]<N?X[i]:N where i in 0..N;\n", "Y[i] = X[i] < N ? X[i] : N where i in 0..N;\n"},
      {"E[i] = exp( ( S[i]-M ) / sqrt( D ) );\n", "E[i] = exp((S[i] - M) / sqrt(D));\n"},
      {"kernel k(I: f32[(H-R)/2+1]) -> (O: f32) {\n}\n",
       "kernel k(I: f32[(H - R) / 2 + 1]) -> (O: f32) {\n}\n"},
      {"instance g=gemm< 7,5 , 13 >;\n", "instance g = gemm<7, 5, 13>;\n"},
      {"target t{memory SPAD:DRAM{size 48 KiB;bandwidth 64 B / cycle;}}\n",
       "target t { memory SPAD : DRAM { size 48 KiB; bandwidth 64 B/cycle; } }\n"},
      {"target t {\n  per_cycle 1 / 16;\n  registers ZMM:L1 { count 32; }\n}\n",
       "target t {\n  per_cycle 1/16;\n  registers ZMM : L1 { count 32; }\n}\n"},
      {"target t {\n  instr d(a: f32[16] in Z) on fma { a[i] = a[i]/b[i]; } cost { per_cycle "
       "1 / 6; } asm \"v {a}\" ;\n}\n",
       "target t {\n  instr d(a: f32[16] in Z) on fma { a[i] = a[i] / b[i]; } cost { per_cycle "
       "1/6; } asm \"v {a}\";\n}\n"},
      {"kernel k() -> () {\n  C[i] += A[i];\n  schedule { tile L1 : n 64 , m 6; parallel : m; "
       "}\n}\n",
       "kernel k() -> () {\n  C[i] += A[i];\n  schedule { tile L1: n 64, m 6; parallel: m; }\n}\n"},
      {"system s { shared a . DRAM , b.DRAM; link a.DRAM->b.DRAM { bandwidth 16 GB / s; } }\n",
       "system s { shared a.DRAM, b.DRAM; link a.DRAM -> b.DRAM { bandwidth 16 GB/s; } }\n"},
      {"import  \"x86_avx512.isam\" ;\n", "import \"x86_avx512.isam\";\n"},
      {"memory M { }\n", "memory M {}\n"},
  };
  for (auto [in, want] : cases)
    EXPECT_EQ(formatted(in), want) << in;
}

TEST(Formatter, IndentationAndContinuations) {
  // Brace nesting; a continuation gets twice the indentation past its statement's line, or past
  // the line of its unclosed bracket; closing brackets and an Allman brace go back.
  EXPECT_EQ(formatted("kernel k(\nA: f32[M,\nK],\n        B: f32\n) -> (C: f32)\n{\n"
                      "C[i] = A[i] +\nB[i]\n   where i in 0..N;\n}\n"),
            "kernel k(\n    A: f32[M,\n        K],\n    B: f32\n) -> (C: f32)\n{\n"
            "  C[i] = A[i] +\n      B[i]\n      where i in 0..N;\n}\n");
  // Alignment with the token after an unclosed bracket, or with a token of the line above, is
  // kept (and follows the token when spacing moves it).
  EXPECT_EQ(formatted("kernel g<B,I>(X: f32[B, I],\n              Hp: f32[B]) -> (H: f32) {\n"
                      "  C[m] += A[m]\n       * B[m];\n}\n"),
            "kernel g<B, I>(X: f32[B, I],\n               Hp: f32[B]) -> (H: f32) {\n"
            "  C[m] += A[m]\n       * B[m];\n}\n");
  EXPECT_EQ(formatted("target x {\n  llvm triple \"t\" cpu \"c\"\n       features \"+f\";\n"
                      "  llvm triple \"t\"\n features \"+f\";\n}\n"),
            "target x {\n  llvm triple \"t\" cpu \"c\"\n       features \"+f\";\n"
            "  llvm triple \"t\"\n      features \"+f\";\n}\n");
  // `cost` and `asm` after an instruction's block continue its declaration; a declaration
  // keyword starts a new one even after a missing ';'.
  EXPECT_EQ(formatted("target t {\nmove m(d: out f32 in A) { d = s; }\ncost { latency 1; }\n"
                      "asm \"m\"\ninstr i(d: out f32 in A)\non u {\nd = s;\n}\n}\n"),
            "target t {\n  move m(d: out f32 in A) { d = s; }\n      cost { latency 1; }\n"
            "      asm \"m\"\n  instr i(d: out f32 in A)\n      on u {\n    d = s;\n  }\n}\n");
  format::FormatOptions four;
  four.indentWidth = 4;
  EXPECT_EQ(format::formatText("kernel k() -> () {\nA[i] = B[i]\n+ C[i];\n}\n", four),
            "kernel k() -> () {\n    A[i] = B[i]\n            + C[i];\n}\n");
}

TEST(Formatter, BlankLinesAndLineEnds) {
  EXPECT_EQ(formatted("\n\n// a\n\n\n\nkernel k() -> () {\n\n\n  A[i] = 1;\n\n\n  B[i] = 2;\n\n}"
                      "\n\n\ninstance i = k<>;   \t\n\n\n"),
            "// a\n\nkernel k() -> () {\n  A[i] = 1;\n\n  B[i] = 2;\n}\n\ninstance i = k<>;\n");
  // CRLF stays CRLF (a lone CR becomes one too); anything else becomes LF.
  EXPECT_EQ(formatted("a = b;\r\n\r\n\r\nc = d;  \r\ne = f;\rg = h;"),
            "a = b;\r\n\r\nc = d;\r\ne = f;\r\ng = h;\r\n");
  EXPECT_EQ(formatted("a = b;\nc = d;\r\ne = f;\r"), "a = b;\nc = d;\ne = f;\n");
}

TEST(Formatter, EmptyAndWhitespaceOnly) {
  EXPECT_EQ(formatted(""), "");
  EXPECT_EQ(formatted(" \n\t\n\r\n\f"), "");
  EXPECT_EQ(formatted("// x"), "// x\n");
  EXPECT_EQ(formatted("x"), "x\n");
}

TEST(Formatter, CommentsKeepTheirTextAndPlace) {
  // The gap before a trailing comment is kept, so aligned comments stay aligned even when the
  // code before them moves; a comment line aligned with a trailing comment stays with it.
  EXPECT_EQ(formatted("target t {\n  unit fma {count 2;}   // FP0\n  unit fadd { count 2; }    // "
                      "FP2\n                            // and FP3\n}\n"),
            "target t {\n  unit fma { count 2; }   // FP0\n  unit fadd { count 2; }    // FP2\n"
            "                            // and FP3\n}\n");
  // Comment lines are indented like the code around them; trailing blanks of `//` go.
  EXPECT_EQ(formatted("kernel k() -> () {\n// one   \n      /* two */\nA[i] = 1;//three\n    }\n"),
            "kernel k() -> () {\n  // one\n  /* two */\n  A[i] = 1; //three\n}\n");
  // A block comment's lines after the first are untouched, whitespace included.
  EXPECT_EQ(formatted("kernel k() -> () {\n/* a  \n      b   \n  */   A[i]=1;\n}\n"),
            "kernel k() -> () {\n  /* a  \n      b   \n  */   A[i] = 1;\n}\n");
  // Inline block comments keep the whitespace around them.
  EXPECT_EQ(formatted("A[i]  =  B[/*row*/i] /* x */+  C[i];\n"),
            "A[i] = B[/*row*/i] /* x */+ C[i];\n");
}

TEST(Formatter, SyntaxErrorsAndUnreadableText) {
  // A missing ';' makes the next line a continuation; unbalanced brackets do not spread past the
  // statement; stray closers do not break the indentation.
  EXPECT_EQ(formatted("kernel k() -> () {\nA[i] = 1\nB[i] = (2;\nC[i] = 3;\n}\n}\nx;\n"),
            "kernel k() -> () {\n  A[i] = 1\n      B[i] = (2;\n  C[i] = 3;\n}\n}\nx;\n");
  // A declaration keyword starting a line starts a declaration, even after a missing ';'; one
  // in the middle of a line does not.
  EXPECT_EQ(formatted("target t {\nclock 1 GHz\nmemory M { size 1 B; }\nfoo shared\nbar;\n}\n"),
            "target t {\n  clock 1 GHz\n  memory M { size 1 B; }\n  foo shared\n      bar;\n}\n");
  // The whitespace around unexpected characters is kept.
  EXPECT_EQ(formatted("A[i]  =  B[i]  @@ $ C[i]  \xc3\xa9;\n"),
            "A[i] = B[i]  @@ $ C[i]  \xc3\xa9;\n");
  // After an unterminated string, the rest of the line is as written.
  EXPECT_EQ(formatted("  asm  \"mv {a},  {b}  ;\nx=1;\n"), "asm  \"mv {a},  {b}  ;\n    x = 1;\n");
  // After an unterminated block comment, everything is as written.
  EXPECT_EQ(formatted("a=1;\n   b  =  2; /*  open\n   c  =  {  3 ;\n\n\n  }\n"),
            "a = 1;\nb = 2; /*  open\n   c  =  {  3 ;\n\n  }\n");
}

TEST(Formatter, NeverJoinsTokens) {
  // Spacing rules that would glue tokens into others give way.
  EXPECT_EQ(formatted("x = 1 . 5;\ny = a - > b;\nmax = 1;\nk< - >;\nq = ( - - a);\n"),
            "x = 1 .5;\ny = a - > b;\nmax = 1;\nk<- >;\nq = (- -a);\n");
}

TEST(Formatter, MessyInputsKeepTokensAndAreIdempotent) {
  for (const char *in : kMessy) {
    std::string once = formatted(in);
    EXPECT_EQ(tokenTexts(once), tokenTexts(in)) << in;
    EXPECT_EQ(formatted(once), once) << in;
    EXPECT_TRUE(once.empty() || once.back() == '\n');
    if (std::string_view(in).find("/*") == std::string_view::npos) { // inside is untouched
      EXPECT_EQ(once.find(" \n"), std::string::npos) << once;
    }
  }
}

// Random token soup: the formatter must never fail, lose a token or need a second pass.
TEST(Formatter, RandomTokenSoup) {
  const char *pieces[] = {
      "kernel", "target",  "memory", "instr",    "cost", "asm",  "in",   "x",     "max",
      "min",    "1",       "2.5",    "e5",       "=",    "+=",   "max=", "-",     ">",
      "->",     "<",       ".",      "..",       "/",    "*",    "+",    "(",     ")",
      "[",      "]",       "{",      "}",        ",",    ":",    ";",    "\"s\"", "\"",
      "// c",   "/* b */", "@",      "\xc3\xa9", "\n",   "\n\n", " ",    "\t",    ""};
  std::mt19937 rng(7);
  std::uniform_int_distribution<size_t> pick(0, std::size(pieces) - 1);
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (int i = 0; i < 60; ++i) {
      text += pieces[pick(rng)];
      if (rng() % 3 == 0)
        text += ' ';
      if (text.size() >= 4 && text.compare(text.size() - 4, 4, "// c") == 0)
        text += '\n';
    }
    std::string once = formatted(text);
    EXPECT_EQ(tokenTexts(once), tokenTexts(text)) << text;
    EXPECT_EQ(formatted(once), once) << text;
  }
}

// Random bytes, heavy in what makes lexing delicate (quotes, backslashes, slashes, stars, line
// breaks of every kind, non-ASCII and invalid bytes).
TEST(Formatter, RandomBytes) {
  const std::string alphabet =
      std::string("ab1 .-/*\"\\\\\r\n\n\t\f{}()[]<>=+;:,") + '\0' + "\xff\xc3\xa9\x7f";
  std::mt19937 rng(11);
  for (int round = 0; round < 5000; ++round) {
    std::string text;
    for (size_t i = 0, n = rng() % 80; i < n; ++i)
      text += alphabet[rng() % alphabet.size()];
    std::string once = formatted(text);
    EXPECT_EQ(tokenTexts(once), tokenTexts(text)) << text;
    EXPECT_EQ(formatted(once), once) << text;
  }
}

TEST(Formatter, BackslashesAndStringsOverLines) {
  // The blanks after a backslash ending a line with an unterminated string are what keep the
  // string from going on over the line break (to the quote on the next line, itself then an
  // unterminated string): one stays.
  EXPECT_EQ(formatted("x = \"a \\  \ny\" ;\n"), "x = \"a \\ \n    y\" ;\n");
  EXPECT_EQ(formatted("x = \"a // b\\  \ny\" ;\n"), "x = \"a // b\\ \n    y\" ;\n");
  // Without a string, a backslash is just an unexpected character.
  EXPECT_EQ(formatted("x = a \\  \ny;\n"), "x = a \\\n    y;\n");
  // A string may hold an escaped line break; its line breaks are its own and do not decide
  // between LF and CRLF.
  EXPECT_EQ(formatted("asm \"a\\\rb\"  ;\r\nx=1;\n"), "asm \"a\\\rb\";\r\nx = 1;\r\n");
}

TEST(Formatter, HostileInputStaysBounded) {
  // A '{' or '(' on each of many lines: indentation stops growing, so the output stays linear in
  // the input; a very long line with deep brackets is fine too.
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += i % 2 ? "{\n" : "(\n";
  std::string once = formatted(text);
  EXPECT_LT(once.size(), text.size() * 120);
  EXPECT_EQ(formatted(once), once);
  std::string line = "x = " + std::string(100000, '[') + "a" + std::string(100000, ')') + ";\n";
  EXPECT_EQ(formatted(line), line);
}

namespace {

// Whether the lexer reads `a` then `b`, written together, as those two tokens again.
bool staysApart(std::string_view a, std::string_view b) {
  std::string joined = std::string(a) + std::string(b);
  auto tokens = syntax::lex(joined);
  return tokens.size() == 2 && tokens[0].end == a.size();
}

bool isBoundary(std::string_view t) {
  return t == ";" || t == "{" || t == "}";
}

// A variant of a formatted text with whitespace changed where the formatter restores it:
// spacing between tokens on a line, indentation of lines that start a statement, extra blank
// lines where one already is (or where they are dropped), trailing whitespace, and blank lines
// at both ends. Left alone: the whitespace next to comments (kept as written), continuation
// lines and the lines before them (a continuation stays aligned with what it was aligned with,
// and a random change there could make it look aligned with something else).
std::string mangle(const std::string &text, std::mt19937 &rng) {
  auto tokens = syntax::lex(text);
  size_t n = tokens.size();
  auto txt = [&](size_t i) { return syntax::tokenText(text, tokens[i]); };
  auto isComment = [&](size_t i) {
    return tokens[i].kind == TokenKind::LineComment || tokens[i].kind == TokenKind::BlockComment;
  };
  auto breaksBefore = [&](size_t i) {
    size_t from = i == 0 ? 0 : tokens[i - 1].end;
    return std::count(text.begin() + from, text.begin() + tokens[i].begin, '\n');
  };
  // Lines that continue a statement (conservatively) and lines followed by one.
  std::vector<bool> continuation(n, false);
  std::string_view lastSignificant = ";";
  for (size_t i = 0; i < n; ++i) {
    if (breaksBefore(i) > 0 || i == 0)
      continuation[i] = !isBoundary(lastSignificant) || isComment(i);
    else
      continuation[i] = continuation[i - 1];
    if (!isComment(i))
      lastSignificant = txt(i);
  }
  std::vector<bool> protectedLine = continuation;
  for (size_t i = n; i-- > 1;)
    if (breaksBefore(i) > 0 ? continuation[i] : protectedLine[i])
      protectedLine[i - 1] = true;
  auto pickOf = [&](std::initializer_list<const char *> options) {
    return std::string(*(options.begin() + rng() % options.size()));
  };
  std::string out = pickOf({"", "\n", "\n\n\n", "  \n"});
  for (size_t i = 0; i < n; ++i) {
    size_t from = i == 0 ? 0 : tokens[i - 1].end;
    std::string gap = text.substr(from, tokens[i].begin - from);
    size_t breaks = breaksBefore(i);
    if (breaks > 0) {
      std::string trailing = pickOf({"", " ", "\t", "   "});
      size_t blank = breaks - 1;
      bool dropped = i > 0 && (txt(i - 1) == "{" || txt(i) == "}");
      if (blank > 0 || dropped)
        blank += rng() % 3;
      std::string indent = gap.substr(gap.rfind('\n') + 1);
      if (!protectedLine[i])
        indent = pickOf({"", " ", "  ", "    ", "\t", "  \t", "         "});
      out += trailing + std::string(blank + 1, '\n') + indent;
    } else if (i > 0 && !isComment(i) && !isComment(i - 1) && !protectedLine[i]) {
      std::string space = pickOf({"", " ", "  ", "\t", " \t "});
      if (space.empty() && !staysApart(txt(i - 1), txt(i)))
        space = " ";
      out += space;
    } else {
      out += gap;
    }
    out += txt(i);
    if (tokens[i].kind == TokenKind::LineComment)
      out += pickOf({"", " ", "\t "});
  }
  out += pickOf({"", "\n", "  \n\n", "\n\n\n"});
  return out;
}

} // namespace

TEST(Formatter, MangledShippedFilesFormatBack) {
  std::mt19937 rng(2024);
  for (const auto &path : shippedFiles()) {
    std::string text = test::readFile(path);
    for (int variant = 0; variant < 12; ++variant) {
      std::string mangled = mangle(text, rng);
      ASSERT_EQ(tokenTexts(mangled), tokenTexts(text)) << path << " variant " << variant;
      std::string out = formatted(mangled);
      ASSERT_EQ(out, text) << path << " variant " << variant << "\n--- mangled ---\n" << mangled;
    }
  }
}

TEST(Formatter, CrlfShippedFilesStayCrlf) {
  for (const auto &path : shippedFiles()) {
    std::string text = test::readFile(path), crlf;
    for (char c : text)
      crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    EXPECT_EQ(formatted(crlf), crlf) << path;
  }
}
