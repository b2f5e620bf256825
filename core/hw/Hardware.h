// The hardware model: a target description as a graph of memories (each with a parent one
// level further from the compute), compute units, and instructions and moves whose semantics
// are compute-IR statements. Built by sema/ from `target` and `system` declarations; read by
// the mapper, scheduler, backends and viz. Holds no per-target knowledge of its own.
#pragma once

#include "ir/Compute.h"

#include <optional>
#include <string>
#include <vector>

namespace isam::hw {

struct Memory {
  std::string name;
  int parent = -1; // index into Target::memories; -1 for the outermost level
  bool isRegisters = false;
  uint64_t sizeBytes = 0; // registers: count * width
  uint32_t lineBytes = 0;
  uint32_t banks = 1;
  // The rate at which this level delivers data to the levels inside it (closer to the compute),
  // per core for private levels; 0 when not described. Given per second, it is converted with
  // the target's clock.
  double bandwidthBytesPerCycle = 0;
  bool bandwidthPerSecond = false; // given per second: a change of clock keeps it per second
  double latencyCycles = 0;
  // What a core's caches keep in flight when they read from this memory (0: not described, and
  // not modelled): line fills at once, and sequential streams its prefetchers follow. A read
  // that jumps to another row of a tensor before a prefetcher follows it waits this memory's
  // latency for every `misses` lines (Little's law); a row read on for pages streams at the
  // bandwidth.
  uint32_t misses = 0;
  uint32_t streams = 0;
  // A cache's associativity (0: not described, and conflicts not modelled): lines whose
  // addresses are a multiple of size / ways apart share a set, which holds `ways` of them.
  uint32_t ways = 0;
  uint32_t registerCount = 0; // registers only
  uint32_t registerBytes = 0;
  SourceRange range;
};

struct Unit {
  std::string name;
  uint32_t count = 1;
  // Instructions waiting to start, of which the unit starts whichever are ready (a reservation
  // station): an instruction may pass up to queue - 1 older ones. 1: strictly in order.
  uint32_t queue = 1;
  SourceRange range;
};

struct Cost {
  double latencyCycles = 1;
  double perCycle = 1;               // issue rate: instructions started per cycle per core
  double bandwidthBytesPerCycle = 0; // moves
  bool bandwidthPerSecond = false;   // given per second (see Memory)
};

struct Instruction {
  std::string name;
  bool isMove = false;
  std::vector<std::string> sizeParams;
  // Operands are the tensors of `semantics` (role In, Out or InOut; memory set).
  ir::Kernel semantics;
  int unit = -1;
  Cost cost;
  std::string asmTemplate;
  SourceRange range;
};

struct Target {
  std::string name;
  std::string triple, cpu, features; // empty for targets with no LLVM backend
  uint32_t cores = 1;
  double clockHz = 1e9;
  std::vector<Memory> memories;
  std::vector<Unit> units;
  std::vector<Instruction> instructions;
  SourceRange range;

  int memoryIndex(const std::string &name) const;
  const Instruction *instruction(const std::string &name) const;
  bool isAncestor(int ancestor, int memory) const;
  // Software-managed: registers, or a memory some move fills from a level further out (a
  // scratchpad). Anything else is a cache, filled by the hardware.
  bool isSoftwareManaged(int memory) const;
  // The compute peak of one core: the most arithmetic any instruction does per cycle (lanes x
  // operations per lane x issue rate); 0 when no instruction computes.
  double peakFlopsPerCycle() const;
  // The instruction that reaches it (the first of equals); null when none computes.
  const Instruction *peakInstruction() const;
  // Runs the cores at `hz`: cycle counts (latencies, issue rates, bandwidths given per cycle)
  // stay, bandwidths given per second are converted again.
  void setClock(double hz);
};

struct MemoryRef {
  std::string target, memory;
};

struct Link {
  MemoryRef from, to;
  double bandwidthBytesPerCycle = 0;
  double latencyCycles = 0;
};

struct System {
  std::string name;
  std::vector<std::string> hosts, devices;
  std::vector<std::vector<MemoryRef>> shared;
  std::vector<Link> links;
  SourceRange range;
};

std::string printTarget(const Target &t);
std::string printSystem(const System &s);

} // namespace isam::hw
