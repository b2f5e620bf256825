#include "backends/accel/Simulator.h"

#include "backends/accel/Emit.h"
#include "ir/ElementBytes.h"
#include "source/FileIo.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace isam::accel {

namespace {

double loadElement(const uint8_t *p, ir::ElemType t) {
  return ir::loadElement(t, p);
}

void storeElement(uint8_t *p, ir::ElemType t, double v) {
  ir::storeElement(t, p, interp::roundTo(t, v));
}

// When a memory's bytes are last written (the data landed) and last read (the read ended).
// On-chip memories keep both per line. The outermost memory keeps only writes, as byte
// intervals: its tiles' rows share lines with their neighbours', and a line would make a tile
// wait for the write-back of the tile beside it. (Its reads need no record: every write to it
// is a result that depends, through the accumulator, on the reads before it.)
class Lines {
public:
  Lines() = default;
  Lines(uint64_t lineBytes, uint64_t size, bool sparse) : lineBytes_(lineBytes), sparse_(sparse) {
    if (!sparse) {
      written_.assign(size_t(size / lineBytes + 1), 0);
      read_.assign(written_.size(), 0);
    }
  }

  // The earliest an access to bytes [first, last] may start.
  double ready(uint64_t first, uint64_t last, bool writes) const {
    double t = 0;
    if (sparse_) {
      auto it = intervals_.upper_bound(first);
      if (it != intervals_.begin())
        --it;
      for (; it != intervals_.end() && it->first <= last; ++it)
        if (it->second.first > first)
          t = std::max(t, it->second.second);
      return t;
    }
    for (uint64_t x = first / lineBytes_; x <= last / lineBytes_; ++x)
      t = std::max({t, written_[x], writes ? read_[x] : 0.0});
    return t;
  }

  void noteRead(uint64_t first, uint64_t last, double end) {
    if (!sparse_)
      for (uint64_t x = first / lineBytes_; x <= last / lineBytes_; ++x)
        read_[x] = std::max(read_[x], end);
  }

  void noteWrite(uint64_t first, uint64_t last, double done) {
    if (!sparse_) {
      for (uint64_t x = first / lineBytes_; x <= last / lineBytes_; ++x)
        written_[x] = std::max(written_[x], done);
      return;
    }
    // [first, end) replaces what it overlaps; the parts of others outside it stay.
    uint64_t end = last + 1;
    auto it = intervals_.upper_bound(first);
    if (it != intervals_.begin())
      --it;
    while (it != intervals_.end() && it->first < end) {
      auto [b, rest] = *it;
      auto [e, time] = rest;
      if (e <= first) {
        ++it;
        continue;
      }
      it = intervals_.erase(it);
      if (b < first)
        intervals_[b] = {first, time};
      if (e > end)
        intervals_[end] = {e, time};
    }
    intervals_[first] = {end, done};
  }

private:
  uint64_t lineBytes_ = 64;
  bool sparse_ = false;
  std::vector<double> written_, read_;
  std::map<uint64_t, std::pair<uint64_t, double>> intervals_; // start -> (end, time)
};

// One lane of a unit: the intervals it is busy, so that an instruction that may start early
// (it passed an older one still waiting) takes the first gap long enough for it.
class Lane {
public:
  // The earliest time from `t` at which the lane is free for `duration` cycles.
  double gap(double t, double duration) const {
    auto it = busy_.upper_bound(t);
    if (it != busy_.begin() && std::prev(it)->second > t)
      t = std::prev(it)->second;
    for (; it != busy_.end() && it->first < t + duration; ++it)
      t = std::max(t, it->second);
    return t;
  }
  void book(double from, double to, double forget) {
    busy_[from] = std::max(to, from);
    // Intervals that end before any later instruction can start are never looked at again.
    while (!busy_.empty() && busy_.begin()->second < forget)
      busy_.erase(busy_.begin());
  }

private:
  std::map<double, double> busy_; // start -> end
};

// A memory's bandwidth shared by the moves through it, as a fluid: time is cut into buckets,
// each able to carry `bytesPerCycle * kBucket` bytes; a transfer takes what is left of each
// bucket from its start, up to its own rate, until its bytes are carried. Transfers are booked
// in program order but at their own times, so a later-issued transfer that starts earlier is
// not queued behind one that starts later.
class Channel {
public:
  static constexpr double kBucket = 32;
  explicit Channel(double bytesPerCycle = 0) : capacity_(bytesPerCycle * kBucket) {}

