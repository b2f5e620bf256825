#include "schedule/Space.h"

#include "schedule/Geometry.h"
#include "schedule/Prefetch.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace isam::schedule {

namespace {

// A move between `memory` and one of its ancestors, in either direction.
const hw::Instruction *moveBetween(const hw::Target &t, int memory, int ancestor) {
  for (const auto &in : t.instructions) {
    if (!in.isMove)
      continue;
    int src = -1, dst = -1;
    for (const auto &op : in.semantics.tensors)
      (op.role == ir::TensorRole::Input ? src : dst) = t.memoryIndex(op.memory);
    if ((dst == memory && src == ancestor) || (src == memory && dst == ancestor))
      return &in;
  }
  return nullptr;
}

// The memories an operand passes through, innermost first: up the parent chain, jumping
// straight to an ancestor when a move connects the two (a DMA from DRAM into ACC skips SPAD).
std::vector<int> pathOf(const hw::Target &t, int memory) {
  std::vector<int> path{memory};
  for (int level = memory; t.memories[level].parent >= 0;) {
    int next = t.memories[level].parent;
    for (int anc = t.memories[level].parent; anc >= 0; anc = t.memories[anc].parent)
      if (moveBetween(t, level, anc)) {
        next = anc;
        break;
      }
    path.push_back(next);
    level = next;
  }
  return path;
}

int depth(const hw::Target &t, int memory) {
  int d = 0;
  for (int m = t.memories[memory].parent; m >= 0; m = t.memories[m].parent)
    ++d;
  return d;
}

ir::Access firstRead(const ir::Expr &e, int tensor) {
  if (e.kind == ir::Expr::Kind::Read && e.access.tensor == tensor)
    return e.access;
  for (const auto &a : e.args) {
    ir::Access found = firstRead(a, tensor);
    if (found.tensor >= 0)
      return found;
  }
  return {};
}

std::vector<std::vector<int>> permutations(size_t n) {
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  std::vector<std::vector<int>> out;
  do {
    out.push_back(p);
  } while (std::next_permutation(p.begin(), p.end()) && out.size() < 120);
  return out;
}

// The orders (up to 120) that run every reduction index outside every spatial one.
std::vector<std::vector<int>> reductionsFirst(const std::vector<VirtualIndex> &vindices) {
  std::vector<int> reductions, spatial;
  for (size_t v = 0; v < vindices.size(); ++v)
    (vindices[v].reduction ? reductions : spatial).push_back(int(v));
  std::vector<std::vector<int>> out;
  do {
    std::vector<int> s = spatial;
    do {
      out.push_back(reductions);
      out.back().insert(out.back().end(), s.begin(), s.end());
    } while (std::next_permutation(s.begin(), s.end()) && out.size() < 120);
  } while (std::next_permutation(reductions.begin(), reductions.end()) && out.size() < 120);
  return out;
}

// Virtual indices: bound groups (in instruction order), then the loops.
std::vector<VirtualIndex> virtualIndices(const ir::Statement &s, const mapping::Candidate &c) {
  std::vector<VirtualIndex> out;
  for (size_t ii = 0; ii < c.bindings.size(); ++ii) {
    const auto &b = c.bindings[ii];
    if (b.stmtIndices.empty())
      continue;
    VirtualIndex v;
    for (int si : b.stmtIndices)
      v.name += (v.name.empty() ? "" : "*") + s.indices[si].name;
    v.stmtIndices = b.stmtIndices;
    v.extent = b.stmtExtent;
    v.instrIndex = int(ii);
    v.free = b.instrExtent == 0;
    v.instrExtent = v.free ? 1 : b.instrExtent;
    v.reduction = s.indices[b.stmtIndices[0]].reduction;
    out.push_back(v);
  }
  for (int si : c.loops) {
    VirtualIndex v;
    v.name = s.indices[si].name;
    v.stmtIndices = {si};
    v.extent = s.indices[si].extent;
    v.reduction = s.indices[si].reduction;
    out.push_back(v);
  }
  return out;
}

// Loads into register memory m that start per cycle: the units of the moves that fill it from
// the memory outside (two load pipes on x86 and Arm cores); 1 when no move says.
uint32_t loadsPerCycle(const hw::Target &target, int m) {
  uint32_t units = 0;
  for (const auto &in : target.instructions) {
    if (!in.isMove || in.unit < 0 || in.semantics.tensors.empty())
      continue;
    bool fills = false, fromParent = false;
    for (const auto &op : in.semantics.tensors) {
      int at = target.memoryIndex(op.memory);
      if (op.role == ir::TensorRole::Input)
        fromParent = fromParent || at == target.memories[size_t(m)].parent;
      else
        fills = fills || at == m;
    }
    if (fills && fromParent)
      units = std::max(units, target.units[size_t(in.unit)].count);
  }
  return std::max(1u, units);
}

// Levels: the memories on the operands' paths (each innermost first), outermost first.
std::vector<Level> levelsOf(const hw::Target &target, const std::vector<std::vector<int>> &paths) {
  std::vector<int> memories;
  for (const auto &path : paths)
    for (int m : path)
      if (std::find(memories.begin(), memories.end(), m) == memories.end())
        memories.push_back(m);
  std::stable_sort(memories.begin(), memories.end(),
                   [&](int a, int b) { return depth(target, a) < depth(target, b); });
  std::vector<Level> out;
  for (int m : memories) {
    const hw::Memory &mem = target.memories[m];
    Level l;
    l.memory = m;
    l.name = mem.name;
    l.registers = mem.isRegisters;
    l.softwareManaged = target.isSoftwareManaged(m);
    l.capacityBytes = mem.sizeBytes;
    double parentBw = mem.parent >= 0 ? target.memories[mem.parent].bandwidthBytesPerCycle : 0;
    l.bandwidthBytesPerCycle = parentBw;
    l.registerBytes = mem.isRegisters ? mem.registerBytes : 0;
    if (mem.isRegisters)
      l.loadSlotBytes = parentBw / double(loadsPerCycle(target, m));
    out.push_back(l);
  }
  return out;
}

// Which virtual index each of instruction operand o's dimensions follows (empty when the
// instruction indexes it by more than plain indices).
std::vector<int> operandDims(const hw::Instruction &instr, size_t o, const Config &k) {
  std::vector<int> dims;
  const ir::Statement &I = instr.semantics.statements[0];
  ir::Access own = I.lhs.tensor == int(o) ? I.lhs : firstRead(I.rhs, int(o));
  for (const auto &d : own.indices) {
    if (d.terms.size() != 1 || d.terms[0].second != 1 || d.constant != 0)
      return {};
    int follows = -1;
    for (size_t v = 0; v < k.vindices.size(); ++v)
      if (k.vindices[v].instrIndex == d.terms[0].first)
        follows = int(v);
    dims.push_back(follows);
  }
  return dims;
}

// Which rows of an input lie a page or more apart: those walked by a reduction index are
// packed (contiguously, in its own layout), since the reduction runs long in the register tile
// and a strided tile would touch a new page and prefetch stream at every step; those walked by
// a spatial index only (a GEMM's A along m, K a page long) may be packed, where a register
// tile's rows would share a cache set beyond its ways.
enum class FarRows { None, Spatial, Reduction };

FarRows farRows(const ir::Kernel &kernel, const ir::Statement &s, const OperandPlacement &p) {
  const ir::Tensor &t = kernel.tensors[size_t(p.tensor)];
  int64_t stride = 1;
  FarRows far = FarRows::None;
  for (size_t d = t.shape.size(); d-- > 0;) {
    bool reductionRow = false;
    for (auto [i, coef] : p.access.indices[d].terms)
      reductionRow = reductionRow || s.indices[size_t(i)].reduction;
    if (d + 1 < t.shape.size() && t.shape[d] > 1 &&
        stride * ir::elemTypeBytes(t.type) >= kPageBytes)
      far = reductionRow ? FarRows::Reduction : std::max(far, FarRows::Spatial);
    stride *= t.shape[d];
  }
  return far;
}

// Operand placement: staged where software-managed (inputs are read from registers at the
// call, results are held there), packed at the innermost cache level when the mapping needs a
// layout change (or the rows lie far apart).
OperandPlacement placeOperand(const ir::Kernel &kernel, const ir::Statement &s,
                              const hw::Target &target, const mapping::Candidate &c,
                              const hw::Instruction &instr, size_t o,
                              const std::vector<int> &memoryPath, const Config &k) {
  const auto &op = instr.semantics.tensors[o];
  OperandPlacement p;
  p.operand = int(o);
  const mapping::OperandBinding &binding = c.operands[o];
  p.tensor = binding.computedSeparately && !binding.computed ? -1 : binding.tensor;
  p.computed = binding.computed;
  p.output = op.role != ir::TensorRole::Input;
  p.scalar = op.shape.empty();
  if (p.tensor >= 0)
    p.access = c.operands[o].access;
  p.shape = op.shape;
  p.dims = operandDims(instr, o, k);
  p.staged.assign(k.levels.size(), false);
  p.staging.assign(k.levels.size(), {});
  auto levelOf = [&](int memory) {
    for (size_t l = 0; l < k.levels.size(); ++l)
      if (k.levels[l].memory == memory)
        return int(l);
    return -1;
  };
  for (auto it = memoryPath.rbegin(); it != memoryPath.rend(); ++it)
    p.path.push_back(levelOf(*it));
  int innermostCache = -1;
  for (size_t j = 1; j < p.path.size(); ++j) {
    int l = p.path[j];
    const Level &lv = k.levels[l];
    int outer = p.path[j - 1];
    if (lv.softwareManaged && (!lv.registers || p.output)) {
      p.staged[l] = true;
      const hw::Instruction *mv = moveBetween(target, lv.memory, k.levels[outer].memory);
      p.staging[l] = mv ? Staging{Staging::Kind::Move, int(mv - target.instructions.data())}
                        : Staging{Staging::Kind::Copy};
    }
    if (!lv.softwareManaged)
      innermostCache = l;
  }
  // An operand computed from its access is packed: the pack computes it.
  p.layoutChange = c.operands[o].needsPack && p.tensor >= 0;
  if (p.layoutChange) {
    // A layout change is a copy through the innermost cache level; where the path has none
    // (a scratchpad filled by DMA), the first staging copy has to make it.
    if (innermostCache > 0 && !p.output) {
      p.staged[innermostCache] = true;
      p.staging[innermostCache] = {Staging::Kind::Pack};
    } else {
      for (size_t l = 0; l < p.staged.size(); ++l)
        if (p.staged[l] && !k.levels[l].registers) {
          p.staging[l] = p.staging[l].kind == Staging::Kind::Move
                             ? Staging{Staging::Kind::PackThenMove, p.staging[l].move}
                             : Staging{Staging::Kind::PackThenCopy};
          break;
        }
    }
  }
  if (!p.layoutChange && !p.output && p.tensor >= 0 && innermostCache > 0 &&
      !p.staged[innermostCache] && farRows(kernel, s, p) == FarRows::Reduction) {
    p.staged[innermostCache] = true;
    p.staging[innermostCache] = {Staging::Kind::Pack};
  }
  return p;
}

// Tile options of a virtual index: powers of two times the instruction's extent, small
// multiples (register tiles such as 5 or 6 vectors) and larger ones that divide the extent
// evenly (no remainder), and the whole extent.
std::vector<int64_t> tileOptionsOf(const VirtualIndex &v) {
  std::vector<int64_t> opts;
  int64_t full = roundUp(v.extent, v.instrExtent);
  for (int64_t t = v.instrExtent; t < full; t *= 2)
    opts.push_back(t);
  for (int64_t m = 3; m <= 16; ++m)
    if (v.instrExtent * m < full && (m <= 8 || full % (v.instrExtent * m) == 0))
      opts.push_back(v.instrExtent * m);
  // Shares of a parallel split: the extent in two, three or four even parts.
  for (int64_t parts = 2; parts <= 4; ++parts)
    if (int64_t share = roundUp((full + parts - 1) / parts, v.instrExtent); share < full)
      opts.push_back(share);
  opts.push_back(full);
  std::sort(opts.begin(), opts.end());
  opts.erase(std::unique(opts.begin(), opts.end()), opts.end());
  return opts;
}

} // namespace

