// A Config to the schedule IR, and the IR's readable text.
#include "schedule/Geometry.h"
#include "schedule/Prefetch.h"
#include "schedule/Schedule.h"
#include "source/Quantities.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace isam::schedule {

int64_t laneCount(const Config &c, const hw::Target &target) {
  const ir::Statement &I = target.instructions[size_t(c.instruction)].semantics.statements[0];
  if (c.finisher < 0 || I.lhs.indices.empty() || I.lhs.indices.back().terms.size() != 1)
    return 0;
  return I.indices[size_t(I.lhs.indices.back().terms[0].first)].extent;
}

namespace {

struct Lowerer {
  const ir::Kernel &kernel;
  const hw::Target &target;
  const Config &c;
  StatementSchedule &out;

  Node level(size_t l) {
    size_t nl = c.levels.size();
    Node inner;
    if (l + 1 == nl) {
      inner.kind = Node::Kind::Call;
    } else {
      inner = level(l + 1);
    }
    // Loops of this level, innermost first, skipping those with a single trip.
    for (size_t k = c.order[l].size(); k-- > 0;) {
      int v = c.order[l][k];
      int64_t step = stepOf(c, l, size_t(v));
      if (c.tiles[l][v] <= step)
        continue;
      Node loop;
      loop.kind = Node::Kind::Loop;
      loop.v = v;
      loop.level = int(l);
      loop.step = step;
      loop.parallel = l == 0 && v == c.parallel;
      if (l + 1 == nl)
        loop.prefetches = prefetches(kernel, target, c, size_t(v));
      loop.body.push_back(std::move(inner));
      inner = std::move(loop);
    }
    // Operand tiles staged in this level's memory are filled before its loops.
    for (size_t b = out.buffers.size(); b-- > 0;) {
      if (out.buffers[b].level != int(l))
        continue;
      Node stage;
      stage.kind = Node::Kind::Stage;
      stage.buffer = int(b);
      stage.prefetchRows = packPrefetchRows(kernel, target, c, out.buffers[b]);
      stage.prefetchTile = prefetchesResultTile(kernel, target, c, out.buffers[b]);
      stage.body.push_back(std::move(inner));
      inner = std::move(stage);
    }
    return inner;
  }
};

// A stage directly inside loops that do not move its operand's tile is hoisted out of them:
// the tile stays in place across those loops, as the cost model counts it (a sum's register
// tile is moved by the reduction's loops too: sumsItsOwnBlock). Out of the parallel
// loop only an input's pack into a cache, which the threads then share read-only (BLIS's
// B panel, packed once per block of the reduction for every block of M): a thread's own
// copy would be packed again for each of its trips.
void hoistStages(Node &n, const ir::Statement &s, const Config &c,
                 const std::vector<Buffer> &buffers) {
  for (auto &x : n.body)
    hoistStages(x, s, c, buffers);
  auto hoistable = [&](const Node &loop, const Node &stage) {
    const Buffer &b = buffers[stage.buffer];
    const OperandPlacement &p = c.operands[b.operand];
    bool shared = sharedPack(c, size_t(b.operand), size_t(b.level));
    return !touches(p.access, c.vindices[loop.v]) && (!loop.parallel || shared) &&
           !(c.vindices[loop.v].reduction &&
             sumsItsOwnBlock(s, c, size_t(b.operand), size_t(b.level)));
  };
  for (auto &x : n.body) {
    while (x.kind == Node::Kind::Loop && x.body.size() == 1 &&
           x.body[0].kind == Node::Kind::Stage) {
      // Stages nest in buffer order, each filling its own buffer: the first of the chain that
      // the loop leaves in place goes to its top, past stages of other operands only (one
      // operand's inner buffer fills from its outer one). B's pack under A's, in a loop over M
      // that moves A alone, was packed again for every tile of A's rows.
      Node *holder = &x, *found = &x.body[0];
      std::vector<int> passed;
      auto operandOf = [&](const Node &stage) { return buffers[stage.buffer].operand; };
      while (!hoistable(x, *found) && found->body.size() == 1 &&
             found->body[0].kind == Node::Kind::Stage) {
        passed.push_back(operandOf(*found));
        holder = found;
        found = &found->body[0];
      }
      if (!hoistable(x, *found) ||
          std::find(passed.begin(), passed.end(), operandOf(*found)) != passed.end())
        break;
      if (found != &x.body[0]) {
        Node moved = std::move(*found);
        holder->body[0] = std::move(moved.body[0]);
        moved.body.clear();
        moved.body.push_back(std::move(x.body[0]));
        x.body[0] = std::move(moved);
      }
      Node stage = std::move(x.body[0]);
      Node loop = std::move(x);
      loop.body = std::move(stage.body);
      stage.body.clear();
      stage.body.push_back(std::move(loop));
      x = std::move(stage);
    }
  }
}

} // namespace

