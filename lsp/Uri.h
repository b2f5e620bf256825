// Document URIs: `file://` URIs to filesystem paths and back (RFC 8089 with percent-encoding, as
// VS Code writes them). Other schemes (`untitled:`, `inmemory:`) have no path; such documents
// are analysed under their URI text as a name, and only their imports on disk resolve.
#pragma once

#include <optional>
#include <string>

namespace isam::lsp {

std::optional<std::string> uriToPath(const std::string &uri);
std::string pathToUri(const std::string &path);

} // namespace isam::lsp