Space::Space(const ir::Kernel &kernel, const hw::Target &target,
             const mapping::StatementMappings &mappings, int candidate, const Pins &pins)
    : kernel_(kernel), target_(target) {
  const mapping::Candidate &c = mappings.candidates[candidate];
  const ir::Statement &s = kernel.statements[mappings.index];
  const hw::Instruction &instr = target.instructions[size_t(c.instruction)];
  Config &k = skeleton_;
  k.statement = mappings.index;
  k.mapping = candidate;
  k.instruction = c.instruction;
  k.finisher = c.finisher;
  k.vindices = virtualIndices(s, c);
  std::vector<std::vector<int>> paths;
  for (const auto &op : instr.semantics.tensors)
    paths.push_back(pathOf(target, target.memoryIndex(op.memory)));
  k.levels = levelsOf(target, paths);
  for (size_t o = 0; o < instr.semantics.tensors.size(); ++o)
    k.operands.push_back(placeOperand(kernel, s, target, c, instr, o, paths[o], k));
  // Scratchpads start double-buffered; the cost model drops it when the tiles do not fit twice.
  k.doubleBuffered.assign(k.levels.size(), false);
  for (size_t l = 0; l < k.levels.size(); ++l)
    k.doubleBuffered[l] = k.levels[l].softwareManaged && !k.levels[l].registers;
  // Inputs read in place whose far rows a spatial index walks may be packed at a cache level.
  std::vector<bool> mayPack(k.operands.size(), false);
  for (size_t o = 0; o < k.operands.size(); ++o) {
    const OperandPlacement &p = k.operands[o];
    bool staged = std::find(p.staged.begin(), p.staged.end(), true) != p.staged.end();
    mayPack[o] = p.tensor >= 0 && !p.output && !p.layoutChange && !p.computed && !staged &&
                 farRows(kernel, s, p) == FarRows::Spatial;
  }
  addOptions(target, mayPack);
  for (PackOption &option : packOptions_)
    describeRows(option, kernel, s, target);
  addPins(pins);
  addKnobs();
}

