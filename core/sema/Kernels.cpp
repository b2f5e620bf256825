// Kernels and instances: declarations to compute IR.
#include "sema/Limits.h"
#include "sema/Lowering.h"

#include <set>

namespace isam::sema {

using detail::LowerContext;
using detail::Sizes;

namespace {

template <class Map>
void collect(Map &map, const ast::Ident &name, typename Map::mapped_type decl,
             DiagnosticSink &diags, std::map<std::string, SourceRange> &seen) {
  if (auto it = seen.find(name.name); it != seen.end()) {
    diags.error("E0201", name.range, "'" + name.name + "' is declared twice")
        .note(it->second, "the first declaration is here");
    return;
  }
  seen[name.name] = name.range;
  map[name.name] = decl;
}

bool checkUnique(const std::vector<const ast::Ident *> &names, DiagnosticSink &diags) {
  std::map<std::string, SourceRange> seen;
  bool ok = true;
  for (const ast::Ident *n : names) {
    if (auto it = seen.find(n->name); it != seen.end()) {
      diags.error("E0201", n->range, "'" + n->name + "' is declared twice in this kernel")
          .note(it->second, "the first declaration is here");
      ok = false;
    }
    seen.emplace(n->name, n->range);
  }
  return ok;
}

// The element type an implicit local takes: that of the first tensor its defining statement
// reads (outside a selection's condition), or of an explicit conversion.
std::optional<ir::ElemType> inferredType(const ast::Expr &e, const LowerContext &ctx) {
  if (e.kind == ast::Expr::Kind::Call)
    if (auto t = ir::parseElemType(e.name.name))
      return t;
  if (e.kind == ast::Expr::Kind::Access || e.kind == ast::Expr::Kind::Name) {
    int t = ctx.find(e.name.name);
    if (t >= 0) // an implicit local read here already has its type: it was inferred the same way
      return ctx.tensors[t].type;
  }
  // A selection's type is its values', not what its condition compares.
  size_t from = e.kind == ast::Expr::Kind::Select ? 1 : 0;
  if (e.kind != ast::Expr::Kind::Access)
    for (size_t i = from; i < e.args.size(); ++i)
      if (auto t = inferredType(*e.args[i], ctx))
        return t;
  return std::nullopt;
}

// Declared tensors of a kernel, in ABI order. Shapes are evaluated when sizes are bound; rank
// alone is known otherwise.
bool declareTensors(const ast::KernelDecl &k, LowerContext &ctx, DiagnosticSink &diags) {
  bool ok = true;
  auto declare = [&](const ast::Ident &name, const ast::TensorType &type, ir::TensorRole role) {
    ir::Tensor t;
    t.name = name.name;
    t.role = role;
    t.range = name.range;
    if (auto et = ir::parseElemType(type.elem.name)) {
      t.type = *et;
    } else {
      auto &d =
          diags.error("E0301", type.elem.range, "unknown element type '" + type.elem.name + "'");
      d.message += "; isamap knows f16, bf16, f32, f64, i8 and i32";
      if (auto m = closestMatch(type.elem.name, {"f16", "bf16", "f32", "f64", "i8", "i32"});
          !m.empty())
        d.fix(type.elem.range, m);
      ok = false;
    }
    for (const auto &dim : type.shape) {
      auto v = detail::evalSize(*dim, ctx.sizes, diags, "a tensor dimension");
      if (!v) {
        ok = false;
        v = 0;
      } else if (ctx.sizes.bound() && *v <= 0) {
        auto &d = diags.error("E0402", dim->range,
                              "this dimension of '" + name.name + "' is " + std::to_string(*v) +
                                  "; dimensions must be positive");
        if (!ctx.instanceNote.empty())
          d.note(ctx.instanceRange, ctx.instanceNote);
        ok = false;
      }
      t.shape.push_back(*v);
    }
    t.shapeParams.assign(t.shape.size(), "");
    ctx.tensors.push_back(std::move(t));
    ctx.written.push_back(role == ir::TensorRole::Input);
    ctx.shapeUnknown.push_back(false);
  };
  for (const auto &p : k.inputs)
    declare(p.name, p.type, ir::TensorRole::Input);
  for (const auto &p : k.outputs)
    declare(p.name, p.type, ir::TensorRole::Output);
  for (const auto &l : k.locals)
    declare(l.name, l.type, ir::TensorRole::Local);
  return ok;
}

// Lowers every statement in order; the result is complete only when sizes are bound.
bool lowerBody(const ast::KernelDecl &k, LowerContext &ctx, std::vector<ir::Statement> *out,
               DiagnosticSink &diags) {
  bool ok = true;
  for (const auto &s : k.statements) {
    const std::string &target = s.lhs->name.name;
    if (ctx.find(target) < 0) {
      if (ctx.sizes.names.count(target)) {
        diags.error("E0306", s.lhs->name.range,
                    "'" + target + "' is a size parameter, not a tensor");
        ok = false;
        continue;
      }
      // An undeclared written tensor is an implicit local shaped by this statement.
      ir::Tensor t;
      t.name = target;
      t.role = ir::TensorRole::Local;
      t.type = inferredType(*s.rhs, ctx).value_or(ir::ElemType::F32);
      t.range = s.lhs->name.range;
      t.shape.assign(s.lhs->args.size(), 0);
      t.shapeParams.assign(t.shape.size(), "");
      ctx.tensors.push_back(std::move(t));
      ctx.written.push_back(false);
      ctx.shapeUnknown.push_back(true);
    }
    bool stmtOk = true;
    auto st = detail::lowerStatement(s, ctx, diags, stmtOk);
    if (!stmtOk) {
      ok = false;
      // Later statements may read what this one failed to define; do not report them again.
      int t = ctx.find(target);
      ctx.written[t] = true;
      continue;
    }
    if (st && out)
      out->push_back(std::move(*st));
  }
  return ok;
}

Sizes sizeNames(const ast::KernelDecl &k) {
  Sizes s;
  for (const auto &p : k.sizeParams)
    s.names.insert(p.name);
  return s;
}

} // namespace

Symbols collectSymbols(const std::vector<const ast::File *> &files, DiagnosticSink &diags) {
  Symbols s;
  std::map<std::string, SourceRange> kernels, instances, targets;
  for (const ast::File *f : files) {
    for (const auto &k : f->kernels)
      collect(s.kernels, k.name, &k, diags, kernels);
    for (const auto &i : f->instances)
      collect(s.instances, i.name, &i, diags, instances);
    // Targets and systems share one namespace: both are named by --target.
    for (const auto &t : f->targets)
      collect(s.targets, t.name, &t, diags, targets);
    for (const auto &y : f->systems)
      collect(s.systems, y.name, &y, diags, targets);
  }
  return s;
}

bool checkKernel(const ast::KernelDecl &k, DiagnosticSink &diags) {
  std::vector<const ast::Ident *> names;
  for (const auto &p : k.sizeParams)
    names.push_back(&p);
  for (const auto &p : k.inputs)
    names.push_back(&p.name);
  for (const auto &p : k.outputs)
    names.push_back(&p.name);
  for (const auto &l : k.locals)
    names.push_back(&l.name);
  bool ok = checkUnique(names, diags);

  LowerContext ctx;
  ctx.sizes = sizeNames(k);
  ctx.incomplete = k.incomplete;
  ok = declareTensors(k, ctx, diags) && ok;
  if (!ok)
    return false;
  ok = lowerBody(k, ctx, nullptr, diags);
  for (size_t i = 0; i < k.outputs.size(); ++i) {
    int t = ctx.find(k.outputs[i].name.name);
    if (!ctx.written[t] && !k.incomplete) {
      diags.error("E0408", k.outputs[i].name.range,
                  "output '" + k.outputs[i].name.name + "' is never written");
      ok = false;
    }
  }
  if (k.outputs.empty() && !k.incomplete) {
    diags.error("E0408", k.name.range, "kernel '" + k.name.name + "' has no outputs");
    ok = false;
  }
  return ok;
}

std::optional<ir::Kernel> instantiate(const ast::KernelDecl &k, const std::string &name,
                                      const std::map<std::string, int64_t> &sizes, SourceRange use,
                                      DiagnosticSink &diags) {
  LowerContext ctx;
  ctx.sizes = sizeNames(k);
  ctx.sizes.values = &sizes;
  ctx.incomplete = k.incomplete;
  ctx.instanceRange = use;
  if (use.valid())
    ctx.instanceNote = "in instance '" + name + "'";
  for (const auto &p : k.sizeParams)
    if (!sizes.count(p.name)) {
      diags.error("E0409", use.valid() ? use : p.range,
                  "size parameter '" + p.name + "' of kernel '" + k.name.name + "' is not bound" +
                      (use.valid() ? "" : "; pass -D " + p.name + "=VALUE"));
      return std::nullopt;
    }
  if (!declareTensors(k, ctx, diags))
    return std::nullopt;
  ir::Kernel out;
  out.name = name;
  out.kernelName = k.name.name;
  out.range = k.range;
  for (const auto &p : k.sizeParams)
    out.sizes.push_back({p.name, sizes.at(p.name)});
  if (!lowerBody(k, ctx, &out.statements, diags))
    return std::nullopt;
  out.tensors = std::move(ctx.tensors);
  if (!checkSizeLimits(out.tensors, out.statements, ctx.instanceRange, ctx.instanceNote, diags))
    return std::nullopt;
  return out;
}

std::optional<ir::Kernel> instantiate(const ast::InstanceDecl &inst, const Symbols &symbols,
                                      DiagnosticSink &diags) {
  auto it = symbols.kernels.find(inst.kernel.name);
  if (it == symbols.kernels.end()) {
    std::vector<std::string> names;
    for (const auto &[n, _] : symbols.kernels)
      names.push_back(n);
    auto &d = diags.error("E0202", inst.kernel.range, "unknown kernel '" + inst.kernel.name + "'");
    if (auto m = closestMatch(inst.kernel.name, names); !m.empty())
      d.message += "; did you mean '" + m + "'?", d.fix(inst.kernel.range, m);
    return std::nullopt;
  }
  const ast::KernelDecl &k = *it->second;
  if (inst.args.size() != k.sizeParams.size()) {
    std::string params;
    for (const auto &p : k.sizeParams)
      params += (params.empty() ? "" : ", ") + p.name;
    diags
        .error("E0401", inst.range,
               "kernel '" + k.name.name + "' takes " + std::to_string(k.sizeParams.size()) +
                   " size argument" + (k.sizeParams.size() == 1 ? "" : "s") + " <" + params +
                   ">, but " + std::to_string(inst.args.size()) + " are given")
        .note(k.name.range, "'" + k.name.name + "' is declared here");
    return std::nullopt;
  }
  std::map<std::string, int64_t> sizes;
  Sizes constants;
  static const std::map<std::string, int64_t> none;
  constants.values = &none;
  bool ok = true;
  for (size_t i = 0; i < inst.args.size(); ++i) {
    auto v = detail::evalSize(*inst.args[i], constants, diags, "a size argument");
    if (!v) {
      ok = false;
      continue;
    }
    if (*v <= 0) {
      diags.error("E0402", inst.args[i]->range,
                  "size '" + k.sizeParams[i].name + "' is " + std::to_string(*v) +
                      "; sizes must be positive");
      ok = false;
      continue;
    }
    sizes[k.sizeParams[i].name] = *v;
  }
  if (!ok)
    return std::nullopt;
  return instantiate(k, inst.name.name, sizes, inst.range, diags);
}

} // namespace isam::sema
