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
        {"latency", QK::Cycles},
        {"misses", QK::Count},
        {"streams", QK::Count},
        {"ways", QK::Count}}},
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
  bool perSecond(const std::string &key) const {
    auto v = get(key);
    return v && v->perSecond;
  }

  bool ok = true;

private:
  std::map<std::string, QuantityKind> known_;
  std::map<std::string, Value> values_;
  DiagnosticSink &diags_;
};

using QK = QuantityKind;

// An instruction's size parameters are free names in its operand shapes and semantics.
bool declareSizeParams(const ast::InstrDecl &in, detail::LowerContext &ctx, hw::Instruction &out,
                       DiagnosticSink &diags) {
  static const std::map<std::string, int64_t> unbound;
  ctx.sizes.values = &unbound; // instruction size parameters stay free
  bool ok = true;
  for (const auto &param : in.sizeParams) {
    if (ctx.sizes.names.count(param.name)) {
      diags.error("E0201", param.range, "size parameter '" + param.name + "' is declared twice");
      ok = false;
    }
    ctx.sizes.names.insert(param.name);
    out.sizeParams.push_back(param.name);
  }
  return ok;
}

// An operand dimension is a literal size or a size parameter alone; a bad one reads as 1 so
// the rest of the operand is still checked.
bool lowerOperandShape(const ast::OperandDecl &op, const detail::LowerContext &ctx,
                       ir::Tensor &tensor, DiagnosticSink &diags) {
  bool ok = true;
  for (const auto &dim : op.type.shape) {
    if (dim->kind == ast::Expr::Kind::Name && ctx.sizes.names.count(dim->name.name)) {
      tensor.shape.push_back(0);
      tensor.shapeParams.push_back(dim->name.name);
      continue;
    }
    size_t before = diags.errorCount();
    auto extent = detail::evalSize(*dim, ctx.sizes, diags, "an operand dimension");
    if (!extent || *extent <= 0) {
      if (diags.errorCount() == before)
        diags.error("E0302", dim->range,
                    "an operand dimension is a positive integer or a size parameter alone");
      ok = false;
      extent = 1;
    }
    tensor.shape.push_back(*extent);
    tensor.shapeParams.push_back("");
  }
  return ok;
}

// Every operand says which of the target's memories it lives in.
bool resolveOperandMemory(const ast::OperandDecl &op, const hw::Target &target, ir::Tensor &tensor,
                          DiagnosticSink &diags) {
  if (!op.memory) {
    diags.error("E0506", op.range,
                "operand '" + op.name.name + "' does not say where it lives; add `in MEMORY`");
    return false;
  }
  if (target.memoryIndex(op.memory->name) < 0) {
    std::vector<std::string> names;
    for (const auto &memory : target.memories)
      names.push_back(memory.name);
    auto &diag =
        diags.error("E0506", op.memory->range,
                    "unknown memory '" + op.memory->name + "' in target '" + target.name + "'");
    if (auto suggestion = closestMatch(op.memory->name, names); !suggestion.empty()) {
      diag.message += "; did you mean '" + suggestion + "'?";
      diag.fix(op.memory->range, suggestion);
    }
    return false;
  }
  tensor.memory = op.memory->name;
  return true;
}

// The operands become the tensors of the instruction's semantics (in ctx), in order.
bool declareOperands(const ast::InstrDecl &in, const hw::Target &target, detail::LowerContext &ctx,
                     std::set<std::string> &operandNames, DiagnosticSink &diags) {
  bool ok = true;
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
    if (auto elem = ir::parseElemType(op.type.elem.name)) {
      tensor.type = *elem;
    } else {
      diags.error("E0301", op.type.elem.range, "unknown element type '" + op.type.elem.name + "'");
      ok = false;
    }
    ok = lowerOperandShape(op, ctx, tensor, diags) && ok;
    ok = resolveOperandMemory(op, target, tensor, diags) && ok;
    ctx.tensors.push_back(tensor);
    ctx.written.push_back(tensor.role != ir::TensorRole::Output);
    ctx.shapeUnknown.push_back(false);
  }
  return ok;
}