void Space::addOptions(const hw::Target &target, const std::vector<bool> &mayPack) {
  const Config &k = skeleton_;
  for (const auto &v : k.vindices)
    tileOptions_.push_back(tileOptionsOf(v));
  auto perms = permutations(k.vindices.size());
  for (size_t l = 0; l < k.levels.size(); ++l)
    orderOptions_.push_back(perms);
  // Inside a register tile the reductions run outermost: the tile's loads of a step then read
  // each row's run of vectors together, and all its accumulators are independent. A spatial
  // loop outside a reduction walks the reduction once per trip instead, a line per row: the
  // GEMV of a GRU's gates (W[i, g, j], rows 12 KiB apart) with j's four vectors outside i ran
  // in 1.78 ms on one core, against 190 us with i outermost, and the model, which has no
  // TLB, rated the two within 10%.
  if (!k.levels.empty() && k.levels.back().registers)
    orderOptions_.back() = reductionsFirst(k.vindices);
  parallelOptions_.push_back(-1);
  // A loop runs in parallel over cores, or over a CPU's threads (the host may have more than
  // its description says); a single-core accelerator has neither.
  bool threads = target.cores > 1 || !target.triple.empty();
  for (size_t v = 0; v < k.vindices.size() && threads; ++v)
    if (!k.vindices[v].reduction)
      parallelOptions_.push_back(int(v));
  // An input packed at a cache level may be packed at any cache level on its path; one that
  // may be packed, read in place first, at any of them.
  for (size_t o = 0; o < k.operands.size(); ++o) {
    const OperandPlacement &p = k.operands[o];
    PackOption option{o, kNoPack, {}, false};
    for (size_t j = p.path.size(); j-- > 1;) {
      size_t l = size_t(p.path[j]);
      const Level &lv = k.levels[l];
      if (p.staged[l] && p.staging[l].kind == Staging::Kind::Pack) {
        option.from = int(l);
        option.levels.insert(option.levels.begin(), int(l));
      } else if ((option.from != kNoPack || mayPack[o]) && !lv.softwareManaged && !lv.registers) {
        option.levels.push_back(int(l));
      }
    }
    if (mayPack[o] && !option.levels.empty()) {
      option.levels.insert(option.levels.begin(), kNoPack);
    } else if (option.from != kNoPack && !p.layoutChange && !p.computed) {
      // A pack made only because the tensor's rows lie far apart (no layout change, nothing
      // computed) may also be left out: where the reads stream along the rows anyway, the
      // copy only costs (a GEMM with a few rows of A reads each element of B a few times).
      option.levels.push_back(kNoPack);
      option.boundedInPlace = true;
    }
    if (option.levels.size() > 1)
      packOptions_.push_back(std::move(option));
  }
}

