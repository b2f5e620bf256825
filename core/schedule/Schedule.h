// The schedule: how one statement's mapping runs on a target, as a decision record (Config)
// and as an explicit program (the schedule IR: loops, staging moves, instruction calls).
//
// Model. A mapping turns the statement's indices into *virtual indices*: each instruction index
// bound to a statement index (or a fused run of them) is one virtual index covered `instrExtent`
// elements per call; each statement index left as a loop is one virtual index covered one at a
// time. The memory *levels* are the memories on the operands' paths, outermost first; level l
// holds a tile of `tiles[l][v]` elements of every virtual index v (level 0 holds everything),
// and the loops at level l step through the level's tile in steps of the next level's tile, in
// `order[l]`. Below the innermost level, each call covers `instrExtent` of every bound index.
// Operand tiles are staged into a level's memory when it is software-managed (a scratchpad,
// the accumulator registers) or when a pack is chosen; caches are not staged.
//
// Contract: a Config produced by the search is valid (tiles nest, working sets fit); its
// lowering covers every point of the statement's domain exactly once; executing the schedule
// IR (schedule/Execute.h) gives the reference interpreter's result within tolerance.
#pragma once

#include "hw/Hardware.h"
#include "ir/Compute.h"
#include "mapping/Mapping.h"

#include <optional>
#include <string>
#include <vector>

