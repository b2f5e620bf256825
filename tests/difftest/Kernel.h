// The differential tester's kernel model: a kernel as the generator builds it and the
// minimiser edits it, printed as isam source text. It is deliberately close to the surface
// syntax (names, literal shapes, affine index expressions, `where` ranges), not to the compute
// IR: the text is what `isamap check` judges and what a finding shows a person.
#pragma once

#include "ir/Compute.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace isam::difftest {

enum class Role { Input, Output, Local, Implicit }; // Local: declared with `local`

struct Tensor {
  std::string name;
  ir::ElemType type = ir::ElemType::F32;
  std::vector<int64_t> shape; // empty: a scalar; for Implicit, the shape sema will infer
  Role role = Role::Input;
};

struct Term {
  std::string index;
  int64_t coef = 1;
};

// sum(coef * index) + constant, and of that the floor quotient or remainder by `divisor` when
// it is positive (`(h + 1) / 2`, `i % 3`).
struct IndexExpr {
  std::vector<Term> terms;
  int64_t constant = 0;
  int64_t divisor = 0;
  bool remainder = false;
  // A gathered index (`T[G0[i, k], j] pad 0`): the element of the integer tensor `gather` at
  // these indices; terms, constant and divisor are then unused.
  std::string gather{};
  std::vector<std::string> gatherIndices{};

  bool plain() const {
    return terms.size() == 1 && terms[0].coef == 1 && constant == 0 && divisor == 0 &&
           gather.empty();
  }
  bool operator==(const IndexExpr &o) const;
};

struct Expr {
  // Compare: args[0] fn args[1] (fn "<", "<=", ...); Logic: fn "&&", "||" or "!" of
  // conditions; Select: args[0] (a condition) ? args[1] : args[2].
  // IndexValue: the value of indices[0] (an affine function of the statement's indices).
  enum class Kind {
    Const,
    Read,
    Neg,
    Add,
    Sub,
    Mul,
    Div,
    Call,
    Cast,
    Compare,
    Logic,
    Select,
    IndexValue
  };
  Kind kind = Kind::Const;
  double value = 0;                    // Const
  std::string tensor;                  // Read
  std::vector<IndexExpr> indices;      // Read
  std::optional<double> pad;           // Read: a padded read's value (`X[i - 1] pad 0`)
  std::string fn;                      // Call: exp, tanh, ...; Compare and Logic: the operator
  ir::ElemType to = ir::ElemType::F32; // Cast
  std::vector<Expr> args;
};

enum class Op { Assign, Sum, Max, Min, Prod };

struct Range {
  std::string index;
  int64_t lo = 0, hi = 0; // [lo, hi)
};

// `where j <= i + 1`: a condition on the statement's indices (cmp: "<", "<=", ...).
struct Guard {
  IndexExpr lhs;
  std::string cmp;
  IndexExpr rhs;
};

struct Statement {
  std::string lhs;
  std::vector<std::string> lhsIndices;
  std::vector<int64_t> lhsShifts; // per written dimension: written at index + shift (or empty)
  // Per written dimension (or empty): a strided write `stride * index + tap + shift`, a
  // transposed convolution's scatter; stride 1 and no tap is a plain write.
  std::vector<int64_t> lhsStrides;
  std::vector<std::string> lhsTaps;
  Op op = Op::Assign;
  Expr rhs;
  std::vector<Range> where;
  std::vector<Guard> guards; // printed after the ranges
};

struct Kernel {
  std::string name = "k";
  std::vector<Tensor> tensors; // declaration order within each role
  std::vector<Statement> statements;

  const Tensor *find(const std::string &name) const;
  Tensor *find(const std::string &name);
  // The instance the printed text declares for the kernel.
  std::string instanceName() const { return name + "_i"; }
};

const char *opText(Op op);
std::string printExpr(const Expr &e);
std::string printStatement(const Statement &s);
// The whole kernel and one instance of it (`instance NAME_i = NAME;`).
std::string print(const Kernel &k);

// Every read in an expression, in evaluation (left to right) order.
void forEachRead(const Expr &e, const std::function<void(const Expr &)> &f);
void forEachRead(Expr &e, const std::function<void(Expr &)> &f);
// The affine functions an expression uses: its reads' indices and its index values.
void forEachIndexExpr(const Expr &e, const std::function<void(const IndexExpr &)> &f);

} // namespace isam::difftest
