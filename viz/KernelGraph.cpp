#include "viz/KernelGraph.h"

#include <algorithm>

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
    out += (out.empty() ? "" : "; ") + std::string(ir::reduceOpName(s.reduce)) + " over " + sums;
  if (out.empty())
    out = "a single point";
  for (size_t g = 0; g < s.guards.size(); ++g)
    out += (g ? ", " : "; where ") + ir::printGuard(s.guards[g], s);
  return out;
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

bool validTensor(const ir::Kernel &kernel, int tensor) {
  return tensor >= 0 && size_t(tensor) < kernel.tensors.size();
}

// `kernel gemm = matmul<M=4, N=4>` for an instance, `kernel matmul<...>` otherwise.
std::string kernelTitle(const ir::Kernel &kernel) {
  std::string sizes;
  for (const auto &[name, value] : kernel.sizes)
    sizes += (sizes.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  std::string title = "kernel " + kernel.name;
  if (!kernel.kernelName.empty() && kernel.kernelName != kernel.name)
    title += " = " + kernel.kernelName + "<" + sizes + ">";
  else if (!sizes.empty())
    title += "<" + sizes + ">";
  return title;
}

// A box with the tensor's name, type, role and size, filled by its role.
void addTensorNode(Graph &graph, Graph::Cluster body, const ir::Tensor &tensor,
                   const Options &options) {
  Table table("BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"1\"");
  table.row({{"<B>" + html(sanitize(tensor.name, options.maxLabelChars)) + "</B>", ""}});
  table.row({{html(sanitize(tensorType(tensor), options.maxLabelChars)), ""}});
  table.row(
      {{"<FONT POINT-SIZE=\"8\" COLOR=\"#666666\">" + html(ir::tensorRoleName(tensor.role)) + ", " +
            html(bytes(double(tensor.elementCount()) * ir::elemTypeBytes(tensor.type))) + "</FONT>",
        ""}});
  graph.node(
      body, tensorId(tensor),
      {{"shape", "box"},
       {"style", "filled"},
       {"fillcolor", style::roleFill(tensor.role)},
       {"label", Value::Html(table.str())},
       {"tooltip", sanitize(tensor.name + ": " + tensorType(tensor), options.maxLabelChars)}});
}

// A rounded box with the statement's name, expression and domain.
void addStatementNode(Graph &graph, Graph::Cluster body, const ir::Kernel &kernel, size_t index,
                      const Options &options) {
  const ir::Statement &stmt = kernel.statements[index];
  std::string id = statementName(index);
  Table table("BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"1\"");
  table.row({{"<B>" + html(id) + "</B>", "ALIGN=\"LEFT\""}});
  table.row(
      {{htmlParagraph(sanitize(statementExpression(stmt, kernel.tensors), options.maxLabelChars),
                      options.wrapWidth),
        "ALIGN=\"LEFT\""}});
  table.row({{"<FONT POINT-SIZE=\"8\" COLOR=\"#666666\">" +
                  htmlParagraph(sanitize("for " + statementDomain(stmt), options.maxLabelChars),
                                options.wrapWidth) +
                  "</FONT>",
              "ALIGN=\"LEFT\""}});
  graph.node(body, id,
             {{"shape", "box"},
              {"style", "rounded,filled"},
              {"fillcolor", style::kStatementFill},
              {"label", Value::Html(table.str())},
              {"tooltip",
               sanitize(stmt.text.empty() ? statementExpression(stmt, kernel.tensors) : stmt.text,
                        options.maxLabelChars)}});
}

// The statement's reads (one edge per distinct access), then its write.
void addStatementEdges(Graph &graph, const ir::Kernel &kernel, size_t index,
                       const Options &options) {
  const ir::Statement &stmt = kernel.statements[index];
  std::string id = statementName(index);
  std::vector<const ir::Access *> reads;
  collectReads(stmt.rhs, reads);
  std::vector<std::string> seen;
  for (const auto *read : reads) {
    if (!validTensor(kernel, read->tensor))
      continue;
    std::string text = ir::printAccess(*read, stmt, kernel.tensors);
    if (std::find(seen.begin(), seen.end(), text) != seen.end())
      continue;
    seen.push_back(text);
    graph.edge(tensorId(kernel.tensors[size_t(read->tensor)]), id,
               {{"label", sanitize(text, options.maxLabelChars)}, {"color", style::kRead}});
  }
  if (validTensor(kernel, stmt.lhs.tensor)) {
    std::string label = std::string(ir::reduceOpText(stmt.reduce)) + " " +
                        ir::printAccess(stmt.lhs, stmt, kernel.tensors);
    if (stmt.accumulates)
      label += "\n(onto earlier values)";
    graph.edge(id, tensorId(kernel.tensors[size_t(stmt.lhs.tensor)]),
               {{"label", sanitize(label, options.maxLabelChars)},
                {"color", style::kWrite},
                {"fontcolor", style::kWrite},
                {"penwidth", "1.8"}});
  }
}

} // namespace

std::string kernelGraph(const ir::Kernel &kernel, const Options &options) {
  Graph graph = style::makeGraph("kernel " + kernel.name, kernelTitle(kernel), options);
  Graph::Cluster body =
      graph.cluster(Graph::kRoot, "kernel",
                    {{"label", sanitize(kernel.kernelName.empty() ? kernel.name : kernel.kernelName,
                                        options.maxLabelChars)},
                     {"style", "rounded"},
                     {"color", style::kMuted},
                     {"fontcolor", style::kMuted}});

  // Nodes in dataflow order (each statement's inputs, itself, its output), so that a picture
  // capped at a number of nodes shows a coherent prefix. (Graph::node keeps a tensor's first node.)
  for (size_t index = 0; index < kernel.statements.size(); ++index) {
    const ir::Statement &stmt = kernel.statements[index];
    std::vector<const ir::Access *> reads;
    collectReads(stmt.rhs, reads);
    for (const auto *read : reads)
      if (validTensor(kernel, read->tensor))
        addTensorNode(graph, body, kernel.tensors[size_t(read->tensor)], options);
    addStatementNode(graph, body, kernel, index, options);
    if (validTensor(kernel, stmt.lhs.tensor))
      addTensorNode(graph, body, kernel.tensors[size_t(stmt.lhs.tensor)], options);
  }
  for (const auto &tensor : kernel.tensors)
    addTensorNode(graph, body, tensor, options);
  for (size_t index = 0; index < kernel.statements.size(); ++index)
    addStatementEdges(graph, kernel, index, options);
  if (kernel.statements.empty())
    graph.node(body, "empty",
               {{"shape", "note"},
                {"label", "this kernel has no statements"},
                {"fillcolor", style::kRejectedFill},
                {"style", "filled"}},
               true);

  style::addLegend(graph, {{style::roleFill(ir::TensorRole::Input), "", "input tensor"},
                           {style::roleFill(ir::TensorRole::Output), "", "output tensor"},
                           {style::roleFill(ir::TensorRole::Local), "", "local tensor"},
                           {style::kStatementFill, "", "statement (expression, domain)"},
                           {"", "", "thin grey edge: read (access)"},
                           {"", "", "bold orange edge: write (reduction, access)"}});
  return graph.str();
}

} // namespace isam::viz
