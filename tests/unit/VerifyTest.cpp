// The IR verifiers (ir/Verify.h, mapping/Verify.h, schedule/Verify.h): what sema, the mapper
// and the scheduler produce verifies clean, and each invariant, broken by hand in an otherwise
// good value, is named by its verifier. The shipped samples verify clean through every stage
// in SampleStages (every instance on every target in hwdesc/).
#include "ir/Verify.h"
#include "mapping/Verify.h"
#include "schedule/Verify.h"
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

using namespace isam;
namespace fs = std::filesystem;

namespace {

std::string render(Session &s) {
  std::string out;
  for (const auto &d : s.diagnostics().all())
    out += renderDiagnostic(d, s.sources()) + "\n";
  return out.empty() ? "(no diagnostics)" : out;
}

std::string messages(const std::vector<Diagnostic> &ds) {
  std::string out;
  for (const auto &d : ds)
    out += d.code + " " + d.message + "\n";
  return out.empty() ? "(none)" : out;
}

// Whether some diagnostic has `code`, says "internal" and contains `phrase`.
::testing::AssertionResult names(const std::vector<Diagnostic> &ds, const std::string &code,
                                 const std::string &phrase) {
  for (const auto &d : ds)
    if (d.code == code && d.message.find("internal: ") == 0 &&
        d.message.find(phrase) != std::string::npos)
      return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "no " << code << " naming \"" << phrase << "\" in:\n"
                                       << messages(ds);
}

// A register file under one memory, a broadcast FMA, an add and a copy.
const char *kVec = "target vec { memory M { size 1 MiB; bandwidth 16 B/cycle; }\n"
                   "  registers R : M { count 8; width 16 B; }\n"
                   "  move ld(d: out f32[4] in R, s: f32[4] in M) { d[i] = s[i]; }\n"
                   "  move st(d: out f32[4] in M, s: f32[4] in R) { d[i] = s[i]; }\n"
                   "  move bc(d: out f32[4] in R, s: f32 in M) { d[i] = s; }\n"
                   "  instr fma4(acc: inout f32[4] in R, a: f32[4] in R, b: f32 in R) "
                   "{ acc[i] += a[i] * b; }\n"
                   "  instr add4(d: out f32[4] in R, a: f32[4] in R, b: f32[4] in R) "
                   "{ d[i] = a[i] + b[i]; } }\n";

// Everything one statement goes through: its kernel, target, mappings and schedule.
struct Staged {
  std::unique_ptr<Session> session;
  ir::Kernel kernel;
  hw::Target target;
  std::vector<mapping::StatementMappings> mappings;
  schedule::KernelSchedule schedule;
};

Staged stage(const std::string &text, const std::string &targetName = "vec") {
  Staged st;
  st.session = test::analyse(std::string(kVec) + text);
  auto kernels = st.session->instances({});
  auto target = st.session->target(targetName);
  EXPECT_FALSE(st.session->diagnostics().hasErrors()) << render(*st.session);
  if (kernels.empty() || !target) {
    ADD_FAILURE() << "no instance or no target";
    return st;
  }
  st.kernel = kernels[0];
  st.target = *target;
  st.mappings = st.session->mappings(st.kernel, st.target);
  schedule::ScheduleOptions o;
  o.budget.candidates = 300;
  o.budget.milliseconds = 1e9;
  st.schedule = st.session->schedule(st.kernel, st.target, o, {}, &st.mappings);
  EXPECT_FALSE(st.session->diagnostics().hasErrors()) << render(*st.session);
  return st;
}

const char *kGemm = "kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                    "  C[m, n] += A[m, k] * B[k, n];\n}\ninstance g = gemm<64, 64, 8>;\n";
const char *kTwice = "kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n"
                     "  B[i] = A[i] * 2.0;\n  B[i] = B[i] + A[i];\n}\ninstance k1 = k<16>;\n";

int instructionIndex(const hw::Target &t, const std::string &name) {
  for (size_t i = 0; i < t.instructions.size(); ++i)
    if (t.instructions[i].name == name)
      return int(i);
  ADD_FAILURE() << "no instruction " << name;
  return -1;
}

Staged &gemm() {
  static Staged g = stage(kGemm);
  return g;
}

// ---- the compute IR ----------------------------------------------------------------------------

class KernelVerify : public ::testing::Test {
protected:
  ir::Kernel k = gemm().kernel;
  ir::Statement &s = k.statements[0];
  ir::Expr &product = s.rhs; // A[m, k] * B[k, n]
  std::vector<Diagnostic> verify() { return ir::verify(k); }
};

TEST_F(KernelVerify, WhatSemaBuildsIsClean) {
  ASSERT_EQ(product.kind, ir::Expr::Kind::Mul);
  EXPECT_TRUE(verify().empty()) << messages(verify());
  Staged twice = stage(kTwice);
  EXPECT_TRUE(ir::verify(twice.kernel).empty()) << messages(ir::verify(twice.kernel));
  for (const auto &in : gemm().target.instructions)
    EXPECT_TRUE(ir::verify(in.semantics).empty()) << in.name;
}

TEST_F(KernelVerify, TensorNamedTwice) {
  k.tensors[1].name = "A";
  EXPECT_TRUE(names(verify(), "E0901", "tensor 'A' declared twice"));
}

TEST_F(KernelVerify, ShapeAndFreeSizesDisagree) {
  k.tensors[0].shapeParams = {"", "", ""};
  EXPECT_TRUE(names(verify(), "E0901", "has 2 dimensions but 3 free-size entries"));
}

TEST_F(KernelVerify, DimensionNotPositive) {
  k.tensors[0].shape[1] = 0;
  EXPECT_TRUE(names(verify(), "E0901", "dimension 2 of 'A' has size 0"));
}