void Space::describeRows(PackOption &option, const ir::Kernel &kernel, const ir::Statement &s,
                         const hw::Target &target) const {
  const OperandPlacement &p = skeleton_.operands[option.operand];
  if (p.tensor < 0 || p.access.indices.empty() || p.path.empty())
    return;
  const ir::Affine &inner = p.access.indices.back();
  if (inner.terms.size() != 1 || inner.terms[0].second != 1)
    return;
  int i = inner.terms[0].first;
  for (size_t v = 0; v < skeleton_.vindices.size() && option.innerV < 0; ++v)
    if (!skeleton_.vindices[v].stmtIndices.empty() && skeleton_.vindices[v].stmtIndices.back() == i)
      option.innerV = int(v);
  // Four lines of the cache the register tiles read the input from.
  const Level &from = skeleton_.levels[size_t(p.path.back())];
  const hw::Memory &mem =
      target.memories[size_t(from.registers && p.path.size() >= 2
                                 ? skeleton_.levels[size_t(p.path[p.path.size() - 2])].memory
                                 : from.memory)];
  int64_t elemBytes = ir::elemTypeBytes(kernel.tensors[size_t(p.tensor)].type);
  option.innerExtent = s.indices[size_t(i)].extent;
  option.longRunElements = elemBytes > 0 ? 4 * int64_t(mem.lineBytes) / elemBytes : 0;
}

