#include "lsp/CallHierarchy.h"
#include "lsp/Convert.h"

#include <algorithm>

namespace isam::lsp {

namespace {

using IK = index::SymbolKind;
using Role = CallHierarchyItem::Role;

std::optional<Role> roleOf(IK k) {
  switch (k) {
  case IK::Instance:
    return Role::Instance;
  case IK::Kernel:
    return Role::Kernel;
  case IK::Instruction:
    return Role::Instruction;
  default:
    return std::nullopt;
  }
}

// An instruction's detail names its target, as several targets' instructions share names.
std::string detailOf(const std::string &detail, IK kind, const std::string &parent) {
  return kind == IK::Instruction && !parent.empty() ? parent + ": " + detail : detail;
}

// Needs a's lock; `s` has a role.
CallHierarchyItem itemOf(Analysis &a, int s) {
  const auto &symbols = a.index().symbols();
  const index::Symbol &sym = symbols[size_t(s)];
  return {sym.name,
          symbolKindOf(sym.kind),
          detailOf(sym.detail, sym.kind, sym.parent >= 0 ? symbols[size_t(sym.parent)].name : ""),
          uriOf(a, sym.nameRange.file),
          rangeOf(a, sym.fullRange),
          rangeOf(a, sym.nameRange),
          keyOfSymbol(a, s),
          *roleOf(sym.kind)};
}

CallHierarchyItem itemOf(const IndexEntry &e, const IndexEntry::Declared &d) {
  return {d.info.name, d.info.kind,    detailOf(d.detail, d.kind, d.info.containerName),
          e.uri,       d.fullRange,    d.info.location.range,
          d.key,       *roleOf(d.kind)};
}

// The item of the declaration `key` with role `role`, from an open analysis or an index entry.
std::optional<CallHierarchyItem> find(const std::string &key, Role role, const Beyond &beyond) {
  for (const auto &b : beyond.open) {
    auto lock = b->lock();
    int s = symbolOfKey(*b, key);
    if (s >= 0 && roleOf(b->index().symbols()[size_t(s)].kind) == role)
      return itemOf(*b, s);
  }
  for (const auto &e : beyond.indexed)
    for (const auto &d : e->symbols)
      if (d.key == key && roleOf(d.kind) == role)
        return itemOf(*e, d);
  return std::nullopt;
}

// Adds a call from or to `item` at `range`: one call per item, each range once.
void add(std::vector<CallHierarchyCall> &calls, CallHierarchyItem item, Range range) {
  for (auto &c : calls)
    if (c.item.key == item.key) {
      if (std::find(c.fromRanges.begin(), c.fromRanges.end(), range) == c.fromRanges.end())
        c.fromRanges.push_back(range);
      return;
    }
  calls.push_back({std::move(item), {range}});
}

bool contains(SourceRange outer, SourceRange inner) {
  return outer.file == inner.file && outer.begin <= inner.begin && inner.end <= outer.end;
}

// The symbol of `a` declaring a kernel of its AST, or -1. Needs a's lock.
int kernelSymbol(Analysis &a, const ast::KernelDecl &k) {
  const auto &symbols = a.index().symbols();
  for (size_t i = 0; i < symbols.size(); ++i)
    if (symbols[i].kind == IK::Kernel && symbols[i].nameRange.file == k.name.range.file &&
        symbols[i].nameRange.begin == k.name.range.begin)
      return int(i);
  return -1;
}

// The instruction of the configured target that runs each statement of `k` (by AST statement;
// -1 where none does), as `a` schedules the kernel for its default instance. Needs a's lock.
std::vector<int> instructionsOf(Analysis &a, const ast::KernelDecl &k, const StopFn &stop) {
  std::vector<int> out(k.statements.size(), -1);
  Analysis::Subject subject{k.name.name, "", ""};
  const ir::Kernel *ir = a.instance(subject);
  const schedule::KernelSchedule *s = ir ? a.schedule(subject, stop) : nullptr;
  if (!s)
    return out;
  for (size_t i = 0; i < k.statements.size(); ++i)
    if (auto at = Analysis::irStatement(*ir, k.statements[i]); at && *at < s->statements.size())
      out[i] = s->statements[*at].config.instruction;
  return out;
}

// Whether the instruction symbol `s` of `a` belongs to the configured target `t` (`host` is
// described by a shipped target of another name). Needs a's lock.
bool ofTarget(Analysis &a, int s, const hw::Target &t) {
  const auto &symbols = a.index().symbols();
  int parent = symbols[size_t(s)].parent;
  return t.name == "host" || parent < 0 || symbols[size_t(parent)].name == t.name;
}

// The analysis to schedule the kernel declared at `key`: an open one whose document declares
// it, else any open one that loads it, else one made on demand.
std::shared_ptr<Analysis> analysisOf(const std::string &key, const Beyond &beyond) {
  std::shared_ptr<Analysis> loads;
  for (const auto &b : beyond.open) {
    auto lock = b->lock();
    int s = symbolOfKey(*b, key);
    if (s < 0)
      continue;
    if (b->index().symbols()[size_t(s)].nameRange.file == b->mainFile())
      return b;
    if (!loads)
      loads = b;
  }
  if (loads || !beyond.analyse)
    return loads;
  return beyond.analyse(key.substr(0, key.rfind('#')));
}

std::vector<CallHierarchyCall> kernelsOfInstance(const CallHierarchyItem &item,
                                                 const Beyond &beyond) {
  std::vector<CallHierarchyCall> calls;
  for (const auto &b : beyond.open) {
    auto lock = b->lock();
    int s = symbolOfKey(*b, item.key);
    if (s < 0)
      continue;
    const auto &symbols = b->index().symbols();
    SourceRange decl = symbols[size_t(s)].fullRange;
    for (const auto &o : b->index().occurrences(decl.file))
      if (o.kind == index::OccurrenceKind::Symbol && o.symbol >= 0 && !o.isDeclaration &&
          contains(decl, o.range) && symbols[size_t(o.symbol)].kind == IK::Kernel)
        add(calls, itemOf(*b, o.symbol), rangeOf(*b, o.range));
    return calls;
  }
  for (const auto &e : beyond.indexed)
    for (size_t i = 0; i < e->symbols.size(); ++i) {
      if (e->symbols[i].key != item.key)
        continue;
      for (const auto &u : e->uses)
        if (u.container == int(i) && !u.isDeclaration)
          if (auto kernel = find(u.key, Role::Kernel, beyond))
            add(calls, std::move(*kernel), u.range);
      return calls;
    }
  return calls;
}

std::vector<CallHierarchyCall> instructionsOfKernel(const CallHierarchyItem &item,
                                                    const Beyond &beyond, const StopFn &stop) {
  std::vector<CallHierarchyCall> calls;
  std::shared_ptr<Analysis> b = analysisOf(item.key, beyond);
  if (!b)
    return calls;
  auto lock = b->lock();
  int s = symbolOfKey(*b, item.key);
  const hw::Target *t = b->target();
  if (s < 0 || !t)
    return calls;
  const index::Symbol &sym = b->index().symbols()[size_t(s)];
  const ast::KernelDecl *k = b->kernelDecl(sym.name);
  if (!k || k->name.range.begin != sym.nameRange.begin || k->name.range.file != sym.nameRange.file)
    return calls;
  std::vector<int> runs = instructionsOf(*b, *k, stop);
  const auto &symbols = b->index().symbols();
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i] < 0)
      continue;
    const std::string &name = t->instructions[size_t(runs[i])].name;
    for (size_t j = 0; j < symbols.size(); ++j)
      if (symbols[j].kind == IK::Instruction && symbols[j].name == name &&
          ofTarget(*b, int(j), *t)) {
        add(calls, itemOf(*b, int(j)), rangeOf(*b, k->statements[i].range));
        break;
      }
  }
  return calls;
}

