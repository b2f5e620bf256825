// Instruction mapping: every way a statement of the compute IR can be executed by one
// instruction (or move) of a target, found from the instruction's semantics alone.
//
// A mapping unifies the instruction's expression with the statement's (modulo commutativity of
// + and *), binds each instruction operand to a statement access (or to a sub-expression
// computed separately: a partial mapping), and binds each instruction index to one statement
// index, to several adjacent ones fused into one (contiguous in every access), or to none (a
// unit extent: degenerate). Statement indices left unbound become loops around the instruction.
// Instructions that cannot run the statement get a reason a person understands.
//
// Contract: pure functions of their inputs; no target-specific code; enumeration is bounded by
// MapOptions (count and time), and exhaustion is reported, never a hang.
#pragma once

#include "diag/Diagnostic.h"
#include "hw/Hardware.h"
#include "ir/Compute.h"

#include <optional>
#include <string>
#include <vector>

namespace isam::mapping {

enum class Remainder { Exact, Mask, Pad, Tail, Free };
const char *remainderName(Remainder r);

struct IndexBinding {
  std::string instrIndex;
  int64_t instrExtent = 0;      // 0: a free size parameter (any extent)
  std::string instrParam;       // its name, when free
  std::vector<int> stmtIndices; // statement index positions, outermost first; empty: unit
  int64_t stmtExtent = 1;       // product of the bound extents
  Remainder remainder = Remainder::Exact;
};

// One step that brings an operand from its tensor's home to where the instruction needs it (or,
// for a result, back out).
struct MoveStep {
  enum class Kind {
    Pack,        // a copy into the instruction's layout, before the moves
    Move,        // a move of the target, from memory `from` to memory `to`
    Undescribed, // a software-managed `from` that no move of the target empties
  };
  Kind kind = Kind::Move;
  int move = -1;          // Move: index into hw::Target::instructions
  int from = -1, to = -1; // indices into hw::Target::memories (Undescribed: `from` only)
};
// "pack (layout change)", "mvin (DRAM -> SPAD)", "(no move out of ACC is described)".
std::string moveStepText(const MoveStep &step, const hw::Target &target);

struct OperandBinding {
  std::string operand;
  ir::TensorRole role = ir::TensorRole::Input;
  std::string memory;  // where the instruction needs it
  std::string binding; // the statement access (or sub-expression) it stands for
  int tensor = -1;     // statement tensor, when bound to one access (or the written one)
  // That access itself: a tensor read at several offsets (A[l] * A[l + 1]) binds each operand
  // to its own read, so the tensor alone does not say which.
  ir::Access access;
  bool computedSeparately = false; // bound to a sub-expression: a temporary precomputes it
  // A sub-expression every read of which is one access (f32(B[k, n]), exp(A[i]) * A[i]): the
  // expression itself; `tensor` and `access` are that access's, and the operand's pack computes
  // it (as BLAS libraries convert while packing). Unset for other sub-expressions.
  std::optional<ir::Expr> computed;
  // Element strides in the statement tensor along each instruction dimension of the operand.
  std::vector<int64_t> strides;
  bool contiguous = true;      // innermost dimension unit-stride and dimensions in tensor order
  bool needsPack = false;      // a copy into the instruction's layout is needed first
  std::vector<MoveStep> moves; // how it gets from the tensor's home to `memory`
};

struct Candidate {
  int instruction = -1; // index into hw::Target::instructions
  bool isMove = false;
  bool partial = false;
  bool subexpression = false; // the instruction computes only a sub-expression of the statement
  std::string partialNote;    // what is left as separate work
  bool degenerate = false;    // an instruction index left on a unit extent
  bool zeroInit = false;      // the accumulator must be zeroed first
  std::vector<IndexBinding> bindings;
  std::vector<OperandBinding> operands;
  std::vector<int> loops; // statement indices looped around the instruction, in order
  // Lane-reduced: the instruction's lane index (the last one of its accumulating result) runs
  // over a reduction index of the statement, so each result element accumulates a vector of
  // partial results that `finisher` folds across the lanes at the end (acc[m][0..15] +=
  // A[m, k..k+15] * x[k..k+15], then one horizontal sum per m).
  int laneReduced = -1;      // position in `bindings` of the lane index; -1: not lane-reduced
  int finisher = -1;         // the horizontal reduction: index into hw::Target::instructions
  int64_t finisherCount = 0; // its calls: one per result element
  int64_t instructionCount = 0;
  double cycles = 0;      // issue-bound estimate over all cores, plus one latency
  double utilization = 0; // useful points / points the issued instructions compute
};

// Whether the scheduler can run the candidate: not degenerate, the whole statement, and every
// operand a sub-expression computes is one its pack computes (OperandBinding::computed). The
// other partial mappings (the instruction computes a sub-expression; an operand over several
// accesses or none) leave work nothing schedules.
bool schedulable(const Candidate &c);

struct Rejection {
  int instruction = -1; // index into hw::Target::instructions
  std::string reason;
};

struct StatementMappings {
  std::string kernel;
  size_t index = 0;
  std::string text;
  SourceRange range;
  std::string target;
  std::vector<Candidate> candidates; // best first
  std::vector<Rejection> rejected;
  bool budgetExhausted = false;
};

struct MapOptions {
  size_t maxCandidatesPerInstruction = 32;
  double budgetMs = 500; // per statement and target
};

StatementMappings mapStatement(const ir::Kernel &kernel, size_t statement, const hw::Target &target,
                               const MapOptions &options = {});

std::vector<StatementMappings> mapKernel(const ir::Kernel &kernel, const hw::Target &target,
                                         const MapOptions &options = {});

// BYOC-style placement of each statement on a system's units.
struct Transfer {
  std::string tensor;
  std::string from, to; // units
  int64_t bytes = 0;
  bool sharedMemory = false; // both sides see the same memory: no copy, only synchronisation
};

struct Placement {
  size_t statement = 0;
  std::string unit;
  std::string instruction; // empty: scalar code on the host
  double seconds = 0;
  std::vector<std::string> ableUnits; // units with at least one full, non-degenerate mapping
};

struct Partition {
  std::vector<Placement> placements;
  std::vector<Transfer> transfers;
};

Partition partition(const ir::Kernel &kernel, const hw::System &system,
                    const std::vector<hw::Target> &units,
                    const std::vector<std::vector<StatementMappings>> &mappingsPerUnit);

std::string printMappings(const StatementMappings &m, const ir::Kernel &kernel,
                          const hw::Target &target);

// When no instruction runs the statement fully (only partial mappings, or none), an information
// diagnostic (I0301) at the statement saying so, with the instructions' reasons as notes: the
// statement will run as scalar code. Nothing otherwise.
void reportUnmapped(const StatementMappings &m, const hw::Target &target, DiagnosticSink &diags);
std::string printPartition(const Partition &p, const ir::Kernel &kernel);

} // namespace isam::mapping
