// The accelerator simulator: runs an instruction stream (Program.h) on the target's
// description, functionally and in time.
//
// Function. Each memory is a byte array of its described size; an access beyond it is an Error,
// never a silent success. Instructions execute by their semantics (the description's IR bodies),
// with the regions' masks; host ops run on the host's view of DRAM.
//
// Time. Each unit starts its instructions in order, except that one whose operands are ready
// may pass up to `queue - 1` older ones still waiting (the unit's reservation station); it runs
// on whichever of the unit's `count` lanes is free first for it. A compute instruction holds
// its lane for 1/per_cycle cycles and its results are ready `latency` cycles after it starts.
// A move streams its bytes at its own bandwidth and at most the bandwidth of the outer memory
// it reads or writes (shared by all moves through that memory), and its data land `latency`
// cycles after the stream ends. On-chip memories are tracked per line, DRAM per byte range: an
// instruction waits for what it reads to be written (true dependences), and for what it writes
// to be read and written by earlier instructions (false ones), which is what lets a
// double-buffered fill overlap the compute on the other half and serialises one that is not.
// Host ops wait for the accelerator to drain and take no accelerator cycles. Not modelled: bank
// conflicts, the scratchpads' own port bandwidth, and a bound on how far one unit runs ahead of
// another.
#pragma once

#include "backends/accel/Program.h"
#include "interp/Interpreter.h"
#include "schedule/Schedule.h"

#include <memory>
#include <string>
#include <vector>

namespace isam::accel {

struct SimOptions {
  bool functional = true;     // false: timing only (no data; capacity still checked)
  std::string tracePath;      // non-empty: write a Chrome trace (chrome://tracing, Perfetto)
  size_t traceLimit = 500000; // events kept in the trace; later ones are dropped and counted
};

struct SimResult {
  double cycles = 0;
  double seconds = 0; // at the target's clock
  // The described compute peak's share used: the statements' work at the peak rate of the
  // instruction that runs them, over the cycles (padding lanes count as waste).
  double utilization = 0;
  struct Unit {
    std::string name;
    uint32_t lanes = 1;
    uint64_t instructions = 0;
    double busyCycles = 0; // summed over lanes
  };
  std::vector<Unit> units;
  struct Memory {
    std::string name;
    uint64_t bytesIn = 0, bytesOut = 0; // moved into and out of it by moves
  };
  std::vector<Memory> memories;
  std::vector<double> statementCycles; // per statement of the kernel (0: none ran on the device)
  uint64_t instructions = 0;
  uint64_t hostOps = 0;
  uint64_t hostBytes = 0; // packed, unpacked or cleared by the host
  size_t traceEvents = 0, traceDropped = 0;
};

class Simulator : public Sink {
public:
  // `buffers` (the kernel's tensors, as the interpreter holds them) are read at the start and
  // written back by finish(); null when timing only.
  Simulator(const ir::Kernel &kernel, const hw::Target &target, interp::Buffers *buffers,
            SimOptions options = {});
  ~Simulator() override;

  void layout(const std::vector<Allocation> &allocations) override;
  void op(const Op &op) override;
  // Drains the accelerator, writes the tensors back and the trace out.
  SimResult finish();

private:
  struct State;
  std::unique_ptr<State> s_;
};

// Emits the schedule and simulates it (the usual pairing); throws Error.
SimResult simulate(const ir::Kernel &kernel, const hw::Target &target,
                   const schedule::KernelSchedule &schedule, interp::Buffers *buffers,
                   SimOptions options = {});

} // namespace isam::accel
