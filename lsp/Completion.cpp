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

// What the text right before the cursor says: the word being typed, the word before it, and
// whether the cursor is inside brackets opened since the last `;`, `{` or `}`.
struct Context {
  std::string prefix;   // the identifier characters just before the cursor
  std::string previous; // the word before them (`in`, `on`, `map`, ...), if any
  bool subscript = false;
};

bool identifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

Context contextAt(const std::string &text, uint32_t offset) {
  Context c;
  size_t at = std::min<size_t>(offset, text.size());
  size_t start = at;
  while (start > 0 && identifierChar(text[start - 1]))
    --start;
  c.prefix = text.substr(start, at - start);
  size_t end = start;
  while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t'))
    --end;
  size_t word = end;
  while (word > 0 && identifierChar(text[word - 1]))
    --word;
  c.previous = text.substr(word, end - word);
  int depth = 0;
  for (size_t i = start; i > 0; --i) {
    char ch = text[i - 1];
    if (ch == ';' || ch == '{' || ch == '}')
      break;
    if (ch == ']' || ch == ')')
      ++depth;
    else if (ch == '[' && depth-- == 0) {
      c.subscript = true;
      break;
    } else if (ch == '(')
      --depth;
  }
  return c;
}

bool startsWithIgnoringCase(const std::string &label, const std::string &prefix) {
  if (prefix.size() > label.size())
    return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(label[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

// Names in scope first, then the language's functions and types, then keywords.
std::string rank(Kind kind) {
  switch (kind) {
  case Kind::Variable:
  case Kind::Constant:
  case Kind::Struct:
  case Kind::Method:
  case Kind::Class:
    return "0";
  case Kind::Keyword:
    return "2";
  default:
    return "1";
  }
}

class Items {
public:
  explicit Items(std::string prefix = {}) : prefix_(std::move(prefix)) {}
  void add(const std::string &label, Kind kind, const std::string &detail = {}) {
    if (!startsWithIgnoringCase(label, prefix_))
      return;
    if (seen_.insert(label).second)
      list_.items.push_back({label, kind, detail, rank(kind) + label});
  }
  void keywords(std::initializer_list<const char *> words) {
    for (const char *w : words)
      add(w, Keyword);
  }
  CompletionList take() {
    list_.incomplete = !prefix_.empty();
    return std::move(list_);
  }

private:
  std::string prefix_;
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

void kernelItems(Analysis &a, Items &items, const ast::KernelDecl &k, uint32_t offset,
                 const Context &context) {
  int kernel = symbolDeclaredAt(a, k.name.range);
  for (const auto &block : k.schedules)
    if (within(block.range, offset)) {
      // `map INSTR`, `tile MEMORY: ...` and `order MEMORY: ...` name one thing each.
      bool instruction = context.previous == "map";
      bool memory = context.previous == "tile" || context.previous == "order";
      if (!instruction && !memory)
        for (const auto &key : sema::kScheduleKeys)
          items.add(std::string(key.name), Keyword,
                    std::string(key.syntax) + " (" + std::string(key.doc) + ")");
      if (const hw::Target *t = a.target()) {
        if (!instruction)
          for (const auto &m : t->memories)
            items.add(m.name, Struct, "memory of " + t->name);
        if (!memory)
          for (const auto &i : t->instructions)
            if (!instruction || !i.isMove)
              items.add(i.name, Method, (i.isMove ? "move of " : "instruction of ") + t->name);
      }
      if (instruction || memory)
        return;
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
  // In the signature (before the body), brackets hold shapes: size parameters only.
  size_t body = a.sources().text(k.range.file).find('{', k.range.begin);
  bool signature = body == std::string::npos || offset <= body;
  for (int c : kernel >= 0 ? a.index().children(kernel) : std::vector<int>{}) {
    const auto &s = a.index().symbols()[size_t(c)];
    if (s.kind == index::SymbolKind::SizeParam)
      items.add(s.name, Constant, "size parameter");
    else if (signature && context.subscript)
      continue;
    else if (s.kind == index::SymbolKind::Tensor && !context.subscript)
      items.add(s.name, Variable, s.detail);
    else if (s.kind == index::SymbolKind::Index && within(s.fullRange, offset))
      items.add(s.name, Variable, s.detail);
  }
  // A subscript holds an affine expression of indices and sizes: no keywords, functions or types.
  if (context.subscript)
    return;
  if (signature) {
    elementTypes(items);
    return;
  }
  items.keywords({"local", "where", "in", "pad", "schedule"});
  functions(items);
}

void targetItems(Analysis &a, Items &items, const ast::TargetDecl &t, const Context &context) {
  int target = symbolDeclaredAt(a, t.name.range);
  // `... in MEMORY` places an operand, `on UNIT` an instruction: only those names fit there.
  if (context.previous == "in" || context.previous == "on") {
    for (int c : target >= 0 ? a.index().children(target) : std::vector<int>{}) {
      const auto &s = a.index().symbols()[size_t(c)];
      bool unit = s.kind == index::SymbolKind::Unit;
      bool memory = s.kind == index::SymbolKind::Memory || s.kind == index::SymbolKind::Registers;
      if ((context.previous == "on" && unit) || (context.previous == "in" && memory))
        items.add(s.name, unit ? Class : Struct, s.detail);
    }
    return;
  }
  items.keywords({"llvm", "memory", "registers", "unit", "instr", "move", "on", "in", "out",
                  "inout", "cost", "asm"});
  for (auto block :
       {sema::PropertyBlock::Target, sema::PropertyBlock::Memory, sema::PropertyBlock::Registers,
        sema::PropertyBlock::Unit, sema::PropertyBlock::Cost})
    for (const auto &key : sema::propertyKeys(block))
      items.add(key, Property, "property");
  for (const auto &field : sema::llvmFields())
    items.add(field, Property, "llvm field");
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
  Context context = contextAt(a.sources().text(a.mainFile()), offset);
  Items items(context.prefix);
  for (const auto &k : file.kernels)
    if (within(k.range, offset)) {
      kernelItems(a, items, k, offset, context);
      return items.take();
    }
  for (const auto &t : file.targets)
    if (within(t.range, offset)) {
      targetItems(a, items, t, context);
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