StatementSchedule lower(const ir::Kernel &kernel, const hw::Target &target,
                        const mapping::StatementMappings &mappings, const Config &config,
                        const Cost &cost) {
  StatementSchedule out;
  out.config = config;
  out.cost = cost;
  const ir::Statement &s = kernel.statements[config.statement];
  for (size_t o = 0; o < config.operands.size(); ++o) {
    const OperandPlacement &p = config.operands[o];
    if (p.tensor < 0)
      continue;
    for (size_t l = 0; l < config.levels.size(); ++l) {
      if (!p.staged[l])
        continue;
      Buffer b;
      b.name = kernel.tensors[p.tensor].name + "@" + config.levels[l].name;
      b.operand = int(o);
      b.level = int(l);
      b.memory = config.levels[l].name;
      b.shape = tileFootprint(s, p.access, config.vindices, config.tiles[l]);
      b.doubleBuffered = config.doubleBuffered[l];
      b.lanes = config.finisher >= 0 && p.output && config.levels[l].registers
                    ? laneCount(config, target)
                    : 0;
      out.buffers.push_back(b);
    }
  }
  out.root.kind = Node::Kind::Block;
  // A reduction starts from its identity; so does an accumulating instruction that runs a
  // plain assignment (acc max= a computes a copy when acc starts at -inf).
  const mapping::Candidate &cand = mappings.candidates[config.mapping];
  ir::ReduceOp instrReduce =
      target.instructions[size_t(config.instruction)].semantics.statements[0].reduce;
  if ((s.reduce != ir::ReduceOp::None && !s.accumulates) || cand.zeroInit) {
    Node init;
    init.kind = Node::Kind::Init;
    init.init = cand.zeroInit ? instrReduce : s.reduce;
    out.root.body.push_back(init);
  }
  Lowerer lowerer{kernel, target, config, out};
  out.root.body.push_back(lowerer.level(0));
  hoistStages(out.root, s, config, out.buffers);
  return out;
}

namespace {

void printNode(std::ostringstream &o, const Node &n, const StatementSchedule &ss,
               const ir::Kernel &kernel, const hw::Target &target, int depth) {
  std::string pad(size_t(depth) * 2, ' ');
  const Config &c = ss.config;
  const ir::Statement &s = kernel.statements[c.statement];
  switch (n.kind) {
  case Node::Kind::Block:
    for (const auto &b : n.body)
      printNode(o, b, ss, kernel, target, depth);
    return;
  case Node::Kind::Init:
    o << pad << "init " << ir::printAccess(s.lhs, s, kernel.tensors) << " = "
      << ir::reduceIdentityText(n.init) << "\n";
    return;
  case Node::Kind::Scalar:
    o << pad << "scalar " << ir::printStatement(s, kernel.tensors) << "\n";
    return;
  case Node::Kind::Loop: {
    const VirtualIndex &v = c.vindices[n.v];
    o << pad << "for " << v.name << " step " << n.step << "   [" << c.levels[n.level].name
      << (n.parallel ? ", parallel over " + countOf(target.cores, "core") : "") << "]\n";
    for (const Node::Prefetch &pf : n.prefetches)
      o << pad << "  prefetch " << ir::printAccess(c.operands[pf.operand].access, s, kernel.tensors)
        << " at " << v.name << " + " << pf.ahead << " (" << pf.offsets.size()
        << (pf.offsets.size() == 1 ? " line" : " lines") << ")\n";
    for (const auto &b : n.body)
      printNode(o, b, ss, kernel, target, depth + 1);
    return;
  }
  case Node::Kind::Stage: {
    const Buffer &b = ss.buffers[n.buffer];
    const OperandPlacement &p = c.operands[b.operand];
    bool computes = int(b.level) == computeLevel(p);
    o << pad << "stage " << b.name << " <- "
      << (computes ? ir::printExpr(*p.computed, s, kernel.tensors)
                   : ir::printAccess(p.access, s, kernel.tensors));
    if (b.lanes > 0)
      o << " x" << b.lanes << " lanes from " << ir::reduceIdentityText(s.reduce) << ", folded by "
        << target.instructions[size_t(c.finisher)].name << " after\n";
    else
      o << " via " << stagingText(p.staging[b.level], target)
        << (p.output ? ", written back after" : "")
        << (n.prefetchRows ? ", prefetching " + countOf(n.prefetchRows, "row") + " ahead" : "")
        << (n.prefetchTile ? ", its lines prefetched as it starts" : "") << "\n";
    for (const auto &x : n.body)
      printNode(o, x, ss, kernel, target, depth + 1);
    return;
  }
  case Node::Kind::Call: {
    const hw::Instruction &in = target.instructions[size_t(c.instruction)];
    o << pad << in.name << "(";
    bool first = true;
    for (const auto &p : c.operands) {
      if (p.tensor < 0)
        continue;
      o << (first ? "" : ", ") << in.semantics.tensors[p.operand].name << "="
        << ir::printAccess(p.access, s, kernel.tensors);
      first = false;
    }
    o << ")\n";
    return;
  }
  }
}

} // namespace

