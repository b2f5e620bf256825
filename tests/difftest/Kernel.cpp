#include "Kernel.h"

#include <cmath>
#include <cstdio>

namespace isam::difftest {

bool IndexExpr::operator==(const IndexExpr &o) const {
  if (constant != o.constant || terms.size() != o.terms.size() || divisor != o.divisor ||
      remainder != o.remainder || gather != o.gather || gatherIndices != o.gatherIndices)
    return false;
  for (size_t i = 0; i < terms.size(); ++i)
    if (terms[i].index != o.terms[i].index || terms[i].coef != o.terms[i].coef)
      return false;
  return true;
}

const Tensor *Kernel::find(const std::string &n) const {
  for (const auto &t : tensors)
    if (t.name == n)
      return &t;
  return nullptr;
}

Tensor *Kernel::find(const std::string &n) {
  for (auto &t : tensors)
    if (t.name == n)
      return &t;
  return nullptr;
}

const char *opText(Op op) {
  switch (op) {
  case Op::Assign:
    return "=";
  case Op::Sum:
    return "+=";
  case Op::Max:
    return "max=";
  case Op::Min:
    return "min=";
  case Op::Prod:
    return "*=";
  }
  return "=";
}

namespace {

std::string number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    return std::to_string(int64_t(v));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string printAffinePart(const IndexExpr &e);
std::string access(const std::string &name, const std::vector<std::string> &indices);

std::string printIndex(const IndexExpr &e) {
  if (!e.gather.empty())
    return access(e.gather, e.gatherIndices);
  if (e.divisor <= 0)
    return printAffinePart(e);
  bool single = e.terms.size() == 1 && e.terms[0].coef == 1 && e.constant == 0;
  std::string inner = printAffinePart(e);
  return (single ? inner : "(" + inner + ")") + (e.remainder ? " % " : " / ") +
         std::to_string(e.divisor);
}

std::string printAffinePart(const IndexExpr &e) {
  std::string out;
  for (const auto &t : e.terms) {
    int64_t c = t.coef;
    if (!out.empty())
      out += c < 0 ? " - " : " + ";
    else if (c < 0)
      out += "-";
    int64_t a = c < 0 ? -c : c;
    if (a != 1)
      out += std::to_string(a) + " * ";
    out += t.index;
  }
  if (out.empty())
    return std::to_string(e.constant);
  if (e.constant > 0)
    out += " + " + std::to_string(e.constant);
  else if (e.constant < 0)
    out += " - " + std::to_string(-e.constant);
  return out;
}

std::string access(const std::string &name, const std::vector<std::string> &indices) {
  if (indices.empty())
    return name;
  std::string out = name + "[";
  for (size_t i = 0; i < indices.size(); ++i)
    out += (i ? ", " : "") + indices[i];
  return out + "]";
}

// Operands of binary operators are parenthesised unless they are atoms, so the printed text
// parses back to the same tree whatever the precedence rules.
std::string operand(const Expr &e) {
  bool atom = e.kind == Expr::Kind::Read || e.kind == Expr::Kind::Call ||
              e.kind == Expr::Kind::Cast || (e.kind == Expr::Kind::Const && e.value >= 0) ||
              (e.kind == Expr::Kind::IndexValue && e.indices[0].plain());
  std::string text = printExpr(e);
  if (atom)
    return text;
  std::string out = "(";
  out += text;
  out += ")";
  return out;
}

void shapeText(std::string &out, const Tensor &t) {
  out += ir::elemTypeName(t.type);
  if (t.shape.empty())
    return;
  out += "[";
  for (size_t i = 0; i < t.shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(t.shape[i]);
  out += "]";
}

} // namespace

std::string printExpr(const Expr &e) {
  switch (e.kind) {
  case Expr::Kind::Const:
    return number(e.value);
  case Expr::Kind::Read: {
    std::vector<std::string> idx;
    for (const auto &i : e.indices)
      idx.push_back(printIndex(i));
    return access(e.tensor, idx) + (e.pad ? " pad " + number(*e.pad) : "");
  }
  case Expr::Kind::Neg: {
    std::string out = "-";
    out += operand(e.args[0]);
    return out;
  }
  case Expr::Kind::Add:
    return operand(e.args[0]) + " + " + operand(e.args[1]);
  case Expr::Kind::Sub:
    return operand(e.args[0]) + " - " + operand(e.args[1]);
  case Expr::Kind::Mul:
    return operand(e.args[0]) + " * " + operand(e.args[1]);
  case Expr::Kind::Div:
    return operand(e.args[0]) + " / " + operand(e.args[1]);
  case Expr::Kind::Call: {
    std::string out = e.fn + "(";
    for (size_t i = 0; i < e.args.size(); ++i)
      out += (i ? ", " : "") + printExpr(e.args[i]);
    return out + ")";
  }
  case Expr::Kind::Cast:
    return std::string(ir::elemTypeName(e.to)) + "(" + printExpr(e.args[0]) + ")";
  case Expr::Kind::Compare:
    return operand(e.args[0]) + " " + e.fn + " " + operand(e.args[1]);
  case Expr::Kind::Logic:
    if (e.args.size() == 1)
      return e.fn + operand(e.args[0]);
    return operand(e.args[0]) + " " + e.fn + " " + operand(e.args[1]);
  case Expr::Kind::Select:
    return operand(e.args[0]) + " ? " + operand(e.args[1]) + " : " + operand(e.args[2]);
  case Expr::Kind::IndexValue:
    return printIndex(e.indices.at(0));
  }
  return "0";
}

std::string printStatement(const Statement &s) {
  std::vector<std::string> written = s.lhsIndices;
  for (size_t d = 0; d < written.size() && d < s.lhsStrides.size(); ++d)
    if (s.lhsStrides[d] != 1)
      written[d] = std::to_string(s.lhsStrides[d]) + " * " + written[d];
  for (size_t d = 0; d < written.size() && d < s.lhsTaps.size(); ++d)
    if (!s.lhsTaps[d].empty())
      written[d] += " + " + s.lhsTaps[d];
  for (size_t d = 0; d < written.size() && d < s.lhsShifts.size(); ++d)
    if (s.lhsShifts[d] != 0)
      written[d] += (s.lhsShifts[d] < 0 ? " - " : " + ") + std::to_string(std::abs(s.lhsShifts[d]));
  std::string out = access(s.lhs, written) + " " + opText(s.op) + " " + printExpr(s.rhs);
  const char *joiner = " where ";
  for (const auto &r : s.where) {
    out += joiner + r.index + " in " + std::to_string(r.lo) + ".." + std::to_string(r.hi);
    joiner = ", ";
  }
  for (const auto &g : s.guards) {
    out += joiner + printIndex(g.lhs) + " " + g.cmp + " " + printIndex(g.rhs);
    joiner = ", ";
  }
  return out + ";";
}

std::string print(const Kernel &k) {
  std::string out = "kernel " + k.name + "(";
  auto params = [&](Role role) {
    bool first = true;
    for (const auto &t : k.tensors) {
      if (t.role != role)
        continue;
      out += (first ? "" : ", ") + t.name + ": ";
      shapeText(out, t);
      first = false;
    }
  };
  params(Role::Input);
  out += ") -> (";
  params(Role::Output);
  out += ") {\n";
  for (const auto &t : k.tensors)
    if (t.role == Role::Local) {
      out += "  local " + t.name + ": ";
      shapeText(out, t);
      out += ";\n";
    }
  for (const auto &s : k.statements)
    out += "  " + printStatement(s) + "\n";
  out += "}\ninstance " + k.instanceName() + " = " + k.name + ";\n";
  return out;
}

void forEachRead(const Expr &e, const std::function<void(const Expr &)> &f) {
  if (e.kind == Expr::Kind::Read)
    f(e);
  for (const auto &a : e.args)
    forEachRead(a, f);
}

void forEachIndexExpr(const Expr &e, const std::function<void(const IndexExpr &)> &f) {
  if (e.kind == Expr::Kind::Read || e.kind == Expr::Kind::IndexValue)
    for (const auto &ix : e.indices) {
      f(ix);
      for (const auto &n : ix.gatherIndices) // a gathered index's own indices
        f(IndexExpr{{{n, 1}}, 0});
    }
  for (const auto &a : e.args)
    forEachIndexExpr(a, f);
}

void forEachRead(Expr &e, const std::function<void(Expr &)> &f) {
  if (e.kind == Expr::Kind::Read)
    f(e);
  for (auto &a : e.args)
    forEachRead(a, f);
}

} // namespace isam::difftest
