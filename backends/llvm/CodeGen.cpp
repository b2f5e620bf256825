// The schedule IR to LLVM IR.
//
// Every extent is known at compile time, so every box size is too: a loop over a tile runs its
// full steps as one loop and its remainder as a second copy of the body with smaller sizes.
// Only box positions (`begin`) are run-time values. That makes instruction calls static: the
// lanes past a box are a constant mask, and the staged buffers of an operand have a static
// shape, so a register-level buffer is addressed at constant offsets and LLVM keeps it in
// registers. Loops too small to be worth a loop (a register tile's) are unrolled here.
#include "backends/llvm/Backend.h"
#include "backends/llvm/Values.h"
#include "schedule/Geometry.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace isam::backend {

using llvm::Value;
using schedule::Node;

namespace {

constexpr int64_t kUnrollCalls = 64; // unroll a loop whose body and trips make fewer calls
constexpr uint64_t kStackBufferBytes = 64 << 10; // larger staging buffers go on the heap

// An operand's current holder: the tensor itself, or a staged buffer over a bounding box.
struct Holder {
  Value *ptr = nullptr;
  // Its elements' type: the tensor's, or a computed operand's (schedule::stagedType).
  ir::ElemType type = ir::ElemType::F32;
  std::vector<Value *> lo;      // per access dimension, i64 (the tensor: zeros)
  std::vector<int64_t> strides; // elements
  // A register buffer whose lane dimension is padded to whole vectors: a call reads and writes
  // all its lanes there, unmasked, so that LLVM keeps the buffer in registers (a masked load
  // or store of a stack slot is never promoted to a register).
  bool wholeVectors = false;
  // A packed buffer's blocked dimensions (0: not blocked): element c of dimension d lies at
  // ((c - lo) / block[d]) * strides[d] + ((c - lo) % block[d]) * innerStrides[d], so that each
  // register tile's slice of the operand is one contiguous panel (empty: nothing blocked).
  std::vector<int64_t> block, innerStrides;
  // A lane-reduced result's register tile: `lanes` partials per element, lane-minor (the
  // strides count them); 0 otherwise.
  int64_t lanes = 0;
};

struct State {
  std::vector<Value *> begin;              // per virtual index, i64
  std::vector<int64_t> size;               // per virtual index: the box's static size
  std::vector<int64_t> align;              // begin is a multiple of this (0: begin is 0)
  std::vector<std::vector<Holder>> stacks; // per Config operand, innermost last
  // Per fused virtual index whose box (a staged buffer's) stays within one run of its innermost
  // statement index: that box's begin, and (per statement index, else null) the index's value
  // there. Points inside are that value plus their distance from the begin, so that their
  // offsets into the buffer, whose low corner is that value, are constants LLVM sees (a register
  // tile then stays in registers); dividing each point's fused value anew hides that.
  std::vector<Value *> runBegin;
  std::vector<Value *> runLo;
};

// The range of each statement index over a box: lo and hi as values, with a static bound on
// the count (exact when `exact`). The innermost index of a fused run laid out linearly (`run`)
// may count past its extent: its box's points are the run's values from the box's begin on,
// which address every access as they would wrapped, the run being contiguous in each.
struct IndexRanges {
  std::vector<Value *> lo, hi;
  std::vector<int64_t> maxCount;
  std::vector<bool> exact;
  std::vector<bool> run;
};

// One dimension of a staged buffer's layout: a whole access dimension, or the blocks of a
// blocked one and the elements within a block.
struct LayoutSlot {
  enum class Part { Whole, Blocks, InBlock };
  size_t dim;
  Part part;
};

// A staged buffer over an access's bounding box.
struct StagedBuffer {
  Holder holder;
  std::vector<Value *> count;     // per access dimension: the box's extent (constant when static)
  std::vector<LayoutSlot> layout; // outermost first
  int64_t elements = 0;           // allocated (lanes included)
};

// A fused group of a result whose tile may wrap, with, per group index, the access dimension
// that holds it alone and that dimension's constant.
struct WriteBackGuard {
  size_t vindex;
  std::vector<std::pair<size_t, int64_t>> dims;
};

// One copy between a staged buffer and the operand's holder outside it (`in`: into the buffer).
struct StageCopy {
  const StagedBuffer &staged;
  const Holder &outer;
  const State &st;
  ir::ElemType type;
  llvm::Type *storage;
  unsigned width; // elements per vector move
  bool registers; // fully unrolled
  std::vector<WriteBackGuard> guards;
  bool in;
  std::vector<Value *> coord; // tensor coordinates of the point being copied
  // Per blocked dimension, the block being copied: its first element (from the buffer's low
  // corner) and its static size.
  std::vector<Value *> blockBase;
  std::vector<int64_t> blockSize;
  // The layout slots in the order the copy's loops nest, outermost first (copyStage).
  std::vector<LayoutSlot> order;
  bool fill = false; // in: the buffer starts at `fillValue` rather than the holder's values
  double fillValue = 0;
  // A computed operand's pack: each element of the holder outside (of type `outerType`) goes
  // through this expression on its way in (nullptr: a plain copy, outerType == type).
  const ir::Expr *compute = nullptr;
  ir::ElemType outerType = ir::ElemType::F32;
  // out, a lane tile: where this holds (the stage is its elements' first), their folded lanes
  // are stored rather than combined onto the holder's value (nullptr: never).
  Value *first = nullptr;
  // out: the buffer holds a partial reduction, combined onto the holder's values rather than
  // stored over them.
  bool onto = false;
  // in: bytes from each source vector to the line the copy prefetches (0: none; a pack's
  // rows ahead, Node::prefetchRows).
  int64_t prefetchBytes = 0;
  // in, a fill: the lines of the holder outside are prefetched for the write-back
  // (Node::prefetchTile).
  bool prefetchTile = false;
};

// The function being written: allocas and heap buffers go to its entry, frees before its return.
struct Scope {
  llvm::Function *fn = nullptr;
  llvm::BasicBlock *entry = nullptr;
  std::vector<Value *> heap;
  std::vector<Value *> tensors; // base pointer of each kernel tensor
  // A parallel loop's body takes its heap buffers from the kernel's pool (emitParallel): the
  // context's last three words are the pool, each thread's share of it, and the team flag.
  llvm::ArrayType *poolContext = nullptr;
  Value *teamIndex =
      nullptr; // a parallel body's thread in its team, at the entry (emitThreadBlock)
  Value *poolShare = nullptr; // this thread's share, computed at the entry on first use
  uint64_t poolBytes = 0;     // of the share, taken so far
};

class Generator {
public:
  Generator(llvm::Module &m, const hw::Target &t, const ir::Kernel &k)
      : m_(m), t_(t), k_(k), b_(m.getContext()), v_(b_, m) {}

  // The kernel's body (taking a thread count) and its exported entry points (Backend.h).
  void generate(const schedule::KernelSchedule &ks);

private:
  llvm::Function *kernelFunction();
  llvm::LLVMContext &ctx() { return m_.getContext(); }
  llvm::Type *i64() { return b_.getInt64Ty(); }
  llvm::Type *ptrTy() { return llvm::PointerType::get(ctx(), 0); }
  Value *c64(int64_t v) { return b_.getInt64(uint64_t(v)); }
  // Index arithmetic never wraps (every index and offset is within its tensor's bounds):
  // saying so keeps LLVM's scalar evolution cheap and exact on deep loop nests.
  Value *add(Value *a, Value *b, const llvm::Twine &name = "") {
    return b_.CreateAdd(a, b, name, /*HasNUW=*/false, /*HasNSW=*/true);
  }
  Value *mul(Value *a, Value *b) { return b_.CreateMul(a, b, "", false, true); }
  Value *sub(Value *a, Value *b) { return b_.CreateSub(a, b, "", false, true); }

  void setAttributes(llvm::Function *f);
  Value *allocate(uint64_t bytes, const std::string &name);
  void finishScope();
  Value *threadCount(Value *requested);

  // Emits body(iv) for iv in [0, count); inline when count is 1 or `unroll`.
  void loop(Value *count, const std::function<void(Value *)> &body);
  void loop(int64_t count, bool unroll, const std::function<void(Value *)> &body);
  // Emits then() where `cond` holds and otherwise() elsewhere; only the one side when `cond` is
  // a constant.
  void ifElse(Value *cond, const std::function<void()> &then,
              const std::function<void()> &otherwise);

  void statement(const schedule::StatementSchedule &ss);
  void emit(const Node &n, State &st);
  void emitLoop(const Node &n, State &st);
  void emitPrefetches(const Node &n, State &st);
  bool emitUnrolledNest(const Node &n, State &st);
  void emitParallel(const Node &n, State &st);
  // emitParallel's steps: the live state through a context array (stored in the caller,
  // loaded in the outlined body, in the same order), this thread's block of the iterations,
  // and the call through libgomp.
  llvm::AllocaInst *storeLiveState(const State &st, llvm::ArrayType *&contextType,
                                   size_t extraSlots = 0);
  State loadLiveState(const State &st, llvm::ArrayType *contextType, Value *context,
                      size_t tensors);
  void emitThreadBlock(const Node &n, State &inner, llvm::ArrayType *contextType);
  void emitParallelCall(llvm::Function *body, llvm::AllocaInst *context,
                        llvm::ArrayType *contextType, int64_t trips);
  void emitStage(const Node &n, State &st);
  // emitStage's steps: the range of each statement index over the box, the buffer over the
  // access's bounding box (its shape, layout and allocation), the guards that keep a write-back
  // inside the box, and the copies between the buffer and the holder outside.
  IndexRanges stageIndexRanges(const State &st, bool registers);
  void rangeWithinOneRun(const std::vector<int> &group, Value *begin, int64_t size,
                         IndexRanges &ranges);
  void rangeMayWrap(const std::vector<int> &group, Value *begin, int64_t size, IndexRanges &ranges);
  // `registers`: a register-level buffer, padded to whole vectors where it can be.
  StagedBuffer stagedBuffer(const schedule::Buffer &buf, const schedule::OperandPlacement &p,
                            const ir::Tensor &tensor, const IndexRanges &ranges, bool registers);
  bool padsToWholeVectors(const schedule::OperandPlacement &p, const StagedBuffer &staged,
                          size_t inner) const;
  std::vector<int64_t> packBlocks(const schedule::OperandPlacement &p,
                                  const schedule::Staging &staging, const StagedBuffer &staged,
                                  const std::vector<int64_t> &shape) const;
  std::vector<int64_t> stageBoundingBox(const schedule::OperandPlacement &p,
                                        const ir::Tensor &tensor, const IndexRanges &ranges,
                                        StagedBuffer &staged);
  std::vector<size_t> stageLayout(const ir::Access &access, size_t *laneDimCount = nullptr) const;
  std::vector<WriteBackGuard> writeBackGuards(const schedule::OperandPlacement &p,
                                              const IndexRanges &ranges) const;
  Value *insideBox(const std::vector<WriteBackGuard> &guards, const std::vector<Value *> &coord,
                   const State &st);
  void prefetchTileLines(StageCopy &copy);
  std::pair<Value *, Value *> stagePointers(const StageCopy &copy,
                                            const std::vector<Value *> &coord);
  // The whole copy (its loops marked for LLVM: see loop), dimension by dimension from `k`.
  void copyStage(StageCopy &copy);
  void copyStageDimension(StageCopy &copy, size_t k);
  void copyStageVectors(StageCopy &copy, size_t d, int64_t elements, Value *first);
  bool transposes(const StageCopy &copy, size_t k) const;
  std::pair<Value *, Value *> slotRun(const StageCopy &copy, const LayoutSlot &slot);
  void prefetchAhead(Value *at, int64_t bytes);
  void copyStageTransposed(StageCopy &copy, size_t k);
  void copyStageElement(StageCopy &copy);
  Value *computeStageValue(const StageCopy &copy, Value *outer, unsigned lanes);
  void writeBackElement(StageCopy &copy, Value *outer, Value *staged);
  void initLanes(const StagedBuffer &staged, ir::ElemType type);
  Value *foldLanes(Value *vector, unsigned lanes);
  Value *keepInactiveLanes(Value *result, Value *acc, unsigned active, unsigned lanes);
  // Register stages as functions of their own, one per distinct static state (outlineKey):
  // a loop's remainders copy its body with other sizes at every level, and the register tile
  // under them recurs in many copies with the same sizes.
  llvm::Function *outline(const std::string &suffix, const State &st, llvm::ArrayType *contextType,
                          const std::function<void(State &)> &emitBody,
                          uint64_t *poolBytes = nullptr);
  Value *poolBuffer(uint64_t bytes, const std::string &name);
  void finishPool();
  bool outlinesStage(const Node &n, const State &st) const;
  std::string outlineKey(const Node &n, const State &st) const;
  void emitOutlinedStage(const Node &n, State &st);
  void emitCall(State &st);
  void emitScalar(State &st);
  // Whether every guard of the statement holds at `point` (an i1).
  Value *guardsHold(const std::vector<Value *> &point);
  void emitInit(ir::ReduceOp op);
  bool initFoldable(const schedule::StatementSchedule &ss);
  bool readsOwnResult() const;
  // Whether the box starts every reduction index at 0 (i1; constant where that is static).
  Value *firstOfReduction(const State &st);
  int64_t calls(const Node &n, std::vector<int64_t> &size) const;

