#include "sema/Limits.h"

namespace isam::sema {

std::optional<int64_t> boundedProduct(const std::vector<int64_t> &factors, int64_t limit) {
  int64_t n = 1;
  for (int64_t f : factors)
    if (f > 0 && (__builtin_mul_overflow(n, f, &n) || n > limit))
      return std::nullopt;
  return n;
}

namespace {

std::string product(const std::vector<int64_t> &factors) {
  std::string s;
  for (int64_t f : factors)
    if (f > 0)
      s += (s.empty() ? "" : " x ") + std::to_string(f);
  return s.empty() ? "1" : s;
}

} // namespace

bool checkSizeLimits(const std::vector<ir::Tensor> &tensors,
                     const std::vector<ir::Statement> &statements, SourceRange noteRange,
                     const std::string &note, DiagnosticSink &diags) {
  bool ok = true;
  auto noted = [&](Diagnostic &d) {
    if (noteRange.valid() && !note.empty())
      d.note(noteRange, note);
  };
  for (const auto &t : tensors) {
    std::vector<int64_t> bytes = t.shape;
    bytes.push_back(ir::elemTypeBytes(t.type));
    if (boundedProduct(bytes, kMaxTensorBytes))
      continue;
    noted(diags.error("E0410", t.range,
                      "'" + t.name + "' has " + product(t.shape) + " elements of " +
                          std::to_string(ir::elemTypeBytes(t.type)) +
                          " bytes, more than 2^62 bytes (the largest tensor isamap accepts)"));
    ok = false;
  }
  for (const auto &s : statements) {
    std::vector<int64_t> extents;
    std::string names;
    for (const auto &i : s.indices) {
      extents.push_back(i.extent);
      names += (names.empty() ? "" : ", ") + i.name;
    }
    if (boundedProduct(extents, kMaxStatementPoints))
      continue;
    noted(diags.error("E0411", s.range,
                      "this statement runs over " + product(extents) + " points (" + names +
                          "), more than 2^62 (the most isamap can count)"));
    ok = false;
  }
  return ok;
}

} // namespace isam::sema
