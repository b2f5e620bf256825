#include "lsp/Targets.h"
#include "lsp/Documents.h"

#include "hw/Host.h"
#include "syntax/Parser.h"

#include <filesystem>
#include <set>

namespace isam::lsp {

namespace {

namespace fs = std::filesystem;

// The leading `//` comment of a description, without "NAME: ", to the end of its first sentence.
std::string descriptionOf(const std::string &text, const std::string &name) {
  std::string comment;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line.compare(first, 2, "//") != 0)
      break;
    size_t body = line.find_first_not_of(" \t", first + 2);
    if (body != std::string::npos)
      comment.append(comment.empty() ? "" : " ").append(line.substr(body));
    if (end == std::string::npos)
      break;
    at = end + 1;
  }
  if (comment.compare(0, name.size() + 2, name + ": ") == 0)
    comment.erase(0, name.size() + 2);
  if (size_t stop = comment.find(". "); stop != std::string::npos)
    comment.resize(stop + 1);
  if (comment.size() > 120)
    comment.resize(117), comment.append("...");
  return comment;
}

// NAME.isam files of `dir` that declare a target or system NAME, as choices of `origin`.
void filesOf(const std::string &dir, const std::string &origin, std::vector<TargetChoice> &out) {
  std::error_code ec;
  std::vector<fs::path> paths;
  for (const auto &entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".isam" && entry.is_regular_file(ec))
      paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  for (const auto &path : paths) {
    std::optional<std::string> text = readTextFile(path.string());
    if (!text)
      continue;
    std::string name = path.stem().string();
    SourceManager sources;
    FileId id = sources.addFile(path.string(), *text);
    DiagnosticSink ignored;
    ast::File file = parseFile(id, sources, ignored);
    std::string kind;
    for (const auto &t : file.targets)
      if (t.name.name == name)
        kind = "target";
    for (const auto &s : file.systems)
      if (s.name.name == name)
        kind = "system";
    if (!kind.empty())
      out.push_back({name, kind, canonicalPath(path.string()), origin, descriptionOf(*text, name)});
  }
}

} // namespace

std::vector<TargetChoice> targetChoices(Analysis *a, const Settings &settings) {
  std::vector<TargetChoice> all;
  all.push_back({"host", "target", "", "host",
                 "this machine (" + hw::hostDescriptionName(hw::detectHost()) + ")"});
  std::string besides;
  if (a) {
    auto lock = a->lock();
    const SourceManager &sources = a->sources();
    auto declared = [&](const std::string &name, const char *kind, FileId file) {
      std::string path = canonicalPath(sources.path(file));
      all.push_back({name, kind, path, "document", descriptionOf(sources.text(file), name)});
    };
    for (const auto &[name, decl] : a->session().symbols().targets)
      declared(name, "target", decl->name.range.file);
    for (const auto &[name, decl] : a->session().symbols().systems)
      declared(name, "system", decl->name.range.file);
    if (a->document().path.find('/') != std::string::npos)
      besides = fs::path(a->document().path).parent_path().string();
  }
  if (!besides.empty())
    filesOf(besides, "workspace", all);
  for (const auto &dir : settings.includeDirs)
    filesOf(dir, "include", all);
  for (const auto &dir : settings.workspaceFolders)
    filesOf(dir, "workspace", all);
  filesOf(defaultHwdescDir(), "shipped", all);
  // The first of a name is the one it resolves to.
  std::vector<TargetChoice> out;
  std::set<std::string> seen;
  for (auto &c : all)
    if (seen.insert(c.name).second)
      out.push_back(std::move(c));
  return out;
}

} // namespace isam::lsp
