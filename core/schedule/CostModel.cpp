#include "schedule/CostModel.h"

#include "schedule/Geometry.h"
#include "schedule/Prefetch.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <sstream>

namespace isam::schedule {

namespace {

// A move that writes memory `to` from memory `from`, if the target has one.
const hw::Instruction *moveOut(const hw::Target &t, int from, int to) {
  for (const auto &i : t.instructions) {
    if (!i.isMove || i.semantics.tensors.size() < 2)
      continue;
    const auto &dst = i.semantics.tensors[0], &src = i.semantics.tensors[1];
    if (t.memoryIndex(src.memory) == from && t.memoryIndex(dst.memory) == to)
      return &i;
  }
  return nullptr;
}

// The move that writes a register back to the memory around it, if the target has one.
const hw::Instruction *storeFrom(const hw::Target &t, int registers) {
  return moveOut(t, registers, t.memories[registers].parent);
}

int64_t product(const std::vector<int64_t> &v) {
  int64_t n = 1;
  for (int64_t x : v)
    n *= x;
  return n;
}

// Where the time goes besides the instruction's own issue: the slowest stream that overlaps the
// computation (a memory's or a unit's bandwidth), and the moves that nothing overlaps.
struct Movement {
  double overlapped = 0, serial = 0;
  Bound slowest = Bound::None; // what `overlapped` is: a memory's or a unit's bandwidth
  int slowestAt = -1;
  // Double-buffered scratchpads: the time each unit spends on their moves (moves on one unit
  // queue behind each other, whichever level they fill), and the bytes through each memory
  // they stream from or to (moves through one memory share its bandwidth).
  std::map<int, double> unitCycles, channelBytes;
  // The first tiles are filled, and the last results written back, with nothing to overlap
  // them: their streams one after another, and one latency each way (moves pipeline).
  double prologue = 0, fillLatency = 0, drainLatency = 0;
};

// What one level holds and moves: the working set, the registers of a register level, the
// staged transfers, and the register tiles filled by moves of their own (with how many).
struct LevelLoad {
  double footprint = 0, transfers = 0;
  // Bytes the core itself copies (a pack into a cache level, a register tile of transposed
  // accumulators gathered and scattered): a loop of its own between the computations, which
  // nothing overlaps. Those of packs one thread makes before the parallel loop forks apart.
  double copiedBytes = 0, copiedAloneBytes = 0;
  int registers = 0;
  std::vector<std::pair<const OperandPlacement *, double>> stagedRegisters;
  // Bytes of each input on the level's path that the level reads from memory: (operand, bytes).
  std::vector<std::pair<size_t, double>> inputBytes;
  // Lines that inputs read in place fetch again as demand misses, their rows evicting each
  // other in a few sets (conflictMissBytes): each waits the latency of the memory outside,
  // and the next contends for the same set, so they do not overlap. A TN GEMM's A read 256
  // rows 30 KiB apart (two sets of a 12-way L1) ran at 0.44 of the same tile packed, ~31 cycles
  // per row; the latency of L2 alone is 14.
  double conflictLines = 0;
  // Lines a cache fetches again (beyond the fetches of the cache outside it) for inputs read in
  // place whose address moves a page or more per step of the reduction (farSteps): no
  // prefetcher follows them into it, so each waits the latency of the cache outside,
  // kFarLinesInFlight at a time (farStepCycles).
  double farStepLines = 0;
};

// One evaluation of a Config with the double buffering given per level.
class Evaluation {
public:
  Evaluation(const ir::Kernel &kernel, const hw::Target &target, const Config &c,
             const std::vector<bool> &doubleBuffered)
      : kernel_(kernel), target_(target), c_(c), doubleBuffered_(doubleBuffered),
        s_(kernel.statements[c.statement]), instr_(target.instructions[size_t(c.instruction)]) {}

  // The cost; when a double-buffered level's tiles do not fit, the cost is invalid and
  // `overfull` names the level (single-buffering it may make them fit).
  Cost run(int &overfull) {
    overfull = -1;
    if (std::string why = writeBackProblem(); !why.empty())
      return invalid(why);
    pathTraffic_.assign(c_.operands.size(), std::vector<Traffic>(c_.levels.size()));
    if (c_.parallel >= 0)
      coresUsed_ = parallelSpeedup(c_, int(target_.cores));
    for (size_t l = 1; l < c_.levels.size(); ++l) {
      LevelLoad load = loadOf(l);
      if (std::string why = capacityProblem(l, load, overfull); !why.empty())
        return invalid(why);
      addMovement(l, load);
    }
    addSharedMovement();
    m_.serial += farWalkCycles() / coresUsed_;
    computeBound();
    finish();
    return cost_;
  }

private:
  Cost invalid(std::string why) {
    cost_.valid = false;
    cost_.invalidReason = std::move(why);
    return cost_;
  }

  // A result staged in a scratchpad needs a move that writes it back out.
  std::string writeBackProblem() const {
    for (const auto &p : c_.operands)
      if (p.output && p.tensor >= 0)
        for (size_t j = 1; j < p.path.size(); ++j) {
          const Level &lv = c_.levels[size_t(p.path[j])];
          if (p.staged[size_t(p.path[j])] && !lv.registers &&
              !moveOut(target_, lv.memory, c_.levels[size_t(p.path[j - 1])].memory))
            return "no move writes " + kernel_.tensors[size_t(p.tensor)].name + " back out of " +
                   lv.name;
        }
    return "";
  }