std::vector<CallHierarchyCall> instancesOfKernel(const CallHierarchyItem &item,
                                                 const Beyond &beyond) {
  std::vector<CallHierarchyCall> calls;
  for (const auto &b : beyond.open) {
    auto lock = b->lock();
    int s = symbolOfKey(*b, item.key);
    if (s < 0)
      continue;
    const auto &symbols = b->index().symbols();
    for (const auto &r : b->index().references(s)) {
      if (r.isDeclaration)
        continue;
      for (size_t i = 0; i < symbols.size(); ++i)
        if (symbols[i].kind == IK::Instance && contains(symbols[i].fullRange, r.range)) {
          add(calls, itemOf(*b, int(i)), rangeOf(*b, r.range));
          break;
        }
    }
  }
  for (const auto &e : beyond.indexed)
    for (const auto &u : e->uses)
      if (u.key == item.key && !u.isDeclaration && u.container >= 0 &&
          e->symbols[size_t(u.container)].kind == IK::Instance)
        add(calls, itemOf(*e, e->symbols[size_t(u.container)]), u.range);
  return calls;
}

std::vector<CallHierarchyCall> kernelsRunning(const CallHierarchyItem &item, const Beyond &beyond,
                                              const StopFn &stop) {
  std::vector<CallHierarchyCall> calls;
  for (const auto &b : beyond.open) {
    if (stop && stop())
      break;
    auto lock = b->lock();
    int s = symbolOfKey(*b, item.key);
    const hw::Target *t = s >= 0 ? b->target() : nullptr;
    if (!t || !ofTarget(*b, s, *t))
      continue;
    for (const auto &k : b->mainAst().kernels) {
      std::vector<int> runs = instructionsOf(*b, k, stop);
      int ks = kernelSymbol(*b, k);
      for (size_t i = 0; i < runs.size(); ++i)
        if (ks >= 0 && runs[i] >= 0 && t->instructions[size_t(runs[i])].name == item.name)
          add(calls, itemOf(*b, ks), rangeOf(*b, k.statements[i].range));
    }
  }
  return calls;
}

} // namespace

std::optional<std::vector<CallHierarchyItem>> prepareCallHierarchy(Analysis &a, Position p) {
  auto lock = a.lock();
  const index::Occurrence *o = a.index().at(a.mainFile(), offsetOf(a, p));
  if (!o || o->kind != index::OccurrenceKind::Symbol || o->symbol < 0 ||
      !roleOf(a.index().symbols()[size_t(o->symbol)].kind))
    return std::nullopt;
  return std::vector<CallHierarchyItem>{itemOf(a, o->symbol)};
}

std::vector<CallHierarchyCall> incomingCalls(const CallHierarchyItem &item, const Beyond &beyond,
                                             const StopFn &stop) {
  switch (item.role) {
  case Role::Kernel:
    return instancesOfKernel(item, beyond);
  case Role::Instruction:
    return kernelsRunning(item, beyond, stop);
  case Role::Instance:
    break;
  }
  return {};
}

std::vector<CallHierarchyCall> outgoingCalls(const CallHierarchyItem &item, const Beyond &beyond,
                                             const StopFn &stop) {
  switch (item.role) {
  case Role::Instance:
    return kernelsOfInstance(item, beyond);
  case Role::Kernel:
    return instructionsOfKernel(item, beyond, stop);
  case Role::Instruction:
    break;
  }
  return {};
}

} // namespace isam::lsp
