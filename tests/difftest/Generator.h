// Random valid isam kernels for the differential tester, in the spirit of Csmith and YARPGen:
// every kernel the generator returns is meant to pass `isamap check` by construction (a
// rejection is a generator bug or a finding), and to have one meaning every executor must
// agree on.
//
// What a kernel can hold: 1 to 4 statements writing outputs, explicit (`local`) and implicit
// locals, scalars; 0 to 5 dimensions; reads with plain, shifted (`h + 1`, `h - 2`), strided
// (`2 * h + r`), summed (`h + r`) and constant indices, and padded reads (`X[h - 2] pad 0.5` of
// inputs cut short of what their indices reach); shifted and strided writes; `=`, `+=`, `max=` and
// `min=` with 0 to 2 reduction indices; `where` ranges (some starting above 0); the element-wise
// functions and conversions; all six element types; sizes from 1 through primes up to 37, and in a
// tenth of the kernels some extents up to 257 (past cache tiles, into parallel loops).
//
// Values stay where every executor's arithmetic is well conditioned, so a difference beyond
// interp::tolerance is a bug and not rounding: inputs are the interpreter's (floats in [-1, 1),
// integers in [-8, 8)); the generator tracks an interval for every subexpression and keeps
// magnitudes small, takes log and sqrt of |x| + 1, divides by |y| + 1 or by constants, calls exp
// only on small arguments, and converts floats to integers only when the value is exact
// (an input times 8).
//
// Features known to be wrong today can be switched off (Features), so a fixed-seed batch can be
// green while their fixes are under way.
//
// Deterministic: the same seed and features give the same kernel on every machine (the random
// numbers come from a fixed splitmix64, never from <random>'s distributions).
#pragma once

#include "Kernel.h"

#include <set>
#include <string>

namespace isam::difftest {

struct Features {
  bool selfRead = true;        // a statement reads the tensor it writes (`=`, at that point)
  bool partialWrites = true;   // an output or local written over part of its extent
  bool intOverflow = true;     // integer values beyond their type's range
  bool multiOffset = true;     // one tensor read at two different points in one statement
  bool diagonal = true;        // one index in two dimensions of an access (A[k, k])
  bool implicitChains = true;  // an implicit local typed by a read of another implicit local
  bool implicitScalars = true; // an implicit local with no dimensions, read back
  bool guards = true;          // conditions on a statement's indices (`where j <= i`)
  bool shiftedWrites = true;   // a write shifted by a constant (`O[i + 2]`), with partial writes
  bool gathers = true;         // a padded read with a gathered index (`T[G0[i], j] pad 0`)
  bool stridedWrites = true;   // a strided write (`O[2 * i + t]`), overlapping in reductions
  int maxStatements = 4;
  int maxRank = 5;
  int64_t maxPoints = 4096; // iteration points per statement (64 times more in large kernels)

  // Names, for flags and reports: self-read, partial-writes, int-overflow, multi-offset,
  // diagonal, implicit-chains, implicit-scalars, guards, shifted-writes, gathers,
  // strided-writes.
  static const std::vector<std::string> &names();
  // Sets the named switch; false for an unknown name.
  bool set(const std::string &name, bool on);
  std::string describe() const; // the switched-off ones, e.g. "no-self-read no-diagonal"
  std::string flags() const;    // isamap_difftest's flags for them: " --no-self-read ..."
};

struct Generated {
  Kernel kernel;
  // What the kernel exercises, for coverage: "op:+=", "fn:exp", "type:i8", "rank:5",
  // "stride", "shift", "negative-shift", "index-sum", "const-index", "where", "where-lo", "guard",
  // "guard-remainder", "shifted-write", "strided-write", "strided-overlap", "strided-unstrided",
  // "gather", "large",
  // "local", "implicit", "scalar", "cast", "prime", "size-1", "statements:4", and the
  // feature names above when used.
  std::set<std::string> traits;
};

Generated generate(uint64_t seed, const Features &features = {});

} // namespace isam::difftest