TEST_F(KernelVerify, IndexNamedTwice) {
  s.indices[1].name = "m";
  EXPECT_TRUE(names(verify(), "E0901", "index 'm' appears twice"));
}

TEST_F(KernelVerify, IndexExtentNotPositive) {
  s.indices[2].extent = 0;
  EXPECT_TRUE(names(verify(), "E0901", "index 'k' has extent 0"));
}

TEST_F(KernelVerify, WriteIndexMarkedAsReduction) {
  s.indices[0].reduction = true;
  EXPECT_TRUE(names(verify(), "E0901", "'m' is in the written access but marked as a reduction"));
}

TEST_F(KernelVerify, ReductionIndexNotMarked) {
  s.indices[2].reduction = false;
  EXPECT_TRUE(
      names(verify(), "E0901", "'k' is absent from the written access but not marked as a red"));
}

TEST_F(KernelVerify, ReductionIndicesWithoutOperator) {
  s.reduce = ir::ReduceOp::None;
  EXPECT_TRUE(names(verify(), "E0901", "reduction indices but no reduction operator"));
}

TEST_F(KernelVerify, WrittenDimensionsNotOneIndexEach) {
  std::swap(s.lhs.indices[0], s.lhs.indices[1]); // C[n, m]: in bounds (M = N), but transposed
  EXPECT_TRUE(names(verify(), "E0901", "dimension 1 of the written 'C' is not indexed by write"));
}

TEST_F(KernelVerify, WritesAnInput) {
  k.tensors[2].role = ir::TensorRole::Input;
  EXPECT_TRUE(names(verify(), "E0901", "writes the input 'C'"));
}

TEST_F(KernelVerify, AccessToNoTensor) {
  s.lhs.tensor = 7;
  EXPECT_TRUE(names(verify(), "E0901", "names tensor #7 of 3"));
}

TEST_F(KernelVerify, AccessOfTheWrongRank) {
  product.args[0].access.indices.pop_back();
  EXPECT_TRUE(names(verify(), "E0901", "indexes 'A' with 1 indices but it has 2 dimensions"));
}

TEST_F(KernelVerify, IndexPositionOutOfRange) {
  product.args[0].access.indices[0].terms[0].first = 9;
  EXPECT_TRUE(names(verify(), "E0901", "uses index position 9 of 3"));
}

TEST_F(KernelVerify, AccessOutOfBounds) {
  product.args[0].access.indices[0].constant = 1; // A[m + 1, k]
  EXPECT_TRUE(names(verify(), "E0901", "dimension 1 of 'A' (a read) reaches 1..65"));
}

TEST_F(KernelVerify, ExpressionOfTheWrongArity) {
  product.args.pop_back();
  EXPECT_TRUE(names(verify(), "E0901", "has 1 operands instead of 2"));
}

TEST_F(KernelVerify, ReadTypedUnlikeItsTensor) {
  product.args[0].type = ir::ElemType::F16;
  EXPECT_TRUE(names(verify(), "E0901", "a read of 'A' is typed f16 but the tensor is f32"));
}

TEST_F(KernelVerify, OperandTypedUnlikeItsOperation) {
  product.type = ir::ElemType::F64;
  EXPECT_TRUE(names(verify(), "E0901", "an operand typed f32 under a f64 operation"));
}

TEST_F(KernelVerify, RightHandSideTypedUnlikeTheWrite) {
  product.type = ir::ElemType::F64;
  EXPECT_TRUE(names(verify(), "E0901", "the right-hand side is f64 but the written 'C' is f32"));
}

TEST_F(KernelVerify, ReductionReadsWhatItWrites) {
  ir::Expr self;
  self.kind = ir::Expr::Kind::Read;
  self.access = s.lhs;
  ir::Expr mul;
  mul.kind = ir::Expr::Kind::Mul;
  mul.args = {product, self};
  s.rhs = mul;
  EXPECT_TRUE(names(verify(), "E0901", "the reduction reads 'C', which it writes"));
}

TEST(KernelVerifySelfRead, StatementReadsItsResultAtAnotherPoint) {
  ir::Kernel k = stage(kTwice).kernel;
  ir::Expr &self = k.statements[1].rhs.args[0]; // B[i] in B[i] = B[i] + A[i]
  ASSERT_EQ(self.access.tensor, k.statements[1].lhs.tensor);
  self.access.indices[0].terms.clear(); // B[0]: in bounds, another point
  EXPECT_TRUE(names(ir::verify(k), "E0901", "reads 'B' at another point than it writes"));
}

// Instruction semantics: a dimension of free size R is indexed by an index over R, alone.
TEST(KernelVerifyFreeSizes, FreeDimensionIndexedByAnotherIndex) {
  auto s = test::analyse("");
  auto t = s->target("systolic16");
  ASSERT_TRUE(t);
  const hw::Instruction *mvin = t->instruction("mvin");
  ASSERT_NE(mvin, nullptr);
  ir::Kernel sem = mvin->semantics; // dst[i, j] = src[i, j], dst: f32[R, 16]
  EXPECT_TRUE(ir::verify(sem).empty()) << messages(ir::verify(sem));
  ASSERT_EQ(sem.tensors[0].shapeParams[0], "R");
  std::swap(sem.statements[0].lhs.indices[0], sem.statements[0].lhs.indices[1]);
  EXPECT_TRUE(
      names(ir::verify(sem), "E0901", "has the free size R but is not indexed by an index"));
  EXPECT_TRUE(names(ir::verify(sem), "E0901", "has a fixed size but is indexed by 'i'"));
}

