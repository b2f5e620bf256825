#include "schedule/CostModel.h"

#include "schedule/Geometry.h"

#include <algorithm>
#include <cmath>
#include <map>
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

} // namespace

AnalyticalModel::AnalyticalModel(const ir::Kernel &kernel, const hw::Target &target,
                                 const mapping::StatementMappings &mappings)
    : kernel_(kernel), target_(target), mappings_(mappings) {}

Cost AnalyticalModel::evaluate(Config &c) const {
  Cost cost;
  const ir::Statement &s = kernel_.statements[c.statement];
  const hw::Instruction &instr = target_.instructions[size_t(c.instruction)];
  const ir::Statement &I = instr.semantics.statements[0];
  size_t nv = c.vindices.size(), nl = c.levels.size();

  auto invalid = [&](std::string why) {
    cost.valid = false;
    cost.invalidReason = std::move(why);
    return cost;
  };

  // A result staged in a scratchpad needs a move that writes it back out.
  for (const auto &p : c.operands)
    if (p.output && p.tensor >= 0)
      for (size_t j = 1; j < p.path.size(); ++j) {
        const Level &lv = c.levels[size_t(p.path[j])];
        if (p.staged[size_t(p.path[j])] && !lv.registers &&
            !moveOut(target_, lv.memory, c.levels[size_t(p.path[j - 1])].memory))
          return invalid("no move writes " + kernel_.tensors[size_t(p.tensor)].name +
                         " back out of " + lv.name);
      }

  // Calls and cores.
  double calls = callCount(c);
  double coresUsed = 1;
  if (c.parallel >= 0)
    coresUsed = std::min<double>(target_.cores, double(tripsOf(c, 0, c.parallel)));

  // Working sets and traffic per level.
  auto bytesOf = [&](const OperandPlacement &p, const std::vector<int64_t> &tile) {
    return double(product(tileFootprint(s, p.access, c.vindices, tile))) *
           ir::elemTypeBytes(kernel_.tensors[p.tensor].type);
  };
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
  for (size_t l = 1; l < nl; ++l) {
    const Level &lv = c.levels[l];
    Cost::LevelCost lc;
    lc.memory = lv.memory;
    lc.capacityBytes = double(lv.capacityBytes);
    double footprint = 0, transfers = 0;
    int registers = 0;
    // Register tiles filled (and written back) by the code around the tile's loops: those
    // moves are instructions of their own, between one tile's steady state and the next's.
    std::vector<std::pair<const OperandPlacement *, double>> stagedRegisters;
    for (const auto &p : c.operands) {
      if (!loadsInto(c, size_t(&p - c.operands.data()), l))
        continue;
      if (std::find(p.path.begin(), p.path.end(), int(l)) == p.path.end()) {
        lc.bytes += operandTraffic(kernel_, c, size_t(&p - c.operands.data()), l).totalBytes;
        continue;
      }
      double bytes = bytesOf(p, c.tiles[l]);
      // A scratchpad holds the tile in the instruction's layout, padded to whole operands.
      size_t o = size_t(&p - c.operands.data());
      if (lv.softwareManaged && !lv.registers && p.staged[l] && !layoutDims(c, o).empty())
        bytes = double(product(layoutTile(c, o, l, true))) *
                ir::elemTypeBytes(kernel_.tensors[size_t(p.tensor)].type);
      if (lv.registers) {
        // One register group per instruction operand instance: every accumulator of the
        // register tile stays live; an input needs one per vector lane group it spans (a
        // broadcast scalar, one), reloaded each reduction step.
        const ir::Tensor &op = instr.semantics.tensors[p.operand];
        int width = std::max<int>(1, target_.memories[lv.memory].registerBytes);
        double perInstance = std::ceil(double(std::max<int64_t>(1, op.elementCount())) *
                                       ir::elemTypeBytes(op.type) / width);
        double instances = 1;
        for (size_t v = 0; v < nv; ++v)
          if (touches(p.access, c.vindices[v]) && (p.output || c.vindices[v].instrIndex >= 0) &&
              !(op.shape.empty() && !p.output))
            instances *= double(tripsOf(c, l, v));
        registers += int(perInstance * instances);
        footprint += bytes;
        if (p.staged[l])
          stagedRegisters.push_back({&p, perInstance * instances});
      } else {
        footprint += bytes * (c.doubleBuffered[l] && p.staged[l] ? 2 : 1);
      }
      Traffic traffic = operandTraffic(kernel_, c, size_t(&p - c.operands.data()), l);
      double loads = traffic.loads, moved = traffic.totalBytes;
      if (!stagedRegisters.empty() && stagedRegisters.back().first == &p)
        stagedRegisters.back().second *= loads;
      lc.bytes += moved;
      if (p.staged[l])
        transfers += loads;
    }
    lc.footprintBytes = footprint;
    if (lv.registers) {
      // A register level's working set is its registers, not the data streamed through them.
      lc.footprintBytes = double(registers) * target_.memories[lv.memory].registerBytes;
      cost.registersUsed = registers;
      int count = int(target_.memories[lv.memory].registerCount);
      if (registers > count)
        return invalid("the register tile needs " + std::to_string(registers) + " of " +
                       std::to_string(count) + " " + lv.name + " registers");
    } else if (lv.capacityBytes > 0 && footprint > double(lv.capacityBytes)) {
      if (c.doubleBuffered[l]) {
        c.doubleBuffered[l] = false;
        return evaluate(c);
      }
      std::ostringstream why;
      why << "the tiles at " << lv.name << " need " << footprint << " B of " << lv.capacityBytes;
      return invalid(why.str());
    }
    double bw = lv.bandwidthBytesPerCycle;
    // Moves into a scratchpad go at the slower of the path's and the move's own bandwidth.
    for (const auto &p : c.operands)
      if (p.staged[l])
        if (const hw::Instruction *mv = stagingMove(p.staging[l], target_);
            mv && mv->cost.bandwidthBytesPerCycle > 0)
          bw = bw > 0 ? std::min(bw, mv->cost.bandwidthBytesPerCycle)
                      : mv->cost.bandwidthBytesPerCycle;
    bool privateLevel = l > 0 && target_.memories[lv.memory].parent >= 0;
    lc.cycles = bw > 0 ? lc.bytes / (bw * (privateLevel ? coresUsed : 1)) : 0;
    double moveLatency = 0;
    for (const auto &p : c.operands)
      if (p.staged[l])
        if (const hw::Instruction *mv = stagingMove(p.staging[l], target_))
          moveLatency = std::max(moveLatency, mv->cost.latencyCycles);
    // The fills and write-backs issue at their moves' rates; out-of-order cores overlap about
    // half of them with the neighbouring tiles' arithmetic.
    for (auto [p, moves] : stagedRegisters) {
      const hw::Instruction *in = stagingMove(p->staging[l], target_);
      const hw::Instruction *out = p->output ? storeFrom(target_, lv.memory) : nullptr;
      double cycles = moves / (in && in->cost.perCycle > 0 ? in->cost.perCycle : 1);
      if (p->output)
        cycles += moves / (out && out->cost.perCycle > 0 ? out->cost.perCycle : 1);
      serial += 0.5 * cycles / coresUsed;
    }
    if (lv.softwareManaged && !lv.registers && !c.doubleBuffered[l]) {
      serial += lc.cycles + transfers * moveLatency / coresUsed;
    } else if (lv.softwareManaged && !lv.registers) {
      for (size_t o = 0; o < c.operands.size(); ++o) {
        const OperandPlacement &p = c.operands[o];
        auto at = std::find(p.path.begin(), p.path.end(), int(l));
        if (!p.staged[l] || at == p.path.begin() || at == p.path.end())
          continue;
        int outer = c.levels[size_t(*(at - 1))].memory;
        Traffic tr = operandTraffic(kernel_, c, o, l);
        double once = tr.loads * tr.tileBytes;
        const hw::Instruction *fill = stagingMove(p.staging[l], target_);
        const hw::Instruction *drain = p.output ? moveOut(target_, lv.memory, outer) : nullptr;
        for (auto [mv, bytes] : {std::pair{fill, once}, std::pair{drain, p.output ? once : 0.0}}) {
          if (!mv || bytes <= 0)
            continue;
          double rate = mv->cost.bandwidthBytesPerCycle > 0 ? mv->cost.bandwidthBytesPerCycle : bw;
          unitCycles[mv->unit] += rate > 0 ? bytes / rate : 0;
          prologue += rate > 0 ? tr.tileBytes / rate : 0;
          double &latency = mv == fill ? fillLatency : drainLatency;
          latency = std::max(latency, mv->cost.latencyCycles);
        }
        channelBytes[outer] += once * (p.output ? 2 : 1);
      }
    } else if (lc.cycles > overlapped) {
      overlapped = lc.cycles;
      slowest = Bound::Bandwidth;
      slowestAt = lv.memory;
    }
    cost.levels.push_back(lc);
  }

  for (auto [unit, cycles] : unitCycles)
    if (cycles / coresUsed > overlapped) {
      overlapped = cycles / coresUsed;
      slowest = Bound::UnitBandwidth;
      slowestAt = unit;
    }
  for (auto [memory, bytes] : channelBytes)
    if (double bw = target_.memories[size_t(memory)].bandwidthBytesPerCycle;
        bw > 0 && bytes / bw > overlapped) {
      overlapped = bytes / bw;
      slowest = Bound::Bandwidth;
      slowestAt = memory;
    }
  serial += prologue + fillLatency + drainLatency;

  // Compute, and the latency bound of accumulation chains.
  double perCycle = instr.cost.perCycle;
  cost.computeCycles = calls / (perCycle * coresUsed);
  cost.bound = Bound::Compute;
  if (I.reduce != ir::ReduceOp::None) {
    const auto &inner = c.order[nl - 1];
    size_t lastReduction = 0;
    bool anyReduction = false;
    for (size_t k = 0; k < inner.size(); ++k)
      if (c.vindices[inner[k]].reduction && tripsOf(c, nl - 1, inner[k]) > 1)
        lastReduction = k, anyReduction = true;
    // Independent accumulators per reduction step. Where the enclosing level's tile is not a
    // multiple of this level's, its last step holds fewer of them, and its calls wait longer
    // for their results: each part of the calls is costed with its own count.
    std::vector<std::pair<double, double>> parts{{1.0, 1.0}}; // (share of the calls, count)
    for (size_t k = anyReduction ? lastReduction + 1 : 0; k < inner.size(); ++k) {
      size_t v = size_t(inner[k]);
      if (c.vindices[v].reduction)
        continue;
      int64_t step = stepOf(c, nl - 1, v), extent = c.vindices[v].extent;
      int64_t tile = std::min(c.tiles[nl - 1][v], extent);
      int64_t outer = nl >= 2 ? std::min(c.tiles[nl - 2][v], extent) : extent;
      int64_t rest = tile > 0 ? outer % tile : 0;
      double restShare = outer > 0 ? double(rest) / double(outer) : 0;
      std::vector<std::pair<double, double>> next;
      for (auto [share, count] : parts) {
        next.push_back({share * (1 - restShare), count * double(tripsOf(c, nl - 1, v))});
        if (rest > 0)
          next.push_back({share * restShare, count * double((rest + step - 1) / step)});
      }
      parts = std::move(next);
    }
    cost.accumulators = int(parts.front().second);
    double perCall = 0;
    for (auto [share, count] : parts)
      perCall += share * std::max(1 / perCycle, instr.cost.latencyCycles / count);
    double latencyBound = calls * perCall / coresUsed;
    if (latencyBound > cost.computeCycles * (1 + 1e-9)) {
      cost.computeCycles = latencyBound;
      cost.bound = Bound::Latency;
    }
  }
  cost.cycles = std::max(cost.computeCycles, overlapped) + serial;
  double movement = 0;
  for (const auto &lc : cost.levels)
    movement += lc.cycles;
  // A layout change into a scratchpad is the host's work (a packed copy of the tensor, read
  // and written): not accelerator cycles, but movement all the same.
  for (const auto &p : c.operands)
    if (p.layoutChange)
      for (size_t l = 0; l < nl; ++l)
        if (p.staged[l] && c.levels[l].softwareManaged && !c.levels[l].registers) {
          const ir::Tensor &t = kernel_.tensors[size_t(p.tensor)];
          movement += 2.0 * double(t.elementCount()) * ir::elemTypeBytes(t.type) /
                      std::max(1.0, c.levels[l].bandwidthBytesPerCycle);
          break;
        }
  cost.score = cost.cycles + 1e-3 * movement;
  if (overlapped > cost.computeCycles && overlapped >= serial) {
    cost.bound = slowest;
    cost.boundAt = slowestAt;
  } else if (serial > std::max(cost.computeCycles, overlapped)) {
    cost.bound = Bound::MovesNotOverlapped;
  }

  double instrPoints = 1;
  for (const auto &idx : I.indices)
    instrPoints *= idx.param.empty() ? double(idx.extent) : 1.0;
  double ideal = double(s.pointCount()) / (instrPoints * perCycle * target_.cores);
  cost.utilization = cost.cycles > 0 ? std::min(1.0, ideal / cost.cycles) : 0;
  cost.valid = true;
  (void)mappings_;
  return cost;
}