  // Working set, registers and traffic of every operand loading through level l; the traffic
  // goes into a new entry of cost_.levels.
  LevelLoad loadOf(size_t l) {
    const Level &lv = c_.levels[l];
    Cost::LevelCost lc;
    lc.memory = lv.memory;
    lc.capacityBytes = double(lv.capacityBytes);
    LevelLoad load;
    for (size_t o = 0; o < c_.operands.size(); ++o) {
      const OperandPlacement &p = c_.operands[o];
      if (!loadsInto(c_, o, l))
        continue;
      if (std::find(p.path.begin(), p.path.end(), int(l)) == p.path.end()) {
        lc.bytes += operandTraffic(kernel_, c_, o, l).totalBytes;
        // An element the instruction reads from memory that several calls of the register tile
        // share is loaded once into a register by the backend (vbroadcastss before fma16_mem's
        // sixteen calls of a GRU's 256-wide tile, which then spilled with 32 registers counted).
        if (lv.registers && !p.output && sharedByCalls(p, l))
          load.registers += 1;
        continue;
      }
      bool demand = false;
      double conflicts = conflictMissBytes(o, l, demand);
      double elemBytes = ir::elemTypeBytes(stagedType(kernel_, p));
      double bytes = double(tileElements(s_, p.access, c_.vindices, c_.tiles[l])) * elemBytes;
      // A scratchpad holds the tile in the instruction's layout, padded to whole operands.
      if (lv.softwareManaged && !lv.registers && p.staged[l] && !layoutDims(c_, o).empty())
        bytes = double(product(layoutTile(c_, o, l, true))) * elemBytes;
      if (lv.registers) {
        double perInstance = registersPerInstance(p, lv);
        double instances = registerInstances(p, l);
        load.registers += int(perInstance * std::max(instances, heldInstances(p, l)));
        load.footprint += bytes;
        if (p.staged[l])
          load.stagedRegisters.push_back({&p, perInstance * instances});
      } else if (streamsThrough(o, l)) {
        load.footprint += streamedBytes(p);
      } else {
        load.footprint += bytes * (doubleBuffered_[l] && p.staged[l] ? 2 : 1);
      }
      Traffic traffic = operandTraffic(kernel_, c_, o, l);
      pathTraffic_[o][l] = traffic;
      if (!load.stagedRegisters.empty() && load.stagedRegisters.back().first == &p)
        load.stagedRegisters.back().second *= traffic.loads;
      // Only the fetches beyond the operand's own traffic are refetches; the first fetch of a
      // line waits as any read does.
      if (demand && conflicts > traffic.totalBytes)
        load.conflictLines += (conflicts - traffic.totalBytes) /
                              double(target_.memories[size_t(lv.memory)].lineBytes);
      traffic.totalBytes = std::max(traffic.totalBytes, conflicts);
      // Only the fetches beyond the cache outside's own: the first of each line comes with the
      // stream from further out, which the register loop's prefetch covers (Prefetch.h).
      if (l + 1 < c_.levels.size() && l >= 2 && farSteps(p))
        load.farStepLines +=
            std::max(0.0, traffic.totalBytes - pathTraffic_[o][l - 1].totalBytes) /
            double(std::max<int64_t>(1, target_.memories[size_t(lv.memory)].lineBytes));
      lc.bytes += traffic.totalBytes;
      if (!p.output)
        load.inputBytes.push_back({o, traffic.totalBytes});
      if (p.staged[l])
        load.transfers += traffic.loads;
      if (p.staged[l] &&
          (p.staging[l].kind == Staging::Kind::Pack || (lv.registers && p.layoutChange)))
        (packedOutsideParallelLoop(c_, o, l) ? load.copiedAloneBytes : load.copiedBytes) +=
            traffic.totalBytes;
    }
    lc.footprintBytes = load.footprint;
    cost_.levels.push_back(lc);
    return load;
  }

  // Whether input p is read in place (packed nowhere) and a step of a reduction its register
  // tile walks moves its address a page or more (B[k, n] of a GEMM with 8457 columns): the
  // CPUs' prefetchers, which stop at a page, bring none of its lines into the innermost cache
  // (LevelLoad::farStepLines). With 7-row tiles, 35 x 8457 x 2048 ran at 45-55 GFLOP/s on one
  // core of this repository's x86 host reading blocks of B that the tiles of the other rows read
  // again from L2, against 92 with 128-row blocks that L1 keeps for them.
  bool farSteps(const OperandPlacement &p) const { return farStep(p).v >= 0; }

  // The reduction index whose steps move input p's address a page or more, as farSteps says,
  // and the bytes of one step (v < 0: none).
  struct FarStep {
    int v = -1;
    double bytes = 0;
  };
  FarStep farStep(const OperandPlacement &p) const {
    if (p.output || p.tensor < 0 ||
        std::find(p.staged.begin(), p.staged.end(), true) != p.staged.end())
      return {};
    const ir::Tensor &t = kernel_.tensors[size_t(p.tensor)];
    std::vector<int64_t> strides = t.strides();
    size_t regs = c_.levels.size() - 1;
    for (const VirtualIndex &vi : c_.vindices) {
      if (!vi.reduction || vi.stmtIndices.empty() || !touches(p.access, vi))
        continue;
      int64_t bytes = 0;
      for (size_t d = 0; d < p.access.indices.size(); ++d)
        bytes += p.access.indices[d].coefficientOf(vi.stmtIndices.back()) * strides[d];
      bytes *= ir::elemTypeBytes(t.type);
      size_t v = size_t(&vi - c_.vindices.data());
      if (std::abs(bytes) >= kPageBytes && c_.tiles[regs][v] > stepOf(c_, regs, v))
        return {int(v), double(std::abs(bytes))};
    }
    return {};
  }

  // How far the register tiles walk along reduction v before they come back to where the walk
  // started: the register tile's extent, and outwards every level whose innermost loop that
  // moves is v's (the next tile goes on along v); a level where another index's loop moves
  // inside v's, or around it, starts the next walk over the same rows.
  int64_t walkedSteps(size_t v) const {
    size_t regs = c_.levels.size() - 1;
    int64_t walked = c_.tiles[regs][v];
    for (size_t l = regs; l-- > 0;) {
      int inner = -1, moving = 0;
      for (int u : c_.order[l])
        if (tripsOf(c_, l, size_t(u)) > 1)
          inner = u, ++moving;
      if (inner < 0)
        continue;
      if (inner != int(v))
        break;
      walked = c_.tiles[l][v];
      if (moving > 1)
        break;
    }
    return walked;
  }