TEST(KernelVerifyFreeSizes, FreeDimensionWithASize) {
  auto s = test::analyse("");
  auto t = s->target("systolic16");
  ASSERT_TRUE(t);
  ir::Kernel sem = t->instruction("mvin")->semantics;
  sem.tensors[0].shape[0] = 4;
  EXPECT_TRUE(names(ir::verify(sem), "E0901", "has size 4 but is the free size R"));
  sem = t->instruction("mvin")->semantics;
  sem.statements[0].indices[0].extent = 4;
  EXPECT_TRUE(names(ir::verify(sem), "E0901", "has extent 4 but ranges over the free size R"));
}

// ---- mappings
// ------------------------------------------------------------------------------------

class CandidateVerify : public ::testing::Test {
protected:
  const Staged &g = gemm();
  mapping::StatementMappings m = g.mappings[0];
  // fma4 with i on n, m and k looped: acc = C[m, n], a = B[k, n], b = A[m, k].
  mapping::Candidate c = [&] {
    for (const auto &x : m.candidates)
      if (x.instruction == instructionIndex(g.target, "fma4") && !x.degenerate && !x.partial)
        return x;
    ADD_FAILURE() << "no fma4 candidate";
    return mapping::Candidate{};
  }();
  ir::Kernel k = g.kernel;
  std::vector<Diagnostic> verify() { return mapping::verify(c, k, 0, g.target); }
};

TEST_F(CandidateVerify, WhatTheMapperFindsIsClean) {
  EXPECT_TRUE(verify().empty()) << messages(verify());
  EXPECT_TRUE(mapping::verify(m, k, g.target).empty()) << messages(mapping::verify(m, k, g.target));
}

TEST_F(CandidateVerify, StatementOutOfRange) {
  EXPECT_TRUE(names(mapping::verify(c, k, 3, g.target), "E0902", "for statement s3 of 1"));
}

TEST_F(CandidateVerify, UnknownInstruction) {
  c.instruction = 99;
  EXPECT_TRUE(names(verify(), "E0902", "instruction #99 of 5"));
}

TEST_F(CandidateVerify, MoveFlagWrong) {
  c.isMove = true;
  EXPECT_TRUE(names(verify(), "E0902", "'fma4' is not a move but the candidate says otherwise"));
}

TEST_F(CandidateVerify, EstimateOutOfRange) {
  c.utilization = 1.5;
  EXPECT_TRUE(names(verify(), "E0902", "estimates out of range"));
}

TEST_F(CandidateVerify, BindingMissing) {
  c.bindings.pop_back();
  EXPECT_TRUE(names(verify(), "E0902", "0 index bindings for the instruction's 1 indices"));
}

TEST_F(CandidateVerify, BindingNamesAnotherIndex) {
  c.bindings[0].instrIndex = "j";
  EXPECT_TRUE(names(verify(), "E0902", "binding #0 names instruction index 'j'"));
}

TEST_F(CandidateVerify, BindingExtentWrong) {
  c.bindings[0].instrExtent = 8;
  EXPECT_TRUE(names(verify(), "E0902", "has extent 8 '' but the instruction's is 4 ''"));
}

TEST_F(CandidateVerify, BoundToNoStatementIndex) {
  c.bindings[0].stmtIndices = {9};
  EXPECT_TRUE(names(verify(), "E0902", "is bound to statement index #9 of 3"));
}

TEST_F(CandidateVerify, RecordedExtentWrong) {
  c.bindings[0].stmtExtent = 32;
  EXPECT_TRUE(names(verify(), "E0902", "records extent 32 but its statement indices span 64"));
}

TEST_F(CandidateVerify, ReductionBoundToAWriteIndex) {
  c.bindings[0].stmtIndices = {2}; // i onto k
  EXPECT_TRUE(names(verify(), "E0902", "does not reduce but is bound to statement index 'k'"));
}

TEST_F(CandidateVerify, StatementIndexLoopedTwice) {
  c.loops.push_back(c.loops.front());
  EXPECT_TRUE(names(verify(), "E0902", "is bound or looped 2 times instead of once"));
}

TEST_F(CandidateVerify, StatementIndexNeitherBoundNorLooped) {
  c.loops.pop_back();
  EXPECT_TRUE(names(verify(), "E0902", "is bound or looped 0 times instead of once"));
}

TEST_F(CandidateVerify, RemainderWhereTheExtentDivides) {
  c.bindings[0].remainder = mapping::Remainder::Mask;
  EXPECT_TRUE(names(verify(), "E0902", "covers 64 in steps of 4 but its remainder is mask"));
}

TEST_F(CandidateVerify, ExactWhereTheExtentDoesNotDivide) {
  c.bindings[0].stmtExtent = 62;
  k.tensors[1].shape[1] = 62; // B and C with N = 62
  k.tensors[2].shape[1] = 62;
  k.statements[0].indices[1].extent = 62;
  EXPECT_TRUE(names(verify(), "E0902", "covers 62 in steps of 4 but its remainder is exact"));
}

TEST_F(CandidateVerify, DegenerateFlagWrong) {
  c.degenerate = true;
  EXPECT_TRUE(names(verify(), "E0902", "marked degenerate, but an instruction index wider"));
}

TEST_F(CandidateVerify, OperandMissing) {
  c.operands.pop_back();
  EXPECT_TRUE(names(verify(), "E0902", "2 operand bindings for the instruction's 3 operands"));
}

TEST_F(CandidateVerify, OperandOfAnotherRole) {
  c.operands[0].role = ir::TensorRole::Output;
  EXPECT_TRUE(names(verify(), "E0902", "binding #0 is operand 'acc' (output)"));
}

