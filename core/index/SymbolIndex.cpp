// Name resolution over ASTs (see SymbolIndex.h). The rules are sema's: sema/Kernels.cpp (top-level
// names, kernel scopes, implicit locals), sema/Lowering.cpp (in a statement, a name is a size
// parameter, else a tensor, else an index of that statement) and sema/Hardware.cpp (targets,
// property blocks, instructions, systems) and sema/ScheduleBlocks.cpp (`schedule` blocks).
#include "index/SymbolIndex.h"

#include "ir/Compute.h"
#include "sema/ScheduleKeys.h"
#include "sema/Sema.h"
#include "syntax/Tokens.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <unordered_map>

namespace isam::index {

const char *symbolKindName(SymbolKind kind) {
  switch (kind) {
  case SymbolKind::Kernel:
    return "kernel";
  case SymbolKind::Instance:
    return "instance";
  case SymbolKind::Target:
    return "target";
  case SymbolKind::System:
    return "system";
  case SymbolKind::Memory:
    return "memory";
  case SymbolKind::Registers:
    return "registers";
  case SymbolKind::Unit:
    return "unit";
  case SymbolKind::Instruction:
    return "instruction";
  case SymbolKind::Move:
    return "move";
  case SymbolKind::SizeParam:
    return "size parameter";
  case SymbolKind::Tensor:
    return "tensor";
  case SymbolKind::Index:
    return "index";
  case SymbolKind::Operand:
    return "operand";
  }
  return "symbol";
}

namespace {

using ExprKind = ast::Expr::Kind;

bool isIdentifier(std::string_view w) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (w.empty() || !alpha(w[0]))
    return false;
  return std::all_of(w.begin() + 1, w.end(),
                     [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

bool isElemType(std::string_view w) {
  return ir::parseElemType(std::string(w)).has_value();
}

bool isFunction(std::string_view w) {
  for (const auto &f : sema::knownFunctions())
    if (w == f.name)
      return true;
  return false;
}

using Block = sema::PropertyBlock;

bool isPropertyKey(Block b, std::string_view key) {
  auto keys = sema::propertyKeys(b);
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// ---- short texts for details ------------------------------------------------------------------

// The grammar's levels, loosest first; comparisons do not chain, so a comparison on the right
// of one keeps its parentheses.
constexpr int kCompareLevel = 4;
int precedence(const ast::Expr &e) {
  switch (e.kind) {
  case ExprKind::Select:
    return 0;
  case ExprKind::Or:
    return 1;
  case ExprKind::And:
    return 2;
  case ExprKind::Not:
    return 3;
  case ExprKind::Lt:
  case ExprKind::Le:
  case ExprKind::Gt:
  case ExprKind::Ge:
  case ExprKind::Eq:
  case ExprKind::Ne:
    return kCompareLevel;
  case ExprKind::Add:
  case ExprKind::Sub:
    return 5;
  case ExprKind::Mul:
  case ExprKind::Div:
  case ExprKind::Mod:
    return 6;
  case ExprKind::Neg:
    return 7;
  default:
    return 8;
  }
}

const char *binaryText(ExprKind k) {
  switch (k) {
  case ExprKind::Add:
    return " + ";
  case ExprKind::Sub:
    return " - ";
  case ExprKind::Mul:
    return " * ";
  case ExprKind::Div:
    return " / ";
  case ExprKind::Mod:
    return " % ";
  case ExprKind::Lt:
    return " < ";
  case ExprKind::Le:
    return " <= ";
  case ExprKind::Gt:
    return " > ";
  case ExprKind::Ge:
    return " >= ";
  case ExprKind::Eq:
    return " == ";
  case ExprKind::Ne:
    return " != ";
  case ExprKind::And:
    return " && ";
  case ExprKind::Or:
    return " || ";
  default:
    return " ? ";
  }
}

void appendExpr(std::string &out, const ast::Expr *e);

void appendOperand(std::string &out, const ast::Expr *e, bool parens) {
  if (parens)
    out += '(';
  appendExpr(out, e);
  if (parens)
    out += ')';
}

void appendList(std::string &out, const std::vector<ast::ExprPtr> &args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (i)
      out += ", ";
    appendExpr(out, args[i].get());
  }
}

void appendExpr(std::string &out, const ast::Expr *e) {
  if (!e) {
    out += '?';
    return;
  }
  switch (e->kind) {
  case ExprKind::Number: {
    char buf[32];
    if (e->isInteger && e->number < 1e18)
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(e->number));
    else
      std::snprintf(buf, sizeof buf, "%g", e->number);
    out += buf;
    return;
  }
  case ExprKind::Name:
    out += e->name.name;
    return;
  case ExprKind::Access:
  case ExprKind::Call:
    out += e->name.name;
    out += e->kind == ExprKind::Access ? '[' : '(';
    appendList(out, e->args);
    out += e->kind == ExprKind::Access ? ']' : ')';
    if (e->pad) {
      out += " pad ";
      appendExpr(out, e->pad.get());
    }
    return;
  case ExprKind::Neg:
  case ExprKind::Not:
    out += e->kind == ExprKind::Neg ? '-' : '!';
    if (!e->args.empty())
      appendOperand(out, e->args[0].get(), e->args[0] && precedence(*e->args[0]) <= precedence(*e));
    return;
  case ExprKind::Select:
    if (e->args.size() != 3)
      return;
    appendOperand(out, e->args[0].get(), e->args[0] && precedence(*e->args[0]) == 0);
    out += " ? ";
    appendExpr(out, e->args[1].get());
    out += " : ";
    appendExpr(out, e->args[2].get());
    return;
  default: {
    if (e->args.size() != 2)
      return;
    int p = precedence(*e);
    const ast::Expr *l = e->args[0].get(), *r = e->args[1].get();
    appendOperand(out, l, l && precedence(*l) < p);
    out += binaryText(e->kind);
    // `a - (b - c)` and `a / (b * c)` keep their parentheses.
    bool rightParens =
        r && (precedence(*r) < p ||
              (precedence(*r) == p && (e->kind == ExprKind::Sub || e->kind == ExprKind::Div ||
                                       e->kind == ExprKind::Mod || p == kCompareLevel)));
    appendOperand(out, r, rightParens);
    return;
  }
  }
}

std::string typeText(const ast::TensorType &t) {
  std::string out = t.elem.name;
  if (!t.shape.empty()) {
    out += '[';
    appendList(out, t.shape);
    out += ']';
  }
  return out;
}

std::string paramNames(const std::vector<ast::TensorParam> &ps) {
  std::string out;
  for (const auto &p : ps)
    out += (out.empty() ? "" : ", ") + p.name.name;
  return out;
}

std::string sizeList(const std::vector<ast::Ident> &sizes) {
  if (sizes.empty())
    return "";
  std::string out = "<";
  for (size_t i = 0; i < sizes.size(); ++i)
    out += (i ? ", " : "") + sizes[i].name;
  return out + ">";
}

std::string kernelDetail(const ast::KernelDecl &k) {
  return sizeList(k.sizeParams) + "(" + paramNames(k.inputs) + ") -> (" + paramNames(k.outputs) +
         ")";
}

std::string instrDetail(const ast::InstrDecl &in) {
  std::string out = sizeList(in.sizeParams) + "(";
  for (size_t i = 0; i < in.operands.size(); ++i)
    out += (i ? ", " : "") + in.operands[i].name.name;
  out += ")";
  if (in.unit)
    out += " on " + in.unit->name;
  return out;
}

std::string operandDetail(const ast::OperandDecl &op) {
  std::string out;
  if (op.role != ast::OperandRole::In)
    out = std::string(ast::operandRoleText(op.role)) + " ";
  out += typeText(op.type);
  if (op.memory)
    out += " in " + op.memory->name;
  return out;
}

std::string instanceDetail(const ast::InstanceDecl &i) {
  std::string out = i.kernel.name;
  if (!i.args.empty()) {
    out += '<';
    appendList(out, i.args);
    out += '>';
  }
  return out;
}

std::string systemDetail(const ast::SystemDecl &s) {
  std::string out;
  for (const auto &h : s.hosts)
    out += (out.empty() ? "host " : ", host ") + h.name;
  for (const auto &d : s.devices)
    out += (out.empty() ? "device " : ", device ") + d.name;
  return out;
}

std::string targetDetail(const ast::TargetDecl &t) {
  for (const auto &f : t.llvm)
    if (f.key.name == "triple")
      return f.value;
  return "";
}

// ---- scopes -----------------------------------------------------------------------------------

// Names to symbols. Scopes are mostly a handful of names, searched linearly; a large one (every
// kernel of a big file) gets a hash table. Keys view the AST's strings, which outlive the build.
class Scope {
public:
  int find(std::string_view name) const {
    if (!hashed_.empty()) {
      auto it = hashed_.find(name);
      return it == hashed_.end() ? -1 : it->second;
    }
    // Most names are a letter or two: compare the first before calling memcmp.
    for (const auto &[n, s] : names_)
      if (n.size() == name.size() && !n.empty() && n[0] == name[0] && n == name)
        return s;
    return -1;
  }
  // The first declaration wins, as in sema.
  void add(std::string_view name, int symbol) {
    if (find(name) >= 0)
      return;
    names_.emplace_back(name, symbol);
    if (!hashed_.empty())
      hashed_.emplace(name, symbol);
    else if (names_.size() > 16)
      hashed_.insert(names_.begin(), names_.end());
  }

private:
  std::vector<std::pair<std::string_view, int>> names_;
  std::unordered_map<std::string_view, int> hashed_;
};

// What the names in a kernel's or an instruction's statements can refer to, besides the
// statement's own indices.
struct Names {
  int owner = -1; // the kernel or instruction
  Scope sizes, tensors;
  // Kernels: an undeclared written tensor is an implicit local (sema/Kernels.cpp lowerBody).
  // Instructions: it is an unknown tensor.
  bool implicitLocals = false;
};

struct TargetInfo {
  int symbol = -1;
  Scope memories, units, instrs;
  std::vector<int> memorySymbols, unitSymbols, instrSymbols; // per declaration, in order
};

// Occurrences in order of file and offset, the declaration before a use at the same place.
bool before(const Occurrence &x, const Occurrence &y) {
  if (x.range.file != y.range.file)
    return x.range.file < y.range.file;
  if (x.range.begin != y.range.begin)
    return x.range.begin < y.range.begin;
  return x.isDeclaration && !y.isDeclaration;
}

class Builder {
public:
  std::vector<Symbol> symbols;
  std::vector<int> statementOf;
  // Every file's occurrences, in segments: one per top-level declaration, each sorted.
  std::vector<Occurrence> occurrences;
  std::vector<std::pair<size_t, size_t>> segments;

  void run(const std::vector<const ast::File *> &files) {
    // Top-level names first: a use may precede its declaration or sit in another file. The
    // order (per file: kernels, instances, targets, systems) is sema's collectSymbols', so the
    // same declaration wins a clash.
    std::vector<int> kernelSymbols, instanceSymbols, systemSymbols;
    for (const ast::File *f : files) {
      if (!f)
        continue;
      for (const auto &k : f->kernels)
        kernels_.add(k.name.name, kernelSymbols.emplace_back(declareOnly(
                                      SymbolKind::Kernel, k.name, k.range, -1, kernelDetail(k))));
      for (const auto &i : f->instances)
        instances_.add(i.name.name,
                       instanceSymbols.emplace_back(declareOnly(SymbolKind::Instance, i.name,
                                                                i.range, -1, instanceDetail(i))));
      for (const auto &t : f->targets)
        declareTarget(t);
      for (const auto &s : f->systems)
        targetNames_.add(s.name.name,
                         systemSymbols.emplace_back(declareOnly(SymbolKind::System, s.name, s.range,
                                                                -1, systemDetail(s))));
    }
    // Then each declaration's body, as one segment of occurrences. Sorting segments one by one
    // and then ordering them is much cheaper than sorting everything (the index is rebuilt on
    // every edit), and declarations do not overlap.
    auto segment = [&](auto &&resolve) {
      size_t start = occurrences.size();
      resolve();
      // Mostly in order already: declarations are resolved in the order they are written.
      if (!std::is_sorted(occurrences.begin() + ptrdiff_t(start), occurrences.end(), before))
        std::sort(occurrences.begin() + ptrdiff_t(start), occurrences.end(), before);
      if (occurrences.size() > start)
        segments.emplace_back(start, occurrences.size());
    };
    size_t k = 0, i = 0, t = 0, s = 0;
    for (const ast::File *f : files) {
      if (!f)
        continue;
      for (const auto &decl : f->kernels)
        segment([&] { kernel(decl, kernelSymbols[k++]); });
      for (const auto &decl : f->instances)
        segment([&] { instance(decl, instanceSymbols[i++]); });
      for (const auto &decl : f->targets)
        segment([&] { target(decl, targets_[t++]); });
      for (const auto &decl : f->systems)
        segment([&] { system(decl, systemSymbols[s++]); });
    }
  }

private:
  // A symbol and the occurrence that declares it.
  int declare(SymbolKind kind, const ast::Ident &name, SourceRange full, int parent,
              std::string detail) {
    int id = declareOnly(kind, name, full, parent, std::move(detail));
    declaration(id);
    return id;
  }

  // A symbol whose declaring occurrence comes later, in its declaration's segment.
  int declareOnly(SymbolKind kind, const ast::Ident &name, SourceRange full, int parent,
                  std::string detail) {
    Symbol s;
    s.kind = kind;
    s.name = name.name;
    s.nameRange = name.range;
    s.fullRange = name.range;
    if (full.valid() && full.file == name.range.file)
      s.fullRange = {full.file, std::min(full.begin, name.range.begin),
                     std::max(full.end, name.range.end)};
    s.parent = parent;
    s.detail = std::move(detail);
    symbols.push_back(std::move(s));
    statementOf.push_back(-1);
    return int(symbols.size() - 1);
  }

  void declaration(int symbol) {
    const SourceRange &r = symbols[size_t(symbol)].nameRange;
    if (r.valid())
      occurrences.push_back({r, OccurrenceKind::Symbol, symbol, true});
  }

  // A use of `symbol`, or an unresolved name when it is -1. At the declaring identifier, it is
  // the declaration (symbols declared by a statement are declared that way, in source order).
  void ref(const ast::Ident &name, int symbol) {
    if (!name.range.valid())
      return;
    bool declaring = symbol >= 0 && symbols[size_t(symbol)].nameRange.begin == name.range.begin &&
                     symbols[size_t(symbol)].nameRange.file == name.range.file;
    occurrences.push_back({name.range,
                           symbol >= 0 ? OccurrenceKind::Symbol : OccurrenceKind::Unresolved,
                           symbol, declaring});
  }

  void mark(SourceRange range, OccurrenceKind kind) {
    if (range.valid())
      occurrences.push_back({range, kind, -1, false});
  }

  void callee(const ast::Ident &name) {
    mark(name.range, isElemType(name.name)   ? OccurrenceKind::ElemType
                     : isFunction(name.name) ? OccurrenceKind::Function
                                             : OccurrenceKind::Unresolved);
  }

  // Names in an expression. As in sema/Lowering.cpp, a name is a size parameter, else a tensor,
  // else (in a statement) an index; an access names a tensor. Shapes, `where` bounds and
  // instance arguments have no indices (`indices` null).
  void resolve(const ast::Expr &e, const Names &n, const Scope *indices) {
    switch (e.kind) {
    case ExprKind::Number:
      return;
    case ExprKind::Name: {
      int s = n.sizes.find(e.name.name);
      if (s < 0)
        s = n.tensors.find(e.name.name);
      if (s < 0 && indices)
        s = indices->find(e.name.name);
      ref(e.name, s);
      return;
    }
    case ExprKind::Access:
      ref(e.name, n.tensors.find(e.name.name));
      break;
    case ExprKind::Call:
      callee(e.name);
      break;
    default:
      break;
    }
    for (const auto &a : e.args)
      if (a)
        resolve(*a, n, indices);
  }

  // The names that are indices of a statement: in index position (inside an access's brackets),
  // neither a size parameter nor a tensor (sema's StatementLowerer::affine).
  void collectIndices(const ast::Expr &e, bool indexPosition, const Names &n,
                      std::vector<const ast::Ident *> &out) {
    if (e.kind == ExprKind::Name && indexPosition && n.sizes.find(e.name.name) < 0 &&
        n.tensors.find(e.name.name) < 0)
      out.push_back(&e.name);
    for (const auto &a : e.args)
      if (a)
        collectIndices(*a, indexPosition || e.kind == ExprKind::Access, n, out);
  }

  void tensorType(const ast::TensorType &t, const Names &n) {
    mark(t.elem.range,
         isElemType(t.elem.name) ? OccurrenceKind::ElemType : OccurrenceKind::Unresolved);
    for (const auto &d : t.shape)
      if (d)
        resolve(*d, n, nullptr);
  }

  // One statement of a kernel or an instruction; its indices go to `indices`.
  void statement(const ast::Statement &s, Names &n, Scope &indices) {
    int scope = statementCount_++;
    const ast::Expr *lhs = s.lhs.get();
    if (lhs) {
      const ast::Ident &written = lhs->name;
      int t = n.tensors.find(written.name);
      if (t < 0)
        t = n.sizes.find(written.name); // an error in sema, but this is what it names
      if (t < 0 && n.implicitLocals) {
        t = declareOnly(SymbolKind::Tensor, written, s.range, n.owner, "implicit local");
        n.tensors.add(written.name, t);
      }
      ref(written, t);
    }

    // The indices, each declared by its `where` range if it has one, else by its first use.
    uses_.clear();
    if (lhs)
      for (const auto &a : lhs->args)
        if (a)
          collectIndices(*a, true, n, uses_);
    size_t onLeft = uses_.size();
    if (s.rhs)
      collectIndices(*s.rhs, false, n, uses_);
    for (const auto &w : s.where)
      if (n.sizes.find(w.index.name) < 0)
        uses_.push_back(&w.index);
    for (size_t u = 0; u < uses_.size(); ++u) {
      const std::string &name = uses_[u]->name;
      if (indices.find(name) >= 0)
        continue;
      const ast::RangeDecl *range = nullptr;
      for (const auto &w : s.where)
        if (w.index.name == name && !range)
          range = &w;
      bool written = false;
      for (size_t l = 0; l < onLeft; ++l)
        written = written || uses_[l]->name == name;
      std::string detail = written ? "index" : "reduction index";
      if (range) {
        detail += " in ";
        appendExpr(detail, range->lo.get());
        detail += "..";
        appendExpr(detail, range->hi.get());
      }
      const char *joiner = ", where ";
      for (const auto &g : s.guards)
        if (g && mentions(*g, name)) {
          detail += joiner;
          appendExpr(detail, g.get());
          joiner = ", ";
        }
      int id = declareOnly(SymbolKind::Index, range ? range->index : *uses_[u], s.range, n.owner,
                           std::move(detail));
      statementOf[id] = scope;
      indices.add(name, id);
    }

    if (lhs)
      for (const auto &a : lhs->args)
        if (a)
          resolve(*a, n, &indices);
    if (s.rhs)
      resolve(*s.rhs, n, &indices);
    for (const auto &w : s.where) {
      int sz = n.sizes.find(w.index.name);
      ref(w.index, sz >= 0 ? sz : indices.find(w.index.name));
      if (w.lo)
        resolve(*w.lo, n, nullptr);
      if (w.hi)
        resolve(*w.hi, n, nullptr);
    }
    for (const auto &g : s.guards)
      if (g)
        resolve(*g, n, &indices);
  }

  static bool mentions(const ast::Expr &e, const std::string &name) {
    if (e.kind == ast::Expr::Kind::Name && e.name.name == name)
      return true;
    for (const auto &a : e.args)
      if (a && mentions(*a, name))
        return true;
    return false;
  }

  void kernel(const ast::KernelDecl &k, int self) {
    declaration(self);
    Names n;
    n.owner = self;
    n.implicitLocals = true;
    for (const auto &p : k.sizeParams)
      n.sizes.add(p.name, declare(SymbolKind::SizeParam, p, p.range, self, ""));
    auto tensor = [&](const ast::Ident &name, const ast::TensorType &type, SourceRange full,
                      std::string detail, bool output) {
      int t = declare(SymbolKind::Tensor, name, full, self, std::move(detail));
      symbols[t].isOutput = output;
      n.tensors.add(name.name, t);
      tensorType(type, n);
    };
    for (const auto &p : k.inputs)
      tensor(p.name, p.type, p.range, typeText(p.type), false);
    for (const auto &p : k.outputs)
      tensor(p.name, p.type, p.range, typeText(p.type), true);
    for (const auto &l : k.locals)
      tensor(l.name, l.type, l.range, "local " + typeText(l.type), false);
    std::vector<Scope> statements(k.statements.size());
    for (size_t i = 0; i < k.statements.size(); ++i)
      statement(k.statements[i], n, statements[i]);
    for (const auto &b : k.schedules)
      schedule(b, statements);
  }

  // A `schedule` block pins the statement written before it (sema/ScheduleBlocks.h). Its
  // levels and instructions belong to the target the kernel is scheduled for, which the file
  // does not say: the target declaring the block's `map` instruction is preferred, else the
  // first loaded target that declares the name.
  void schedule(const ast::ScheduleBlock &b, const std::vector<Scope> &statements) {
    const Scope *indices = b.afterStatement >= 1 && b.afterStatement <= statements.size()
                               ? &statements[b.afterStatement - 1]
                               : nullptr;
    const TargetInfo *preferred = nullptr;
    auto isMap = [](const ast::ScheduleItem &item) {
      const sema::ScheduleKeyInfo *key = sema::scheduleKey(item.key.name);
      return key && key->key == sema::ScheduleKey::Map;
    };
    for (const auto &item : b.items)
      if (isMap(item))
        for (const auto &v : item.values)
          for (const TargetInfo &t : targets_)
            if (v.name && !preferred && t.instrs.find(v.name->name) >= 0)
              preferred = &t;
    for (const auto &item : b.items) {
      mark(item.key.range, sema::scheduleKey(item.key.name) ? OccurrenceKind::ScheduleKey
                                                            : OccurrenceKind::Unresolved);
      if (item.level) {
        int m = preferred ? preferred->memories.find(item.level->name) : -1;
        for (size_t t = 0; t < targets_.size() && m < 0; ++t)
          m = targets_[t].memories.find(item.level->name);
        ref(*item.level, m);
      }
      for (const auto &v : item.values) {
        if (!v.name)
          continue;
        int s = -1;
        if (isMap(item)) {
          for (size_t t = 0; t < targets_.size() && s < 0; ++t)
            s = targets_[t].instrs.find(v.name->name);
        } else if (indices) {
          s = indices->find(v.name->name);
        }
        ref(*v.name, s);
      }
    }
  }

  void instance(const ast::InstanceDecl &i, int self) {
    declaration(self);
    ref(i.kernel, kernels_.find(i.kernel.name));
    static const Names none; // instance arguments are constants
    for (const auto &a : i.args)
      if (a)
        resolve(*a, none, nullptr);
  }

  void declareTarget(const ast::TargetDecl &t) {
    TargetInfo &info = targets_.emplace_back();
    info.symbol = declareOnly(SymbolKind::Target, t.name, t.range, -1, targetDetail(t));
    targetNames_.add(t.name.name, info.symbol);
    targetInfo_[info.symbol] = targets_.size() - 1;
    for (const auto &m : t.memories) {
      int id = declareOnly(m.isRegisters ? SymbolKind::Registers : SymbolKind::Memory, m.name,
                           m.range, info.symbol, m.parent ? m.parent->name : "");
      info.memories.add(m.name.name, id);
      info.memorySymbols.push_back(id);
    }
    for (const auto &u : t.units) {
      int id = declareOnly(SymbolKind::Unit, u.name, u.range, info.symbol, "");
      info.units.add(u.name.name, id);
      info.unitSymbols.push_back(id);
    }
    for (const auto &in : t.instrs) {
      int id = declareOnly(in.isMove ? SymbolKind::Move : SymbolKind::Instruction, in.name,
                           in.range, info.symbol, instrDetail(in));
      info.instrs.add(in.name.name, id);
      info.instrSymbols.push_back(id);
    }
  }

  void properties(const std::vector<ast::Property> &props, Block block) {
    for (const auto &p : props) {
      mark(p.key.range, isPropertyKey(block, p.key.name) ? OccurrenceKind::PropertyKey
                                                         : OccurrenceKind::Unresolved);
      // `B/cycle` is two words; the unit's range runs from the first to the second.
      const ast::Quantity &q = p.value;
      if (q.unit.empty() || !q.unitRange.valid())
        continue;
      std::string_view unit = q.unit;
      size_t slash = unit.find('/');
      std::string_view first = unit.substr(0, slash);
      std::string_view second = slash == std::string_view::npos ? "" : unit.substr(slash + 1);
      uint32_t begin = q.unitRange.begin, end = q.unitRange.end;
      if (end < begin || first.size() + second.size() > end - begin)
        continue;
      auto kind = [](std::string_view w) {
        return sema::isUnitOfMeasure(std::string(w)) ? OccurrenceKind::UnitOfMeasure
                                                     : OccurrenceKind::Unresolved;
      };
      mark({q.unitRange.file, begin, begin + uint32_t(first.size())}, kind(first));
      if (slash != std::string_view::npos)
        mark({q.unitRange.file, end - uint32_t(second.size()), end}, kind(second));
    }
  }

  void target(const ast::TargetDecl &t, TargetInfo &info) {
    declaration(info.symbol);
    for (const auto &f : t.llvm)
      mark(f.key.range, std::find(sema::llvmFields().begin(), sema::llvmFields().end(),
                                  f.key.name) != sema::llvmFields().end()
                            ? OccurrenceKind::LlvmKey
                            : OccurrenceKind::Unresolved);
    properties(t.props, Block::Target);
    for (size_t i = 0; i < t.memories.size(); ++i) {
      const ast::MemoryDecl &m = t.memories[i];
      declaration(info.memorySymbols[i]);
      if (m.parent)
        ref(*m.parent, info.memories.find(m.parent->name));
      properties(m.props, m.isRegisters ? Block::Registers : Block::Memory);
    }
    for (size_t i = 0; i < t.units.size(); ++i) {
      declaration(info.unitSymbols[i]);
      properties(t.units[i].props, Block::Unit);
    }
    for (size_t i = 0; i < t.instrs.size(); ++i)
      instruction(t.instrs[i], info.instrSymbols[i], info);
  }

  void instruction(const ast::InstrDecl &in, int self, const TargetInfo &info) {
    declaration(self);
    Names n;
    n.owner = self;
    for (const auto &p : in.sizeParams)
      n.sizes.add(p.name, declare(SymbolKind::SizeParam, p, p.range, self, ""));
    for (const auto &op : in.operands) {
      int o = declare(SymbolKind::Operand, op.name, op.range, self, operandDetail(op));
      symbols[o].isOutput = op.role != ast::OperandRole::In;
      n.tensors.add(op.name.name, o);
      tensorType(op.type, n);
      if (op.memory)
        ref(*op.memory, info.memories.find(op.memory->name));
    }
    if (in.unit)
      ref(*in.unit, info.units.find(in.unit->name));
    for (const auto &s : in.body) {
      Scope indices;
      statement(s, n, indices);
    }
    properties(in.cost, Block::Cost);
    asmPlaceholders(in, n);
  }

  // `{name}` in an asm template names an operand or a size parameter (sema/Hardware.cpp checks
  // it the same way; `{{` is a literal brace). Offsets into the literal are exact only when it
  // has no escape sequence, that is when it is two quotes longer than its value.
  void asmPlaceholders(const ast::InstrDecl &in, const Names &n) {
    if (!in.asmTemplate || !in.asmRange.valid() ||
        in.asmRange.end - in.asmRange.begin != in.asmTemplate->size() + 2)
      return;
    const std::string &a = *in.asmTemplate;
    for (size_t open = a.find('{'); open != std::string::npos; open = a.find('{', open + 1)) {
      if (open + 1 < a.size() && a[open + 1] == '{') {
        ++open;
        continue;
      }
      size_t close = a.find('}', open);
      if (close == std::string::npos)
        break;
      std::string_view name(a.data() + open + 1, close - open - 1);
      if (!isIdentifier(name))
        continue;
      int s = n.sizes.find(name);
      if (s < 0)
        s = n.tensors.find(name);
      uint32_t begin = in.asmRange.begin + 1 + uint32_t(open) + 1;
      occurrences.push_back({{in.asmRange.file, begin, begin + uint32_t(name.size())},
                             s >= 0 ? OccurrenceKind::Symbol : OccurrenceKind::Unresolved,
                             s,
                             false});
    }
  }

  // `host X;` and `device X;` name targets; a system there is an error (sema buildSystem).
  int targetNamed(std::string_view name) const {
    int t = targetNames_.find(name);
    return t >= 0 && symbols[t].kind == SymbolKind::Target ? t : -1;
  }

  void memRef(const ast::MemRef &r) {
    int t = targetNamed(r.target.name);
    ref(r.target, t);
    auto info = targetInfo_.find(t);
    ref(r.memory,
        info == targetInfo_.end() ? -1 : targets_[info->second].memories.find(r.memory.name));
  }

  void system(const ast::SystemDecl &s, int self) {
    declaration(self);
    for (const auto &h : s.hosts)
      ref(h, targetNamed(h.name));
    for (const auto &d : s.devices)
      ref(d, targetNamed(d.name));
    for (const auto &group : s.shared)
      for (const auto &r : group)
        memRef(r);
    for (const auto &l : s.links) {
      memRef(l.from);
      memRef(l.to);
      properties(l.props, Block::Link);
    }
  }

  Scope kernels_, instances_;
  Scope targetNames_; // targets and systems: one namespace
  std::vector<TargetInfo> targets_;
  std::unordered_map<int, size_t> targetInfo_; // target symbol to targets_
  int statementCount_ = 0;
  std::vector<const ast::Ident *> uses_; // scratch for statement()
};

} // namespace

SymbolIndex SymbolIndex::build(const std::vector<const ast::File *> &files) {
  Builder b;
  b.run(files);
  SymbolIndex out;

  // Occurrences by file and offset: the segments (each sorted) ordered by their first
  // occurrence. A use recorded where its symbol is declared is dropped. Should segments ever
  // overlap, a file's occurrences are sorted as a whole instead.
  for (const ast::File *f : files)
    if (f && std::none_of(out.files_.begin(), out.files_.end(),
                          [&](const auto &e) { return e.first == f->id; }))
      out.files_.emplace_back(f->id, std::vector<Occurrence>{});
  const auto &occ = b.occurrences;
  std::sort(b.segments.begin(), b.segments.end(),
            [&](const auto &x, const auto &y) { return before(occ[x.first], occ[y.first]); });
  size_t f = 0;
  for (const auto &[begin, end] : b.segments)
    for (size_t i = begin; i < end; ++i) {
      const Occurrence &o = occ[i];
      if (f >= out.files_.size() || out.files_[f].first != o.range.file) {
        f = size_t(std::find_if(out.files_.begin(), out.files_.end(),
                                [&](const auto &e) { return e.first == o.range.file; }) -
                   out.files_.begin());
        if (f == out.files_.size())
          out.files_.emplace_back(o.range.file, std::vector<Occurrence>{});
      }
      std::vector<Occurrence> &list = out.files_[f].second;
      if (list.empty() || list.back().range.begin != o.range.begin)
        list.push_back(o);
    }
  for (auto &[id, list] : out.files_)
    if (!std::is_sorted(list.begin(), list.end(), before)) {
      std::sort(list.begin(), list.end(), before);
      list.erase(std::unique(list.begin(), list.end(),
                             [](const Occurrence &x, const Occurrence &y) {
                               return x.range.begin == y.range.begin;
                             }),
                 list.end());
    }

  // Children in source order, bucketed by parent (parent -1 is bucket 0).
  out.symbols_ = std::move(b.symbols);
  out.statementOf_ = std::move(b.statementOf);
  size_t n = out.symbols_.size();
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    const SourceRange &a = out.symbols_[x].nameRange, &c = out.symbols_[y].nameRange;
    return std::pair(a.file, a.begin) < std::pair(c.file, c.begin);
  });
  out.childStart_.assign(n + 2, 0);
  for (const Symbol &s : out.symbols_)
    ++out.childStart_[size_t(s.parent + 1) + 1];
  std::partial_sum(out.childStart_.begin(), out.childStart_.end(), out.childStart_.begin());
  out.childList_.resize(n);
  std::vector<uint32_t> cursor(out.childStart_.begin(), out.childStart_.end() - 1);
  for (int s : order)
    out.childList_[cursor[size_t(out.symbols_[s].parent + 1)]++] = s;
  return out;
}