  // Statement index values at a point of the virtual indices.
  std::vector<Value *> pointOf(const std::vector<Value *> &vvalue, const State &st);
  bool withinOneRun(const State &st, size_t v) const;
  Value *affine(const ir::Affine &a, const std::vector<Value *> &point);
  Value *address(const ir::Access &a, const std::vector<Value *> &point, const Holder &h);
  // The offset of the access's element at `point` from the holder's start, in elements.
  Value *elementOffset(const ir::Access &a, const std::vector<Value *> &point, const Holder &h);
  // Elements from the holder's start to tensor coordinates `coord`.
  Value *offsetIn(const Holder &h, const std::vector<Value *> &coord);
  Holder tensorHolder(int tensor);
  const Holder &holderOf(size_t operand, State &st, Holder &scratch);
  int64_t laneStride(const ir::Access &a, const Holder &h, int stmtIndex) const;

  llvm::Module &m_;
  const hw::Target &t_;
  const ir::Kernel &k_;
  llvm::IRBuilder<> b_;
  Values v_;
  Scope scope_;
  Value *threads_ = nullptr;
  // The kernel function's heap buffers (local tensors, large staging buffers) and those of its
  // parallel bodies (poolBuffer) come from one allocation per call, `arena_`: arenaBytes_ of
  // buffers, then poolPerThread_ bytes for each thread (the pool, at `pool_`). One block is what
  // keeps glibc from giving the pages back at every return: with a buffer each, freeing them
  // left more at the heap's top than its trim threshold (twice the largest block), and every
  // call faulted its buffers' pages in again (an LSTM cell's four 256 KiB gates: its point-wise
  // statements ran in 2.3 ms instead of 0.12).
  llvm::Function *kernelFn_ = nullptr;
  llvm::CallInst *arena_ = nullptr;
  llvm::GetElementPtrInst *pool_ = nullptr;
  uint64_t arenaBytes_ = 0;
  uint64_t poolPerThread_ = 0;
  int outlined_ = 0;
  // The statement being generated.
  const schedule::StatementSchedule *ss_ = nullptr;
  const schedule::Config *c_ = nullptr;
  const ir::Statement *s_ = nullptr;
  bool copying_ = false;  // emitting a stage's copy: its loops are not unrolled by LLVM
  int laneV_ = -1;        // the virtual index the instruction's lanes run along, or -1
  int laneStmt_ = -1;     // its innermost statement index
  int64_t laneWidth_ = 0; // the instruction's lanes along it, when a constant
  // The statement's Init folded into its register stages (initFoldable): the first of each
  // element's stages starts its accumulators at the reduction's identity instead of loading
  // them, and Init emits nothing.
  bool initFolded_ = false;
  double identity_ = 0;
  // The statement is a sum whose register stages of the result each hold a partial sum over
  // their block of the reduction, added onto the result at write-back (emitStage).
  bool partialSums_ = false;
  // The statement's outlined register stages, by outlineKey.
  std::map<std::string, llvm::Function *> outlinedStages_;
};

void Generator::setAttributes(llvm::Function *f) {
  if (!t_.cpu.empty())
    f->addFnAttr("target-cpu", t_.cpu);
  if (!t_.features.empty())
    f->addFnAttr("target-features", t_.features);
  f->addFnAttr(llvm::Attribute::NoUnwind);
}

Value *Generator::allocate(uint64_t bytes, const std::string &name) {
  bytes = (bytes + 63) / 64 * 64;
  llvm::IRBuilder<> at(scope_.entry, scope_.entry->begin());
  if (bytes <= kStackBufferBytes) {
    auto *a = at.CreateAlloca(at.getInt8Ty(), at.getInt64(bytes), name);
    a->setAlignment(llvm::Align(64));
    return a;
  }
  if (scope_.poolContext)
    return poolBuffer(bytes, name);
  if (scope_.fn == kernelFn_) {
    llvm::IRBuilder<> after(arena_->getParent(), std::next(arena_->getIterator()));
    Value *p = after.CreateConstInBoundsGEP1_64(after.getInt8Ty(), arena_, arenaBytes_, name);
    arenaBytes_ += bytes;
    return p;
  }
  llvm::FunctionCallee alloc = m_.getOrInsertFunction("aligned_alloc", ptrTy(), i64(), i64());
  Value *p = at.CreateCall(alloc, {at.getInt64(64), at.getInt64(bytes)}, name);
  scope_.heap.push_back(p);
  return p;
}

// A parallel body's buffer: the next `bytes` of its thread's share of the kernel's pool. A body
// that allocated its own ran malloc and free on every entry of its loop (once per block of the
// reduction around it), and the allocator gave the pages back each time: a GRU step spent half
// its time in page faults.
Value *Generator::poolBuffer(uint64_t bytes, const std::string &name) {
  llvm::ArrayType *type = scope_.poolContext;
  Value *context = scope_.fn->getArg(0);
  if (!scope_.poolShare) {
    auto *team = llvm::cast<llvm::Instruction>(scope_.teamIndex);
    llvm::IRBuilder<> at(team->getParent(), std::next(team->getIterator()));
    uint64_t n = type->getNumElements();
    auto word = [&](uint64_t i) {
      return at.CreateLoad(i64(), at.CreateConstInBoundsGEP2_64(type, context, 0, i));
    };
    scope_.poolShare = at.CreateInBoundsGEP(at.getInt8Ty(), at.CreateIntToPtr(word(n - 3), ptrTy()),
                                            at.CreateMul(team, word(n - 2)), "pool.share");
  }
  auto *share = llvm::cast<llvm::Instruction>(scope_.poolShare);
  llvm::IRBuilder<> at(share->getParent(), std::next(share->getIterator()));
  Value *p = at.CreateConstInBoundsGEP1_64(at.getInt8Ty(), share, scope_.poolBytes, name);
  scope_.poolBytes += bytes;
  return p;
}

void Generator::finishScope() {
  llvm::FunctionCallee release = m_.getOrInsertFunction("free", b_.getVoidTy(), ptrTy());
  for (Value *p : scope_.heap)
    b_.CreateCall(release, {p});
  b_.CreateRetVoid();
}

// `requested` when positive (the caller's count), else ISAMAP_NUM_THREADS when set to a positive
// count, else the target's cores. The variable is read only when the caller gives no count.
Value *Generator::threadCount(Value *requested) {
  llvm::FunctionCallee getenv = m_.getOrInsertFunction("getenv", ptrTy(), ptrTy());
  llvm::FunctionCallee atoi = m_.getOrInsertFunction("atoi", b_.getInt32Ty(), ptrTy());
  Value *cores = b_.getInt32(std::max<uint32_t>(1, t_.cores));
  llvm::BasicBlock *from = b_.GetInsertBlock();
  auto *lookup = llvm::BasicBlock::Create(ctx(), "threads.env", scope_.fn);
  auto *parse = llvm::BasicBlock::Create(ctx(), "threads.parse", scope_.fn);
  auto *done = llvm::BasicBlock::Create(ctx(), "threads.done", scope_.fn);
  b_.CreateCondBr(b_.CreateICmpSGT(requested, b_.getInt32(0)), done, lookup);
  b_.SetInsertPoint(lookup);
  Value *name = b_.CreateGlobalStringPtr("ISAMAP_NUM_THREADS", "isamap.env");
  Value *env = b_.CreateCall(getenv, {name});
  b_.CreateCondBr(b_.CreateIsNull(env), done, parse);
  b_.SetInsertPoint(parse);
  Value *n = b_.CreateCall(atoi, {env});
  Value *chosen = b_.CreateSelect(b_.CreateICmpSGT(n, b_.getInt32(0)), n, cores);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  auto *phi = b_.CreatePHI(b_.getInt32Ty(), 3, "threads");
  phi->addIncoming(requested, from);
  phi->addIncoming(cores, lookup);
  phi->addIncoming(chosen, parse);
  return phi;
}

void Generator::loop(Value *count, const std::function<void(Value *)> &body) {
  if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(count); c && c->getSExtValue() == 1) {
    body(c64(0));
    return;
  }
  llvm::BasicBlock *pre = b_.GetInsertBlock();
  auto *head = llvm::BasicBlock::Create(ctx(), "loop", scope_.fn);
  auto *exit = llvm::BasicBlock::Create(ctx(), "loop.end", scope_.fn);
  b_.CreateCondBr(b_.CreateICmpSGT(count, c64(0)), head, exit);
  b_.SetInsertPoint(head);
  auto *iv = b_.CreatePHI(i64(), 2, "iv");
  iv->addIncoming(c64(0), pre);
  body(iv);
  Value *next = b_.CreateAdd(iv, c64(1), "iv.next", /*HasNUW=*/true, /*HasNSW=*/true);
  iv->addIncoming(next, b_.GetInsertBlock());
  auto *latch = b_.CreateCondBr(b_.CreateICmpSLT(next, count), head, exit);
  if (copying_) {
    // A stage's copy is a stream of loads and stores that the core runs at its load and store
    // rate either way; unrolled by LLVM, the copies of every tile size multiply the code that
    // the optimizer then works through (IndVarSimplify on each copy).
    llvm::Metadata *disable =
        llvm::MDNode::get(ctx(), {llvm::MDString::get(ctx(), "llvm.loop.unroll.disable")});
    llvm::MDNode *self = llvm::MDNode::getDistinct(ctx(), {nullptr, disable});
    self->replaceOperandWith(0, self);
    latch->setMetadata(llvm::LLVMContext::MD_loop, self);
  }
  b_.SetInsertPoint(exit);
}

void Generator::ifElse(Value *cond, const std::function<void()> &then,
                       const std::function<void()> &otherwise) {
  if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(cond)) {
    c->isOne() ? then() : otherwise();
    return;
  }
  auto *thenBb = llvm::BasicBlock::Create(ctx(), "if.then", scope_.fn);
  auto *elseBb = llvm::BasicBlock::Create(ctx(), "if.else", scope_.fn);
  auto *join = llvm::BasicBlock::Create(ctx(), "if.end", scope_.fn);
  b_.CreateCondBr(cond, thenBb, elseBb);
  b_.SetInsertPoint(thenBb);
  then();
  b_.CreateBr(join);
  b_.SetInsertPoint(elseBb);
  otherwise();
  b_.CreateBr(join);
  b_.SetInsertPoint(join);
}

void Generator::loop(int64_t count, bool unroll, const std::function<void(Value *)> &body) {
  if (count <= 0)
    return;
  if (unroll) {
    for (int64_t i = 0; i < count; ++i)
      body(c64(i));
    return;
  }
  loop(c64(count), body);
}

Holder Generator::tensorHolder(int tensor) {
  Holder h;
  h.ptr = scope_.tensors[size_t(tensor)];
  h.type = k_.tensors[size_t(tensor)].type;
  h.strides = k_.tensors[size_t(tensor)].strides();
  h.lo.assign(h.strides.size(), c64(0));
  return h;
}

const Holder &Generator::holderOf(size_t operand, State &st, Holder &scratch) {
  if (!st.stacks[operand].empty())
    return st.stacks[operand].back();
  scratch = tensorHolder(c_->operands[operand].tensor);
  return scratch;
}

std::vector<Value *> Generator::pointOf(const std::vector<Value *> &vvalue, const State &st) {
  std::vector<Value *> point(s_->indices.size(), c64(0));
  for (size_t v = 0; v < c_->vindices.size(); ++v) {
    const auto &g = c_->vindices[v].stmtIndices;
    Value *x = vvalue[v];
    if (g.size() > 1 && st.runBegin[v]) {
      for (int i : g)
        point[size_t(i)] = st.runLo[size_t(i)];
      point[size_t(g.back())] = add(st.runLo[size_t(g.back())], sub(x, st.runBegin[v]));
      continue;
    }
    for (size_t j = g.size(); j-- > 0;) {
      if (j == 0) {
        point[size_t(g[j])] = x;
        break;
      }
      int64_t e = s_->indices[size_t(g[j])].extent;
      point[size_t(g[j])] = b_.CreateURem(x, c64(e));
      x = b_.CreateUDiv(x, c64(e));
    }
  }
  return point;
}

Value *Generator::affine(const ir::Affine &a, const std::vector<Value *> &point) {
  Value *x = c64(a.constant);
  for (auto [i, coef] : a.terms)
    x = add(x, mul(point[size_t(i)], c64(coef)));
  // Quasi-affine parts (only in statements run as scalar code): floor division and a
  // non-negative remainder, from C's truncating ones.
  for (const auto &q : a.quasi) {
    Value *inner = affine(q.inner, point), *d = c64(q.divisor);
    Value *r = b_.CreateSRem(inner, d);
    Value *negative = b_.CreateICmpSLT(r, c64(0));
    Value *part = q.remainder ? b_.CreateSelect(negative, add(r, d), r)
                              : sub(b_.CreateSDiv(inner, d), b_.CreateZExt(negative, i64()));
    x = add(x, mul(part, c64(q.coef)));
  }
  return x;
}

Value *Generator::address(const ir::Access &a, const std::vector<Value *> &point, const Holder &h) {
  return b_.CreateInBoundsGEP(v_.storageType(h.type), h.ptr, elementOffset(a, point, h));
}

Value *Generator::elementOffset(const ir::Access &a, const std::vector<Value *> &point,
                                const Holder &h) {
  std::vector<Value *> coord;
  for (const auto &d : a.indices)
    coord.push_back(affine(d, point));
  return offsetIn(h, coord);
}

Value *Generator::offsetIn(const Holder &h, const std::vector<Value *> &coord) {
  Value *offset = c64(0);
  for (size_t d = 0; d < coord.size(); ++d) {
    Value *rel = sub(coord[d], h.lo[d]);
    if (!h.block.empty() && h.block[d]) {
      Value *b = c64(h.block[d]);
      offset = add(offset, add(mul(b_.CreateUDiv(rel, b), c64(h.strides[d])),
                               mul(b_.CreateURem(rel, b), c64(h.innerStrides[d]))));
      continue;
    }
    offset = add(offset, mul(rel, c64(h.strides[d])));
  }
  return offset;
}

