// The one number formatter (source/Quantities.h): significant digits, separators, binary byte
// units, durations and plurals, as every command and picture prints them.
#include "source/Quantities.h"

#include <gtest/gtest.h>

#include <cmath>
#include <locale>

using namespace isam;

TEST(Quantities, NumbersKeepThreeSignificantDigitsAndEveryDigitOfLargeOnes) {
  EXPECT_EQ(formatNumber(61.0492), "61.0");
  EXPECT_EQ(formatNumber(0.00299783), "0.00300");
  EXPECT_EQ(formatNumber(9.996), "10.0");
  EXPECT_EQ(formatNumber(99.96), "100");
  EXPECT_EQ(formatNumber(1234.5), "1235");
  EXPECT_EQ(formatNumber(123456.7), "123,457");
  EXPECT_EQ(formatNumber(-3097600), "-3,097,600");
  EXPECT_EQ(formatNumber(2.99783e-05), "3.00e-05");
  EXPECT_EQ(formatNumber(0), "0");
  EXPECT_EQ(formatNumber(INFINITY), "inf");
}

TEST(Quantities, CountsBytesDurationsAndPlurals) {
  EXPECT_EQ(formatCount(9999), "9999");
  EXPECT_EQ(formatCount(3097600), "3,097,600");
  EXPECT_EQ(formatBytes(64), "64 B");
  EXPECT_EQ(formatBytes(904), "904 B");
  EXPECT_EQ(formatBytes(6364), "6.21 KiB");
  EXPECT_EQ(formatBytes(49152), "48 KiB");
  EXPECT_EQ(formatBytes(1.5 * 1024 * 1024), "1.5 MiB");
  EXPECT_EQ(formatBytes(33554432), "32 MiB");
  EXPECT_EQ(formatBytes(6.0 * (1 << 30)), "6 GiB");
  EXPECT_EQ(formatDuration(0.000271), "271 ns");
  EXPECT_EQ(formatDuration(0.0271), "27.1 us");
  EXPECT_EQ(formatDuration(61.0492), "61.0 ms");
  EXPECT_EQ(formatDuration(2310), "2.31 s");
  EXPECT_EQ(countOf(1, "independent accumulator"), "1 independent accumulator");
  EXPECT_EQ(countOf(12000, "register"), "12,000 registers");
}

namespace {
// A locale that writes 1.234.567,5, as a German one does.
struct Continental : std::numpunct<char> {
  char do_thousands_sep() const override { return '.'; }
  char do_decimal_point() const override { return ','; }
  std::string do_grouping() const override { return "\3"; }
};
} // namespace

// Output that scripts and golden tests read cannot change with the user's locale.
TEST(Quantities, TheProcessLocaleDoesNotChangeTheDigits) {
  std::locale before = std::locale::global(std::locale(std::locale::classic(), new Continental));
  std::string number = formatNumber(1234567.5), small = formatNumber(2.5),
              count = formatCount(3097600), bytes = formatBytes(6364);
  std::locale::global(before);
  EXPECT_EQ(number, "1,234,568");
  EXPECT_EQ(small, "2.50");
  EXPECT_EQ(count, "3,097,600");
  EXPECT_EQ(bytes, "6.21 KiB");
}