// The body is what the instruction computes: the mapper matches kernels against it. (A body
// lost to a syntax error was reported there.)
bool hasSemantics(const ast::InstrDecl &in, DiagnosticSink &diags) {
  if (!in.body.empty())
    return true;
  if (!in.incomplete)
    diags.error("E0509", in.name.range,
                "'" + in.name.name +
                    "' has no semantics; describe what it computes, e.g. "
                    "{ acc[i] += a[i] * b; }");
  return false;
}

// The body, lowered as a kernel's statements over the operands, must write every output.
bool lowerSemantics(const ast::InstrDecl &in, detail::LowerContext &ctx, hw::Instruction &out,
                    DiagnosticSink &diags) {
  bool ok = true;
  for (const auto &stmt : in.body) {
    bool stmtOk = true;
    auto lowered = detail::lowerStatement(stmt, ctx, diags, stmtOk);
    if (!stmtOk || !lowered) {
      ok = false;
      continue;
    }
    out.semantics.statements.push_back(std::move(*lowered));
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
  return ok;
}

bool resolveUnit(const ast::InstrDecl &in, const hw::Target &target, hw::Instruction &out,
                 DiagnosticSink &diags) {
  if (!in.unit)
    return true;
  for (size_t unit = 0; unit < target.units.size(); ++unit)
    if (target.units[unit].name == in.unit->name)
      out.unit = int(unit);
  if (out.unit < 0) {
    diags.error("E0202", in.unit->range, "unknown unit '" + in.unit->name + "'");
    return false;
  }
  return true;
}

// Every {placeholder} of the asm template names an operand or a size parameter.
// `{{` and `}}` stand for literal braces (AVX-512's {1to16}, Arm's register lists).
bool checkAsmTemplate(const ast::InstrDecl &in, const hw::Instruction &out,
                      const std::set<std::string> &operandNames,
                      const std::set<std::string> &sizeParams, DiagnosticSink &diags) {
  const std::string &text = out.asmTemplate;
  bool ok = true;
  for (size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open + 1)) {
    if (open + 1 < text.size() && text[open + 1] == '{') {
      ++open;
      continue;
    }
    size_t close = text.find('}', open);
    if (close == std::string::npos) {
      diags.error("E0507", in.asmRange, "unclosed '{' in the asm template");
      return false;
    }
    std::string name = text.substr(open + 1, close - open - 1);
    if (!operandNames.count(name) && !sizeParams.count(name)) {
      diags.error("E0507", in.asmRange,
                  "the asm template names '{" + name +
                      "}', which is neither an operand nor a "
                      "size parameter of '" +
                      out.name + "'");
      ok = false;
    }
  }
  return ok;
}

bool buildInstruction(const ast::InstrDecl &in, hw::Target &target, DiagnosticSink &diags) {
  hw::Instruction out;
  out.name = in.name.name;
  out.isMove = in.isMove;
  out.range = in.range;

  detail::LowerContext ctx;
  ctx.instruction = true;
  ctx.incomplete = in.incomplete;
  bool ok = declareSizeParams(in, ctx, out, diags);
  std::set<std::string> operandNames;
  ok = declareOperands(in, target, ctx, operandNames, diags) && ok;
  if (!ok || !hasSemantics(in, diags))
    return false;
  ok = lowerSemantics(in, ctx, out, diags);
  ok = resolveUnit(in, target, out, diags) && ok;

  PropertyReader cost(in.cost, PropertyBlock::Cost, "cost", diags);
  ok = ok && cost.ok;
  out.cost.latencyCycles = cost.getOr("latency", 1);
  out.cost.perCycle = cost.getOr("per_cycle", 1);
  out.cost.bandwidthBytesPerCycle = cost.bandwidth("bandwidth", target.clockHz);
  out.cost.bandwidthPerSecond = cost.perSecond("bandwidth");

  if (in.asmTemplate) {
    out.asmTemplate = *in.asmTemplate;
    ok = checkAsmTemplate(in, out, operandNames, ctx.sizes.names, diags) && ok;
  }
  if (ok)
    target.instructions.push_back(std::move(out));
  return ok;
}

