#include "backends/llvm/Values.h"
#include "backends/llvm/VectorMath.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/Support/ErrorHandling.h>

#include <algorithm>
#include <cmath>

namespace isam::backend {

using llvm::Value;

namespace {

bool isInteger(ir::ElemType t) {
  return t == ir::ElemType::I8 || t == ir::ElemType::I32;
}

unsigned lanesOf(llvm::Value *v) {
  llvm::Type *vt = v->getType();
  return vt->isVectorTy() ? unsigned(llvm::cast<llvm::FixedVectorType>(vt)->getNumElements()) : 1;
}

} // namespace

llvm::Type *Values::storageType(ir::ElemType t) const {
  auto &c = m_.getContext();
  switch (t) {
  case ir::ElemType::F16:
    return llvm::Type::getHalfTy(c);
  case ir::ElemType::BF16: // stored as its bits: conversions are done here, portably
    return llvm::Type::getInt16Ty(c);
  case ir::ElemType::F32:
    return llvm::Type::getFloatTy(c);
  case ir::ElemType::F64:
    return llvm::Type::getDoubleTy(c);
  case ir::ElemType::I8:
    return llvm::Type::getInt8Ty(c);
  case ir::ElemType::I32:
    return llvm::Type::getInt32Ty(c);
  }
  return nullptr;
}

llvm::Type *Values::computeType(ir::ElemType t) const {
  auto &c = m_.getContext();
  if (isInteger(t))
    return storageType(t); // integer arithmetic wraps in the element's own width
  if (t == ir::ElemType::F64)
    return llvm::Type::getDoubleTy(c);
  return llvm::Type::getFloatTy(c);
}

llvm::Type *Values::computeType(ir::ElemType t, unsigned lanes) const {
  llvm::Type *s = computeType(t);
  return lanes > 1 ? llvm::FixedVectorType::get(s, lanes) : s;
}

static llvm::Type *withLanes(llvm::Type *scalar, unsigned lanes) {
  return lanes > 1 ? llvm::FixedVectorType::get(scalar, lanes) : scalar;
}

llvm::Constant *Values::mask(unsigned lanes, unsigned active) {
  std::vector<llvm::Constant *> bits;
  for (unsigned i = 0; i < lanes; ++i)
    bits.push_back(b_.getInt1(i < active));
  return llvm::ConstantVector::get(bits);
}

Value *Values::fromStorage(Value *v, ir::ElemType t) {
  llvm::Type *vt = v->getType();
  unsigned lanes =
      vt->isVectorTy() ? unsigned(llvm::cast<llvm::FixedVectorType>(vt)->getNumElements()) : 1;
  llvm::Type *ct = computeType(t, lanes);
  switch (t) {
  case ir::ElemType::F32:
  case ir::ElemType::F64:
    return v;
  case ir::ElemType::F16:
    return b_.CreateFPExt(v, ct);
  case ir::ElemType::BF16: {
    Value *wide = b_.CreateZExt(v, withLanes(b_.getInt32Ty(), lanes));
    return b_.CreateBitCast(b_.CreateShl(wide, 16), ct);
  }
  case ir::ElemType::I8:
  case ir::ElemType::I32:
    (void)ct;
    return v;
  }
  return v;
}

Value *Values::toStorage(Value *v, ir::ElemType t) {
  llvm::Type *vt = v->getType();
  unsigned lanes =
      vt->isVectorTy() ? unsigned(llvm::cast<llvm::FixedVectorType>(vt)->getNumElements()) : 1;
  llvm::Type *st = withLanes(storageType(t), lanes);
  switch (t) {
  case ir::ElemType::F32:
  case ir::ElemType::F64:
    return v;
  case ir::ElemType::F16:
    return b_.CreateFPTrunc(v, st);
  case ir::ElemType::BF16: {
    // Round to nearest even on the float's bits; a NaN keeps its sign and stays quiet.
    llvm::Type *i32 = withLanes(b_.getInt32Ty(), lanes);
    Value *bits = b_.CreateBitCast(v, i32);
    Value *lsb = b_.CreateAnd(b_.CreateLShr(bits, 16), llvm::ConstantInt::get(i32, 1));
    Value *rounded = b_.CreateAdd(b_.CreateAdd(bits, llvm::ConstantInt::get(i32, 0x7FFF)), lsb);
    Value *quiet = b_.CreateOr(bits, llvm::ConstantInt::get(i32, 0x00400000));
    Value *isNan = b_.CreateFCmpUNO(v, v);
    Value *chosen = b_.CreateSelect(isNan, quiet, rounded);
    return b_.CreateTrunc(b_.CreateLShr(chosen, 16), st);
  }
  case ir::ElemType::I8:
  case ir::ElemType::I32:
    (void)st;
    return v; // the compute type is the element type
  }
  return v;
}

Value *Values::roundTo(Value *v, ir::ElemType t) {
  if (t == ir::ElemType::F32 || t == ir::ElemType::F64 || isInteger(t))
    return v; // the compute type is the element type
  return fromStorage(toStorage(v, t), t);
}

Value *Values::toReal(Value *v) {
  return b_.CreateSIToFP(v, withLanes(b_.getDoubleTy(), lanesOf(v)));
}

Value *Values::fromReal(Value *v, ir::ElemType t) {
  // Truncating toward zero, saturating, NaN to 0: the interpreter's conversion.
  llvm::Type *it = withLanes(storageType(t), lanesOf(v));
  return b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {it, v->getType()}, {v});
}

