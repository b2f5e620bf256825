// The compute IR: what a kernel instance (or an instruction's semantics) computes, with every
// size bound to an integer. One statement is a perfectly nested loop over its iteration domain
// (all indices start at 0), an affine write access, a reduction operator and an expression tree.
//
// Invariants (established by sema/, relied on by the mapper, scheduler and interpreter):
// - every access is within the bounds of its tensor for every point of the domain, except a
//   padded read, which gives its pad value where it is not;
// - reduction indices are exactly the indices absent from the write access;
// - tensors referenced by index are those of the enclosing Kernel.
#pragma once

#include "source/SourceManager.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace isam::ir {

enum class ElemType { F16, BF16, F32, F64, I8, I32 };
const char *elemTypeName(ElemType t);
std::optional<ElemType> parseElemType(const std::string &name);
int elemTypeBytes(ElemType t);
bool isFloat(ElemType t);

enum class TensorRole { Input, Output, Local, InOut };
const char *tensorRoleName(TensorRole r);

struct Tensor {
  std::string name;
  ElemType type = ElemType::F32;
  std::vector<int64_t> shape;
  // Per dimension: the name of a free instruction size parameter (`R` in `f32[R, 16]`), or
  // empty. Such a dimension has no fixed extent; shape holds 0 there.
  std::vector<std::string> shapeParams;
  TensorRole role = TensorRole::Input;
  std::string memory; // instruction operands: the memory or register file it lives in
  SourceRange range;

  int64_t elementCount() const;
  // Elements between consecutive values of each dimension, dense and row-major.
  std::vector<int64_t> strides() const;
};

struct Quasi;

// sum(coef * index) + constant, plus quasi-affine parts (`h / 2`, `(i + s) % N`) in the reads of
// a kernel's statements.
struct Affine {
  std::vector<std::pair<int, int64_t>> terms; // (index position in the statement, coefficient)
  int64_t constant = 0;
  // Each adds coef * floor(inner / divisor), or coef * (inner mod divisor) in 0..divisor-1 (as
  // ISL and Python divide). A read with one is computed per point (computedPerPoint): only
  // the interpreters and the JIT's scalar code evaluate it, so every other consumer sees
  // affine functions only.
  std::vector<Quasi> quasi;

  int64_t coefficientOf(int index) const;
};

struct Quasi {
  Affine inner;
  int64_t divisor = 1; // positive
  bool remainder = false;
  int64_t coef = 1;
};

// floor(a / d) and a mod d in 0..d-1, for d > 0.
int64_t floorDiv(int64_t a, int64_t d);
int64_t floorMod(int64_t a, int64_t d);
// The value of an affine function (quasi parts included) at a point of its statement.
int64_t valueAt(const Affine &a, const std::vector<int64_t> &point);
// The smallest and largest value of `a` when each index i ranges over rangeOf(i) (inclusive);
// exact for affine functions and for each quasi part alone, in 128 bits.
std::pair<__int128, __int128>
rangeOf(const Affine &a, const std::function<std::pair<int64_t, int64_t>(int)> &rangeOfIndex);
// Over a statement's domain (each index from 0 to its extent - 1).
std::pair<__int128, __int128> rangeOver(const Affine &a, const struct Statement &s);

// A gathered dimension of a read (`T[Idx[b, l], d]`): its index at a point is the element of
// the integer tensor `tensor` at `indices` (affine, in bounds), known only when the kernel runs.
struct Gather {
  size_t dim = 0;
  int tensor = -1;
  std::vector<Affine> indices;
};

struct Access {
  int tensor = -1;
  std::vector<Affine> indices; // a gathered dimension's is 0 (see gathers)
  // A padded read (`X[i - 1] pad 0`): at a point where an index falls outside its dimension the
  // read gives this value (in the tensor's type) instead of an element. Only reads of a kernel's
  // statements are padded; no instruction operand stands for one.
  std::optional<double> pad;
  // Gathered dimensions, in increasing order; only padded reads of a kernel's statements have
  // them, so an index out of its dimension gives the pad value.
  std::vector<Gather> gathers;
};

// Prod is appended (not inserted) so that encoded programs keep their numbers.
enum class ReduceOp { None, Sum, Max, Min, Prod };
const char *reduceOpText(ReduceOp op); // "=", "+=", "max=", "min=", "*="
// The operator of a reduceOpText, or nothing.
std::optional<ReduceOp> parseReduceOp(const std::string &text);
// What a reduction starts from: 0, -inf, +inf or 1 (None: 0).
double reduceIdentity(ReduceOp op);
const char *reduceIdentityText(ReduceOp op); // "0", "-inf", "+inf", "1"
// The reduction's name in messages and printed domains: "sum", "max", "min", "product".
const char *reduceOpName(ReduceOp op);

// Appended after Cast (not inserted) so that encoded programs keep their numbers; kLastFn ends
// the list.
enum class Fn {
  Exp,
  Tanh,
  Sigmoid,
  Relu,
  Max,
  Min,
  Sqrt,
  Log,
  Abs,
  Cast,
  Rsqrt, // 1 / sqrt(x)
  Erf,
  Pow, // pow(x, y) = x^y, as C's
  Sin,
  Cos,
  Exp2,
  Log2,
  Floor,
  Round, // to the nearest integer, ties to even (as NumPy, PyTorch and ONNX round)
};
constexpr Fn kLastFn = Fn::Round;
// The number of arguments a function takes.
int fnArity(Fn f);
const char *fnName(Fn f);

enum class Cmp { Lt, Le, Gt, Ge, Eq, Ne };
const char *cmpText(Cmp c); // "<", "<=", ">", ">=", "==", "!="
// Whether `a c b` holds, as C compares: any comparison with a NaN is false, except !=.
bool compare(Cmp c, double a, double b);

