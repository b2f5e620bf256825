#include "backends/accel/Program.h"

#include "backends/accel/Emit.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace isam::accel {

ir::ElemType elementType(const Allocation &a, const ir::Kernel &kernel) {
  return a.computed ? a.computed->type : kernel.tensors[size_t(a.tensor)].type;
}

namespace {

// `MEM[0xADDR]`, with the row stride when rows are not back to back and the valid extent when
// it is not the whole operand.
std::string regionText(const Region &r, const ir::Tensor &t, const std::vector<int64_t> &shape,
                       const hw::Target &target) {
  std::string out = target.memories[size_t(r.memory)].name + "[" + hexAddress(r.address);
  int64_t dense = ir::elemTypeBytes(t.type);
  bool isDense = true, isFull = true;
  for (size_t d = r.strides.size(); d-- > 0;) {
    isDense = isDense && r.strides[d] == dense;
    dense *= shape[d];
    isFull = isFull && r.valid[d] == shape[d];
  }
  if (!isDense && r.strides.size() > 1)
    out += ", stride " + std::to_string(r.strides[r.strides.size() - 2]);
  if (!isFull) {
    out += ", ";
    for (size_t d = 0; d < r.valid.size(); ++d)
      out.append(d ? "x" : "").append(std::to_string(r.valid[d]));
  }
  return out + "]";
}

// The operand's shape with the op's sizes bound.
std::vector<int64_t> boundShape(const hw::Instruction &in, const ir::Tensor &t, const Op &op) {
  std::vector<int64_t> shape = t.shape;
  for (size_t d = 0; d < shape.size(); ++d)
    for (size_t p = 0; p < in.sizeParams.size() && d < t.shapeParams.size(); ++p)
      if (t.shapeParams[d] == in.sizeParams[p])
        shape[d] = op.sizes[p];
  return shape;
}

std::string instructionText(const Op &op, const hw::Target &target) {
  const hw::Instruction &in = target.instructions[size_t(op.instruction)];
  std::string tmpl = in.asmTemplate.empty() ? in.name : in.asmTemplate;
  std::string out;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    size_t close = tmpl.find('}', i);
    if (tmpl[i] != '{' || close == std::string::npos) {
      out += tmpl[i];
      continue;
    }
    std::string name = tmpl.substr(i + 1, close - i - 1), text = "{" + name + "}";
    for (size_t t = 0; t < in.semantics.tensors.size(); ++t)
      if (in.semantics.tensors[t].name == name)
        text = regionText(op.regions[t], in.semantics.tensors[t],
                          boundShape(in, in.semantics.tensors[t], op), target);
    for (size_t p = 0; p < in.sizeParams.size(); ++p)
      if (in.sizeParams[p] == name)
        text = std::to_string(op.sizes[p]);
    out += text;
    i = close;
  }
  return out;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t d = 0; d < shape.size(); ++d)
    out += (d ? ", " : "") + std::to_string(shape[d]);
  return out + "]";
}

// A computed view's expression: kinds, types and functions by number, checked when read back.
nlohmann::json exprJson(const ir::Expr &e) {
  nlohmann::json args = nlohmann::json::array();
  for (const auto &a : e.args)
    args.push_back(exprJson(a));
  return {{"kind", int(e.kind)},
          {"type", int(e.type)},
          {"value", e.value},
          {"fn", int(e.fn)},
          {"args", args}};
}

// Reads back what exprJson wrote; every read is of `access` (the view's), so it is not stored.
ir::Expr exprFromJson(const nlohmann::json &j, const ir::Access &access, int depth = 0) {
  ir::Expr e;
  int kind = j.at("kind").get<int>(), type = j.at("type").get<int>(), fn = j.at("fn").get<int>();
  if (kind < 0 || kind > int(ir::Expr::Kind::Call) || type < 0 || type > int(ir::ElemType::I32) ||
      fn < 0 || fn > int(ir::kLastFn) || depth > 64)
    throw Error("a computed view's expression is malformed");
  e.kind = ir::Expr::Kind(kind);
  e.type = ir::ElemType(type);
  e.fn = ir::Fn(fn);
  e.value = j.at("value").get<double>();
  for (const auto &a : j.at("args"))
    e.args.push_back(exprFromJson(a, access, depth + 1));
  size_t arity = e.kind == ir::Expr::Kind::Const || e.kind == ir::Expr::Kind::Read ? 0
                 : e.kind == ir::Expr::Kind::Neg                                   ? 1
                 : e.kind == ir::Expr::Kind::Call                                  ? e.args.size()
                                                                                   : 2;
  if (e.args.size() != arity || (e.kind == ir::Expr::Kind::Call && e.args.empty()))
    throw Error("a computed view's expression is malformed");
  if (e.kind == ir::Expr::Kind::Read)
    e.access = access;
  return e;
}