  // The cycles the register tiles' walks along a far-stepping reduction (farStep) wait where a
  // walk (walkedSteps) spans more than kFarWalkReachBytes: up to kFarWalkStepCycles a step,
  // growing with the span to twice the reach, where other register tiles read the input again
  // (an input read once walked 768 rows 24 KiB apart at 0.9 of the peak: 8 x 6144 x 1536's B).
  // Only CPUs (a target with a triple) translate addresses.
  double farWalkCycles() const {
    if (target_.triple.empty() || !c_.levels.back().registers)
      return 0;
    size_t regs = c_.levels.size() - 1;
    double worst = 0;
    int walked = -1;
    for (const auto &p : c_.operands) {
      FarStep f = farStep(p);
      if (f.v < 0 || registerReads(c_, p) < 2)
        continue;
      double span = f.bytes * double(walkedSteps(size_t(f.v)));
      double excess = std::clamp(span / kFarWalkReachBytes - 1, 0.0, 1.0);
      if (excess > worst)
        worst = excess, walked = f.v;
    }
    if (walked < 0)
      return 0;
    // Steps of the walks over the whole statement: the calls, over those of one step.
    double steps = callCount(c_);
    for (size_t v = 0; v < c_.vindices.size(); ++v)
      if (int(v) != walked)
        steps /= double(tripsOf(c_, regs, v));
    return steps * worst * kFarWalkStepCycles;
  }

  // What an input streaming through a cache holds at a time: one reduction step of its register
  // tile (a register tile spans its reduction, which it reads a step at a time).
  double streamedBytes(const OperandPlacement &p) const {
    std::vector<int64_t> step = c_.tiles.back();
    for (size_t v = 0; v < c_.vindices.size(); ++v)
      if (c_.vindices[v].reduction)
        step[v] = std::max<int64_t>(1, c_.vindices[v].instrExtent);
    return double(tileElements(s_, p.access, c_.vindices, step)) *
           ir::elemTypeBytes(stagedType(kernel_, p));
  }

  // Whether input o streams through cache level l: each element of its tile is read once per
  // visit of the tile (no index it does not depend on steps inside the tile beyond the register
  // tile, no two indices share a dimension, as a convolution's windows do), and the traffic
  // counts every visit (the first loop outside that steps moves along it). Its lines then need
  // not stay, and only the register tile's share counts toward the level's capacity (one step of
  // it): GEMV's rows of A, 10 KiB each, streamed whole through a 48 KiB L1, eight at a time.
  bool streamsThrough(size_t o, size_t l) const {
    const OperandPlacement &p = c_.operands[o];
    const Level &lv = c_.levels[l];
    size_t regs = c_.levels.size() - 1;
    if (p.output || p.tensor < 0 || p.staged[l] || lv.registers || lv.softwareManaged ||
        !c_.levels[regs].registers)
      return false;
    for (const auto &d : p.access.indices)
      if (d.terms.size() > 1)
        return false;
    for (size_t v = 0; v < c_.vindices.size(); ++v)
      if (!touches(p.access, c_.vindices[v]) && c_.tiles[l][v] > c_.tiles[regs][v])
        return false;
    for (size_t j = l; j-- > 0;)
      for (size_t k = c_.order[j].size(); k-- > 0;) {
        size_t v = size_t(c_.order[j][k]);
        if (tripsOf(c_, j, v) > 1)
          return touches(p.access, c_.vindices[v]);
      }
    return true;
  }

  // An input read in place through cache level l (into a register tile, or by the instruction
  // from l) whose register tile's rows lie a multiple of the cache's set period (size / ways)
  // apart, or near it, shares few sets: when a set gets more of the rows than it has ways, the
  // lines do not stay for the next register tile, and every visit of one fetches them again from
  // the level outside; where the rows cycle within each reduction step (the reduction along
  // them), the lines evict each other before their next element, and every access fetches one.
  // Those bytes; 0 when the rows fit their sets. `demand`: the fetches are demand misses that
  // wait in turn (the reduction moves along or across the rows), not a stream. A 16-row tile of an
  // LSTM's X (rows 4 KiB apart, L1 of 12 ways) ran 2.3x slower than an 8-row one that the model
  // rated alike, and a TN GEMM's A read 32 rows 16 KiB apart 1.8x slower than packed.
  double conflictMissBytes(size_t o, size_t l, bool &demand) const {
    demand = false;
    const OperandPlacement &p = c_.operands[o];
    const Level &lv = c_.levels[l];
    size_t regs = c_.levels.size() - 1;
    const hw::Memory &mem = target_.memories[size_t(lv.memory)];
    bool readFromL =
        !p.path.empty() &&
        (p.path.back() == int(l) ||
         (p.path.back() == int(regs) && p.path.size() >= 2 && p.path[p.path.size() - 2] == int(l)));
    // A tile packed further out is read from its pack's panels, not from the tensor's rows.
    bool packedOutside = false;
    for (size_t j = 0; j < l; ++j)
      packedOutside = packedOutside || p.staged[j];
    if (p.output || p.tensor < 0 || p.staged[l] || packedOutside || lv.registers ||
        lv.softwareManaged || !c_.levels[regs].registers || !readFromL || mem.ways == 0 ||
        mem.lineBytes == 0 || mem.sizeBytes < uint64_t(mem.ways) * mem.lineBytes)
      return 0;
    const ir::Tensor &t = kernel_.tensors[size_t(p.tensor)];
    std::vector<int64_t> box = tileFootprint(s_, p.access, c_.vindices, c_.tiles[regs]);
    if (box.size() < 2)
      return 0;
    // The rows: the dimensions outside the innermost; their stride, the innermost one's that
    // spans more than one.
    int64_t elemBytes = ir::elemTypeBytes(t.type), stride = elemBytes, rowStride = 0;
    size_t rowDim = 0;
    double rows = 1;
    for (size_t d = box.size(); d-- > 0;) {
      if (d + 1 < box.size()) {
        rows *= double(box[d]);
        if (rowStride == 0 && box[d] > 1)
          rowStride = stride, rowDim = d;
      }
      stride *= t.shape[d];
    }
    int64_t line = mem.lineBytes, sets = int64_t(mem.sizeBytes / mem.ways) / line;
    if (rowStride == 0 || rowStride % line != 0 || sets <= 0)
      return 0;
    int64_t step = (rowStride / line) % sets;
    double distinct = step == 0 ? 1 : double(sets / std::gcd(step, sets));
    if (std::ceil(rows / distinct) <= double(mem.ways))
      return 0;
    double visits = double(callCount(c_));
    for (size_t v = 0; v < c_.vindices.size(); ++v)
      visits /= double(tripsOf(c_, regs, v));
    auto reduces = [&](size_t d) {
      for (auto [i, coef] : p.access.indices[d].terms)
        if (s_.indices[size_t(i)].reduction)
          return true;
      return false;
    };
    double run = double(box.back()) * double(elemBytes);
    if (!reduces(rowDim) && reduces(box.size() - 1)) {
      // An element at a time for a broadcast operand, else a vector.
      double access =
          p.scalar ? double(elemBytes)
                   : std::min(run, double(std::max<uint32_t>(c_.levels[regs].registerBytes, 1)));
      demand = true;
      return visits * rows * std::ceil(run / access) * double(line);
    }
    // The reduction steps from row to row, a page or more apart: no prefetcher follows, and
    // each row's lines are demand misses.
    demand = reduces(rowDim) && rowStride >= kPageBytes;
    return visits * rows * linesTouched(run, double(line)) * double(line);
  }

