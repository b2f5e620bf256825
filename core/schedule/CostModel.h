// Cost models: a Config in, cycles and the limiting bound out. The interface lets a measured
// model (JIT-run candidates) stand beside the analytical one.
#pragma once

#include "schedule/Geometry.h"
#include "schedule/Schedule.h"

#include <memory>

namespace isam::schedule {

class CostModel {
public:
  virtual ~CostModel() = default;
  virtual std::string name() const = 0;
  // The cost of `config`. Decisions that follow from capacity are settled in the cost
  // (Cost::doubleBuffered), never in `config`.
  virtual Cost evaluate(const Config &config) const = 0;
};

// Per level, compute time against bytes moved over bandwidth given tiles, order and reuse
// (a roofline per level, in the manner of Timeloop), plus the latency bound of an accumulating
// instruction that has too few independent accumulators. All figures from the description.
class AnalyticalModel : public CostModel {
public:
  AnalyticalModel(const ir::Kernel &kernel, const hw::Target &target,
                  const mapping::StatementMappings &mappings);
  std::string name() const override { return "analytical"; }
  Cost evaluate(const Config &config) const override;

private:
  const ir::Kernel &kernel_;
  const hw::Target &target_;
  const mapping::StatementMappings &mappings_;
};

// What an operand moves into a level over the whole schedule: its tile there, how many times
// the tile is (re)filled (loops outside the level that move it), and the bytes moved, counting a
// result twice (in and back out) and a layout change an element per vector slot (a pack that
// transposes whole vectors, packTransposes: its shuffles). Into
// registers, traffic is load slots: a broadcast element takes a whole register's slot, and an
// input the instruction reads from memory itself (not through the registers) its bytes per
// call. The cost model's traffic is the sum over operands; pictures show the parts.
struct Traffic {
  double tileBytes = 0;
  double loads = 0;
  double totalBytes = 0;
};
Traffic operandTraffic(const ir::Kernel &kernel, const Config &c, size_t operand, size_t level);
// Whether an operand loads through a level: on its path, or an input read from memory by the
// instruction at a register level.
bool loadsInto(const Config &c, size_t operand, size_t level);

} // namespace isam::schedule