nlohmann::json accessJson(const ir::Access &a) {
  nlohmann::json dims = nlohmann::json::array();
  for (const auto &d : a.indices) {
    nlohmann::json terms = nlohmann::json::array();
    for (auto [i, coef] : d.terms)
      terms.push_back({i, coef});
    dims.push_back({{"terms", terms}, {"constant", d.constant}});
  }
  return {{"tensor", a.tensor}, {"indices", dims}};
}

ir::Access accessFromJson(const nlohmann::json &j) {
  ir::Access a;
  a.tensor = j.at("tensor").get<int>();
  for (const auto &d : j.at("indices")) {
    ir::Affine f;
    for (const auto &t : d.at("terms"))
      f.terms.push_back({t.at(0).get<int>(), t.at(1).get<int64_t>()});
    f.constant = d.at("constant").get<int64_t>();
    a.indices.push_back(std::move(f));
  }
  return a;
}

const char *hostName(Op::Kind k) {
  switch (k) {
  case Op::Kind::HostInit:
    return "init";
  case Op::Kind::HostClear:
    return "clear";
  case Op::Kind::HostPack:
    return "pack";
  case Op::Kind::HostUnpack:
    return "unpack";
  case Op::Kind::HostStatement:
    return "statement";
  case Op::Kind::Instr:
    break;
  }
  return "";
}

} // namespace

std::string hexAddress(uint64_t address) {
  std::ostringstream o;
  o << "0x" << std::hex << address;
  return o.str();
}

namespace {

constexpr size_t kFlushBytes = size_t(1) << 20;

std::string layoutText(const std::string &kernelName, const std::string &targetName,
                       const std::vector<Allocation> &allocations, const ir::Kernel &kernel,
                       const hw::Target &target) {
  std::ostringstream o;
  o << "; " << kernelName << " on " << targetName << ": isamap instruction stream\n";
  o << "; " << target.memories.front().name << " layout:\n";
  for (const auto &a : allocations) {
    const ir::Tensor &t = kernel.tensors[size_t(a.tensor)];
    o << ";   " << hexAddress(a.address) << "  " << a.name << ": ";
    if (a.view && a.computed)
      o << "view of " << t.name << " computed by the host as "
        << ir::printExpr(*a.computed, kernel.statements[size_t(a.statement)], kernel.tensors)
        << ", " << ir::elemTypeName(a.computed->type) << shapeText(a.extents);
    else if (a.view)
      o << "view of " << t.name << " packed by the host, " << ir::elemTypeName(t.type)
        << shapeText(a.extents);
    else
      o << ir::elemTypeName(t.type) << shapeText(t.shape);
    o << ", " << a.bytes << " B\n";
  }
  return o.str();
}

// One op's lines, preceded by its statement's when it starts another statement.
void appendOp(std::string &out, const Op &op, int &statement,
              const std::vector<Allocation> &allocations, const ir::Kernel &kernel,
              const hw::Target &target) {
  std::ostringstream o;
  if (op.statement != statement && op.statement >= 0) {
    statement = op.statement;
    o << "\n; s" << statement << ": "
      << ir::printStatement(kernel.statements[size_t(statement)], kernel.tensors) << "\n";
  }
  switch (op.kind) {
  case Op::Kind::Instr:
    o << "  " << instructionText(op, target) << "\n";
    break;
  case Op::Kind::HostInit: {
    o << "  ; host: clear " << allocations[size_t(op.allocation)].name << " over";
    const ir::Statement &s = kernel.statements[size_t(op.statement)];
    for (size_t i = 0; i < s.indices.size(); ++i)
      if (!s.indices[i].reduction)
        o << " " << s.indices[i].name << " [" << op.lo[i] << ", " << op.lo[i] + op.size[i] << ")";
    o << " to " << ir::reduceIdentityText(op.init) << "\n";
    break;
  }
  case Op::Kind::HostClear:
    o << "  ; host: clear " << allocations[size_t(op.allocation)].name
      << " to 0 (not every element is written)\n";
    break;
  case Op::Kind::HostPack:
  case Op::Kind::HostUnpack:
    o << "  ; host: " << hostName(op.kind) << " " << allocations[size_t(op.allocation)].name
      << "\n";
    break;
  case Op::Kind::HostStatement:
    o << "  ; host: runs the statement (no instruction of " << target.name << " does)\n";
    break;
  }
  out += o.str();
}

nlohmann::json allocationJson(const Allocation &a) {
  nlohmann::json j = {
      {"name", a.name}, {"tensor", a.tensor}, {"address", a.address}, {"bytes", a.bytes}};
  if (a.view) {
    j["statement"] = a.statement;
    j["access"] = accessJson(a.access);
    j["extents"] = a.extents;
    j["groups"] = a.groups;
    if (a.computed)
      j["computes"] = exprJson(*a.computed);
  }
  return j;
}

nlohmann::json opJson(const Op &op, const hw::Target &target) {
  if (op.kind == Op::Kind::Instr) {
    nlohmann::json regions = nlohmann::json::array();
    for (const auto &r : op.regions)
      regions.push_back({target.memories[size_t(r.memory)].name, r.address, r.strides, r.valid});
    return {{"op", target.instructions[size_t(op.instruction)].name},
            {"sizes", op.sizes},
            {"regions", regions},
            {"statement", op.statement}};
  }
  nlohmann::json j = {{"host", hostName(op.kind)}, {"statement", op.statement}};
  if (op.kind != Op::Kind::HostStatement)
    j["allocation"] = op.allocation;
  if (op.kind == Op::Kind::HostInit) {
    j["lo"] = op.lo;
    j["size"] = op.size;
    j["reduce"] = ir::reduceOpText(op.init);
  }
  return j;
}

} // namespace

