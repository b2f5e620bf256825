#include "syntax/ParseCache.h"
#include "syntax/Parser.h"
#include "syntax/Tokens.h"

#include <algorithm>

namespace isam {

namespace {

// The file of the ranges the cache keeps: offsets into the declaration's own text.
constexpr FileId kDeclaration = kNoFile - 1;

// Copies of AST nodes with every range in file `from` moved to file `to`, `delta` bytes on.
// Ranges in no file stay so.
struct Relocate {
  FileId from, to;
  uint32_t delta;

  SourceRange operator()(SourceRange r) const {
    if (r.file != from)
      return r;
    return {to, r.begin + delta, r.end + delta};
  }
  ast::Ident operator()(const ast::Ident &i) const { return {i.name, (*this)(i.range)}; }
  template <class T> std::optional<T> operator()(const std::optional<T> &o) const {
    return o ? std::optional<T>((*this)(*o)) : std::nullopt;
  }
  template <class T> std::vector<T> operator()(const std::vector<T> &v) const {
    std::vector<T> out;
    out.reserve(v.size());
    for (const auto &x : v)
      out.push_back((*this)(x));
    return out;
  }
  ast::ExprPtr operator()(const ast::ExprPtr &e) const {
    if (!e)
      return nullptr;
    auto out = std::make_unique<ast::Expr>();
    out->kind = e->kind;
    out->range = (*this)(e->range);
    out->number = e->number;
    out->isInteger = e->isInteger;
    out->name = (*this)(e->name);
    out->args = (*this)(e->args);
    out->pad = (*this)(e->pad);
    return out;
  }
  ast::TensorType operator()(const ast::TensorType &t) const {
    return {(*this)(t.elem), (*this)(t.shape), (*this)(t.range)};
  }
  ast::TensorParam operator()(const ast::TensorParam &p) const {
    return {(*this)(p.name), (*this)(p.type), (*this)(p.range)};
  }
  ast::RangeDecl operator()(const ast::RangeDecl &r) const {
    return {(*this)(r.index), (*this)(r.lo), (*this)(r.hi), (*this)(r.range)};
  }
  ast::Statement operator()(const ast::Statement &s) const {
    return {(*this)(s.lhs),     s.op,
            (*this)(s.opRange), (*this)(s.rhs),
            (*this)(s.where),   (*this)(s.guards),
            (*this)(s.range)};
  }
  ast::LocalDecl operator()(const ast::LocalDecl &l) const {
    return {(*this)(l.name), (*this)(l.type), (*this)(l.range)};
  }
  ast::ScheduleValue operator()(const ast::ScheduleValue &v) const {
    return {(*this)(v.name), v.number, (*this)(v.range)};
  }
  ast::ScheduleItem operator()(const ast::ScheduleItem &i) const {
    return {(*this)(i.key), (*this)(i.level), (*this)(i.values), (*this)(i.range)};
  }
  ast::ScheduleBlock operator()(const ast::ScheduleBlock &b) const {
    return {(*this)(b.items), b.afterStatement, (*this)(b.range)};
  }
  ast::KernelDecl operator()(const ast::KernelDecl &k) const {
    return {(*this)(k.name),      (*this)(k.sizeParams), (*this)(k.inputs),
            (*this)(k.outputs),   (*this)(k.locals),     (*this)(k.statements),
            (*this)(k.schedules), (*this)(k.range),      k.incomplete};
  }
  ast::InstanceDecl operator()(const ast::InstanceDecl &i) const {
    return {(*this)(i.name), (*this)(i.kernel), (*this)(i.args), (*this)(i.range)};
  }
  ast::Quantity operator()(const ast::Quantity &q) const {
    return {q.value, q.isInteger, q.unit, (*this)(q.range), (*this)(q.unitRange)};
  }
  ast::Property operator()(const ast::Property &p) const {
    return {(*this)(p.key), (*this)(p.value), (*this)(p.range)};
  }
  ast::MemoryDecl operator()(const ast::MemoryDecl &m) const {
    return {(*this)(m.name), (*this)(m.parent), m.isRegisters, (*this)(m.props), (*this)(m.range)};
  }
  ast::UnitDecl operator()(const ast::UnitDecl &u) const {
    return {(*this)(u.name), (*this)(u.props), (*this)(u.range)};
  }
  ast::OperandDecl operator()(const ast::OperandDecl &o) const {
    return {(*this)(o.name), o.role, (*this)(o.type), (*this)(o.memory), (*this)(o.range)};
  }
  ast::InstrDecl operator()(const ast::InstrDecl &i) const {
    return {i.isMove,
            (*this)(i.name),
            (*this)(i.sizeParams),
            (*this)(i.operands),
            (*this)(i.unit),
            (*this)(i.body),
            (*this)(i.cost),
            i.asmTemplate,
            (*this)(i.asmRange),
            (*this)(i.range),
            i.incomplete};
  }
  ast::LlvmField operator()(const ast::LlvmField &f) const {
    return {(*this)(f.key), f.value, (*this)(f.valueRange)};
  }
  ast::TargetDecl operator()(const ast::TargetDecl &t) const {
    return {(*this)(t.name),  (*this)(t.llvm),   (*this)(t.props), (*this)(t.memories),
            (*this)(t.units), (*this)(t.instrs), (*this)(t.range)};
  }
  ast::MemRef operator()(const ast::MemRef &m) const {
    return {(*this)(m.target), (*this)(m.memory), (*this)(m.range)};
  }
  ast::LinkDecl operator()(const ast::LinkDecl &l) const {
    return {(*this)(l.from), (*this)(l.to), (*this)(l.props), (*this)(l.range)};
  }
  ast::SystemDecl operator()(const ast::SystemDecl &s) const {
    return {(*this)(s.name),   (*this)(s.hosts), (*this)(s.devices),
            (*this)(s.shared), (*this)(s.links), (*this)(s.range)};
  }
  ast::ImportDecl operator()(const ast::ImportDecl &i) const { return {i.path, (*this)(i.range)}; }
  ast::Comment operator()(const ast::Comment &c) const { return {(*this)(c.range)}; }
  std::vector<DiagnosticNote> operator()(const std::vector<DiagnosticNote> &notes) const {
    std::vector<DiagnosticNote> out;
    for (const auto &n : notes)
      out.push_back({(*this)(n.range), n.message});
    return out;
  }
  std::vector<FixIt> operator()(const std::vector<FixIt> &fixes) const {
    std::vector<FixIt> out;
    for (const auto &f : fixes)
      out.push_back({(*this)(f.range), f.replacement});
    return out;
  }