  // When a transfer of `bytes` starting at `start`, at most `rate` bytes a cycle, ends.
  double transfer(double start, double bytes, double rate) {
    if (capacity_ <= 0)
      return rate > 0 ? start + bytes / rate : start;
    if (rate <= 0)
      rate = capacity_ / kBucket;
    double t = start;
    for (size_t b = size_t(start / kBucket);; ++b) {
      if (b >= used_.size())
        used_.resize(std::max(b + 1, used_.size() * 2), 0);
      double bucketEnd = double(b + 1) * kBucket;
      double take = std::min({rate * (bucketEnd - t), capacity_ - used_[b], bytes});
      if (take > 0) {
        used_[b] += take;
        bytes -= take;
      }
      if (bytes <= 1e-9)
        return std::max(t + take / rate, t);
      t = bucketEnd;
    }
  }

private:
  double capacity_;
  std::vector<double> used_;
};

} // namespace

struct Simulator::State {
  const ir::Kernel &k;
  const hw::Target &t;
  interp::Buffers *buffers;
  SimOptions options;
  std::vector<Allocation> allocations;
  int dram = -1;
  // Function.
  std::vector<std::vector<uint8_t>> memory;
  // Time.
  std::vector<Lines> lines;
  // A unit: its lanes' busy intervals, and the starts of its last `queue` instructions (an
  // instruction starts no earlier than the one `queue` places before it on the unit).
  struct UnitState {
    std::vector<Lane> lanes;
    std::vector<double> recentStarts;
    uint64_t issued = 0;
    int traceTid = 0;
  };
  std::vector<UnitState> units;
  std::vector<Channel> channels; // per memory
  double floor = 0;              // host barrier
  double end = 0;
  int lastStatement = -1;
  double statementStart = 0;
  SimResult result;
  nlohmann::json trace = nlohmann::json::array();

  State(const ir::Kernel &k, const hw::Target &t, interp::Buffers *b, SimOptions o)
      : k(k), t(t), buffers(b), options(std::move(o)) {}

  // ---- memories ----------------------------------------------------------------------------

  void checkRange(int m, uint64_t address, uint64_t bytes, const std::string &what) {
    const hw::Memory &mem = t.memories[size_t(m)];
    if (mem.sizeBytes > 0 && address + bytes > mem.sizeBytes)
      throw Error(what + " accesses " + mem.name + "[" + hexAddress(address) + ", " +
                  hexAddress(address + bytes) + "), beyond its " + std::to_string(mem.sizeBytes) +
                  " B");
    if (options.functional && memory[size_t(m)].size() < address + bytes)
      memory[size_t(m)].resize(address + bytes, 0);
  }

  uint8_t *at(int m, uint64_t address) { return memory[size_t(m)].data() + address; }

  // Every element of a region's valid part: f(byte address, coordinates).
  template <class F> void forEachValid(const Region &r, F &&f) {
    std::vector<int64_t> c(r.valid.size(), 0);
    for (int64_t v : r.valid)
      if (v <= 0)
        return;
    for (;;) {
      uint64_t a = r.address;
      for (size_t d = 0; d < c.size(); ++d)
        a += uint64_t(c[d] * r.strides[d]);
      f(a, c);
      size_t d = c.size();
      while (d-- > 0) {
        if (++c[d] < r.valid[d])
          break;
        c[d] = 0;
      }
      if (d == size_t(-1))
        return;
    }
  }

  // The byte span [first, last] of a region's valid part, checked against its memory.
  void checkRegion(const Region &r, int elemBytes, const std::string &what) {
    uint64_t last = r.address;
    for (size_t d = 0; d < r.valid.size(); ++d) {
      if (r.valid[d] <= 0)
        return;
      last += uint64_t((r.valid[d] - 1) * r.strides[d]);
    }
    checkRange(r.memory, r.address, last - r.address + uint64_t(elemBytes), what);
  }

