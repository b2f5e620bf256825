// Schedule blocks: checked against the kernel alone (see ScheduleBlocks.h).
#include "sema/ScheduleBlocks.h"

#include "sema/ScheduleKeys.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

namespace isam::sema {

namespace {

using Kind = ast::Expr::Kind;

constexpr double kMaxTile = double(int64_t(1) << 40); // the largest size of any dimension

std::string joined(const std::vector<std::string> &names) {
  std::string out;
  for (const auto &n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The indices of one statement, found as statement lowering finds them (Lowering.cpp): every
// name inside an index expression that is neither a size parameter nor a tensor. Those of the
// written access are the write indices; the others are reduced. The indices of a strided written
// dimension (`O[2 * i + r]`) are neither: lowering solves them away (ir/StridedWrites.h).
struct StatementIndices {
  std::vector<std::string> names; // the write indices in order, then the others by first use
  std::set<std::string> all;      // the same, to look up
  std::set<std::string> reductions;
  std::set<std::string> strided;

  bool has(const std::string &name) const { return all.count(name) > 0; }
  std::vector<std::string> writeIndices() const {
    std::vector<std::string> out;
    for (const auto &n : names)
      if (!reductions.count(n) && !strided.count(n))
        out.push_back(n);
    return out;
  }
};

class IndexCollector {
public:
  IndexCollector(const ast::KernelDecl &k, size_t statement) {
    for (const auto &p : k.sizeParams)
      notIndices_.insert(p.name);
    for (const auto &p : k.inputs)
      notIndices_.insert(p.name.name);
    for (const auto &p : k.outputs)
      notIndices_.insert(p.name.name);
    for (const auto &l : k.locals)
      notIndices_.insert(l.name.name);
    // Implicit locals: the tensors written so far.
    for (size_t s = 0; s <= statement; ++s)
      if (k.statements[s].lhs)
        notIndices_.insert(k.statements[s].lhs->name.name);
  }

  StatementIndices of(const ast::Statement &s) {
    std::vector<std::string> written;
    if (s.lhs)
      for (const auto &d : s.lhs->args)
        if (d)
          writtenIndex(*d, written);
    for (const auto &w : written)
      add(w);
    for (const auto &n : out_.strided)
      written.push_back(n);
    if (s.lhs)
      for (const auto &d : s.lhs->args)
        if (d)
          index(*d);
    if (s.rhs)
      tensorExpr(*s.rhs);
    for (const auto &n : out_.names)
      if (std::find(written.begin(), written.end(), n) == written.end())
        out_.reductions.insert(n);
    return std::move(out_);
  }

private:
  std::set<std::string> notIndices_;
  StatementIndices out_;

  void add(const std::string &name) {
    if (out_.all.insert(name).second)
      out_.names.push_back(name);
  }
  // The index of a written dimension: `c`, also in a shifted `c + C1`; those of a strided one
  // (any other form) go to out_.strided.
  void writtenIndex(const ast::Expr &e, std::vector<std::string> &out) {
    std::vector<std::string> names;
    namesIn(e, names);
    bool shifted = (e.kind == Kind::Add || e.kind == Kind::Sub) && names.size() == 1 &&
                   std::any_of(e.args.begin(), e.args.end(), [&](const auto &a) {
                     return a && a->kind == Kind::Name && a->name.name == names[0];
                   });
    if (e.kind == Kind::Name || shifted)
      out.insert(out.end(), names.begin(), names.end());
    else
      out_.strided.insert(names.begin(), names.end());
  }
  void namesIn(const ast::Expr &e, std::vector<std::string> &out) const {
    if (e.kind == Kind::Name && !notIndices_.count(e.name.name))
      out.push_back(e.name.name);
    if (e.kind != Kind::Access && e.kind != Kind::Call)
      for (const auto &a : e.args)
        if (a)
          namesIn(*a, out);
  }
  void index(const ast::Expr &e) {
    if (e.kind == Kind::Name) {
      if (!notIndices_.count(e.name.name))
        add(e.name.name);
      return;
    }
    if (e.kind == Kind::Access || e.kind == Kind::Call)
      return; // not an index expression: lowering reports it
    for (const auto &a : e.args)
      if (a)
        index(*a);
  }
  void tensorExpr(const ast::Expr &e) {
    for (const auto &a : e.args)
      if (a)
        e.kind == Kind::Access ? index(*a) : tensorExpr(*a);
  }
};

class BlockChecker {
public:
  BlockChecker(const ast::KernelDecl &k, DiagnosticSink &diags) : k_(k), diags_(diags) {}

  KernelPins run() {
    for (const auto &block : k_.schedules) {
      bool follows = block.afterStatement >= 1 && block.afterStatement <= k_.statements.size();
      if (!follows && !k_.incomplete) {
        malformed(block.range, "a schedule block pins the statement written before it; "
                               "this one has none");
        continue;
      }
      // A kernel that lost statements to syntax errors cannot tell which one a block follows:
      // its items' forms are checked, and they pin nothing when the statement is lost.
      StatementPins lost;
      StatementPins &pins = follows ? out_.statements[block.afterStatement - 1] : lost;
      Seen lostSeen;
      seen_ = follows ? &seenByStatement_[block.afterStatement - 1] : &lostSeen;
      pins.range = block.range;
      std::optional<StatementIndices> indices;
      if (!k_.incomplete)
        indices = IndexCollector(k_, block.afterStatement - 1)
                      .of(k_.statements[block.afterStatement - 1]);
      for (const auto &item : block.items)
        check(item, pins, indices ? &*indices : nullptr);
    }
    return std::move(out_);
  }

private:
  const ast::KernelDecl &k_;
  DiagnosticSink &diags_;
  KernelPins out_;
  // Where each tile and order of a statement's pins is, by (memory, index) and memory: a block
  // may hold many items, and each is looked up.
  struct Seen {
    std::map<std::pair<std::string, std::string>, size_t> tiles;
    std::map<std::string, size_t> orders;
  };
  std::map<size_t, Seen> seenByStatement_;
  Seen *seen_ = nullptr; // the current block's statement's

  Diagnostic &malformed(SourceRange range, const std::string &message) {
    out_.ok = false;
    return diags_.error("E0704", range, message);
  }
  Diagnostic &unfit(SourceRange range, const std::string &message) {
    out_.ok = false;
    return diags_.error("E0705", range, message);
  }

  static bool namesOnly(const ast::ScheduleItem &item) {
    return std::all_of(item.values.begin(), item.values.end(),
                       [](const ast::ScheduleValue &v) { return v.name && !v.number; });
  }

  // `indices` is null when the statement is not known for sure (the kernel is incomplete):
  // the item's form is checked, its names are not.
  void check(const ast::ScheduleItem &item, StatementPins &pins, const StatementIndices *indices) {
    const ScheduleKeyInfo *key = scheduleKey(item.key.name);
    if (!key) {
      std::vector<std::string> keys;
      std::string forms;
      for (size_t i = 0; i < kScheduleKeys.size(); ++i) {
        keys.emplace_back(kScheduleKeys[i].name);
        forms += std::string(i == 0                          ? ""
                             : i + 1 == kScheduleKeys.size() ? " or "
                                                             : ", ") +
                 "`" + std::string(kScheduleKeys[i].syntax) + "`";
      }
      std::string closest = closestMatch(item.key.name, keys);
      std::string message = "unknown schedule item '" + item.key.name + "'";
      if (!closest.empty())
        message += " (did you mean '" + closest + "'?)";
      auto &d = malformed(item.range, message + "; write " + forms);
      if (!closest.empty())
        d.fix(item.key.range, closest);
      return;
    }
    if (key->takesMemory != item.level.has_value() ||
        (key->key != ScheduleKey::Tile && !namesOnly(item)) ||
        ((key->key == ScheduleKey::Map || key->key == ScheduleKey::Parallel) &&
         item.values.size() != 1)) {
      malformed(item.range, key->key == ScheduleKey::Tile
                                ? tileForm()
                                : "write the item as `" + std::string(key->syntax) + "`");
      return;
    }
    switch (key->key) {
    case ScheduleKey::Map:
      map(item, pins);
      break;
    case ScheduleKey::Tile:
      tile(item, pins, indices);
      break;
    case ScheduleKey::Order:
      order(item, pins, indices);
      break;
    case ScheduleKey::Parallel:
      parallel(item, pins, indices);
      break;
    }
  }

  static std::string tileForm() {
    return "write tiles as `tile MEMORY: index SIZE, ...;` with positive whole sizes";
  }

  void pinnedTwice(SourceRange range, const std::string &what, SourceRange first) {
    malformed(range, what + " is pinned twice, differently").note(first, "first pinned here");
  }

  // E0705 unless `name` is an index of the statement (null: not known, accepted).
  bool isIndex(const ast::Ident &name, const StatementIndices *indices) {
    if (indices && indices->strided.count(name.name)) {
      unfit(name.range, "'" + name.name +
                            "' indexes a strided dimension of the written tensor, so the "
                            "statement runs over that dimension instead (`isamap dump-ir` shows "
                            "its solved form) and a pin cannot name '" +
                            name.name + "'");
      return false;
    }
    if (!indices || indices->has(name.name))
      return true;
    std::string closest = closestMatch(name.name, indices->names);
    std::string message = "'" + name.name + "' is not an index of the statement this block pins (" +
                          joined(indices->names) + ")";
    if (!closest.empty())
      message += "; did you mean '" + closest + "'?";
    auto &d = unfit(name.range, message);
    if (!closest.empty())
      d.fix(name.range, closest);
    return false;
  }

  void map(const ast::ScheduleItem &item, StatementPins &pins) {
    const ast::Ident &instr = *item.values[0].name;
    if (!pins.instruction)
      pins.instruction = instr;
    else if (pins.instruction->name != instr.name)
      pinnedTwice(instr.range, "the statement's instruction", pins.instruction->range);
  }

  void tile(const ast::ScheduleItem &item, StatementPins &pins, const StatementIndices *indices) {
    for (const auto &v : item.values) {
      if (!v.name || !v.number || *v.number <= 0 || *v.number != std::floor(*v.number)) {
        malformed(item.range, tileForm());
        return;
      }
    }
    for (const auto &v : item.values) {
      if (*v.number > kMaxTile) {
        malformed(v.range, "the tile of '" + v.name->name +
                               "' is larger than 2^40, the largest size any dimension can have");
        continue;
      }
      if (!isIndex(*v.name, indices))
        continue;
      auto [at, added] =
          seen_->tiles.emplace(std::pair{item.level->name, v.name->name}, pins.tiles.size());
      if (added)
        pins.tiles.push_back({*item.level, *v.name, int64_t(*v.number)});
      else if (pins.tiles[at->second].size != int64_t(*v.number))
        pinnedTwice(v.range, "the tile of '" + v.name->name + "' at '" + item.level->name + "'",
                    pins.tiles[at->second].index.range);
    }
  }

  void order(const ast::ScheduleItem &item, StatementPins &pins, const StatementIndices *indices) {
    std::vector<ast::Ident> names;
    bool known = true;
    for (const auto &v : item.values) {
      known = isIndex(*v.name, indices) && known;
      names.push_back(*v.name);
    }
    if (!known)
      return;
    if (indices) {
      std::set<std::string> distinct;
      for (const auto &n : names)
        distinct.insert(n.name);
      if (distinct.size() != names.size() || names.size() != indices->names.size()) {
        unfit(item.range, "order for '" + item.level->name +
                              "' must name each index of the statement once (" +
                              joined(indices->names) + ")");
        return;
      }
    }
    auto [at, added] = seen_->orders.emplace(item.level->name, pins.orders.size());
    if (added) {
      pins.orders.push_back({*item.level, std::move(names)});
      return;
    }
    const PinnedOrder *same = &pins.orders[at->second];
    bool equal = std::equal(names.begin(), names.end(), same->indices.begin(), same->indices.end(),
                            [](const auto &a, const auto &b) { return a.name == b.name; });
    if (!equal)
      pinnedTwice(item.range, "the loop order at '" + item.level->name + "'", same->memory.range);
  }

  void parallel(const ast::ScheduleItem &item, StatementPins &pins,
                const StatementIndices *indices) {
    const ast::Ident &index = *item.values[0].name;
    if (!isIndex(index, indices))
      return;
    if (indices && indices->reductions.count(index.name)) {
      auto writes = indices->writeIndices();
      unfit(index.range, "'" + index.name + "' is a reduction index, which cannot run in parallel" +
                             (writes.empty() ? "; this statement has no other index"
                                             : "; pin one of " + joined(writes)));
      return;
    }
    if (!pins.parallel)
      pins.parallel = index;
    else if (pins.parallel->name != index.name)
      pinnedTwice(index.range, "the parallel loop", pins.parallel->range);
  }
};

} // namespace

KernelPins checkScheduleBlocks(const ast::KernelDecl &kernel, DiagnosticSink &diags) {
  return BlockChecker(kernel, diags).run();
}

} // namespace isam::sema
