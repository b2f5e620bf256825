// Instantiating, scheduling and JIT-compiling one instance for the benchmark (see
// IsamapCompile.h).
#include "IsamapCompile.h"

#include <llvm/Support/Error.h>

#include <chrono>

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
                               const hw::Target &target, backend::Jit &jit) {
  CompiledKernel out;
  Session session;
  if (!session.loadFile(file)) {
    out.error = "cannot read " + file;
    return out;
  }
  std::vector<ir::Kernel> kernels = session.instances(selector);
  if (std::string e = errorsOf(session); !e.empty() || kernels.size() != 1) {
    out.error =
        e.empty() ? "the selector matches " + std::to_string(kernels.size()) + " instances" : e;
    return out;
  }
  out.kernel = std::move(kernels.front());

  auto start = std::chrono::steady_clock::now();
  schedule::KernelSchedule sched = session.schedule(out.kernel, target);
  out.mapScheduleMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (std::string e = errorsOf(session); !e.empty()) {
    out.error = e;
    return out;
  }

  auto entry = jit.add(out.kernel, sched, &out.times);
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
