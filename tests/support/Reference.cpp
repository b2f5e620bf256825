#include "Reference.h"

namespace isam::test {

std::string renderDiagnostics(Session &s) {
  std::string out;
  for (const auto &d : s.diagnostics().all())
    out += renderDiagnostic(d, s.sources()) + "\n";
  return out;
}

Reference referenceAsWritten(const std::string &path, const std::string &text,
                             const InstanceSelector &sel, const ir::Kernel &rewritten,
                             const interp::Buffers &inputs) {
  SessionOptions options;
  options.stagePaddedReads = false;
  Session session(options);
  session.loadText(path, text);
  std::vector<ir::Kernel> written = session.instances(sel);
  Reference out;
  out.diagnostics = renderDiagnostics(session);
  if (written.size() != 1)
    return out;
  const ir::Kernel &w = written[0];
  interp::Buffers ref(inputs.begin(), inputs.begin() + ptrdiff_t(w.tensors.size()));
  interp::run(w, ref);
  for (size_t t = w.tensors.size(); t < rewritten.tensors.size(); ++t)
    ref.emplace_back(size_t(rewritten.tensors[t].elementCount()), 0.0);
  out.buffers = std::move(ref);
  return out;
}

} // namespace isam::test