const hw::Instruction *stagingMove(const Staging &staging, const hw::Target &target) {
  bool moves = staging.kind == Staging::Kind::Move || staging.kind == Staging::Kind::PackThenMove;
  return moves ? &target.instructions[size_t(staging.move)] : nullptr;
}

std::string stagingText(const Staging &staging, const hw::Target &target) {
  switch (staging.kind) {
  case Staging::Kind::None:
    return "";
  case Staging::Kind::Copy:
    return "copy";
  case Staging::Kind::Pack:
    return "pack";
  case Staging::Kind::Move:
    return stagingMove(staging, target)->name;
  case Staging::Kind::PackThenCopy:
    return "pack, then copy";
  case Staging::Kind::PackThenMove:
    return "pack, then " + stagingMove(staging, target)->name;
  }
  return "";
}

std::string boundText(const Cost &cost, const hw::Target &target) {
  switch (cost.bound) {
  case Bound::None:
    return "";
  case Bound::Compute:
    return "compute";
  case Bound::Latency:
    return "latency";
  case Bound::Bandwidth:
    return target.memories[size_t(cost.boundAt)].name + " bandwidth";
  case Bound::UnitBandwidth:
    return cost.boundAt >= 0
               ? "the " + target.units[size_t(cost.boundAt)].name + " unit's bandwidth"
               : "the moves' bandwidth";
  case Bound::MovesNotOverlapped:
    return "moves (not overlapped)";
  case Bound::ScalarCode:
    return "scalar code";
  }
  return "";
}

std::string searchText(const SearchReport &search) {
  if (!search.tuned.empty())
    return "tuned: " + search.tuned;
  if (search.strategy.empty())
    return "";
  if (search.correctedBy > 0) {
    SearchReport plain = search;
    plain.correctedBy = 0;
    return searchText(plain) + "; the model corrected by " + std::to_string(search.correctedBy) +
           " measurements of this machine";
  }
  std::string out =
      "search: " + search.strategy + ", " + countOf(int64_t(search.mappings), "mapping") + ", ";
  if (search.covered)
    return out + "all " + formatNumber(search.spaceSize) + " candidate schedules costed";
  out += formatCount(int64_t(search.evaluated)) + " of " + formatNumber(search.spaceSize) +
         " candidate schedules costed";
  switch (search.stop) {
  case SearchReport::Stop::Candidates:
    return out + " (stopped by the candidate budget)";
  case SearchReport::Stop::Time:
    return out + " (stopped by the time budget)";
  case SearchReport::Stop::None:
    break;
  }
  return out + " (converged)";
}