namespace isam::schedule {

struct VirtualIndex {
  std::string name;             // the statement index, or the fused ones joined by '*'
  std::vector<int> stmtIndices; // outermost first
  int64_t extent = 1;           // product of the statement extents
  int64_t instrExtent = 1;      // elements covered by one call (1 for loops)
  int instrIndex = -1;          // the instruction index bound to it, or -1 for a loop
  bool reduction = false;
  bool free = false; // bound to a free instruction size parameter
};

struct Level {
  int memory = -1;
  std::string name;
  bool softwareManaged = false;
  bool registers = false;
  uint64_t capacityBytes = 0;
  double bandwidthBytesPerCycle = 0; // delivered into this level by its parent
  uint32_t registerBytes = 0;        // registers: the width of one
  // Registers: the path's bytes per load it issues (its bandwidth over the loads that start per
  // cycle), what an instruction's memory operand takes of it whatever its width.
  double loadSlotBytes = 0;
};

// How an operand's tile is brought into an explicit buffer at one level.
struct Staging {
  enum class Kind {
    None,         // not staged at this level
    Copy,         // a plain copy (no move of the target connects the two levels)
    Pack,         // a copy into the instruction's layout, through a cache level
    Move,         // the target's move `move`
    PackThenCopy, // packed into the instruction's layout, then copied
    PackThenMove, // packed into the instruction's layout, then the target's move `move`
  };
  Kind kind = Kind::None;
  int move = -1; // Move, PackThenMove: index into hw::Target::instructions
};
// As the schedule's text shows it: "", "copy", "pack", "mvin", "pack, then copy",
// "pack, then mvin".
std::string stagingText(const Staging &staging, const hw::Target &target);
// The target's move a staging step runs, or nullptr (none, a copy or a pack).
const hw::Instruction *stagingMove(const Staging &staging, const hw::Target &target);

// Where each instruction operand's tiles live.
struct OperandPlacement {
  int operand = -1;             // instruction tensor
  int tensor = -1;              // statement tensor (-1: unbound operand)
  ir::Access access;            // the statement access it stands for (valid when tensor >= 0)
  bool output = false;          // written by the instruction (out or inout)
  std::vector<int> path;        // levels it passes through, outermost first
  std::vector<bool> staged;     // per level: an explicit buffer at that level
  std::vector<Staging> staging; // per level: what fills it (kind None exactly where not staged)
  bool layoutChange = false;    // the mapping needs it in another layout than the tensor's
  bool scalar = false;          // the instruction operand is one element (broadcast to lanes)
  // Per dimension of the instruction operand: the virtual index it follows (-1: none). Empty
  // when the instruction indexes the operand by more than plain indices.
  std::vector<int> dims;
  std::vector<int64_t> shape; // the instruction operand's (0: a free size)
  // An operand computed from `access` (mapping::OperandBinding::computed, such as
  // f32(B[k, n])): its outermost staged buffer is a pack that evaluates this expression of the
  // access's elements instead of copying them, and every staged buffer holds its type.
  std::optional<ir::Expr> computed;
};

struct Config {
  size_t statement = 0;
  int mapping = -1;     // index into the statement's candidates; -1: scalar code (no mapping)
  int instruction = -1; // the mapping's instruction: index into hw::Target::instructions
  std::vector<VirtualIndex> vindices;
  std::vector<Level> levels;
  std::vector<std::vector<int64_t>> tiles; // [level][v]
  std::vector<std::vector<int>> order;     // [level]: virtual indices, outermost loop first
  int parallel = -1;                       // virtual index of the parallel loop at level 0
  std::vector<OperandPlacement> operands;
  std::vector<bool> doubleBuffered; // per level
  // A lane-reduced mapping's finisher (mapping::Candidate::finisher): the instruction that
  // folds each result element's lane partials into it; -1 for any other mapping.
  int finisher = -1;
};

// What limits a schedule's speed.
enum class Bound {
  None,               // no verdict (an invalid Config)
  Compute,            // the instruction's issue rate
  Latency,            // too few independent accumulators to hide the instruction's latency
  Bandwidth,          // a memory's bandwidth (Cost::boundAt: the memory)
  UnitBandwidth,      // the moves of one unit (Cost::boundAt: the unit, -1: moves on no unit)
  MovesNotOverlapped, // moves that no computation overlaps
  ScalarCode,         // no instruction runs the statement: point-wise code
};

// The cost model's verdict on a Config.
struct Cost {
  bool valid = false;
  std::string invalidReason;
  double cycles = 0;
  // What the search minimises: cycles, then (as a tie-break among equally fast schedules) the
  // data movement, so that a compute-bound schedule still keeps its tiles large.
  double score = 0;
  double computeCycles = 0;
  double utilization = 0; // of the compute peak the target describes
  Bound bound = Bound::None;
  int boundAt = -1; // Bandwidth: index into hw::Target::memories; UnitBandwidth: into units
  struct LevelCost {
    int memory = -1;  // index into hw::Target::memories
    double bytes = 0; // moved into the level
    double cycles = 0;
    double footprintBytes = 0;
    double capacityBytes = 0;
  };
  std::vector<LevelCost> levels;
  int accumulators = 0; // independent accumulating calls per reduction step
  int registersUsed = 0;
  // Per level, the double buffering costed: the Config's, less each scratchpad whose tiles do
  // not fit twice. The search keeps it in the Config it chooses.
  std::vector<bool> doubleBuffered;
  // The measured correction's factor on the model's cycles (Correction.h): cycles and
  // utilization include it (the score does not); 1 when uncorrected.
  double correction = 1;
};

// ---- the schedule IR ----------------------------------------------------------------------

struct Buffer {
  std::string name;
  int operand = -1; // index into Config::operands
  int level = -1;
  std::string memory;
  std::vector<int64_t> shape; // elements per tensor dimension (largest tile)
  bool doubleBuffered = false;
  // A lane-reduced result's register tile: `lanes` partial results per element (lane-minor),
  // starting at the reduction's identity and folded by the Config's finisher into the holder
  // outside when written back; 0 for any other buffer.
  int64_t lanes = 0;
};

// Execution state is a box per virtual index (the current tile: begin and size). Loops narrow
// it; Stage copies the operand's footprint over the box into a buffer, runs its body, and
// writes results back (a lane buffer starts at the identity instead, and is written back
// folded by the finisher); Call runs the instruction once over the box (lanes outside the box are
// masked); Scalar runs the statement point by point over the box; Init sets the written region
// to the reduction's identity before a reduction that does not accumulate.
struct Node {
  enum class Kind { Block, Loop, Stage, Call, Scalar, Init };
  Kind kind = Kind::Block;
  std::vector<Node> body; // Block, Loop, Stage
  // Loop: steps virtual index v through the enclosing box.
  int v = -1;
  int level = 0;
  int64_t step = 1;
  bool parallel = false;
  // Loop: inputs each iteration prefetches (schedule/Prefetch.h). The lines are those the
  // operand's tile reads at `ahead` values of v past the iteration's, the other indices at the
  // box's begin: `offsets` bytes from the access's element there. Only native code acts on them;
  // they never change a result.
  struct Prefetch {
    int operand = -1; // index into Config::operands
    int64_t ahead = 0;
    std::vector<int64_t> offsets;
  };
  std::vector<Prefetch> prefetches;
  // Stage: the buffer filled from the operand's next outer holder (written back if a result).
  int buffer = -1;
  // Stage: a pack from the tensor prefetches the element this many rows further on along the
  // tensor's next-to-innermost dimension as it copies each line (schedule/Prefetch.h); 0: none.
  // Only native code acts on it.
  int64_t prefetchRows = 0;
  // Stage: a result's register tile that starts at the identity prefetches the lines it writes
  // back as it starts (schedule/Prefetch.h). Only native code acts on it.
  bool prefetchTile = false;
  // Init: the reduction whose identity the written region starts from.
  ir::ReduceOp init = ir::ReduceOp::Sum;
};

// How a statement's schedule was found: which search, how much of the space it evaluated, and
// whether a budget stopped it before it ended by itself (a beam that converged, an exhaustive
// search that saw every point). Empty strategy: no search ran (scalar code).
struct SearchReport {
  enum class Stop { None, Candidates, Time };
  std::string strategy;
  size_t mappings = 0;    // mappings searched
  size_t evaluated = 0;   // candidate schedules costed, over those mappings
  double spaceSize = 0;   // points of their spaces
  Stop stop = Stop::None; // the first budget that stopped a mapping's search
  bool covered = false;   // every point of every space costed
  // Not searched: taken from a tuning record (isamap tune), which this says as people read it
  // ("2.31 ms measured on 2026-11-27"); empty when searched.
  std::string tuned;
  size_t correctedBy = 0; // measurements the model's correction was fitted on (0: none)
};
// "search: beam, 3 mappings, 1,203 of 430,000,000 candidate schedules costed (converged)", or
// "tuned: 2.31 ms measured on 2026-11-27", as printSchedule shows it ("" when no search ran).
std::string searchText(const SearchReport &search);

struct StatementSchedule {
  Config config;
  Cost cost;
  std::vector<size_t> point; // the point of the mapping's search Space it is (empty: scalar code)
  SearchReport search;
  std::vector<Buffer> buffers;
  Node root; // a Block
};

struct KernelSchedule {
  std::string kernel;
  std::string target;
  std::vector<StatementSchedule> statements;
  // Per statement, when ScheduleOptions::alternatives asked for them: the next cheapest
  // schedules the search costed, cheapest first (what isamap tune measures against the pick).
  std::vector<std::vector<StatementSchedule>> alternatives;
};

// Every decision of a Config as one line of text (mapping, tiles, orders, parallel loop, staged
// buffers), equal for two Configs exactly when they schedule alike: what a tuning record keeps
// to know that a search point still decodes to the schedule that was measured.
std::string decisionText(const Config &config, const hw::Target &target);

// Lanes per result element of a lane-reduced Config (the instruction's lane extent); 0 for any
// other Config.
int64_t laneCount(const Config &c, const hw::Target &target);

// Builds the schedule IR of a valid Config.
StatementSchedule lower(const ir::Kernel &kernel, const hw::Target &target,
                        const mapping::StatementMappings &mappings, const Config &config,
                        const Cost &cost);

// As people read it: "compute", "latency", "DRAM bandwidth", "the dma unit's bandwidth",
// "moves (not overlapped)", "scalar code" ("" for Bound::None).
std::string boundText(const Cost &cost, const hw::Target &target);

std::string printSchedule(const KernelSchedule &s, const ir::Kernel &kernel,
                          const hw::Target &target);

} // namespace isam::schedule