ListingSink::ListingSink(const ir::Kernel &kernel, const hw::Target &target, TextOut out)
    : kernel_(kernel), target_(target), out_(std::move(out)) {}

void ListingSink::layout(const std::vector<Allocation> &allocations) {
  allocations_ = allocations;
  buffer_ += layoutText(kernel_.name, target_.name, allocations, kernel_, target_);
}

void ListingSink::op(const Op &op) {
  appendOp(buffer_, op, statement_, allocations_, kernel_, target_);
  flushIfFull();
}

void ListingSink::flushIfFull() {
  if (buffer_.size() >= kFlushBytes) {
    out_(buffer_);
    buffer_.clear();
  }
}

void ListingSink::finish() {
  out_(buffer_);
  buffer_.clear();
}

JsonSink::JsonSink(const ir::Kernel &kernel, const hw::Target &target, TextOut out)
    : kernel_(kernel), target_(target), out_(std::move(out)) {}

// The keys in the order nlohmann::json prints an object's (sorted), so that the text is
// toJson's: allocations, format, kernel, ops, target, version.
void JsonSink::layout(const std::vector<Allocation> &allocations) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto &a : allocations)
    all.push_back(allocationJson(a));
  buffer_ += "{\"allocations\":" + all.dump() + ",\"format\":\"isamap-accel-stream\",\"kernel\":" +
             nlohmann::json(kernel_.name).dump() + ",\"ops\":[";
}

void JsonSink::op(const Op &op) {
  if (!first_)
    buffer_ += ',';
  first_ = false;
  buffer_ += opJson(op, target_).dump();
  flushIfFull();
}

void JsonSink::flushIfFull() {
  if (buffer_.size() >= kFlushBytes) {
    out_(buffer_);
    buffer_.clear();
  }
}

void JsonSink::finish() {
  buffer_ += "],\"target\":" + nlohmann::json(target_.name).dump() + ",\"version\":1}";
  out_(buffer_);
  buffer_.clear();
}

std::string listing(const Program &p, const ir::Kernel &kernel, const hw::Target &target) {
  std::string out = layoutText(p.kernel, p.target, p.allocations, kernel, target);
  int statement = -1;
  for (const auto &op : p.ops)
    appendOp(out, op, statement, p.allocations, kernel, target);
  return out;
}

nlohmann::json toJson(const Program &p, const hw::Target &target) {
  nlohmann::json allocations = nlohmann::json::array(), ops = nlohmann::json::array();
  for (const auto &a : p.allocations)
    allocations.push_back(allocationJson(a));
  for (const auto &op : p.ops)
    ops.push_back(opJson(op, target));
  return {
      {"format", "isamap-accel-stream"}, {"version", 1}, {"kernel", p.kernel}, {"target", p.target},
      {"allocations", allocations},      {"ops", ops}};
}