Value *Values::lanePointers(Value *ptr, llvm::Type *elem, unsigned lanes, int64_t stride) {
  std::vector<llvm::Constant *> offsets;
  for (unsigned i = 0; i < lanes; ++i)
    offsets.push_back(b_.getInt64(uint64_t(int64_t(i) * stride)));
  return b_.CreateInBoundsGEP(elem, ptr, llvm::ConstantVector::get(offsets));
}

Value *Values::load(Value *ptr, ir::ElemType t, unsigned lanes, int64_t stride, unsigned active) {
  llvm::Type *st = storageType(t);
  llvm::Align align(st->getPrimitiveSizeInBits() / 8);
  if (lanes <= 1 || stride == 0) {
    Value *one = fromStorage(b_.CreateAlignedLoad(st, ptr, align), t);
    return lanes > 1 ? b_.CreateVectorSplat(lanes, one) : one;
  }
  llvm::Type *vt = llvm::FixedVectorType::get(st, lanes);
  if (stride == 1) {
    if (active == lanes)
      return fromStorage(b_.CreateAlignedLoad(vt, ptr, align), t);
    return fromStorage(
        b_.CreateMaskedLoad(vt, ptr, align, mask(lanes, active), llvm::Constant::getNullValue(vt)),
        t);
  }
  return fromStorage(b_.CreateMaskedGather(vt, lanePointers(ptr, st, lanes, stride), align,
                                           mask(lanes, active), llvm::Constant::getNullValue(vt)),
                     t);
}

void Values::store(Value *value, Value *ptr, ir::ElemType t, unsigned lanes, int64_t stride,
                   unsigned active) {
  llvm::Type *st = storageType(t);
  llvm::Align align(st->getPrimitiveSizeInBits() / 8);
  Value *v = toStorage(value, t);
  if (lanes <= 1) {
    b_.CreateAlignedStore(v, ptr, align);
    return;
  }
  if (stride == 1) {
    if (active == lanes)
      b_.CreateAlignedStore(v, ptr, align);
    else
      b_.CreateMaskedStore(v, ptr, align, mask(lanes, active));
    return;
  }
  if (stride == 0) { // every lane to one element: the last active lane wins, as in a loop
    b_.CreateAlignedStore(b_.CreateExtractElement(v, uint64_t(active - 1)), ptr, align);
    return;
  }
  b_.CreateMaskedScatter(v, lanePointers(ptr, st, lanes, stride), align, mask(lanes, active));
}

std::vector<Value *> Values::transpose(std::vector<Value *> rows) {
  int n = int(rows.size());
  for (int h = n / 2; h >= 1; h /= 2) {
    // Rows i and i + h (i without bit h) trade blocks of h lanes: lane j of the first takes the
    // second's lane j - h where j has bit h, and the second takes the first's lane j + h where
    // j has not.
    llvm::SmallVector<int, 64> low(size_t(n), 0), high(size_t(n), 0);
    for (int j = 0; j < n; ++j) {
      bool upper = j & h;
      low[size_t(j)] = upper ? n + j - h : j;
      high[size_t(j)] = upper ? n + j : j + h;
    }
    for (int i = 0; i < n; ++i) {
      if (i & h)
        continue;
      Value *a = rows[size_t(i)], *b = rows[size_t(i + h)];
      rows[size_t(i)] = b_.CreateShuffleVector(a, b, low);
      rows[size_t(i + h)] = b_.CreateShuffleVector(a, b, high);
    }
  }
  return rows;
}

