#include "source/Quantities.h"

#include <cmath>
#include <fmt/format.h>
#include <locale>

namespace isam {

namespace {

// Groups integer digits by threes with commas whatever the process's locale (libfmt's `L`).
struct Thousands : std::numpunct<char> {
  char do_thousands_sep() const override { return ','; }
  std::string do_grouping() const override { return "\3"; }
};

const std::locale &grouping() {
  static const std::locale locale(std::locale::classic(), new Thousands);
  return locale;
}

// 9999 reads as it is; from 10,000 on, digits are grouped.
bool groups(double magnitude) {
  return magnitude >= 9999.5;
}

std::string trimZeros(std::string s) {
  if (s.find('.') == std::string::npos)
    return s;
  while (s.back() == '0')
    s.pop_back();
  if (s.back() == '.')
    s.pop_back();
  return s;
}

} // namespace

std::string formatNumber(double v) {
  double a = std::fabs(v);
  if (!std::isfinite(v) || a == 0)
    return fmt::format("{}", v);
  if (a < 1e-3 || a >= 1e15)
    return fmt::format("{:.2e}", v);
  if (a >= 99.95) {
    double whole = std::round(v); // halves away from zero
    return groups(a) ? fmt::format(grouping(), "{:.0Lf}", whole) : fmt::format("{:.0f}", whole);
  }
  // Round to three significant digits first: 9.996 becomes 10.0, printed with one decimal.
  int exponent = int(std::floor(std::log10(a)));
  double scale = std::pow(10.0, 2 - exponent);
  double rounded = std::round(v * scale) / scale;
  exponent = int(std::floor(std::log10(std::fabs(rounded))));
  return fmt::format("{:.{}f}", rounded, std::max(0, 2 - exponent));
}

std::string formatCount(int64_t count) {
  return groups(std::fabs(double(count))) ? fmt::format(grouping(), "{:L}", count)
                                          : fmt::format("{}", count);
}

std::string formatBytes(double bytes) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  size_t u = 0;
  while (std::fabs(bytes) >= 1024 && u + 1 < sizeof units / sizeof *units)
    bytes /= 1024, ++u;
  if (u == 0)
    return formatCount(std::llround(bytes)) + " B";
  return trimZeros(formatNumber(bytes)) + " " + units[u];
}

std::string formatDuration(double ms) {
  double a = std::fabs(ms);
  if (a >= 1000)
    return formatNumber(ms / 1000) + " s";
  if (a >= 1 || a == 0)
    return formatNumber(ms) + " ms";
  if (a >= 1e-3)
    return formatNumber(ms * 1e3) + " us";
  return formatNumber(ms * 1e6) + " ns";
}

std::string countOf(int64_t count, const std::string &noun) {
  return formatCount(count) + " " + noun + (count == 1 ? "" : "s");
}

} // namespace isam