void Space::addPins(const Pins &pins) {
  const Config &k = skeleton_;
  size_t nv = k.vindices.size(), nl = k.levels.size();
  pinnedTiles_.assign(nl, std::vector<std::optional<int64_t>>(nv));
  pinnedOrder_.assign(nl, std::nullopt);
  auto vIndex = [&](const std::string &name) {
    for (size_t v = 0; v < nv; ++v)
      if (k.vindices[v].name == name)
        return int(v);
    return -1;
  };
  auto levelNamed = [&](const std::string &memory) {
    int l = -1;
    for (size_t i = 0; i < nl; ++i)
      if (k.levels[i].name == memory)
        l = int(i);
    return l;
  };
  for (const auto &[memory, tiles] : pins.tiles) {
    int l = levelNamed(memory);
    if (l <= 0) {
      pinProblems_.push_back("'" + memory + "' is not a memory level this mapping tiles for");
      continue;
    }
    for (const auto &[name, size] : tiles) {
      int v = vIndex(name);
      if (v < 0) {
        pinProblems_.push_back("'" + name + "' is not a loop of this mapping");
        continue;
      }
      if (size <= 0 || size % k.vindices[v].instrExtent != 0) {
        pinProblems_.push_back("tile " + std::to_string(size) + " of '" + name +
                               "' is not a multiple of the instruction's " +
                               std::to_string(k.vindices[v].instrExtent));
        continue;
      }
      pinnedTiles_[l][v] = size;
    }
  }
  for (const auto &[memory, names] : pins.order) {
    int l = levelNamed(memory);
    std::vector<int> perm;
    for (const auto &n : names)
      if (int v = vIndex(n); v >= 0)
        perm.push_back(v);
    std::vector<int> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    if (l < 0 || perm.size() != nv || sorted.size() != nv) {
      std::string loops;
      for (const auto &v : k.vindices)
        loops += (loops.empty() ? "" : ", ") + v.name;
      pinProblems_.push_back("order for '" + memory + "' must name each loop once (" + loops + ")");
      continue;
    }
    pinnedOrder_[l] = perm;
  }
  if (!pins.parallel.empty()) {
    int v = vIndex(pins.parallel);
    if (v < 0 || k.vindices[v].reduction)
      pinProblems_.push_back("'" + pins.parallel + "' is not a non-reduction loop to parallelise");
    else if (std::string why = splitForParallel(size_t(v)); !why.empty())
      pinProblems_.push_back("cannot run '" + pins.parallel + "' in parallel: " + why);
    else
      pinnedParallel_ = v;
  }
}

std::string Space::splitForParallel(size_t v) {
  const Config &k = skeleton_;
  const VirtualIndex &vi = k.vindices[v];
  if (std::find(parallelOptions_.begin(), parallelOptions_.end(), int(v)) == parallelOptions_.end())
    return "the target has one core and no threads";
  int64_t full = roundUp(vi.extent, vi.instrExtent);
  if (k.levels.size() < 2) {
    // The one level's loop steps by whole calls, or covers a free loop at once.
    return vi.free || full <= vi.instrExtent ? "its loop has a single trip" : "";
  }
  for (size_t l = 1; l < k.levels.size(); ++l)
    if (pinnedTiles_[l][v] && *pinnedTiles_[l][v] >= full)
      return "its " + k.levels[l].name + " tile is pinned to its whole extent " +
             std::to_string(vi.extent) + ", which leaves one " + k.levels[1].name +
             " tile of it to share among the cores";
  // The parallel loop is the outermost level's loop over the next level's tiles: it runs in
  // parallel only when they cut the extent, so the whole extent is no tile option.
  std::vector<int64_t> &options = tileOptions_[v];
  options.erase(std::remove(options.begin(), options.end(), full), options.end());
  if (options.empty()) {
    options.push_back(full);
    return vi.instrExtent > 1
               ? "its extent " + std::to_string(vi.extent) + " is one call of the instruction, " +
                     std::to_string(vi.instrExtent) + " wide"
               : "its loop has a single trip";
  }
  return "";
}

void Space::addKnobs() {
  const Config &k = skeleton_;
  size_t nv = k.vindices.size(), nl = k.levels.size();
  for (size_t l = 1; l < nl; ++l)
    for (size_t v = 0; v < nv; ++v)
      knobs_.push_back({"tile " + k.levels[l].name + " " + k.vindices[v].name,
                        pinnedTiles_[l][v] ? 1 : tileOptions_[v].size()});
  for (size_t l = 0; l < nl; ++l)
    knobs_.push_back({"order " + k.levels[l].name, pinnedOrder_[l] ? 1 : orderOptions_[l].size()});
  knobs_.push_back({"parallel", pinnedParallel_ ? 1 : parallelOptions_.size()});
  for (const PackOption &option : packOptions_)
    knobs_.push_back({"pack operand " + std::to_string(option.operand), option.levels.size()});
}

size_t Space::tileKnob(size_t level, size_t v) const {
  return (level - 1) * skeleton_.vindices.size() + v;
}

std::vector<std::vector<size_t>> Space::parallelSplits(const std::vector<size_t> &point) const {
  std::vector<std::vector<size_t>> out;
  size_t nv = skeleton_.vindices.size(), nl = skeleton_.levels.size();
  if (nl < 2 || pinnedParallel_)
    return out;
  Config c = decode(point);
  if (c.parallel >= 0 && c.tiles[1][size_t(c.parallel)] < c.vindices[size_t(c.parallel)].extent)
    return out;
  size_t parallelKnob = (nl - 1) * nv + nl;
  for (size_t option = 1; option < parallelOptions_.size(); ++option) {
    size_t v = size_t(parallelOptions_[option]);
    if (pinnedTiles_[1][v])
      continue;
    const VirtualIndex &vi = skeleton_.vindices[v];
    int64_t full = roundUp(vi.extent, vi.instrExtent);
    const std::vector<int64_t> &tiles = tileOptions_[v];
    for (int64_t parts = 2; parts <= 4; ++parts) {
      int64_t share = roundUp((full + parts - 1) / parts, vi.instrExtent);
      auto at = std::find(tiles.begin(), tiles.end(), share);
      if (share >= full || at == tiles.end())
        continue;
      std::vector<size_t> q = point;
      q[parallelKnob] = option;
      q[tileKnob(1, v)] = size_t(at - tiles.begin());
      out.push_back(std::move(q));
    }
  }
  return out;
}

