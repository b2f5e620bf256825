// The abstract syntax tree of an .isam file: plain structs, every node with its source range.
//
// The AST records what was written, nothing inferred: names are unresolved strings, shapes are
// unevaluated expressions. Semantic analysis (sema/) turns it into the compute IR and the
// hardware model. A parse always yields a File, however broken the text; parts that failed to
// parse are simply absent and a diagnostic says why.
#pragma once

#include "source/SourceManager.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace isam::ast {

struct Ident {
  std::string name;
  SourceRange range;
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

// One node type for tensor expressions, index expressions and shapes.
struct Expr {
  // Lt..Ne compare two values, And, Or and Not combine conditions, Select is `c ? a : b`
  // (args: the condition, then the two values).
  enum class Kind {
    Number,
    Name,
    Access,
    Call,
    Neg,
    Add,
    Sub,
    Mul,
    Div,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    Not,
    Select,
    Mod // `a % b`: in indices only (sema says so elsewhere)
  };
  Kind kind = Kind::Number;
  SourceRange range;
  double number = 0;         // Number
  bool isInteger = false;    // Number: written without fraction or exponent
  Ident name;                // Name, Access (tensor), Call (callee)
  std::vector<ExprPtr> args; // Access indices, Call arguments, operands of Neg and binaries
  // Access: the value of a padded read (`X[i - 1] pad 0`), or null. A Number or a Name
  // (`inf`), under a Neg when written with a minus; sema checks it.
  ExprPtr pad;
};

struct TensorType {
  Ident elem;
  std::vector<ExprPtr> shape; // empty: a scalar
  SourceRange range;
};

struct TensorParam {
  Ident name;
  TensorType type;
  SourceRange range;
};

struct RangeDecl {
  Ident index;
  ExprPtr lo, hi; // index in lo..hi, hi exclusive
  SourceRange range;
};

enum class AssignOp { Assign, Sum, Max, Min, Prod };
const char *assignOpText(AssignOp op);

struct Statement {
  ExprPtr lhs; // Kind::Access, or Kind::Name for a scalar
  AssignOp op = AssignOp::Assign;
  SourceRange opRange;
  ExprPtr rhs;
  std::vector<RangeDecl> where;
  // `where j <= i`: conditions on indices, in the order written (ranges aside).
  std::vector<ExprPtr> guards;
  SourceRange range;
};

struct LocalDecl {
  Ident name;
  TensorType type;
  SourceRange range;
};

struct ScheduleValue {
  std::optional<Ident> name;
  std::optional<double> number;
  SourceRange range;
};

struct ScheduleItem {
  Ident key;
  std::optional<Ident> level; // the memory a `tile` or `order` applies to
  std::vector<ScheduleValue> values;
  SourceRange range;
};

struct ScheduleBlock {
  std::vector<ScheduleItem> items;
  size_t afterStatement = 0; // number of statements written before the block
  SourceRange range;
};

struct KernelDecl {
  Ident name;
  std::vector<Ident> sizeParams;
  std::vector<TensorParam> inputs, outputs;
  std::vector<LocalDecl> locals;
  std::vector<Statement> statements;
  std::vector<ScheduleBlock> schedules;
  SourceRange range;
  bool incomplete = false; // a syntax error inside: checks that need every statement are skipped
};

struct InstanceDecl {
  Ident name;
  Ident kernel;
  std::vector<ExprPtr> args;
  SourceRange range;
};

// `16 GiB`, `64 B/cycle`, `1/16`, `3.0 GHz`.
struct Quantity {
  double value = 0;
  bool isInteger = false;
  std::string unit; // as written, e.g. "B/cycle"; empty for a bare number
  SourceRange range;
  SourceRange unitRange;
};

struct Property {
  Ident key;
  Quantity value;
  SourceRange range;
};

struct MemoryDecl {
  Ident name;
  std::optional<Ident> parent;
  bool isRegisters = false;
  std::vector<Property> props;
  SourceRange range;
};

struct UnitDecl {
  Ident name;
  std::vector<Property> props;
  SourceRange range;
};

enum class OperandRole { In, Out, InOut };
const char *operandRoleText(OperandRole r);

struct OperandDecl {
  Ident name;
  OperandRole role = OperandRole::In;
  TensorType type;
  std::optional<Ident> memory;
  SourceRange range;
};

struct InstrDecl {
  bool isMove = false;
  Ident name;
  std::vector<Ident> sizeParams;
  std::vector<OperandDecl> operands;
  std::optional<Ident> unit;
  std::vector<Statement> body;
  std::vector<Property> cost;
  std::optional<std::string> asmTemplate; // unescaped
  SourceRange asmRange;
  SourceRange range;
  bool incomplete = false; // a syntax error inside
};

struct LlvmField {
  Ident key;
  std::string value;
  SourceRange valueRange;
};

struct TargetDecl {
  Ident name;
  std::vector<LlvmField> llvm;
  std::vector<Property> props;
  std::vector<MemoryDecl> memories; // registers included, in source order
  std::vector<UnitDecl> units;
  std::vector<InstrDecl> instrs;
  SourceRange range;
};

struct MemRef {
  Ident target, memory;
  SourceRange range;
};

struct LinkDecl {
  MemRef from, to;
  std::vector<Property> props;
  SourceRange range;
};

struct SystemDecl {
  Ident name;
  std::vector<Ident> hosts, devices;
  std::vector<std::vector<MemRef>> shared;
  std::vector<LinkDecl> links;
  SourceRange range;
};

struct ImportDecl {
  std::string path;
  SourceRange range; // of the string literal
};

struct Comment {
  SourceRange range;
};

struct File {
  FileId id = kNoFile;
  std::vector<ImportDecl> imports;
  std::vector<KernelDecl> kernels;
  std::vector<InstanceDecl> instances;
  std::vector<TargetDecl> targets;
  std::vector<SystemDecl> systems;
  std::vector<Comment> comments; // kept for the formatter
};

} // namespace isam::ast