int64_t Generator::laneStride(const ir::Access &a, const Holder &h, int stmtIndex) const {
  int64_t stride = 0;
  // Within a block, for a blocked dimension: a run of lanes never crosses a block, whose size
  // is a multiple of the instruction's extent and whose start a multiple of it.
  for (size_t d = 0; d < a.indices.size(); ++d)
    stride += a.indices[d].coefficientOf(stmtIndex) *
              (!h.block.empty() && h.block[d] ? h.innerStrides[d] : h.strides[d]);
  return stride;
}

int64_t Generator::calls(const Node &n, std::vector<int64_t> &size) const {
  switch (n.kind) {
  case Node::Kind::Call:
    return 1;
  case Node::Kind::Init:
  case Node::Kind::Scalar:
    return kUnrollCalls * 1000; // never unrolled
  case Node::Kind::Block:
  case Node::Kind::Stage: {
    int64_t sum = n.kind == Node::Kind::Stage ? 4 : 0; // a stage's copies are work too
    for (const auto &x : n.body)
      sum += calls(x, size);
    return sum;
  }
  case Node::Kind::Loop: {
    int64_t s = size[size_t(n.v)], full = s / n.step, rem = s % n.step, sum = 0;
    size[size_t(n.v)] = n.step;
    for (const auto &x : n.body)
      sum += full * calls(x, size);
    size[size_t(n.v)] = rem;
    if (rem)
      for (const auto &x : n.body)
        sum += calls(x, size);
    size[size_t(n.v)] = s;
    return sum;
  }
  }
  return 0;
}

void Generator::emit(const Node &n, State &st) {
  switch (n.kind) {
  case Node::Kind::Block:
    for (const auto &x : n.body)
      emit(x, st);
    return;
  case Node::Kind::Init:
    if (!initFolded_)
      emitInit(n.init);
    return;
  case Node::Kind::Scalar:
    emitScalar(st);
    return;
  case Node::Kind::Loop:
    if (n.parallel)
      emitParallel(n, st);
    else
      emitLoop(n, st);
    return;
  case Node::Kind::Stage:
    if (outlinesStage(n, st))
      emitOutlinedStage(n, st);
    else
      emitStage(n, st);
    return;
  case Node::Kind::Call:
    emitCall(st);
    return;
  }
}

void Generator::emitLoop(const Node &n, State &st) {
  size_t v = size_t(n.v);
  int64_t s = st.size[v], full = s / n.step, rem = s % n.step, a0 = st.align[v];
  Value *b0 = st.begin[v];
  bool unroll = calls(n, st.size) <= kUnrollCalls;
  if (unroll && emitUnrolledNest(n, st))
    return;
  st.size[v] = n.step;
  st.align[v] = std::gcd(a0, n.step);
  loop(full, unroll, [&](Value *iv) {
    st.begin[v] = add(b0, mul(iv, c64(n.step)));
    emitPrefetches(n, st);
    for (const auto &x : n.body)
      emit(x, st);
  });
  if (rem) {
    st.size[v] = rem;
    st.begin[v] = add(b0, c64(full * n.step));
    emitPrefetches(n, st);
    for (const auto &x : n.body)
      emit(x, st);
  }
  st.begin[v] = b0;
  st.size[v] = s;
  st.align[v] = a0;
}

// The lines `n.prefetches` names, read for the cache (llvm.prefetch: no fault, no result). The
// point may lie past the tensor's end, so its address is computed without `inbounds`.
void Generator::emitPrefetches(const Node &n, State &st) {
  for (const Node::Prefetch &pf : n.prefetches) {
    const schedule::OperandPlacement &p = c_->operands[size_t(pf.operand)];
    std::vector<Value *> vvalue = st.begin;
    vvalue[size_t(n.v)] = add(vvalue[size_t(n.v)], c64(pf.ahead));
    std::vector<Value *> point = pointOf(vvalue, st);
    Holder h = tensorHolder(p.tensor);
    Value *bytes = mul(elementOffset(p.access, point, h), c64(ir::elemTypeBytes(h.type)));
    for (int64_t offset : pf.offsets) {
      Value *at = b_.CreateGEP(b_.getInt8Ty(), h.ptr, add(bytes, c64(offset)));
      // read, locality 2 (into the second level, not L1, where a line fetched a tile's visit
      // ahead would evict what the tiles in between use), data cache
      b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {at->getType()},
                         {at, b_.getInt32(0), b_.getInt32(2), b_.getInt32(1)});
    }
  }
}

// A perfect nest of small loops ending in one call (a register tile) is emitted fully unrolled
// with the loops reordered so that those over the lane index run innermost: the calls that
// share a broadcast operand then follow one another, and the broadcast register dies at once
// instead of living across the whole tile. Only loops over distinct, non-reduction virtual
// indices are reordered (their calls write distinct elements), so the result is unchanged.
bool Generator::emitUnrolledNest(const Node &n, State &st) {
  std::vector<const Node *> chain;
  const Node *at = &n;
  while (at->kind == Node::Kind::Loop && at->body.size() == 1) {
    chain.push_back(at);
    at = &at->body[0];
  }
  if (at->kind != Node::Kind::Call || chain.size() < 2)
    return false;
  std::vector<bool> seen(c_->vindices.size(), false);
  for (const Node *l : chain) {
    if (seen[size_t(l->v)] || c_->vindices[size_t(l->v)].reduction || l->parallel)
      return false;
    seen[size_t(l->v)] = true;
  }
  std::stable_partition(chain.begin(), chain.end(), [&](const Node *l) { return l->v != laneV_; });
  // Each loop's iterations as static (offset, size) pairs.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> trips;
  for (const Node *l : chain) {
    int64_t s = st.size[size_t(l->v)];
    std::vector<std::pair<int64_t, int64_t>> t;
    for (int64_t o = 0; o < s; o += l->step)
      t.push_back({o, std::min(l->step, s - o)});
    trips.push_back(t);
  }
  State saved = st;
  std::function<void(size_t)> nest = [&](size_t k) {
    if (k == chain.size()) {
      emitCall(st);
      return;
    }
    size_t v = size_t(chain[k]->v);
    for (auto [offset, size] : trips[k]) {
      st.begin[v] = add(saved.begin[v], c64(offset));
      st.size[v] = size;
      st.align[v] = std::gcd(saved.align[v], chain[k]->step);
      nest(k + 1);
    }
    st.begin[v] = saved.begin[v];
    st.size[v] = saved.size[v];
    st.align[v] = saved.align[v];
  };
  nest(0);
  return true;
}

// The values the loop body reads from the code around it (box positions, holders, tensors),
// stored as i64 into a context array in the caller's entry block, followed by `extraSlots`
// words the caller writes itself.
llvm::AllocaInst *Generator::storeLiveState(const State &st, llvm::ArrayType *&contextType,
                                            size_t extraSlots) {
  std::vector<Value *> live;
  for (Value *begin : st.begin)
    live.push_back(begin);
  for (const auto &stack : st.stacks)
    for (const auto &holder : stack) {
      live.push_back(holder.ptr);
      for (Value *lo : holder.lo)
        live.push_back(lo);
    }
  for (Value *tensor : scope_.tensors)
    live.push_back(tensor);
  contextType = llvm::ArrayType::get(i64(), live.size() + extraSlots);
  llvm::AllocaInst *context;
  {
    llvm::IRBuilder<> at(scope_.entry, scope_.entry->begin());
    context = at.CreateAlloca(contextType, nullptr, "par.ctx");
  }
  for (size_t i = 0; i < live.size(); ++i) {
    Value *word = live[i]->getType()->isPointerTy() ? b_.CreatePtrToInt(live[i], i64()) : live[i];
    b_.CreateStore(word, b_.CreateConstInBoundsGEP2_64(contextType, context, 0, i));
  }
  return context;
}

// The outlined body's copy of the state storeLiveState saved, read back in the same order;
// the tensors' base pointers go to the current scope.
State Generator::loadLiveState(const State &st, llvm::ArrayType *contextType, Value *context,
                               size_t tensors) {
  size_t at = 0;
  auto next = [&](bool pointer) {
    Value *word =
        b_.CreateLoad(i64(), b_.CreateConstInBoundsGEP2_64(contextType, context, 0, at++));
    return pointer ? b_.CreateIntToPtr(word, ptrTy()) : word;
  };
  State inner = st;
  // The outlined body starts without the caller's runs (their values are the caller's).
  std::fill(inner.runBegin.begin(), inner.runBegin.end(), nullptr);
  std::fill(inner.runLo.begin(), inner.runLo.end(), nullptr);
  for (auto &begin : inner.begin)
    begin = next(false);
  for (auto &stack : inner.stacks)
    for (auto &holder : stack) {
      holder.ptr = next(true);
      for (auto &lo : holder.lo)
        lo = next(false);
    }
  for (size_t tensor = 0; tensor < tensors; ++tensor)
    scope_.tensors.push_back(next(true));
  return inner;
}

// This thread's block of iterations: [tid * trips / n, (tid + 1) * trips / n). The last
// iteration is partial when the step does not divide the extent. The context's last word says
// whether the body runs in the team emitParallelCall started: called directly, it runs every
// iteration, whatever OpenMP team its caller is in (a user's own parallel region calling the
// kernel on one thread would otherwise compute only that thread's share of it).
void Generator::emitThreadBlock(const Node &n, State &inner, llvm::ArrayType *contextType) {
  size_t v = size_t(n.v);
  int64_t extent = inner.size[v], full = extent / n.step, rem = extent % n.step;
  int64_t trips = full + (rem ? 1 : 0);
  // At the entry's start, where poolBuffer computes this thread's share of the pool from it.
  llvm::IRBuilder<> at(scope_.entry, scope_.entry->begin());
  llvm::FunctionCallee tidFn = m_.getOrInsertFunction("omp_get_thread_num", at.getInt32Ty());
  llvm::FunctionCallee numFn = m_.getOrInsertFunction("omp_get_num_threads", at.getInt32Ty());
  Value *inTeam = at.CreateICmpNE(
      at.CreateLoad(i64(), at.CreateConstInBoundsGEP2_64(contextType, scope_.fn->getArg(0), 0,
                                                         contextType->getNumElements() - 1)),
      at.getInt64(0));
  Value *tid = at.CreateSelect(inTeam, at.CreateSExt(at.CreateCall(tidFn), i64()), at.getInt64(0));
  Value *num = at.CreateSelect(inTeam, at.CreateSExt(at.CreateCall(numFn), i64()), at.getInt64(1));
  scope_.teamIndex = tid;
  Value *first = b_.CreateSDiv(mul(tid, c64(trips)), num);
  Value *last = b_.CreateSDiv(mul(add(tid, c64(1)), c64(trips)), num);
  Value *begin = inner.begin[v];
  inner.align[v] = std::gcd(inner.align[v], n.step);
  loop(sub(last, first), [&](Value *iv) {
    Value *trip = add(first, iv);
    inner.begin[v] = add(begin, mul(trip, c64(n.step)));
    auto body = [&](int64_t size) {
      inner.size[v] = size;
      for (const auto &child : n.body)
        emit(child, inner);
    };
    if (!rem) {
      body(n.step);
      return;
    }
    auto *fullBb = llvm::BasicBlock::Create(ctx(), "par.full", scope_.fn);
    auto *tailBb = llvm::BasicBlock::Create(ctx(), "par.tail", scope_.fn);
    auto *join = llvm::BasicBlock::Create(ctx(), "par.join", scope_.fn);
    b_.CreateCondBr(b_.CreateICmpSLT(trip, c64(full)), fullBb, tailBb);
    b_.SetInsertPoint(fullBb);
    body(n.step);
    b_.CreateBr(join);
    b_.SetInsertPoint(tailBb);
    body(rem);
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
  });
}

