// isamap's own requests (documented in the README): a statement's mappings, a kernel's
// schedule, the pictures of viz/, and the target code, for the statement or kernel in focus.
// Each answers {"message": why} instead of a result when there is nothing to show (no kernel, no
// instance, a target with errors), so that an editor can say why.
#include "lsp/Custom.h"
#include "lsp/Convert.h"
#include "lsp/Focus.h"
#include "lsp/ProtocolJson.h"

#include "backends/accel/Emit.h"
#include "pipeline/Pipeline.h"
#include "report/Json.h"
#include "viz/HardwareGraph.h"
#include "viz/KernelGraph.h"
#include "viz/MappingGraph.h"
#include "viz/Render.h"
#include "viz/ScheduleGraph.h"
#include "viz/Viz.h"

namespace isam::lsp {

namespace {

// The focus and offsets the request's parameters name.
Focus focusOf(Analysis &a, const json &params) {
  return lsp::focusOf(a, focusParams(params));
}
uint32_t offsetIn(Analysis &a, const json &position) {
  return offsetOf(a, position.get<Position>());
}

json unavailable(const std::string &why) {
  return {{"message", why}};
}

// Why a focus has no kernel: the instance asked for does not exist, or there is no kernel.
std::string noKernel(const Focus &f) {
  return f.subject.instance.empty() ? "the document declares no kernel"
                                    : "no instance named '" + f.subject.instance + "'";
}

// The headline of every answer: what it is of.
json about(const Focus &f, const ir::Kernel &k, const std::string &target,
           std::optional<size_t> statement) {
  json j = {{"kernel", f.subject.kernel}, {"instance", k.name}, {"target", target}};
  j["statement"] = statement ? json(*statement) : json();
  return j;
}

std::string targetName(Analysis &a, const Focus &f) {
  return f.subject.target.empty() ? a.settings().target : f.subject.target;
}

} // namespace

json mappingsRequest(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  Focus f = focusOf(*a, call.params);
  if (!f.kernel)
    return unavailable(noKernel(f));
  std::string problem;
  const auto *maps = a->mappings(f.subject, call.cancelled, &problem);
  call.checkCancelled();
  if (!maps)
    return unavailable(problem);
  const ir::Kernel &k = *a->instance(f.subject);
  std::optional<size_t> s = irStatementOf(f, k);
  json j = about(f, k, targetName(*a, f), s);
  json statements = json::array();
  for (const auto &m : *maps)
    if (!s || m.index == *s)
      statements.push_back(report::mappingsJson(m, k, *a->target(f.subject.target), a->sources()));
  j["statements"] = statements;
  return j;
}

json scheduleRequest(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  Focus f = focusOf(*a, call.params);
  if (!f.kernel)
    return unavailable(noKernel(f));
  call.progressBegin("Scheduling " + f.subject.kernel);
  std::string problem;
  const auto *ks = a->schedule(f.subject, call.cancelled, &problem);
  call.progressEnd();
  call.checkCancelled();
  if (!ks)
    return unavailable(problem);
  const ir::Kernel &k = *a->instance(f.subject);
  const hw::Target &t = *a->target(f.subject.target);
  json j = about(f, k, t.name, irStatementOf(f, k));
  j["text"] = schedule::printSchedule(*ks, k, t);
  j["schedule"] = report::scheduleJson(*ks, k, t);
  return j;
}

json diagramRequest(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  std::string view = optionalString(call.params, "view", "schedule");
  auto what = viz::parseWhat(view);
  if (!what)
    throw RpcError(InvalidParams,
                   "view must be one of kernel, hardware, mapping, schedule; not '" + view + "'");
  std::string format = optionalString(call.params, "format", "svg");
  if (format != "svg" && format != "dot")
    throw RpcError(InvalidParams, "format must be svg or dot");
  int64_t candidate = optionalInteger(call.params, "mapping", 0);
  if (candidate < 0)
    throw RpcError(InvalidParams, "mapping must be a candidate's rank, from 0");
  Focus f = focusOf(*a, call.params);
  std::string problem, dot;
  json j;
  if (*what == viz::What::Hardware) {
    // The target under the cursor in a hardware file, else the requested or configured one.
    std::string name = f.subject.target;
    if (name.empty() && call.params.contains("position"))
      for (const auto &t : a->mainAst().targets)
        if (uint32_t o = offsetIn(*a, call.params["position"]);
            o >= t.range.begin && o <= t.range.end)
          name = t.name.name;
    const hw::Target *t = a->target(name, &problem);
    if (!t)
      return unavailable(problem);
    dot = viz::hardwareGraph(*t);
    j = {{"target", t->name}};
  } else {
    if (!f.kernel)
      return unavailable(noKernel(f));
    const ir::Kernel *k = a->instance(f.subject, &problem);
    if (!k)
      return unavailable(problem);
    std::optional<size_t> s = irStatementOf(f, *k);
    j = about(f, *k, targetName(*a, f), s);
    if (*what == viz::What::Kernel) {
      dot = viz::kernelGraph(*k);
    } else if (*what == viz::What::Mapping) {
      const auto *maps = a->mappings(f.subject, call.cancelled, &problem);
      call.checkCancelled();
      if (!maps)
        return unavailable(problem);
      size_t index = s.value_or(0);
      if (index >= maps->size())
        return unavailable("the instance has no statement to map");
      const auto &m = (*maps)[index];
      if (m.candidates.empty())
        return unavailable("no instruction of " + m.target + " runs " + m.text +
                           "; it runs as scalar code");
      if (size_t(candidate) >= m.candidates.size())
        throw RpcError(InvalidParams, "the statement has " + std::to_string(m.candidates.size()) +
                                          " mappings; mapping " + std::to_string(candidate) +
                                          " does not exist");
      dot = viz::mappingGraph(*k, m, *a->target(f.subject.target), size_t(candidate));
    } else {
      call.progressBegin("Scheduling " + f.subject.kernel);
      const auto *ks = a->schedule(f.subject, call.cancelled, &problem);
      call.progressEnd();
      call.checkCancelled();
      if (!ks)
        return unavailable(problem);
      dot = viz::scheduleGraph(*k, *a->target(f.subject.target), *ks, s);
    }
  }
  j["view"] = view;
  if (format == "dot") {
    j["dot"] = dot;
    return j;
  }
  viz::Rendered r = viz::render(dot, viz::Format::Svg);
  if (!r.ok)
    throw RpcError(RequestFailed, "Graphviz could not draw the picture: " + r.error);
  j["svg"] = r.data;
  return j;
}

json targetCodeRequest(Call &call) {
  auto a = call.document();
  auto lock = a->lock();
  std::string kind = optionalString(call.params, "kind", "asm");
  if (kind != "asm" && kind != "llvm")
    throw RpcError(InvalidParams, "kind must be asm or llvm");
  Focus f = focusOf(*a, call.params);
  if (!f.kernel)
    return unavailable(noKernel(f));
  std::string problem;
  const hw::Target *t = a->target(f.subject.target, &problem);
  if (!t)
    return unavailable(problem);
  bool stream = accel::isAccelerator(*t);
  if (stream && kind == "llvm")
    return unavailable("target '" + t->name +
                       "' names no LLVM triple: its code is an instruction stream (kind asm)");
  call.progressBegin("Compiling " + f.subject.kernel);
  const auto *ks = a->schedule(f.subject, call.cancelled, &problem);
  if (!ks || call.cancelled()) {
    call.progressEnd(); // a begun progress always ends, cancelled or not
    call.checkCancelled();
    return unavailable(problem);
  }
  const ir::Kernel &k = *a->instance(f.subject);
  auto code = pipeline::codeText(
      *t, {{&k, ks}}, kind == "asm" ? pipeline::Output::Assembly : pipeline::Output::LlvmIr);
  call.progressEnd();
  if (!code)
    return unavailable(llvm::toString(code.takeError()));
  json j = about(f, k, t->name, irStatementOf(f, k));
  j["kind"] = kind;
  j["text"] = code->text;
  if (stream)
    j["compileMs"] = {{"emit", code->emitMs}};
  else
    j["compileMs"] = {{"generate", code->llvm.generateMs},
                      {"optimize", code->llvm.optimizeMs},
                      {"machineCode", code->llvm.machineCodeMs}};
  return j;
}

} // namespace isam::lsp
