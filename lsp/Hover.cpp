#include "lsp/Hover.h"
#include "lsp/Convert.h"

#include "sema/ScheduleKeys.h"
#include "sema/Sema.h"

#include <sstream>

namespace isam::lsp {

namespace {

using index::OccurrenceKind;
using index::SymbolKind;

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

// A name of a kernel in the instance that stands for it (the focus's, when the focus is in that
// kernel).
HoverInfo::InInstance inInstance(Analysis &a, const index::Symbol &s, const index::Symbol &kernel,
                                 const Focus &focus) {
  HoverInfo::InInstance out;
  Analysis::Subject subject{kernel.name, focus.subject.instance, focus.subject.target};
  if (focus.subject.kernel != kernel.name)
    subject.instance.clear();
  const ir::Kernel *ir = a.instance(subject, &out.problem);
  if (!ir)
    return out;
  out.instance = ir->name;
  if (s.kind == SymbolKind::Tensor) {
    int t = ir->tensorIndex(s.name);
    if (t >= 0)
      out.value = shape(ir->tensors[size_t(t)]);
    else
      out.missing = "not used";
  } else if (s.kind == SymbolKind::SizeParam) {
    for (const auto &[name, value] : ir->sizes)
      if (name == s.name)
        out.value = name + " = " + std::to_string(value);
  } else if (s.kind == SymbolKind::Kernel) {
    out.value = ir->kernelName + "<";
    for (size_t i = 0; i < ir->sizes.size(); ++i)
      out.value += (i ? ", " : "") + std::to_string(ir->sizes[i].second);
    out.value += ">";
    out.flops = ir->flopCount();
  } else if (focus.kernel && focus.statement) {
    // An index: its range in this statement of the instance.
    if (std::optional<size_t> st = irStatementOf(focus, *ir)) {
      std::string solved; // the indices of strided writes (ir/StridedWrites.h)
      for (const auto &i : ir->statements[*st].indices) {
        if (i.name == s.name) {
          out.value = i.name + " in 0.." + std::to_string(i.extent);
          out.reduction = i.reduction;
        }
        if (i.name.back() == '\'')
          solved += (solved.empty() ? "" : ", ") + i.name + " in 0.." + std::to_string(i.extent);
      }
      if (out.value.empty() && !solved.empty())
        out.value = "solved away by the strided write, which runs over " + solved;
    }
    if (out.value.empty())
      out.missing = "range not inferred";
  }
  return out;
}

void describeSymbol(Analysis &a, const index::Symbol &s, const Focus &focus, HoverInfo &info) {
  switch (s.kind) {
  case SymbolKind::Instruction:
  case SymbolKind::Move:
  case SymbolKind::Memory:
  case SymbolKind::Registers:
  case SymbolKind::Unit:
    // The declaration is the documentation: semantics, operands, cost.
    info.definition = declarationText(a, s.fullRange);
    break;
  default:
    info.definition = std::string(index::symbolKindName(s.kind)) + " " + s.name +
                      (s.detail.empty() ? "" : ": " + s.detail);
  }
  const index::Symbol *k = kernelOf(a, s);
  if (k && (s.kind == SymbolKind::Tensor || s.kind == SymbolKind::Index ||
            s.kind == SymbolKind::SizeParam || s.kind == SymbolKind::Kernel))
    info.inInstance = inInstance(a, s, *k, focus);
}

// An element type, a function or a schedule block's key: the language's vocabulary.
void describeWord(const index::Occurrence &o, const std::string &word, HoverInfo &info) {
  if (o.kind == OccurrenceKind::ElemType) {
    if (auto t = ir::parseElemType(word)) {
      info.definition = "type " + word;
      info.documentation = std::to_string(ir::elemTypeBytes(*t)) + "-byte " +
                           (ir::isFloat(*t) ? "floating-point" : "integer") + " element";
    }
  } else if (o.kind == OccurrenceKind::ScheduleKey) {
    if (const sema::ScheduleKeyInfo *key = sema::scheduleKey(word)) {
      info.definition = std::string(key->syntax);
      info.documentation = "Pins " + std::string(key->doc) + ".";
    }
  } else if (o.kind == OccurrenceKind::Function) {
    for (const auto &f : sema::knownFunctions())
      if (word == f.name) {
        info.definition = word + "(" + (f.arity == 1 ? "x" : "x, y") + ")";
        info.documentation = "Element-wise: " + std::string(f.doc) + ".";
      }
  }
}

} // namespace

std::optional<HoverInfo> hover(Analysis &a, Position position, const StopFn &stop) {
  auto lock = a.lock();
  uint32_t offset = offsetOf(a, position);
  const index::Occurrence *o = a.index().at(a.mainFile(), offset);
  Focus focus = focusOf(a, FocusParams{position, {}, {}});
  HoverInfo info;
  if (o) {
    info.range = rangeOf(a, o->range);
    if (o->kind == OccurrenceKind::Symbol)
      describeSymbol(a, a.index().symbols()[size_t(o->symbol)], focus, info);
    else
      describeWord(
          *o, a.sources().text(a.mainFile()).substr(o->range.begin, o->range.end - o->range.begin),
          info);
  }
  // How the statement under the cursor runs.
  if (focus.kernel && focus.statement && (!o || o->kind == OccurrenceKind::Symbol)) {
    info.statement = focus.statement;
    info.run = summarize(a, focus, stop, &info.runProblem);
    if (!o)
      info.range = rangeOf(a, focus.kernel->statements[*focus.statement].range);
  }
  if (info.definition.empty() && !info.statement)
    return std::nullopt;
  return info;
}

std::string markdown(const HoverInfo &info) {
  std::ostringstream out;
  auto code = [&](const std::string &text) { out << "```isam\n" << text << "\n```\n"; };
  if (!info.definition.empty()) {
    code(info.definition);
    if (!info.documentation.empty())
      out << "\n" << info.documentation << "\n";
  }
  if (const auto &v = info.inInstance) {
    if (v->instance.empty()) {
      out << "\n_" << v->problem << "_\n";
    } else {
      out << "\nIn instance `" << v->instance << "`: ";
      if (!v->value.empty())
        out << '`' << v->value << '`';
      else
        out << v->missing;
      if (v->flops)
        out << ", " << *v->flops << " floating-point operations";
      if (v->reduction)
        out << " (reduction: summed over)";
      out << "\n";
    }
  }
  if (info.run && info.statement) {
    const StatementSummary &s = *info.run;
    if (out.tellp() > 0) // a rule between sections, none above the first
      out << "\n---\n";
    out << "**s" << *info.statement << "** of `" << s.instance << "` on `" << s.target
        << "`: " << summaryTitle(s) << ", ~" << static_cast<long long>(s.cycles)
        << " cycles, bound by " << s.bound << "\n";
    if (!s.search.empty())
      out << "\n_" << s.search << "_\n";
  } else if (info.definition.empty()) {
    out << "_" << info.runProblem << "_\n";
  }
  return out.str();
}

} // namespace isam::lsp