// The `llvm { triple cpu features }` fields, each at most once.
bool readLlvmFields(const ast::TargetDecl &decl, hw::Target &target, DiagnosticSink &diags) {
  bool ok = true;
  std::map<std::string, SourceRange> seen;
  for (const auto &field : decl.llvm) {
    if (auto it = seen.find(field.key.name); it != seen.end()) {
      diags.error("E0201", field.key.range, "llvm field '" + field.key.name + "' is given twice")
          .note(it->second, "the first is here");
      ok = false;
      continue;
    }
    seen[field.key.name] = field.key.range;
    if (field.key.name == "triple")
      target.triple = field.value;
    else if (field.key.name == "cpu")
      target.cpu = field.value;
    else if (field.key.name == "features")
      target.features = field.value;
    else {
      auto &diag =
          diags.error("E0501", field.key.range,
                      "unknown llvm field '" + field.key.name + "' (known: triple, cpu, features)");
      if (auto suggestion = closestMatch(field.key.name, llvmFields()); !suggestion.empty())
        diag.fix(field.key.range, suggestion);
      ok = false;
    }
  }
  return ok;
}

// A register file's or a memory's properties; a register file's size is count x width.
bool readMemoryProperties(const ast::MemoryDecl &decl, double clockHz, hw::Memory &memory,
                          DiagnosticSink &diags) {
  if (decl.isRegisters) {
    PropertyReader props(decl.props, PropertyBlock::Registers, "registers", diags);
    memory.registerCount = uint32_t(props.getOr("count", 0));
    memory.registerBytes = uint32_t(props.getOr("width", 0));
    memory.latencyCycles = props.getOr("latency", 0);
    memory.sizeBytes = uint64_t(memory.registerCount) * memory.registerBytes;
    if (props.ok && (!props.get("count") || !props.get("width"))) {
      diags.error("E0508", decl.name.range,
                  "registers '" + memory.name + "' need `count` and `width`");
      return false;
    }
    return props.ok;
  }
  PropertyReader props(decl.props, PropertyBlock::Memory, "memory", diags);
  memory.sizeBytes = uint64_t(props.getOr("size", 0));
  memory.lineBytes = uint32_t(props.getOr("line", 0));
  memory.banks = uint32_t(std::max(1.0, props.getOr("banks", 1)));
  memory.bandwidthBytesPerCycle = props.bandwidth("bandwidth", clockHz);
  memory.bandwidthPerSecond = props.perSecond("bandwidth");
  memory.latencyCycles = props.getOr("latency", 0);
  memory.misses = uint32_t(props.getOr("misses", 0));
  memory.streams = uint32_t(props.getOr("streams", 0));
  memory.ways = uint32_t(props.getOr("ways", 0));
  if (props.ok && !props.get("size")) {
    diags.error("E0508", decl.name.range, "memory '" + memory.name + "' needs a `size`");
    return false;
  }
  return props.ok;
}

// Memories: names first, so parents may be declared in any order (linkMemoryParents).
bool declareMemories(const ast::TargetDecl &decl, hw::Target &target, DiagnosticSink &diags) {
  bool ok = true;
  std::map<std::string, SourceRange> seen;
  for (const auto &memoryDecl : decl.memories) {
    if (auto it = seen.find(memoryDecl.name.name); it != seen.end()) {
      diags
          .error("E0201", memoryDecl.name.range,
                 "memory '" + memoryDecl.name.name + "' is declared twice")
          .note(it->second, "the first declaration is here");
      ok = false;
      continue;
    }
    seen[memoryDecl.name.name] = memoryDecl.name.range;
    hw::Memory memory;
    memory.name = memoryDecl.name.name;
    memory.isRegisters = memoryDecl.isRegisters;
    memory.range = memoryDecl.range;
    ok = readMemoryProperties(memoryDecl, target.clockHz, memory, diags) && ok;
    target.memories.push_back(memory);
  }
  return ok;
}