// A value, or a condition (Compare, And, Or, Not): a truth value, which appears only as the
// first operand of a Select or an operand of And, Or and Not. A condition's value is 1 or 0
// where executors compute with doubles. An Index is the value of an affine function of the
// statement's indices at the point computed (`i`, `j - i`), in the node's type; it occurs only
// in statements of kernels (never in an instruction's semantics) and only a statement's own
// evaluation at a point computes it: no instruction operand stands for a sub-expression with
// one.
struct Expr {
  enum class Kind {
    Const,
    Read,
    Neg,
    Add,
    Sub,
    Mul,
    Div,
    Call,
    Compare,
    And,
    Or,
    Not,
    Select,
    Index
  };
  Kind kind = Kind::Const;
  // A value's element type; a Compare's is that of the values it compares (And, Or and Not
  // keep the default and mean nothing by it).
  ElemType type = ElemType::F32;
  double value = 0;       // Const
  Access access;          // Read; Index: tensor -1, the affine function in indices[0]
  Fn fn = Fn::Exp;        // Call (Cast converts args[0] to `type`)
  Cmp cmp = Cmp::Lt;      // Compare: args[0] cmp args[1]
  std::vector<Expr> args; // Select: the condition, then the value if it holds, else the other
};
bool isCondition(const Expr &e);
// Whether e or a sub-expression of it is an Index.
bool usesIndexValue(const Expr &e);
// Whether e or a sub-expression of it is a padded read.
bool usesPaddedRead(const Expr &e);
// Whether e or a sub-expression of it reads through a quasi-affine index (`X[h / 2]`).
bool usesQuasiAffineRead(const Expr &e);
// Whether e or a sub-expression of it is a gathered read (`T[Idx[b, l], d] pad 0`).
bool usesGather(const Expr &e);
// Whether only the statement's own evaluation at each point may compute e: it uses an index
// value, a padded read, a quasi-affine index or a gather, which no instruction operand stands
// for.
bool computedPerPoint(const Expr &e);
// Calls f on the access of every Read in e, outermost first.
void forEachRead(Expr &e, const std::function<void(Access &)> &f);
void forEachRead(const Expr &e, const std::function<void(const Access &)> &f);
// The value of an Index at a point of its statement.
int64_t indexValueAt(const Expr &e, const std::vector<int64_t> &point);
// The number of operands a node of e's kind (and function) has.
int exprArity(const Expr &e);

struct Index {
  std::string name;
  int64_t extent = 0;
  bool reduction = false;
  std::string param; // non-empty: the extent is this free instruction size parameter
};

// `where j <= i`: a condition on the indices of a statement's point (affine, quasi parts
// allowed). Only points where all of a statement's guards hold are computed: the others write
// nothing and add nothing to a reduction. No instruction runs a guarded statement; the
// interpreters and the JIT's scalar code evaluate its guards at each point.
struct Guard {
  Affine lhs;
  Cmp cmp = Cmp::Le;
  Affine rhs;
};

struct Statement {
  std::vector<Index> indices; // write indices first, in order of appearance, then reductions
  Access lhs;
  ReduceOp reduce = ReduceOp::None;
  // A reduction starts from its identity unless the target already holds values (an earlier
  // statement wrote it, or it is an inout instruction operand); then it accumulates.
  bool accumulates = false;
  Expr rhs;
  std::string text; // the statement as written, for messages
  SourceRange range;
  // Made by isamap, not written: a padded read's staged copy (ir/Padding.h), placed just
  // before the statement it serves and sharing its range.
  bool staged = false;
  std::vector<Guard> guards; // all must hold at a point for it to be computed

  int64_t pointCount() const; // product of the extents (guards aside)
  // Whether every guard holds at `point`.
  bool computes(const std::vector<int64_t> &point) const;
  // The points where every guard holds: counted over the indices the guards name (times the
  // other extents), or pointCount() when those span more than 2^24 points.
  int64_t computedPointCount() const;
  // Arithmetic operations per point: each +, -, *, / and function in the expression, and the
  // reduction's step (a multiply-accumulate counts 2, as BLAS counts it).
  int flopsPerPoint() const;
};

struct Kernel {
  std::string name;       // the instance's name (or the kernel's when bound with -D)
  std::string kernelName; // the kernel it instantiates
  std::vector<std::pair<std::string, int64_t>> sizes; // in declaration order
  std::vector<Tensor> tensors;                        // inputs, outputs, then locals
  std::vector<Statement> statements;
  SourceRange range;

  int tensorIndex(const std::string &name) const;
  double flopCount() const; // over every statement, the points its guards skip left out
};

// Whether statement s writes every element of the tensor it writes (a guarded `=` does not).
bool writesWhole(const Statement &s, const Tensor &written);

// Whether tensor t (an output or a local) starts as zeros: the first statement that writes it
// leaves elements unwritten, so that elements no statement writes, and reads of them, give 0.
// Every executor clears such a tensor before the kernel runs (the caller's output buffer may
// hold anything); a tensor whose first writer covers it needs no clearing.
bool startsZeroed(const Kernel &k, int t);

// Readable text, one statement per line with its domain:
//   C[m, n] += A[m, k] * B[k, n]    for m < 128, n < 64; sum over k < 256
std::string printExpr(const Expr &e, const Statement &s, const std::vector<Tensor> &tensors);
std::string printAccess(const Access &a, const Statement &s, const std::vector<Tensor> &tensors);
std::string printGuard(const Guard &g, const Statement &s); // "j <= i"
std::string printStatement(const Statement &s, const std::vector<Tensor> &tensors);
std::string printKernel(const Kernel &k);

} // namespace isam::ir
