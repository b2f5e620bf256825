// Formatting (the formatter of `isamap fmt`), folding ranges from the AST's blocks and comments,
// and inlay hints with each statement's inferred index ranges in the kernel's instance.
#include "lsp/Convert.h"
#include "lsp/Features.h"
#include "lsp/Focus.h"

#include "format/Formatter.h"

namespace isam::lsp {

json formatting(Call &call) {
  auto a = call.document();
  const std::string &text = a->document().text;
  format::FormatOptions options;
  if (call.params.contains("options") && call.params["options"].is_object()) {
    const json &o = call.params["options"];
    if (o.value("insertSpaces", true) && o.contains("tabSize") && o["tabSize"].is_number_integer())
      options.indentWidth = int(o["tabSize"].get<int64_t>());
  }
  std::string why;
  auto formatted = format::formatText(text, options, &why);
  if (!formatted)
    throw RpcError(RequestFailed, "cannot format this document: " + why);
  if (*formatted == text)
    return json::array();
  auto lock = a->lock();
  SourceRange all{a->mainFile(), 0, uint32_t(text.size())};
  return json::array({{{"range", rangeJson(*a, all)}, {"newText", *formatted}}});
}

json foldingRange(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  const LineMap &lines = a->lines(a->mainFile());
  json out = json::array();
  // The closing line stays visible, as editors show folded blocks.
  auto fold = [&](SourceRange r, const char *kind = nullptr) {
    if (!r.valid())
      return;
    uint32_t first = lines.position(r.begin).line, last = lines.position(r.end).line;
    if (kind == nullptr && last > first)
      --last;
    if (last <= first)
      return;
    json j = {{"startLine", first}, {"endLine", last}};
    if (kind)
      j["kind"] = kind;
    out.push_back(j);
  };
  const ast::File &f = a->mainAst();
  for (const auto &k : f.kernels) {
    fold(k.range);
    for (const auto &s : k.schedules)
      fold(s.range);
  }
  for (const auto &t : f.targets) {
    fold(t.range);
    for (const auto &m : t.memories)
      fold(m.range);
    for (const auto &u : t.units)
      fold(u.range);
    for (const auto &i : t.instrs)
      fold(i.range);
  }
  for (const auto &s : f.systems)
    fold(s.range);
  if (f.imports.size() > 1)
    fold(f.imports.front().range.to(f.imports.back().range), "imports");
  // Comments: a block comment, or a run of line comments on consecutive lines.
  const std::string &text = a->sources().text(a->mainFile());
  for (size_t i = 0; i < f.comments.size();) {
    SourceRange r = f.comments[i].range;
    size_t j = i + 1;
    bool line = text.compare(r.begin, 2, "//") == 0;
    while (line && j < f.comments.size() && text.compare(f.comments[j].range.begin, 2, "//") == 0 &&
           lines.position(f.comments[j].range.begin).line == lines.position(r.end).line + 1) {
      r = r.to(f.comments[j].range);
      ++j;
    }
    fold(r, "comment");
    i = j;
  }
  return out;
}

json inlayHint(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  const json &range = required(call.params, "range");
  uint32_t from = offsetIn(*a, required(range, "start")), to = offsetIn(*a, required(range, "end"));
  json out = json::array();
  for (const auto &k : a->mainAst().kernels) {
    if (k.range.end < from || k.range.begin > to)
      continue;
    Focus focus;
    focus.kernel = &k;
    focus.subject.kernel = k.name.name;
    const ir::Kernel *ir = a->instance(focus.subject);
    if (!ir)
      continue;
    for (size_t i = 0; i < k.statements.size(); ++i) {
      const ast::Statement &s = k.statements[i];
      if (s.range.end < from || s.range.begin > to)
        continue;
      focus.statement = i;
      std::optional<size_t> st = irStatementOf(focus, *ir);
      if (!st)
        continue;
      // After the statement: its iteration domain in the instance.
      std::string label = ir->name + ":";
      for (const auto &idx : ir->statements[*st].indices)
        label +=
            " " + idx.name + (idx.reduction ? " \u03a3" : "") + " < " + std::to_string(idx.extent);
      out.push_back(
          {{"position", positionJson(a->lines(a->mainFile()).position(s.range.end))},
           {"label", label},
           {"paddingLeft", true},
           {"tooltip", "the statement's index ranges, inferred for instance " + ir->name}});
      // After a local tensor written without a declared shape: the shape inferred.
      if (s.lhs && s.lhs->kind == ast::Expr::Kind::Access) {
        const std::string &name = s.lhs->name.name;
        bool declared = false;
        for (const auto &l : k.locals)
          declared = declared || l.name.name == name;
        for (const auto &p : k.outputs)
          declared = declared || p.name.name == name;
        int t = ir->tensorIndex(name);
        if (!declared && t >= 0 && ir->tensors[size_t(t)].role == ir::TensorRole::Local) {
          const ir::Tensor &tensor = ir->tensors[size_t(t)];
          std::string shape = std::string(": ") + ir::elemTypeName(tensor.type) + "[";
          for (size_t d = 0; d < tensor.shape.size(); ++d)
            shape += (d ? ", " : "") + std::to_string(tensor.shape[d]);
          shape += "]";
          out.push_back(
              {{"position", positionJson(a->lines(a->mainFile()).position(s.lhs->name.range.end))},
               {"label", shape},
               {"kind", 1 /* Type */}});
        }
      }
    }
  }
  return out;
}

} // namespace isam::lsp
