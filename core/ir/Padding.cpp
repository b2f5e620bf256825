#include "ir/Padding.h"

#include <algorithm>
#include <map>
#include <set>

namespace isam::ir {

namespace {

struct Box {
  std::vector<int64_t> lo, hi; // inclusive, per dimension
  std::vector<std::string> names;
  int tensor = -1; // the staged copy
};

std::string freshTensorName(const Kernel &k, const std::string &base) {
  std::string name = base;
  for (int n = 2; k.tensorIndex(name) >= 0; ++n)
    name = base + std::to_string(n);
  return name;
}

// The copy's index names: per dimension, the first write index the read's index uses (`h` for
// `h + r - 1`), else its only index, else `d<dimension>`; distinct.
std::vector<std::string> copyIndexNames(const Access &a, const Statement &s) {
  std::vector<std::string> names;
  std::set<std::string> used;
  for (size_t d = 0; d < a.indices.size(); ++d) {
    const Affine &x = a.indices[d];
    std::string name = "d";
    name += std::to_string(d);
    if (x.terms.size() == 1)
      name = s.indices[size_t(x.terms[0].first)].name;
    for (auto [i, coef] : x.terms)
      if (coef != 0 && !s.indices[size_t(i)].reduction) {
        name = s.indices[size_t(i)].name;
        break;
      }
    while (used.count(name))
      name += "_";
    used.insert(name);
    names.push_back(name);
  }
  return names;
}

} // namespace

int stagePaddedReads(Kernel &k) {
  int added = 0;
  std::vector<Statement> out;
  for (auto &s : k.statements) {
    std::map<std::pair<int, double>, Box> boxes; // by (tensor read, pad value)
    forEachRead(s.rhs, [&](Access &a) {
      if (!a.pad || !a.gathers.empty()) // a gather's reach is known only when it runs
        return;
      const Tensor &t = k.tensors[size_t(a.tensor)];
      Box b;
      bool inside = true;
      for (size_t d = 0; d < a.indices.size(); ++d) {
        auto [lo, hi] = rangeOver(a.indices[d], s);
        b.lo.push_back(int64_t(lo));
        b.hi.push_back(int64_t(hi));
        inside = inside && lo >= 0 && hi < t.shape[d];
      }
      if (inside) {
        a.pad.reset();
        return;
      }
      auto [it, fresh] = boxes.emplace(std::make_pair(a.tensor, *a.pad), b);
      if (fresh) {
        it->second.names = copyIndexNames(a, s);
        return;
      }
      for (size_t d = 0; d < b.lo.size(); ++d) {
        it->second.lo[d] = std::min(it->second.lo[d], b.lo[d]);
        it->second.hi[d] = std::max(it->second.hi[d], b.hi[d]);
      }
    });
    for (auto &[key, box] : boxes) {
      auto [read, pad] = key;
      // Staged only where each copied element serves at least two points on average.
      double elements = 1;
      for (size_t d = 0; d < box.lo.size(); ++d)
        elements *= double(box.hi[d] - box.lo[d] + 1);
      // A guarded statement runs as scalar code either way, so a copy would only add work.
      if (2 * elements > double(s.pointCount()) || !s.guards.empty())
        continue;
      Tensor copy = k.tensors[size_t(read)];
      copy.name = freshTensorName(k, copy.name + "_pad");
      copy.role = TensorRole::Local;
      copy.shapeParams.clear();
      copy.memory.clear();
      Statement c;
      c.staged = true;
      c.range = s.range;
      Expr rhs;
      rhs.kind = Expr::Kind::Read;
      rhs.type = copy.type;
      rhs.access.tensor = read;
      rhs.access.pad = pad;
      for (size_t d = 0; d < box.lo.size(); ++d) {
        copy.shape[d] = box.hi[d] - box.lo[d] + 1;
        c.indices.push_back({box.names[d], copy.shape[d], false, ""});
        c.lhs.indices.push_back({{{int(d), 1}}, 0, {}});
        rhs.access.indices.push_back({{{int(d), 1}}, box.lo[d], {}});
      }
      box.tensor = int(k.tensors.size());
      c.lhs.tensor = box.tensor;
      c.rhs = std::move(rhs);
      k.tensors.push_back(std::move(copy));
      c.text = printStatement(c, k.tensors);
      out.push_back(std::move(c));
      ++added;
    }
    forEachRead(s.rhs, [&](Access &a) {
      if (!a.pad || !a.gathers.empty())
        return;
      auto it = boxes.find({a.tensor, *a.pad});
      if (it == boxes.end() || it->second.tensor < 0)
        return;
      a.tensor = it->second.tensor;
      for (size_t d = 0; d < a.indices.size(); ++d)
        a.indices[d].constant -= it->second.lo[d];
      a.pad.reset();
    });
    out.push_back(std::move(s));
  }
  k.statements = std::move(out);
  return added;
}

} // namespace isam::ir
