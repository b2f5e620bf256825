#include "pipeline/Outline.h"

#include <sstream>

namespace isam::pipeline {

namespace {

std::string at(const SourceManager &sm, const SourceRange &r) {
  if (!r.valid())
    return "";
  LineColumn lc = sm.lineColumn(r.file, r.begin);
  return " (" + std::to_string(lc.line + 1) + ":" + std::to_string(lc.column + 1) + ")";
}

// The source text of `r` on one line (runs of whitespace as one space), at most 120 bytes.
std::string written(const SourceManager &sm, const SourceRange &r) {
  if (!r.valid())
    return "";
  std::string_view text = std::string_view(sm.text(r.file)).substr(r.begin, r.end - r.begin);
  std::string out;
  for (char c : text) {
    bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (space && (out.empty() || out.back() == ' '))
      continue;
    out.push_back(space ? ' ' : c);
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out.size() > 120 ? out.substr(0, 117) + "..." : out;
}

std::string count(size_t n, const std::string &one, const std::string &many = "") {
  return std::to_string(n) + " " + (n == 1 ? one : many.empty() ? one + "s" : many);
}

template <class T> std::string nameList(const std::vector<T> &items) {
  std::string out;
  for (const auto &item : items)
    out += (out.empty() ? "" : ", ") + item.name.name;
  return out;
}

} // namespace

std::string outline(const ast::File &file, const SourceManager &sm) {
  std::ostringstream o;
  for (const auto &i : file.imports)
    o << "import \"" << i.path << "\"" << at(sm, i.range) << "\n";
  for (const auto &k : file.kernels) {
    std::string params;
    for (const auto &p : k.sizeParams)
      params += (params.empty() ? "" : ", ") + p.name;
    o << "kernel " << k.name.name << "<" << params << ">(" << nameList(k.inputs) << ") -> ("
      << nameList(k.outputs) << "): " << count(k.statements.size(), "statement");
    if (!k.locals.empty())
      o << ", " << count(k.locals.size(), "local");
    if (!k.schedules.empty())
      o << ", " << count(k.schedules.size(), "schedule block");
    o << (k.incomplete ? " (incomplete)" : "") << at(sm, k.range) << "\n";
  }
  for (const auto &i : file.instances)
    o << written(sm, i.range) << at(sm, i.range) << "\n";
  for (const auto &t : file.targets) {
    size_t moves = 0;
    for (const auto &i : t.instrs)
      moves += i.isMove;
    o << "target " << t.name.name << ": " << count(t.memories.size(), "memory", "memories") << ", "
      << count(t.units.size(), "unit") << ", " << count(t.instrs.size() - moves, "instruction")
      << ", " << count(moves, "move") << at(sm, t.range) << "\n";
  }
  for (const auto &s : file.systems)
    o << "system " << s.name.name << ": " << count(s.hosts.size(), "host") << ", "
      << count(s.devices.size(), "device") << ", " << count(s.links.size(), "link")
      << at(sm, s.range) << "\n";
  return o.str();
}

} // namespace isam::pipeline