TEST_F(CandidateVerify, MoveThatIsNoMove) {
  int fma4 = instructionIndex(g.target, "fma4");
  c.operands[1].moves.push_back({mapping::MoveStep::Kind::Move, fma4, 0, 1});
  EXPECT_TRUE(
      names(verify(), "E0902",
            "is brought by instruction #" + std::to_string(fma4) + ", which is not a move"));
}

TEST_F(CandidateVerify, MoveBetweenNoMemories) {
  int ld = instructionIndex(g.target, "ld");
  c.operands[1].moves.push_back({mapping::MoveStep::Kind::Move, ld, 0, 0});
  EXPECT_TRUE(names(verify(), "E0902", "is brought by ld from memory #0 to #0"));
}

TEST_F(CandidateVerify, UndescribedMoveOutOfNoMemory) {
  c.operands[1].moves.push_back({mapping::MoveStep::Kind::Undescribed, -1, 7, -1});
  EXPECT_TRUE(names(verify(), "E0902", "has an undescribed move out of memory #7"));
}

TEST_F(CandidateVerify, OperandBoundToNoTensor) {
  c.operands[1].tensor = 5;
  EXPECT_TRUE(names(verify(), "E0902", "is bound to tensor #5 of 3"));
}

TEST_F(CandidateVerify, OperandBoundToAnAccessTheStatementDoesNotMake) {
  c.operands[1].access.indices[0].constant = 1;
  EXPECT_TRUE(names(verify(), "E0902", "by an access the statement does not make"));
}

TEST_F(CandidateVerify, OperandOfAnotherElementType) {
  k.tensors[size_t(c.operands[1].tensor)].type = ir::ElemType::F16;
  EXPECT_TRUE(names(verify(), "E0902", "is f32 but is bound to"));
}

// A fused run must be contiguous in every operand: m*n fused onto the add's i is, over [4, 4]
// tensors; over a B of [4, 8] (read at B[m, n]) it is not.
TEST(CandidateVerifyFusion, FusedIndicesNotContiguous) {
  Staged st =
      stage("kernel k<M, N>(A: f32[M, N], B: f32[M, N]) -> (C: f32[M, N]) { C[m, n] = A[m, n] "
            "+ B[m, n]; }\ninstance k1 = k<4, 4>;\n");
  const mapping::Candidate *fused = nullptr;
  for (const auto &c : st.mappings[0].candidates)
    if (c.instruction == instructionIndex(st.target, "add4") &&
        c.bindings[0].stmtIndices.size() == 2)
      fused = &c;
  ASSERT_NE(fused, nullptr) << mapping::printMappings(st.mappings[0], st.kernel, st.target);
  EXPECT_TRUE(mapping::verify(*fused, st.kernel, 0, st.target).empty());
  ir::Kernel wider = st.kernel;
  wider.tensors[1].shape[1] = 8;
  EXPECT_TRUE(names(mapping::verify(*fused, wider, 0, st.target), "E0902",
                    "fuses 'm' and 'n', which are not contiguous in 'B'"));
}

TEST_F(CandidateVerify, MappingsNameAnotherTarget) {
  m.target = "other";
  EXPECT_TRUE(names(mapping::verify(m, k, g.target), "E0902", "on 'other'"));
}

TEST_F(CandidateVerify, RejectionWithoutReason) {
  ASSERT_FALSE(m.rejected.empty());
  m.rejected[0].reason.clear();
  EXPECT_TRUE(names(mapping::verify(m, k, g.target), "E0902", "is rejected without a reason"));
}

TEST_F(CandidateVerify, InstructionBothCandidateAndRejected) {
  m.rejected.push_back({instructionIndex(g.target, "fma4"), "because"});
  EXPECT_TRUE(
      names(mapping::verify(m, k, g.target), "E0902", "'fma4' is both a candidate and rejected"));
}

TEST_F(CandidateVerify, InstructionNeitherCandidateNorRejected) {
  ASSERT_FALSE(m.rejected.empty());
  std::string dropped = g.target.instructions[size_t(m.rejected[0].instruction)].name;
  m.rejected.erase(m.rejected.begin());
  EXPECT_TRUE(names(mapping::verify(m, k, g.target), "E0902",
                    "'" + dropped + "' is neither a candidate nor rejected"));
}

TEST_F(CandidateVerify, FullMappingRankedAfterAPartialOne) {
  ASSERT_GE(m.candidates.size(), 2u);
  m.candidates[0].partial = true;
  EXPECT_TRUE(names(mapping::verify(m, k, g.target), "E0902",
                    "is full and non-degenerate but ranked after one that is not"));
}

TEST_F(CandidateVerify, StatementMappingsVerifyEachCandidate) {
  m.candidates[0].loops.clear();
  EXPECT_TRUE(names(mapping::verify(m, k, g.target), "E0902", "instead of once"));
}

// ---- schedules
// -----------------------------------------------------------------------------------

class ScheduleVerify : public ::testing::Test {
protected:
  const Staged &g = gemm();
  schedule::StatementSchedule ss = g.schedule.statements.at(0);
  schedule::Config &c = ss.config;
  mapping::StatementMappings m = g.mappings[0];
  std::vector<Diagnostic> verify() { return schedule::verify(ss, g.kernel, g.target, m); }
  // The first node of `kind` in the tree (depth first), and its parent.
  std::pair<schedule::Node *, schedule::Node *>
  find(schedule::Node::Kind kind, schedule::Node *n = nullptr, schedule::Node *parent = nullptr) {
    if (!n)
      n = &ss.root;
    if (n->kind == kind)
      return {n, parent};
    for (auto &x : n->body)
      if (auto found = find(kind, &x, n); found.first)
        return found;
    return {nullptr, nullptr};
  }
  int levelOf(const std::string &name) {
    for (size_t l = 0; l < c.levels.size(); ++l)
      if (c.levels[l].name == name)
        return int(l);
    return -1;
  }
};

