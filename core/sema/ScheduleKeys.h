// The items a `schedule { ... }` block may hold: the one table sema checks blocks against
// (sema/ScheduleBlocks.h) and editors classify, complete and document them from.
#pragma once

#include <array>
#include <string_view>

namespace isam::sema {

enum class ScheduleKey { Map, Tile, Order, Parallel };

struct ScheduleKeyInfo {
  ScheduleKey key;
  std::string_view name;   // as written: `tile`
  std::string_view syntax; // the item's form, as messages and completion show it
  std::string_view doc;    // what pinning it decides
  bool takesMemory;        // written `KEY MEMORY: ...` (tile, order); the others take none
};

inline constexpr std::array<ScheduleKeyInfo, 4> kScheduleKeys{{
    {ScheduleKey::Map, "map", "map INSTR;", "the instruction that runs the statement", false},
    {ScheduleKey::Tile, "tile", "tile MEMORY: i N, ...;",
     "the tile of each named index held at a memory level", true},
    {ScheduleKey::Order, "order", "order MEMORY: i, j, ...;",
     "the loop order at a memory level, outermost first; it names each index once", true},
    {ScheduleKey::Parallel, "parallel", "parallel: i;",
     "the loop that runs in parallel (a non-reduction index)", false},
}};

// The entry for a key as written, or null when no item has that name.
constexpr const ScheduleKeyInfo *scheduleKey(std::string_view name) {
  for (const auto &k : kScheduleKeys)
    if (k.name == name)
      return &k;
  return nullptr;
}

} // namespace isam::sema