  // Appends the declaration's items to `into`.
  void append(const ast::File &from, ast::File &into) const {
    auto add = [&](auto &to, const auto &items) {
      for (const auto &x : items)
        to.push_back((*this)(x));
    };
    add(into.imports, from.imports);
    add(into.kernels, from.kernels);
    add(into.instances, from.instances);
    add(into.targets, from.targets);
    add(into.systems, from.systems);
    add(into.comments, from.comments);
  }
};

} // namespace

std::vector<std::pair<uint32_t, uint32_t>> ParseCache::split(std::string_view text) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  uint32_t start = 0;
  int depth = 0;
  for (const syntax::Token &t : syntax::lex(text)) {
    if (t.kind != syntax::TokenKind::Punctuation)
      continue;
    std::string_view p = syntax::tokenText(text, t);
    if (p == "{") {
      ++depth;
    } else if (p == "}" || p == ";") {
      if (p == "}")
        depth = std::max(0, depth - 1);
      if (depth == 0) {
        out.push_back({start, t.end});
        start = t.end;
      }
    }
  }
  if (start < text.size() || out.empty())
    out.push_back({start, uint32_t(text.size())});
  return out;
}

ast::File ParseCache::parse(FileId file, const SourceManager &sm, DiagnosticSink &diags) {
  const std::string &text = sm.text(file);
  ast::File result;
  result.id = file;
  for (auto [begin, end] : split(text)) {
    std::string chunk = text.substr(begin, end - begin);
    std::shared_ptr<const ast::File> ast;
    std::vector<Diagnostic> chunkDiags;
    {
      std::lock_guard lock(mutex_);
      if (auto it = entries_.find(chunk); it != entries_.end()) {
        it->second.lastUse = ++clock_;
        ast = it->second.ast;
        chunkDiags = it->second.diagnostics;
        ++reuses_;
      }
    }
    if (!ast) {
      // Parsed alone, then kept with its ranges relative to the declaration.
      SourceManager alone;
      FileId id = alone.addFile(sm.path(file), chunk);
      DiagnosticSink sink;
      ast::File parsed = parseFile(id, alone, sink);
      Relocate toRelative{id, kDeclaration, 0};
      auto relative = std::make_shared<ast::File>();
      toRelative.append(parsed, *relative);
      for (const auto &d : sink.all())
        chunkDiags.push_back({d.severity, d.code, toRelative(d.range), d.message,
                              toRelative(d.notes), toRelative(d.fixits)});
      ast = relative;
      std::lock_guard lock(mutex_);
      ++parses_;
      entries_[chunk] = {ast, chunkDiags, ++clock_};
      if (entries_.size() > maxEntries_) {
        // Drop the least recently used half.
        std::vector<uint64_t> uses;
        for (const auto &[_, e] : entries_)
          uses.push_back(e.lastUse);
        std::nth_element(uses.begin(), uses.begin() + long(uses.size() / 2), uses.end());
        uint64_t cut = uses[uses.size() / 2];
        std::erase_if(entries_, [&](const auto &kv) { return kv.second.lastUse < cut; });
      }
    }
    Relocate place{kDeclaration, file, begin};
    place.append(*ast, result);
    for (const auto &d : chunkDiags) {
      Diagnostic &r = diags.report(d.severity, d.code, place(d.range), d.message);
      r.notes = place(d.notes);
      r.fixits = place(d.fixits);
    }
  }
  return result;
}

size_t ParseCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}
size_t ParseCache::parses() const {
  std::lock_guard lock(mutex_);
  return parses_;
}
size_t ParseCache::reuses() const {
  std::lock_guard lock(mutex_);
  return reuses_;
}

} // namespace isam
