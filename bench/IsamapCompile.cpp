// Instantiating, scheduling and JIT-compiling one instance for the benchmark (see
// IsamapCompile.h).
#include "IsamapCompile.h"
#include "pipeline/Pipeline.h"

#include <llvm/Support/Error.h>

namespace isam::bench {

namespace {

// The session's errors, rendered as the CLI renders them, or "" when there are none.
std::string errorsOf(Session &session) {
  if (!session.diagnostics().hasErrors())
    return "";
  std::string out;
  for (const auto &d : session.diagnostics().all())
    if (d.severity == Severity::Error)
      out += renderDiagnostic(d, session.sources());
  return out;
}

} // namespace

CompiledKernel compileInstance(const std::string &file, const InstanceSelector &selector,
                               const hw::Target &target, pipeline::Executor &executor) {
  CompiledKernel out;
  Session session;
  pipeline::Options options;
  options.givenTarget = &target;
  pipeline::Pipeline p(session, options);
  if (!p.parse(file)) {
    out.error = "cannot read " + file;
    return out;
  }
  std::vector<ir::Kernel> kernels = p.instantiate(selector);
  if (std::string e = errorsOf(session); !e.empty() || kernels.size() != 1) {
    out.error =
        e.empty() ? "the selector matches " + std::to_string(kernels.size()) + " instances" : e;
    return out;
  }
  out.kernel = std::move(kernels.front());

  auto scheduled = p.schedule(out.kernel);
  if (!scheduled) {
    out.error = errorsOf(session);
    return out;
  }
  out.mapScheduleMs = scheduled->milliseconds;
  auto entry = executor.compile(out.kernel, scheduled->schedule, &out.times);
  if (!entry) {
    out.error = llvm::toString(entry.takeError());
    return out;
  }
  out.entry = *entry;
  return out;
}

std::vector<std::string> instanceNames(const std::string &file, std::string &error) {
  std::vector<std::string> names;
  Session session;
  if (!session.loadFile(file)) {
    error = "cannot read " + file;
    return names;
  }
  for (const auto &k : session.instances({}))
    names.push_back(k.name);
  error = errorsOf(session);
  return error.empty() ? names : std::vector<std::string>{};
}

} // namespace isam::bench