// One thread runs the body directly; more share it through libgomp's thread pool. The
// context's last word tells the body which (emitThreadBlock).
void Generator::emitParallelCall(llvm::Function *body, llvm::AllocaInst *context,
                                 llvm::ArrayType *contextType, int64_t trips) {
  llvm::FunctionCallee gomp = m_.getOrInsertFunction("GOMP_parallel", b_.getVoidTy(), ptrTy(),
                                                     ptrTy(), b_.getInt32Ty(), b_.getInt32Ty());
  auto *single = llvm::BasicBlock::Create(ctx(), "par.single", scope_.fn);
  auto *many = llvm::BasicBlock::Create(ctx(), "par.many", scope_.fn);
  auto *done = llvm::BasicBlock::Create(ctx(), "par.done", scope_.fn);
  Value *threads = b_.CreateSelect(b_.CreateICmpSLT(threads_, b_.getInt32(int32_t(trips))),
                                   threads_, b_.getInt32(int32_t(trips)));
  Value *team =
      b_.CreateConstInBoundsGEP2_64(contextType, context, 0, contextType->getNumElements() - 1);
  b_.CreateCondBr(b_.CreateICmpSLE(threads, b_.getInt32(1)), single, many);
  b_.SetInsertPoint(single);
  b_.CreateStore(c64(0), team);
  b_.CreateCall(body, {context});
  b_.CreateBr(done);
  b_.SetInsertPoint(many);
  b_.CreateStore(c64(1), team);
  b_.CreateCall(gomp, {body, context, threads, b_.getInt32(0)});
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

// The loop's iterations are split in contiguous blocks over the threads of one GOMP_parallel
// region. The body moves to a function of its own that reads the live state (box positions,
// holders, tensors) from a context array.
void Generator::emitParallel(const Node &n, State &st) {
  int64_t extent = st.size[size_t(n.v)];
  int64_t trips = extent / n.step + (extent % n.step ? 1 : 0);
  if (trips <= 1) {
    emitLoop(n, st);
    return;
  }
  llvm::ArrayType *contextType = nullptr;
  llvm::AllocaInst *context = storeLiveState(st, contextType, 3);
  uint64_t share = 0;
  bool pooled = scope_.fn == kernelFn_;
  llvm::Function *body = outline(
      ".par", st, contextType, [&](State &inner) { emitThreadBlock(n, inner, contextType); },
      pooled ? &share : nullptr);
  if (share > 0) {
    uint64_t words = contextType->getNumElements();
    b_.CreateStore(b_.CreatePtrToInt(pool_, i64()),
                   b_.CreateConstInBoundsGEP2_64(contextType, context, 0, words - 3));
    b_.CreateStore(c64(int64_t(share)),
                   b_.CreateConstInBoundsGEP2_64(contextType, context, 0, words - 2));
    poolPerThread_ = std::max(poolPerThread_, share);
  }
  emitParallelCall(body, context, contextType, trips);
}

// A new function of the module, taking the context storeLiveState wrote (of `contextType`),
// whose body `emitBody` writes from the state loadLiveState reads back. The insertion point
// returns to where it was.
llvm::Function *Generator::outline(const std::string &suffix, const State &st,
                                   llvm::ArrayType *contextType,
                                   const std::function<void(State &)> &emitBody,
                                   uint64_t *poolBytes) {
  auto *type = llvm::FunctionType::get(b_.getVoidTy(), {ptrTy()}, false);
  auto *fn =
      llvm::Function::Create(type, llvm::Function::InternalLinkage,
                             scope_.fn->getName() + suffix + std::to_string(outlined_++), m_);
  setAttributes(fn);
  llvm::BasicBlock *callerBlock = b_.GetInsertBlock();
  Scope caller = std::move(scope_);
  scope_ = Scope{};
  scope_.fn = fn;
  scope_.entry = llvm::BasicBlock::Create(ctx(), "entry", fn);
  scope_.poolContext = poolBytes ? contextType : nullptr;
  b_.SetInsertPoint(scope_.entry);
  State inner = loadLiveState(st, contextType, fn->getArg(0), caller.tensors.size());
  emitBody(inner);
  finishScope();
  if (poolBytes)
    *poolBytes = scope_.poolBytes;
  scope_ = std::move(caller);
  b_.SetInsertPoint(callerBlock);
  return fn;
}

// A register stage whose calls run in a loop (more than an unrolled handful) and that no
// enclosing stage's run positions reach (the outlined body starts without them).
bool Generator::outlinesStage(const Node &n, const State &st) const {
  const schedule::Buffer &buf = ss_->buffers[size_t(n.buffer)];
  if (copying_ || !c_->levels[size_t(buf.level)].registers)
    return false;
  for (Value *begin : st.runBegin)
    if (begin)
      return false;
  std::vector<int64_t> size = st.size;
  return calls(n, size) > kUnrollCalls;
}

// Everything static that the stage's code depends on besides the node: the box's sizes and
// alignments and the shape of every operand's holders. Box positions and holder pointers are
// run-time values, passed in the context.
std::string Generator::outlineKey(const Node &n, const State &st) const {
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(&n));
  auto put = [&](int64_t x) { key.append(",").append(std::to_string(x)); };
  for (int64_t size : st.size)
    put(size);
  key += '|';
  for (int64_t align : st.align)
    put(align);
  for (const auto &stack : st.stacks) {
    key += '|';
    for (const Holder &h : stack) {
      key += '[';
      put(int64_t(h.type));
      put(h.wholeVectors);
      put(h.lanes);
      put(int64_t(h.lo.size()));
      for (int64_t stride : h.strides)
        put(stride);
      key += ';';
      for (int64_t block : h.block)
        put(block);
      key += ';';
      for (int64_t stride : h.innerStrides)
        put(stride);
      key += ']';
    }
  }
  return key;
}

// The stage runs in a function that reads the live state from a context array, as a parallel
// loop's body does; the first stage with a key writes it, the others call it. A function called
// once is inlined back by LLVM; one called from several places stays a function.
void Generator::emitOutlinedStage(const Node &n, State &st) {
  llvm::ArrayType *contextType = nullptr;
  llvm::AllocaInst *context = storeLiveState(st, contextType);
  llvm::Function *&fn = outlinedStages_[outlineKey(n, st)];
  if (!fn)
    fn = outline(".tile", st, contextType, [&](State &inner) { emitStage(n, inner); });
  else
    fn->addFnAttr(llvm::Attribute::NoInline);
  b_.CreateCall(fn, {context});
}

// Ranges of a fused group whose box stays inside one run of its innermost index: the innermost
// index spans the box, the outer ones are single values.
void Generator::rangeWithinOneRun(const std::vector<int> &group, Value *begin, int64_t size,
                                  IndexRanges &ranges) {
  size_t inner = size_t(group.back());
  int64_t innerExtent = s_->indices[inner].extent;
  ranges.lo[inner] = b_.CreateURem(begin, c64(innerExtent));
  ranges.hi[inner] = add(ranges.lo[inner], c64(size - 1));
  ranges.maxCount[inner] = size;
  Value *outerPosition = b_.CreateUDiv(begin, c64(innerExtent));
  for (size_t j = group.size() - 1; j-- > 0;) {
    size_t index = size_t(group[j]);
    int64_t extent = s_->indices[index].extent;
    ranges.lo[index] = ranges.hi[index] =
        j ? b_.CreateURem(outerPosition, c64(extent)) : outerPosition;
    outerPosition = b_.CreateUDiv(outerPosition, c64(extent));
  }
}

// Ranges of a fused group whose box may wrap: an index spans its whole extent unless the box
// stays within one of its runs, which is only known at run time.
void Generator::rangeMayWrap(const std::vector<int> &group, Value *begin, int64_t size,
                             IndexRanges &ranges) {
  Value *first = begin;
  Value *last = add(first, c64(size - 1));
  int64_t innerProduct = 1;
  for (size_t j = group.size(); j-- > 0;) {
    size_t index = size_t(group[j]);
    int64_t extent = s_->indices[index].extent;
    ranges.exact[index] = false;
    if (j == 0) {
      ranges.lo[index] = first;
      ranges.hi[index] = last;
      ranges.maxCount[index] = std::min(extent, (size - 1) / innerProduct + 2);
      break;
    }
    Value *same =
        b_.CreateICmpEQ(b_.CreateUDiv(first, c64(extent)), b_.CreateUDiv(last, c64(extent)));
    ranges.lo[index] = b_.CreateSelect(same, b_.CreateURem(first, c64(extent)), c64(0));
    ranges.hi[index] = b_.CreateSelect(same, b_.CreateURem(last, c64(extent)), c64(extent - 1));
    ranges.maxCount[index] = extent;
    innerProduct *= extent;
    first = b_.CreateUDiv(first, c64(extent));
    last = b_.CreateUDiv(last, c64(extent));
  }
}

// Whether the box of fused virtual index v cannot wrap a row (schedule/Geometry.h).
bool Generator::withinOneRun(const State &st, size_t v) const {
  const auto &group = c_->vindices[v].stmtIndices;
  return group.size() > 1 &&
         schedule::withinOneRun(st.size[v], st.align[v], s_->indices[size_t(group.back())].extent);
}

// A register buffer lays a fused run out linearly, from the box's begin, even where the box
// wraps a row: every vector of the tile then sits at a constant place, and LLVM keeps the tile
// in registers (a bounding box's places would move with the begin). Other buffers take the
// bounding box of a box that may wrap.
IndexRanges Generator::stageIndexRanges(const State &st, bool registers) {
  size_t indices = s_->indices.size();
  IndexRanges ranges{std::vector<Value *>(indices, c64(0)), std::vector<Value *>(indices, c64(0)),
                     std::vector<int64_t>(indices, 1), std::vector<bool>(indices, true),
                     std::vector<bool>(indices, false)};
  for (size_t v = 0; v < c_->vindices.size(); ++v) {
    const auto &group = c_->vindices[v].stmtIndices;
    int64_t size = st.size[v];
    if (group.size() == 1) {
      size_t index = size_t(group[0]);
      ranges.lo[index] = st.begin[v];
      ranges.hi[index] = add(st.begin[v], c64(size - 1));
      ranges.maxCount[index] = size;
      continue;
    }
    if (registers || withinOneRun(st, v)) {
      rangeWithinOneRun(group, st.begin[v], size, ranges);
      ranges.run[size_t(group.back())] = true;
    } else
      rangeMayWrap(group, st.begin[v], size, ranges);
  }
  return ranges;
}

// The access's bounding box over the ranges (its low corner into the holder, its extent into
// `count`), and the buffer's static shape: a dimension's count is the static shape when every
// index in it is exact, so that the copies get constant trip counts.
std::vector<int64_t> Generator::stageBoundingBox(const schedule::OperandPlacement &p,
                                                 const ir::Tensor &tensor,
                                                 const IndexRanges &ranges, StagedBuffer &staged) {
  size_t dims = p.access.indices.size();
  staged.count.resize(dims);
  std::vector<int64_t> shape = schedule::accessExtents(p.access, ranges.maxCount);
  for (size_t d = 0; d < dims; ++d) {
    const ir::Affine &a = p.access.indices[d];
    Value *low = c64(a.constant), *high = c64(a.constant);
    bool dimExact = true, run = false;
    for (auto [i, coef] : a.terms) {
      low = add(low, mul(coef > 0 ? ranges.lo[size_t(i)] : ranges.hi[size_t(i)], c64(coef)));
      high = add(high, mul(coef > 0 ? ranges.hi[size_t(i)] : ranges.lo[size_t(i)], c64(coef)));
      dimExact = dimExact && ranges.exact[size_t(i)];
      run = run || ranges.run[size_t(i)];
    }
    if (!run)
      shape[d] = std::min(shape[d], tensor.shape[d]);
    staged.holder.lo.push_back(low);
    staged.count[d] = dimExact ? c64(shape[d]) : add(sub(high, low), c64(1));
  }
  return shape;
}

// Row-major, except that the dimension the instruction's lanes run along goes innermost: a
// pack is where a strided operand becomes contiguous. For lanes over fused indices, their
// dimensions go innermost together, in order.
std::vector<size_t> Generator::stageLayout(const ir::Access &access, size_t *laneDimCount) const {
  size_t dims = access.indices.size();
  std::vector<size_t> laneDims;
  if (laneV_ >= 0)
    for (int i : c_->vindices[size_t(laneV_)].stmtIndices) {
      int found = -1;
      for (size_t d = 0; d < dims; ++d)
        if (access.indices[d].coefficientOf(i) != 0)
          found = found == -1 ? int(d) : -2;
      if (found < 0 ||
          std::find(laneDims.begin(), laneDims.end(), size_t(found)) != laneDims.end()) {
        // Absent (a broadcast), spread over several dimensions, or sharing one: row-major.
        laneDims.clear();
        break;
      }
      laneDims.push_back(size_t(found));
    }
  std::vector<size_t> layout;
  for (size_t d = 0; d < dims; ++d)
    if (std::find(laneDims.begin(), laneDims.end(), d) == laneDims.end())
      layout.push_back(d);
  layout.insert(layout.end(), laneDims.begin(), laneDims.end());
  if (laneDimCount)
    *laneDimCount = laneDims.size();
  return layout;
}

StagedBuffer Generator::stagedBuffer(const schedule::Buffer &buf,
                                     const schedule::OperandPlacement &p, const ir::Tensor &tensor,
                                     const IndexRanges &ranges, bool registers) {
  StagedBuffer staged;
  std::vector<int64_t> shape = stageBoundingBox(p, tensor, ranges, staged);
  size_t laneDimCount = 0;
  std::vector<size_t> order = stageLayout(p.access, &laneDimCount);
  std::vector<int64_t> block;
  // A scalar result (a dot product on the lanes) has no dimension to pad.
  if (registers && !order.empty() && padsToWholeVectors(p, staged, order.back())) {
    int64_t &lanesDim = shape[order.back()];
    lanesDim = (lanesDim + laneWidth_ - 1) / laneWidth_ * laneWidth_;
    staged.holder.wholeVectors = true;
  } else if (!registers) {
    block = packBlocks(p, p.staging[size_t(buf.level)], staged, shape);
  }
  // The blocks of every blocked dimension outermost, then the dimensions not blocked, then the
  // elements within a block: each register tile's slice is then one contiguous panel. A lane
  // dimension stays innermost, whole or within its block, so that a call reads its lanes with
  // unit stride rather than gathering them (a broadcast operand's panel, A's in BLIS, has no
  // lanes: its blocked rows go innermost).
  auto part = [&](size_t d) {
    return block.empty() || !block[d] ? LayoutSlot::Part::Whole : LayoutSlot::Part::InBlock;
  };
  size_t lanes = order.empty() ? 0 : order.back(); // a scalar result has no dimension
  bool keepLanes =
      !order.empty() && laneStmt_ >= 0 && p.access.indices[lanes].coefficientOf(laneStmt_) != 0;
  // Lanes over fused indices read their run with the innermost index's stride alone, so the
  // dimensions of the run stay innermost together, in order (never blocked: packBlocks blocks
  // only dimensions of unfused indices).
  size_t laterCount = keepLanes ? std::max<size_t>(1, laneDimCount) : 0;
  auto laterBegin = order.end() - std::ptrdiff_t(laterCount);
  auto later = [&](size_t d) { return std::find(laterBegin, order.end(), d) != order.end(); };
  for (size_t d : order)
    if (part(d) == LayoutSlot::Part::InBlock)
      staged.layout.push_back({d, LayoutSlot::Part::Blocks});
  for (size_t d : order)
    if (part(d) == LayoutSlot::Part::Whole && !later(d))
      staged.layout.push_back({d, LayoutSlot::Part::Whole});
  for (size_t d : order)
    if (part(d) == LayoutSlot::Part::InBlock && !later(d))
      staged.layout.push_back({d, LayoutSlot::Part::InBlock});
  for (auto it = laterBegin; it != order.end(); ++it)
    staged.layout.push_back({*it, part(*it)});
  size_t dims = p.access.indices.size();
  staged.holder.strides.assign(dims, 1);
  if (!block.empty()) {
    staged.holder.block = block;
    staged.holder.innerStrides.assign(dims, 0);
  }
  int64_t elements = 1;
  for (size_t k = staged.layout.size(); k-- > 0;) {
    auto [d, slotPart] = staged.layout[k];
    int64_t n = slotPart == LayoutSlot::Part::Whole     ? shape[d]
                : slotPart == LayoutSlot::Part::InBlock ? block[d]
                                                        : (shape[d] + block[d] - 1) / block[d];
    (slotPart == LayoutSlot::Part::InBlock ? staged.holder.innerStrides[d]
                                           : staged.holder.strides[d]) = elements;
    elements *= n;
  }
  staged.holder.type = schedule::stagedType(k_, p);
  if (buf.lanes > 0) {
    staged.holder.lanes = buf.lanes;
    for (int64_t &stride : staged.holder.strides)
      stride *= buf.lanes;
    elements *= buf.lanes;
  }
  staged.elements = elements;
  staged.holder.ptr =
      allocate(uint64_t(elements) * uint64_t(ir::elemTypeBytes(staged.holder.type)), buf.name);
  return staged;
}

