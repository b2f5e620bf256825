#include "lsp/Custom.h"
#include "lsp/Convert.h"
#include "lsp/Focus.h"

#include "backends/accel/Emit.h"
#include "pipeline/Pipeline.h"
#include "viz/HardwareGraph.h"
#include "viz/KernelGraph.h"
#include "viz/MappingGraph.h"
#include "viz/Render.h"
#include "viz/ScheduleGraph.h"

namespace isam::lsp {

namespace {

template <class T> Answer<T> unavailable(std::string message) {
  Answer<T> a;
  a.message = std::move(message);
  return a;
}
template <class T> Answer<T> refused(Refusal r, std::string message) {
  Answer<T> a = unavailable<T>(std::move(message));
  a.refusal = r;
  return a;
}
template <class T> Answer<T> answer(T value) {
  Answer<T> a;
  a.result = std::move(value);
  return a;
}

bool stopped(const StopFn &stop) {
  return stop && stop();
}

// Why a stage gave nothing: it was stopped, or its problem.
std::string why(const std::string &problem, const StopFn &stop) {
  return stopped(stop) ? "stopped" : problem;
}

// Why a focus has no kernel: the instance asked for does not exist, or there is no kernel.
std::string noKernel(const Focus &f) {
  return f.subject.instance.empty() ? "the document declares no kernel"
                                    : "no instance named '" + f.subject.instance + "'";
}

std::string targetName(Analysis &a, const Focus &f) {
  return f.subject.target.empty() ? a.settings().target : f.subject.target;
}

About about(const Focus &f, const ir::Kernel &k, const std::string &target,
            std::optional<size_t> statement) {
  return {f.subject.kernel, k.name, target, statement};
}

// begin() and end() around `work`, whatever it returns.
template <class F> auto withProgress(const Progress &p, const std::string &title, F work) {
  if (p.begin)
    p.begin(title);
  auto result = work();
  if (p.end)
    p.end();
  return result;
}

// The target a hardware picture is of: the one named, else the one declared under the cursor
// in a hardware file, else the configured one.
std::string hardwareTarget(Analysis &a, const Focus &f, const FocusParams &p) {
  if (!f.subject.target.empty() || !p.position)
    return f.subject.target;
  uint32_t o = offsetOf(a, *p.position);
  for (const auto &t : a.mainAst().targets)
    if (o >= t.range.begin && o <= t.range.end)
      return t.name.name;
  return {};
}

// The DOT text of a kernel's picture (every view but hardware), or why there is none.
Answer<std::string> kernelDot(Analysis &a, const Focus &f, const ir::Kernel &k,
                              const DiagramParams &p, std::optional<size_t> s, const StopFn &stop,
                              const Progress &progress) {
  std::string problem;
  if (p.view == viz::What::Kernel)
    return answer(viz::kernelGraph(k));
  if (p.view == viz::What::Mapping) {
    const auto *maps = a.mappings(f.subject, stop, &problem);
    if (!maps)
      return unavailable<std::string>(why(problem, stop));
    size_t index = s.value_or(0);
    if (index >= maps->size())
      return unavailable<std::string>("the instance has no statement to map");
    const auto &m = (*maps)[index];
    if (m.candidates.empty())
      return unavailable<std::string>("no instruction of " + m.target + " runs " + m.text +
                                      "; it runs as scalar code");
    if (p.candidate >= m.candidates.size())
      return refused<std::string>(Refusal::InvalidParams,
                                  "the statement has " + std::to_string(m.candidates.size()) +
                                      " mappings; mapping " + std::to_string(p.candidate) +
                                      " does not exist");
    return answer(viz::mappingGraph(k, m, *a.target(f.subject.target), p.candidate));
  }
  const auto *ks = withProgress(progress, "Scheduling " + f.subject.kernel,
                                [&] { return a.schedule(f.subject, stop, &problem); });
  if (!ks)
    return unavailable<std::string>(why(problem, stop));
  return answer(viz::scheduleGraph(k, *a.target(f.subject.target), *ks, s));
}

} // namespace

Answer<MappingsResult> mappings(Analysis &a, const FocusParams &p, const StopFn &stop) {
  auto lock = a.lock();
  Focus f = focusOf(a, p);
  if (!f.kernel)
    return unavailable<MappingsResult>(noKernel(f));
  std::string problem;
  const auto *maps = a.mappings(f.subject, stop, &problem);
  if (!maps || stopped(stop))
    return unavailable<MappingsResult>(why(problem, stop));
  const ir::Kernel &k = *a.instance(f.subject);
  std::optional<size_t> s = irStatementOf(f, k);
  MappingsResult r{about(f, k, targetName(a, f), s), k, *a.target(f.subject.target), {}};
  for (const auto &m : *maps)
    if (!s || m.index == *s)
      r.statements.push_back({m, report::fileRange(a.sources(), m.range)});
  return answer(std::move(r));
}

Answer<ScheduleResult> schedule(Analysis &a, const FocusParams &p, const StopFn &stop,
                                const Progress &progress) {
  auto lock = a.lock();
  Focus f = focusOf(a, p);
  if (!f.kernel)
    return unavailable<ScheduleResult>(noKernel(f));
  std::string problem;
  const auto *ks = withProgress(progress, "Scheduling " + f.subject.kernel,
                                [&] { return a.schedule(f.subject, stop, &problem); });
  if (!ks || stopped(stop))
    return unavailable<ScheduleResult>(why(problem, stop));
  const ir::Kernel &k = *a.instance(f.subject);
  const hw::Target &t = *a.target(f.subject.target);
  return answer(ScheduleResult{about(f, k, t.name, irStatementOf(f, k)), k, t, *ks,
                               schedule::printSchedule(*ks, k, t)});
}

Answer<DiagramResult> diagram(Analysis &a, const DiagramParams &p, const StopFn &stop,
                              const Progress &progress) {
  auto lock = a.lock();
  Focus f = focusOf(a, p.focus);
  std::string problem;
  DiagramResult r;
  r.viewName = p.viewName;
  r.dot = p.dot;
  if (p.view == viz::What::Hardware) {
    const hw::Target *t = a.target(hardwareTarget(a, f, p.focus), &problem);
    if (!t)
      return unavailable<DiagramResult>(problem);
    r.target = t->name;
    r.text = viz::hardwareGraph(*t);
  } else {
    if (!f.kernel)
      return unavailable<DiagramResult>(noKernel(f));
    const ir::Kernel *k = a.instance(f.subject, &problem);
    if (!k)
      return unavailable<DiagramResult>(problem);
    std::optional<size_t> s = irStatementOf(f, *k);
    r.about = about(f, *k, targetName(a, f), s);
    r.target = r.about->target;
    Answer<std::string> dot = kernelDot(a, f, *k, p, s, stop, progress);
    if (stopped(stop))
      return unavailable<DiagramResult>("stopped");
    if (!dot.result)
      return refused<DiagramResult>(dot.refusal, dot.message);
    r.text = std::move(*dot.result);
  }
  if (!p.dot) {
    // Drawing needs nothing of the analysis: other requests may use it meanwhile.
    lock.unlock();
    viz::Rendered drawn = viz::render(r.text, viz::Format::Svg);
    if (!drawn.ok)
      return refused<DiagramResult>(Refusal::Failed,
                                    "Graphviz could not draw the picture: " + drawn.error);
    r.text = std::move(drawn.data);
  }
  return answer(std::move(r));
}

Answer<TargetCode> targetCode(Analysis &a, const TargetCodeParams &p, const StopFn &stop,
                              const Progress &progress) {
  auto lock = a.lock();
  Focus f = focusOf(a, p.focus);
  if (!f.kernel)
    return unavailable<TargetCode>(noKernel(f));
  std::string problem;
  const hw::Target *t = a.target(f.subject.target, &problem);
  if (!t)
    return unavailable<TargetCode>(problem);
  bool stream = accel::isAccelerator(*t);
  if (stream && p.llvm)
    return unavailable<TargetCode>(
        "target '" + t->name +
        "' names no LLVM triple: its code is an instruction stream (kind asm)");
  auto code = withProgress(progress, "Compiling " + f.subject.kernel,
                           [&]() -> std::optional<llvm::Expected<pipeline::Code>> {
                             const auto *ks = a.schedule(f.subject, stop, &problem);
                             const ir::Kernel *k = a.instance(f.subject);
                             if (!ks || !k || stopped(stop))
                               return std::nullopt;
                             // The target, instance and schedule the analysis keeps never
                             // change: compiling them needs nothing else of it, and quick
                             // requests are answered meanwhile.
                             lock.unlock();
                             auto compiled = pipeline::codeText(
                                 *t, {{k, ks}},
                                 p.llvm ? pipeline::Output::LlvmIr : pipeline::Output::Assembly);
                             lock.lock();
                             return compiled;
                           });
  if (!code)
    return unavailable<TargetCode>(why(problem, stop));
  if (!*code)
    return unavailable<TargetCode>(llvm::toString(code->takeError()));
  const ir::Kernel &k = *a.instance(f.subject);
  TargetCode r{about(f, k, t->name, irStatementOf(f, k)), p.llvm, (*code)->text, stream};
  r.emitMs = (*code)->emitMs;
  r.generateMs = (*code)->llvm.generateMs;
  r.optimizeMs = (*code)->llvm.optimizeMs;
  r.machineCodeMs = (*code)->llvm.machineCodeMs;
  return answer(std::move(r));
}

} // namespace isam::lsp