  // ---- host ops ----------------------------------------------------------------------------

  uint64_t tensorAddress(int tensor) const {
    for (const auto &a : allocations)
      if (!a.view && a.tensor == tensor)
        return a.address;
    throw Error("no allocation holds tensor " + k.tensors[size_t(tensor)].name);
  }

  void toDram() {
    for (size_t i = 0; i < k.tensors.size(); ++i) {
      const ir::Tensor &tt = k.tensors[i];
      int eb = ir::elemTypeBytes(tt.type);
      uint64_t base = tensorAddress(int(i));
      checkRange(dram, base, uint64_t(tt.elementCount()) * eb, "tensor " + tt.name);
      for (size_t e = 0; e < (*buffers)[i].size(); ++e)
        storeElement(at(dram, base + e * eb), tt.type, (*buffers)[i][e]);
    }
  }

  void fromDram() {
    for (size_t i = 0; i < k.tensors.size(); ++i) {
      const ir::Tensor &tt = k.tensors[i];
      int eb = ir::elemTypeBytes(tt.type);
      uint64_t base = tensorAddress(int(i));
      for (size_t e = 0; e < (*buffers)[i].size(); ++e)
        (*buffers)[i][e] = loadElement(at(dram, base + e * eb), tt.type);
    }
  }

  // The address of an allocation's element at a statement point (reading through `access`
  // when the allocation is the tensor itself).
  uint64_t elementAddress(const Allocation &a, const ir::Access &access,
                          const std::vector<int64_t> &point) const {
    const ir::Tensor &tt = k.tensors[size_t(a.tensor)];
    int eb = ir::elemTypeBytes(elementType(a, k));
    if (!a.view)
      return a.address + uint64_t(interp::flatIndex(tt, access, point)) * eb;
    const ir::Statement &s = k.statements[size_t(a.statement)];
    uint64_t flat = 0;
    for (size_t d = 0; d < a.extents.size(); ++d) {
      int64_t x = 0;
      for (int i : a.groups[d])
        x = x * s.indices[size_t(i)].extent + point[size_t(i)];
      flat = flat * uint64_t(a.extents[d]) + uint64_t(x);
    }
    return a.address + flat * eb;
  }

  // Every point of a view: the statement point it stands for.
  template <class F> void forEachViewPoint(const Allocation &a, F &&f) {
    const ir::Statement &s = k.statements[size_t(a.statement)];
    std::vector<int64_t> x(a.extents.size(), 0), point(s.indices.size(), 0);
    for (;;) {
      for (size_t d = 0; d < x.size(); ++d) {
        int64_t v = x[d];
        for (size_t j = a.groups[d].size(); j-- > 0;) {
          int i = a.groups[d][j];
          point[size_t(i)] = v % s.indices[size_t(i)].extent;
          v /= s.indices[size_t(i)].extent;
        }
      }
      f(point);
      size_t d = x.size();
      while (d-- > 0) {
        if (++x[d] < a.extents[d])
          break;
        x[d] = 0;
      }
      if (d == size_t(-1))
        return;
    }
  }

