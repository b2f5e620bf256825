#include "lsp/Uri.h"

#include <cctype>

namespace isam::lsp {

namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  c = char(std::tolower(static_cast<unsigned char>(c)));
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

} // namespace

std::optional<std::string> uriToPath(const std::string &uri) {
  const std::string scheme = "file://";
  if (uri.size() < scheme.size() ||
      !std::equal(scheme.begin(), scheme.end(), uri.begin(),
                  [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); }))
    return std::nullopt;
  std::string rest = uri.substr(scheme.size());
  // The authority ("localhost" or empty) ends at the path's first slash.
  size_t slash = rest.find('/');
  if (slash == std::string::npos)
    return std::nullopt;
  std::string authority = rest.substr(0, slash);
  if (!authority.empty() && authority != "localhost")
    return std::nullopt; // a UNC-style remote file: not ours to open
  std::string path;
  for (size_t i = slash; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && hexValue(rest[i + 1]) >= 0 &&
        hexValue(rest[i + 2]) >= 0) {
      path.push_back(char(hexValue(rest[i + 1]) * 16 + hexValue(rest[i + 2])));
      i += 2;
    } else if (rest[i] == '?' || rest[i] == '#') {
      break;
    } else {
      path.push_back(rest[i]);
    }
  }
  return path;
}

std::string pathToUri(const std::string &path) {
  static const char *hex = "0123456789ABCDEF";
  std::string uri = "file://";
  if (path.empty() || path[0] != '/')
    uri.push_back('/');
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri.push_back(char(c));
    } else {
      uri.push_back('%');
      uri.push_back(hex[c >> 4]);
      uri.push_back(hex[c & 15]);
    }
  }
  return uri;
}

} // namespace isam::lsp