  // The lines a run of `run` bytes touches, on average over register tiles that start one run
  // after another along a row: 12 floats (48 B) straddle two 64-byte lines in three tiles of
  // four.
  static double linesTouched(double run, double line) {
    int64_t r = int64_t(run), ln = int64_t(line);
    if (r <= 0 || ln <= 0)
      return 0;
    int64_t period = ln / std::gcd(r, ln), lines = 0;
    for (int64_t j = 0; j < period; ++j)
      lines += (j * r % ln + r + ln - 1) / ln;
    return double(lines) / double(period);
  }

  // One register group per instruction operand instance: every accumulator of the register
  // tile stays live; an input needs one per vector lane group it spans (a broadcast scalar,
  // one), reloaded each reduction step (a reduction on the lanes, too).
  double registersPerInstance(const OperandPlacement &p, const Level &lv) const {
    const ir::Tensor &op = instr_.semantics.tensors[size_t(p.operand)];
    int width = std::max<int>(1, target_.memories[size_t(lv.memory)].registerBytes);
    return std::ceil(double(std::max<int64_t>(1, op.elementCount())) * ir::elemTypeBytes(op.type) /
                     width);
  }
  // Vectors of input p the register tile at level l keeps live: the backend unrolls the tile
  // and loads each vector once, so one that a loop outside it reuses (across a loop over an
  // index it does not depend on) stays in a register for that loop's whole run. A lane-reduced
  // GEMM's 6 x 5 tile (order m, n) holds B's 5 vectors beside its 30 accumulators; counted as
  // one, it spilled and ran at 0.45 of a 3 x 5 tile. Scalars read from memory are not vectors.
  double heldInstances(const OperandPlacement &p, size_t l) const {
    const ir::Tensor &op = instr_.semantics.tensors[size_t(p.operand)];
    if (p.output || op.shape.empty() || l >= c_.order.size())
      return 1;
    double held = 1;
    bool reusedOutside = false;
    for (int v : c_.order[l]) {
      const VirtualIndex &vi = c_.vindices[size_t(v)];
      if (vi.reduction)
        continue;
      int64_t trips = tripsOf(c_, l, size_t(v));
      if (!touches(p.access, vi))
        reusedOutside = reusedOutside || trips > 1;
      else if (reusedOutside)
        held *= double(trips);
    }
    return held;
  }
  // Whether more than one call of the register tile at level l reads each element of input p.
  bool sharedByCalls(const OperandPlacement &p, size_t l) const {
    for (size_t v = 0; v < c_.vindices.size(); ++v)
      if (!touches(p.access, c_.vindices[v]) && tripsOf(c_, l, v) > 1)
        return true;
    return false;
  }
  double registerInstances(const OperandPlacement &p, size_t l) const {
    const ir::Tensor &op = instr_.semantics.tensors[size_t(p.operand)];
    double instances = 1;
    for (size_t v = 0; v < c_.vindices.size(); ++v)
      if (touches(p.access, c_.vindices[v]) &&
          (p.output || (c_.vindices[v].instrIndex >= 0 && !c_.vindices[v].reduction)) &&
          !(op.shape.empty() && !p.output))
        instances *= double(tripsOf(c_, l, v));
    return instances;
  }

  // Why level l's working set does not fit (empty: it fits). A register level's working set is
  // its registers, not the data streamed through them.
  std::string capacityProblem(size_t l, const LevelLoad &load, int &overfull) {
    const Level &lv = c_.levels[l];
    Cost::LevelCost &lc = cost_.levels.back();
    if (lv.registers) {
      lc.footprintBytes =
          double(load.registers) * target_.memories[size_t(lv.memory)].registerBytes;
      cost_.registersUsed = load.registers;
      int count = int(target_.memories[size_t(lv.memory)].registerCount);
      if (load.registers > count)
        return "the register tile needs " + std::to_string(load.registers) + " of " +
               std::to_string(count) + " " + lv.name + " registers";
    } else if (lv.capacityBytes > 0 && load.footprint > double(lv.capacityBytes)) {
      if (doubleBuffered_[l])
        overfull = int(l);
      std::ostringstream why;
      why << "the tiles at " << lv.name << " need " << load.footprint << " B of "
          << lv.capacityBytes;
      return why.str();
    }
    return "";
  }