  void hostOp(const Op &op) {
    ++result.hostOps;
    floor = std::max(floor, end);
    switch (op.kind) {
    case Op::Kind::HostStatement: {
      if (options.functional) {
        fromDram();
        interp::runStatement(k, size_t(op.statement), *buffers);
        toDram();
      }
      traceHost("host: " + k.statements[size_t(op.statement)].text);
      return;
    }
    case Op::Kind::HostPack:
    case Op::Kind::HostUnpack: {
      const Allocation &v = allocations[size_t(op.allocation)];
      const ir::Tensor &tt = k.tensors[size_t(v.tensor)];
      int eb = ir::elemTypeBytes(tt.type);
      uint64_t base = tensorAddress(v.tensor);
      checkRange(dram, v.address, v.bytes, "view " + v.name);
      result.hostBytes += v.bytes;
      if (options.functional && v.computed && op.kind == Op::Kind::HostPack)
        forEachViewPoint(v, [&](const std::vector<int64_t> &point) {
          // A computed operand: the host converts (or computes) while it packs.
          double x = loadElement(
              at(dram, base + uint64_t(interp::flatIndex(tt, v.access, point)) * uint64_t(eb)),
              tt.type);
          storeElement(at(dram, elementAddress(v, v.access, point)), v.computed->type,
                       interp::evalExpr(*v.computed, [&](const ir::Access &) { return x; }));
        });
      else if (options.functional)
        forEachViewPoint(v, [&](const std::vector<int64_t> &point) {
          uint64_t from = base + uint64_t(interp::flatIndex(tt, v.access, point)) * eb;
          uint64_t to = elementAddress(v, v.access, point);
          if (op.kind == Op::Kind::HostUnpack)
            std::swap(from, to);
          std::memcpy(at(dram, to), at(dram, from), size_t(eb));
        });
      traceHost(std::string(op.kind == Op::Kind::HostPack ? "host: pack " : "host: unpack ") +
                v.name);
      return;
    }
    case Op::Kind::HostClear: {
      const Allocation &a = allocations[size_t(op.allocation)];
      result.hostBytes += a.bytes;
      if (options.functional) {
        checkRange(dram, a.address, a.bytes, "clearing " + a.name);
        std::memset(at(dram, a.address), 0, size_t(a.bytes));
      }
      traceHost("host: clear " + a.name);
      return;
    }
    case Op::Kind::HostInit: {
      const Allocation &a = allocations[size_t(op.allocation)];
      const ir::Statement &s = k.statements[size_t(op.statement)];
      const ir::Tensor &tt = k.tensors[size_t(a.tensor)];
      std::vector<int64_t> point = op.lo;
      uint64_t count = 1;
      for (int64_t x : op.size)
        count *= uint64_t(x);
      result.hostBytes += count * uint64_t(ir::elemTypeBytes(tt.type));
      if (options.functional && count > 0) {
        double identity = ir::reduceIdentity(op.init);
        for (;;) {
          uint64_t address = elementAddress(a, s.lhs, point);
          checkRange(dram, address, uint64_t(ir::elemTypeBytes(tt.type)), "clearing " + a.name);
          storeElement(at(dram, address), tt.type, identity);
          size_t d = point.size();
          while (d-- > 0) {
            if (++point[d] < op.lo[d] + op.size[d])
              break;
            point[d] = op.lo[d];
          }
          if (d == size_t(-1))
            break;
        }
      }
      return;
    }
    case Op::Kind::Instr:
      return;
    }
  }

  // ---- instructions ------------------------------------------------------------------------

  void execute(const hw::Instruction &in, const Op &op) {
    const ir::Kernel &sem = in.semantics;
    for (const auto &s : sem.statements) {
      std::vector<int64_t> extent;
      for (const auto &idx : s.indices) {
        int64_t e = idx.extent;
        if (!idx.param.empty())
          for (size_t p = 0; p < in.sizeParams.size(); ++p)
            if (in.sizeParams[p] == idx.param)
              e = op.sizes[p];
        extent.push_back(e);
      }
      for (int64_t e : extent)
        if (e <= 0)
          return;
      std::vector<int64_t> point(s.indices.size(), 0);
      auto address = [&](const ir::Access &a, bool &inside) {
        const Region &r = op.regions[size_t(a.tensor)];
        uint64_t addr = r.address;
        inside = true;
        for (size_t d = 0; d < a.indices.size(); ++d) {
          int64_t x = a.indices[d].constant;
          for (auto [i, coef] : a.indices[d].terms)
            x += coef * point[size_t(i)];
          inside = inside && x >= 0 && x < r.valid[d];
          addr += uint64_t(x * r.strides[d]);
        }
        return addr;
      };
      auto read = [&](const ir::Access &a) {
        bool inside;
        uint64_t addr = address(a, inside);
        return inside ? loadElement(at(op.regions[size_t(a.tensor)].memory, addr),
                                    sem.tensors[size_t(a.tensor)].type)
                      : 0.0;
      };
      const ir::Tensor &out = sem.tensors[size_t(s.lhs.tensor)];
      int outMemory = op.regions[size_t(s.lhs.tensor)].memory;
      // A reduction onto an `out` operand starts from its identity.
      if (s.reduce != ir::ReduceOp::None && !s.accumulates)
        forEachValid(op.regions[size_t(s.lhs.tensor)], [&](uint64_t a, const auto &) {
          storeElement(at(outMemory, a), out.type, ir::reduceIdentity(s.reduce));
        });
      for (;;) {
        bool inside;
        uint64_t addr = address(s.lhs, inside);
        if (inside) {
          double value = interp::evalExpr(s.rhs, read);
          uint8_t *dst = at(outMemory, addr);
          double now = s.reduce == ir::ReduceOp::None
                           ? value
                           : interp::combine(s.reduce, out.type, loadElement(dst, out.type), value);
          storeElement(dst, out.type, now);
        }
        size_t d = point.size();
        while (d-- > 0) {
          if (++point[d] < extent[d])
            break;
          point[d] = 0;
        }
        if (d == size_t(-1))
          break;
      }
    }
  }

