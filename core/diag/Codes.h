// The catalogue of diagnostic codes. A code is stable once released: tools and tests match on
// it. Every code has a test that triggers it (tests/unit/DiagnosticCodesTest.cpp).
#pragma once

#include <string>
#include <vector>

namespace isam {

struct DiagnosticCode {
  const char *code;
  const char *summary;
};

const std::vector<DiagnosticCode> &diagnosticCodes();

} // namespace isam