std::vector<std::vector<size_t>> Space::blockMoves(const std::vector<size_t> &point) const {
  std::vector<std::vector<size_t>> out;
  size_t nv = skeleton_.vindices.size(), nl = skeleton_.levels.size();
  Config c = decode(point);
  for (size_t v = 0; v < nv; ++v) {
    const std::vector<int64_t> &opts = tileOptions_[v];
    for (int dir : {-1, 1}) {
      std::vector<size_t> q = point;
      for (size_t l = 1; l < nl; ++l) {
        if (pinnedTiles_[l][v])
          continue;
        // The option the decoded tile is (a tile clamped to the level outside it is one too).
        auto at = std::upper_bound(opts.begin(), opts.end(), c.tiles[l][v]);
        size_t index = at == opts.begin() ? 0 : size_t(at - opts.begin()) - 1;
        if ((dir < 0 && index == 0) || (dir > 0 && index + 1 >= opts.size()))
          continue;
        q[tileKnob(l, v)] = dir < 0 ? index - 1 : index + 1;
      }
      if (q != point)
        out.push_back(std::move(q));
    }
  }
  return out;
}

double Space::size() const {
  double n = 1;
  for (const auto &k : knobs_)
    n *= double(k.options);
  return n;
}

// An input packed for rows the reduction walks a page apart is read in place only when the
// register tiles read each element at most this often. A pack pays for its copy (a load and a
// store per element) by reuse, and spares reused reads of rows a page apart their TLB misses and
// cache conflicts, which the cost model does not see (it has no TLB). Measured on this
// repository's x86 host with the packs' loops in the source's order: B of 8 x 6144 x 1536 (read
// once) ran 1.1x faster in place than packed at L1; A of TN 7680 x 64 x 2560 (2 reads of 32-byte
// runs) 2.2x slower, B of 32 x 7680 x 2560 (3 reads) 1.4x slower, W of a GRU (4 reads of 64-byte
// runs) 1.6x slower. Where each row's run is four lines or more, a few reads cost less than the
// copy: an LSTM's W (16 x 2048 x 512, 2 reads of 256-byte runs) ran 1.2x faster in place.
// Those figures predate the register level's prefetches: an input that the register tiles read
// up to kMaxPrefetchedReads times (kMaxPrefetchedFarReads a page apart) and prefetch
// (`mayReadInPlace`) is read in place too, its first
// read prefetched from the memory and the next ones finding its lines in the cache.
static int64_t maxReadsInPlace(const Config &c, int innerV, int64_t innerExtent,
                               int64_t longRunElements) {
  if (innerV < 0 || longRunElements <= 0)
    return 1;
  int64_t run = std::min(c.tiles.back()[size_t(innerV)], innerExtent);
  return run >= longRunElements ? 4 : 1;
}

bool Space::mayReadInPlace(const Config &c, const PackOption &option) const {
  int64_t reads = registerReads(c, c.operands[option.operand]);
  if (reads <= maxReadsInPlace(c, option.innerV, option.innerExtent, option.longRunElements))
    return true;
  if (reads > kMaxPrefetchedFarReads)
    return false;
  Config inPlace = c;
  OperandPlacement &p = inPlace.operands[option.operand];
  p.staged[size_t(option.from)] = false;
  p.staging[size_t(option.from)] = {};
  return prefetchedInPlace(kernel_, target_, inPlace, option.operand);
}

Config Space::decode(const std::vector<size_t> &point) const {
  Config c = skeleton_;
  decodeInto(point, c);
  return c;
}

