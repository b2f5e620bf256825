// The marked-up sources the editor-feature tests are written in (tests/support/Annotations.h).
#include "support/Annotations.h"

#include <gtest/gtest.h>

#include <stdexcept>

using isam::test::Annotations;

TEST(Annotations, PointsAndRangesAreTakenOutOfTheCode) {
  Annotations t("kernel [[k^]]<N>($a[[A]]: f32[N]) $end^{\n  [[B]][$i[[i]]] = A[i];\n}");
  EXPECT_EQ(t.code(), "kernel k<N>(A: f32[N]) {\n  B[i] = A[i];\n}");
  EXPECT_EQ(t.pointOffset(), 8u);
  EXPECT_EQ(t.point(), (isam::lsp::Position{0, 8}));
  EXPECT_EQ(t.byteRange("a"), (Annotations::ByteRange{12, 13}));
  EXPECT_EQ(t.pointOffset("end"), 23u);
  // Several ranges of one name, in source order; the second line's positions.
  ASSERT_EQ(t.ranges().size(), 2u);
  EXPECT_EQ(t.ranges()[0], (isam::lsp::Range{{0, 7}, {0, 8}}));
  EXPECT_EQ(t.ranges()[1], (isam::lsp::Range{{1, 2}, {1, 3}}));
  EXPECT_EQ(t.range("i"), (isam::lsp::Range{{1, 4}, {1, 5}}));
}

TEST(Annotations, PositionsCountUtf16CodeUnits) {
  Annotations t("// \xc3\xa9\xf0\x9f\x98\x80 ^x");
  EXPECT_EQ(t.pointOffset(), 10u);
  EXPECT_EQ(t.point(), (isam::lsp::Position{0, 7})); // é is one unit, the emoji two
}

TEST(Annotations, NestedRangesAndBadMarkup) {
  Annotations t("$outer[[a $inner[[b]] c]]");
  EXPECT_EQ(t.code(), "a b c");
  EXPECT_EQ(t.byteRange("outer"), (Annotations::ByteRange{0, 5}));
  EXPECT_EQ(t.byteRange("inner"), (Annotations::ByteRange{2, 3}));
  EXPECT_THROW(Annotations("[[a"), std::invalid_argument);
  EXPECT_THROW(Annotations("$x a"), std::invalid_argument);
  EXPECT_THROW(t.point(), std::invalid_argument);
  EXPECT_THROW(Annotations("^a^").point(), std::invalid_argument);
}