std::string decisionText(const Config &c, const hw::Target &target) {
  std::ostringstream o;
  o << "map " << (c.instruction >= 0 ? target.instructions[size_t(c.instruction)].name : "-")
    << " #" << c.mapping;
  for (size_t l = 0; l < c.levels.size(); ++l) {
    o << "; " << c.levels[l].name << ":";
    for (size_t v = 0; v < c.vindices.size(); ++v)
      o << " " << c.vindices[v].name << "=" << c.tiles[l][v];
    o << " order";
    for (int v : c.order[l])
      o << " " << c.vindices[size_t(v)].name;
  }
  o << "; parallel " << (c.parallel >= 0 ? c.vindices[size_t(c.parallel)].name : "-");
  for (const auto &p : c.operands) {
    o << "; operand " << p.operand << " staged";
    for (size_t l = 0; l < p.staged.size() && l < c.levels.size(); ++l)
      if (p.staged[l])
        o << " " << c.levels[l].name << ":" << stagingText(p.staging[l], target);
  }
  return o.str();
}

std::string printSchedule(const KernelSchedule &ks, const ir::Kernel &kernel,
                          const hw::Target &target) {
  std::ostringstream o;
  o << "schedule of " << ks.kernel << " on " << ks.target << "\n";
  for (const auto &ss : ks.statements) {
    const Config &c = ss.config;
    const ir::Statement &s = kernel.statements[c.statement];
    o << "\ns" << c.statement << ": " << ir::printStatement(s, kernel.tensors)
      << (s.staged ? "    (staged: a padded read's copy)" : "") << "\n";
    if (c.mapping < 0) {
      o << "  no instruction runs it fully: scalar code\n";
    } else {
      o << "  mapping: " << target.instructions[size_t(c.instruction)].name << " (";
      bool first = true;
      for (const auto &v : c.vindices) {
        if (v.instrIndex < 0)
          continue;
        o << (first ? "" : ", ") << v.name << " x"
          << (v.free ? std::string("R") : std::to_string(v.instrExtent));
        if (c.finisher >= 0 && v.reduction)
          o << " across lanes, then " << target.instructions[size_t(c.finisher)].name;
        first = false;
      }
      o << ")\n  tiles:";
      for (size_t l = 1; l < c.levels.size(); ++l) {
        o << " " << c.levels[l].name << "[";
        for (size_t v = 0; v < c.vindices.size(); ++v)
          o << (v ? " " : "") << c.vindices[v].name << "=" << c.tiles[l][v];
        o << "]";
      }
      o << "\n";
      for (const auto &b : ss.buffers) {
        o << "  buffer " << b.name << ": [";
        for (size_t d = 0; d < b.shape.size(); ++d)
          o << (d ? ", " : "") << b.shape[d];
        o << "]" << (b.lanes > 0 ? " x" + std::to_string(b.lanes) + " lanes" : "") << " in "
          << b.memory << (b.doubleBuffered ? ", double-buffered" : "") << "\n";
      }
    }
    std::ostringstream cost;
    cost.setf(std::ios::fixed);
    cost.precision(0);
    cost << "  cost: " << ss.cost.cycles << " cycles";
    cost.precision(1);
    if (c.mapping >= 0)
      cost << ", " << ss.cost.utilization * 100 << "% of peak";
    cost << ", bound: " << boundText(ss.cost, target);
    if (ss.cost.accumulators > 0)
      cost << "; " << countOf(ss.cost.accumulators, "independent accumulator");
    if (ss.cost.registersUsed > 0)
      cost << "; " << countOf(ss.cost.registersUsed, "register");
    o << cost.str() << "\n";
    for (const auto &lc : ss.cost.levels) {
      o << "    into " << target.memories[size_t(lc.memory)].name << ": "
        << formatBytes(double(lc.bytes)) << " in " << formatCount(std::llround(lc.cycles))
        << " cycles; working set " << formatBytes(double(lc.footprintBytes));
      if (lc.capacityBytes > 0)
        o << " of " << formatBytes(double(lc.capacityBytes));
      o << "\n";
    }
    if (std::string search = searchText(ss.search); !search.empty())
      o << "  " << search << "\n";
    printNode(o, ss.root, ss, kernel, target, 1);
  }
  return o.str();
}

} // namespace isam::schedule
