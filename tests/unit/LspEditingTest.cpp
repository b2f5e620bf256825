// Inlay hints, folding ranges and formatting below the protocol, against marked-up sources.
#include "lsp/Editing.h"
#include "support/Annotations.h"
#include "support/LspTesting.h"

#include <gtest/gtest.h>

using namespace isam;
using namespace isam::lsp;
using isam::test::Annotations;

namespace {

const char *kTwoStatements =
    R"isam(kernel mix<C, H, F>(X: f32[C, H], P: f32[F, C]) -> (O: f32[F, H]) {
  $first[[T$shape^[c, h] = X[c, h] * 2;]]$domain^
  $second[[O[f, h] += P[f, c] * T[c, h];]]$domain^
}
instance mix_small = mix<3, 5, 7>;
)isam";

} // namespace

TEST(LspInlayHints, EachStatementsDomainAndTheShapeOfAnImplicitLocal) {
  Annotations t(kTwoStatements);
  auto a = test::analyseDocument(t.code());
  Range everything{{0, 0}, t.position(uint32_t(t.code().size()))};
  auto hints = inlayHints(*a, everything);
  ASSERT_EQ(hints.size(), 3u);

  EXPECT_EQ(hints[0].label, "mix_small: c < 3 h < 5");
  EXPECT_EQ(hints[0].position, t.points("domain")[0]);
  EXPECT_TRUE(hints[0].paddingLeft);
  EXPECT_FALSE(hints[0].kind);
  EXPECT_EQ(hints[0].tooltip, "the statement's index ranges, inferred for instance mix_small");

  EXPECT_EQ(hints[1].label, ": f32[3, 5]");
  EXPECT_EQ(hints[1].position, t.point("shape"));
  EXPECT_EQ(hints[1].kind, InlayHint::Kind::Type);

  EXPECT_EQ(hints[2].label, "mix_small: f < 7 h < 5 c \u03a3 < 3");
  EXPECT_EQ(hints[2].position, t.points("domain")[1]);

  // Only the statements the range touches.
  auto second = inlayHints(*a, t.range("second"));
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].label, hints[2].label);
}

TEST(LspInlayHints, NoneForAKernelWithoutInstance) {
  Annotations t("kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\n");
  auto a = test::analyseDocument(t.code());
  EXPECT_TRUE(inlayHints(*a, {{0, 0}, {3, 0}}).empty());
}

TEST(LspFoldingRanges, BlocksKeepTheirClosingLineAndCommentRunsFold) {
  Annotations t(R"isam(// one
// two
// three
kernel k<N>(A: f32[N]) -> (B: f32[N]) {
  B[i] = A[i];
  schedule {
    parallel: i;
  }
}
/* a block
   comment */
)isam");
  auto a = test::analyseDocument(t.code());
  std::vector<std::tuple<uint32_t, uint32_t, std::string>> folds;
  for (const auto &f : foldingRanges(*a))
    folds.push_back({f.startLine, f.endLine, f.kind});
  using F = std::tuple<uint32_t, uint32_t, std::string>;
  EXPECT_EQ(folds, (std::vector<F>{{3, 7, ""}, {5, 6, ""}, {0, 2, "comment"}, {9, 10, "comment"}}));
}

TEST(LspFormatting, OneEditForTheWholeTextOrNone) {
  std::string messy = "kernel   k<N>( A :f32[N] )->( B: f32[ N ] ){\nB[i]=A[i]   ;\n}\n";
  auto a = test::analyseDocument(messy);
  std::string why;
  auto edits = formatting(*a, {4, true}, &why);
  ASSERT_TRUE(edits) << why;
  ASSERT_EQ(edits->size(), 1u);
  EXPECT_EQ((*edits)[0].range, (Range{{0, 0}, {3, 0}}));
  EXPECT_EQ((*edits)[0].newText, "kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n    B[i] = A[i];\n}\n");
  // Tabs: the formatter's own indent.
  auto tabs = formatting(*a, {4, false}, &why);
  ASSERT_TRUE(tabs);
  EXPECT_EQ((*tabs)[0].newText, "kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\n");

  auto formatted = test::analyseDocument((*tabs)[0].newText, "formatted.isam");
  auto none = formatting(*formatted, {}, &why);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(LspSelectionRanges, FromTheWordOutToTheDocument) {
  Annotations t(R"isam($kernel[[kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  $statement[[C[m, n] += $word[[A^]][m, k] * B[k, n];]]
  $block[[schedule { map $map[[fm$in^a16]]; }]]
}]]
$instance[[instance g = gemm<4, 4, 4>;]]
)isam");
  auto a = test::analyseDocument(t.code());
  auto ranges = selectionRanges(*a, {t.point(), t.point("in"), Position{5, 0}});
  ASSERT_EQ(ranges.size(), 3u);
  Range document = ranges[2].ranges.back();
  EXPECT_EQ(document.start, (Position{0, 0}));
  EXPECT_EQ(ranges[0].ranges, (std::vector<Range>{t.range("word"), t.range("statement"),
                                                  t.range("kernel"), document}));
  EXPECT_EQ(ranges[1].ranges,
            (std::vector<Range>{t.range("map"), t.range("block"), t.range("kernel"), document}));
  // Past the last declaration: the document alone.
  EXPECT_EQ(ranges[2].ranges.size(), 1u);
}

TEST(LspFormatting, ARangeGetsTheFormattersChangesToItsLinesOnly) {
  std::string messy = "kernel   a<N>( A :f32[N] )->( B: f32[ N ] ){\n"
                      "B[i]=A[i]   ;\n"
                      "}\n"
                      "\n"
                      "kernel   b<N>( A :f32[N] )->( B: f32[ N ] ){\n"
                      "B[i]=A[i]   ;\n"
                      "}\n";
  auto a = test::analyseDocument(messy);
  std::string why;
  // The second line alone: its statement is indented and spaced; nothing else changes.
  auto second = rangeFormatting(*a, {2, true}, Range{{1, 0}, {1, 3}}, &why);
  ASSERT_TRUE(second) << why;
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ((*second)[0].range, (Range{{1, 0}, {2, 0}}));
  EXPECT_EQ((*second)[0].newText, "  B[i] = A[i];\n");
  // The second kernel: its three lines, and the first kernel's are left as they are.
  auto kernelB = rangeFormatting(*a, {2, true}, Range{{4, 0}, {6, 1}}, &why);
  ASSERT_TRUE(kernelB) << why;
  std::string joined;
  for (const auto &e : *kernelB) {
    EXPECT_GE(e.range.start.line, 4u) << e.newText;
    joined += e.newText;
  }
  EXPECT_EQ(joined, "kernel b<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n");
  // A formatted text: no edits for any range.
  auto whole = formatting(*a, {2, true}, &why);
  auto formatted = test::analyseDocument((*whole)[0].newText, "formatted.isam");
  auto none = rangeFormatting(*formatted, {2, true}, Range{{0, 0}, {6, 0}}, &why);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}