bool linkMemoryParents(const ast::TargetDecl &decl, hw::Target &target, DiagnosticSink &diags) {
  bool ok = true;
  for (const auto &memoryDecl : decl.memories) {
    if (!memoryDecl.parent)
      continue;
    int self = target.memoryIndex(memoryDecl.name.name);
    if (self >= 0 && target.memories[self].range.begin != memoryDecl.range.begin)
      continue; // a rejected duplicate
    int parent = target.memoryIndex(memoryDecl.parent->name);
    if (parent < 0) {
      std::vector<std::string> names;
      for (const auto &memory : target.memories)
        if (memory.name != memoryDecl.name.name)
          names.push_back(memory.name);
      auto &diag = diags.error("E0504", memoryDecl.parent->range,
                               "unknown parent memory '" + memoryDecl.parent->name + "'");
      if (auto suggestion = closestMatch(memoryDecl.parent->name, names); !suggestion.empty()) {
        diag.message += "; did you mean '" + suggestion + "'?";
        diag.fix(memoryDecl.parent->range, suggestion);
      }
      ok = false;
      continue;
    }
    if (self >= 0)
      target.memories[self].parent = parent;
  }
  return ok;
}

// The parent relation must be a forest. On a cycle, every parent is dropped so that later
// stages never walk it.
bool checkMemoryForest(hw::Target &target, DiagnosticSink &diags) {
  for (const auto &memory : target.memories) {
    size_t steps = 0;
    for (int parent = memory.parent; parent >= 0; parent = target.memories[parent].parent) {
      if (++steps <= target.memories.size())
        continue;
      diags.error("E0505", memory.range,
                  "memory '" + memory.name +
                      "' is its own ancestor; parents must form a "
                      "hierarchy ending at an outermost memory");
      for (auto &each : target.memories)
        each.parent = -1;
      return false;
    }
  }
  return true;
}

bool declareUnits(const ast::TargetDecl &decl, hw::Target &target, DiagnosticSink &diags) {
  bool ok = true;
  std::map<std::string, SourceRange> seen;
  for (const auto &unit : decl.units) {
    if (auto it = seen.find(unit.name.name); it != seen.end()) {
      diags.error("E0201", unit.name.range, "unit '" + unit.name.name + "' is declared twice")
          .note(it->second, "the first declaration is here");
      ok = false;
      continue;
    }
    seen[unit.name.name] = unit.name.range;
    PropertyReader props(unit.props, PropertyBlock::Unit, "unit", diags);
    ok = ok && props.ok;
    target.units.push_back({unit.name.name, uint32_t(std::max(1.0, props.getOr("count", 1))),
                            uint32_t(std::max(1.0, props.getOr("queue", 1))), unit.range});
  }
  return ok;
}

bool declareInstructions(const ast::TargetDecl &decl, hw::Target &target, DiagnosticSink &diags) {
  bool ok = true;
  std::map<std::string, SourceRange> seen;
  for (const auto &instr : decl.instrs) {
    if (auto it = seen.find(instr.name.name); it != seen.end()) {
      diags.error("E0201", instr.name.range, "'" + instr.name.name + "' is declared twice")
          .note(it->second, "the first declaration is here");
      ok = false;
      continue;
    }
    seen[instr.name.name] = instr.name.range;
    ok = buildInstruction(instr, target, diags) && ok;
  }
  return ok;
}

} // namespace

// Each step reports what it finds and the target is built on, so that one file shows all its
// errors; a target with any error is not returned.
std::optional<hw::Target> buildTarget(const ast::TargetDecl &decl, DiagnosticSink &diags) {
  hw::Target target;
  target.name = decl.name.name;
  target.range = decl.range;
  bool ok = readLlvmFields(decl, target, diags);
  PropertyReader props(decl.props, PropertyBlock::Target, "target", diags);
  ok = ok && props.ok;
  target.cores = uint32_t(std::max(1.0, props.getOr("cores", 1)));
  target.clockHz = props.getOr("clock", 1e9);

  ok = declareMemories(decl, target, diags) && ok;
  ok = linkMemoryParents(decl, target, diags) && ok;
  ok = checkMemoryForest(target, diags) && ok;
  ok = declareUnits(decl, target, diags) && ok;
  ok = declareInstructions(decl, target, diags) && ok;
  if (!ok)
    return std::nullopt;
  return target;
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