Value *Values::constant(double v, ir::ElemType t, unsigned lanes) {
  Value *c = nullptr;
  if (isInteger(t)) {
    // As the interpreter: a literal truncates toward zero and wraps into the type; a reduction's
    // identity (an infinity) is the type's extreme.
    unsigned bits = unsigned(8 * ir::elemTypeBytes(t));
    llvm::APInt value =
        std::isinf(v)
            ? (v < 0 ? llvm::APInt::getSignedMinValue(bits) : llvm::APInt::getSignedMaxValue(bits))
            : llvm::APInt(64, uint64_t(int64_t(std::clamp(std::trunc(v), -0x1p63, 0x1p63 - 1024))))
                  .trunc(bits);
    c = llvm::ConstantInt::get(computeType(t), value);
  } else {
    c = llvm::ConstantFP::get(computeType(t), v);
  }
  return lanes > 1 ? b_.CreateVectorSplat(lanes, c) : c;
}

Value *Values::convert(Value *v, ir::ElemType from, ir::ElemType to) {
  llvm::Type *a = computeType(from), *b = computeType(to);
  if (a == b)
    return v;
  unsigned lanes = lanesOf(v);
  if (isInteger(from) && isInteger(to)) {
    if (a->getPrimitiveSizeInBits() < b->getPrimitiveSizeInBits())
      return b_.CreateSExt(v, withLanes(b, lanes));
    // Narrowing is a conversion: it saturates, as from a real value.
    unsigned bits = b->getPrimitiveSizeInBits();
    auto bound = [&](const llvm::APInt &x) {
      Value *c = llvm::ConstantInt::get(a, x.sext(a->getPrimitiveSizeInBits()));
      return lanes > 1 ? b_.CreateVectorSplat(lanes, c) : c;
    };
    Value *lo = bound(llvm::APInt::getSignedMinValue(bits));
    Value *hi = bound(llvm::APInt::getSignedMaxValue(bits));
    Value *clamped = b_.CreateBinaryIntrinsic(
        llvm::Intrinsic::smin, b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, v, lo), hi);
    return b_.CreateTrunc(clamped, withLanes(b, lanes));
  }
  if (isInteger(from))
    return b_.CreateSIToFP(v, withLanes(b, lanes));
  if (isInteger(to))
    return fromReal(v, to);
  return a->getPrimitiveSizeInBits() < b->getPrimitiveSizeInBits()
             ? b_.CreateFPExt(v, withLanes(b, lanes))
             : b_.CreateFPTrunc(v, withLanes(b, lanes));
}

Value *Values::call(ir::Fn fn, ir::ElemType t, std::vector<Value *> a, unsigned lanes) {
  if (isInteger(t))
    return integerCall(fn, t, std::move(a), lanes);
  switch (fn) {
  case ir::Fn::Exp:
    return roundTo(vecmath::exp(b_, a[0]), t);
  case ir::Fn::Log:
    return roundTo(vecmath::log(b_, a[0]), t);
  case ir::Fn::Sqrt:
    return roundTo(b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a[0]), t);
  case ir::Fn::Abs:
    return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a[0]);
  case ir::Fn::Tanh:
    return roundTo(vecmath::tanh(b_, a[0]), t);
  case ir::Fn::Sigmoid:
    return roundTo(vecmath::sigmoid(b_, a[0]), t);
  case ir::Fn::Relu: // x > 0 ? x : 0, so NaN gives 0
    return b_.CreateSelect(b_.CreateFCmpOGT(a[0], constant(0.0, t, lanes)), a[0],
                           constant(0.0, t, lanes));
  case ir::Fn::Max: // std::max(a, b): a < b ? b : a
    return b_.CreateSelect(b_.CreateFCmpOLT(a[0], a[1]), a[1], a[0]);
  case ir::Fn::Min: // std::min(a, b): b < a ? b : a
    return b_.CreateSelect(b_.CreateFCmpOLT(a[1], a[0]), a[1], a[0]);
  case ir::Fn::Cast:
    return roundTo(a[0], t);
  case ir::Fn::Rsqrt:
    return roundTo(b_.CreateFDiv(llvm::ConstantFP::get(a[0]->getType(), 1.0),
                                 b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a[0])),
                   t);
  case ir::Fn::Erf:
    return roundTo(libraryCall("erf", a[0]), t);
  case ir::Fn::Pow:
    return roundTo(b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, a[0], a[1]), t);
  case ir::Fn::Sin:
    return roundTo(b_.CreateUnaryIntrinsic(llvm::Intrinsic::sin, a[0]), t);
  case ir::Fn::Cos:
    return roundTo(b_.CreateUnaryIntrinsic(llvm::Intrinsic::cos, a[0]), t);
  case ir::Fn::Exp2:
    return roundTo(b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp2, a[0]), t);
  case ir::Fn::Log2:
    return roundTo(b_.CreateUnaryIntrinsic(llvm::Intrinsic::log2, a[0]), t);
  case ir::Fn::Floor:
    return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, a[0]);
  case ir::Fn::Round:
    return b_.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, a[0]);
  }
  return a[0];
}

