#include "Minimizer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace isam::difftest {

namespace {

int64_t exprCost(const Expr &e) {
  int64_t c = 1000;
  if (e.kind == Expr::Kind::Const)
    c += int64_t(std::fabs(e.value));
  for (const auto &ix : e.indices)
    c += 100 * int64_t(ix.terms.size()) + std::abs(ix.constant) + [&] {
      int64_t s = 0;
      for (const auto &t : ix.terms)
        s += 10 * (std::abs(t.coef) - 1);
      return s;
    }();
  for (const auto &a : e.args)
    c += exprCost(a);
  return c;
}

size_t countNodes(const Expr &e) {
  size_t n = 1;
  for (const auto &a : e.args)
    n += countNodes(a);
  return n;
}

// The node at preorder position `n`.
Expr *nodeAt(Expr &e, size_t &n) {
  if (n == 0)
    return &e;
  --n;
  for (auto &a : e.args)
    if (Expr *found = nodeAt(a, n))
      return found;
  return nullptr;
}

void renameIndex(Expr &e, size_t dim, std::set<std::string> &dropped) {
  for (const auto &t : e.indices[dim].terms)
    dropped.insert(t.index);
  e.indices.erase(e.indices.begin() + long(dim));
}

bool mentions(const Statement &s, const std::string &index) {
  for (const auto &n : s.lhsIndices)
    if (n == index)
      return true;
  for (const auto &n : s.lhsTaps)
    if (n == index)
      return true;
  bool found = false;
  forEachIndexExpr(s.rhs, [&](const IndexExpr &ix) {
    for (const auto &t : ix.terms)
      found = found || t.index == index;
  });
  return found;
}

// Ranges and guards of indices the statement no longer has (sema would reject them).
void dropDeadWhere(Statement &s) {
  s.where.erase(std::remove_if(s.where.begin(), s.where.end(),
                               [&](const Range &r) { return !mentions(s, r.index); }),
                s.where.end());
  auto dead = [&](const IndexExpr &e) {
    return std::any_of(e.terms.begin(), e.terms.end(),
                       [&](const Term &t) { return !mentions(s, t.index); });
  };
  s.guards.erase(std::remove_if(s.guards.begin(), s.guards.end(),
                                [&](const Guard &g) { return dead(g.lhs) || dead(g.rhs); }),
                 s.guards.end());
}

bool positiveConst(const Expr &e) {
  return e.kind == Expr::Kind::Const && e.value >= 1;
}

// |x| + c with c >= 1 (or, for sqrt, |x| alone): what the generator divides by and takes
// logarithms and square roots of.
bool absPlus(const Expr &e, bool zeroAllowed) {
  bool isAbs = e.kind == Expr::Kind::Call && e.fn == "abs";
  if (zeroAllowed && isAbs)
    return true;
  if (e.kind != Expr::Kind::Add)
    return false;
  auto absCall = [](const Expr &x) { return x.kind == Expr::Kind::Call && x.fn == "abs"; };
  return (absCall(e.args[0]) && positiveConst(e.args[1])) ||
         (absCall(e.args[1]) && positiveConst(e.args[0]));
}

bool wellDefinedExpr(const Expr &e) {
  if (e.kind == Expr::Kind::Div && !positiveConst(e.args[1]) && !absPlus(e.args[1], false))
    return false;
  if (e.kind == Expr::Kind::Call && (e.fn == "log" || e.fn == "sqrt") &&
      !positiveConst(e.args[0]) && !absPlus(e.args[0], e.fn == "sqrt"))
    return false;
  for (const auto &a : e.args)
    if (!wellDefinedExpr(a))
      return false;
  return true;
}

bool wellDefined(const Kernel &k) {
  for (const auto &s : k.statements)
    if (!wellDefinedExpr(s.rhs))
      return false;
  return true;
}

std::vector<Kernel> candidates(const Kernel &k) {
  std::vector<Kernel> out;
  // Statements.
  for (size_t s = k.statements.size(); s-- > 0;) {
    if (k.statements.size() == 1)
      break;
    Kernel c = k;
    c.statements.erase(c.statements.begin() + long(s));
    out.push_back(std::move(c));
  }
  // Expressions: a node replaced by one of its operands, or by one of theirs (a selection by
  // a value its condition compares), or by a constant.
  for (size_t s = 0; s < k.statements.size(); ++s) {
    size_t nodes = countNodes(k.statements[s].rhs);
    for (size_t n = 0; n < nodes; ++n) {
      Kernel base = k;
      size_t at = n;
      Expr *node = nodeAt(base.statements[s].rhs, at);
      auto replace = [&](size_t a, std::optional<size_t> b) {
        Kernel c = k;
        size_t at2 = n;
        Expr *target = nodeAt(c.statements[s].rhs, at2);
        Expr child = b ? target->args[a].args[*b] : target->args[a];
        *target = std::move(child);
        out.push_back(std::move(c));
      };
      for (size_t a = 0; a < node->args.size(); ++a)
        replace(a, std::nullopt);
      for (size_t a = 0; a < node->args.size(); ++a)
        for (size_t b = 0; b < node->args[a].args.size(); ++b)
          replace(a, b);
      if (node->kind != Expr::Kind::Const) {
        Kernel c = k;
        size_t at2 = n;
        Expr *target = nodeAt(c.statements[s].rhs, at2);
        *target = Expr{};
        target->value = 1;
        out.push_back(std::move(c));
      }
    }
  }
  // Ranges and reductions.
  for (size_t s = 0; s < k.statements.size(); ++s) {
    for (size_t w = 0; w < k.statements[s].where.size(); ++w) {
      Kernel c = k;
      c.statements[s].where.erase(c.statements[s].where.begin() + long(w));
      out.push_back(std::move(c));
    }
    for (size_t g = 0; g < k.statements[s].guards.size(); ++g) {
      Kernel c = k;
      c.statements[s].guards.erase(c.statements[s].guards.begin() + long(g));
      out.push_back(std::move(c));
    }
    if (k.statements[s].op != Op::Assign) {
      Kernel c = k;
      c.statements[s].op = Op::Assign;
      out.push_back(std::move(c));
    }
    if (k.statements[s].op != Op::Sum && k.statements[s].op != Op::Assign) {
      Kernel c = k;
      c.statements[s].op = Op::Sum;
      out.push_back(std::move(c));
    }
  }
  // Dimensions: drop dimension d of a tensor and its index in every access.
  for (size_t t = 0; t < k.tensors.size(); ++t) {
    for (size_t d = 0; d < k.tensors[t].shape.size(); ++d) {
      Kernel c = k;
      const std::string name = c.tensors[t].name;
      c.tensors[t].shape.erase(c.tensors[t].shape.begin() + long(d));
      for (auto &s : c.statements) {
        std::set<std::string> dropped;
        if (s.lhs == name && d < s.lhsIndices.size())
          s.lhsIndices.erase(s.lhsIndices.begin() + long(d));
        if (s.lhs == name && d < s.lhsShifts.size())
          s.lhsShifts.erase(s.lhsShifts.begin() + long(d));
        if (s.lhs == name && d < s.lhsStrides.size())
          s.lhsStrides.erase(s.lhsStrides.begin() + long(d));
        if (s.lhs == name && d < s.lhsTaps.size()) {
          if (!s.lhsTaps[d].empty())
            dropped.insert(s.lhsTaps[d]);
          s.lhsTaps.erase(s.lhsTaps.begin() + long(d));
        }
        forEachRead(s.rhs, [&](Expr &r) {
          if (r.tensor == name && d < r.indices.size())
            renameIndex(r, d, dropped);
        });
        dropDeadWhere(s);
      }
      out.push_back(std::move(c));
    }
  }
  // Sizes: one value everywhere, then single dimensions and ranges.
  std::set<int64_t> values;
  for (const auto &t : k.tensors)
    for (int64_t v : t.shape)
      if (v > 1)
        values.insert(v);
  for (int64_t v : values) {
    for (int64_t to : {int64_t(1), v / 2, v - 1}) {
      if (to < 1 || to >= v)
        continue;
      Kernel c = k;
      for (auto &t : c.tensors)
        for (auto &x : t.shape)
          if (x == v)
            x = to;
      for (auto &s : c.statements)
        for (auto &r : s.where) {
          if (r.hi == v)
            r.hi = std::max(r.lo + 1, to);
        }
      out.push_back(std::move(c));
    }
  }
  for (size_t t = 0; t < k.tensors.size(); ++t)
    for (size_t d = 0; d < k.tensors[t].shape.size(); ++d) {
      int64_t v = k.tensors[t].shape[d];
      for (int64_t to : {v / 2, v - 1}) {
        if (to < 1 || to >= v)
          continue;
        Kernel c = k;
        c.tensors[t].shape[d] = to;
        out.push_back(std::move(c));
      }
    }
  for (size_t s = 0; s < k.statements.size(); ++s)
    for (size_t w = 0; w < k.statements[s].where.size(); ++w) {
      const Range &r = k.statements[s].where[w];
      if (r.lo > 0) {
        Kernel c = k;
        c.statements[s].where[w].lo = 0;
        c.statements[s].where[w].hi = r.hi - r.lo;
        out.push_back(std::move(c));
      }
      if (r.hi - r.lo > 1) {
        Kernel c = k;
        c.statements[s].where[w].hi = r.lo + (r.hi - r.lo) / 2;
        out.push_back(std::move(c));
      }
    }
  // Indices: a compound index to its first term alone; a constant dropped.
  for (size_t s = 0; s < k.statements.size(); ++s) {
    size_t nodes = countNodes(k.statements[s].rhs);
    for (size_t n = 0; n < nodes; ++n) {
      Kernel probe = k;
      size_t at = n;
      Expr *node = nodeAt(probe.statements[s].rhs, at);
      if (node->kind != Expr::Kind::Read)
        continue;
      for (size_t d = 0; d < node->indices.size(); ++d) {
        const IndexExpr &ix = node->indices[d];
        if (ix.plain())
          continue;
        if (!ix.terms.empty()) {
          Kernel c = k;
          size_t at2 = n;
          Expr *r = nodeAt(c.statements[s].rhs, at2);
          r->indices[d] = IndexExpr{{{ix.terms[0].index, 1}}, 0};
          out.push_back(std::move(c));
        }
        if (ix.constant != 0) {
          Kernel c = k;
          size_t at2 = n;
          Expr *r = nodeAt(c.statements[s].rhs, at2);
          r->indices[d].constant = 0;
          out.push_back(std::move(c));
        }
      }
    }
  }
  for (auto &c : out)
    dropUnused(c);
  // Keep the generator's guarantees: a candidate that could divide by zero or take the log
  // or square root of a negative number would fail for a reason of its own.
  out.erase(std::remove_if(out.begin(), out.end(), [](const Kernel &c) { return !wellDefined(c); }),
            out.end());
  return out;
}

} // namespace

