#include "schedule/Prefetch.h"

#include "schedule/Geometry.h"

#include <algorithm>
#include <cmath>

namespace isam::schedule {

namespace {

// The nearest distance of at least `ahead` that divides the register tile's `tile` steps of the
// reduction (a multiple of `step`), so the prefetches issued in a tile's last steps fetch the
// first lines of its next visit along the reduction, as the others fetch its own.
int64_t aheadWithinTile(int64_t ahead, int64_t step, int64_t tile) {
  for (int64_t d = std::max(ahead, step); d < tile; d += step)
    if (tile % d == 0)
      return d;
  return tile;
}

// Bytes of input p the register tiles read between a tile's prefetches and the visit along
// reduction v they fetch for: one step of the innermost loop over v around the register level
// that takes more than one (everything inside it runs first). -1 when no such loop is there.
double bytesBeforeTheNextVisit(const ir::Kernel &kernel, const Config &c, const OperandPlacement &p,
                               size_t v) {
  for (size_t j = c.levels.size() - 1; j-- > 0;)
    for (size_t k = c.order[j].size(); k-- > 0;) {
      if (size_t(c.order[j][k]) != v || tripsOf(c, j, v) <= 1)
        continue;
      std::vector<int64_t> box = c.tiles[j + 1];
      for (size_t i = k + 1; i < c.order[j].size(); ++i)
        box[size_t(c.order[j][i])] = c.tiles[j][size_t(c.order[j][i])];
      double bytes = ir::elemTypeBytes(kernel.tensors[size_t(p.tensor)].type);
      for (int64_t e : tileFootprint(kernel.statements[c.statement], p.access, c.vindices, box))
        bytes *= double(e);
      return bytes;
    }
  return -1;
}

} // namespace

std::vector<Node::Prefetch> prefetches(const ir::Kernel &kernel, const hw::Target &target,
                                       const Config &c, size_t v) {
  std::vector<Node::Prefetch> out;
  size_t nl = c.levels.size();
  const VirtualIndex &vi = c.vindices[v];
  if (nl < 2 || c.instruction < 0 || !vi.reduction || c.levels[0].memory < 0 ||
      c.levels[nl - 2].memory < 0)
    return out;
  const hw::Memory &home = target.memories[size_t(c.levels[0].memory)];
  int64_t line = target.memories[size_t(c.levels[nl - 2].memory)].lineBytes;
  if (home.misses == 0 || home.latencyCycles <= 0 || line <= 0)
    return out;
  const ir::Statement &s = kernel.statements[c.statement];
  const std::vector<int64_t> &tile = c.tiles[nl - 1];
  // Cycles of one step of the loop: its calls at the instruction's issue rate.
  double calls = 1;
  for (size_t u = 0; u < c.vindices.size(); ++u)
    if (u != v)
      calls *= double(tripsOf(c, nl - 1, u));
  double stepCycles =
      calls / std::max(1e-9, target.instructions[size_t(c.instruction)].cost.perCycle);
  int64_t step = stepOf(c, nl - 1, v);
  int64_t latencySteps =
      int64_t(std::ceil(kLoadedLatencyFactor * home.latencyCycles / std::max(1e-9, stepCycles)));
  int64_t ahead = step * latencySteps;
  if (tile[v] < vi.extent)
    ahead = ahead > tile[v] ? roundUp(ahead, tile[v]) : aheadWithinTile(ahead, step, tile[v]);
  if (ahead >= vi.extent)
    return out; // every line it would fetch lies past the reduction's end
  std::vector<int64_t> oneStep = tile;
  oneStep[v] = 1;
  for (size_t o = 0; o < c.operands.size(); ++o) {
    const OperandPlacement &p = c.operands[o];
    if (p.output || p.tensor < 0 || p.computed ||
        std::find(p.staged.begin(), p.staged.end(), true) != p.staged.end() ||
        !touches(p.access, vi))
      continue;
    const ir::Tensor &t = kernel.tensors[size_t(p.tensor)];
    // Bytes between consecutive values of each dimension.
    std::vector<int64_t> strides = t.strides();
    for (int64_t &stride : strides)
      stride *= ir::elemTypeBytes(t.type);
    // Bytes per value of v (its innermost statement index), and whether the tile's first
    // element is its lowest address (every coefficient non-negative).
    int64_t perValue = 0;
    bool ascending = true;
    for (size_t d = 0; d < p.access.indices.size(); ++d) {
      perValue += p.access.indices[d].coefficientOf(vi.stmtIndices.back()) * strides[d];
      for (auto [i, coef] : p.access.indices[d].terms)
        ascending = ascending && coef >= 0;
    }
    int64_t maxReads = perValue >= kPageBytes ? kMaxPrefetchedFarReads : kMaxPrefetchedReads;
    if (!ascending || perValue * step < line || registerReads(c, p) > maxReads ||
        readRuns(kernel, c, p, home.streams).runBytes >= double(kMaxPrefetchedRunBytes))
      continue;
    // The lines land in the second cache level (locality 2), and wait there for the visit
    // along the reduction they are for: where the tiles in between read more than it holds,
    // they are gone by then, and each tile's first rows miss. 35 x 8457 x 2560 in 256-row tiles
    // of 12 x 16 ran at 54-73 GFLOP/s with the k blocks outermost (every column of B between
    // two visits of one), 95-96 with 128 columns outermost, alike otherwise. That is where half
    // the prefetches or more are for the next visit (128 rows ahead there); where the distance
    // is a small part of the tile, most lines are for its own later rows: 8 x 6144 x 1536 in
    // 768-row tiles, 64 rows ahead, ran 2x faster prefetched.
    if (tile[v] < vi.extent && 2 * ahead >= tile[v] && nl >= 3) {
      double between = bytesBeforeTheNextVisit(kernel, c, p, v);
      if (between < 0 || between > double(c.levels[nl - 3].capacityBytes))
        continue;
    }
    std::vector<int64_t> extents = tileFootprint(s, p.access, c.vindices, oneStep);
    int64_t span = 0;
    for (size_t d = 0; d < extents.size(); ++d)
      span += (extents[d] - 1) * strides[d];
    Node::Prefetch pf{int(o), ahead, {}};
    // A line apart from the first element, and the last element: every line of the run
    // wherever it starts (malloc's large blocks start 16 bytes past a page).
    for (int64_t b = 0; b < span; b += line)
      pf.offsets.push_back(b);
    pf.offsets.push_back(span);
    if (int64_t(pf.offsets.size()) > kMaxPrefetchLines)
      continue;
    out.push_back(std::move(pf));
  }
  return out;
}

bool prefetchedInPlace(const ir::Kernel &kernel, const hw::Target &target, const Config &c,
                       size_t operand) {
  size_t nl = c.levels.size();
  if (nl < 2)
    return false;
  for (size_t v = 0; v < c.vindices.size(); ++v) {
    if (!c.vindices[v].reduction || c.tiles[nl - 1][v] <= stepOf(c, nl - 1, v))
      continue; // no loop at the register level (Lower emits none of one trip)
    for (const Node::Prefetch &pf : prefetches(kernel, target, c, v))
      if (pf.operand == int(operand))
        return true;
  }
  return false;
}

bool prefetchesResultTile(const ir::Kernel &kernel, const hw::Target &target, const Config &c,
                          const Buffer &buffer) {
  const OperandPlacement &p = c.operands[size_t(buffer.operand)];
  size_t level = size_t(buffer.level), nl = c.levels.size();
  if (nl < 2 || !p.output || p.tensor < 0 || buffer.lanes > 0 || level + 1 != nl ||
      !c.levels[level].registers || c.levels[0].memory < 0)
    return false;
  const hw::Memory &home = target.memories[size_t(c.levels[0].memory)];
  // A result the outermost cache holds is read from there at the write-back, and the core's
  // window hides that latency.
  const ir::Tensor &t = kernel.tensors[size_t(p.tensor)];
  if (home.misses == 0 || home.latencyCycles <= 0 || c.levels[1].registers ||
      t.elementCount() * ir::elemTypeBytes(t.type) <= int64_t(c.levels[1].capacityBytes))
    return false;
  // The tile's reduction loop is what runs between the prefetch and the write-back.
  for (size_t v = 0; v < c.vindices.size(); ++v)
    if (c.vindices[v].reduction && c.tiles[level][v] > stepOf(c, level, v))
      return true;
  return false;
}

int64_t packPrefetchRows(const ir::Kernel &kernel, const hw::Target &target, const Config &c,
                         const Buffer &buffer) {
  const OperandPlacement &p = c.operands[size_t(buffer.operand)];
  size_t level = size_t(buffer.level);
  if (p.output || p.tensor < 0 || buffer.lanes > 0 || level >= p.staging.size() ||
      c.levels[0].memory < 0 || c.levels[level].memory < 0 || c.levels[level].registers)
    return 0;
  Staging::Kind kind = p.staging[level].kind;
  if (kind != Staging::Kind::Pack && kind != Staging::Kind::PackThenCopy &&
      kind != Staging::Kind::PackThenMove)
    return 0;
  for (size_t l = 0; l < level; ++l)
    if (p.staged[l])
      return 0; // copied from an outer buffer, not from the tensor
  const hw::Memory &home = target.memories[size_t(c.levels[0].memory)];
  int64_t line = target.memories[size_t(c.levels[level].memory)].lineBytes;
  const std::vector<int64_t> &shape = buffer.shape;
  if (home.misses == 0 || home.latencyCycles <= 0 || line <= 0 || shape.size() < 2)
    return 0;
  // A tensor the innermost cache holds whole is read from there after its first visit.
  const ir::Tensor &t = kernel.tensors[size_t(p.tensor)];
  size_t nl = c.levels.size();
  const Level &inner = c.levels[c.levels[nl - 1].registers && nl >= 2 ? nl - 2 : nl - 1];
  if (!inner.registers &&
      t.elementCount() * ir::elemTypeBytes(t.type) <= int64_t(inner.capacityBytes))
    return 0;
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d)
    rows *= shape[d];
  int64_t runBytes = shape.back() * ir::elemTypeBytes(t.type);
  if (rows < 2 || runBytes >= kMaxPrefetchedRunBytes)
    return 0;
  int64_t runLines = (runBytes + line - 1) / line;
  return (int64_t(home.misses) + runLines - 1) / runLines;
}

} // namespace isam::schedule
