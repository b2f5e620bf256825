// Targets and systems: declarations to the hardware model.
#include "sema/Limits.h"
#include "sema/Lowering.h"

#include <cmath>
#include <set>

namespace isam::sema {

namespace {

enum class QuantityKind { Count, Bytes, Frequency, Bandwidth, Cycles, Rate };

const char *example(QuantityKind k) {
  switch (k) {
  case QuantityKind::Count:
    return "a positive whole number such as '4'";
  case QuantityKind::Bytes:
    return "a positive size such as '32 KiB' or '64 B'";
  case QuantityKind::Frequency:
    return "a frequency such as '3.0 GHz'";
  case QuantityKind::Bandwidth:
    return "a positive bandwidth such as '64 B/cycle' or '20 GB/s'";
  case QuantityKind::Cycles:
    return "a number of cycles such as '4' or '4 cycles'";
  case QuantityKind::Rate:
    return "a rate such as '2' or '1/16' (instructions per cycle)";
  }
  return "";
}

std::optional<double> bytesUnit(const std::string &u) {
  static const std::map<std::string, double> units = {
      {"B", 1},           {"KB", 1e3},           {"MB", 1e6},
      {"GB", 1e9},        {"TB", 1e12},          {"KiB", 1024.0},
      {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
  };
  if (auto it = units.find(u); it != units.end())
    return it->second;
  return std::nullopt;
}

std::optional<double> frequencyUnit(const std::string &u) {
  static const std::map<std::string, double> units = {
      {"Hz", 1}, {"kHz", 1e3}, {"KHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
  if (auto it = units.find(u); it != units.end())
    return it->second;
  return std::nullopt;
}

// What each property block accepts, and the kind of value each key takes.
const std::map<std::string, QuantityKind> &propertyTable(PropertyBlock block) {
  using QK = QuantityKind;
  static const std::map<PropertyBlock, std::map<std::string, QuantityKind>> tables = {
      {PropertyBlock::Target, {{"cores", QK::Count}, {"clock", QK::Frequency}}},
      {PropertyBlock::Memory,
       {{"size", QK::Bytes},
        {"line", QK::Bytes},
        {"banks", QK::Count},
        {"bandwidth", QK::Bandwidth},
        {"latency", QK::Cycles}}},
      {PropertyBlock::Registers,
       {{"count", QK::Count}, {"width", QK::Bytes}, {"latency", QK::Cycles}}},
      {PropertyBlock::Unit, {{"count", QK::Count}, {"queue", QK::Count}}},
      {PropertyBlock::Cost,
       {{"latency", QK::Cycles}, {"per_cycle", QK::Rate}, {"bandwidth", QK::Bandwidth}}},
      {PropertyBlock::Link, {{"bandwidth", QK::Bandwidth}, {"latency", QK::Cycles}}},
  };
  return tables.at(block);
}

// A property value in base units: bytes, Hz, bytes per cycle (or per second, flagged), cycles.
struct Value {
  double amount = 0;
  bool perSecond = false; // bandwidth given per second; converted once the clock is known
};

// The largest value a property may take: counts, register widths and line sizes are held in 32
// bits; memory sizes and bandwidths are bounded like tensors (2^62 bytes); cycles and clocks by
// what a double counts exactly.
double maxValue(const std::string &key, QuantityKind kind) {
  switch (kind) {
  case QuantityKind::Count:
    return double(int64_t(1) << 31);
  case QuantityKind::Bytes:
    return key == "size" ? double(int64_t(1) << 62) : double(int64_t(1) << 31);
  case QuantityKind::Bandwidth:
    return double(int64_t(1) << 62);
  default:
    return 1e18;
  }
}

std::optional<Value> quantity(const ast::Property &p, QuantityKind kind, DiagnosticSink &diags) {
  const ast::Quantity &q = p.value;
  auto bad = [&]() -> std::optional<Value> {
    diags.error("E0503", q.range, "'" + p.key.name + "' expects " + example(kind));
    return std::nullopt;
  };
  if (!std::isfinite(q.value) || q.value < 0 || q.value > 1e18)
    return bad();
  std::optional<Value> v;
  switch (kind) {
  case QuantityKind::Count:
    if (!q.unit.empty() || !q.isInteger || q.value < 1)
      return bad();
    v = Value{q.value};
    break;
  case QuantityKind::Rate:
    if (!q.unit.empty() || q.value <= 0)
      return bad();
    v = Value{q.value};
    break;
  case QuantityKind::Cycles:
    if (!q.unit.empty() && q.unit != "cycles" && q.unit != "cycle")
      return bad();
    v = Value{q.value};
    break;
  case QuantityKind::Bytes: {
    auto scale = bytesUnit(q.unit);
    if (!scale || q.value <= 0)
      return bad();
    v = Value{q.value * *scale};
    // Memories hold whole bytes: `size 0.5 B` would be a memory of no byte at all.
    if (v->amount != std::floor(v->amount) || v->amount < 1) {
      diags.error("E0503", q.range,
                  "'" + p.key.name + "' is not a whole number of bytes; it expects " +
                      example(kind));
      return std::nullopt;
    }
    break;
  }
  case QuantityKind::Frequency: {
    auto scale = frequencyUnit(q.unit);
    if (!scale || q.value <= 0)
      return bad();
    v = Value{q.value * *scale};
    break;
  }
  case QuantityKind::Bandwidth: {
    auto slash = q.unit.find('/');
    if (slash == std::string::npos || q.value <= 0)
      return bad();
    auto scale = bytesUnit(q.unit.substr(0, slash));
    std::string per = q.unit.substr(slash + 1);
    if (!scale || (per != "cycle" && per != "s"))
      return bad();
    v = Value{q.value * *scale, per == "s"};
    break;
  }
  }
  if (v && v->amount > maxValue(p.key.name, kind)) {
    diags.error("E0503", q.range, "'" + p.key.name + "' is too large; it expects " + example(kind));
    return std::nullopt;
  }
  return v;
}

// Reads a block of properties against a table of known keys; unknown and repeated keys are
// diagnosed with a suggestion.
class PropertyReader {
public:
  PropertyReader(const std::vector<ast::Property> &props, PropertyBlock block,
                 const std::string &where, DiagnosticSink &diags)
      : known_(propertyTable(block)), diags_(diags) {
    std::vector<std::string> names;
    for (const auto &[k, _] : known_)
      names.push_back(k);
    for (const auto &p : props) {
      if (!known_.count(p.key.name)) {
        std::string list;
        for (const auto &n : names)
          list += (list.empty() ? "" : ", ") + n;
        auto &d = diags_.error("E0502", p.key.range,
                               "unknown " + where + " property '" + p.key.name + "'");
        if (auto m = closestMatch(p.key.name, names); !m.empty())
          d.message += "; did you mean '" + m + "'?", d.fix(p.key.range, m);
        else
          d.message += " (known: " + list + ")";
        ok = false;
        continue;
      }
      if (values_.count(p.key.name)) {
        diags_.error("E0201", p.key.range, "'" + p.key.name + "' is given twice");
        ok = false;
        continue;
      }
      auto v = quantity(p, known_.at(p.key.name), diags_);
      if (!v) {
        ok = false;
        continue;
      }
      values_[p.key.name] = *v;
    }
  }

  std::optional<Value> get(const std::string &key) const {
    auto it = values_.find(key);
    return it == values_.end() ? std::nullopt : std::optional<Value>(it->second);
  }
  double getOr(const std::string &key, double fallback) const {
    auto v = get(key);
    return v ? v->amount : fallback;
  }
  // Bandwidth in bytes per cycle, converting a per-second figure with the target's clock.
  double bandwidth(const std::string &key, double clockHz) const {
    auto v = get(key);
    if (!v)
      return 0;
    return v->perSecond ? v->amount / clockHz : v->amount;
  }

  bool ok = true;

private:
  std::map<std::string, QuantityKind> known_;
  std::map<std::string, Value> values_;
  DiagnosticSink &diags_;
};

using QK = QuantityKind;

bool buildInstruction(const ast::InstrDecl &in, hw::Target &t, DiagnosticSink &diags) {
  hw::Instruction out;
  out.name = in.name.name;
  out.isMove = in.isMove;
  out.range = in.range;
  bool ok = true;

  detail::LowerContext ctx;
  ctx.instruction = true;
  ctx.incomplete = in.incomplete;
  static const std::map<std::string, int64_t> unbound;
  ctx.sizes.values = &unbound; // instruction size parameters stay free
  for (const auto &p : in.sizeParams) {
    if (ctx.sizes.names.count(p.name)) {
      diags.error("E0201", p.range, "size parameter '" + p.name + "' is declared twice");
      ok = false;
    }
    ctx.sizes.names.insert(p.name);
    out.sizeParams.push_back(p.name);
  }
  std::set<std::string> operandNames;
  for (const auto &op : in.operands) {
    if (!operandNames.insert(op.name.name).second || ctx.sizes.names.count(op.name.name)) {
      diags.error("E0201", op.name.range, "'" + op.name.name + "' is declared twice");
      ok = false;
      continue;
    }
    ir::Tensor tensor;
    tensor.name = op.name.name;
    tensor.range = op.name.range;
    tensor.role = op.role == ast::OperandRole::In    ? ir::TensorRole::Input
                  : op.role == ast::OperandRole::Out ? ir::TensorRole::Output
                                                     : ir::TensorRole::InOut;
    if (auto et = ir::parseElemType(op.type.elem.name)) {
      tensor.type = *et;
    } else {
      diags.error("E0301", op.type.elem.range, "unknown element type '" + op.type.elem.name + "'");
      ok = false;
    }
    for (const auto &dim : op.type.shape) {
      if (dim->kind == ast::Expr::Kind::Name && ctx.sizes.names.count(dim->name.name)) {
        tensor.shape.push_back(0);
        tensor.shapeParams.push_back(dim->name.name);
        continue;
      }
      size_t before = diags.errorCount();
      auto v = detail::evalSize(*dim, ctx.sizes, diags, "an operand dimension");
      if (!v || *v <= 0) {
        if (diags.errorCount() == before)
          diags.error("E0302", dim->range,
                      "an operand dimension is a positive integer or a size parameter alone");
        ok = false;
        v = 1;
      }
      tensor.shape.push_back(*v);
      tensor.shapeParams.push_back("");
    }
    if (!op.memory) {
      diags.error("E0506", op.range,
                  "operand '" + op.name.name + "' does not say where it lives; add `in MEMORY`");
      ok = false;
    } else if (t.memoryIndex(op.memory->name) < 0) {
      std::vector<std::string> names;
      for (const auto &m : t.memories)
        names.push_back(m.name);
      auto &d = diags.error("E0506", op.memory->range,
                            "unknown memory '" + op.memory->name + "' in target '" + t.name + "'");
      if (auto m = closestMatch(op.memory->name, names); !m.empty())
        d.message += "; did you mean '" + m + "'?", d.fix(op.memory->range, m);
      ok = false;
    } else {
      tensor.memory = op.memory->name;
    }
    ctx.tensors.push_back(tensor);
    ctx.written.push_back(tensor.role != ir::TensorRole::Output);
    ctx.shapeUnknown.push_back(false);
  }
  if (!ok)
    return false;

  if (in.body.empty()) {
    if (in.incomplete)
      return false;
    diags.error("E0509", in.name.range,
                "'" + in.name.name +
                    "' has no semantics; describe what it computes, e.g. "
                    "{ acc[i] += a[i] * b; }");
    return false;
  }
  for (const auto &s : in.body) {
    bool stmtOk = true;
    auto st = detail::lowerStatement(s, ctx, diags, stmtOk);
    if (!stmtOk || !st) {
      ok = false;
      continue;
    }
    out.semantics.statements.push_back(std::move(*st));
  }
  for (size_t i = 0; i < ctx.tensors.size() && ok && !in.incomplete; ++i)
    if (ctx.tensors[i].role == ir::TensorRole::Output && !ctx.written[i]) {
      diags.error("E0509", ctx.tensors[i].range,
                  "out operand '" + ctx.tensors[i].name + "' is never written by the semantics");
      ok = false;
    }
  if (ok && !checkSizeLimits(ctx.tensors, out.semantics.statements, {}, "", diags))
    ok = false;
  out.semantics.name = out.semantics.kernelName = out.name;
  out.semantics.tensors = std::move(ctx.tensors);
  out.semantics.range = in.range;

  if (in.unit) {
    for (size_t u = 0; u < t.units.size(); ++u)
      if (t.units[u].name == in.unit->name)
        out.unit = int(u);
    if (out.unit < 0) {
      diags.error("E0202", in.unit->range, "unknown unit '" + in.unit->name + "'");
      ok = false;
    }
  }

  PropertyReader cost(in.cost, PropertyBlock::Cost, "cost", diags);
  ok = ok && cost.ok;
  out.cost.latencyCycles = cost.getOr("latency", 1);
  out.cost.perCycle = cost.getOr("per_cycle", 1);
  out.cost.bandwidthBytesPerCycle = cost.bandwidth("bandwidth", t.clockHz);

  if (in.asmTemplate) {
    out.asmTemplate = *in.asmTemplate;
    // Every {placeholder} names an operand or a size parameter.
    // `{{` and `}}` stand for literal braces (AVX-512's {1to16}, Arm's register lists).
    const std::string &a = out.asmTemplate;
    for (size_t open = a.find('{'); open != std::string::npos; open = a.find('{', open + 1)) {
      if (open + 1 < a.size() && a[open + 1] == '{') {
        ++open;
        continue;
      }
      size_t close = a.find('}', open);
      if (close == std::string::npos) {
        diags.error("E0507", in.asmRange, "unclosed '{' in the asm template");
        ok = false;
        break;
      }
      std::string name = a.substr(open + 1, close - open - 1);
      if (!operandNames.count(name) && !ctx.sizes.names.count(name)) {
        diags.error("E0507", in.asmRange,
                    "the asm template names '{" + name +
                        "}', which is neither an operand nor a "
                        "size parameter of '" +
                        out.name + "'");
        ok = false;
      }
    }
  }
  if (ok)
    t.instructions.push_back(std::move(out));
  return ok;
}

} // namespace

std::optional<hw::Target> buildTarget(const ast::TargetDecl &decl, DiagnosticSink &diags) {
  hw::Target t;
  t.name = decl.name.name;
  t.range = decl.range;
  bool ok = true;

  std::map<std::string, SourceRange> llvmSeen;
  for (const auto &f : decl.llvm) {
    if (auto it = llvmSeen.find(f.key.name); it != llvmSeen.end()) {
      diags.error("E0201", f.key.range, "llvm field '" + f.key.name + "' is given twice")
          .note(it->second, "the first is here");
      ok = false;
      continue;
    }
    llvmSeen[f.key.name] = f.key.range;
    if (f.key.name == "triple")
      t.triple = f.value;
    else if (f.key.name == "cpu")
      t.cpu = f.value;
    else if (f.key.name == "features")
      t.features = f.value;
    else {
      auto &d =
          diags.error("E0501", f.key.range,
                      "unknown llvm field '" + f.key.name + "' (known: triple, cpu, features)");
      if (auto m = closestMatch(f.key.name, llvmFields()); !m.empty())
        d.fix(f.key.range, m);
      ok = false;
    }
  }
  PropertyReader props(decl.props, PropertyBlock::Target, "target", diags);
  ok = ok && props.ok;
  t.cores = uint32_t(std::max(1.0, props.getOr("cores", 1)));
  t.clockHz = props.getOr("clock", 1e9);

  // Memories: names first, so parents may be declared in any order.
  std::map<std::string, SourceRange> seen;
  for (const auto &m : decl.memories) {
    if (auto it = seen.find(m.name.name); it != seen.end()) {
      diags.error("E0201", m.name.range, "memory '" + m.name.name + "' is declared twice")
          .note(it->second, "the first declaration is here");
      ok = false;
      continue;
    }
    seen[m.name.name] = m.name.range;
    hw::Memory mem;
    mem.name = m.name.name;
    mem.isRegisters = m.isRegisters;
    mem.range = m.range;
    if (m.isRegisters) {
      PropertyReader r(m.props, PropertyBlock::Registers, "registers", diags);
      ok = ok && r.ok;
      mem.registerCount = uint32_t(r.getOr("count", 0));
      mem.registerBytes = uint32_t(r.getOr("width", 0));
      mem.latencyCycles = r.getOr("latency", 0);
      mem.sizeBytes = uint64_t(mem.registerCount) * mem.registerBytes;
      if (r.ok && (!r.get("count") || !r.get("width"))) {
        diags.error("E0508", m.name.range, "registers '" + mem.name + "' need `count` and `width`");
        ok = false;
      }
    } else {
      PropertyReader r(m.props, PropertyBlock::Memory, "memory", diags);
      ok = ok && r.ok;
      mem.sizeBytes = uint64_t(r.getOr("size", 0));
      mem.lineBytes = uint32_t(r.getOr("line", 0));
      mem.banks = uint32_t(std::max(1.0, r.getOr("banks", 1)));
      mem.bandwidthBytesPerCycle = r.bandwidth("bandwidth", t.clockHz);
      mem.latencyCycles = r.getOr("latency", 0);
      if (r.ok && !r.get("size")) {
        diags.error("E0508", m.name.range, "memory '" + mem.name + "' needs a `size`");
        ok = false;
      }
    }
    t.memories.push_back(mem);
  }
  for (const auto &m : decl.memories) {
    if (!m.parent)
      continue;
    int self = t.memoryIndex(m.name.name);
    if (self >= 0 && t.memories[self].range.begin != m.range.begin)
      continue; // a rejected duplicate
    int parent = t.memoryIndex(m.parent->name);
    if (parent < 0) {
      std::vector<std::string> names;
      for (const auto &mm : t.memories)
        if (mm.name != m.name.name)
          names.push_back(mm.name);
      auto &d =
          diags.error("E0504", m.parent->range, "unknown parent memory '" + m.parent->name + "'");
      if (auto c = closestMatch(m.parent->name, names); !c.empty())
        d.message += "; did you mean '" + c + "'?", d.fix(m.parent->range, c);
      ok = false;
      continue;
    }
    if (self >= 0)
      t.memories[self].parent = parent;
  }
  // The parent relation must be a forest.
  for (size_t i = 0; i < t.memories.size(); ++i) {
    size_t steps = 0;
    for (int p = t.memories[i].parent; p >= 0; p = t.memories[p].parent) {
      if (++steps > t.memories.size()) {
        diags.error("E0505", t.memories[i].range,
                    "memory '" + t.memories[i].name +
                        "' is its own ancestor; parents must form a "
                        "hierarchy ending at an outermost memory");
        ok = false;
        for (auto &m : t.memories)
          m.parent = -1;
        break;
      }
    }
    if (!ok)
      break;
  }
  std::map<std::string, SourceRange> unitSeen;
  for (const auto &u : decl.units) {
    if (auto it = unitSeen.find(u.name.name); it != unitSeen.end()) {
      diags.error("E0201", u.name.range, "unit '" + u.name.name + "' is declared twice")
          .note(it->second, "the first declaration is here");
      ok = false;
      continue;
    }
    unitSeen[u.name.name] = u.name.range;
    PropertyReader r(u.props, PropertyBlock::Unit, "unit", diags);
    ok = ok && r.ok;
    t.units.push_back({u.name.name, uint32_t(std::max(1.0, r.getOr("count", 1))),
                       uint32_t(std::max(1.0, r.getOr("queue", 1))), u.range});
  }
  std::map<std::string, SourceRange> instrNames;
  for (const auto &in : decl.instrs) {
    if (auto it = instrNames.find(in.name.name); it != instrNames.end()) {
      diags.error("E0201", in.name.range, "'" + in.name.name + "' is declared twice")
          .note(it->second, "the first declaration is here");
      ok = false;
      continue;
    }
    instrNames[in.name.name] = in.name.range;
    ok = buildInstruction(in, t, diags) && ok;
  }
  if (!ok)
    return std::nullopt;
  return t;
}

std::optional<hw::System> buildSystem(const ast::SystemDecl &decl, const Symbols &symbols,
                                      DiagnosticSink &diags) {
  hw::System s;
  s.name = decl.name.name;
  s.range = decl.range;
  bool ok = true;
  auto target = [&](const ast::Ident &name) -> const ast::TargetDecl * {
    auto it = symbols.targets.find(name.name);
    if (it != symbols.targets.end())
      return it->second;
    std::vector<std::string> names;
    for (const auto &[n, _] : symbols.targets)
      names.push_back(n);
    auto &d = diags.error("E0510", name.range, "unknown target '" + name.name + "'");
    if (auto m = closestMatch(name.name, names); !m.empty())
      d.message += "; did you mean '" + m + "'?", d.fix(name.range, m);
    ok = false;
    return nullptr;
  };
  auto memory = [&](const ast::MemRef &r) -> hw::MemoryRef {
    if (const ast::TargetDecl *t = target(r.target)) {
      bool found = false;
      for (const auto &m : t->memories)
        found = found || m.name.name == r.memory.name;
      if (!found) {
        diags.error("E0510", r.memory.range,
                    "target '" + r.target.name + "' has no memory '" + r.memory.name + "'");
        ok = false;
      }
    }
    return {r.target.name, r.memory.name};
  };
  for (const auto &h : decl.hosts)
    if (target(h))
      s.hosts.push_back(h.name);
  for (const auto &d : decl.devices)
    if (target(d))
      s.devices.push_back(d.name);
  if (decl.hosts.size() != 1) {
    diags.error("E0510", decl.name.range, "a system needs exactly one `host` target");
    ok = false;
  }
  for (const auto &group : decl.shared) {
    std::vector<hw::MemoryRef> refs;
    for (const auto &r : group)
      refs.push_back(memory(r));
    s.shared.push_back(std::move(refs));
  }
  for (const auto &l : decl.links) {
    PropertyReader r(l.props, PropertyBlock::Link, "link", diags);
    ok = ok && r.ok;
    hw::Link link;
    link.from = memory(l.from);
    link.to = memory(l.to);
    link.bandwidthBytesPerCycle = r.bandwidth("bandwidth", 1e9);
    link.latencyCycles = r.getOr("latency", 0);
    s.links.push_back(link);
  }
  if (!ok)
    return std::nullopt;
  return s;
}

std::vector<std::string> propertyKeys(PropertyBlock block) {
  std::vector<std::string> keys;
  for (const auto &[key, _] : propertyTable(block))
    keys.push_back(key);
  return keys;
}

bool isUnitOfMeasure(const std::string &word) {
  return bytesUnit(word) || frequencyUnit(word) || word == "cycle" || word == "cycles" ||
         word == "s";
}

const std::vector<std::string> &llvmFields() {
  static const std::vector<std::string> fields = {"triple", "cpu", "features"};
  return fields;
}

} // namespace isam::sema