TEST_F(ScheduleVerify, WhatTheSchedulerBuildsIsClean) {
  ASSERT_GE(c.mapping, 0) << "the GEMM runs on fma4";
  ASSERT_EQ(c.levels.size(), 2u);
  EXPECT_TRUE(verify().empty()) << messages(verify());
  EXPECT_TRUE(schedule::verify(c, g.kernel, g.target, m).empty());
  EXPECT_TRUE(schedule::verify(g.schedule, g.kernel, g.target, g.mappings).empty());
}

TEST_F(ScheduleVerify, StatementOutOfRange) {
  c.statement = 4;
  EXPECT_TRUE(names(verify(), "E0903", "the Config is for statement s4 of 1"));
}

TEST_F(ScheduleVerify, MappingOutOfRange) {
  c.mapping = 999;
  EXPECT_TRUE(names(verify(), "E0903", "mapping #999 of"));
}

TEST_F(ScheduleVerify, InstructionUnlikeTheMapping) {
  c.instruction = instructionIndex(g.target, "add4");
  EXPECT_TRUE(names(verify(), "E0903",
                    "the Config runs instruction #" + std::to_string(c.instruction) +
                        " but its mapping is onto #" +
                        std::to_string(instructionIndex(g.target, "fma4"))));
}

TEST_F(ScheduleVerify, PartialMapping) {
  // The instruction computes only a sub-expression: the rest is work nothing schedules.
  m.candidates[size_t(c.mapping)].partial = true;
  m.candidates[size_t(c.mapping)].subexpression = true;
  EXPECT_TRUE(names(verify(), "E0903", "leaves work unscheduled (partial or degenerate)"));
}

TEST_F(ScheduleVerify, OperandComputedSeparatelyByNoPack) {
  // An operand a sub-expression of several accesses computes: no pack computes it.
  auto &cand = m.candidates[size_t(c.mapping)];
  cand.partial = true;
  cand.operands[1].computedSeparately = true;
  EXPECT_TRUE(names(verify(), "E0903", "leaves work unscheduled"));
  // One its pack computes (an expression of its own access) is schedulable.
  cand.operands[1].computed = ir::Expr();
  EXPECT_TRUE(mapping::schedulable(cand));
}

TEST_F(ScheduleVerify, ComputedOperandNeverPacked) {
  size_t o = 0;
  while (c.operands[o].output)
    ++o;
  ASSERT_FALSE(std::count(c.operands[o].staged.begin(), c.operands[o].staged.end(), true));
  ir::Expr read;
  read.kind = ir::Expr::Kind::Read;
  read.access = c.operands[o].access;
  c.operands[o].computed = read;
  EXPECT_TRUE(names(verify(), "E0903",
                    "is computed but is a result, has no tensor or is never "
                    "staged"));
}

TEST_F(ScheduleVerify, ComputedOperandOfAnotherTypeOrTensor) {
  size_t o = 0;
  while (c.operands[o].output)
    ++o;
  ir::Expr read;
  read.kind = ir::Expr::Kind::Read;
  read.type = ir::ElemType::F64;
  read.access = c.operands[o].access;
  read.access.tensor = c.operands[o].tensor == 0 ? 1 : 0;
  c.operands[o].computed = read;
  c.operands[o].staged[1] = true;
  c.operands[o].staging[1] = {schedule::Staging::Kind::Pack};
  auto d = verify();
  EXPECT_TRUE(names(d, "E0903", "is computed as f64 but the instruction reads f32"));
  EXPECT_TRUE(names(d, "E0903", "is computed from a tensor other than the one it is placed as"));
}

TEST_F(ScheduleVerify, VirtualIndexMissing) {
  c.vindices.pop_back();
  EXPECT_TRUE(names(verify(), "E0903", "2 virtual indices where the mapping gives 3"));
}

TEST_F(ScheduleVerify, VirtualIndexNotTheMappings) {
  c.vindices[0].instrExtent = 8;
  EXPECT_TRUE(names(verify(), "E0903", "is not the mapping's #0"));
}

TEST_F(ScheduleVerify, VirtualIndexExtentWrong) {
  c.vindices[0].extent = 32;
  EXPECT_TRUE(names(verify(), "E0903", "has extent 32 but its statement indices span 64"));
}

TEST_F(ScheduleVerify, LevelOfNoMemory) {
  c.levels[1].memory = 9;
  EXPECT_TRUE(names(verify(), "E0903", "is memory #9"));
}

TEST_F(ScheduleVerify, LevelDescribesAnotherMemory) {
  c.levels[1].registers = false;
  EXPECT_TRUE(names(verify(), "E0903", "level R does not describe memory R"));
}

TEST_F(ScheduleVerify, MemoryTwoLevels) {
  c.levels[1] = c.levels[0];
  EXPECT_TRUE(names(verify(), "E0903", "memory M is two levels"));
}

TEST_F(ScheduleVerify, LevelsOutOfOrder) {
  std::swap(c.levels[0], c.levels[1]);
  EXPECT_TRUE(names(verify(), "E0903", "is out of order"));
}

TEST_F(ScheduleVerify, TilesForTooFewLevels) {
  c.tiles.pop_back();
  EXPECT_TRUE(names(verify(), "E0903", "tiles for 1 and orders for 2 of 2 levels"));
}

TEST_F(ScheduleVerify, LevelZeroHoldsPart) {
  c.tiles[0][0] = 32;
  EXPECT_TRUE(names(verify(), "E0903", "level 0 holds 32 of"));
}

TEST_F(ScheduleVerify, TileLargerThanTheEnclosingOne) {
  c.tiles[1][0] = 128;
  EXPECT_TRUE(names(verify(), "E0903", "is not within the enclosing tile"));
}

