#include "driver/Imports.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>

namespace isam::imports {

namespace {

bool validUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    auto b = static_cast<unsigned char>(s[i]);
    size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size())
      return false;
    uint32_t cp = n == 1 ? b : b & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) {
      auto c = static_cast<unsigned char>(s[i + k]);
      if ((c >> 6) != 0x2)
        return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    // Overlong forms, surrogates and code points past Unicode's end are not UTF-8.
    static constexpr std::array<uint32_t, 5> kMin = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      return false;
    i += n;
  }
  return true;
}

bool idChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The first token's text when it is a word (the grammar's ID or keyword), else empty; comments
// and whitespace are skipped as the lexer skips them.
std::string_view firstWord(std::string_view t, bool &anyToken) {
  size_t i = 0;
  for (;;) {
    while (i < t.size() &&
           (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\n' || t[i] == '\f'))
      ++i;
    if (t.substr(i, 2) == "//") {
      i = std::min(t.size(), t.find_first_of("\r\n", i));
    } else if (t.substr(i, 2) == "/*" && t.find("*/", i + 2) != std::string_view::npos) {
      i = t.find("*/", i + 2) + 2;
    } else {
      break;
    }
  }
  anyToken = i < t.size();
  size_t end = i;
  while (end < t.size() && idChar(t[end]))
    ++end;
  if (end == i || (t[i] >= '0' && t[i] <= '9'))
    return {};
  return t.substr(i, end - i);
}

} // namespace

bool hasIsamExtension(std::string_view path) {
  std::string_view name = path.substr(path.find_last_of('/') + 1);
  return name.size() > 5 && name.substr(name.size() - 5) == ".isam";
}

std::optional<std::string> whyNotIsam(std::string_view text) {
  if (text.find('\0') != std::string_view::npos)
    return "it holds NUL bytes";
  if (!validUtf8(text))
    return "it is not UTF-8 text";
  bool anyToken = false;
  std::string_view word = firstWord(text, anyToken);
  if (anyToken && word != "import" && word != "kernel" && word != "instance" && word != "target" &&
      word != "system")
    return "it does not begin with a declaration (import, kernel, instance, target or system)";
  return std::nullopt;
}

bool isInside(const std::string &path, const std::string &root) {
  namespace fs = std::filesystem;
  fs::path p(path), r(root);
  auto rootEnd = std::mismatch(r.begin(), r.end(), p.begin(), p.end()).first;
  // A trailing separator gives `r` an empty last element, which matches nothing in `p`.
  return rootEnd == r.end() || (std::next(rootEnd) == r.end() && rootEnd->empty());
}

} // namespace isam::imports