  // The time level l's traffic takes, overlapped with the computation or not.
  void addMovement(size_t l, const LevelLoad &load) {
    const Level &lv = c_.levels[l];
    Cost::LevelCost &lc = cost_.levels.back();
    double bw = lv.bandwidthBytesPerCycle;
    // Moves into a scratchpad go at the slower of the path's and the move's own bandwidth.
    for (const auto &p : c_.operands)
      if (p.staged[l])
        if (const hw::Instruction *mv = stagingMove(p.staging[l], target_);
            mv && mv->cost.bandwidthBytesPerCycle > 0)
          bw = bw > 0 ? std::min(bw, mv->cost.bandwidthBytesPerCycle)
                      : mv->cost.bandwidthBytesPerCycle;
    bool privateLevel = l > 0 && target_.memories[size_t(lv.memory)].parent >= 0;
    double rate = bw * (privateLevel ? coresUsed_ : 1);
    lc.cycles = (bw > 0 ? lc.bytes / rate : 0) + demandMissCycles(l, load) + farStepCycles(l, load);
    double copied =
        bw > 0 ? std::min(lc.cycles, load.copiedBytes / rate + load.copiedAloneBytes / bw) : 0;
    m_.serial += std::max(copied, packSourceCycles(l));
    if (int parent = target_.memories[size_t(lv.memory)].parent; parent >= 0) {
      double latency = target_.memories[size_t(parent)].latencyCycles;
      m_.serial += load.conflictLines * latency / coresUsed_;
    }
    double moveLatency = 0;
    for (const auto &p : c_.operands)
      if (p.staged[l])
        if (const hw::Instruction *mv = stagingMove(p.staging[l], target_))
          moveLatency = std::max(moveLatency, mv->cost.latencyCycles);
    // The fills and write-backs issue at their moves' rates; out-of-order cores overlap about
    // half of them with the neighbouring tiles' arithmetic.
    for (auto [p, moves] : load.stagedRegisters) {
      const hw::Instruction *in = stagingMove(p->staging[l], target_);
      const hw::Instruction *out = p->output ? storeFrom(target_, lv.memory) : nullptr;
      double cycles = moves / (in && in->cost.perCycle > 0 ? in->cost.perCycle : 1);
      if (p->output)
        cycles += moves / (out && out->cost.perCycle > 0 ? out->cost.perCycle : 1);
      m_.serial += 0.5 * cycles / coresUsed_;
      if (p->output)
        m_.serial += resultLineWaits(l, *p) / coresUsed_;
    }
    if (lv.softwareManaged && !lv.registers && !doubleBuffered_[l]) {
      m_.serial += lc.cycles + load.transfers * moveLatency / coresUsed_;
    } else if (lv.softwareManaged && !lv.registers) {
      addDoubleBufferedMoves(l, bw);
    } else if (lc.cycles - copied > m_.overlapped) {
      m_.overlapped = lc.cycles - copied;
      m_.slowest = Bound::Bandwidth;
      m_.slowestAt = lv.memory;
    }
  }

  // The cycles a CPU's register tiles of result p at level l wait for their lines, which each
  // visit reads at its write-back (a sum's tile starts at zero and is added onto the result):
  // nothing overlaps them, as the tile's next calls need its registers. Each line waits for the
  // innermost cache's latency, and for every cache around it the share of the visits that cache
  // fetches the tile for again (its traffic against the registers') waits the latency of the
  // memory outside, kWriteBackLinesInFlight lines at a time; from a home memory that states its
  // misses in flight, `misses` at a time at its latency under load, unless the outermost cache
  // holds the whole result or the tile's lines are prefetched as it starts (prefetchesResultTile:
  // they are in that cache by its write-back). Blocks of the reduction a quarter as long, so four
  // times the visits, ran a 5124 x 9124 x 2048 GEMM 0.87x as fast on one core of this repository's
  // x86 host (C in DRAM, prefetched), and 1024 x 1024 x 8192 (C in L3) 0.93x; C held by L2 (112 x
  // 512 x 32768) lost nothing.
  double resultLineWaits(size_t l, const OperandPlacement &p) const {
    if (target_.triple.empty() || p.tensor < 0 || p.path.size() < 2)
      return 0;
    size_t o = size_t(&p - c_.operands.data());
    const Traffic &reg = pathTraffic_[o][l];
    int inner = p.path[p.path.size() - 2];
    if (reg.loads <= 0 || reg.totalBytes <= 0 || inner < 1 || c_.levels[size_t(inner)].registers)
      return 0;
    const hw::Memory &innerMem = target_.memories[size_t(c_.levels[size_t(inner)].memory)];
    double lineBytes = double(std::max<int64_t>(1, innerMem.lineBytes));
    double tileBytes = double(tileElements(s_, p.access, c_.vindices, c_.tiles[l])) *
                       ir::elemTypeBytes(stagedType(kernel_, p));
    double lines = reg.loads * std::ceil(tileBytes / lineBytes);
    double wait = innerMem.latencyCycles / kWriteBackLinesInFlight;
    Buffer tile;
    tile.operand = int(o);
    tile.level = int(l);
    const ir::Tensor &t = kernel_.tensors[size_t(p.tensor)];
    double resultBytes = double(t.elementCount() * ir::elemTypeBytes(t.type));
    bool homeHidden = prefetchesResultTile(kernel_, target_, c_, tile) ||
                      resultBytes <= double(c_.levels[1].capacityBytes);
    for (size_t j = 1; j + 1 < p.path.size(); ++j) {
      const hw::Memory &mem = target_.memories[size_t(c_.levels[size_t(p.path[j])].memory)];
      if (mem.parent < 0)
        continue;
      const hw::Memory &outside = target_.memories[size_t(mem.parent)];
      // A cache that holds half its size of the whole result keeps its lines between visits,
      // whatever the tiles' refills say (C of 35 x 1500 x 2048, 210 KiB, in a 1 MiB L2).
      double share = std::min(1.0, pathTraffic_[o][size_t(p.path[j])].totalBytes / reg.totalBytes);
      if (2 * resultBytes <= double(c_.levels[size_t(p.path[j])].capacityBytes))
        share = 0;
      double extra = 0;
      if (outside.parent >= 0)
        extra = std::max(0.0, outside.latencyCycles - mem.latencyCycles) / kWriteBackLinesInFlight;
      else if (!homeHidden && outside.misses > 0)
        extra = outside.latencyCycles * kLoadedLatencyFactor / double(outside.misses);
      wait += share * extra;
    }
    return lines * wait;
  }

  // Bytes per cycle a pack's loop reads into level l on `cores` cores, filled at `bw` (its
  // parent's bandwidth) per core: a core streams from a memory that states its misses in flight at
  // no more than misses x line / latency (Little's law: 24 x 64 B / 400 cycles is 13.8 GB/s at 3.6
  // GHz, where this machine's core reads 12.8 from DRAM), and DRAM's bandwidth is the socket's.
  // From a cache that states none, the copy keeps kPackLinesInFlight lines in flight: far
  // below the cache's bandwidth, which only the hardware prefetchers' streams reach.
  double packRate(size_t l, double bw, double cores) const {
    const hw::Memory &mem = target_.memories[size_t(c_.levels[l].memory)];
    if (l == 0 || mem.parent < 0 || bw <= 0)
      return bw;
    const hw::Memory &from = target_.memories[size_t(mem.parent)];
    double rate = bw * (from.parent >= 0 ? cores : 1);
    double inFlight = from.misses > 0    ? double(from.misses)
                      : from.parent >= 0 ? kPackLinesInFlight
                                         : 0;
    if (inFlight > 0 && from.latencyCycles > 0 && mem.lineBytes > 0)
      rate = std::min(rate, cores * inFlight * double(mem.lineBytes) / from.latencyCycles);
    return rate;
  }

