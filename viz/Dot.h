// A small builder of Graphviz DOT text: graphs, nested clusters, nodes and edges with
// attributes, escaping of plain and HTML-like labels, and a cap on the number of nodes (what
// does not fit is summarised by one ellipsis node). Output is a pure function of the calls made:
// the same calls give byte-identical text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace isam::viz {

// An attribute value: plain text, quoted and escaped when written, or an HTML-like label
// (markup the caller built with the helpers below), written between < and >.
struct Value {
  std::string text;
  bool html = false;

  Value() = default;
  Value(std::string s) : text(std::move(s)) {}
  Value(const char *s) : text(s) {}
  static Value Html(std::string markup) {
    Value v(std::move(markup));
    v.html = true;
    return v;
  }
};
using Attrs = std::vector<std::pair<std::string, Value>>;

// Text made safe to show: valid UTF-8 (other bytes become '?'), control characters other than
// newlines become spaces, and at most `maxChars` characters (the rest is replaced by "...").
std::string sanitize(std::string_view text, size_t maxChars = 400);
// A DOT double-quoted string: sanitized (no length limit), quotes and backslashes escaped,
// newlines as \n. Every id and plain value the Graph writes goes through it (and HTML labels
// through sanitize), so the DOT text, and the SVG made from it, is always valid UTF-8.
std::string quote(std::string_view text);
// Text for an HTML-like label: &, <, >, " escaped; newlines become <BR/>.
std::string html(std::string_view text);
// Greedy word wrap at `width` characters (words longer than that are kept whole).
std::vector<std::string> wrap(std::string_view text, size_t width);
// wrap() joined with <BR ALIGN="LEFT"/> (HTML-escaped), for left-aligned paragraphs.
std::string htmlParagraph(std::string_view text, size_t width);

// Numbers without locale: integers as digits; other values with at most `decimals` decimals,
// trailing zeros dropped.
std::string number(double value, int decimals = 2);
// 624 B, 1.5 KiB, 256 KiB, 4 GiB.
std::string bytes(double value);

// An HTML-like table, for labels of nodes and clusters.
class Table {
public:
  explicit Table(std::string attrs = "BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" "
                                     "CELLPADDING=\"3\"");
  // A row of cells; each cell is markup (escape text with html()) and optional TD attributes.
  struct Cell {
    std::string markup;
    std::string attrs;
  };
  Table &row(std::vector<Cell> cells);
  std::string str() const;
  bool empty() const { return rows_.empty(); }

private:
  std::string attrs_;
  std::vector<std::vector<Cell>> rows_;
};

class Graph {
public:
  using Cluster = int;
  static constexpr Cluster kRoot = 0;
  static constexpr size_t kDefaultMaxNodes = 200;

  explicit Graph(std::string name, size_t maxNodes = kDefaultMaxNodes);

  void set(const std::string &key, Value value); // graph attribute
  void nodeDefaults(Attrs attrs);
  void edgeDefaults(Attrs attrs);

  // A cluster (drawn as a box; its id gets the "cluster_" prefix) or, with cluster = false, a
  // plain subgraph (for rank constraints).
  Cluster cluster(Cluster parent, const std::string &id, Attrs attrs, bool isCluster = true);
  void clusterAttr(Cluster c, const std::string &key, Value value);

  // Adds a node; false when the cap left it out (essential nodes, such as legends and
  // summaries, are always added and do not count). A second node with the same id is ignored.
  bool node(Cluster in, const std::string &id, Attrs attrs, bool essential = false);
  bool hasNode(const std::string &id) const { return ids_.count(id) > 0; }
  // Adds an edge between two added nodes; an edge with a missing end is left out (counted).
  bool edge(const std::string &from, const std::string &to, Attrs attrs);

  size_t nodeCount() const { return counted_; }
  size_t omittedNodes() const { return omittedNodes_; }
  size_t omittedEdges() const { return omittedEdges_; }

  // The DOT text; when nodes were left out, an ellipsis node (id "ellipsis") says how many.
  std::string str() const;

private:
  struct Sub {
    std::string id;
    bool isCluster = true;
    Attrs attrs;
    // Items in order: nodes (index into nodes_, >= 0) and subgraphs (-(index) - 1).
    std::vector<int> items;
  };
  struct Node {
    std::string id;
    Attrs attrs;
  };
  struct Edge {
    std::string from, to;
    Attrs attrs;
  };
  void write(std::string &out, const Sub &s, int depth) const;

  std::string name_;
  size_t maxNodes_;
  Attrs graphAttrs_, nodeDefaults_, edgeDefaults_;
  std::vector<Sub> subs_; // subs_[0] is the root
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  std::set<std::string> ids_, omittedIds_;
  size_t counted_ = 0, omittedNodes_ = 0, omittedEdges_ = 0;
};

} // namespace isam::viz