int64_t kernelCost(const Kernel &k) {
  int64_t c = 1000000 * int64_t(k.statements.size());
  for (const auto &s : k.statements)
    c += exprCost(s.rhs) + 50 * int64_t(s.where.size() + s.guards.size()) +
         (s.op == Op::Assign ? 0 : 20) +
         (s.op == Op::Max || s.op == Op::Min || s.op == Op::Prod ? 1 : 0);
  for (const auto &t : k.tensors) {
    c += 200 * int64_t(t.shape.size());
    for (int64_t v : t.shape)
      c += v;
  }
  for (const auto &s : k.statements)
    for (const auto &r : s.where)
      c += r.lo + (r.hi - r.lo);
  return c;
}

std::string fingerprint(const Kernel &k) {
  std::set<std::string> tags;
  for (const auto &st : k.statements) {
    const Tensor *lhs = k.find(st.lhs);
    if (lhs)
      tags.insert(std::string("write:") + ir::elemTypeName(lhs->type));
    tags.insert(std::string("op:") + opText(st.op));
    if (!st.guards.empty())
      tags.insert("guard");
    for (const auto &w : st.where)
      for (size_t d = 0; d < st.lhsIndices.size(); ++d)
        if (st.lhsIndices[d] == w.index && lhs &&
            (w.lo > 0 || (lhs->role != Role::Implicit && w.hi < lhs->shape[d])))
          tags.insert("partial-write");
    std::map<std::string, std::vector<IndexExpr>> seen;
    std::function<void(const Expr &)> walk = [&](const Expr &e) {
      if (e.kind == Expr::Kind::Call)
        tags.insert("fn:" + e.fn);
      if (e.kind == Expr::Kind::Cast)
        tags.insert("cast");
      if (e.kind == Expr::Kind::Select)
        tags.insert("select");
      if (e.kind == Expr::Kind::Read) {
        if (e.tensor == st.lhs)
          tags.insert("self-read");
        auto [it, fresh] = seen.emplace(e.tensor, e.indices);
        if (!fresh && !(it->second == e.indices))
          tags.insert("multi-offset");
        std::map<std::string, int> uses;
        for (const auto &ix : e.indices) {
          if (!ix.plain() && ix.terms.size() == 1 && ix.terms[0].coef == 1)
            tags.insert("shift");
          if (ix.terms.size() > 1)
            tags.insert("compound-index");
          for (const auto &t : ix.terms)
            if (++uses[t.index] == 2)
              tags.insert("diagonal");
        }
      }
      for (const auto &a : e.args)
        walk(a);
    };
    walk(st.rhs);
  }
  std::string out;
  for (const auto &t : tags)
    out += (out.empty() ? "" : " ") + t;
  return out;
}

