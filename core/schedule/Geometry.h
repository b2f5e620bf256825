// Schedule geometry: the arithmetic of tiles, boxes and layouts that every reader of a schedule
// shares. A box of virtual indices (a begin and a size per virtual index) covers ranges of the
// statement's indices (a fused virtual index is a mixed-radix number of its statement indices,
// outermost first); an access over those ranges touches a bounding box of its tensor; a level's
// loops step through its tile by the next level's tile; a scratchpad lays a staged tile out one
// dimension per virtual index that moves it.
//
// Contract: pure functions of a valid Config (schedule/Schedule.h). The cost model, the
// schedule-IR interpreter, the backends and viz use these and no arithmetic of their own, so
// that what the cost model sizes is what is emitted and what a picture shows.
#pragma once

#include "schedule/Schedule.h"

#include <cstdint>
#include <vector>

namespace isam::schedule {

int64_t roundUp(int64_t x, int64_t multiple);

// Rows this many bytes apart or more lie on separate pages, where the CPUs' prefetchers stop:
// reads that step from row to row are demand misses.
constexpr int64_t kPageBytes = 4096;

// A register tile whose reduction reads an input in place a page or more per step (farSteps in
// CostModel.cpp), which other register tiles read again, runs at full speed while one walk
// along the reduction spans up to kFarWalkReachBytes; walks spanning twice that or more cost
// about kFarWalkStepCycles more per step, most likely in address translation (every step is a
// new page; the mechanism was not isolated, the machine has no PMU). Measured on this
// repository's x86 host: a TN GEMM's A (4096 x 64 x 4096, rows 16 KiB apart) ran 9.0-10.3 ms on
// two cores with walks of 64-384 rows (1-6 MiB) and 15.3 ms with 512 (8 MiB), 26 cycles a step
// against 16; 35 x 8457 x 2048's B (rows 33 KiB apart) 5.0 ms with 128-row walks (4.3 MiB) and
// 6.7-6.9 with 256 and 512.
constexpr double kFarWalkReachBytes = 4.0 * 1024 * 1024;
constexpr double kFarWalkStepCycles = 8;

// Lines a core keeps in flight into a cache from the next one where no prefetcher follows the
// reads (rows a page apart, read again by the next register tile), while its arithmetic goes
// on. Measured on this repository's x86 host: 35 x 1500 x 2048 reading B's 96-column blocks of
// 512 rows again from L2 (latency 14), 3.5 lines a step of 21 FMAs, ran 1.19x slower than
// 128-row blocks that L1 keeps; a TN GEMM's A (4096 x 64 x 4096), one line a step of 16 FMAs,
// lost nothing read again from L2, and ran 0.73x as fast read again from L3 (latency 50) by
// each 16-column tile of B.
constexpr double kFarLinesInFlight = 4;

// What a parallel loop's fork and join cost native code (libgomp waking its threads and
// waiting for the last: 0.85 us measured for two threads on this repository's x86 host).
constexpr double kForkJoinSeconds = 1e-6;

// Lines a pack's copy loop (rows of a tile gathered into a new layout) keeps in flight from a
// cache: measured on this repository's x86 host, packing 128 x 384 floats of a 1500-float-wide
// matrix ran at 45 GB/s from L2 (latency 14) and 13-17 GB/s from L3 (latency 50), about three
// lines per latency at 3.6 GHz, where a plain read of L3 streams at 30 GB/s.
constexpr double kPackLinesInFlight = 3;

// Lines of a result's register tile whose write-back reads wait on together, from a cache: on
// this repository's x86 host a TN GEMM's 14 x 32 tile (28 lines, C held by L3 or prefetched
// from DRAM) cost 220-375 cycles a visit beyond its FMAs and an 8 x 32 tile (16 lines) 150-200,
// about 12 cycles a line where L3's latency is 50: four lines per latency.
constexpr double kWriteBackLinesInFlight = 4;

// Whether a box of `size` values of a fused virtual index, whose begin is a multiple of `align`
// (0: the begin is 0), stays within one run of its innermost statement index (`run` values):
// then its points are that run's values, contiguous, and a register tile over it never wraps a
// row. Static, from the alignment and the size alone.
bool withinOneRun(int64_t size, int64_t align, int64_t run);

// Whether an access depends on any statement index a virtual index stands for.
bool touches(const ir::Access &access, const VirtualIndex &v);

// How many times the register tiles read each element of an input: once per register tile
// along every index it does not depend on (a GEMM's B, once per register tile of M's rows).
int64_t registerReads(const Config &c, const OperandPlacement &p);

// How an input's reads from memory run: the contiguous bytes a run covers, and how many runs
// (rows) are read in turn. The reads are the tile of the level that reads the tensor (its pack,
// or the innermost cache level on its path), a row at a time; where at most `streams` rows are
// read in turn and the next loops out move along the rows (the inner dimension), each row reads
// on where the last tile stopped, and the prefetchers follow it as one long run.
struct ReadRuns {
  double runBytes = 0;
  double rows = 1;
};
ReadRuns readRuns(const ir::Kernel &kernel, const Config &c, const OperandPlacement &p,
                  uint32_t streams);

// Step of the loop over virtual index v at `level` (the next level's tile, or below the
// innermost level the instruction's extent), and its trip count over the level's tile.
int64_t stepOf(const Config &c, size_t level, size_t v);
int64_t tripsOf(const Config &c, size_t level, size_t v);

// Instruction calls over the whole statement: each virtual index in steps of one call's extent.
double callCount(const Config &c);

// How much faster the parallel loop (level 0, over c.parallel) runs on `threads` threads than
// on one, as the generated code splits it: each thread a contiguous block of its trips
// ([t * T / P, (t + 1) * T / P) for P = min(threads, T)), a partial last trip costing its
// calls. The busiest thread's calls set the time: three trips on two threads are 1.5x, not 2x.
// 1 without a parallel loop.
double parallelSpeedup(const Config &c, int threads);

// Whether the result's register tile at `level` sums only its own block of the reduction, from
// zero, and adds it onto the result (a BLAS micro-kernel's tile, which the native code emits):
// a loop over the reduction outside the tile moves it as a loop over the result's indices does,
// and the stage is never hoisted out of one. Rounding error then grows with the block's length
// and the number of blocks, not with the whole reduction: one chain of 300,000 additions per
// element left errors ~20 times OpenBLAS's. Not a lane-reduced tile, which folds its lanes at
// every write-back.
bool sumsItsOwnBlock(const ir::Statement &s, const Config &c, size_t operand, size_t level);

// How many times the parallel loop starts (and native code forks and joins its threads): once
// per trip of the outermost level's loops outside it. 0 without a parallel loop.
double parallelStarts(const Config &c);

// Whether input o's pack into cache level l may be shared by the threads, read-only, when it is
// made outside the parallel loop (BLIS's B panel): an input's pack, not into a scratchpad.
bool sharedPack(const Config &c, size_t o, size_t l);

// Whether one thread packs input o's tile into level l while the others wait: where the schedule
// IR hoists the stage out of the parallel loop (a shared input pack into a cache, Lower's
// hoistStages), which it does through every loop from the stage out to the parallel loop when
// none of them moves the tile and no other stage stands between (a stage passes loops, never
// another stage).
bool packedOutsideParallelLoop(const Config &c, size_t o, size_t l);

// Elements of `elemBytes` bytes in the widest register of c's levels (1 without registers).
int64_t vectorLanes(const Config &c, int64_t elemBytes);

// Whether input o's pack into cache level l across a layout change moves whole vectors,
// transposed in registers, as native code copies it: the tensor's unit-stride dimension is one
// statement index the instruction's lanes do not run along (B[n, k] under n on the lanes: rows
// of k read as vectors become columns of the buffer), with half a vector at least of both (runs
// of the packed tile along the unit stride, rows of a register tile along the lanes). Otherwise
// each element is gathered.
bool packTransposes(const ir::Kernel &kernel, const Config &c, size_t o, size_t l);

// Values each statement index takes over a tile of `tile[v]` elements of every virtual index.
std::vector<int64_t> statementCounts(const ir::Statement &s,
                                     const std::vector<VirtualIndex> &vindices,
                                     const std::vector<int64_t> &tile);

// Elements per tensor dimension of the bounding box an access touches when each statement
// index takes `counts[i]` consecutive values.
std::vector<int64_t> accessExtents(const ir::Access &access, const std::vector<int64_t> &counts);

// Working set of an operand's tile (elements) when the virtual indices have the given tile
// sizes: the bounding box of the access over the box, per tensor dimension.
std::vector<int64_t> tileFootprint(const ir::Statement &s, const ir::Access &access,
                                   const std::vector<VirtualIndex> &vindices,
                                   const std::vector<int64_t> &tile);
// The number of elements of that box (its dimensions' product), without allocating: the
// cost model asks for it many times per candidate.
int64_t tileElements(const ir::Statement &s, const ir::Access &access,
                     const std::vector<VirtualIndex> &vindices, const std::vector<int64_t> &tile);

// The range [lo[i], hi[i]] of each statement index over a box of virtual indices (each
// [begin[v], begin[v] + size[v])): a fused index spans its inner indices whole unless the box
// stays within one value of the outer ones.
void statementBox(const Config &c, const ir::Statement &s, const std::vector<int64_t> &begin,
                  const std::vector<int64_t> &size, std::vector<int64_t> &lo,
                  std::vector<int64_t> &hi);

// The bounding box [first[d], first[d] + count[d]) of an access over statement-index ranges
// [lo[i], hi[i]].
void accessBox(const ir::Access &access, const std::vector<int64_t> &lo,
               const std::vector<int64_t> &hi, std::vector<int64_t> &first,
               std::vector<int64_t> &count);

// The statement point of one value per virtual index (fused indices split, outermost first).
void pointOf(const Config &c, const ir::Statement &s, const std::vector<int64_t> &vvalue,
             std::vector<int64_t> &point);

// An operand's tile as a scratchpad lays it out (and a DMA moves it): one dimension per
// virtual index that moves it, the loops first (outermost first), then the instruction
// operand's own dimensions (-1: one that follows none). Empty when placement.dims is.
std::vector<int> layoutDims(const Config &c, size_t operand);

// The element type of an operand's staged buffers: the computed expression's, or the tensor's.
ir::ElemType stagedType(const ir::Kernel &kernel, const OperandPlacement &p);
// The level whose staged buffer computes a computed operand (its outermost staged level), or -1.
int computeLevel(const OperandPlacement &p);
// Elements per layout dimension of the tile at `level`; with `padded`, the instruction operand's
// last two dimensions rounded up to whole operands, as the scratchpad holds them.
std::vector<int64_t> layoutTile(const Config &c, size_t operand, size_t level, bool padded);

} // namespace isam::schedule