  // The bytes of a region's valid part: f(first, last) per run along its last dimension.
  template <class F> void forEachRun(const Region &r, int elemBytes, F &&f) {
    if (r.valid.empty())
      return;
    Region outer = r;
    int64_t inner = r.valid.back();
    outer.valid.back() = 1;
    uint64_t span = uint64_t((inner - 1) * r.strides.back() + elemBytes);
    forEachValid(outer, [&](uint64_t a, const auto &) { f(a, a + span - 1); });
  }

  void instruction(const Op &op) {
    if (op.instruction < 0 || size_t(op.instruction) >= t.instructions.size())
      throw Error("an op names instruction " + std::to_string(op.instruction) + ", which " +
                  t.name + " does not describe");
    const hw::Instruction &in = t.instructions[size_t(op.instruction)];
    if (op.regions.size() != in.semantics.tensors.size() || op.sizes.size() != in.sizeParams.size())
      throw Error(in.name + ": the op's operands or sizes do not match the description");
    for (size_t r = 0; r < op.regions.size(); ++r) {
      const Region &reg = op.regions[r];
      const ir::Tensor &tt = in.semantics.tensors[r];
      if (reg.memory < 0 || size_t(reg.memory) >= t.memories.size() ||
          reg.memory != t.memoryIndex(tt.memory) || reg.strides.size() != tt.shape.size() ||
          reg.valid.size() != tt.shape.size())
        throw Error(in.name + ": operand " + tt.name + " is not a region of " + tt.memory +
                    " shaped like the description's");
      checkRegion(reg, ir::elemTypeBytes(tt.type), in.name + " operand " + tt.name);
    }
    if (options.functional)
      execute(in, op);

    // Time.
    if (op.statement != lastStatement) {
      if (lastStatement >= 0)
        closeStatement();
      lastStatement = op.statement;
      statementStart = end;
    }
    double start = floor;
    std::vector<std::pair<int, std::pair<uint64_t, uint64_t>>> reads, writes;
    for (size_t r = 0; r < op.regions.size(); ++r) {
      const ir::Tensor &tt = in.semantics.tensors[r];
      bool written = tt.role != ir::TensorRole::Input;
      bool readToo = tt.role != ir::TensorRole::Output;
      forEachRun(op.regions[r], ir::elemTypeBytes(tt.type), [&](uint64_t a, uint64_t b) {
        start = std::max(start, lines[size_t(op.regions[r].memory)].ready(a, b, written));
        if (written)
          writes.push_back({op.regions[r].memory, {a, b}});
        if (readToo)
          reads.push_back({op.regions[r].memory, {a, b}});
      });
    }
    int u = in.unit >= 0 ? in.unit : 0;
    UnitState &us = units[size_t(u)];
    double &slot = us.recentStarts[us.issued++ % us.recentStarts.size()];
    start = std::max(start, slot); // the start of the instruction `queue` places before
    // How long the instruction holds a lane: its issue interval, or a move's stream at its own
    // bandwidth.
    double hold = in.cost.perCycle > 0 ? 1 / in.cost.perCycle : 1;
    double bytes = 0;
    int outer = -1;
    if (in.isMove) {
      // The bytes come from (or go to) the outer of the two memories.
      outer = op.regions[0].memory;
      size_t outerRegion = 0;
      if (t.isAncestor(op.regions[1].memory, outer)) {
        outer = op.regions[1].memory;
        outerRegion = 1;
      }
      bytes = ir::elemTypeBytes(in.semantics.tensors[outerRegion].type);
      for (int64_t v : op.regions[outerRegion].valid)
        bytes *= double(std::max<int64_t>(v, 0));
      hold = in.cost.bandwidthBytesPerCycle > 0 ? bytes / in.cost.bandwidthBytesPerCycle : 0;
    }
    size_t lane = 0;
    double earliest = std::numeric_limits<double>::infinity();
    for (size_t l = 0; l < us.lanes.size(); ++l)
      if (double at = us.lanes[l].gap(start, hold); at < earliest)
        earliest = at, lane = l;
    start = earliest;
    slot = start;
    double free, readEnd, done;
    if (in.isMove) {
      free = channels[size_t(outer)].transfer(start, bytes, in.cost.bandwidthBytesPerCycle);
      readEnd = free;
      done = free + in.cost.latencyCycles;
      result.memories[size_t(op.regions[0].memory)].bytesIn += uint64_t(bytes);
      result.memories[size_t(op.regions[1].memory)].bytesOut += uint64_t(bytes);
    } else {
      free = start + hold;
      readEnd = free;
      done = start + in.cost.latencyCycles;
    }
    for (auto &[m, run] : reads)
      lines[size_t(m)].noteRead(run.first, run.second, readEnd);
    for (auto &[m, run] : writes)
      lines[size_t(m)].noteWrite(run.first, run.second, done);
    us.lanes[lane].book(start, free,
                        *std::min_element(us.recentStarts.begin(), us.recentStarts.end()));
    result.units[size_t(u)].instructions++;
    result.units[size_t(u)].busyCycles += free - start;
    ++result.instructions;
    end = std::max(end, done);
    traceEvent(in.name, us.traceTid + int(lane), start, done - start);
  }