// Whether a register buffer's innermost dimension is the instruction's lanes (the innermost
// index of fused ones, which a register buffer lays out linearly) with unit stride, of a static
// count: then it can be padded to whole vectors.
bool Generator::padsToWholeVectors(const schedule::OperandPlacement &p, const StagedBuffer &staged,
                                   size_t inner) const {
  if (laneV_ < 0 || laneWidth_ <= 1)
    return false;
  const ir::Affine &a = p.access.indices[inner];
  return a.terms.size() == 1 && a.terms[0].first == laneStmt_ && a.terms[0].second == 1 &&
         llvm::isa<llvm::ConstantInt>(staged.count[inner]);
}

// The blocks of a pack into a cache level (empty: none): a dimension indexed by one
// non-reduction statement index alone, of a static count, is blocked by the register tile of
// that index where the buffer holds several, as BLIS packs micro-panels: the register tile
// then reads its slice of the operand as one stream instead of as rows far apart.
std::vector<int64_t> Generator::packBlocks(const schedule::OperandPlacement &p,
                                           const schedule::Staging &staging,
                                           const StagedBuffer &staged,
                                           const std::vector<int64_t> &shape) const {
  size_t regs = c_->levels.size() - 1;
  if (staging.kind != schedule::Staging::Kind::Pack || !c_->levels[regs].registers)
    return {};
  std::vector<int64_t> block(shape.size(), 0);
  bool any = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    const ir::Affine &a = p.access.indices[d];
    if (a.terms.size() != 1 || a.terms[0].second != 1 ||
        !llvm::isa<llvm::ConstantInt>(staged.count[d]))
      continue;
    for (size_t v = 0; v < c_->vindices.size(); ++v) {
      const schedule::VirtualIndex &vi = c_->vindices[v];
      int64_t tile = c_->tiles[regs][v];
      if (vi.stmtIndices.size() == 1 && vi.stmtIndices[0] == a.terms[0].first && !vi.reduction &&
          tile > 0 && tile < shape[d]) {
        block[d] = tile;
        any = true;
      }
    }
  }
  return any ? block : std::vector<int64_t>{};
}

// A result's tile over a fused index that may wrap is a bounding box larger than the box:
// writing all of it back would store stale values over elements other threads own. The
// write-back then stores only the points inside the box, recovering each fused index from the
// dimension that holds it alone; a group without such dimensions gets no guard.
std::vector<WriteBackGuard> Generator::writeBackGuards(const schedule::OperandPlacement &p,
                                                       const IndexRanges &ranges) const {
  std::vector<WriteBackGuard> guards;
  if (!p.output)
    return guards;
  for (size_t v = 0; v < c_->vindices.size(); ++v) {
    const auto &group = c_->vindices[v].stmtIndices;
    if (group.size() < 2 || ranges.exact[size_t(group.back())])
      continue;
    WriteBackGuard guard{v, {}};
    for (int i : group)
      for (size_t d = 0; d < p.access.indices.size(); ++d) {
        const ir::Affine &a = p.access.indices[d];
        if (a.terms.size() == 1 && a.terms[0].first == i && a.terms[0].second == 1)
          guard.dims.push_back({d, a.constant});
      }
    if (guard.dims.size() == group.size())
      guards.push_back(guard);
  }
  return guards;
}

// Whether tensor coordinates `coord` lie inside the box of every guarded fused group.
Value *Generator::insideBox(const std::vector<WriteBackGuard> &guards,
                            const std::vector<Value *> &coord, const State &st) {
  Value *ok = b_.getTrue();
  for (const WriteBackGuard &g : guards) {
    const auto &group = c_->vindices[g.vindex].stmtIndices;
    Value *linear = c64(0);
    for (size_t j = 0; j < group.size(); ++j)
      linear = add(mul(linear, c64(s_->indices[size_t(group[j])].extent)),
                   sub(coord[g.dims[j].first], c64(g.dims[j].second)));
    Value *lo = st.begin[g.vindex], *hi = add(st.begin[g.vindex], c64(st.size[g.vindex]));
    ok = b_.CreateAnd(ok, b_.CreateAnd(b_.CreateICmpSGE(linear, lo), b_.CreateICmpSLT(linear, hi)));
  }
  return ok;
}

// Pointers to `coord` in the holder outside and in the staged buffer.
std::pair<Value *, Value *> Generator::stagePointers(const StageCopy &copy,
                                                     const std::vector<Value *> &coord) {
  const Holder &outer = copy.outer, &h = copy.staged.holder;
  Value *src = offsetIn(outer, coord), *dst = offsetIn(h, coord);
  return std::pair(b_.CreateInBoundsGEP(v_.storageType(outer.type), outer.ptr, src),
                   b_.CreateInBoundsGEP(copy.storage, h.ptr, dst));
}

// The lines a register tile's write-back touches in the holder outside, fetched into the first
// level for writing (Node::prefetchTile): along the holder's contiguous dimension a line apart
// from the run's first element, and its last, at every point of the other dimensions. The
// addresses are computed without `inbounds`: a tile may reach past the tensor's end.
void Generator::prefetchTileLines(StageCopy &copy) {
  const Holder &outer = copy.outer;
  size_t nd = copy.coord.size();
  std::vector<int64_t> count(nd);
  for (size_t d = 0; d < nd; ++d) {
    auto *k = llvm::dyn_cast<llvm::ConstantInt>(copy.staged.count[d]);
    if (!k || !outer.block.empty())
      return;
    count[d] = k->getSExtValue();
  }
  size_t nl = c_->levels.size();
  int cache = nl >= 2 ? c_->levels[nl - 2].memory : -1;
  int64_t bytes = ir::elemTypeBytes(outer.type);
  int64_t line = cache < 0 ? 0 : t_.memories[size_t(cache)].lineBytes / bytes;
  if (nd == 0 || line <= 0)
    return;
  size_t run =
      size_t(std::min_element(outer.strides.begin(), outer.strides.end()) - outer.strides.begin());
  std::vector<int64_t> along;
  for (int64_t e = 0; e < count[run]; e += outer.strides[run] == 1 ? line : 1)
    along.push_back(e);
  if (outer.strides[run] == 1 && count[run] > 1)
    along.push_back(count[run] - 1);
  std::vector<int64_t> at(nd, 0);
  while (true) {
    for (int64_t e : along) {
      at[run] = e;
      for (size_t d = 0; d < nd; ++d)
        copy.coord[d] = add(copy.staged.holder.lo[d], c64(at[d]));
      Value *p = b_.CreateGEP(v_.storageType(outer.type), outer.ptr, offsetIn(outer, copy.coord));
      b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {p->getType()},
                         {p, b_.getInt32(1), b_.getInt32(3), b_.getInt32(1)});
    }
    size_t d = 0;
    for (; d < nd; ++d) {
      if (d == run)
        continue;
      if (++at[d] < count[d])
        break;
      at[d] = 0;
    }
    if (d == nd)
      return;
  }
}

// A computed operand's value from `lanes` elements of its access read from the holder outside.
Value *Generator::computeStageValue(const StageCopy &copy, Value *outer, unsigned lanes) {
  Values::Reader read = [&](const ir::Access &, ir::ElemType want) {
    return v_.convert(outer, copy.outerType, want);
  };
  return v_.convert(v_.eval(*copy.compute, lanes, read), copy.compute->type, copy.type);
}

// One element; a guarded write-back branches around the store when the point is outside the
// box.
void Generator::copyStageElement(StageCopy &copy) {
  auto [sp, dp] = stagePointers(copy, copy.coord);
  if (copy.in && copy.fill) {
    v_.store(v_.constant(copy.fillValue, copy.type, 1), dp, copy.type, 1, 0, 1);
    return;
  }
  if (copy.compute) {
    v_.store(computeStageValue(copy, v_.load(sp, copy.outerType, 1, 0, 1), 1), dp, copy.type, 1, 0,
             1);
    return;
  }
  if (copy.in) {
    b_.CreateStore(b_.CreateLoad(copy.storage, sp), dp);
    return;
  }
  if (copy.guards.empty()) {
    writeBackElement(copy, sp, dp);
    return;
  }
  auto *store = llvm::BasicBlock::Create(ctx(), "writeback", scope_.fn);
  auto *skip = llvm::BasicBlock::Create(ctx(), "writeback.skip", scope_.fn);
  b_.CreateCondBr(insideBox(copy.guards, copy.coord, copy.st), store, skip);
  b_.SetInsertPoint(store);
  writeBackElement(copy, sp, dp);
  b_.CreateBr(skip);
  b_.SetInsertPoint(skip);
}

// One element back to the holder outside; a lane tile's element is its lanes folded by the
// finisher, onto the value outside.
void Generator::writeBackElement(StageCopy &copy, Value *outer, Value *staged) {
  int64_t lanes = copy.staged.holder.lanes;
  if (lanes == 0) {
    Value *x = b_.CreateLoad(copy.storage, staged);
    if (copy.onto)
      x = v_.combine(s_->reduce, b_.CreateLoad(copy.storage, outer), x);
    b_.CreateStore(x, outer);
    return;
  }
  const ir::Statement &F = t_.instructions[size_t(c_->finisher)].semantics.statements[0];
  Value *partials = v_.load(staged, copy.type, unsigned(lanes), 1, unsigned(lanes));
  Values::Reader read = [&](const ir::Access &, ir::ElemType want) {
    return v_.convert(partials, copy.type, want);
  };
  Value *folded = foldLanes(
      v_.convert(v_.eval(F.rhs, unsigned(lanes), read), F.rhs.type, copy.type), unsigned(lanes));
  // The first stage of its elements stores the fold; a later one (first is null, false, or
  // false at run time) combines it with the value outside.
  auto *known = llvm::dyn_cast_or_null<llvm::ConstantInt>(copy.first);
  Value *result = folded;
  if (!known || known->isZero()) {
    Value *onto = v_.combine(F.reduce, v_.load(outer, copy.type, 1, 0, 1), folded);
    result = copy.first && !known ? b_.CreateSelect(copy.first, folded, onto) : onto;
  }
  v_.store(result, outer, copy.type, 1, 0, 1);
}

// The finisher's reduction over the lane index: halves combined with its operator until one
// lane is left (any order: a sum may be reassociated, which the reference's tolerance allows).
Value *Generator::foldLanes(Value *vector, unsigned lanes) {
  const ir::Statement &F = t_.instructions[size_t(c_->finisher)].semantics.statements[0];
  llvm::FastMathFlags fmf;
  fmf.setAllowReassoc();
  llvm::IRBuilder<>::FastMathFlagGuard guard(b_);
  b_.setFastMathFlags(fmf);
  Value *rest = nullptr; // the odd lane out of each halving
  for (unsigned n = lanes; n > 1; n /= 2) {
    std::vector<int> low(n / 2), high(n / 2);
    std::iota(low.begin(), low.end(), 0);
    std::iota(high.begin(), high.end(), int(n / 2));
    if (n % 2) {
      Value *odd = b_.CreateExtractElement(vector, uint64_t(n - 1));
      rest = rest ? v_.combine(F.reduce, rest, odd) : odd;
    }
    Value *lo = n / 2 == 1 ? b_.CreateExtractElement(vector, uint64_t(0))
                           : b_.CreateShuffleVector(vector, low);
    Value *hi = n / 2 == 1 ? b_.CreateExtractElement(vector, uint64_t(1))
                           : b_.CreateShuffleVector(vector, high);
    vector = v_.combine(F.reduce, lo, hi);
  }
  return rest ? v_.combine(F.reduce, vector, rest) : vector;
}