Program fromJson(const nlohmann::json &j, const ir::Kernel &kernel, const hw::Target &target) {
  try {
    if (j.at("format") != "isamap-accel-stream" || j.at("version") != 1)
      throw Error("not an isamap accelerator stream (format isamap-accel-stream, version 1)");
    Program p;
    p.kernel = j.at("kernel").get<std::string>();
    p.target = j.at("target").get<std::string>();
    if (p.kernel != kernel.name || p.target != target.name)
      throw Error("the stream is for " + p.kernel + " on " + p.target + ", not " + kernel.name +
                  " on " + target.name);
    auto statementOk = [&](int s) { return s >= 0 && size_t(s) < kernel.statements.size(); };
    for (const auto &a : j.at("allocations")) {
      Allocation x;
      x.name = a.at("name").get<std::string>();
      x.tensor = a.at("tensor").get<int>();
      x.address = a.at("address").get<uint64_t>();
      x.bytes = a.at("bytes").get<uint64_t>();
      if (x.tensor < 0 || size_t(x.tensor) >= kernel.tensors.size())
        throw Error("allocation " + x.name + " names no tensor of " + kernel.name);
      if (a.contains("access")) {
        x.view = true;
        x.statement = a.at("statement").get<int>();
        x.access = accessFromJson(a.at("access"));
        x.extents = a.at("extents").get<std::vector<int64_t>>();
        x.groups = a.at("groups").get<std::vector<std::vector<int>>>();
        if (!statementOk(x.statement) || x.groups.size() != x.extents.size())
          throw Error("view " + x.name + " is malformed");
        if (a.contains("computes"))
          x.computed = exprFromJson(a.at("computes"), x.access);
      }
      p.allocations.push_back(std::move(x));
    }
    for (const auto &o : j.at("ops")) {
      Op op;
      op.statement = o.value("statement", -1);
      if (o.contains("op")) {
        const std::string name = o.at("op").get<std::string>();
        const hw::Instruction *in = target.instruction(name);
        if (!in)
          throw Error("instruction " + name + " is not described by " + target.name);
        op.instruction = int(in - target.instructions.data());
        op.sizes = o.at("sizes").get<std::vector<int64_t>>();
        for (const auto &r : o.at("regions")) {
          Region x;
          x.memory = target.memoryIndex(r.at(0).get<std::string>());
          if (x.memory < 0)
            throw Error("memory " + r.at(0).get<std::string>() + " is not described by " +
                        target.name);
          x.address = r.at(1).get<uint64_t>();
          x.strides = r.at(2).get<std::vector<int64_t>>();
          x.valid = r.at(3).get<std::vector<int64_t>>();
          op.regions.push_back(std::move(x));
        }
      } else {
        std::string host = o.at("host").get<std::string>();
        op.kind = host == "init"        ? Op::Kind::HostInit
                  : host == "clear"     ? Op::Kind::HostClear
                  : host == "pack"      ? Op::Kind::HostPack
                  : host == "unpack"    ? Op::Kind::HostUnpack
                  : host == "statement" ? Op::Kind::HostStatement
                                        : throw Error("unknown host op " + host);
        if (!statementOk(op.statement))
          throw Error("host op " + host + " names no statement of " + kernel.name);
        if (op.kind != Op::Kind::HostStatement) {
          op.allocation = o.at("allocation").get<int>();
          if (op.allocation < 0 || size_t(op.allocation) >= p.allocations.size())
            throw Error("host op " + host + " names no allocation");
        }
        if (op.kind == Op::Kind::HostInit) {
          op.lo = o.at("lo").get<std::vector<int64_t>>();
          op.size = o.at("size").get<std::vector<int64_t>>();
          std::string r = o.at("reduce").get<std::string>();
          auto init = ir::parseReduceOp(r);
          if (!init || *init == ir::ReduceOp::None)
            throw Error("host init names no reduction: '" + r + "'");
          op.init = *init;
          if (op.lo.size() != kernel.statements[size_t(op.statement)].indices.size() ||
              op.size.size() != op.lo.size())
            throw Error("host init has a box of the wrong rank");
        }
      }
      p.ops.push_back(std::move(op));
    }
    return p;
  } catch (const nlohmann::json::exception &e) {
    throw Error(std::string("malformed stream: ") + e.what());
  }
}

} // namespace isam::accel