  void closeStatement() {
    if (lastStatement >= 0 && size_t(lastStatement) < result.statementCycles.size())
      result.statementCycles[size_t(lastStatement)] += end - statementStart;
  }

  // ---- trace -------------------------------------------------------------------------------

  double micros(double cycles) const { return cycles / (t.clockHz / 1e6); }

  void traceEvent(const std::string &name, int tid, double start, double duration) {
    if (options.tracePath.empty())
      return;
    if (result.traceEvents >= options.traceLimit) {
      ++result.traceDropped;
      return;
    }
    ++result.traceEvents;
    trace.push_back({{"name", name},
                     {"ph", "X"},
                     {"pid", 1},
                     {"tid", tid},
                     {"ts", micros(start)},
                     {"dur", micros(duration)}});
  }

  void traceHost(const std::string &what) {
    if (options.tracePath.empty() || result.traceEvents >= options.traceLimit)
      return;
    ++result.traceEvents;
    trace.push_back(
        {{"name", what}, {"ph", "i"}, {"s", "g"}, {"pid", 1}, {"tid", 0}, {"ts", micros(floor)}});
  }

  std::string laneName(size_t u, size_t lane) const {
    std::string name = result.units[u].name;
    if (units[u].lanes.size() > 1)
      name.append(" ").append(std::to_string(lane));
    return name;
  }