  // A pack into level l is a loop of the core's own: it reads its tile as fast as the slowest
  // level the tile comes through, from where it was last kept, and nothing overlaps it:
  // packing a read-once B (8 x 6144 x 1536) from DRAM costs the whole matrix at DRAM's rate,
  // not at the rate of the cache it is packed into.
  double packSourceCycles(size_t l) const {
    double cycles = 0;
    for (size_t o = 0; o < c_.operands.size(); ++o) {
      const OperandPlacement &p = c_.operands[o];
      if (!p.staged[l] || p.staging[l].kind != Staging::Kind::Pack)
        continue;
      // The tiles' bytes, without the pack level's gather slots (copied, in addMovement).
      double slowest = 0, cores = packedOutsideParallelLoop(c_, o, l) ? 1 : coresUsed_;
      for (int j : p.path) {
        if (j < 1 || size_t(j) > l)
          continue;
        double rate = packRate(size_t(j), c_.levels[size_t(j)].bandwidthBytesPerCycle, cores);
        const Traffic &t = pathTraffic_[o][size_t(j)];
        if (rate > 0)
          slowest = std::max(slowest, t.loads * t.tileBytes / rate);
      }
      cycles += slowest;
    }
    return cycles;
  }

  // The far-step lines (LevelLoad::farStepLines) level l fetches again from the cache outside
  // it: each waits that cache's latency, kFarLinesInFlight at a time per core, while the
  // arithmetic goes on.
  double farStepCycles(size_t l, const LevelLoad &load) const {
    int parent = target_.memories[size_t(c_.levels[l].memory)].parent;
    if (load.farStepLines <= 0 || parent < 0 || target_.memories[size_t(parent)].parent < 0)
      return 0;
    return load.farStepLines * target_.memories[size_t(parent)].latencyCycles / kFarLinesInFlight /
           coresUsed_;
  }

  // Reads from a memory that describes its misses in flight (a cache filled from DRAM) that
  // no prefetcher follows: the first two lines of every run wait the memory's latency, `misses`
  // of them at a time per core (Little's law); the rest of a run streams at the bandwidth. A
  // GEMM's B read 128 rows of 48 columns at a time ran at half the rate of the same reads 32
  // rows at a time, which the prefetchers follow along the rows.
  double demandMissCycles(size_t l, const LevelLoad &load) const {
    const Level &lv = c_.levels[l];
    const hw::Memory &mem = target_.memories[size_t(lv.memory)];
    if (lv.registers || lv.softwareManaged || mem.parent < 0)
      return 0;
    const hw::Memory &from = target_.memories[size_t(mem.parent)];
    double line = mem.lineBytes;
    if (from.misses == 0 || from.latencyCycles <= 0 || line <= 0)
      return 0;
    double cycles = 0;
    for (auto [o, bytes] : load.inputBytes) {
      ReadRuns runs = readRuns(kernel_, c_, c_.operands[o], from.streams);
      if (runs.runBytes <= 0)
        continue;
      double demandLines = std::min(2.0, std::ceil(runs.runBytes / line));
      cycles += bytes / runs.runBytes * demandLines * from.latencyCycles / from.misses;
    }
    return cycles / coresUsed_;
  }

  // A double-buffered scratchpad's fills and write-backs: each unit's time and each memory's
  // bytes (shared by every such level), and the prologue and latencies nothing overlaps.
  void addDoubleBufferedMoves(size_t l, double bw) {
    const Level &lv = c_.levels[l];
    for (size_t o = 0; o < c_.operands.size(); ++o) {
      const OperandPlacement &p = c_.operands[o];
      auto at = std::find(p.path.begin(), p.path.end(), int(l));
      if (!p.staged[l] || at == p.path.begin() || at == p.path.end())
        continue;
      int outer = c_.levels[size_t(*(at - 1))].memory;
      Traffic tr = operandTraffic(kernel_, c_, o, l);
      double once = tr.loads * tr.tileBytes;
      const hw::Instruction *fill = stagingMove(p.staging[l], target_);
      const hw::Instruction *drain = p.output ? moveOut(target_, lv.memory, outer) : nullptr;
      for (auto [mv, bytes] : {std::pair{fill, once}, std::pair{drain, p.output ? once : 0.0}}) {
        if (!mv || bytes <= 0)
          continue;
        double rate = mv->cost.bandwidthBytesPerCycle > 0 ? mv->cost.bandwidthBytesPerCycle : bw;
        m_.unitCycles[mv->unit] += rate > 0 ? bytes / rate : 0;
        m_.prologue += rate > 0 ? tr.tileBytes / rate : 0;
        double &latency = mv == fill ? m_.fillLatency : m_.drainLatency;
        latency = std::max(latency, mv->cost.latencyCycles);
      }
      m_.channelBytes[outer] += once * (p.output ? 2 : 1);
    }
  }

  // The units and memories the double-buffered moves share: the slowest may bound the whole.
  void addSharedMovement() {
    for (auto [unit, cycles] : m_.unitCycles)
      if (cycles / coresUsed_ > m_.overlapped) {
        m_.overlapped = cycles / coresUsed_;
        m_.slowest = Bound::UnitBandwidth;
        m_.slowestAt = unit;
      }
    for (auto [memory, bytes] : m_.channelBytes)
      if (double bw = target_.memories[size_t(memory)].bandwidthBytesPerCycle;
          bw > 0 && bytes / bw > m_.overlapped) {
        m_.overlapped = bytes / bw;
        m_.slowest = Bound::Bandwidth;
        m_.slowestAt = memory;
      }
    m_.serial += m_.prologue + m_.fillLatency + m_.drainLatency;
  }

