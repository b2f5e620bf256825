#include "viz/KernelGraph.h"

namespace isam::viz {

std::string statementExpression(const ir::Statement &s, const std::vector<ir::Tensor> &tensors) {
  return ir::printAccess(s.lhs, s, tensors) + " " + ir::reduceOpText(s.reduce) + " " +
         ir::printExpr(s.rhs, s, tensors);
}

std::string statementDomain(const ir::Statement &s) {
  std::string loops, sums;
  for (const auto &i : s.indices) {
    std::string one = i.name + " < " + (i.param.empty() ? std::to_string(i.extent) : i.param);
    std::string &into = i.reduction ? sums : loops;
    into += (into.empty() ? "" : ", ") + one;
  }
  std::string out = loops;
  if (!sums.empty())
    out += (out.empty() ? "" : "; ") + std::string("sum over ") + sums;
  return out.empty() ? "a single point" : out;
}

std::string tensorType(const ir::Tensor &t) {
  std::string out = std::string(ir::elemTypeName(t.type));
  if (t.shape.empty())
    return out;
  out += "[";
  for (size_t d = 0; d < t.shape.size(); ++d) {
    out += d ? ", " : "";
    if (d < t.shapeParams.size() && !t.shapeParams[d].empty())
      out += t.shapeParams[d];
    else
      out += std::to_string(t.shape[d]);
  }
  return out + "]";
}

namespace {

std::string tensorId(const ir::Tensor &t) {
  return "tensor." + t.name;
}

void collectReads(const ir::Expr &e, std::vector<const ir::Access *> &out) {
  if (e.kind == ir::Expr::Kind::Read)
    out.push_back(&e.access);
  for (const auto &a : e.args)
    collectReads(a, out);
}

} // namespace

std::string kernelGraph(const ir::Kernel &k, const Options &o) {
  std::string sizes;
  for (const auto &[name, value] : k.sizes)
    sizes += (sizes.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  std::string title = "kernel " + k.name;
  if (!k.kernelName.empty() && k.kernelName != k.name)
    title += " = " + k.kernelName + "<" + sizes + ">";
  else if (!sizes.empty())
    title += "<" + sizes + ">";
  Graph g = style::makeGraph("kernel " + k.name, title, o);
  Graph::Cluster body =
      g.cluster(Graph::kRoot, "kernel",
                {{"label", sanitize(k.kernelName.empty() ? k.name : k.kernelName, o.maxLabelChars)},
                 {"style", "rounded"},
                 {"color", style::kMuted},
                 {"fontcolor", style::kMuted}});

  auto addTensor = [&](size_t t) {
    const ir::Tensor &x = k.tensors[t];
    Table tab("BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"1\"");
    tab.row({{"<B>" + html(sanitize(x.name, o.maxLabelChars)) + "</B>", ""}});
    tab.row({{html(sanitize(tensorType(x), o.maxLabelChars)), ""}});
    tab.row(
        {{"<FONT POINT-SIZE=\"8\" COLOR=\"#666666\">" + html(ir::tensorRoleName(x.role)) + ", " +
              html(bytes(double(x.elementCount()) * ir::elemTypeBytes(x.type))) + "</FONT>",
          ""}});
    g.node(body, tensorId(x),
           {{"shape", "box"},
            {"style", "filled"},
            {"fillcolor", style::roleFill(x.role)},
            {"label", Value::Html(tab.str())},
            {"tooltip", sanitize(x.name + ": " + tensorType(x), o.maxLabelChars)}});
  };
  auto validTensor = [&](int t) { return t >= 0 && size_t(t) < k.tensors.size(); };

  // Nodes in dataflow order, so that a capped picture shows a coherent prefix.
  for (size_t si = 0; si < k.statements.size(); ++si) {
    const ir::Statement &s = k.statements[si];
    std::vector<const ir::Access *> reads;
    collectReads(s.rhs, reads);
    for (const auto *a : reads)
      if (validTensor(a->tensor))
        addTensor(size_t(a->tensor));
    std::string id = statementName(si);
    Table tab("BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"1\"");
    tab.row({{"<B>" + html(id) + "</B>", "ALIGN=\"LEFT\""}});
    tab.row(
        {{htmlParagraph(sanitize(statementExpression(s, k.tensors), o.maxLabelChars), o.wrapWidth),
          "ALIGN=\"LEFT\""}});
    tab.row(
        {{"<FONT POINT-SIZE=\"8\" COLOR=\"#666666\">" +
              htmlParagraph(sanitize("for " + statementDomain(s), o.maxLabelChars), o.wrapWidth) +
              "</FONT>",
          "ALIGN=\"LEFT\""}});
    g.node(body, id,
           {{"shape", "box"},
            {"style", "rounded,filled"},
            {"fillcolor", style::kStatementFill},
            {"label", Value::Html(tab.str())},
            {"tooltip", sanitize(s.text.empty() ? statementExpression(s, k.tensors) : s.text,
                                 o.maxLabelChars)}});
    if (validTensor(s.lhs.tensor))
      addTensor(size_t(s.lhs.tensor));
  }
  for (size_t t = 0; t < k.tensors.size(); ++t)
    addTensor(t);

  // Edges: reads (one per distinct access), then the write.
  for (size_t si = 0; si < k.statements.size(); ++si) {
    const ir::Statement &s = k.statements[si];
    std::string id = statementName(si);
    std::vector<const ir::Access *> reads;
    collectReads(s.rhs, reads);
    std::vector<std::string> seen;
    for (const auto *a : reads) {
      if (!validTensor(a->tensor))
        continue;
      std::string text = ir::printAccess(*a, s, k.tensors);
      bool dup = false;
      for (const auto &x : seen)
        dup = dup || x == text;
      if (dup)
        continue;
      seen.push_back(text);
      g.edge(tensorId(k.tensors[size_t(a->tensor)]), id,
             {{"label", sanitize(text, o.maxLabelChars)}, {"color", style::kRead}});
    }
    if (validTensor(s.lhs.tensor)) {
      std::string label =
          std::string(ir::reduceOpText(s.reduce)) + " " + ir::printAccess(s.lhs, s, k.tensors);
      if (s.accumulates)
        label += "\n(onto earlier values)";
      g.edge(id, tensorId(k.tensors[size_t(s.lhs.tensor)]),
             {{"label", sanitize(label, o.maxLabelChars)},
              {"color", style::kWrite},
              {"fontcolor", style::kWrite},
              {"penwidth", "1.8"}});
    }
  }
  if (k.statements.empty())
    g.node(body, "empty",
           {{"shape", "note"},
            {"label", "this kernel has no statements"},
            {"fillcolor", style::kRejectedFill},
            {"style", "filled"}},
           true);

  style::addLegend(g, {{style::roleFill(ir::TensorRole::Input), "", "input tensor"},
                       {style::roleFill(ir::TensorRole::Output), "", "output tensor"},
                       {style::roleFill(ir::TensorRole::Local), "", "local tensor"},
                       {style::kStatementFill, "", "statement (expression, domain)"},
                       {"", "", "thin grey edge: read (access)"},
                       {"", "", "bold orange edge: write (reduction, access)"}});
  return g.str();
}

} // namespace isam::viz
