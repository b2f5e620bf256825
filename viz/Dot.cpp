#include "viz/Dot.h"

#include "source/Quantities.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace isam::viz {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
size_t utf8Length(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size())
    return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2)
      return 0;
  if (n == 2 && c < 0xC2)
    return 0; // overlong
  if (n == 3) {
    unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0))
      return 0; // overlong or a surrogate
  }
  if (n == 4) {
    unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
    if ((c == 0xF0 && c1 < 0x90) || c > 0xF4 || (c == 0xF4 && c1 >= 0x90))
      return 0;
  }
  return n;
}

} // namespace

std::string sanitize(std::string_view text, size_t maxChars) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < text.size();) {
    if (chars == maxChars) {
      out += "...";
      break;
    }
    size_t n = utf8Length(text, i);
    if (n == 0) {
      out += '?';
      ++i;
    } else if (n == 1) {
      char c = text[i];
      out += (c == '\n' || static_cast<unsigned char>(c) >= 0x20) && c != 0x7F ? c : ' ';
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
    ++chars;
  }
  return out;
}

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (char c : sanitize(text, std::string_view::npos)) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string html(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\n':
      out += "<BR/>";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::vector<std::string> wrap(std::string_view text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(' ', i);
    if (j == std::string_view::npos)
      j = text.size();
    std::string_view word = text.substr(i, j - i);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    if (!word.empty()) {
      if (!line.empty())
        line += ' ';
      line.append(word);
    }
    i = j + 1;
  }
  if (!line.empty() || lines.empty())
    lines.push_back(line);
  return lines;
}

std::string htmlParagraph(std::string_view text, size_t width) {
  std::string out;
  for (const auto &l : wrap(text, width))
    out += html(l) + "<BR ALIGN=\"LEFT\"/>";
  return out;
}

std::string number(double value, int decimals) {
  if (!std::isfinite(value))
    return std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf";
  char buf[64];
  if (std::fabs(value) < 1e15 && value == std::floor(value)) {
    auto r = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(value));
    return std::string(buf, r.ptr);
  }
  auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, decimals);
  std::string s(buf, r.ptr);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0')
      s.pop_back();
    if (s.back() == '.')
      s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

std::string bytes(double value) {
  return formatBytes(value);
}

Table::Table(std::string attrs) : attrs_(std::move(attrs)) {}

Table &Table::row(std::vector<Cell> cells) {
  rows_.push_back(std::move(cells));
  return *this;
}

std::string Table::str() const {
  std::string out = "<TABLE " + attrs_ + ">";
  for (const auto &r : rows_) {
    out += "<TR>";
    for (const auto &c : r)
      out += "<TD" + (c.attrs.empty() ? "" : " " + c.attrs) + ">" + c.markup + "</TD>";
    out += "</TR>";
  }
  if (rows_.empty())
    out += "<TR><TD></TD></TR>";
  return out + "</TABLE>";
}

Graph::Graph(std::string name, size_t maxNodes) : name_(std::move(name)), maxNodes_(maxNodes) {
  subs_.push_back({});
}

void Graph::set(const std::string &key, Value value) {
  graphAttrs_.emplace_back(key, std::move(value));
}
void Graph::nodeDefaults(Attrs attrs) {
  nodeDefaults_ = std::move(attrs);
}
void Graph::edgeDefaults(Attrs attrs) {
  edgeDefaults_ = std::move(attrs);
}

Graph::Cluster Graph::cluster(Cluster parent, const std::string &id, Attrs attrs, bool isCluster) {
  Sub s;
  s.id = (isCluster ? "cluster_" : "") + id;
  s.isCluster = isCluster;
  s.attrs = std::move(attrs);
  subs_.push_back(std::move(s));
  int index = int(subs_.size()) - 1;
  subs_[size_t(parent)].items.push_back(-index - 1);
  return index;
}

void Graph::clusterAttr(Cluster c, const std::string &key, Value value) {
  subs_[size_t(c)].attrs.emplace_back(key, std::move(value));
}

