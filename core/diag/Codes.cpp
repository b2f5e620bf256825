#include "diag/Codes.h"

namespace isam {

const std::vector<DiagnosticCode> &diagnosticCodes() {
  static const std::vector<DiagnosticCode> codes = {
      {"E0101", "syntax error"},
      {"E0102", "the file is not valid UTF-8"},
      {"E0103", "nesting too deep"},
      {"E0104", "statement too long"},
      {"E0105", "too many syntax errors"},
      {"E0201", "name declared twice"},
      {"E0202", "unknown kernel, instance, target or unit"},
      {"E0203", "unknown name or tensor"},
      {"E0204", "unknown function"},
      {"E0301", "unknown element type"},
      {"E0302", "invalid size expression"},
      {"E0303", "wrong number of indices"},
      {"E0304", "mismatched element types"},
      {"E0305", "reduction index with '='"},
      {"E0306", "write to a read-only tensor"},
      {"E0307", "written access is not indexed by distinct index variables"},
      {"E0308", "index expression is not affine"},
      {"E0309", "wrong number of arguments"},
      {"E0310", "index used as a value"},
      {"E0311", "statement reads its own result where the order of evaluation matters"},
      {"E0401", "wrong number of size arguments"},
      {"E0402", "size or dimension not positive"},
      {"E0403", "conflicting index ranges"},
      {"E0404", "access out of bounds"},
      {"E0405", "index range cannot be inferred"},
      {"E0406", "empty index range"},
      {"E0407", "tensor read before it is written"},
      {"E0408", "output never written"},
      {"E0409", "size parameter not bound"},
      {"E0501", "unknown llvm field"},
      {"E0502", "unknown property"},
      {"E0503", "property value of the wrong kind"},
      {"E0504", "unknown parent memory"},
      {"E0505", "memory hierarchy has a cycle"},
      {"E0506", "operand memory missing or unknown"},
      {"E0507", "asm template names an unknown operand"},
      {"E0508", "required property missing"},
      {"E0509", "instruction semantics incomplete"},
      {"E0510", "system references an unknown target or memory"},
      {"E0601", "imported file not found"},
      {"E0602", "import cycle"},
      {"E0603", "file cannot be read"},
      {"W0301", "mapping search budget exhausted"},
      {"I0301", "statement runs on no instruction (scalar code)"},
      {"E0701", "pinned instruction cannot run the statement"},
      {"E0702", "schedule pin does not fit the mapping"},
      {"E0703", "no schedule satisfies the pins"},
      {"E0704", "malformed schedule block"},
  };
  return codes;
}

} // namespace isam