TEST_F(ScheduleVerify, TileNotWholeCalls) {
  ASSERT_EQ(c.vindices[0].instrExtent, 4);
  c.tiles[1][0] = 6;
  EXPECT_TRUE(names(verify(), "E0903", "is not a whole number of calls of 4"));
}

TEST_F(ScheduleVerify, OrderNotAPermutation) {
  c.order[1][0] = c.order[1][1];
  EXPECT_TRUE(names(verify(), "E0903", "the loop order at R is not a permutation"));
}

TEST_F(ScheduleVerify, ParallelReduction) {
  for (size_t v = 0; v < c.vindices.size(); ++v)
    if (c.vindices[v].reduction)
      c.parallel = int(v);
  EXPECT_TRUE(names(verify(), "E0903", "is not a write index"));
}

TEST_F(ScheduleVerify, OperandOffItsPath) {
  c.operands[0].path = {1};
  EXPECT_TRUE(names(verify(), "E0903", "operand 'acc' does not go from a root memory inward to R"));
}

TEST_F(ScheduleVerify, OperandStagedAtItsHome) {
  c.operands[0].staged[0] = true;
  c.operands[0].staging[0] = {schedule::Staging::Kind::Move, instructionIndex(g.target, "ld")};
  EXPECT_TRUE(names(verify(), "E0903", "is staged at M, off its path or at its home"));
}

TEST_F(ScheduleVerify, StagedByNothing) {
  ASSERT_TRUE(c.operands[0].staged[1]); // the accumulator, in registers
  c.operands[0].staging[1] = {};
  EXPECT_TRUE(names(verify(), "E0903", "operand 'acc' at R is staged by nothing"));
}

TEST_F(ScheduleVerify, FilledButNotStaged) {
  ASSERT_FALSE(c.operands[0].staged[0]);
  c.operands[0].staging[0] = {schedule::Staging::Kind::Copy};
  EXPECT_TRUE(names(verify(), "E0903", "operand 'acc' at M is filled but not staged"));
}

TEST_F(ScheduleVerify, StagedByAnInstructionThatIsNoMove) {
  int fma4 = instructionIndex(g.target, "fma4");
  c.operands[0].staging[1] = {schedule::Staging::Kind::Move, fma4};
  EXPECT_TRUE(names(verify(), "E0903",
                    "is filled by instruction #" + std::to_string(fma4) + ", which is not a move"));
}

TEST_F(ScheduleVerify, ScalarCodeBoundOnAMappedSchedule) {
  ss.cost.bound = schedule::Bound::ScalarCode;
  EXPECT_TRUE(names(verify(), "E0903", "the cost's bound does not fit a mapped schedule"));
}

TEST_F(ScheduleVerify, BandwidthBoundAtNoMemory) {
  ss.cost.bound = schedule::Bound::Bandwidth;
  ss.cost.boundAt = 5;
  EXPECT_TRUE(names(verify(), "E0903", "a bandwidth bound at memory #5"));
}

TEST_F(ScheduleVerify, UnitBandwidthBoundAtNoUnit) {
  ss.cost.bound = schedule::Bound::UnitBandwidth;
  ss.cost.boundAt = 3;
  EXPECT_TRUE(names(verify(), "E0903", "a unit-bandwidth bound at unit #3"));
}

TEST_F(ScheduleVerify, CostInvalid) {
  ss.cost.valid = false;
  ss.cost.invalidReason = "too big";
  EXPECT_TRUE(names(verify(), "E0903", "the chosen schedule's cost is invalid: too big"));
}

TEST_F(ScheduleVerify, RegistersOverflowTheFileAsTheModelClaims) {
  bool found = false;
  for (auto &lc : ss.cost.levels)
    if (lc.memory == g.target.memoryIndex("R"))
      lc.footprintBytes = 9 * 16, found = true;
  ASSERT_TRUE(found);
  EXPECT_TRUE(names(verify(), "E0903", "accepts a working set of 144.000000 B at R, which holds"));
}

TEST_F(ScheduleVerify, BufferOfNoOperand) {
  ASSERT_FALSE(ss.buffers.empty());
  ss.buffers[0].operand = 7;
  EXPECT_TRUE(names(verify(), "E0903", "is of operand #7"));
}

TEST_F(ScheduleVerify, BufferOfAnUnstagedTile) {
  ASSERT_FALSE(ss.buffers.empty());
  ss.buffers.push_back(ss.buffers[0]);
  EXPECT_TRUE(names(verify(), "E0903", "is not one staged operand tile of its level"));
}

TEST_F(ScheduleVerify, StagedOperandWithoutBuffer) {
  ASSERT_FALSE(ss.buffers.empty());
  ss.buffers.clear();
  EXPECT_TRUE(names(verify(), "E0903", "but has no buffer there"));
}

TEST_F(ScheduleVerify, RootNotABlock) {
  ss.root.kind = schedule::Node::Kind::Loop;
  EXPECT_TRUE(names(verify(), "E0903", "root is not a Block"));
}

TEST_F(ScheduleVerify, InitInsideTheNest) {
  auto [call, parent] = find(schedule::Node::Kind::Call);
  ASSERT_TRUE(call);
  schedule::Node init;
  init.kind = schedule::Node::Kind::Init;
  parent->body.insert(parent->body.begin(), init);
  EXPECT_TRUE(names(verify(), "E0903", "an Init node inside the loop nest"));
}

TEST_F(ScheduleVerify, ReductionWithoutInit) {
  ASSERT_EQ(ss.root.body.at(0).kind, schedule::Node::Kind::Init);
  ss.root.body.erase(ss.root.body.begin());
  EXPECT_TRUE(names(verify(), "E0903", "does not start from the reduction's identity (no Init)"));
}

