#include "schedule/PointwiseCost.h"

#include <algorithm>
#include <set>

namespace isam::schedule {

namespace {

// VectorMath's exp, log, tanh and sigmoid: a range reduction, a degree 5-7 polynomial and the
// special cases as selects, about 20 vector operations each.
constexpr double kPolynomialOps = 20;
// A square root or a division issues like several multiplies on the vector units we know of
// (e.g. Zen 4: a 6-cycle reciprocal throughput against 1 for a multiply).
constexpr double kDivideOps = 6;

double exprOps(const ir::Expr &e) {
  double ops = 0;
  for (const auto &a : e.args)
    ops += exprOps(a);
  switch (e.kind) {
  case ir::Expr::Kind::Const:
  case ir::Expr::Kind::Read:
    return ops;
  case ir::Expr::Kind::Div:
    return ops + kDivideOps;
  case ir::Expr::Kind::Call:
    switch (e.fn) {
    case ir::Fn::Exp:
    case ir::Fn::Log:
    case ir::Fn::Tanh:
    case ir::Fn::Sigmoid:
    case ir::Fn::Exp2:
    case ir::Fn::Log2:
      return ops + kPolynomialOps;
    // Range reduction and a polynomial, in a C library call per element.
    case ir::Fn::Erf:
    case ir::Fn::Sin:
    case ir::Fn::Cos:
      return ops + 2 * kPolynomialOps;
    case ir::Fn::Pow: // a logarithm and an exponential
      return ops + 3 * kPolynomialOps;
    case ir::Fn::Sqrt:
      return ops + kDivideOps;
    case ir::Fn::Rsqrt:
      return ops + 2 * kDivideOps;
    default:
      return ops + 1;
    }
  default:
    return ops + 1;
  }
}

void readTensors(const ir::Expr &e, std::set<int> &out) {
  if (e.kind == ir::Expr::Kind::Read)
    out.insert(e.access.tensor);
  for (const auto &a : e.args)
    readTensors(a, out);
}

int readCount(const ir::Expr &e) {
  int n = e.kind == ir::Expr::Kind::Read ? 1 : 0;
  for (const auto &a : e.args)
    n += readCount(a);
  return n;
}

} // namespace

double vectorOpsPerPoint(const ir::Statement &s) {
  return std::max(1.0, exprOps(s.rhs) + (s.reduce != ir::ReduceOp::None ? 1 : 0));
}

double pointwiseCycles(const ir::Kernel &kernel, const hw::Target &target, size_t statement,
                       double cores) {
  const ir::Statement &s = kernel.statements[statement];
  double points = double(s.pointCount());
  if (target.triple.empty())
    return points;
  cores = std::max(1.0, cores);
  const ir::Tensor &written = kernel.tensors[size_t(s.lhs.tensor)];
  double elemBytes = ir::elemTypeBytes(written.type);
  uint32_t vectorBytes = 0;
  for (const auto &m : target.memories)
    if (m.isRegisters)
      vectorBytes = std::max(vectorBytes, m.registerBytes);
  double lanes = std::max(1.0, double(vectorBytes) / elemBytes);
  double compute = points * vectorOpsPerPoint(s) / lanes / cores;

  // Every read and the write stream through the smallest memory that holds every tensor the
  // statement touches (its private levels' bandwidth is per core).
  std::set<int> touched{s.lhs.tensor};
  readTensors(s.rhs, touched);
  double footprint = 0;
  for (int t : touched)
    footprint += double(kernel.tensors[size_t(t)].elementCount()) *
                 ir::elemTypeBytes(kernel.tensors[size_t(t)].type);
  const hw::Memory *holder = nullptr;
  for (const auto &m : target.memories)
    if (!m.isRegisters && m.bandwidthBytesPerCycle > 0 &&
        (m.parent < 0 || double(m.sizeBytes) >= footprint) &&
        (!holder || (holder->parent < 0 ? m.parent >= 0 : m.sizeBytes < holder->sizeBytes)))
      holder = &m;
  double memory = 0;
  if (holder) {
    double rate = holder->bandwidthBytesPerCycle * (holder->parent >= 0 ? cores : 1);
    memory = points * (readCount(s.rhs) + 1) * elemBytes / rate;
  }
  return std::max(compute, memory);
}

} // namespace isam::schedule
