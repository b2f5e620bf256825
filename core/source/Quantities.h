// Numbers as every command, picture and editor view prints them, so that one quantity reads the
// same everywhere: three significant digits, thousands separators on counts, binary byte
// units, and nouns that agree with their count.
#pragma once

#include <cstdint>
#include <string>

namespace isam {

// Three significant digits below 100, whole numbers from there (no digit of a count of cycles
// is rounded away), without an exponent from 0.001 to 10^15: 61.0492 -> "61.0", 0.00299783 ->
// "0.00300", 1234.5 -> "1235", 123456.7 -> "123,457"; beyond, "2.99e-05". Numbers above 9,999
// get thousands separators.
std::string formatNumber(double value);
// An integer count with thousands separators: 3097600 -> "3,097,600".
std::string formatCount(int64_t count);
// Bytes in the largest binary unit that keeps the value at least 1, three significant digits,
// trailing zeros dropped: 904 -> "904 B", 6364 -> "6.21 KiB", 49152 -> "48 KiB".
std::string formatBytes(double bytes);
// A duration in the unit that keeps it at least 1 (ns, us, ms, s), three significant digits:
// 0.000271 ms -> "271 ns", 61.0492 ms -> "61.0 ms".
std::string formatDuration(double milliseconds);
// "1 accumulator", "7 accumulators" (the plural: the noun with an s).
std::string countOf(int64_t count, const std::string &noun);

} // namespace isam