  void writeTrace() {
    nlohmann::json events = nlohmann::json::array();
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"args", {{"name", t.name + " (simulated)"}}}});
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", 0},
                      {"args", {{"name", "host"}}}});
    for (size_t u = 0; u < units.size(); ++u)
      for (size_t l = 0; l < units[u].lanes.size(); ++l)
        events.push_back({{"name", "thread_name"},
                          {"ph", "M"},
                          {"pid", 1},
                          {"tid", units[u].traceTid + int(l)},
                          {"args", {{"name", laneName(u, l)}}}});
    for (auto &e : trace)
      events.push_back(std::move(e));
    nlohmann::json doc = {{"traceEvents", events},
                          {"displayTimeUnit", "ns"},
                          {"otherData",
                           {{"kernel", k.name},
                            {"target", t.name},
                            {"cycles", result.cycles},
                            {"eventsDropped", result.traceDropped}}}};
    std::string error;
    if (!writeFileAtomically(options.tracePath, doc.dump(), error))
      throw Error("cannot write the trace: " + error);
  }
};

Simulator::Simulator(const ir::Kernel &kernel, const hw::Target &target, interp::Buffers *buffers,
                     SimOptions options)
    : s_(std::make_unique<State>(kernel, target, buffers, std::move(options))) {
  State &s = *s_;
  if (!buffers)
    s.options.functional = false;
  s.memory.resize(target.memories.size());
  for (size_t m = 0; m < target.memories.size(); ++m) {
    const hw::Memory &mem = target.memories[m];
    bool outermost = mem.parent < 0 && s.dram < 0 && !mem.isRegisters;
    if (outermost)
      s.dram = int(m);
    s.lines.emplace_back(mem.lineBytes > 0 ? mem.lineBytes : 64, mem.sizeBytes, outermost);
    s.result.memories.push_back({mem.name, 0, 0});
    s.channels.emplace_back(mem.bandwidthBytesPerCycle);
  }
  if (s.dram < 0)
    throw Error("target " + target.name + " describes no outermost memory");
  int tid = 1;
  for (const auto &u : target.units) {
    State::UnitState us;
    us.lanes.resize(std::max<uint32_t>(u.count, 1));
    us.recentStarts.assign(std::max<uint32_t>(u.queue, 1), 0);
    us.traceTid = tid;
    tid += int(us.lanes.size());
    s.units.push_back(us);
    s.result.units.push_back({u.name, uint32_t(us.lanes.size()), 0, 0});
  }
  if (s.units.empty()) {
    State::UnitState us;
    us.lanes.resize(1);
    us.recentStarts.assign(1, 0);
    us.traceTid = tid;
    s.units.push_back(us);
    s.result.units.push_back({"core", 1, 0, 0});
  }
  s.result.statementCycles.assign(kernel.statements.size(), 0);
}

Simulator::~Simulator() = default;

void Simulator::layout(const std::vector<Allocation> &allocations) {
  State &s = *s_;
  s.allocations = allocations;
  for (const auto &a : allocations)
    s.checkRange(s.dram, a.address, a.bytes, "allocation " + a.name);
  if (s.options.functional)
    s.toDram();
}

void Simulator::op(const Op &op) {
  if (op.kind == Op::Kind::Instr)
    s_->instruction(op);
  else
    s_->hostOp(op);
}

SimResult Simulator::finish() {
  State &s = *s_;
  s.closeStatement();
  s.lastStatement = -1;
  SimResult &r = s.result;
  r.cycles = s.end;
  r.seconds = s.end / s.t.clockHz;
  // Work at the peak rate of the instructions that ran it.
  double ideal = 0;
  double peak = s.t.peakFlopsPerCycle() * s.t.cores;
  if (peak > 0 && r.cycles > 0) {
    for (size_t i = 0; i < s.k.statements.size(); ++i)
      if (r.statementCycles[i] > 0)
        ideal += double(s.k.statements[i].computedPointCount()) *
                 s.k.statements[i].flopsPerPoint() / peak;
    r.utilization = std::min(1.0, ideal / r.cycles);
  }
  if (s.options.functional)
    s.fromDram();
  if (!s.options.tracePath.empty())
    s.writeTrace();
  return r;
}

SimResult simulate(const ir::Kernel &kernel, const hw::Target &target,
                   const schedule::KernelSchedule &schedule, interp::Buffers *buffers,
                   SimOptions options) {
  Simulator sim(kernel, target, buffers, std::move(options));
  emit(kernel, target, schedule, sim);
  return sim.finish();
}

} // namespace isam::accel