const std::vector<Occurrence> &SymbolIndex::occurrences(FileId file) const {
  for (const auto &[id, occ] : files_)
    if (id == file)
      return occ;
  static const std::vector<Occurrence> none;
  return none;
}

const Occurrence *SymbolIndex::at(FileId file, uint32_t offset) const {
  const auto &occ = occurrences(file);
  // The last occurrence beginning at or before the offset: one starting exactly there wins over
  // one ending there (identifiers are never adjacent, but `B/cycle`'s words nearly are).
  auto it = std::upper_bound(occ.begin(), occ.end(), offset,
                             [](uint32_t o, const Occurrence &x) { return o < x.range.begin; });
  if (it == occ.begin())
    return nullptr;
  --it;
  return offset <= it->range.end ? &*it : nullptr;
}

std::vector<Occurrence> SymbolIndex::references(int symbol) const {
  std::vector<Occurrence> out;
  if (symbol < 0 || size_t(symbol) >= symbols_.size())
    return out;
  for (const auto &[id, occ] : files_)
    for (const Occurrence &o : occ)
      if (o.symbol == symbol && o.kind == OccurrenceKind::Symbol)
        out.push_back(o);
  std::stable_partition(out.begin(), out.end(),
                        [](const Occurrence &o) { return o.isDeclaration; });
  return out;
}