Value *Values::libraryCall(const char *name, Value *x) {
  llvm::Type *type = x->getType();
  llvm::Type *scalar = type->getScalarType();
  std::string symbol = scalar->isFloatTy() ? std::string(name) + "f" : std::string(name);
  llvm::FunctionCallee f =
      m_.getOrInsertFunction(symbol, llvm::FunctionType::get(scalar, {scalar}, false));
  if (auto *decl = llvm::dyn_cast<llvm::Function>(f.getCallee()))
    decl->setDoesNotThrow();
  auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(type);
  if (!vector)
    return b_.CreateCall(f, {x});
  Value *out = llvm::PoisonValue::get(type);
  for (unsigned i = 0; i < vector->getNumElements(); ++i)
    out = b_.CreateInsertElement(out, b_.CreateCall(f, {b_.CreateExtractElement(x, i)}), i);
  return out;
}

Value *Values::integerCall(ir::Fn fn, ir::ElemType t, std::vector<Value *> a, unsigned lanes) {
  Value *zero = constant(0.0, t, lanes);
  switch (fn) {
  case ir::Fn::Abs: // integer negation: |MIN| wraps to MIN
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, a[0], b_.getFalse());
  case ir::Fn::Relu:
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a[0], zero);
  case ir::Fn::Max:
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a[0], a[1]);
  case ir::Fn::Min:
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a[0], a[1]);
  case ir::Fn::Cast:
    return a[0]; // the argument was converted to t already
  default: {
    // A real function of an integer: computed in double, then converted back.
    for (auto &x : a)
      x = toReal(x);
    return fromReal(call(fn, ir::ElemType::F64, a, lanes), t);
  }
  }
}

Value *Values::integerDiv(Value *n, Value *d, ir::ElemType t, unsigned lanes) {
  // Truncating toward zero; x / 0 is 0 and MIN / -1 wraps to MIN (the interpreter's meaning),
  // without the division that would trap.
  Value *zero = constant(0.0, t, lanes), *one = constant(1.0, t, lanes);
  Value *minusOne = constant(-1.0, t, lanes);
  Value *byZero = b_.CreateICmpEQ(d, zero), *byMinusOne = b_.CreateICmpEQ(d, minusOne);
  Value *safe = b_.CreateSelect(b_.CreateOr(byZero, byMinusOne), one, d);
  Value *q = b_.CreateSDiv(n, safe);
  return b_.CreateSelect(byZero, zero, b_.CreateSelect(byMinusOne, b_.CreateNeg(n), q));
}