void dropUnused(Kernel &k) {
  std::set<std::string> used, written;
  for (const auto &s : k.statements) {
    used.insert(s.lhs);
    written.insert(s.lhs);
    forEachRead(s.rhs, [&](const Expr &r) { used.insert(r.tensor); });
  }
  // An output no statement writes goes too, as long as another output stays.
  bool writtenOutput = std::any_of(k.tensors.begin(), k.tensors.end(), [&](const Tensor &t) {
    return t.role == Role::Output && written.count(t.name);
  });
  k.tensors.erase(std::remove_if(k.tensors.begin(), k.tensors.end(),
                                 [&](const Tensor &t) {
                                   if (t.role == Role::Output)
                                     return writtenOutput && !written.count(t.name);
                                   return !used.count(t.name);
                                 }),
                  k.tensors.end());
}

Kernel minimize(const Kernel &failing, const std::function<bool(const Kernel &)> &stillFails,
                size_t maxTries, MinimizeStats *stats) {
  Kernel best = failing;
  MinimizeStats local;
  MinimizeStats &st = stats ? *stats : local;
  bool progress = true;
  while (progress && st.tries < maxTries) {
    progress = false;
    int64_t cost = kernelCost(best);
    for (auto &c : candidates(best)) {
      if (kernelCost(c) >= cost)
        continue;
      if (st.tries >= maxTries)
        break;
      ++st.tries;
      if (stillFails(c)) {
        best = std::move(c);
        ++st.accepted;
        progress = true;
        break;
      }
    }
  }
  return best;
}

} // namespace isam::difftest