  // Compute, and the latency bound of accumulation chains.
  void computeBound() {
    const ir::Statement &I = instr_.semantics.statements[0];
    double perCycle = instr_.cost.perCycle;
    double calls = callCount(c_);
    cost_.computeCycles = calls / (perCycle * coresUsed_);
    cost_.bound = Bound::Compute;
    if (c_.finisher >= 0) {
      const hw::Instruction &f = target_.instructions[size_t(c_.finisher)];
      cost_.computeCycles += finisherCalls() / (f.cost.perCycle * coresUsed_);
    }
    if (I.reduce == ir::ReduceOp::None)
      return;
    std::vector<std::pair<double, double>> parts = accumulatorParts();
    cost_.accumulators = int(parts.front().second);
    double perCall = 0, waits = 0;
    for (auto [share, count] : parts) {
      perCall += share * limits(1 / perCycle, instr_.cost.latencyCycles / count);
      waits += share * instr_.cost.latencyCycles / count;
    }
    cost_.computeCycles = std::max(cost_.computeCycles, calls * perCall / coresUsed_);
    // The verdict names the larger limit; the blend near the crossing slows either.
    if (waits > 1 / perCycle * (1 + 1e-9))
      cost_.bound = Bound::Latency;
  }

  // Two limits on one loop, such as the cycles between calls given the issue rate's and the
  // accumulators' (each waits out the latency): the larger, where the description's timing is the
  // machine's (an accelerator, a simulator). A CPU with an LLVM backend issues out of order and
  // shares its ports with the loads and broadcasts, so the two limits blend near the crossing: the
  // 4-norm of the two. On this repository's AVX-512 Xeon (latency 4, 2 FMAs a cycle), a register
  // tile's loop of FMAs from L1 ran, against 24 accumulators: 4 at 0.56 (the norm says 0.49), 6 at
  // 0.79 (0.70), 8 at 0.87 (0.84), 12 at 0.94 (0.96), 16 at 0.97 (0.985). The hard maximum said 1
  // from 8 on, and rated tiles of 8 accumulators as fast as tiles of 16.
  double limits(double issue, double latency) const {
    if (target_.triple.empty())
      return std::max(issue, latency);
    return std::pow(std::pow(issue, 4) + std::pow(latency, 4), 0.25);
  }

  // A lane-reduced result is folded at every write-back of its register tile: once per element
  // of the tile, as often as the tile is loaded (a register tile shorter than the reduction is
  // folded once per pass over it).
  double finisherCalls() const {
    for (size_t o = 0; o < c_.operands.size(); ++o) {
      const OperandPlacement &p = c_.operands[o];
      if (!p.output || p.tensor < 0)
        continue;
      for (size_t l = 0; l < c_.levels.size(); ++l)
        if (c_.levels[l].registers && p.staged[l])
          return operandTraffic(kernel_, c_, o, l).loads *
                 double(tileElements(s_, p.access, c_.vindices, c_.tiles[l]));
    }
    return 0;
  }

  // Independent accumulators per reduction step, as (share of the calls, count). Where the
  // enclosing level's tile is not a multiple of this level's, its last step holds fewer of
  // them, and its calls wait longer for their results: each part of the calls is costed with
  // its own count.
  std::vector<std::pair<double, double>> accumulatorParts() const {
    size_t nl = c_.levels.size();
    const auto &inner = c_.order[nl - 1];
    size_t lastReduction = 0;
    bool anyReduction = false;
    for (size_t k = 0; k < inner.size(); ++k)
      if (c_.vindices[size_t(inner[k])].reduction && tripsOf(c_, nl - 1, size_t(inner[k])) > 1)
        lastReduction = k, anyReduction = true;
    std::vector<std::pair<double, double>> parts{{1.0, 1.0}};
    for (size_t k = anyReduction ? lastReduction + 1 : 0; k < inner.size(); ++k) {
      size_t v = size_t(inner[k]);
      if (c_.vindices[v].reduction)
        continue;
      int64_t step = stepOf(c_, nl - 1, v), extent = c_.vindices[v].extent;
      int64_t tile = std::min(c_.tiles[nl - 1][v], extent);
      int64_t outer = nl >= 2 ? std::min(c_.tiles[nl - 2][v], extent) : extent;
      int64_t rest = tile > 0 ? outer % tile : 0;
      double restShare = outer > 0 ? double(rest) / double(outer) : 0;
      std::vector<std::pair<double, double>> next;
      for (auto [share, count] : parts) {
        next.push_back({share * (1 - restShare), count * double(tripsOf(c_, nl - 1, v))});
        if (rest > 0)
          next.push_back({share * restShare, count * double((rest + step - 1) / step)});
      }
      parts = std::move(next);
    }
    return parts;
  }

  // Total cycles, the search's score (cycles, then data movement), the bound and utilization.
  void finish() {
    size_t nl = c_.levels.size();
    // On a CPU the arithmetic and the loads that feed it share the core's issue and ports: near
    // each other's limit, they do not overlap perfectly (a 32 x 8 register tile, 10 loads per 16
    // FMAs, ran 1.2x slower than a 48 x 8 one, 11 per 24, that the hard maximum rated alike).
    cost_.cycles = limits(cost_.computeCycles, m_.overlapped) + m_.serial;
    // Native code forks and joins its threads each time the parallel loop starts: a small
    // statement runs faster on one, and a parallel loop inside others pays it on every trip.
    if (coresUsed_ > 1 && !target_.triple.empty())
      cost_.cycles += parallelStarts(c_) * kForkJoinSeconds * target_.clockHz;
    double movement = 0;
    for (const auto &lc : cost_.levels)
      movement += lc.cycles;
    // A layout change into a scratchpad is the host's work (a packed copy of the tensor, read
    // and written): not accelerator cycles, but movement all the same.
    for (const auto &p : c_.operands)
      if (p.layoutChange)
        for (size_t l = 0; l < nl; ++l)
          if (p.staged[l] && c_.levels[l].softwareManaged && !c_.levels[l].registers) {
            const ir::Tensor &t = kernel_.tensors[size_t(p.tensor)];
            movement += 2.0 * double(t.elementCount()) * ir::elemTypeBytes(t.type) /
                        std::max(1.0, c_.levels[l].bandwidthBytesPerCycle);
            break;
          }
    cost_.score = cost_.cycles + 1e-3 * movement;
    if (m_.overlapped > cost_.computeCycles && m_.overlapped >= m_.serial) {
      cost_.bound = m_.slowest;
      cost_.boundAt = m_.slowestAt;
    } else if (m_.serial > std::max(cost_.computeCycles, m_.overlapped)) {
      cost_.bound = Bound::MovesNotOverlapped;
    }
    const ir::Statement &I = instr_.semantics.statements[0];
    double instrPoints = 1;
    for (const auto &idx : I.indices)
      instrPoints *= idx.param.empty() ? double(idx.extent) : 1.0;
    double ideal = double(s_.pointCount()) / (instrPoints * instr_.cost.perCycle * target_.cores);
    cost_.utilization = cost_.cycles > 0 ? std::min(1.0, ideal / cost_.cycles) : 0;
    cost_.valid = true;
    cost_.doubleBuffered = doubleBuffered_;
  }