Value *Values::eval(const ir::Expr &e, unsigned lanes, const Reader &read,
                    const IndexReader &index) {
  // Children are brought to this node's compute type before the operation.
  auto arg = [&](size_t i) {
    return convert(eval(e.args[i], lanes, read, index), e.args[i].type, e.type);
  };

  if (isInteger(e.type)) {
    switch (e.kind) {
    case ir::Expr::Kind::Neg:
      return b_.CreateNeg(arg(0));
    case ir::Expr::Kind::Add:
      return b_.CreateAdd(arg(0), arg(1));
    case ir::Expr::Kind::Sub:
      return b_.CreateSub(arg(0), arg(1));
    case ir::Expr::Kind::Mul:
      return b_.CreateMul(arg(0), arg(1));
    case ir::Expr::Kind::Div:
      return integerDiv(arg(0), arg(1), e.type, lanes);
    default:
      break;
    }
  }
  switch (e.kind) {
  case ir::Expr::Kind::Const:
    return constant(e.value, e.type, lanes);
  case ir::Expr::Kind::Read:
    return read(e.access, e.type);
  case ir::Expr::Kind::Neg:
    return b_.CreateFNeg(arg(0));
  case ir::Expr::Kind::Add:
    return roundTo(b_.CreateFAdd(arg(0), arg(1)), e.type);
  case ir::Expr::Kind::Sub:
    return roundTo(b_.CreateFSub(arg(0), arg(1)), e.type);
  case ir::Expr::Kind::Mul:
    return roundTo(b_.CreateFMul(arg(0), arg(1)), e.type);
  case ir::Expr::Kind::Div:
    return roundTo(b_.CreateFDiv(arg(0), arg(1)), e.type);
  case ir::Expr::Kind::Call: {
    std::vector<Value *> args;
    for (size_t i = 0; i < e.args.size(); ++i)
      args.push_back(arg(i));
    return call(e.fn, e.type, args, lanes);
  }
  // A condition is an i1 per lane; both values of a selection are computed (they have no
  // effects), then blended.
  case ir::Expr::Kind::Compare:
    return compare(e.cmp, arg(0), arg(1));
  case ir::Expr::Kind::And:
    return b_.CreateAnd(eval(e.args[0], lanes, read, index), eval(e.args[1], lanes, read, index));
  case ir::Expr::Kind::Or:
    return b_.CreateOr(eval(e.args[0], lanes, read, index), eval(e.args[1], lanes, read, index));
  case ir::Expr::Kind::Not:
    return b_.CreateNot(eval(e.args[0], lanes, read, index));
  case ir::Expr::Kind::Select:
    return b_.CreateSelect(eval(e.args[0], lanes, read, index), arg(1), arg(2));
  case ir::Expr::Kind::Index: {
    if (!index || lanes != 1)
      llvm::report_fatal_error("an index value outside a statement's own evaluation");
    Value *i = index(e.access.indices.at(0));
    // As the interpreter: integers wrap (as a literal does), floats round to the type.
    if (isInteger(e.type))
      return b_.CreateSExtOrTrunc(i, computeType(e.type));
    return roundTo(b_.CreateSIToFP(i, computeType(e.type)), e.type);
  }
  }
  return nullptr;
}

// As C compares: ordered comparisons (false with a NaN) except !=, which is unordered (true).
Value *Values::compare(ir::Cmp c, Value *a, Value *b) {
  if (a->getType()->isIntOrIntVectorTy()) {
    switch (c) {
    case ir::Cmp::Lt:
      return b_.CreateICmpSLT(a, b);
    case ir::Cmp::Le:
      return b_.CreateICmpSLE(a, b);
    case ir::Cmp::Gt:
      return b_.CreateICmpSGT(a, b);
    case ir::Cmp::Ge:
      return b_.CreateICmpSGE(a, b);
    case ir::Cmp::Eq:
      return b_.CreateICmpEQ(a, b);
    case ir::Cmp::Ne:
      return b_.CreateICmpNE(a, b);
    }
  }
  switch (c) {
  case ir::Cmp::Lt:
    return b_.CreateFCmpOLT(a, b);
  case ir::Cmp::Le:
    return b_.CreateFCmpOLE(a, b);
  case ir::Cmp::Gt:
    return b_.CreateFCmpOGT(a, b);
  case ir::Cmp::Ge:
    return b_.CreateFCmpOGE(a, b);
  case ir::Cmp::Eq:
    return b_.CreateFCmpOEQ(a, b);
  case ir::Cmp::Ne:
    return b_.CreateFCmpUNE(a, b);
  }
  return nullptr;
}

Value *Values::fma(Value *a, Value *b, Value *acc) {
  if (acc->getType()->isIntOrIntVectorTy())
    return b_.CreateAdd(b_.CreateMul(a, b), acc);
  return b_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {acc->getType()}, {a, b, acc});
}

Value *Values::combine(ir::ReduceOp op, Value *acc, Value *value) {
  if (acc->getType()->isIntOrIntVectorTy()) {
    switch (op) {
    case ir::ReduceOp::None:
      return value;
    case ir::ReduceOp::Sum:
      return b_.CreateAdd(acc, value);
    case ir::ReduceOp::Max:
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, acc, value);
    case ir::ReduceOp::Min:
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, acc, value);
    case ir::ReduceOp::Prod:
      return b_.CreateMul(acc, value);
    }
  }
  switch (op) {
  case ir::ReduceOp::None:
    return value;
  case ir::ReduceOp::Sum:
    return b_.CreateFAdd(acc, value);
  case ir::ReduceOp::Max: // std::max(acc, value)
    return b_.CreateSelect(b_.CreateFCmpOLT(acc, value), value, acc);
  case ir::ReduceOp::Min:
    return b_.CreateSelect(b_.CreateFCmpOLT(value, acc), value, acc);
  case ir::ReduceOp::Prod:
    return b_.CreateFMul(acc, value);
  }
  return value;
}

} // namespace isam::backend
