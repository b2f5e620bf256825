#include "lsp/Completion.h"
#include "lsp/Convert.h"

#include "sema/ScheduleKeys.h"
#include "sema/Sema.h"
#include "syntax/Tokens.h"

namespace isam::lsp {

namespace {

using Kind = CompletionItem::Kind;
constexpr Kind Method = Kind::Method, Function = Kind::Function, Variable = Kind::Variable,
               Class = Kind::Class, Module = Kind::Module, Property = Kind::Property,
               Keyword = Kind::Keyword, Struct = Kind::Struct, TypeParameter = Kind::TypeParameter,
               Constant = Kind::Constant;

bool within(SourceRange r, uint32_t offset) {
  return offset > r.begin && offset <= r.end;
}

class Items {
public:
  void add(const std::string &label, Kind kind, const std::string &detail = {}) {
    if (seen_.insert(label).second)
      list_.items.push_back({label, kind, detail});
  }
  void keywords(std::initializer_list<const char *> words) {
    for (const char *w : words)
      add(w, Keyword);
  }
  CompletionList take() { return std::move(list_); }

private:
  CompletionList list_;
  std::set<std::string> seen_;
};

void elementTypes(Items &items) {
  for (const char *t : {"f16", "bf16", "f32", "f64", "i8", "i32"})
    items.add(t, TypeParameter, "element type");
}

void functions(Items &items) {
  for (const auto &f : sema::knownFunctions())
    items.add(f.name, Function, f.arity == 1 ? "(x)" : "(x, y)");
  // Conversions are written as calls of the element type.
  elementTypes(items);
}

void symbolsOfKind(Analysis &a, Items &items, std::initializer_list<index::SymbolKind> kinds,
                   int parent, Kind kind) {
  for (const auto &s : a.index().symbols())
    for (auto k : kinds)
      if (s.kind == k && (parent == -2 || s.parent == parent))
        items.add(s.name, kind, s.detail);
}

// The index symbol declared by an AST name range, or -1.
int symbolDeclaredAt(Analysis &a, SourceRange name) {
  const auto *o = a.index().at(name.file, name.begin);
  return o && o->kind == index::OccurrenceKind::Symbol ? o->symbol : -1;
}

void kernelItems(Analysis &a, Items &items, const ast::KernelDecl &k, uint32_t offset) {
  int kernel = symbolDeclaredAt(a, k.name.range);
  for (int c : kernel >= 0 ? a.index().children(kernel) : std::vector<int>{}) {
    const auto &s = a.index().symbols()[size_t(c)];
    if (s.kind == index::SymbolKind::Tensor)
      items.add(s.name, Variable, s.detail);
    else if (s.kind == index::SymbolKind::SizeParam)
      items.add(s.name, Constant, "size parameter");
    else if (s.kind == index::SymbolKind::Index && within(s.fullRange, offset))
      items.add(s.name, Variable, s.detail);
  }
  for (const auto &block : k.schedules)
    if (within(block.range, offset)) {
      for (const auto &key : sema::kScheduleKeys)
        items.add(std::string(key.name), Keyword,
                  std::string(key.syntax) + " (" + std::string(key.doc) + ")");
      if (const hw::Target *t = a.target()) {
        for (const auto &m : t->memories)
          items.add(m.name, Struct, "memory of " + t->name);
        for (const auto &i : t->instructions)
          items.add(i.name, Method, (i.isMove ? "move of " : "instruction of ") + t->name);
      }
      // The indices of the statement the block pins.
      if (block.afterStatement > 0 && block.afterStatement <= k.statements.size())
        for (int c : kernel >= 0 ? a.index().children(kernel) : std::vector<int>{}) {
          const auto &s = a.index().symbols()[size_t(c)];
          if (s.kind == index::SymbolKind::Index &&
              s.fullRange.begin == k.statements[block.afterStatement - 1].range.begin)
            items.add(s.name, Variable, s.detail);
        }
      return;
    }
  items.keywords({"local", "where", "in", "schedule"});
  functions(items);
}

void targetItems(Analysis &a, Items &items, const ast::TargetDecl &t) {
  items.keywords({"llvm", "memory", "registers", "unit", "instr", "move", "on", "in", "out",
                  "inout", "cost", "asm"});
  for (auto block :
       {sema::PropertyBlock::Target, sema::PropertyBlock::Memory, sema::PropertyBlock::Registers,
        sema::PropertyBlock::Unit, sema::PropertyBlock::Cost})
    for (const auto &key : sema::propertyKeys(block))
      items.add(key, Property, "property");
  for (const auto &field : sema::llvmFields())
    items.add(field, Property, "llvm field");
  int target = symbolDeclaredAt(a, t.name.range);
  for (int c : target >= 0 ? a.index().children(target) : std::vector<int>{}) {
    const auto &s = a.index().symbols()[size_t(c)];
    items.add(s.name, s.kind == index::SymbolKind::Unit ? Class : Struct, s.detail);
  }
  elementTypes(items);
}

} // namespace

CompletionList completion(Analysis &a, Position p) {
  auto lock = a.lock();
  uint32_t offset = offsetOf(a, p);
  const ast::File &file = a.mainAst();
  Items items;
  for (const auto &k : file.kernels)
    if (within(k.range, offset)) {
      kernelItems(a, items, k, offset);
      return items.take();
    }
  for (const auto &t : file.targets)
    if (within(t.range, offset)) {
      targetItems(a, items, t);
      return items.take();
    }
  for (const auto &s : file.systems)
    if (within(s.range, offset)) {
      items.keywords({"host", "device", "shared", "link"});
      symbolsOfKind(a, items, {index::SymbolKind::Target}, -2, Module);
      return items.take();
    }
  items.keywords({"import", "kernel", "instance", "target", "system"});
  symbolsOfKind(a, items, {index::SymbolKind::Kernel}, -2, Function);
  return items.take();
}

std::optional<SignatureHelp> signatureHelp(Analysis &a, Position position) {
  auto lock = a.lock();
  uint32_t offset = offsetOf(a, position);
  const std::string &text = a.sources().text(a.mainFile());
  std::vector<syntax::Token> tokens = syntax::lex(std::string_view(text).substr(0, offset));
  // Walk back to the innermost unclosed `<` or `(` before the cursor, counting commas.
  int depth = 0, commas = 0;
  for (size_t i = tokens.size(); i-- > 0;) {
    std::string_view t = syntax::tokenText(text, tokens[i]);
    if (tokens[i].kind != syntax::TokenKind::Punctuation)
      continue;
    if (t == ">" || t == ")" || t == "]") {
      ++depth;
    } else if (t == "<" || t == "(" || t == "[") {
      if (depth-- > 0)
        continue;
      if (t == "[" || i == 0 || tokens[i - 1].kind != syntax::TokenKind::Identifier)
        return std::nullopt;
      std::string callee(syntax::tokenText(text, tokens[i - 1]));
      SignatureHelp help;
      std::string &label = help.label;
      if (t == "<") {
        const ast::KernelDecl *k = a.kernelDecl(callee);
        if (!k)
          return std::nullopt;
        label = callee + "<";
        for (size_t p = 0; p < k->sizeParams.size(); ++p) {
          if (p)
            label += ", ";
          uint32_t begin = uint32_t(label.size());
          label += k->sizeParams[p].name;
          help.parameters.push_back({begin, uint32_t(label.size())});
        }
        label += ">";
      } else {
        const sema::FunctionInfo *fn = nullptr;
        for (const auto &f : sema::knownFunctions())
          if (callee == f.name)
            fn = &f;
        if (!fn)
          return std::nullopt;
        label = callee + "(x";
        help.parameters.push_back({uint32_t(callee.size() + 1), uint32_t(callee.size() + 2)});
        if (fn->arity == 2) {
          label += ", y";
          help.parameters.push_back({uint32_t(callee.size() + 4), uint32_t(callee.size() + 5)});
        }
        label += ")";
      }
      help.activeParameter = uint32_t(commas);
      return help;
    } else if (t == "," && depth == 0) {
      ++commas;
    } else if ((t == ";" || t == "{" || t == "}") && depth == 0) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

} // namespace isam::lsp