  const ir::Kernel &kernel_;
  const hw::Target &target_;
  const Config &c_;
  const std::vector<bool> &doubleBuffered_;
  const ir::Statement &s_;
  const hw::Instruction &instr_;
  double coresUsed_ = 1;
  Movement m_;
  // Each operand's traffic at each level on its path, as loadOf found it (packSourceCycles
  // reads the levels outside a pack).
  std::vector<std::vector<Traffic>> pathTraffic_;
  Cost cost_;
};

} // namespace

AnalyticalModel::AnalyticalModel(const ir::Kernel &kernel, const hw::Target &target,
                                 const mapping::StatementMappings &mappings)
    : kernel_(kernel), target_(target), mappings_(mappings) {}

Cost AnalyticalModel::evaluate(const Config &config) const {
  // Scratchpads start double-buffered; one whose tiles do not fit twice is single-buffered,
  // and the whole Config costed again.
  (void)mappings_;
  std::vector<bool> doubleBuffered = config.doubleBuffered;
  for (;;) {
    int overfull = -1;
    Cost cost = Evaluation(kernel_, target_, config, doubleBuffered).run(overfull);
    if (overfull < 0)
      return cost;
    doubleBuffered[size_t(overfull)] = false;
  }
}

Traffic operandTraffic(const ir::Kernel &kernel, const Config &c, size_t operand, size_t level) {
  Traffic out;
  const OperandPlacement &p = c.operands[operand];
  if (p.tensor < 0)
    return out;
  const ir::Statement &s = kernel.statements[c.statement];
  int elemBytes = ir::elemTypeBytes(stagedType(kernel, p));
  const Level &lv = c.levels[level];
  bool onPath = std::find(p.path.begin(), p.path.end(), int(level)) != p.path.end();
  if (!onPath) {
    if (!lv.registers || p.output)
      return out;
    // Read from memory at every call, as a memory operand of the instruction: one load of the
    // path each, whatever its width. On a Zen 4 core (two 256-bit loads a cycle, one 512-bit)
    // 16 vfmadd231ps with a {1to16} operand and 8 512-bit loads beside them ran in 16.0-16.6
    // cycles, as fast as the 16 FMAs alone; on a Zen 5 core (two loads a cycle of any width, two
    // FMAs) 16 of them with one 512-bit load ran in 8.5 cycles, 24 with two in 13, not 8 and 12.
    double calls = callCount(c);
    double slot = std::max<double>(elemBytes, lv.loadSlotBytes);
    out.tileBytes = slot;
    out.loads = calls;
    out.totalBytes = calls * slot;
    return out;
  }
  out.tileBytes = double(tileElements(s, p.access, c.vindices, c.tiles[level])) * elemBytes;
  // Into a scratchpad, the DMA moves the tile in the instruction's layout (a packed operand's
  // windows overlap there, so it can exceed the tensor's footprint).
  if (lv.softwareManaged && !lv.registers && p.staged[level] && !layoutDims(c, operand).empty())
    out.tileBytes = double(product(layoutTile(c, operand, level, false))) * elemBytes;
  // Reuse: loops outside this level that do not touch the operand, innermost first, leave its
  // tile in place. Not an input's register tile that spans several reduction steps: the
  // registers hold one step of it at a time, so every visit of the register tile loads it all
  // again (B of a GEMM, once per register tile of A's rows).
  bool streamed = false;
  if (lv.registers && !p.output)
    for (size_t v = 0; v < c.vindices.size(); ++v)
      streamed = streamed || (c.vindices[v].reduction && touches(p.access, c.vindices[v]) &&
                              c.tiles[level][v] > std::max<int64_t>(1, c.vindices[v].instrExtent));
  double loads = 1;
  bool changed = streamed, blocked = sumsItsOwnBlock(s, c, operand, level);
  for (size_t j = level; j-- > 0;)
    for (size_t k = c.order[j].size(); k-- > 0;) {
      int v = c.order[j][k];
      const VirtualIndex &vi = c.vindices[size_t(v)];
      changed = changed || touches(p.access, vi) || (blocked && vi.reduction);
      if (changed)
        loads *= double(tripsOf(c, j, size_t(v)));
    }
  out.loads = loads;
  out.totalBytes = loads * out.tileBytes * (p.output ? 2 : 1);
  if (lv.registers && p.scalar && !p.output)
    out.totalBytes *= std::max(1, int(lv.registerBytes) / elemBytes);
  // A tile staged across a layout change (a pack, or a register tile of transposed
  // accumulators) is gathered and scattered an element at a time: each element takes a whole
  // vector-wide slot of the path. A pack whose rows run along the tensor's unit stride moves
  // whole vectors instead, transposed in registers (packTransposes): a load and a store per
  // vector and log2(lanes) shuffles, against a plain copy's load and store.
  if (p.staged[level] && p.layoutChange) {
    double lanes = double(vectorLanes(c, elemBytes));
    out.totalBytes *=
        packTransposes(kernel, c, operand, level) ? (2 + std::log2(lanes)) / 2 : lanes;
  }
  return out;
}

bool loadsInto(const Config &c, size_t operand, size_t level) {
  const OperandPlacement &p = c.operands[operand];
  if (p.tensor < 0)
    return false;
  if (std::find(p.path.begin(), p.path.end(), int(level)) != p.path.end())
    return true;
  return c.levels[level].registers && !p.output;
}

} // namespace isam::schedule