void Space::decodeInto(const std::vector<size_t> &point, Config &c) const {
  // Only what a point decides is written; the rest stays the skeleton's. Assignments reuse the
  // vectors' storage, which is what makes this cheaper than a copy of the skeleton.
  c.doubleBuffered = skeleton_.doubleBuffered;
  for (size_t o = 0; o < c.operands.size(); ++o) {
    c.operands[o].staged = skeleton_.operands[o].staged;
    c.operands[o].staging = skeleton_.operands[o].staging;
  }
  size_t nv = c.vindices.size(), nl = c.levels.size();
  c.tiles.resize(nl);
  for (auto &tile : c.tiles)
    tile.assign(nv, 1);
  for (size_t v = 0; v < nv; ++v)
    c.tiles[0][v] = c.vindices[v].extent;
  for (size_t l = 1; l < nl; ++l)
    for (size_t v = 0; v < nv; ++v) {
      int64_t t = pinnedTiles_[l][v]
                      ? *pinnedTiles_[l][v]
                      : tileOptions_[v][point[tileKnob(l, v)] % tileOptions_[v].size()];
      // A tile pinned further in makes the levels outside it at least as large.
      for (size_t inner = l + 1; inner < nl; ++inner)
        if (pinnedTiles_[inner][v])
          t = std::max(t, *pinnedTiles_[inner][v]);
      // Tiles nest: never larger than the enclosing level's (rounded to whole calls).
      c.tiles[l][v] = std::min(t, roundUp(c.tiles[l - 1][v], c.vindices[v].instrExtent));
    }
  size_t base = (nl - 1) * nv;
  c.order.resize(nl);
  for (size_t l = 0; l < nl; ++l)
    c.order[l] = pinnedOrder_[l] ? *pinnedOrder_[l]
                                 : orderOptions_[l][point[base + l] % orderOptions_[l].size()];
  c.parallel = pinnedParallel_ ? *pinnedParallel_
                               : parallelOptions_[point[base + nl] % parallelOptions_.size()];
  // A parallel loop of one trip runs on one thread (Lower emits no loop for it): say so.
  if (c.parallel >= 0 && tripsOf(c, 0, size_t(c.parallel)) <= 1)
    c.parallel = -1;
  for (size_t j = 0; j < packOptions_.size(); ++j) {
    const PackOption &option = packOptions_[j];
    int to = option.levels[point[base + nl + 1 + j] % option.levels.size()];
    OperandPlacement &p = c.operands[option.operand];
    if (to == option.from || (to == kNoPack && option.boundedInPlace && !mayReadInPlace(c, option)))
      continue;
    if (option.from != kNoPack) {
      p.staged[size_t(option.from)] = false;
      p.staging[size_t(option.from)] = {};
    }
    if (to != kNoPack) {
      p.staged[size_t(to)] = true;
      p.staging[size_t(to)] = {Staging::Kind::Pack};
    }
  }
}

std::vector<size_t> Space::heuristicPoint() const {
  // Small register tiles, middle-sized cache tiles, reductions outermost in the innermost level
  // (so that the accumulators are independent), the largest non-reduction loop in parallel.
  std::vector<size_t> p(knobs_.size(), 0);
  const Config &k = skeleton_;
  size_t nv = k.vindices.size(), nl = k.levels.size();
  for (size_t l = 1; l < nl; ++l)
    for (size_t v = 0; v < nv; ++v) {
      size_t n = tileOptions_[v].size();
      size_t pick = l + 1 == nl ? std::min<size_t>(1, n - 1) : std::min(n - 1, (n * (nl - l)) / nl);
      p[tileKnob(l, v)] = pick;
    }
  size_t base = (nl - 1) * nv;
  for (size_t l = 0; l < nl; ++l) {
    for (size_t i = 0; i < orderOptions_[l].size(); ++i) {
      const auto &perm = orderOptions_[l][i];
      bool reductionsFirst = true, seenSpatial = false;
      for (int v : perm) {
        if (!k.vindices[v].reduction)
          seenSpatial = true;
        else if (seenSpatial)
          reductionsFirst = false;
      }
      if (reductionsFirst == (l + 1 == nl)) {
        p[base + l] = i;
        break;
      }
    }
  }
  size_t best = 0;
  int64_t bestExtent = 0;
  for (size_t i = 1; i < parallelOptions_.size(); ++i)
    if (k.vindices[parallelOptions_[i]].extent > bestExtent)
      bestExtent = k.vindices[parallelOptions_[i]].extent, best = i;
  p[base + nl] = best;
  return p;
}

bool Space::readsAnInputOnce(const std::vector<size_t> &point) const {
  Config c = decode(point);
  for (const OperandPlacement &p : c.operands)
    if (!p.output && p.tensor >= 0 && registerReads(c, p) == 1)
      return true;
  return false;
}