// A lane tile starts at the reduction's identity in every lane.
void Generator::initLanes(const StagedBuffer &staged, ir::ElemType type) {
  double identity = ir::reduceIdentity(s_->reduce);
  unsigned lanes = unsigned(staged.holder.lanes);
  Value *splat = v_.constant(identity, type, lanes);
  for (int64_t e = 0; e < staged.elements / staged.holder.lanes; ++e)
    v_.store(
        splat,
        b_.CreateConstInBoundsGEP1_64(v_.storageType(type), staged.holder.ptr, uint64_t(e) * lanes),
        type, lanes, 1, lanes);
}

// The innermost dimension `d`, `elements` long, a vector at a time (the last one partial); the
// holder outside may be strided, the buffer is contiguous there.
// Prefetches the line `bytes` past `at` for reading, into the second level: a pack's rows
// ahead. No fault past the tensor's end (a prefetch never faults).
void Generator::prefetchAhead(Value *at, int64_t bytes) {
  Value *line = b_.CreateGEP(b_.getInt8Ty(), at, c64(bytes));
  b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {line->getType()},
                     {line, b_.getInt32(0), b_.getInt32(2), b_.getInt32(1)});
}

void Generator::copyStageVectors(StageCopy &copy, size_t d, int64_t elements, Value *first) {
  unsigned width = copy.width;
  int64_t chunks = (elements + width - 1) / width;
  auto move = [&](Value *iv, unsigned active) {
    copy.coord[d] = add(first, mul(iv, c64(width)));
    auto [sp, dp] = stagePointers(copy, copy.coord);
    int64_t srcStride = copy.outer.strides[d];
    // The buffer's padding lanes are written too (zeros, in), and read whole (out).
    unsigned inBuffer = copy.staged.holder.wholeVectors ? width : active;
    Value *x =
        copy.in && copy.fill ? v_.constant(copy.fillValue, copy.type, width)
        : copy.compute
            ? computeStageValue(copy, v_.load(sp, copy.outerType, width, srcStride, active), width)
        : copy.in ? v_.load(sp, copy.type, width, srcStride, active)
                  : v_.load(dp, copy.type, width, 1, inBuffer);
    if (copy.in && !copy.fill && copy.prefetchBytes)
      prefetchAhead(sp, copy.prefetchBytes);
    if (copy.onto)
      x = v_.combine(s_->reduce, v_.load(sp, copy.type, width, srcStride, active), x);
    if (copy.in)
      v_.store(x, dp, copy.type, width, 1, inBuffer);
    else
      v_.store(x, sp, copy.type, width, srcStride, active);
  };
  loop(elements / width, copy.registers, [&](Value *iv) { move(iv, width); });
  if (elements % width)
    move(c64(chunks - 1), unsigned(elements % width));
}

// The copy's loops nest in the holder's memory order, so that a pack reads rows far outside
// (DRAM) as long runs the prefetchers follow: the slots by the holder's stride, largest first,
// except the buffer's innermost, which stays innermost and moves a vector at a time when its
// count is static and no guard applies. Packing B's 32-column micro-panels one after another
// read 256 rows of two lines each, a page apart, and left the pack waiting on DRAM.
void Generator::copyStage(StageCopy &copy) {
  const StagedBuffer &staged = copy.staged;
  copy.order = staged.layout;
  if (!copy.registers && copy.order.size() > 2) {
    const Holder &h = copy.outer;
    auto stride = [&](const LayoutSlot &s) {
      int64_t outer = !h.block.empty() && h.block[s.dim] ? h.innerStrides[s.dim] : h.strides[s.dim];
      return s.part == LayoutSlot::Part::Blocks ? outer * staged.holder.block[s.dim] : outer;
    };
    std::stable_sort(
        copy.order.begin(), copy.order.end() - 1,
        [&](const LayoutSlot &a, const LayoutSlot &b) { return stride(a) > stride(b); });
  }
  copying_ = true;
  copyStageDimension(copy, 0);
  copying_ = false;
}

void Generator::copyStageDimension(StageCopy &copy, size_t k) {
  const std::vector<LayoutSlot> &layout = copy.order;
  if (k == layout.size()) {
    copyStageElement(copy);
    return;
  }
  if (k + 2 == layout.size() && transposes(copy, k)) {
    copyStageTransposed(copy, k);
    return;
  }
  auto [d, part] = layout[k];
  Value *first = copy.staged.holder.lo[d], *count = copy.staged.count[d];
  if (part == LayoutSlot::Part::Blocks) {
    // A blocked dimension's count is static: whole blocks in a loop, then the last one.
    int64_t n = llvm::cast<llvm::ConstantInt>(count)->getSExtValue();
    int64_t block = copy.staged.holder.block[d], whole = n / block;
    auto blockAt = [&](Value *base, int64_t size) {
      copy.blockBase[d] = base;
      copy.blockSize[d] = size;
      copyStageDimension(copy, k + 1);
    };
    loop(whole, copy.registers, [&](Value *iv) { blockAt(mul(iv, c64(block)), block); });
    if (n % block)
      blockAt(c64(whole * block), n % block);
    return;
  }
  if (part == LayoutSlot::Part::InBlock) {
    first = add(first, copy.blockBase[d]);
    count = c64(copy.blockSize[d]);
  }
  auto *staticCount = llvm::dyn_cast<llvm::ConstantInt>(count);
  if (k + 1 == layout.size() && staticCount &&
      (staticCount->getSExtValue() > 1 || copy.staged.holder.wholeVectors) &&
      (copy.in || copy.guards.empty()) && copy.staged.holder.lanes == 0) {
    copyStageVectors(copy, d, staticCount->getSExtValue(), first);
    return;
  }
  auto body = [&](Value *iv) {
    copy.coord[d] = add(first, iv);
    copyStageDimension(copy, k + 1);
  };
  if (staticCount)
    loop(staticCount->getSExtValue(), copy.registers, body);
  else
    loop(count, body);
}

// The first element and the count of a copy slot's run: the whole dimension of the bounding
// box, or the block being copied.
std::pair<Value *, Value *> Generator::slotRun(const StageCopy &copy, const LayoutSlot &slot) {
  if (slot.part == LayoutSlot::Part::InBlock)
    return {add(copy.staged.holder.lo[slot.dim], copy.blockBase[slot.dim]),
            c64(copy.blockSize[slot.dim])};
  return {copy.staged.holder.lo[slot.dim], copy.staged.count[slot.dim]};
}

// Whether the last two slots of a copy (from slot k) transpose it: the buffer's innermost
// slot runs along a dimension strided in the holder outside and the slot outside it along one
// contiguous there, wide enough that moving whole rows and transposing them in registers beats
// a gather or scatter per vector. So it is for the accumulators of m on the lanes of C[m, n] (TN
// 2560 x 64 x 2560 spent about a third of its time in 16 x 16 tiles' gathers and scatters), and
// for a pack into micro-panels across the source's rows: A's rows of a GEMM blocked by the
// register tile's, B[n, k]'s under n on the lanes (NT), where a gather per k cost a cycle per
// element.
bool Generator::transposes(const StageCopy &copy, size_t k) const {
  const LayoutSlot &eSlot = copy.order[k], &dSlot = copy.order[k + 1];
  size_t e = eSlot.dim, d = dSlot.dim;
  const Holder &outer = copy.outer, &h = copy.staged.holder;
  if ((copy.in && copy.fill) || copy.compute || (!copy.in && !copy.guards.empty()) ||
      h.lanes != 0 || outer.lanes != 0 || !outer.block.empty() ||
      eSlot.part == LayoutSlot::Part::Blocks || dSlot.part == LayoutSlot::Part::Blocks ||
      !llvm::isPowerOf2_32(copy.width) || copy.width < 4)
    return false;
  auto innerStride = [&](const LayoutSlot &slot) {
    return slot.part == LayoutSlot::Part::InBlock ? h.innerStrides[slot.dim] : h.strides[slot.dim];
  };
  auto staticCount = [&](const LayoutSlot &slot) -> int64_t {
    if (slot.part == LayoutSlot::Part::InBlock)
      return copy.blockSize[slot.dim];
    auto *n = llvm::dyn_cast<llvm::ConstantInt>(copy.staged.count[slot.dim]);
    return n ? n->getSExtValue() : -1;
  };
  if (outer.strides[e] != 1 || outer.strides[d] == 1 || innerStride(dSlot) != 1)
    return false;
  int64_t vectors = staticCount(eSlot), lanes = staticCount(dSlot);
  if (copy.registers)
    return vectors > 0 && lanes > 0 && 2 * std::min<int64_t>(vectors, copy.width) >= copy.width;
  // A pack (in only): its rows along e may be as long as the box is (a dynamic count at an
  // edge); half a vector of them at least, so that the transposes pay for themselves.
  return copy.in && lanes > 0 && 2 * lanes >= int64_t(copy.width) &&
         (vectors < 0 || 2 * std::min<int64_t>(vectors, copy.width) >= copy.width);
}

// A copy moved as square blocks of `width` x `width`: runs of the holder outside (along slot
// k's dimension e, at each value of slot k + 1's d) loaded whole and transposed into the
// buffer's runs (along d, one per value of e), and the reverse on the way out; lanes past the
// box read as zero and are not stored. A register tile's blocks are all unrolled; a pack's
// loop over whole blocks along e, the rest of e (a dynamic count's) copied as the slots are.
void Generator::copyStageTransposed(StageCopy &copy, size_t k) {
  const LayoutSlot eSlot = copy.order[k], dSlot = copy.order[k + 1];
  size_t e = eSlot.dim, d = dSlot.dim;
  unsigned w = copy.width;
  auto [firstE, countE] = slotRun(copy, eSlot);
  auto [firstD, countD] = slotRun(copy, dSlot);
  int64_t lanes = llvm::cast<llvm::ConstantInt>(countD)->getSExtValue();
  auto pointers = [&](Value *atE, int64_t atD) {
    copy.coord[e] = add(firstE, atE);
    copy.coord[d] = add(firstD, c64(atD));
    return stagePointers(copy, copy.coord);
  };
  auto blockAt = [&](Value *e0, unsigned ne) {
    for (int64_t d0 = 0; d0 < lanes; d0 += w) {
      unsigned nd = unsigned(std::min<int64_t>(w, lanes - d0));
      // The buffer's padding lanes are written too (zeros, in), and read whole (out).
      unsigned inBuffer = copy.staged.holder.wholeVectors ? w : nd;
      std::vector<Value *> block(w, v_.constant(0, copy.type, w));
      if (copy.in) {
        for (unsigned j = 0; j < nd; ++j) {
          Value *src = pointers(e0, d0 + j).first;
          block[j] = v_.load(src, copy.type, w, 1, ne);
          if (copy.prefetchBytes)
            prefetchAhead(src, copy.prefetchBytes);
        }
        block = v_.transpose(std::move(block));
        for (unsigned i = 0; i < ne; ++i)
          v_.store(block[i], pointers(add(e0, c64(i)), d0).second, copy.type, w, 1, inBuffer);
        continue;
      }
      for (unsigned i = 0; i < ne; ++i)
        block[i] = v_.load(pointers(add(e0, c64(i)), d0).second, copy.type, w, 1, inBuffer);
      block = v_.transpose(std::move(block));
      for (unsigned j = 0; j < nd; ++j) {
        Value *out = pointers(e0, d0 + j).first, *x = block[j];
        if (copy.onto)
          x = v_.combine(s_->reduce, v_.load(out, copy.type, w, 1, ne), x);
        v_.store(x, out, copy.type, w, 1, ne);
      }
    }
  };
  if (auto *n = llvm::dyn_cast<llvm::ConstantInt>(countE)) {
    int64_t vectors = n->getSExtValue();
    loop(vectors / w, copy.registers, [&](Value *iv) { blockAt(mul(iv, c64(w)), w); });
    if (vectors % w)
      blockAt(c64(vectors / w * w), unsigned(vectors % w));
    return;
  }
  // A dynamic count: whole blocks, then the rest of e one value at a time, d as its slot goes.
  Value *whole = b_.CreateUDiv(countE, c64(w));
  loop(whole, [&](Value *iv) { blockAt(mul(iv, c64(w)), w); });
  Value *done = mul(whole, c64(w));
  loop(sub(countE, done), [&](Value *iv) {
    copy.coord[e] = add(firstE, add(done, iv));
    copyStageDimension(copy, k + 1);
  });
}

