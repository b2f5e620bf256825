// Completion and signature help. The context comes from where the cursor is in the AST (top
// level, a kernel, a statement, a schedule block, a target, a system); the candidates from the
// symbol index, the configured target's memories and instructions, and the language's fixed
// vocabulary. The client filters by what has been typed.
#include "lsp/Convert.h"
#include "lsp/Features.h"

#include "sema/ScheduleKeys.h"
#include "sema/Sema.h"
#include "syntax/Tokens.h"

namespace isam::lsp {

namespace {

enum ItemKind {
  Method = 2,
  Function = 3,
  Field = 5,
  Variable = 6,
  Class = 7,
  Module = 9,
  Property = 10,
  Keyword = 14,
  Struct = 22,
  TypeParameter = 25,
  Constant = 21,
};

bool within(SourceRange r, uint32_t offset) {
  return offset > r.begin && offset <= r.end;
}

class Items {
public:
  void add(const std::string &label, int kind, const std::string &detail = {}) {
    if (!seen_.insert(label).second)
      return;
    json j = {{"label", label}, {"kind", kind}};
    if (!detail.empty())
      j["detail"] = detail;
    items_.push_back(std::move(j));
  }
  void keywords(std::initializer_list<const char *> words) {
    for (const char *w : words)
      add(w, Keyword);
  }
  json take() { return std::move(items_); }

private:
  json items_ = json::array();
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
                   int parent, int kind) {
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

json completion(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  uint32_t offset = offsetIn(*a, required(call.params, "position"));
  const ast::File &file = a->mainAst();
  Items items;
  for (const auto &k : file.kernels)
    if (within(k.range, offset)) {
      kernelItems(*a, items, k, offset);
      return {{"isIncomplete", false}, {"items", items.take()}};
    }
  for (const auto &t : file.targets)
    if (within(t.range, offset)) {
      targetItems(*a, items, t);
      return {{"isIncomplete", false}, {"items", items.take()}};
    }
  for (const auto &s : file.systems)
    if (within(s.range, offset)) {
      items.keywords({"host", "device", "shared", "link"});
      symbolsOfKind(*a, items, {index::SymbolKind::Target}, -2, Module);
      return {{"isIncomplete", false}, {"items", items.take()}};
    }
  items.keywords({"import", "kernel", "instance", "target", "system"});
  symbolsOfKind(*a, items, {index::SymbolKind::Kernel}, -2, Function);
  return {{"isIncomplete", false}, {"items", items.take()}};
}

json signatureHelp(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  uint32_t offset = offsetIn(*a, required(call.params, "position"));
  const std::string &text = a->sources().text(a->mainFile());
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
        return nullptr;
      std::string callee(syntax::tokenText(text, tokens[i - 1]));
      json parameters = json::array();
      std::string label;
      if (t == "<") {
        const ast::KernelDecl *k = a->kernelDecl(callee);
        if (!k)
          return nullptr;
        label = callee + "<";
        for (size_t p = 0; p < k->sizeParams.size(); ++p) {
          if (p)
            label += ", ";
          uint32_t begin = uint32_t(label.size());
          label += k->sizeParams[p].name;
          parameters.push_back({{"label", {begin, uint32_t(label.size())}}});
        }
        label += ">";
      } else {
        const sema::FunctionInfo *fn = nullptr;
        for (const auto &f : sema::knownFunctions())
          if (callee == f.name)
            fn = &f;
        if (!fn)
          return nullptr;
        label = callee + "(x";
        parameters.push_back({{"label", {callee.size() + 1, callee.size() + 2}}});
        if (fn->arity == 2) {
          label += ", y";
          parameters.push_back({{"label", {callee.size() + 4, callee.size() + 5}}});
        }
        label += ")";
      }
      return {{"signatures", {{{"label", label}, {"parameters", parameters}}}},
              {"activeSignature", 0},
              {"activeParameter", commas}};
    } else if (t == "," && depth == 0) {
      ++commas;
    } else if ((t == ";" || t == "{" || t == "}") && depth == 0) {
      return nullptr;
    }
  }
  return nullptr;
}

} // namespace isam::lsp