bool Graph::node(Cluster in, const std::string &id, Attrs attrs, bool essential) {
  if (ids_.count(id))
    return true;
  if (!essential) {
    if (counted_ >= maxNodes_) {
      if (omittedIds_.insert(id).second)
        ++omittedNodes_;
      return false;
    }
    ++counted_;
  }
  ids_.insert(id);
  nodes_.push_back({id, std::move(attrs)});
  subs_[size_t(in)].items.push_back(int(nodes_.size()) - 1);
  return true;
}

bool Graph::edge(const std::string &from, const std::string &to, Attrs attrs) {
  if (!hasNode(from) || !hasNode(to)) {
    ++omittedEdges_;
    return false;
  }
  edges_.push_back({from, to, std::move(attrs)});
  return true;
}

namespace {

void writeValue(std::string &out, const Value &v) {
  if (v.html) {
    out += '<';
    out += sanitize(v.text, std::string_view::npos);
    out += '>';
  } else {
    out += quote(v.text);
  }
}

void writeAttrs(std::string &out, const Attrs &attrs) {
  out += " [";
  for (size_t i = 0; i < attrs.size(); ++i) {
    out += (i ? ", " : "") + attrs[i].first + "=";
    writeValue(out, attrs[i].second);
  }
  out += "]";
}

} // namespace

void Graph::write(std::string &out, const Sub &s, int depth) const {
  std::string pad(size_t(depth) * 2, ' ');
  for (const auto &[key, value] : s.attrs) {
    out += pad + key + "=";
    writeValue(out, value);
    out += ";\n";
  }
  // dot stacks the separate parts of a left-to-right graph bottom-up in the order they are
  // written: the root's items are written last first, so that the first part added comes out
  // on top (and the legend, added last, at the bottom).
  std::vector<int> items = s.items;
  if (&s == &subs_[0])
    std::reverse(items.begin(), items.end());
  for (int item : items) {
    if (item >= 0) {
      const Node &n = nodes_[size_t(item)];
      out += pad + quote(n.id);
      if (!n.attrs.empty())
        writeAttrs(out, n.attrs);
      out += ";\n";
    } else {
      const Sub &child = subs_[size_t(-item - 1)];
      out += pad + "subgraph " + quote(child.id) + " {\n";
      write(out, child, depth + 1);
      out += pad + "}\n";
    }
  }
}

std::string Graph::str() const {
  std::string out = "digraph " + quote(name_) + " {\n";
  if (!graphAttrs_.empty()) {
    out += "  graph";
    writeAttrs(out, graphAttrs_);
    out += ";\n";
  }
  if (!nodeDefaults_.empty()) {
    out += "  node";
    writeAttrs(out, nodeDefaults_);
    out += ";\n";
  }
  if (!edgeDefaults_.empty()) {
    out += "  edge";
    writeAttrs(out, edgeDefaults_);
    out += ";\n";
  }
  write(out, subs_[0], 1);
  if (omittedNodes_ > 0) {
    std::string label =
        "... " + std::to_string(omittedNodes_) + " more node" + (omittedNodes_ == 1 ? "" : "s");
    if (omittedEdges_ > 0)
      label += " and " + std::to_string(omittedEdges_) + " edge" + (omittedEdges_ == 1 ? "" : "s");
    label += " not shown\n(at most " + std::to_string(maxNodes_) + " nodes are drawn)";
    out += "  " + quote("ellipsis") +
           " [shape=\"note\", style=\"filled\", fillcolor=\"#ffffff\", "
           "color=\"#888888\", fontcolor=\"#555555\", label=" +
           quote(label) + "];\n";
  }
  for (const Edge &e : edges_) {
    out += "  " + quote(e.from) + " -> " + quote(e.to);
    if (!e.attrs.empty())
      writeAttrs(out, e.attrs);
    out += ";\n";
  }
  return out + "}\n";
}

} // namespace isam::viz
