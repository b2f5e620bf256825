// What an import may read: the rules Session applies before a file's text reaches the parser.
//
// An import reads isam files only, so that a diagnostic never quotes a file that is not one
// (`import "/etc/shadow"` used to print its first token). A file is an isam file when its name
// ends in `.isam` (checked before the file is looked for) and its text is UTF-8 without NUL
// bytes whose first token, after comments and whitespace, begins a declaration (`import`,
// `kernel`, `instance`, `target` or `system`); an empty file is one too. Anything else is one
// diagnostic at the import naming the rule it breaks, and the file is not parsed.
//
// Separately, a front end may confine imports to directories (Session's importRoots): a path is
// inside a root when its canonical form (symbolic links resolved) is the root or below it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace isam::imports {

bool hasIsamExtension(std::string_view path);

// Why `text` is not an isam file ("it holds NUL bytes", ...), or nullopt when it is one. The
// reason never quotes the text.
std::optional<std::string> whyNotIsam(std::string_view text);

// Whether `path` is `root` or below it; both canonical and absolute.
bool isInside(const std::string &path, const std::string &root);

} // namespace isam::imports