namespace {

// The spatial indices of a statement that reduces over overlapping windows only (a depthwise
// convolution's I[c, h + r, w + s], a 3 x 3 pool), by statement index; empty for any other.
// Neighbouring rows h read the same input rows there and channels share nothing, so a register
// tile along the window index alone, the other indices at one and more vectors on the lanes,
// reads the fewest lines; no one-knob move leads there from the square tiles of a GEMM. A
// depthwise convolution (32 x 112 x 112) ran in 86-100 us with one channel, two rows and a
// whole 112-pixel row of w, against 105-121 with 4 x 4 x 16 (c, h, w).
std::vector<bool> slidingWindows(const ir::Statement &s,
                                 const std::vector<OperandPlacement> &operands) {
  // An index the windowed input does not depend on (a convolution's filters k) reuses its
  // vectors, as a GEMM's m does B's: tiles along it pay (a one-channel 48 x 480 speech
  // convolution with 16 filters ran in 45 us with 4 x 4 x 16 (k, h, w), 67 with 1 x 24 x 16).
  auto readsEverySpatialIndex = [&](const ir::Access &a) {
    for (size_t j = 0; j < s.indices.size(); ++j) {
      bool read = s.indices[j].reduction || s.indices[j].extent <= 1;
      for (const ir::Affine &e : a.indices)
        read = read || e.coefficientOf(int(j)) != 0;
      if (!read)
        return false;
    }
    return true;
  };
  std::vector<bool> window(s.indices.size(), false);
  for (size_t i = 0; i < s.indices.size(); ++i) {
    if (!s.indices[i].reduction || s.indices[i].extent <= 1)
      continue;
    // A reduction over anything but windows (a convolution's channels) leaves the tiles to the
    // square seeds: the model does not see what a packed window costs in L1 (a 5 x 5
    // convolution over 192 channels with a tile of 8 rows of h, rated 20% faster, ran 4.6
    // times slower).
    bool slides = false;
    for (const OperandPlacement &p : operands)
      for (size_t d = 0; d < p.access.indices.size() && !p.output && p.tensor >= 0; ++d) {
        const auto &terms = p.access.indices[d].terms;
        if (std::none_of(terms.begin(), terms.end(), [&](auto t) { return t.first == int(i); }))
          continue;
        // Windows of neighbouring output rows overlap where the row's stride is shorter than
        // the window (not a 2 x 2 pool's 2 * h + r, whose windows share nothing).
        for (auto [j, coef] : terms)
          if (!s.indices[size_t(j)].reduction && std::abs(coef) < s.indices[i].extent) {
            if (!readsEverySpatialIndex(p.access))
              return {};
            window[size_t(j)] = true;
            slides = true;
          }
      }
    if (!slides)
      return {};
  }
  return window;
}

} // namespace

std::vector<std::vector<size_t>> Space::seedPoints() const {
  const Config &k = skeleton_;
  size_t nv = k.vindices.size(), nl = k.levels.size();
  std::vector<std::vector<size_t>> seeds;
  if (nl < 2)
    return seeds;
  auto nearest = [&](size_t v, double want) {
    const auto &opts = tileOptions_[v];
    size_t best = 0;
    for (size_t i = 1; i < opts.size(); ++i)
      if (std::fabs(std::log(double(opts[i]) / want)) <
          std::fabs(std::log(double(opts[best]) / want)))
        best = i;
    return best;
  };
  std::vector<size_t> base = heuristicPoint();
  // A tile of `rows` along each spatial index the instruction does not span suits a GEMM (its
  // m); one along a sliding window's index alone (slidingWindows) suits a depthwise
  // convolution or a pool.
  std::vector<bool> window = slidingWindows(kernel_.statements[k.statement], k.operands);
  struct Shape {
    int lanes, rows;
    int along; // the window index with `rows`, the other spatial ones 1; -1: `rows` along each
  };
  std::vector<Shape> shapes;
  for (int lanes : {1, 2, 3, 4})
    for (int rows : {4, 6, 8, 11, 14})
      shapes.push_back({lanes, rows, -1});
  for (size_t u = 0; u < nv && !window.empty(); ++u)
    if (const VirtualIndex &vi = k.vindices[u]; !vi.reduction && vi.instrIndex < 0 &&
                                                vi.stmtIndices.size() == 1 &&
                                                window[size_t(vi.stmtIndices.front())])
      for (int lanes : {1, 2, 4, 8})
        for (int rows : {1, 2, 4, 7, 8, 14})
          shapes.push_back({lanes, rows, int(u)});
  for (const Shape &shape : shapes)
    // 0: the whole reduction at every level, where the register tile reads an input once
    // (GEMV's A: its rows stream start to end, and a block of k would only cut the streams).
    for (int reduction : {32, 64, 128, 256, 512, 0}) {
      std::vector<size_t> p = base;
      for (size_t v = 0; v < nv; ++v) {
        const VirtualIndex &vi = k.vindices[v];
        double rows = shape.along < 0 || shape.along == int(v) ? shape.rows : 1;
        double reg = vi.reduction         ? (reduction ? reduction : double(vi.extent))
                     : vi.instrIndex >= 0 ? double(vi.instrExtent * shape.lanes)
                                          : rows;
        for (size_t l = 1; l < nl; ++l) {
          // Spatial tiles grow fourfold per level outward from the one around the registers.
          double grow = vi.reduction || l + 2 >= nl ? 1 : std::pow(4.0, double(nl - 2 - l));
          p[tileKnob(l, v)] = nearest(v, reg * grow);
        }
      }
      if (reduction == 0 && !readsAnInputOnce(p))
        continue;
      seeds.push_back(p);
      // With a long reduction, also every pack one level further out (the libraries pack
      // the reduction's panels for L2 and L3): one-knob moves rarely reach it from the
      // innermost pack, as the tiles that pay for it change with it.
      bool moved = false;
      for (size_t j = 0; j < packOptions_.size() && reduction >= 128; ++j)
        if (packOptions_[j].from != kNoPack && packOptions_[j].levels.size() > 1 &&
            packOptions_[j].levels[1] != kNoPack) {
          p[(nl - 1) * nv + nl + 1 + j] = 1;
          moved = true;
        }
      if (moved)
        seeds.push_back(std::move(p));
    }
  return seeds;
}

} // namespace isam::schedule