Traffic operandTraffic(const ir::Kernel &kernel, const Config &c, size_t operand, size_t level) {
  Traffic out;
  const OperandPlacement &p = c.operands[operand];
  if (p.tensor < 0)
    return out;
  const ir::Statement &s = kernel.statements[c.statement];
  int elemBytes = ir::elemTypeBytes(kernel.tensors[size_t(p.tensor)].type);
  const Level &lv = c.levels[level];
  bool onPath = std::find(p.path.begin(), p.path.end(), int(level)) != p.path.end();
  if (!onPath) {
    if (!lv.registers || p.output)
      return out;
    // Read from memory at every call: one load slot each.
    double calls = callCount(c);
    out.tileBytes = elemBytes;
    out.loads = calls;
    out.totalBytes = calls * std::max<double>(lv.registerBytes, elemBytes);
    return out;
  }
  out.tileBytes =
      double(product(tileFootprint(s, p.access, c.vindices, c.tiles[level]))) * elemBytes;
  // Into a scratchpad, the DMA moves the tile in the instruction's layout (a packed operand's
  // windows overlap there, so it can exceed the tensor's footprint).
  if (lv.softwareManaged && !lv.registers && p.staged[level] && !layoutDims(c, operand).empty())
    out.tileBytes = double(product(layoutTile(c, operand, level, false))) * elemBytes;
  // Reuse: loops outside this level that do not touch the operand, innermost first, leave its
  // tile in place.
  double loads = 1;
  bool changed = false;
  for (size_t j = level; j-- > 0;)
    for (size_t k = c.order[j].size(); k-- > 0;) {
      int v = c.order[j][k];
      changed = changed || touches(p.access, c.vindices[size_t(v)]);
      if (changed)
        loads *= double(tripsOf(c, j, size_t(v)));
    }
  out.loads = loads;
  out.totalBytes = loads * out.tileBytes * (p.output ? 2 : 1);
  if (lv.registers && p.scalar && !p.output)
    out.totalBytes *= std::max(1, int(lv.registerBytes) / elemBytes);
  // A tile staged across a layout change (a pack, or a register tile of transposed
  // accumulators) is gathered and scattered an element at a time: each element takes a whole
  // vector-wide slot of the path.
  if (p.staged[level] && p.layoutChange) {
    uint32_t vectorBytes = 0;
    for (const auto &lv : c.levels)
      vectorBytes = std::max(vectorBytes, lv.registerBytes);
    out.totalBytes *= std::max(1, int(vectorBytes) / elemBytes);
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