TEST_F(ScheduleVerify, InitOfAnotherReduction) {
  ASSERT_EQ(ss.root.body.at(0).kind, schedule::Node::Kind::Init);
  ss.root.body[0].init = ir::ReduceOp::Max;
  EXPECT_TRUE(
      names(verify(), "E0903", "the Init sets the identity of max= but the reduction is +="));
}

TEST_F(ScheduleVerify, InitWhereTheStatementAccumulates) {
  ir::Kernel accumulating = g.kernel;
  accumulating.statements[0].accumulates = true;
  EXPECT_TRUE(names(schedule::verify(ss, accumulating, g.target, m), "E0903",
                    "an Init node where the statement accumulates"));
}

TEST_F(ScheduleVerify, LoopOverNoIndex) {
  auto [loop, parent] = find(schedule::Node::Kind::Loop);
  ASSERT_TRUE(loop);
  loop->v = 7;
  EXPECT_TRUE(names(verify(), "E0903", "a loop over virtual index #7"));
}

TEST_F(ScheduleVerify, OuterLevelLoopInsideAnInnerOne) {
  auto [call, parent] = find(schedule::Node::Kind::Call);
  ASSERT_TRUE(call);
  schedule::Node loop;
  loop.kind = schedule::Node::Kind::Loop;
  loop.v = c.order[0][0];
  loop.level = 0;
  loop.step = 1;
  loop.body.push_back(*call);
  *call = loop;
  EXPECT_TRUE(names(verify(), "E0903", "a loop at level #0 inside one at level #1"));
}

TEST_F(ScheduleVerify, ParallelLoopNotTheConfigs) {
  auto [loop, parent] = find(schedule::Node::Kind::Loop);
  ASSERT_TRUE(loop);
  loop->parallel = true;
  c.parallel = -1;
  EXPECT_TRUE(names(verify(), "E0903", "that is not the Config's parallel loop at level 0"));
}

TEST_F(ScheduleVerify, PrefetchOfAResultOrAStagedOperand) {
  auto [loop, parent] = find(schedule::Node::Kind::Loop);
  ASSERT_TRUE(loop);
  for (size_t o = 0; o < c.operands.size(); ++o)
    if (c.operands[o].output || std::find(c.operands[o].staged.begin(), c.operands[o].staged.end(),
                                          true) != c.operands[o].staged.end())
      loop->prefetches.push_back({int(o), 8, {0}});
  ASSERT_FALSE(loop->prefetches.empty());
  EXPECT_TRUE(names(verify(), "E0903", "which is not an input read in place"));
  loop->prefetches = {{17, 8, {0}}};
  EXPECT_TRUE(names(verify(), "E0903", "prefetches operand #17"));
}

TEST_F(ScheduleVerify, TilePrefetchOfABufferNotAResultsRegisterTile) {
  auto [stage, parent] = find(schedule::Node::Kind::Stage);
  ASSERT_TRUE(stage);
  stage->prefetchTile = true;
  const schedule::Buffer &b = ss.buffers.at(size_t(stage->buffer));
  if (c.operands[size_t(b.operand)].output && c.levels[size_t(b.level)].registers) {
    EXPECT_TRUE(verify().empty()) << messages(verify());
    c.levels[size_t(b.level)].registers = false;
  }
  EXPECT_TRUE(names(verify(), "E0903", "prefetches its tile's lines but is not a result's"));
}

TEST_F(ScheduleVerify, StageOfNoBuffer) {
  auto [stage, parent] = find(schedule::Node::Kind::Stage);
  ASSERT_TRUE(stage);
  stage->buffer = 9;
  EXPECT_TRUE(names(verify(), "E0903", "a stage of buffer #9"));
}

TEST_F(ScheduleVerify, BufferNeverStaged) {
  auto [stage, parent] = find(schedule::Node::Kind::Stage);
  ASSERT_TRUE(stage);
  schedule::Node inner = stage->body.at(0);
  *stage = inner;
  EXPECT_TRUE(names(verify(), "E0903", "times (once expected)"));
  EXPECT_TRUE(names(verify(), "E0903", "staged buffers"));
}

TEST_F(ScheduleVerify, StageInsideALoopOfItsOwnLevel) {
  auto [call, parent] = find(schedule::Node::Kind::Call);
  auto [stage, stageParent] = find(schedule::Node::Kind::Stage);
  ASSERT_TRUE(call && stage);
  int buffer = stage->buffer;
  schedule::Node inner = stage->body.at(0);
  *stage = inner; // unstaged here ...
  std::tie(call, parent) = find(schedule::Node::Kind::Call);
  schedule::Node restaged;
  restaged.kind = schedule::Node::Kind::Stage;
  restaged.buffer = buffer;
  restaged.body.push_back(*call);
  *call = restaged; // ... and staged around the call, inside the register-level loops
  EXPECT_TRUE(names(verify(), "E0903", "is staged inside a loop of its own level"));
}

TEST_F(ScheduleVerify, BufferSmallerThanTheFootprint) {
  ASSERT_FALSE(ss.buffers.empty());
  ss.buffers[0].shape.back() = 1;
  EXPECT_TRUE(names(verify(), "E0903", "is smaller than the operand's footprint over its box"));
}

TEST_F(ScheduleVerify, CallCoversMoreThanOneInstruction) {
  // Drop every loop of the innermost level: the call then covers a whole register tile.
  std::function<void(schedule::Node &)> drop = [&](schedule::Node &n) {
    for (auto &x : n.body) {
      while (x.kind == schedule::Node::Kind::Loop && x.level == int(c.levels.size()) - 1) {
        schedule::Node inner = x.body.at(0);
        x = inner;
      }
      drop(x);
    }
  };
  drop(ss.root);
  EXPECT_TRUE(names(verify(), "E0903", "but one call covers"));
}

