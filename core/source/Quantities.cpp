#include "source/Quantities.h"

#include <cmath>
#include <cstdio>

namespace isam {

namespace {

// Digits of an integer part grouped by threes: "1234567.5" -> "1,234,567.5".
std::string grouped(const std::string &plain) {
  size_t start = plain[0] == '-' ? 1 : 0;
  size_t end = plain.find('.');
  if (end == std::string::npos)
    end = plain.size();
  if (end - start <= 4) // 9999 reads as it is
    return plain;
  std::string out = plain.substr(0, start);
  for (size_t i = start; i < end; ++i) {
    out += plain[i];
    size_t left = end - i - 1;
    if (left > 0 && left % 3 == 0)
      out += ',';
  }
  return out + plain.substr(end);
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
  char text[64];
  double a = std::fabs(v);
  if (!std::isfinite(v) || a == 0) {
    std::snprintf(text, sizeof text, "%g", v);
    return text;
  }
  if (a < 1e-3 || a >= 1e15) {
    std::snprintf(text, sizeof text, "%.2e", v);
    return text;
  }
  if (a >= 99.95) {
    std::snprintf(text, sizeof text, "%.0f", std::round(v)); // halves away from zero
    return grouped(text);
  }
  // Round to three significant digits first: 9.996 becomes 10.0, printed with one decimal.
  int exponent = int(std::floor(std::log10(a)));
  double scale = std::pow(10.0, 2 - exponent);
  double rounded = std::round(v * scale) / scale;
  exponent = int(std::floor(std::log10(std::fabs(rounded))));
  int decimals = std::max(0, 2 - exponent);
  std::snprintf(text, sizeof text, "%.*f", decimals, rounded);
  return grouped(text);
}

std::string formatCount(int64_t count) {
  return grouped(std::to_string(count));
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