std::vector<int> SymbolIndex::topLevel(FileId file) const {
  std::vector<int> out;
  if (childStart_.size() < 2)
    return out;
  for (uint32_t i = childStart_[0]; i < childStart_[1]; ++i)
    if (symbols_[childList_[i]].nameRange.file == file)
      out.push_back(childList_[i]);
  return out;
}

std::vector<int> SymbolIndex::children(int symbol) const {
  if (symbol < 0 || size_t(symbol) >= symbols_.size())
    return {};
  return {childList_.begin() + childStart_[size_t(symbol) + 1],
          childList_.begin() + childStart_[size_t(symbol) + 2]};
}

bool SymbolIndex::canRename(int symbol, std::string_view newName, std::string *why) const {
  auto no = [&](std::string reason) {
    if (why)
      *why = std::move(reason);
    return false;
  };
  if (symbol < 0 || size_t(symbol) >= symbols_.size())
    return no("there is no symbol to rename here");
  std::string quoted(1, '\'');
  quoted.append(newName).push_back('\'');
  if (!isIdentifier(newName))
    return no(quoted + " is not an identifier (a letter or '_', then letters, digits or '_')");
  if (syntax::isKeyword(newName))
    return no(quoted + " is a keyword");
  if (isElemType(newName))
    return no(quoted + " is an element type");
  if (isFunction(newName))
    return no(quoted + " is a function");

  const Symbol &s = symbols_[size_t(symbol)];
  using SK = SymbolKind;
  auto local = [](SK k) { return k == SK::SizeParam || k == SK::Tensor || k == SK::Operand; };
  // Whether `o`, named newName, would clash with `s` renamed: it shares s's namespace, or one of
  // the two would capture the other's uses (a kernel's tensors and sizes against the indices of
  // its statements).
  auto clashes = [&](const Symbol &o, size_t other) {
    switch (s.kind) {
    case SK::Kernel:
    case SK::Instance:
      return o.kind == s.kind;
    case SK::Target:
    case SK::System:
      return o.kind == SK::Target || o.kind == SK::System;
    case SK::Memory:
    case SK::Registers:
      return o.parent == s.parent && (o.kind == SK::Memory || o.kind == SK::Registers);
    case SK::Unit:
      return o.parent == s.parent && o.kind == SK::Unit;
    case SK::Instruction:
    case SK::Move:
      return o.parent == s.parent && (o.kind == SK::Instruction || o.kind == SK::Move);
    case SK::SizeParam:
    case SK::Tensor:
    case SK::Operand:
      return o.parent == s.parent && (local(o.kind) || o.kind == SK::Index);
    case SK::Index:
      return o.parent == s.parent &&
             (local(o.kind) ||
              (o.kind == SK::Index && statementOf_[other] == statementOf_[size_t(symbol)]));
    }
    return false;
  };
  for (size_t i = 0; i < symbols_.size(); ++i) {
    const Symbol &o = symbols_[i];
    if (int(i) == symbol || o.name != newName || !clashes(o, i))
      continue;
    std::string reason = quoted + " is already the name of ";
    reason += o.kind == SK::Index ? "an " : "a ";
    reason += symbolKindName(o.kind);
    if (s.kind == SK::Index && o.kind == SK::Index)
      reason += " of the same statement";
    if (s.parent >= 0)
      reason += " in " + symbols_[size_t(s.parent)].name;
    return no(std::move(reason));
  }
  return true;
}

} // namespace isam::index
