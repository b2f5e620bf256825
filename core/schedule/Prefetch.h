// Software prefetch: which inputs the register level's reduction loop prefetches, how far
// ahead, and which lines.
//
// The hardware prefetchers follow sequential streams within a page. A register tile whose
// reduction steps from row to row of an input it reads once (the TN GEMM's A[k, m]: one line of
// a new row per step of k) leaves each stream after one line: measured on this repository's x86
// host, 512 x 16 x 500000 read A at 4 GB/s, and at 7.4 GB/s when every step prefetched the line
// the tile reads when it next comes by along the reduction, as library kernels do. A prefetch
// costs an instruction per line, so it is planned only where nothing else brings the lines in
// early: the input is read in place (no staged buffer), at most kMaxPrefetchedReads times by
// the register tiles (`registerReads`: the first read fetches the lines, the next ones find
// them in the cache and their prefetches cost an instruction each; kMaxPrefetchedFarReads times
// where its rows lie a page or more apart), from a memory that states
// its `latency` and `misses` (one a prefetcher must hide), its address moves by a line or more
// per step of the loop, and the register tiles read it in runs shorter than
// `kMaxPrefetchedRunBytes` (`readRuns`: along each row before the reduction moves on). Longer
// runs the prefetchers follow themselves, and a prefetch only takes issue slots: TN GEMMs
// reading runs of 1 KiB ran 1.05x (2560 x 16 x 2560) and 1.8-2x (512 x 16 x 500000) faster
// with it, runs of 2 and 4 KiB 5-10% slower. Read a few times, B of a GEMM with few rows of A
// (35 x 8457 x 1760: 3 reads of 128-byte runs) ran 1.4x faster in place and prefetched than
// packed (Space's mayReadInPlace then leaves the pack out).
//
// Contract: a pure function of a valid Config and its target. The distance covers the memory's
// latency under load (kLoadedLatencyFactor times the described one) at the instruction's issue
// rate; it is a whole number of register tiles of the reduction where one tile does not cover
// it (the line then waits in the cache for the tile's next visit instead of arriving
// mid-tile), and otherwise the nearest divisor of the tile at least as long. An 8 x 6144 x 1536
// GEMM prefetching B in 256-row register tiles (x86_avx512: 25 steps cover 400 cycles, 50 twice
// that) ran 57 / 86-93 GFLOP/s on one / two cores with the whole tile as the distance, 58 /
// 105-115 at 32 rows, 66-73 / 135-144 at 64; the lines are those a line apart from the first
// element of the operand's tile at one step, and its last element's, at most
// `kMaxPrefetchLines` of them. Lines fetched for the next visit along the reduction wait for
// it in the second cache level (prefetcht1): where the register tiles read more of the input
// than that level holds before the visit (the reduction's blocks outermost, every column of B
// between two visits of a tile's columns), the input is not prefetched.
#pragma once

#include "schedule/Schedule.h"

namespace isam::schedule {

constexpr int64_t kMaxPrefetchLines = 4;
// DRAM's latency while the cores stream from it is about twice its idle latency, which the
// descriptions state (`latency`).
constexpr double kLoadedLatencyFactor = 2.0;
constexpr int64_t kMaxPrefetchedRunBytes = 2048;
constexpr int64_t kMaxPrefetchedReads = 4;
// Rows a page or more apart are prefetched for up to kMaxPrefetchedFarReads reads: no
// prefetcher follows them, and a register tile of 8 rows of A reads B 5 times in a GEMM with 35
// rows (35 x 8457 x 2048: 1.35x faster on one core, 1.4-1.5x on two, than B packed; 35 x 1500 x
// 2048 1.1x and 1.4x). Closer rows lose by it: 35 x 700 x 2048 (2800 bytes apart, B in L3
// between calls) ran 1.25x slower prefetching its 5 reads.
constexpr int64_t kMaxPrefetchedFarReads = 8;

// The prefetches of the loop over virtual index v at the innermost level (empty when that loop
// prefetches nothing).
std::vector<Node::Prefetch> prefetches(const ir::Kernel &kernel, const hw::Target &target,
                                       const Config &c, size_t v);

// Whether the register level's reduction loops prefetch input `operand` of c (read in place).
bool prefetchedInPlace(const ir::Kernel &kernel, const hw::Target &target, const Config &c,
                       size_t operand);

// The rows ahead of the one it copies that a pack from the home memory prefetches (0: none).
// A pack copies its tile row by row; where the rows are short runs far apart (B's [k, n] tile of
// a GEMM with few rows of A: 1 KiB of each of 384 rows, 18 KiB apart), the prefetchers do not
// follow them and every row waits the memory's latency, so the copy, which the core runs between
// its computations, goes at the latency's pace: 32 x 4608 x 1536 ran 70-80 GFLOP/s on one core
// of this repository's x86 host (AMD Zen 5), 95-110 GFLOP/s prefetching 32-64 lines ahead; the
// GRU cells' gate GEMMs (3-D weights) gained on two threads and lost ~15% on one, which is not
// understood yet. Planned where the home memory states `latency` and `misses`, the buffer is
// the operand's first copy (its pack from the tensor), an input's larger than the innermost
// cache (which would hold it whole from one call to the next), with more than one row, in runs
// shorter than kMaxPrefetchedRunBytes: the rows ahead that keep `misses` lines in flight, as
// packSourceCycles charges the pack.
// Whether a result's register stage prefetches the lines of its tile as it starts. A sum's
// register tile starts at zero and is added onto the result when its reduction loop ends (as a
// BLAS micro-kernel does), so the result's lines are first needed at the write-back; where the
// result streams from the home memory, the core waited on their misses at every write-back: C
// of 7680 x 6000 x 2560 (12 rows of 128 bytes a tile, 24000 bytes apart, walked once per block
// of k) ran 146-162 GFLOP/s on one core of this repository's x86 host, 176-192 with the
// prefetches, which the tile's 128 steps of k hide. Planned where the home memory states
// `latency` and `misses`, the result is larger than the outermost cache (results it holds
// gained nothing; 35 x 1500 x 2560 and 6144 x 32 x 2048, held by L2, lost 4% on two cores) and
// the tile has a reduction loop. The lines are those of the write-back (a line apart from each
// run's first element, and its last); executors that do not generate code ignore them.
bool prefetchesResultTile(const ir::Kernel &kernel, const hw::Target &target, const Config &c,
                          const Buffer &buffer);

int64_t packPrefetchRows(const ir::Kernel &kernel, const hw::Target &target, const Config &c,
                         const Buffer &buffer);

} // namespace isam::schedule