TEST_F(ScheduleVerify, TwoCalls) {
  auto [call, parent] = find(schedule::Node::Kind::Call);
  ASSERT_TRUE(call);
  parent->body.push_back(*call);
  EXPECT_TRUE(names(verify(), "E0903", "2 Call and 0 Scalar nodes in a mapped schedule"));
}

TEST_F(ScheduleVerify, CallInScalarCode) {
  Staged st = stage("kernel e<N>(X: f32[N]) -> (Y: f32[N]) { Y[i] = exp(X[i]); }\n"
                    "instance e1 = e<8>;\n");
  schedule::StatementSchedule scalar = st.schedule.statements.at(0);
  ASSERT_EQ(scalar.config.mapping, -1);
  EXPECT_TRUE(schedule::verify(scalar, st.kernel, st.target, st.mappings[0]).empty());
  schedule::Node call;
  call.kind = schedule::Node::Kind::Call;
  scalar.root.body.push_back(call);
  EXPECT_TRUE(names(schedule::verify(scalar, st.kernel, st.target, st.mappings[0]), "E0903",
                    "a Call in scalar code"));
}

TEST_F(ScheduleVerify, ScalarCodeWithOperands) {
  c.mapping = -1;
  EXPECT_TRUE(names(verify(), "E0903", "scalar code with operand placements"));
}

// A kernel that is itself broken (ir::verify's to report) is not followed into a division by a
// zero extent.
TEST_F(ScheduleVerify, StatementIndexOfNoExtent) {
  ir::Kernel broken = g.kernel;
  broken.statements[0].indices[size_t(c.vindices[0].stmtIndices[0])].extent = 0;
  EXPECT_TRUE(names(schedule::verify(ss, broken, g.target, m), "E0903",
                    "which is not one of positive extent"));
}

TEST_F(ScheduleVerify, KernelScheduleOfTheWrongSize) {
  schedule::KernelSchedule ks = g.schedule;
  ks.statements.push_back(ks.statements[0]);
  EXPECT_TRUE(names(schedule::verify(ks, g.kernel, g.target, g.mappings), "E0903",
                    "2 statement schedules and 1 mappings for 1 statements"));
}

TEST_F(ScheduleVerify, KernelScheduleOutOfOrder) {
  schedule::KernelSchedule ks = g.schedule;
  ks.statements[0].config.statement = 1;
  EXPECT_TRUE(names(schedule::verify(ks, g.kernel, g.target, g.mappings), "E0903",
                    "s0 holds the schedule of s1"));
}

// ---- the driver's hook
// ---------------------------------------------------------------------------

// The tests run in a build with the verifiers on (scripts/build.sh), so that every Session in
// every test (and every CLI and language-server test) verifies each stage it runs.
TEST(VerifyHook, IsOnInTheTestBuild) {
  EXPECT_EQ(ISAMAP_ENABLE_ASSERTIONS, 1)
      << "configure with -DISAMAP_ENABLE_ASSERTIONS=ON (scripts/build.sh does)";
}

// ---- every sample through every stage --------------------------------------------------------

std::vector<std::string> shippedTargets() {
  std::vector<std::string> out;
  for (const auto &e : fs::directory_iterator(test::sourceDir() + "/hwdesc"))
    if (e.path().extension() == ".isam")
      out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> sampleFiles() {
  std::vector<std::string> out;
  for (const auto &e : fs::directory_iterator(test::sourceDir() + "/samples"))
    if (e.path().extension() == ".isam")
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

class SampleStages : public ::testing::TestWithParam<std::string> {};

// Every instance, on every target of hwdesc/ (a system's units through their own files): the
// kernel, every instruction's semantics, the mappings and a schedule verify clean, called here
// directly as well as by the session's hook.
TEST_P(SampleStages, EveryInstanceOnEveryTargetVerifiesClean) {
  auto s = std::make_unique<Session>();
  ASSERT_TRUE(s->loadFile(test::samplePath(GetParam())));
  auto kernels = s->instances({});
  ASSERT_FALSE(kernels.empty());
  size_t targets = 0;
  for (const auto &name : shippedTargets()) {
    if (s->isSystem(name))
      continue;
    auto t = s->target(name);
    ASSERT_TRUE(t) << name << "\n" << render(*s);
    ++targets;
    for (const auto &in : t->instructions)
      EXPECT_TRUE(ir::verify(in.semantics).empty()) << messages(ir::verify(in.semantics));
    for (const auto &k : kernels) {
      SCOPED_TRACE(k.name + " on " + name);
      EXPECT_TRUE(ir::verify(k).empty()) << messages(ir::verify(k));
      auto maps = s->mappings(k, *t);
      for (const auto &m : maps)
        EXPECT_TRUE(mapping::verify(m, k, *t).empty()) << messages(mapping::verify(m, k, *t));
      // A small search: the verifiers check structure, not quality.
      schedule::ScheduleOptions o;
      o.budget.candidates = 1000;
      o.budget.milliseconds = 1e9;
      auto ks = s->schedule(k, *t, o, {}, &maps);
      EXPECT_TRUE(schedule::verify(ks, k, *t, maps).empty())
          << messages(schedule::verify(ks, k, *t, maps));
    }
  }
  EXPECT_GE(targets, 5u);
  EXPECT_FALSE(s->diagnostics().hasErrors()) << render(*s);
}

INSTANTIATE_TEST_SUITE_P(AllSamples, SampleStages, ::testing::ValuesIn(sampleFiles()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

} // namespace
