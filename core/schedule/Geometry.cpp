#include "schedule/Geometry.h"

#include <algorithm>
#include <cstdlib>

namespace isam::schedule {

bool withinOneRun(int64_t size, int64_t align, int64_t run) {
  return (align % run == 0 && size <= run) || (align != 0 && run % align == 0 && size <= align);
}

int64_t roundUp(int64_t x, int64_t multiple) {
  return (x + multiple - 1) / multiple * multiple;
}

bool touches(const ir::Access &access, const VirtualIndex &v) {
  for (const auto &d : access.indices)
    for (auto [i, coef] : d.terms)
      if (coef != 0 &&
          std::find(v.stmtIndices.begin(), v.stmtIndices.end(), i) != v.stmtIndices.end())
        return true;
  return false;
}

int64_t registerReads(const Config &c, const OperandPlacement &p) {
  const std::vector<int64_t> &registerTile = c.tiles.back();
  int64_t reads = 1;
  for (size_t v = 0; v < c.vindices.size(); ++v)
    if (!touches(p.access, c.vindices[v]))
      reads *= (c.vindices[v].extent + registerTile[v] - 1) / std::max<int64_t>(1, registerTile[v]);
  return reads;
}

ReadRuns readRuns(const ir::Kernel &kernel, const Config &c, const OperandPlacement &p,
                  uint32_t streams) {
  ReadRuns out;
  const ir::Tensor &t = kernel.tensors[size_t(p.tensor)];
  const ir::Statement &s = kernel.statements[c.statement];
  int reader = -1;
  for (int l : p.path)
    if (!c.levels[size_t(l)].registers && (reader < 0 || !p.staged[size_t(reader)]))
      reader = l;
  if (reader < 0)
    return out;
  std::vector<int64_t> tile = c.tiles[size_t(reader)];
  // The run: the inner dimensions the tile covers whole, and the first it does not.
  auto runOf = [&](const std::vector<int64_t> &box, double &rows) {
    double run = 1;
    rows = 1;
    bool open = true;
    for (size_t d = box.size(); d-- > 0;) {
      if (open)
        run *= double(box[d]);
      else
        rows *= double(box[d]);
      open = open && box[d] >= t.shape[d];
    }
    return run;
  };
  std::vector<int64_t> box = tileFootprint(s, p.access, c.vindices, tile);
  double run = runOf(box, out.rows);
  if (streams > 0 && out.rows <= double(streams)) {
    bool going = true;
    for (size_t j = size_t(reader); j-- > 0 && going;)
      for (size_t k = c.order[j].size(); k-- > 0 && going;) {
        size_t v = size_t(c.order[j][k]);
        if (tripsOf(c, j, v) <= 1 || !touches(p.access, c.vindices[v]))
          continue;
        std::vector<int64_t> wider = tile;
        wider[v] = c.tiles[j][v];
        double rows = 1;
        double longer = runOf(tileFootprint(s, p.access, c.vindices, wider), rows);
        going = rows == out.rows && longer > run;
        if (going)
          run = longer, tile = wider;
      }
  }
  out.runBytes = run * ir::elemTypeBytes(t.type);
  return out;
}

int64_t stepOf(const Config &c, size_t level, size_t v) {
  if (level + 1 < c.levels.size())
    return std::max<int64_t>(1, c.tiles[level + 1][v]);
  return c.vindices[v].free ? std::max<int64_t>(1, c.tiles[level][v]) : c.vindices[v].instrExtent;
}

int64_t tripsOf(const Config &c, size_t level, size_t v) {
  int64_t step = stepOf(c, level, v);
  return (c.tiles[level][v] + step - 1) / step;
}

double parallelSpeedup(const Config &c, int threads) {
  if (c.parallel < 0 || threads <= 1)
    return 1;
  size_t v = size_t(c.parallel);
  const VirtualIndex &vi = c.vindices[v];
  int64_t extent = c.tiles[0][v], step = stepOf(c, 0, v), trips = tripsOf(c, 0, v);
  int64_t unit = vi.free ? 1 : std::max<int64_t>(1, vi.instrExtent);
  auto callsOf = [&](int64_t trip) {
    return (std::min(step, extent - trip * step) + unit - 1) / unit;
  };
  int64_t p = std::min<int64_t>(threads, trips), total = 0, busiest = 0;
  for (int64_t t = 0; t < trips; ++t)
    total += callsOf(t);
  for (int64_t t = 0; t < p; ++t) {
    int64_t calls = 0;
    for (int64_t trip = t * trips / p; trip < (t + 1) * trips / p; ++trip)
      calls += callsOf(trip);
    busiest = std::max(busiest, calls);
  }
  return busiest > 0 ? double(total) / double(busiest) : 1;
}

bool sumsItsOwnBlock(const ir::Statement &s, const Config &c, size_t operand, size_t level) {
  const OperandPlacement &p = c.operands[operand];
  return p.output && p.tensor >= 0 && c.levels[level].registers && s.reduce == ir::ReduceOp::Sum &&
         c.finisher < 0;
}

double parallelStarts(const Config &c) {
  if (c.parallel < 0 || tripsOf(c, 0, size_t(c.parallel)) <= 1)
    return 0;
  double starts = 1;
  for (int v : c.order[0]) {
    if (v == c.parallel)
      break;
    starts *= double(tripsOf(c, 0, size_t(v)));
  }
  return starts;
}

bool sharedPack(const Config &c, size_t o, size_t l) {
  const OperandPlacement &p = c.operands[o];
  return !p.output && p.staging[l].kind == Staging::Kind::Pack && !c.levels[l].softwareManaged;
}

int64_t vectorLanes(const Config &c, int64_t elemBytes) {
  uint32_t vectorBytes = 0;
  for (const auto &lv : c.levels)
    vectorBytes = std::max(vectorBytes, lv.registerBytes);
  return std::max<int64_t>(1, int64_t(vectorBytes) / std::max<int64_t>(1, elemBytes));
}

bool packTransposes(const ir::Kernel &kernel, const Config &c, size_t o, size_t l) {
  const OperandPlacement &p = c.operands[o];
  if (p.output || p.tensor < 0 || !p.layoutChange || !p.staged[l] ||
      p.staging[l].kind != Staging::Kind::Pack || p.computed || p.dims.empty() ||
      p.access.indices.size() < 2)
    return false;
  const ir::Tensor &t = kernel.tensors[size_t(p.tensor)];
  const ir::Affine &inner = p.access.indices.back();
  int lanes = p.dims.back();
  if (t.shape.back() <= 1 || inner.terms.size() != 1 || inner.terms[0].second != 1 || lanes < 0)
    return false;
  const std::vector<int> &laneIndices = c.vindices[size_t(lanes)].stmtIndices;
  auto alongLanes = [&](const ir::Affine &a) {
    for (auto [i, coef] : a.terms)
      if (std::find(laneIndices.begin(), laneIndices.end(), i) != laneIndices.end())
        return true;
    return false;
  };
  if (alongLanes(inner))
    return false;
  // Half a vector at least both ways, as the copy moves them: the runs along the unit stride
  // in the packed tile, and the rows across it in a register tile.
  int64_t width = vectorLanes(c, ir::elemTypeBytes(t.type));
  const ir::Statement &s = kernel.statements[c.statement];
  int64_t runs = tileFootprint(s, p.access, c.vindices, c.tiles[l]).back();
  std::vector<int64_t> tile = tileFootprint(s, p.access, c.vindices, c.tiles.back());
  int64_t rows = 0;
  for (size_t d = 0; d + 1 < tile.size(); ++d)
    if (alongLanes(p.access.indices[d]))
      rows = std::max(rows, tile[d]);
  return 2 * std::min(runs, width) >= width && 2 * std::min(rows, width) >= width;
}

bool packedOutsideParallelLoop(const Config &c, size_t o, size_t l) {
  const OperandPlacement &p = c.operands[o];
  if (c.parallel < 0 || l == 0 || !p.staged[l] || !sharedPack(c, o, l))
    return false;
  // Stages nest in the order Lower gives them: by level, then by operand.
  for (size_t q = 0; q < c.operands.size(); ++q) {
    const OperandPlacement &other = c.operands[q];
    if (other.tensor < 0)
      continue;
    for (size_t j = 1; j <= l; ++j)
      if (other.staged[j] && (j < l || q < o))
        return false;
  }
  // The loops around the stage, innermost first, out to the parallel loop.
  for (size_t j = l; j-- > 0;)
    for (size_t k = c.order[j].size(); k-- > 0;) {
      size_t v = size_t(c.order[j][k]);
      if (tripsOf(c, j, v) <= 1)
        continue;
      if (touches(p.access, c.vindices[v]))
        return false;
      if (j == 0 && int(v) == c.parallel)
        return true;
    }
  return false;
}

double callCount(const Config &c) {
  double calls = 1;
  size_t innermost = c.levels.size() - 1;
  for (size_t v = 0; v < c.vindices.size(); ++v) {
    const VirtualIndex &vi = c.vindices[v];
    int64_t step = vi.free ? std::max<int64_t>(1, c.tiles[innermost][v]) : vi.instrExtent;
    calls *= double((vi.extent + step - 1) / step);
  }
  return calls;
}

namespace {

// statementCounts into `counts`, which it resizes.
void countStatementIndices(const ir::Statement &s, const std::vector<VirtualIndex> &vindices,
                           const std::vector<int64_t> &tile, std::vector<int64_t> &counts) {
  counts.assign(s.indices.size(), 1);
  for (size_t v = 0; v < vindices.size(); ++v) {
    int64_t rest = tile[v];
    const auto &group = vindices[v].stmtIndices;
    for (size_t j = group.size(); j-- > 0;) {
      int64_t extent = s.indices[size_t(group[j])].extent;
      counts[size_t(group[j])] = std::min(rest, extent);
      rest = (rest + extent - 1) / extent;
    }
  }
}

// The values one dimension of an access spans over a box of `counts` statement indices.
int64_t rangeOf(const ir::Affine &dim, const std::vector<int64_t> &counts) {
  int64_t range = 1;
  for (auto [i, coef] : dim.terms)
    range += std::llabs(coef) * (counts[size_t(i)] - 1);
  return range;
}

} // namespace

std::vector<int64_t> statementCounts(const ir::Statement &s,
                                     const std::vector<VirtualIndex> &vindices,
                                     const std::vector<int64_t> &tile) {
  std::vector<int64_t> counts;
  countStatementIndices(s, vindices, tile, counts);
  return counts;
}

std::vector<int64_t> accessExtents(const ir::Access &access, const std::vector<int64_t> &counts) {
  std::vector<int64_t> out;
  for (const auto &dim : access.indices)
    out.push_back(rangeOf(dim, counts));
  return out;
}

std::vector<int64_t> tileFootprint(const ir::Statement &s, const ir::Access &access,
                                   const std::vector<VirtualIndex> &vindices,
                                   const std::vector<int64_t> &tile) {
  return accessExtents(access, statementCounts(s, vindices, tile));
}

int64_t tileElements(const ir::Statement &s, const ir::Access &access,
                     const std::vector<VirtualIndex> &vindices, const std::vector<int64_t> &tile) {
  thread_local std::vector<int64_t> counts;
  countStatementIndices(s, vindices, tile, counts);
  int64_t elements = 1;
  for (const auto &dim : access.indices)
    elements *= rangeOf(dim, counts);
  return elements;
}

void statementBox(const Config &c, const ir::Statement &s, const std::vector<int64_t> &begin,
                  const std::vector<int64_t> &size, std::vector<int64_t> &lo,
                  std::vector<int64_t> &hi) {
  lo.assign(s.indices.size(), 0);
  hi.assign(s.indices.size(), 0);
  for (size_t v = 0; v < c.vindices.size(); ++v) {
    int64_t first = begin[v], last = begin[v] + size[v] - 1;
    const auto &group = c.vindices[v].stmtIndices;
    for (size_t j = group.size(); j-- > 0;) {
      size_t i = size_t(group[j]);
      int64_t extent = s.indices[i].extent;
      if (first / extent == last / extent) {
        lo[i] = first % extent;
        hi[i] = last % extent;
      } else {
        lo[i] = 0;
        hi[i] = extent - 1;
      }
      first /= extent;
      last /= extent;
    }
  }
}

void accessBox(const ir::Access &access, const std::vector<int64_t> &lo,
               const std::vector<int64_t> &hi, std::vector<int64_t> &first,
               std::vector<int64_t> &count) {
  first.clear();
  count.clear();
  for (const auto &dim : access.indices) {
    int64_t a = dim.constant, b = dim.constant;
    for (auto [i, coef] : dim.terms) {
      a += coef > 0 ? coef * lo[size_t(i)] : coef * hi[size_t(i)];
      b += coef > 0 ? coef * hi[size_t(i)] : coef * lo[size_t(i)];
    }
    first.push_back(a);
    count.push_back(b - a + 1);
  }
}

void pointOf(const Config &c, const ir::Statement &s, const std::vector<int64_t> &vvalue,
             std::vector<int64_t> &point) {
  point.assign(s.indices.size(), 0);
  for (size_t v = 0; v < c.vindices.size(); ++v) {
    int64_t x = vvalue[v];
    const auto &group = c.vindices[v].stmtIndices;
    for (size_t j = group.size(); j-- > 0;) {
      int64_t extent = s.indices[size_t(group[j])].extent;
      // The common case (a group of one index, or an inner digit already in range) needs no
      // division, the schedule-IR interpreter's hottest path.
      bool digit = x < extent;
      point[size_t(group[j])] = digit ? x : x % extent;
      x = digit ? 0 : x / extent;
    }
  }
}

ir::ElemType stagedType(const ir::Kernel &kernel, const OperandPlacement &p) {
  return p.computed ? p.computed->type : kernel.tensors[size_t(p.tensor)].type;
}

int computeLevel(const OperandPlacement &p) {
  if (!p.computed)
    return -1;
  for (int l : p.path)
    if (p.staged[size_t(l)])
      return l;
  return -1;
}

std::vector<int> layoutDims(const Config &c, size_t operand) {
  const OperandPlacement &p = c.operands[operand];
  std::vector<int> dims;
  if (p.dims.empty() || p.tensor < 0)
    return dims;
  for (size_t v = 0; v < c.vindices.size(); ++v)
    if (touches(p.access, c.vindices[v]) &&
        std::find(p.dims.begin(), p.dims.end(), int(v)) == p.dims.end())
      dims.push_back(int(v));
  dims.insert(dims.end(), p.dims.begin(), p.dims.end());
  return dims;
}

std::vector<int64_t> layoutTile(const Config &c, size_t operand, size_t level, bool padded) {
  const OperandPlacement &p = c.operands[operand];
  std::vector<int> dims = layoutDims(c, operand);
  std::vector<int64_t> tile;
  for (size_t d = 0; d < dims.size(); ++d) {
    int v = dims[d];
    int64_t e = v >= 0 ? std::min(c.tiles[level][size_t(v)], c.vindices[size_t(v)].extent) : 1;
    size_t fromEnd = dims.size() - d; // 1: the operand's last dimension
    if (padded && fromEnd <= p.shape.size()) {
      int64_t whole = p.shape[p.shape.size() - fromEnd];
      if (whole > 0 && fromEnd <= 2)
        e = roundUp(e, whole);
    }
    tile.push_back(e);
  }
  return tile;
}

} // namespace isam::schedule