// Stages the operand in a buffer over the box's bounding box for the node's body: copied in
// before, written back after when it is a result.
void Generator::emitStage(const Node &n, State &st) {
  const schedule::Buffer &buf = ss_->buffers[size_t(n.buffer)];
  size_t operand = size_t(buf.operand);
  const schedule::OperandPlacement &p = c_->operands[operand];
  const ir::Tensor &tensor = k_.tensors[size_t(p.tensor)];
  bool registers = c_->levels[size_t(buf.level)].registers;
  IndexRanges ranges = stageIndexRanges(st, registers);
  std::vector<WriteBackGuard> guards = writeBackGuards(p, ranges);
  // A guarded write-back copies element by element, which whole vectors cannot follow.
  StagedBuffer staged = stagedBuffer(buf, p, tensor, ranges, registers && guards.empty());
  // A computed operand's outermost buffer is its pack, which computes it from the tensor.
  bool computes = p.computed && st.stacks[operand].empty();

  Holder outerScratch;
  // A copy: pushing the staged holder below may move the one holderOf returns.
  const Holder outer = holderOf(operand, st, outerScratch);
  ir::ElemType type = staged.holder.type;
  int bytes = ir::elemTypeBytes(type);
  // Register buffers are copied fully unrolled, so that every access has a constant offset and
  // the buffer lives in registers; others in loops. A buffer of whole vectors is copied a
  // call's vector at a time, so that the copies and the calls access the same slices.
  StageCopy copy{staged,
                 outer,
                 st,
                 type,
                 v_.storageType(type),
                 staged.holder.wholeVectors ? unsigned(laneWidth_)
                                            : unsigned(std::max<int64_t>(1, 64 / bytes)),
                 registers,
                 std::move(guards),
                 /*in=*/true,
                 std::vector<Value *>(p.access.indices.size(), c64(0)),
                 std::vector<Value *>(p.access.indices.size(), nullptr),
                 std::vector<int64_t>(p.access.indices.size(), 0),
                 {},
                 false,
                 0.0,
                 computes ? &*p.computed : nullptr,
                 outer.type};
  // With the statement's Init folded, a result's register stage that comes first for its
  // elements starts at the identity; the later ones load what the earlier ones left.
  bool result = registers && p.output;
  Value *first = result && (initFolded_ || partialSums_) ? firstOfReduction(st) : nullptr;
  auto *known = llvm::dyn_cast_or_null<llvm::ConstantInt>(first);
  // A sum's register stage over part of its reduction starts at zero and is added onto the
  // result at write-back, as a BLAS micro-kernel sums each block of k: continuing one chain of
  // float additions over K = 500000 made errors 20 times the library's.
  bool partial = result && partialSums_ && buf.lanes == 0 && !(known && known->isOne());
  copy.first = initFolded_ ? first : nullptr;
  if (n.prefetchRows > 0 && outer.strides.size() >= 2)
    copy.prefetchBytes =
        n.prefetchRows * outer.strides[outer.strides.size() - 2] * ir::elemTypeBytes(outer.type);
  copy.fillValue = initFolded_ ? identity_ : 0.0;
  copy.prefetchTile = n.prefetchTile && copy.guards.empty();
  auto copyIn = [&](bool fill) {
    copy.fill = fill;
    if (fill && copy.prefetchTile)
      prefetchTileLines(copy);
    copyStage(copy);
  };
  if (buf.lanes > 0)
    initLanes(staged, tensor.type);
  else if (partial)
    copyIn(true);
  else if (copy.first)
    ifElse(
        copy.first, [&] { copyIn(true); }, [&] { copyIn(false); });
  else
    copyIn(false);
  st.stacks[operand].push_back(staged.holder);
  State outerRuns = st;
  for (size_t v = 0; v < c_->vindices.size(); ++v)
    if (c_->vindices[v].stmtIndices.size() > 1 &&
        ranges.run[size_t(c_->vindices[v].stmtIndices.back())]) {
      st.runBegin[v] = st.begin[v];
      for (int i : c_->vindices[v].stmtIndices)
        st.runLo[size_t(i)] = ranges.lo[size_t(i)];
    }
  for (const auto &x : n.body)
    emit(x, st);
  st.runBegin = outerRuns.runBegin;
  st.runLo = outerRuns.runLo;
  st.stacks[operand].pop_back();
  if (p.output) {
    copy.in = false;
    auto copyOut = [&](bool onto) {
      copy.onto = onto;
      copy.coord.assign(p.access.indices.size(), c64(0));
      copyStage(copy);
    };
    // Without a folded Init, the result holds the identity before the first stage.
    if (!partial)
      copyOut(false);
    else if (!copy.first || (known && known->isZero()))
      copyOut(true);
    else
      ifElse(
          copy.first, [&] { copyOut(false); }, [&] { copyOut(true); });
  }
}

// A lane tile is accessed whole (so that it stays in registers); its lanes past the box keep
// their partials, which the fold reads.
Value *Generator::keepInactiveLanes(Value *result, Value *acc, unsigned active, unsigned lanes) {
  std::vector<llvm::Constant *> on;
  for (unsigned l = 0; l < lanes; ++l)
    on.push_back(b_.getInt1(l < active));
  return b_.CreateSelect(llvm::ConstantVector::get(on), result, acc);
}

void Generator::emitCall(State &st) {
  const hw::Instruction &in = t_.instructions[size_t(c_->instruction)];
  const ir::Statement &I = in.semantics.statements[0];
  size_t ni = I.indices.size();
  std::vector<int> vOf(ni, -1);
  for (size_t v = 0; v < c_->vindices.size(); ++v)
    if (c_->vindices[v].instrIndex >= 0)
      vOf[size_t(c_->vindices[v].instrIndex)] = int(v);
  std::vector<int64_t> extent(ni, 1);
  for (size_t ii = 0; ii < ni; ++ii)
    if (vOf[ii] >= 0) {
      const auto &vi = c_->vindices[size_t(vOf[ii])];
      extent[ii] = vi.free ? st.size[size_t(vOf[ii])] : vi.instrExtent;
    }
  // The lane index: the one the result's last dimension runs over.
  int lane = -1;
  if (!I.lhs.indices.empty()) {
    const ir::Affine &last = I.lhs.indices.back();
    if (last.terms.size() == 1 && last.terms[0].second == 1 && last.constant == 0) {
      int ii = last.terms[0].first;
      if (vOf[size_t(ii)] >= 0 && extent[size_t(ii)] > 1)
        lane = ii;
    }
  }
  unsigned lanes = lane >= 0 ? unsigned(extent[size_t(lane)]) : 1;
  unsigned active =
      lane >= 0 ? unsigned(std::min<int64_t>(lanes, st.size[size_t(vOf[size_t(lane)])])) : 1;
  int laneStmtIndex = lane >= 0 ? c_->vindices[size_t(vOf[size_t(lane)])].stmtIndices.back() : -1;

  // Every combination of the other instruction indices, unrolled; lanes past the box are off.
  std::vector<int64_t> q(ni, 0);
  std::function<void(size_t)> each = [&](size_t ii) {
    if (ii < ni) {
      if (int(ii) == lane || vOf[ii] < 0) {
        each(ii + 1);
        return;
      }
      int64_t limit = std::min(extent[ii], st.size[size_t(vOf[ii])]);
      for (q[ii] = 0; q[ii] < limit; ++q[ii])
        each(ii + 1);
      q[ii] = 0;
      return;
    }
    std::vector<Value *> vvalue = st.begin;
    for (size_t j = 0; j < ni; ++j)
      if (vOf[j] >= 0 && q[j])
        vvalue[size_t(vOf[j])] = add(vvalue[size_t(vOf[j])], c64(q[j]));
    std::vector<Value *> point = pointOf(vvalue, st);
    // `whole`: the run of lanes lies in a buffer padded to whole vectors, read and written
    // unmasked.
    auto operandRef = [&](const ir::Access &instrAccess, int64_t &stride, bool &whole) {
      size_t o = size_t(instrAccess.tensor);
      const schedule::OperandPlacement &p = c_->operands[o];
      Holder scratch;
      const Holder &h = holderOf(o, st, scratch);
      bool usesLane = false;
      for (const auto &a : instrAccess.indices)
        usesLane = usesLane || (lane >= 0 && a.coefficientOf(lane) != 0);
      // A lane tile holds each element's lanes side by side.
      stride = usesLane ? (h.lanes > 0 ? 1 : laneStride(p.access, h, laneStmtIndex)) : 0;
      whole = (h.wholeVectors && stride == 1) || h.lanes > 0;
      return address(p.access, point, h);
    };
    auto typeOf = [&](const ir::Access &a) {
      Holder scratch;
      return holderOf(size_t(a.tensor), st, scratch).type;
    };
    Values::Reader read = [&](const ir::Access &a, ir::ElemType want) {
      int64_t stride;
      bool whole;
      Value *ptr = operandRef(a, stride, whole);
      ir::ElemType have = typeOf(a);
      return v_.convert(v_.load(ptr, have, lanes, stride, whole ? lanes : active), have, want);
    };
    int64_t lhsStride;
    bool lhsWhole;
    Value *lhsPtr = operandRef(I.lhs, lhsStride, lhsWhole);
    ir::ElemType lhsType = typeOf(I.lhs);
    unsigned lhsActive = lhsWhole ? lanes : active;
    Value *result, *acc = nullptr;
    if (I.reduce == ir::ReduceOp::None) {
      result = v_.convert(v_.eval(I.rhs, lanes, read), I.rhs.type, lhsType);
    } else {
      acc = v_.load(lhsPtr, lhsType, lanes, lhsStride, lhsActive);
      if (I.reduce == ir::ReduceOp::Sum && I.rhs.kind == ir::Expr::Kind::Mul) {
        Value *a = v_.convert(v_.eval(I.rhs.args[0], lanes, read), I.rhs.args[0].type, lhsType);
        Value *b = v_.convert(v_.eval(I.rhs.args[1], lanes, read), I.rhs.args[1].type, lhsType);
        result = v_.fma(a, b, acc);
      } else {
        result =
            v_.combine(I.reduce, acc, v_.convert(v_.eval(I.rhs, lanes, read), I.rhs.type, lhsType));
      }
    }
    Holder lhsScratch;
    if (acc && active < lanes && holderOf(size_t(I.lhs.tensor), st, lhsScratch).lanes > 0)
      result = keepInactiveLanes(result, acc, active, lanes);
    v_.store(result, lhsPtr, lhsType, lanes, lhsStride, lhsActive);
  };
  each(0);
}

// Scalar code: the statement point by point over the box. The last write index goes innermost
// when it is long enough to vectorise (each element still sums its reduction in order).
void Generator::emitScalar(State &st) {
  size_t ns = s_->indices.size();
  std::vector<Value *> lo(ns, c64(0));
  std::vector<int64_t> count(ns, 1);
  for (size_t v = 0; v < c_->vindices.size(); ++v) {
    size_t i = size_t(c_->vindices[v].stmtIndices[0]);
    lo[i] = st.begin[v];
    count[i] = st.size[v];
  }
  std::vector<size_t> order;
  size_t writes = 0;
  for (size_t i = 0; i < ns; ++i)
    writes += s_->indices[i].reduction ? 0 : 1;
  bool lastInnermost = writes > 0 && writes < ns && count[writes - 1] >= 8;
  for (size_t i = 0; i < ns; ++i)
    if (!(lastInnermost && i == writes - 1))
      order.push_back(i);
  if (lastInnermost)
    order.push_back(writes - 1);
  const ir::Tensor &out = k_.tensors[size_t(s_->lhs.tensor)];
  std::vector<Value *> point(ns, c64(0));
  std::function<void(size_t)> nest = [&](size_t k) {
    if (k < order.size()) {
      size_t i = order[k];
      loop(count[i], false, [&](Value *iv) {
        point[i] = add(lo[i], iv);
        nest(k + 1);
      });
      return;
    }
    Values::Reader read = [&](const ir::Access &a, ir::ElemType want) {
      Holder h = tensorHolder(a.tensor);
      const ir::Tensor &t = k_.tensors[size_t(a.tensor)];
      if (!a.pad)
        return v_.convert(v_.load(address(a, point, h), t.type, 1, 0, 1), t.type, want);
      // A padded read loads from the index clamped into the tensor (always a valid address, and
      // no branch to keep the loop from vectorising), then takes the pad value where the index
      // was outside.
      std::vector<Value *> coord;
      Value *inside = b_.getTrue();
      auto gather = a.gathers.begin();
      for (size_t d = 0; d < a.indices.size(); ++d) {
        Value *c = nullptr;
        if (gather != a.gathers.end() && gather->dim == d) {
          // A gathered index: the integer element read (in bounds) at the point, widened.
          ir::Access index{gather->tensor, gather->indices, std::nullopt, {}};
          ir::ElemType type = k_.tensors[size_t(gather->tensor)].type;
          Value *raw = v_.load(address(index, point, tensorHolder(gather->tensor)), type, 1, 0, 1);
          c = b_.CreateSExtOrTrunc(raw, i64());
          ++gather;
        } else {
          c = affine(a.indices[d], point);
        }
        Value *last = c64(t.shape[d] - 1);
        inside = b_.CreateAnd(inside, b_.CreateICmpULE(c, last));
        Value *low = b_.CreateSelect(b_.CreateICmpSLT(c, c64(0)), c64(0), c);
        coord.push_back(b_.CreateSelect(b_.CreateICmpSGT(low, last), last, low));
      }
      Value *at = b_.CreateInBoundsGEP(v_.storageType(h.type), h.ptr, offsetIn(h, coord));
      Value *loaded = v_.load(at, t.type, 1, 0, 1);
      return v_.convert(b_.CreateSelect(inside, loaded, v_.constant(*a.pad, t.type, 1)), t.type,
                        want);
    };
    Values::IndexReader index = [&](const ir::Affine &a) { return affine(a, point); };
    auto compute = [&] {
      Holder h = tensorHolder(s_->lhs.tensor);
      Value *ptr = address(s_->lhs, point, h);
      Value *value = v_.convert(v_.eval(s_->rhs, 1, read, index), s_->rhs.type, out.type);
      if (s_->reduce != ir::ReduceOp::None) {
        // The sum may be reassociated: LLVM then vectorises the reduction loop with partial
        // sums (the error stays within the reference's tolerance, which allows for any order).
        llvm::FastMathFlags fmf;
        fmf.setAllowReassoc();
        fmf.setAllowContract();
        llvm::IRBuilder<>::FastMathFlagGuard guard(b_);
        b_.setFastMathFlags(fmf);
        value = v_.combine(s_->reduce, v_.load(ptr, out.type, 1, 0, 1), value);
      }
      v_.store(value, ptr, out.type, 1, 0, 1);
    };
    // A guarded point is computed under a branch, not a select: the value may divide by zero
    // or overflow where the guard fails.
    if (s_->guards.empty())
      compute();
    else
      ifElse(guardsHold(point), compute, [] {});
  };
  nest(0);
}

