// Hover: what a name is (its declaration, its type and shape, an index's inferred range, an
// instruction's semantics and cost), its values in the instance that stands for the kernel, and
// for a statement how it runs on the configured target.
#include "lsp/Convert.h"
#include "lsp/Features.h"
#include "lsp/Focus.h"

#include "sema/Sema.h"

#include <sstream>

namespace isam::lsp {

namespace {

using index::OccurrenceKind;
using index::SymbolKind;

std::string code(const std::string &text) {
  return "```isam\n" + text + "\n```\n";
}

// The declaration's text, cut at `maxLines`.
std::string declarationText(Analysis &a, SourceRange r, size_t maxLines = 30) {
  const std::string &text = a.sources().text(r.file);
  std::string out = text.substr(r.begin, r.end - r.begin);
  size_t lines = 0;
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i] == '\n' && ++lines == maxLines)
      return out.substr(0, i) + "\n...";
  return out;
}

std::string shape(const ir::Tensor &t) {
  std::string s = ir::elemTypeName(t.type);
  s += "[";
  for (size_t d = 0; d < t.shape.size(); ++d)
    s += (d ? ", " : "") + std::to_string(t.shape[d]);
  return s + "]";
}

// The kernel a symbol belongs to (itself, or its parent chain's kernel).
const index::Symbol *kernelOf(Analysis &a, const index::Symbol &s) {
  const index::Symbol *k = &s;
  while (k->kind != SymbolKind::Kernel && k->parent >= 0)
    k = &a.index().symbols()[size_t(k->parent)];
  return k->kind == SymbolKind::Kernel ? k : nullptr;
}

std::string symbolHover(Analysis &a, const index::Symbol &s, const Focus &focus) {
  std::ostringstream out;
  switch (s.kind) {
  case SymbolKind::Instruction:
  case SymbolKind::Move:
  case SymbolKind::Memory:
  case SymbolKind::Registers:
  case SymbolKind::Unit:
    // The declaration is the documentation: semantics, operands, cost.
    out << code(declarationText(a, s.fullRange));
    break;
  default:
    out << code(std::string(index::symbolKindName(s.kind)) + " " + s.name +
                (s.detail.empty() ? "" : ": " + s.detail));
  }
  // Values in the instance that stands for the kernel.
  const index::Symbol *k = kernelOf(a, s);
  if (!k || (s.kind != SymbolKind::Tensor && s.kind != SymbolKind::Index &&
             s.kind != SymbolKind::SizeParam && s.kind != SymbolKind::Kernel))
    return out.str();
  Analysis::Subject subject{k->name, focus.subject.instance, focus.subject.target};
  if (focus.subject.kernel != k->name)
    subject.instance.clear();
  std::string problem;
  const ir::Kernel *ir = a.instance(subject, &problem);
  if (!ir) {
    out << "\n_" << problem << "_\n";
    return out.str();
  }
  out << "\nIn instance `" << ir->name << "`: ";
  if (s.kind == SymbolKind::Tensor) {
    int t = ir->tensorIndex(s.name);
    if (t >= 0)
      out << '`' << shape(ir->tensors[size_t(t)]) << '`';
    else
      out << "not used";
  } else if (s.kind == SymbolKind::SizeParam) {
    for (const auto &[name, value] : ir->sizes)
      if (name == s.name)
        out << "`" << name << " = " << value << "`";
  } else if (s.kind == SymbolKind::Kernel) {
    out << "`" << ir->kernelName << "<";
    for (size_t i = 0; i < ir->sizes.size(); ++i)
      out << (i ? ", " : "") << ir->sizes[i].second;
    out << ">`, " << ir->flopCount() << " floating-point operations";
  } else if (focus.kernel && focus.statement) {
    // An index: its range in this statement of the instance.
    std::optional<size_t> st = irStatementOf(focus, *ir);
    bool found = false;
    if (st)
      for (const auto &i : ir->statements[*st].indices)
        if (i.name == s.name) {
          out << "`" << i.name << " in 0.." << i.extent << "`"
              << (i.reduction ? " (reduction: summed over)" : "");
          found = true;
        }
    if (!found)
      out << "range not inferred";
  }
  out << "\n";
  return out.str();
}

} // namespace

json hover(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  uint32_t offset = offsetIn(*a, required(call.params, "position"));
  const index::Occurrence *o = a->index().at(a->mainFile(), offset);
  Focus focus = focusOf(*a, call.params);
  std::string text;
  SourceRange range;
  if (o) {
    range = o->range;
    std::string word =
        a->sources().text(a->mainFile()).substr(o->range.begin, o->range.end - o->range.begin);
    switch (o->kind) {
    case OccurrenceKind::Symbol:
      text = symbolHover(*a, a->index().symbols()[size_t(o->symbol)], focus);
      break;
    case OccurrenceKind::ElemType:
      if (auto t = ir::parseElemType(word))
        text = code("type " + word) + "\n" + std::to_string(ir::elemTypeBytes(*t)) + "-byte " +
               (ir::isFloat(*t) ? "floating-point" : "integer") + " element\n";
      break;
    case OccurrenceKind::Function:
      for (const auto &f : sema::knownFunctions())
        if (word == f.name)
          text = code(word + "(" + (f.arity == 1 ? "x" : "x, y") + ")") +
                 "\nElement-wise function of " + std::to_string(f.arity) + " argument" +
                 (f.arity == 1 ? "" : "s") + "\n";
      break;
    default:
      break;
    }
  }
  // How the statement under the cursor runs.
  if (focus.kernel && focus.statement && (!o || o->kind == OccurrenceKind::Symbol)) {
    std::string problem;
    if (auto s = summarize(*a, focus, call.cancelled, &problem)) {
      std::ostringstream line;
      line << "\n---\n**s" << *focus.statement << "** of `" << s->instance << "` on `" << s->target
           << "`: " << summaryTitle(*s) << ", ~" << static_cast<long long>(s->cycles)
           << " cycles, bound by " << s->bound << "\n";
      text += line.str();
    } else if (text.empty()) {
      text = "_" + problem + "_\n";
    }
    if (!o)
      range = focus.kernel->statements[*focus.statement].range;
  }
  if (text.empty())
    return nullptr;
  json j = {{"contents", {{"kind", "markdown"}, {"value", text}}}};
  if (range.valid())
    j["range"] = rangeJson(*a, range);
  return j;
}

} // namespace isam::lsp