Value *Generator::guardsHold(const std::vector<Value *> &point) {
  Value *all = b_.getTrue();
  for (const auto &g : s_->guards)
    all = b_.CreateAnd(all, v_.compare(g.cmp, affine(g.lhs, point), affine(g.rhs, point)));
  return all;
}

// The written region starts from the reduction's identity (the whole domain: Init is at the
// root).
void Generator::emitInit(ir::ReduceOp op) {
  const ir::Tensor &out = k_.tensors[size_t(s_->lhs.tensor)];
  std::vector<Value *> point(s_->indices.size(), c64(0));
  std::function<void(size_t)> nest = [&](size_t i) {
    if (i < s_->indices.size() && !s_->indices[i].reduction) {
      loop(s_->indices[i].extent, false, [&](Value *iv) {
        point[i] = iv;
        nest(i + 1);
      });
      return;
    }
    Holder h = tensorHolder(s_->lhs.tensor);
    double value = ir::reduceIdentity(op);
    v_.store(v_.constant(value, out.type, 1), address(s_->lhs, point, h), out.type, 1, 0, 1);
  };
  nest(0);
}

void Generator::statement(const schedule::StatementSchedule &ss) {
  ss_ = &ss;
  c_ = &ss.config;
  s_ = &k_.statements[ss.config.statement];
  State st;
  for (const auto &v : c_->vindices) {
    st.begin.push_back(c64(0));
    st.size.push_back(v.extent);
    st.align.push_back(0);
  }
  st.stacks.resize(c_->operands.size());
  st.runBegin.assign(c_->vindices.size(), nullptr);
  st.runLo.assign(s_->indices.size(), nullptr);
  laneV_ = laneStmt_ = -1;
  laneWidth_ = 0;
  if (c_->mapping >= 0) {
    const ir::Statement &I = t_.instructions[size_t(c_->instruction)].semantics.statements[0];
    if (!I.lhs.indices.empty() && I.lhs.indices.back().terms.size() == 1)
      for (size_t v = 0; v < c_->vindices.size(); ++v)
        if (c_->vindices[v].instrIndex == I.lhs.indices.back().terms[0].first &&
            (c_->vindices[v].free || c_->vindices[v].instrExtent > 1)) {
          laneV_ = int(v);
          laneStmt_ = c_->vindices[v].stmtIndices.back();
          laneWidth_ = c_->vindices[v].free ? 0 : c_->vindices[v].instrExtent;
        }
  }
  initFolded_ = initFoldable(ss);
  partialSums_ = s_->reduce == ir::ReduceOp::Sum && !readsOwnResult();
  outlinedStages_.clear();
  emit(ss.root, st);
  initFolded_ = partialSums_ = false;
}

// `first` stays the constant true or a runtime value: a reduction index whose begin is a
// constant other than 0 (a remainder tile) makes the whole answer false.
Value *Generator::firstOfReduction(const State &st) {
  Value *first = b_.getTrue();
  for (size_t v = 0; v < c_->vindices.size(); ++v) {
    if (!c_->vindices[v].reduction || st.align[v] == 0)
      continue;
    Value *atStart = b_.CreateICmpEQ(st.begin[v], c64(0));
    if (auto *known = llvm::dyn_cast<llvm::ConstantInt>(atStart)) {
      if (known->isZero())
        return b_.getFalse();
      continue;
    }
    first = llvm::isa<llvm::ConstantInt>(first) ? atStart : b_.CreateAnd(first, atStart);
  }
  return first;
}

// Whether the statement's Init can be folded into its register stages: the result is staged at
// the register level, so each result element lies in exactly one register stage whose box starts
// every reduction index at 0 (firstOfReduction), which starts it at the identity; the stages
// after it load it (a memory-bound depthwise convolution otherwise writes its result three
// times: zeros, then each tile loaded and stored back; a GEMM whose reduction is tiled reads a
// zeroed result from memory where it could start from registers).
bool Generator::initFoldable(const schedule::StatementSchedule &ss) {
  const schedule::Node *init = nullptr;
  for (const auto &n : ss.root.body)
    if (n.kind == Node::Kind::Init)
      init = &n;
  size_t regs = c_->levels.size() - 1;
  if (!init || c_->mapping < 0 || !c_->levels[regs].registers)
    return false;
  // A statement that also reads its result would read the identity there before any tile.
  bool staged = false;
  for (const auto &p : c_->operands)
    staged = staged || (p.output && p.tensor == s_->lhs.tensor && p.staged[regs]);
  if (!staged || readsOwnResult())
    return false;
  identity_ = ir::reduceIdentity(init->init);
  return true;
}

// Whether the statement's right-hand side reads the tensor it writes.
bool Generator::readsOwnResult() const {
  for (const auto &p : c_->operands)
    if (!p.output && p.tensor == s_->lhs.tensor)
      return true;
  return false;
}

llvm::Function *Generator::kernelFunction() {
  std::vector<llvm::Type *> params;
  std::vector<size_t> argTensors;
  for (size_t t = 0; t < k_.tensors.size(); ++t)
    if (k_.tensors[t].role != ir::TensorRole::Local) {
      params.push_back(ptrTy());
      argTensors.push_back(t);
    }
  // The body takes the thread count last; the exported entry points (generate) call it.
  params.push_back(b_.getInt32Ty());
  auto *fnTy = llvm::FunctionType::get(b_.getVoidTy(), params, false);
  auto *fn =
      llvm::Function::Create(fnTy, llvm::Function::InternalLinkage, symbolName(k_) + ".run", m_);
  setAttributes(fn);
  // Three small entry points call it: one copy of a large body, not three.
  fn->addFnAttr(llvm::Attribute::NoInline);
  for (size_t a = 0; a < argTensors.size(); ++a) {
    fn->getArg(unsigned(a))->setName(k_.tensors[argTensors[a]].name);
    // Inputs and outputs never overlap: the ABI says so, and it lets loads move past stores.
    fn->addParamAttr(unsigned(a), llvm::Attribute::NoAlias);
    fn->addParamAttr(unsigned(a), llvm::Attribute::NoCapture);
  }
  scope_ = Scope{};
  scope_.fn = fn;
  scope_.entry = llvm::BasicBlock::Create(ctx(), "entry", fn);
  b_.SetInsertPoint(scope_.entry);
  scope_.tensors.assign(k_.tensors.size(), nullptr);
  for (size_t a = 0; a < argTensors.size(); ++a)
    scope_.tensors[argTensors[a]] = fn->getArg(unsigned(a));
  threads_ = threadCount(fn->getArg(unsigned(argTensors.size())));
  // Sized, and the pool placed after the buffers, once every statement is generated
  // (finishPool).
  llvm::FunctionCallee alloc = m_.getOrInsertFunction("aligned_alloc", ptrTy(), i64(), i64());
  arena_ = b_.CreateCall(alloc, {b_.getInt64(64), b_.getInt64(0)}, "arena");
  pool_ = llvm::cast<llvm::GetElementPtrInst>(
      b_.CreateGEP(b_.getInt8Ty(), arena_, {b_.getInt64(0)}, "pool"));
  kernelFn_ = fn;
  arenaBytes_ = 0;
  poolPerThread_ = 0;
  for (size_t t = 0; t < k_.tensors.size(); ++t) {
    uint64_t bytes =
        uint64_t(k_.tensors[t].elementCount()) * uint64_t(ir::elemTypeBytes(k_.tensors[t].type));
    if (k_.tensors[t].role == ir::TensorRole::Local)
      scope_.tensors[t] = allocate(bytes, k_.tensors[t].name);
    // Elements no statement writes are zeros (ir::startsZeroed), whatever the caller's buffer
    // held.
    if (ir::startsZeroed(k_, int(t)))
      b_.CreateMemSet(scope_.tensors[t], b_.getInt8(0), b_.getInt64(bytes), llvm::MaybeAlign(1));
  }
  return fn;
}

// The arena holds arenaBytes_ of buffers and then poolPerThread_ bytes for each of the call's
// threads, or is not allocated.
void Generator::finishPool() {
  if (poolPerThread_ == 0 && arenaBytes_ == 0) {
    pool_->eraseFromParent();
    arena_->eraseFromParent();
  } else {
    llvm::IRBuilder<> at(arena_);
    pool_->setOperand(1, at.getInt64(arenaBytes_));
    Value *poolBytes = at.CreateMul(at.CreateZExt(threads_, i64()), at.getInt64(poolPerThread_));
    arena_->setArgOperand(1, at.CreateAdd(at.getInt64(arenaBytes_), poolBytes));
    scope_.heap.push_back(arena_);
  }
  pool_ = nullptr;
  arena_ = nullptr;
}

void Generator::generate(const schedule::KernelSchedule &ks) {
  llvm::Function *body = kernelFunction();
  for (const auto &ss : ks.statements)
    statement(ss);
  finishPool();
  finishScope();
  unsigned arity = unsigned(body->arg_size() - 1);
  std::string symbol = symbolName(k_);
  auto entry = [&](const std::string &name, std::vector<llvm::Type *> params) {
    auto *f = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), params, false),
                                     llvm::Function::ExternalLinkage, name, m_);
    setAttributes(f);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx(), "entry", f));
    return f;
  };
  // NAME(in..., out...): the arrays as parameters; the default thread count.
  std::vector<llvm::Type *> pointers(arity, ptrTy());
  llvm::Function *plain = entry(symbol, pointers);
  std::vector<Value *> args;
  for (unsigned a = 0; a < arity; ++a) {
    plain->getArg(a)->setName(body->getArg(a)->getName());
    plain->addParamAttr(a, llvm::Attribute::NoAlias);
    plain->addParamAttr(a, llvm::Attribute::NoCapture);
    args.push_back(plain->getArg(a));
  }
  args.push_back(b_.getInt32(0));
  b_.CreateCall(body, args);
  b_.CreateRetVoid();
  // NAME__args(args) and NAME__args_threads(args, threads): the arrays as a list.
  for (bool withThreads : {false, true}) {
    std::vector<llvm::Type *> params = {ptrTy()};
    if (withThreads)
      params.push_back(b_.getInt32Ty());
    llvm::Function *f = entry(symbol + (withThreads ? "__args_threads" : "__args"), params);
    args.clear();
    for (unsigned a = 0; a < arity; ++a)
      args.push_back(
          b_.CreateLoad(ptrTy(), b_.CreateConstInBoundsGEP1_64(ptrTy(), f->getArg(0), a)));
    args.push_back(withThreads ? static_cast<Value *>(f->getArg(1)) : b_.getInt32(0));
    b_.CreateCall(body, args);
    b_.CreateRetVoid();
  }
}

} // namespace

std::string symbolName(const ir::Kernel &kernel) {
  std::string s;
  // A C identifier cannot start with a digit.
  if (kernel.name.empty() || std::isdigit(static_cast<unsigned char>(kernel.name[0])))
    s.push_back('_');
  for (char ch : kernel.name)
    s.push_back(std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_');
  return s;
}

llvm::Error checkSymbols(const std::vector<KernelCode> &kernels) {
  // What generated code calls (and what LLVM may call for it).
  static const std::set<std::string> library = {"getenv",
                                                "atoi",
                                                "aligned_alloc",
                                                "malloc",
                                                "free",
                                                "memset",
                                                "memcpy",
                                                "memmove",
                                                "GOMP_parallel",
                                                "omp_get_thread_num",
                                                "omp_get_num_threads",
                                                "exp",
                                                "expf",
                                                "log",
                                                "logf",
                                                "sqrt",
                                                "sqrtf",
                                                "tanh",
                                                "tanhf",
                                                "fabs",
                                                "fabsf",
                                                "erf",
                                                "erff",
                                                "pow",
                                                "powf",
                                                "sin",
                                                "sinf",
                                                "cos",
                                                "cosf",
                                                "exp2",
                                                "exp2f",
                                                "log2",
                                                "log2f",
                                                "floor",
                                                "floorf",
                                                "roundeven",
                                                "roundevenf",
                                                "main"};
  static const std::set<std::string> keywords = {
      "auto",    "break",  "case",     "char",   "const",    "continue", "default",
      "do",      "double", "else",     "enum",   "extern",   "float",    "for",
      "goto",    "if",     "inline",   "int",    "long",     "register", "restrict",
      "return",  "short",  "signed",   "sizeof", "static",   "struct",   "switch",
      "typedef", "union",  "unsigned", "void",   "volatile", "while"};
  std::map<std::string, std::string> taken; // symbol -> the instance it belongs to
  for (const KernelCode &kc : kernels) {
    std::string name = symbolName(*kc.kernel);
    if (library.count(name) || keywords.count(name))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "instance '%s' would be the C symbol '%s', which is %s; rename the instance",
          kc.kernel->name.c_str(), name.c_str(),
          keywords.count(name) ? "a C keyword" : "a C library function the generated code calls");
    for (const std::string &symbol : {name, name + "__args", name + "__args_threads"}) {
      auto [it, fresh] = taken.emplace(symbol, kc.kernel->name);
      if (!fresh)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "instances '%s' and '%s' would both define the C symbol "
                                       "'%s'; rename one",
                                       it->second.c_str(), kc.kernel->name.c_str(), symbol.c_str());
    }
  }
  return llvm::Error::success();
}

std::unique_ptr<llvm::Module> generateModule(llvm::LLVMContext &context, const hw::Target &target,
                                             const std::vector<KernelCode> &kernels) {
  auto module = std::make_unique<llvm::Module>("isamap", context);
  if (!target.triple.empty())
    module->setTargetTriple(target.triple);
  for (const KernelCode &kc : kernels) {
    Generator g(*module, target, *kc.kernel);
    g.generate(*kc.schedule);
  }
  return module;
}

} // namespace isam::backend
