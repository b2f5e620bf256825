// Every diagnostic code in the catalogue (diag/Codes.cpp) is triggered here by a small bad input,
// with the exact text its range covers and a key phrase of its message. The meta-test at the end
// fails when a code is added to the catalogue without a case in the table.
#include "support/TestSupport.h"

#include "diag/Codes.h"
#include "ir/Verify.h"
#include "mapping/Verify.h"
#include "schedule/Verify.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace isam;

namespace {

namespace fs = std::filesystem;

using SessionPtr = std::unique_ptr<Session>;
using MakeSession = std::function<SessionPtr()>;

// A fresh directory under the system temp directory, removed on destruction.
class TempDir {
public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("isamap-diagcodes-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  std::string write(const std::string &name, const std::string &text) const {
    fs::path p = path_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  std::string path() const { return path_.string(); }

private:
  fs::path path_;
};

std::string render(Session &s) {
  std::string out;
  for (const auto &d : s.diagnostics().all())
    out += renderDiagnostic(d, s.sources()) + "\n";
  return out.empty() ? "(no diagnostics)" : out;
}

std::string repeat(const std::string &piece, int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += piece;
  return out;
}

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

// The codes of all errors, in order.
std::vector<std::string> errorCodes(Session &s) {
  std::vector<std::string> out;
  for (const auto &d : s.diagnostics().all())
    if (d.severity == Severity::Error)
      out.push_back(d.code);
  return out;
}

MakeSession text(std::string t) {
  return [t] { return test::analyse(t); };
}

// Analyses `t`, then selects instances as the CLI's --kernel/-D would.
MakeSession selecting(std::string t, InstanceSelector sel) {
  return [t, sel] {
    auto s = test::analyse(t);
    s->instances(sel);
    return s;
  };
}

// Writes `files` into a fresh temp directory and loads the first one from disk.
MakeSession onDisk(std::vector<std::pair<std::string, std::string>> files) {
  return [files] {
    TempDir dir;
    std::string main;
    for (const auto &[name, body] : files) {
      std::string p = dir.write(name, body);
      if (main.empty())
        main = p;
    }
    auto s = std::make_unique<Session>();
    s->loadFile(main);
    s->checkAll();
    return s;
  };
}

// Analyses `t`, then schedules its first instance on `target` (declared in `t` or shipped):
// schedule pins are checked when a statement is scheduled.
MakeSession scheduling(std::string t, std::string target) {
  return [t, target] {
    auto s = test::analyse(t);
    auto kernels = s->instances({});
    auto tgt = s->target(target);
    if (!kernels.empty() && tgt)
      s->schedule(kernels[0], *tgt);
    return s;
  };
}

// What the driver does with a verifier's findings (core/driver/Session.cpp, verifyStage).
void reportInternal(const std::vector<Diagnostic> &found, Session &s) {
  for (const auto &d : found)
    s.diagnostics().error(d.code, d.range, d.message);
}

// A register file under one memory, a broadcast FMA and an add: enough to schedule a GEMM.
const char *kVectorTarget =
    "target vec { memory M { size 1 MiB; bandwidth 16 B/cycle; }\n"
    "  registers R : M { count 8; width 16 B; }\n"
    "  move ld(d: out f32[4] in R, s: f32[4] in M) { d[i] = s[i]; }\n"
    "  move st(d: out f32[4] in M, s: f32[4] in R) { d[i] = s[i]; }\n"
    "  move bc(d: out f32[4] in R, s: f32 in M) { d[i] = s; }\n"
    "  instr fma4(acc: inout f32[4] in R, a: f32[4] in R, b: f32 in R) { acc[i] += a[i] * b; }\n"
    "  instr add4(d: out f32[4] in R, a: f32[4] in R, b: f32[4] in R) { d[i] = a[i] + b[i]; } }\n";

// A GEMM whose statement is pinned by `pins`.
std::string pinnedGemm(const std::string &pins) {
  return std::string(kVectorTarget) +
         "kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
         "  C[m, n] += A[m, k] * B[k, n];\n  schedule { " +
         pins + " }\n}\ninstance g = gemm<64, 64, 4>;\n";
}

const char *kCopy = "kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; }\n";
const char *kTwoInputs = "kernel k<N>(A: f32[N], X: i32[N]) -> (B: f32[N]) { ";
const char *kMem = "target t { memory DRAM { size 1 GiB; } ";

struct Case {
  std::string name;         // test name
  std::string code;         // expected code
  MakeSession make;         // produces the session holding the diagnostics
  std::string covered;      // exact text of the first such diagnostic's range ("" when it has none)
  std::string phrase;       // part of its message
  bool onlyThisCode = true; // no other error is reported (no cascade)
  size_t count = 1;         // how many diagnostics with this code
};

std::vector<Case> cases() {
  std::string k = kCopy;
  std::string k2 = kTwoInputs;
  std::string mem = kMem;
  std::string copyInstr = "instr cp(a: in f32[4] in DRAM, b: out f32[4] in DRAM) { b[i] = a[i]; }";
  return {
      // ---- syntax ------------------------------------------------------------------------------
      {"E0101_MissingSemicolonAfterInstance", "E0101",
       text(k + "instance x = k<4>\ninstance y = k<5>;\n"), "", "expected ';' before 'instance'"},
      {"E0101_StrayCharacter", "E0101", text(k + "$\n"), "$", "'$'"},
      {"E0101_MisspelledKeyword", "E0101", text("kernal k<N>(A: f32[N]) -> (B: f32[N]) { }\n"),
       "kernal", "unexpected 'kernal'"},
      {"E0101_LongTokenIsQuotedShort", "E0101",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i] " + std::string(30000, 'x') +
            "; }\n"),
       std::string(30000, 'x'), "unexpected 'xxxxxxxxxxxxxxxxxxxxx...'; expected"},
      {"E0102_InvalidUtf8InComment", "E0102", text(k + "// caf\xff\n"), "\xff",
       "not valid UTF-8 (byte 0xff)"},
      {"E0103_NestingTooDeep", "E0103",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = " + repeat("(", 250) + "A[i]" +
            repeat(")", 250) + "; }\n"),
       "(", "nesting is deeper than 200 levels"},
      {"E0104_StatementTooLong", "E0104",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]" + repeat(" + A[i]", 1000) +
            "; }\n"),
       "A", "longer than 4000 tokens"},
      {"E0105_TooManySyntaxErrors", "E0105", text(repeat("kernel $\n", 60)), "",
       "too many syntax errors", /*onlyThisCode=*/false},
      // ---- names -------------------------------------------------------------------------------
      {"E0201_KernelDeclaredTwice", "E0201", text(k + k), "k", "'k' is declared twice"},
      {"E0201_PropertyGivenTwice", "E0201",
       text(mem + "memory L1 : DRAM { size 1 KiB; size 2 KiB; } }"), "size",
       "'size' is given twice"},
      {"E0202_UnknownKernel", "E0202", text(k + "instance x = kk<4>;\n"), "kk",
       "unknown kernel 'kk'; did you mean 'k'?"},
      {"E0202_UnknownUnit", "E0202",
       text(mem + "unit alu { count 1; } instr cp(a: in f32[4] in DRAM, b: out f32[4] in DRAM) on "
                  "fpu { b[i] = a[i]; } }"),
       "fpu", "unknown unit 'fpu'"},
      {"E0203_UnknownTensor", "E0203",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = Aa[i]; }\n"), "Aa",
       "unknown tensor 'Aa'; did you mean 'A'?"},
      {"E0203_UnknownName", "E0203",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i] * q; }\n"), "q",
       "unknown name 'q'"},
      {"E0203_WhereNamesNoIndex", "E0203",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i] where j in 0..3; }\n"), "j",
       "'j' is not an index of this statement"},
      {"E0204_UnknownFunction", "E0204",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = exq(A[i]); }\n"), "exq",
       "unknown function 'exq'; did you mean 'exp'?"},
      // ---- types and shapes
      // ----------------------------------------------------------------------
      {"E0301_UnknownElementType", "E0301",
       text("kernel k<N>(A: f33[N]) -> (B: f32[N]) { B[i] = A[i]; }\n"), "f33",
       "unknown element type 'f33'"},
      {"E0302_NotASizeParameter", "E0302",
       text("kernel k<N>(A: f32[M]) -> (B: f32[N]) { B[i] = A[i]; }\n"), "M",
       "'M' is not a size parameter"},
      {"E0302_FractionalDimension", "E0302",
       text("kernel k<N>(A: f32[N * 1.5]) -> (B: f32[N]) { B[i] = A[i]; }\n"), "1.5",
       "must be an integer"},
      {"E0302_IndexCoefficientWouldWrap", "E0302",
       text("kernel k(A: f32[4]) -> (B: f32[4]) { B[i] = A[1099511627776 * 1099511627776 * 16 * "
            "i] where i in 0..4; }\ninstance x = k;\n"),
       "1099511627776 * 1099511627776", "an index coefficient or constant is too large"},
      {"E0302_IndexConstantTooLarge", "E0302",
       text("kernel k(A: f32[4]) -> (B: f32[4]) { B[i] = A[i + 4611686018427387904] where i in "
            "0..4; }\ninstance x = k;\n"),
       "4611686018427387904", "an index constant is too large (the limit is 2^40)"},
      {"E0303_TooManyIndices", "E0303", text(k2 + "B[i] = A[i, i]; }\n"), "A[i, i]",
       "'A' has 1 dimension but is indexed with 2"},
      {"E0304_RightHandSideType", "E0304", text(k2 + "B[i] = X[i]; }\n"), "X[i]",
       "the right-hand side is i32 but 'B' is f32"},
      {"E0304_MixedTypes", "E0304", text(k2 + "B[i] = A[i] + X[i]; }\n"), "A[i] + X[i]",
       "mixed element types f32 and i32"},
      {"E0305_ReductionWithAssign", "E0305",
       text("kernel k<N>(A: f32[N, N]) -> (B: f32[N]) { B[i] = A[i, j]; }\n"), "j",
       "index 'j' appears only on the right of '='"},
      {"E0306_WriteToInput", "E0306",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; A[i] = B[i]; }\n"), "A",
       "input 'A' is read-only"},
      {"E0306_WriteToSizeParameter", "E0306",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; N[i] = A[i]; }\n"), "N",
       "'N' is a size parameter, not a tensor"},
      {"E0307_ShiftedImplicitLocal", "E0307",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N]) { T[i + 1] = A[i]; B[i] = A[i]; }\n"), "i + 1",
       "declare the local with `local` to shift or stride its write"},
      {"E0307_AssignmentWritesAnElementTwice", "E0307",
       text("kernel k<N>(A: f32[N]) -> (B: f32[2 * N]) { B[i + j] = A[i] * A[j]; }\n"
            "instance k3 = k<3>;\n"),
       "i + j", "i = 0, j = 1 and i = 1, j = 0 both write element 1"},
      {"E0307_IndexTwice", "E0307",
       text("kernel k<N>(A: f32[N, N]) -> (B: f32[N, N]) { B[i, i] = A[i, i]; }\n"), "i",
       "index 'i' indexes two dimensions of the written tensor"},
      {"E0308_ProductOfIndices", "E0308", text(k2 + "B[i] = A[i * i]; }\n"), "i * i",
       "a product of two index variables is not"},
      {"E0308_DivisionByAnIndex", "E0308", text(k2 + "B[i] = A[i / i]; }\n"), "i / i",
       "an index may be divided by a constant or a size only, not by an index"},
      {"E0308_DivisorNotPositive", "E0308",
       text(k2 + "B[i] = A[i % (1 - N)]; }\ninstance x = k<4>;\n"), "i % (1 - N)",
       "an index divisor must be positive, not -3"},
      {"E0404_RemainderOutOfBounds", "E0404",
       text(k2 + "B[i] = A[i % 5 + 1]; }\ninstance x = k<5>;\n"), "i % 5 + 1",
       "this index reaches 1..6 but dimension 1 of 'A' has size 5"},
      {"E0308_QuotientInAnInstruction", "E0308",
       text(mem + "instr x(d: out f32[4] in DRAM, a: f32[8] in DRAM) { d[i] = a[i / 2]; } }\n"),
       "i / 2", "its semantics cannot divide an index"},
      {"E0314_RemainderOfValues", "E0314", text(k2 + "B[i] = A[i] % 2; }\n"), "A[i] % 2",
       "`%` takes indices, sizes and integers"},
      {"E0315_ConditionNotAComparison", "E0315",
       text("kernel k<N>(A: f32[N, N]) -> (B: f32[N]) { B[i] += A[i, j] where j < i || j > 2; "
            "}\n"),
       "j < i || j > 2", "a `where` condition compares indices"},
      {"E0315_GuardInAnInstruction", "E0315",
       text(mem + "instr x(d: out f32[4] in DRAM, a: f32[4] in DRAM) { d[i] = a[i] where i > 0; "
                  "} }\n"),
       "i > 0", "an instruction's semantics cannot restrict its points"},
      {"E0316_GatherWithoutPad", "E0316",
       text("kernel k<N>(E: f32[N], I: i32[N]) -> (B: f32[N]) { B[i] = E[I[i]]; }\n"), "E[I[i]]",
       "a gathered read must say what an index out of range gives"},
      {"E0316_GatherOfFloats", "E0316",
       text("kernel k<N>(E: f32[N], I: f32[N]) -> (B: f32[N]) { B[i] = E[I[i]] pad 0; }\n"), "I[i]",
       "a gathered index is an integer; 'I' holds f32"},
      {"E0203_GuardOnAnUnknownIndex", "E0203", text(k2 + "B[i] = A[i] where i < q; }\n"), "q",
       "'q' is not an index of this statement, a size or a number"},
      {"E0309_WrongArity", "E0309", text(k2 + "B[i] = max(A[i]); }\n"), "max(A[i])",
       "'max' takes 2 arguments, not 1"},
      {"E0309_ConversionArity", "E0309", text(k2 + "B[i] = f32(A[i], A[i]); }\n"),
       "f32(A[i], A[i])", "a conversion f32(...) takes one argument"},
      {"E0310_IndexAsValueInAnInstruction", "E0310",
       text(mem + "instr x(d: out f32[4] in DRAM, a: f32[4] in DRAM) { d[i] = a[i] * i; } }\n"),
       "i", "an instruction's semantics cannot use index 'i' as a value"},
      {"E0311_ReadsAnotherPoint", "E0311",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; "
            "B[i] = B[i - 1] + A[i] where i in 1..N; }\ninstance x = k<5>;\n"),
       "B[i - 1]", "'B' is read at another point than the one this statement writes"},
      {"E0311_ReductionReadsItself", "E0311",
       text("kernel k<N>(A: f32[N, N]) -> (B: f32[N]) { B[i] = A[i, i]; "
            "B[i] += B[i] * A[i, j]; }\n"),
       "B[i]", "'B' is read by the reduction that writes it"},
      {"E0312_ConditionAsValue", "E0312", text(k2 + "B[i] = A[i] > 0; }\n"), "A[i] > 0",
       "a condition (a comparison, &&, || or !) is not a value"},
      {"E0312_ValueAsCondition", "E0312", text(k2 + "B[i] = A[i] ? 1 : 0; }\n"), "A[i]",
       "a condition must compare values"},
      {"E0312_ChainedComparison", "E0312", text(k2 + "B[i] = 0 < A[i] < 1 ? 1 : 0; }\n"),
       "0 < A[i] < 1", "comparisons do not chain"},
      {"E0308_ConditionInAnIndex", "E0308", text(k2 + "B[i] = A[i > 0 ? i : 0]; }\n"),
       "i > 0 ? i : 0", "comparisons and selections are not allowed in an index"},
      {"E0304_LiteralNotOfTheComparedType", "E0304", text(k2 + "B[i] = X[i] < 0.5 ? A[i] : 0; }\n"),
       "0.5", "this literal is not an i32 value, but it is compared with one"},
      {"E0304_SelectedValuesOfTwoTypes", "E0304", text(k2 + "B[i] = A[i] > 0 ? A[i] : X[i]; }\n"),
       "A[i] > 0 ? A[i] : X[i]", "mixed element types f32 and i32"},
      {"E0313_PaddedWrite", "E0313", text(k2 + "B[i] pad 0 = A[i]; }\n"), "0",
       "only a read can be padded"},
      {"E0313_PadInAnInstruction", "E0313",
       text(mem +
            "instr x(d: out f32[4] in DRAM, a: f32[4] in DRAM) { d[i] = a[i - 1] pad 0; } }\n"),
       "0", "an instruction's semantics cannot pad a read"},
      {"E0313_PadNotANumber", "E0313", text(k2 + "B[i] = A[i - 1] pad nan; }\n"), "nan",
       "a pad value is a number or inf, not 'nan'"},
      {"E0304_PadNotOfTheReadType", "E0304", text(k2 + "B[i] = f32(X[i - 1] pad 0.5); }\n"), "0.5",
       "the pad value is not an i32 value"},
      // ---- sizes and ranges
      // ----------------------------------------------------------------------
      {"E0401_TooManySizeArguments", "E0401", text(k + "instance x = k<4, 5>;\n"),
       "instance x = k<4, 5>;", "takes 1 size argument <N>, but 2 are given"},
      {"E0402_ZeroSize", "E0402", text(k + "instance x = k<0>;\n"), "0",
       "size 'N' is 0; sizes must be positive"},
      {"E0402_ZeroDimension", "E0402",
       text("kernel k<N>(A: f32[N - 4]) -> (B: f32[N]) { B[i] = A[i]; }\ninstance x = k<4>;\n"),
       "N - 4", "this dimension of 'A' is 0"},
      {"E0403_ConflictingRanges", "E0403",
       text("kernel k<N, M>(A: f32[N], C: f32[M]) -> (B: f32[N]) { B[i] = A[i] + C[i]; }\n"
            "instance x = k<4, 5>;\n"),
       "i", "index 'i' ranges over 0..4 from "},
      {"E0403_ConflictNamesBothAccesses", "E0403",
       text("kernel k<N, M>(A: f32[N], C: f32[M]) -> (B: f32[N]) { B[i] = A[i] + C[i]; }\n"
            "instance x = k<4, 5>;\n"),
       "i", "but over 0..5 from C (dimension 1)"},
      {"E0404_ConvolutionInputTooSmall", "E0404",
       text("kernel k<H, R>(I: f32[H], W: f32[R]) -> (O: f32[H]) { O[h] += I[h + r] * W[r]; }\n"
            "instance x = k<4, 2>;\n"),
       "h + r", "this index reaches 0..5 but dimension 1 of 'I' has size 4"},
      {"E0404_ReachBeyondInt64", "E0404",
       text("kernel k<N>(A: f32[N], C: f32[N]) -> (B: f32[N]) { B[i] = A[1099511627776 * i] + "
            "C[i]; }\ninstance x = k<1099511627776>;\n"),
       "1099511627776 * i",
       "this index reaches 0..1208925819613529663078401 but dimension 1 of 'A' has size "
       "1099511627776"},
      {"E0405_UninferableIndex", "E0405",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N]) { T[i, j] = A[j]; B[j] = A[j]; }\n"
            "instance x = k<4>;\n"),
       "i", "cannot infer the range of index 'i'"},
      {"E0406_EmptyWhereRange", "E0406",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i] where i in 3..3; }\n"
            "instance x = k<4>;\n"),
       "i in 3..3", "the range 3..3 of 'i' is empty"},
      {"E0406_ShapesLeaveNoPoint", "E0406",
       text("kernel k<H, R>(I: f32[H], W: f32[R]) -> (O: f32[H]) { T[h] += I[h + r] * W[r]; "
            "O[h] = T[h]; }\ninstance x = k<2, 4>;\n"),
       "h", "index 'h' has an empty range"},
      {"E0407_ReadBeforeWrite", "E0407",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N]) { local T: f32[N]; B[i] = T[i] + A[i]; }\n"),
       "T[i]", "'T' is read here before any statement writes it"},
      {"E0408_OutputNeverWritten", "E0408",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N], C: f32[N]) { B[i] = A[i]; }\n"), "C",
       "output 'C' is never written"},
      {"E0408_NoOutputs", "E0408", text("kernel k<N>(A: f32[N]) -> () { }\n"), "k",
       "kernel 'k' has no outputs"},
      {"E0409_SizeNotBound", "E0409", selecting(k, {"", "k", {}}), "N",
       "size parameter 'N' of kernel 'k' is not bound; pass -D N=VALUE"},
      {"E0410_TensorTooLarge", "E0410",
       text("kernel k<N>(A: f32[N, N, N, N]) -> (B: f32[N]) { B[i] = A[i, 0, 0, 0]; }\n"
            "instance x = k<65536>;\n"),
       "A", "'A' has 65536 x 65536 x 65536 x 65536 elements of 4 bytes, more than 2^62 bytes"},
      {"E0411_StatementTooManyPoints", "E0411",
       text("kernel k<N>(A: f32[N, N], C: f32[N]) -> (B: f32[N]) {\n"
            "  B[i] += A[i, j] * C[k] * C[l];\n}\ninstance x = k<1048576>;\n"),
       "B[i] += A[i, j] * C[k] * C[l];",
       "this statement runs over 1048576 x 1048576 x 1048576 x 1048576 points (i, j, k, l), "
       "more than 2^62"},
      // ---- hardware
      // ------------------------------------------------------------------------------
      {"E0501_UnknownLlvmField", "E0501",
       text("target t { llvm triple \"x86_64\" cpux \"znver4\"; memory DRAM { size 1 GiB; } }"),
       "cpux", "unknown llvm field 'cpux'"},
      {"E0502_UnknownProperty", "E0502", text("target t { memory DRAM { sise 1 GiB; } }"), "sise",
       "unknown memory property 'sise'; did you mean 'size'?"},
      {"E0503_WrongUnit", "E0503", text("target t { memory DRAM { size 1 GHz; } }"), "1 GHz",
       "'size' expects a positive size such as '32 KiB'"},
      {"E0503_FractionOfAByte", "E0503", text("target t { memory DRAM { size 0.5 B; } }"), "0.5 B",
       "'size' is not a whole number of bytes"},
      {"E0503_WidthNotWholeBytes", "E0503",
       text(mem + "registers V : DRAM { count 4; width 1.5 B; } }"), "1.5 B",
       "'width' is not a whole number of bytes"},
      {"E0503_ZeroBandwidth", "E0503",
       text("target t { memory DRAM { size 1 GiB; bandwidth 0 "
            "B/cycle; } }"),
       "0 B/cycle", "'bandwidth' expects a positive bandwidth"},
      {"E0503_CountTooLarge", "E0503", text(mem + "unit u { count 99999999999; } }"), "99999999999",
       "'count' is too large"},
      {"E0503_ZeroRate", "E0503", text(mem + copyInstr + " cost { per_cycle 0; } }"), "0",
       "'per_cycle' expects a rate"},
      {"E0504_UnknownParent", "E0504", text(mem + "memory SPAD : DRAMM { size 256 KiB; } }"),
       "DRAMM", "unknown parent memory 'DRAMM'; did you mean 'DRAM'?"},
      {"E0505_ParentCycle", "E0505",
       text("target t { memory A : B { size 1 GiB; } memory B : A { size 32 KiB; } }"),
       "memory A : B { size 1 GiB; }", "memory 'A' is its own ancestor"},
      {"E0506_OperandMemoryMissing", "E0506",
       text(mem + "instr cp(a: in f32[4], b: out f32[4] in DRAM) { b[i] = a[i]; } }"),
       "a: in f32[4]", "operand 'a' does not say where it lives"},
      {"E0506_OperandMemoryUnknown", "E0506",
       text(mem + "instr cp(a: in f32[4] in DRAN, b: out f32[4] in DRAM) { b[i] = a[i]; } }"),
       "DRAN", "unknown memory 'DRAN' in target 't'; did you mean 'DRAM'?"},
      {"E0507_AsmNamesUnknownOperand", "E0507", text(mem + copyInstr + " asm \"cp {a}, {c}\"; }"),
       "\"cp {a}, {c}\"", "names '{c}', which is neither an operand nor a size parameter"},
      {"E0507_AsmUnclosedBrace", "E0507", text(mem + copyInstr + " asm \"cp {a\"; }"), "\"cp {a\"",
       "unclosed '{'"},
      {"E0508_MemoryWithoutSize", "E0508", text("target t { memory DRAM { line 64 B; } }"), "DRAM",
       "memory 'DRAM' needs a `size`"},
      {"E0508_RegistersWithoutWidth", "E0508", text(mem + "registers V : DRAM { count 32; } }"),
       "V", "registers 'V' need `count` and `width`"},
      {"E0509_NoSemantics", "E0509", text(mem + "instr nop(a: in f32[4] in DRAM) { } }"), "nop",
       "'nop' has no semantics"},
      {"E0509_OutNeverWritten", "E0509",
       text(mem + "instr cp(a: in f32[4] in DRAM, b: out f32[4] in DRAM, c: out f32[4] in DRAM) "
                  "{ b[i] = a[i]; } }"),
       "c", "out operand 'c' is never written by the semantics"},
      {"E0510_UnknownDevice", "E0510",
       text("target t { memory DRAM { size 1 GiB; } }\nsystem s { host t; device u; }\n"), "u",
       "unknown target 'u'"},
      {"E0510_UnknownSharedMemory", "E0510",
       text("target t { memory DRAM { size 1 GiB; } }\nsystem s { host t; shared t.DRAM, t.HBM; "
            "}\n"),
       "HBM", "target 't' has no memory 'HBM'"},
      {"E0510_NoHost", "E0510",
       text("target t { memory DRAM { size 1 GiB; } }\nsystem s { device t; }\n"), "s",
       "a system needs exactly one `host` target"},
      // ---- files
      // ---------------------------------------------------------------------------------
      {"E0601_ImportNotFound", "E0601",
       onDisk({{"main.isam", "import \"isamap_no_such_file_42.isam\";\n" + k}}),
       "\"isamap_no_such_file_42.isam\"",
       "cannot find the imported file 'isamap_no_such_file_42.isam'"},
      {"E0602_ImportCycle", "E0602",
       onDisk({{"a.isam", "import \"b.isam\";\n" + k}, {"b.isam", "import \"a.isam\";\n"}}),
       "\"a.isam\"", "import cycle: 'a.isam' imports this file again"},
      {"E0603_MainFileIsADirectory", "E0603",
       [] {
         TempDir dir;
         auto s = std::make_unique<Session>();
         EXPECT_FALSE(s->loadFile(dir.path()));
         return s;
       },
       "", "it is not a readable file"},
      {"E0604_ImportOutsideTheRoots", "E0604",
       [k] {
         TempDir dir;
         std::string main =
             dir.write("main.isam", "import \"../isamap-e0604-outside.isam\";\n" + k);
         SessionOptions options;
         options.importRoots = std::vector<std::string>{dir.path()};
         auto s = std::make_unique<Session>(options);
         s->loadFile(main);
         s->checkAll();
         return s;
       },
       "\"../isamap-e0604-outside.isam\"",
       "'../isamap-e0604-outside.isam' is outside the directories imports may read"},
      {"E0605_ImportNotAnIsamFile", "E0605",
       onDisk({{"main.isam", "import \"notes.txt\";\n" + k}, {"notes.txt", "secret\n"}}),
       "\"notes.txt\"", "'notes.txt' is not an isam file"},
      // ---- schedules
      // -----------------------------------------------------------------------------
      {"E0701_PinnedInstructionCannotRunIt", "E0701", scheduling(pinnedGemm("map add4;"), "vec"),
       "schedule { map add4; }",
       "the pinned instruction 'add4' cannot run statement s0: 'add4' does not accumulate"},
      {"E0702_TileAtAMemoryOfNoMapping", "E0702", scheduling(pinnedGemm("tile L1: n 4;"), "vec"),
       "schedule { tile L1: n 4; }",
       "cannot use this schedule pin: 'L1' is not a memory level this mapping tiles for"},
      {"E0703_RegisterTileCannotFit", "E0703", scheduling(pinnedGemm("tile R: n 64, m 64;"), "vec"),
       "schedule { tile R: n 64, m 64; }",
       "no schedule satisfies the pinned decisions for s0: the register tile needs"},
      // Schedule blocks are checked by sema: the full check reports them, no target needed.
      {"E0704_UnknownScheduleItem", "E0704", text(pinnedGemm("mpa fma4;")), "mpa fma4;",
       "unknown schedule item 'mpa'; write `map INSTR;`"},
      {"E0704_BlockBeforeAnyStatement", "E0704",
       text("kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  schedule { parallel: i; }\n"
            "  B[i] = A[i];\n}\ninstance k1 = k<16>;\n"),
       "schedule { parallel: i; }", "this one has none"},
      {"E0705_ParallelOverAReduction", "E0705", text(pinnedGemm("parallel: k;")), "k",
       "'k' is a reduction index, which cannot run in parallel; pin one of m, n"},
      {"E0706_ScalarCodeWhereInstructionsAreRequired", "E0706",
       [] {
         // The target has only an FMA: the GEMM runs on it, the exponential on nothing.
         auto s = test::analyse(
             "target t { memory M { size 1 GiB; } registers R : M { count 8; width 4 B; }\n"
             "  move ld(d: out f32[1] in R, s: f32[1] in M) { d[i] = s[i]; }\n"
             "  move st(d: out f32[1] in M, s: f32[1] in R) { d[i] = s[i]; }\n"
             "  instr fma(acc: inout f32[1] in R, a: f32[1] in R, b: f32[1] in R) { acc[i] += a[i] "
             "* b[i]; } }\n"
             "kernel e<N>(X: f32[N]) -> (Y: f32[N], Z: f32[N]) {\n"
             "  Z[i] += X[i] * X[i];\n"
             "  Y[i] = exp(X[i]);\n"
             "}\ninstance e1 = e<8>;\n");
         if (auto target = s->target("t"))
           s->requireInstructions(*target, {});
         return s;
       },
       "Y[i] = exp(X[i]);",
       "s1 of e1 runs as scalar code on t, which --require-instructions forbids"},
      {"W0706_ExhaustiveSearchStoppedByItsBudget", "W0706",
       [] {
         // Ten candidate schedules of a GEMM's space of thousands.
         auto s = test::analyse(pinnedGemm(""));
         auto kernels = s->instances({});
         auto target = s->target("vec");
         schedule::ScheduleOptions options;
         options.search = "exhaustive";
         options.budget.candidates = 10;
         if (!kernels.empty() && target)
           s->schedule(kernels[0], *target, options);
         return s;
       },
       "C[m, n] += A[m, k] * B[k, n];", "costed 10 of"},
      {"W0301_MappingBudgetExhausted", "W0301",
       [] {
         // Twelve indices of extent 2 on a one-lane instruction: far more candidate bindings
         // than a 0.001 ms budget allows.
         std::string idx = "a, b, c, d, e, f, g, h, i, j, k, l";
         auto s = test::analyse(
             "target t { memory M { size 1 GiB; } registers R : M { count 8; width 4 B; }\n"
             "  move ld(d: out f32[1] in R, s: f32[1] in M) { d[i] = s[i]; }\n"
             "  instr fma(acc: inout f32[1] in R, a: f32[1] in R, b: f32[1] in R) { acc[i] += a[i] "
             "* b[i]; } }\n"
             "kernel big(X: f32[2,2,2,2,2,2,2,2,2,2,2,2], Y: f32[2,2,2,2,2,2,2,2,2,2,2,2]) -> "
             "(Z: f32[2,2,2,2,2,2,2,2,2,2,2,2]) { Z[" +
             idx + "] += X[" + idx + "] * Y[" + idx + "]; }\ninstance big1 = big;\n");
         auto kernels = s->instances({});
         auto target = s->target("t");
         mapping::MapOptions options;
         options.budgetMs = 0.001;
         if (!kernels.empty() && target)
           s->mappings(kernels[0], *target, options);
         return s;
       },
       "Z[a, b, c, d, e, f, g, h, i, j, k, l] += X[a, b, c, d, e, f, g, h, i, j, k, l] * Y[a, b, "
       "c, d, e, f, g, h, i, j, k, l];",
       "ran out of its"},
      {"I0301_StatementRunsOnNoInstruction", "I0301",
       [] {
         // The target has only an FMA; an exponential maps onto nothing.
         auto s = test::analyse(
             "target t { memory M { size 1 GiB; } registers R : M { count 8; width 4 B; }\n"
             "  move ld(d: out f32[1] in R, s: f32[1] in M) { d[i] = s[i]; }\n"
             "  instr fma(acc: inout f32[1] in R, a: f32[1] in R, b: f32[1] in R) { acc[i] += a[i] "
             "* b[i]; } }\n"
             "kernel e<N>(X: f32[N]) -> (Y: f32[N]) { Y[i] = exp(X[i]); }\ninstance e1 = e<8>;\n");
         auto kernels = s->instances({});
         auto target = s->target("t");
         if (!kernels.empty() && target)
           for (const auto &m : s->mappings(kernels[0], *target))
             mapping::reportUnmapped(m, *target, s->diagnostics());
         return s;
       },
       "Y[i] = exp(X[i]);", "no instruction of t runs this statement; it will run as scalar code"},
      // Internal errors: a stage's result broken by hand, verified as the driver does when
      // assertions are on (ISAMAP_ENABLE_ASSERTIONS), reported into the session.
      {"E0901_ComputeIrBreaksAnInvariant", "E0901",
       [k] {
         auto s = test::analyse(k + "instance k1 = k<8>;\n");
         auto kernels = s->instances({});
         if (!kernels.empty()) {
           kernels[0].statements[0].rhs.access.indices[0].constant = 1; // A[i + 1]
           reportInternal(ir::verify(kernels[0]), *s);
         }
         return s;
       },
       "B[i] = A[i];", "internal: compute IR of 'k1': dimension 1 of 'A' (a read) reaches 1..9"},
      {"E0902_MappingBreaksAnInvariant", "E0902",
       [k] {
         auto s = test::analyse(std::string(kVectorTarget) + k + "instance k1 = k<8>;\n");
         auto kernels = s->instances({});
         auto target = s->target("vec");
         if (!kernels.empty() && target) {
           auto maps = s->mappings(kernels[0], *target);
           if (!maps[0].candidates.empty()) {
             mapping::Candidate c = maps[0].candidates[0];
             c.loops.push_back(0);
             reportInternal(mapping::verify(c, kernels[0], 0, *target), *s);
           }
         }
         return s;
       },
       "B[i] = A[i];", "internal: mapping of 'k1' s0 onto"},
      {"E0903_ScheduleBreaksAnInvariant", "E0903",
       [] {
         auto s = test::analyse(pinnedGemm(""));
         auto kernels = s->instances({});
         auto target = s->target("vec");
         if (!kernels.empty() && target) {
           auto maps = s->mappings(kernels[0], *target);
           auto ks = s->schedule(kernels[0], *target, {}, {}, &maps);
           schedule::Config c = ks.statements[0].config;
           if (c.tiles.size() > 1)
             c.tiles[1][0] = 6; // fma4 covers 4 at a time
           reportInternal(schedule::verify(c, kernels[0], *target, maps[0]), *s);
         }
         return s;
       },
       "C[m, n] += A[m, k] * B[k, n];", "is not a whole number of calls of 4"},
  };
}

// gtest prints a parameter by name rather than as bytes.
void PrintTo(const Case &c, std::ostream *os) {
  *os << c.name;
}

class DiagnosticCode : public ::testing::TestWithParam<Case> {};

TEST_P(DiagnosticCode, IsReportedWithItsRangeAndMessage) {
  const Case &c = GetParam();
  SessionPtr s = c.make();
  ASSERT_NE(s, nullptr);
  auto found = test::withCode(*s, c.code);
  ASSERT_FALSE(found.empty()) << c.code << " not reported; got:\n" << render(*s);
  const Diagnostic &d = found.front();
  EXPECT_EQ(d.severity, c.code[0] == 'W'   ? Severity::Warning
                        : c.code[0] == 'I' ? Severity::Info
                                           : Severity::Error);
  EXPECT_EQ(test::rangeText(*s, d), c.covered) << render(*s);
  EXPECT_TRUE(contains(d.message, c.phrase))
      << "message: " << d.message << "\nexpected to contain: " << c.phrase;
  EXPECT_EQ(found.size(), c.count) << render(*s);
  // Bad input is worth a failing exit status (warnings alone are not).
  if (c.code[0] == 'E') {
    EXPECT_TRUE(s->diagnostics().hasErrors());
    EXPECT_GE(s->diagnostics().errorCount(), 1u);
  }
  if (c.onlyThisCode) {
    for (const auto &code : errorCodes(*s))
      EXPECT_EQ(code, c.code) << "cascade after " << c.code << ":\n" << render(*s);
  }
  // Every code reported is in the catalogue.
  std::set<std::string> catalogue;
  for (const auto &dc : diagnosticCodes())
    catalogue.insert(dc.code);
  for (const auto &other : s->diagnostics().all())
    EXPECT_TRUE(catalogue.count(other.code)) << "uncatalogued code " << other.code;
}

INSTANTIATE_TEST_SUITE_P(AllCodes, DiagnosticCode, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return info.param.name;
                         });

// The meta-test: every code in the catalogue has a case in the table that triggers it, so adding
// a code without a test fails here.
TEST(DiagnosticCodes, EveryCatalogueCodeIsTriggeredByATableInput) {
  const auto table = cases();
  ASSERT_FALSE(diagnosticCodes().empty());
  for (const auto &dc : diagnosticCodes()) {
    bool triggered = false, listed = false;
    for (const auto &c : table) {
      if (c.code != dc.code)
        continue;
      listed = true;
      SessionPtr s = c.make();
      triggered = triggered || !test::withCode(*s, dc.code).empty();
    }
    EXPECT_TRUE(listed) << dc.code << " (" << dc.summary << ") has no input in the table";
    EXPECT_TRUE(triggered) << dc.code << " (" << dc.summary << ") is not triggered by its inputs";
  }
}

TEST(DiagnosticCodes, TableNamesOnlyCataloguedCodes) {
  std::set<std::string> catalogue;
  for (const auto &dc : diagnosticCodes())
    catalogue.insert(dc.code);
  for (const auto &c : cases())
    EXPECT_TRUE(catalogue.count(c.code)) << c.name << " expects uncatalogued " << c.code;
}

TEST(DiagnosticCodes, CatalogueCodesAreUniqueWellFormedAndSummarised) {
  std::set<std::string> seen;
  for (const auto &dc : diagnosticCodes()) {
    std::string code = dc.code;
    EXPECT_TRUE(seen.insert(code).second) << code << " listed twice";
    ASSERT_EQ(code.size(), 5u) << code;
    EXPECT_TRUE(code[0] == 'E' || code[0] == 'W' || code[0] == 'I')
        << code << ": errors are Exxxx, warnings Wxxxx, information Ixxxx";
    for (size_t i = 1; i < code.size(); ++i)
      EXPECT_TRUE(code[i] >= '0' && code[i] <= '9') << code;
    EXPECT_FALSE(std::string(dc.summary).empty()) << code;
  }
}

// ---- error recovery: one mistake, one message --------------------------------------------------

TEST(DiagnosticRecovery, MissingSemicolonAfterInstanceGivesOneErrorAndKeepsBoth) {
  auto s = test::analyse(std::string(kCopy) + "instance x = k<4>\ninstance y = k<5>;\n");
  EXPECT_EQ(errorCodes(*s), std::vector<std::string>{"E0101"}) << render(*s);
  auto d = test::withCode(*s, "E0101");
  ASSERT_EQ(d.size(), 1u);
  // The fix inserts ';' right after `k<4>`.
  ASSERT_EQ(d[0].fixits.size(), 1u);
  EXPECT_EQ(d[0].fixits[0].replacement, ";");
  const std::string &src = s->sources().text(d[0].range.file);
  size_t after = src.find("k<4>") + 4;
  EXPECT_EQ(d[0].fixits[0].range.begin, after);
  EXPECT_EQ(d[0].fixits[0].range.end, after);
  EXPECT_EQ(d[0].range.begin, after);
  // Recovery kept the instance.
  ASSERT_NE(s->mainFile(), nullptr);
  EXPECT_EQ(s->mainFile()->instances.size(), 2u);
}

TEST(DiagnosticRecovery, MissingSemicolonAfterLocalGivesOneError) {
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n"
                         "  local T: f32[N]\n"
                         "  T[i] = A[i];\n"
                         "  B[i] = T[i];\n"
                         "}\n"
                         "instance x = k<4>;\n");
  EXPECT_EQ(errorCodes(*s), std::vector<std::string>{"E0101"}) << render(*s);
  auto d = test::withCode(*s, "E0101");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(contains(d[0].message, "expected ';' before 'T'")) << d[0].message;
}

TEST(DiagnosticRecovery, MissingSemicolonAfterPropertyGivesOneError) {
  auto s = test::analyse("target t { memory DRAM { size 1 GiB } }");
  // No E0508 "needs a size": the property survived recovery.
  EXPECT_EQ(errorCodes(*s), std::vector<std::string>{"E0101"}) << render(*s);
}

TEST(DiagnosticRecovery, MissingSemicolonBetweenStatementsGivesOneError) {
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n"
                         "  B[i] = A[i]\n"
                         "  B[i] += A[i];\n"
                         "}\n"
                         "instance x = k<4>;\n");
  EXPECT_EQ(errorCodes(*s), std::vector<std::string>{"E0101"}) << render(*s);
}

TEST(DiagnosticRecovery, MissingSemicolonBeforeClosingBraceGivesOneError) {
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n"
                         "  B[i] = A[i]\n"
                         "}\n"
                         "instance x = k<4>;\n");
  EXPECT_EQ(test::withCode(*s, "E0101").size(), 1u) << render(*s);
  if (errorCodes(*s) != std::vector<std::string>{"E0101"})
    GTEST_SKIP() << "BUG: the statement with the missing ';' is dropped, so a spurious E0408 "
                    "'output B is never written' follows the E0101:\n"
                 << render(*s);
  EXPECT_EQ(errorCodes(*s), std::vector<std::string>{"E0101"});
}

TEST(DiagnosticRecovery, MissingBracketInStatementGivesOneError) {
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i; }\n"
                         "instance x = k<4>;\n");
  EXPECT_EQ(test::withCode(*s, "E0101").size(), 1u) << render(*s);
  if (errorCodes(*s) != std::vector<std::string>{"E0101"})
    GTEST_SKIP() << "BUG: a syntax error inside the only statement writing an output drops the "
                    "statement, and a spurious E0408 follows:\n"
                 << render(*s);
  EXPECT_EQ(errorCodes(*s), std::vector<std::string>{"E0101"});
}

TEST(DiagnosticRecovery, StrayCharacterInStatementGivesOneError) {
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i] $ 2; }\n");
  auto d = test::withCode(*s, "E0101");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "$");
  if (errorCodes(*s) != std::vector<std::string>{"E0101"})
    GTEST_SKIP() << "BUG: stray '$' in the only statement writing B drops the statement; a "
                    "spurious E0408 follows:\n"
                 << render(*s);
  EXPECT_EQ(errorCodes(*s), std::vector<std::string>{"E0101"});
}

TEST(DiagnosticRecovery, StrayCharacterMessageReadsWell) {
  auto s = test::analyse(std::string(kCopy) + "$\n");
  auto d = test::withCode(*s, "E0101");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  if (contains(d[0].message, "unexpected the character"))
    GTEST_SKIP() << "BUG: ungrammatical message '" << d[0].message
                 << "'; expected \"unexpected character '$' ...\"";
  EXPECT_TRUE(contains(d[0].message, "unexpected character '$'")) << d[0].message;
}

TEST(DiagnosticRecovery, NonAsciiCharacterIsOneErrorCoveringTheWholeCharacter) {
  // U+03BB (two bytes) outside a comment or string.
  auto s = test::analyse(std::string(kCopy) + "\xce\xbb\n");
  auto d = test::withCode(*s, "E0101");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_TRUE(test::withCode(*s, "E0102").empty()) << "valid UTF-8 is not E0102";
  EXPECT_TRUE(contains(d[0].message, "non-ASCII character")) << d[0].message;
  EXPECT_TRUE(contains(d[0].message, "only comments and strings")) << d[0].message;
  if (test::rangeText(*s, d[0]) != "\xce\xbb")
    GTEST_SKIP() << "BUG: the range covers " << d[0].range.end - d[0].range.begin << " byte(s) ["
                 << d[0].range.begin << ", " << d[0].range.end
                 << "), part of the character; expected the whole two-byte character";
  EXPECT_EQ(test::rangeText(*s, d[0]), "\xce\xbb");
}

TEST(DiagnosticRecovery, NonAsciiTextInCommentsAndStringsIsFine) {
  auto s = test::analyse("// caf\xc3\xa9\n" + std::string(kCopy) +
                         "/* \xce\xbb */ instance x = k<4>;\n"
                         "target t { llvm triple \"\xc3\xa9\"; memory DRAM { size 1 GiB; } }\n");
  EXPECT_FALSE(s->diagnostics().hasErrors()) << render(*s);
}

TEST(DiagnosticRecovery, InvalidUtf8IsReportedOncePerFile) {
  auto s = test::analyse("// \xff\xfe\n" + std::string(kCopy) + "// \xc3\n");
  auto d = test::withCode(*s, "E0102");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(d[0].range.begin, 3u);
  EXPECT_EQ(d[0].range.end, 4u);
  EXPECT_EQ(errorCodes(*s), std::vector<std::string>{"E0102"}) << render(*s);
}

TEST(DiagnosticRecovery, TooManySyntaxErrorsStopsAtTheLimit) {
  auto s = test::analyse(repeat("kernel $\n", 60));
  // 49 syntax errors, then one E0105 (the limit is 50 diagnostics), nothing after it.
  EXPECT_EQ(test::withCode(*s, "E0101").size(), 49u);
  ASSERT_EQ(test::withCode(*s, "E0105").size(), 1u);
  EXPECT_EQ(s->diagnostics().all().back().code, "E0105");
  EXPECT_EQ(s->diagnostics().errorCount(), 50u);
}

TEST(DiagnosticRecovery, LimitsStopParsingWithOneError) {
  auto deep = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = " + repeat("(", 250) +
                            "A[i]" + repeat(")", 250) + "; }\n");
  EXPECT_EQ(errorCodes(*deep), std::vector<std::string>{"E0103"}) << render(*deep);
  EXPECT_TRUE(deep->mainFile()->kernels.empty());
  auto deepNeg = test::analyse(
      "kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = " + repeat("-", 300) + "A[i]; }\n");
  EXPECT_EQ(errorCodes(*deepNeg), std::vector<std::string>{"E0103"}) << render(*deepNeg);
  auto nested = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = " + repeat("(", 150) +
                              "A[i]" + repeat(")", 150) + "; }\n");
  EXPECT_FALSE(nested->diagnostics().hasErrors()) << "150 levels are within the limit";
  auto longStmt = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]" +
                                repeat(" + A[i]", 1000) + "; }\n");
  EXPECT_EQ(errorCodes(*longStmt), std::vector<std::string>{"E0104"}) << render(*longStmt);
}

// ---- one problem, one message (semantic stages) -------------------------------------------------

TEST(DiagnosticRecovery, AStridedAssignmentWritingAnElementTwiceGivesOnlyE0307) {
  auto s =
      test::analyse("kernel k<N>(A: f32[N, 3]) -> (B: f32[2 * N + 1]) { B[2 * i + j] = A[i, j]; }\n"
                    "instance k5 = k<5>;\n");
  auto d = test::withCode(*s, "E0307");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "2 * i + j");
  EXPECT_TRUE(contains(d[0].message, "both write element 2")) << d[0].message;
  EXPECT_EQ(errorCodes(*s), std::vector<std::string>{"E0307"});
}

TEST(DiagnosticRecovery, AShiftedWriteIsBoundsCheckedLikeARead) {
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i + 1] = A[i]; }\n"
                         "instance x = k<4>;\n");
  auto d = test::withCode(*s, "E0404");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "i + 1");
  EXPECT_TRUE(contains(d[0].message, "this index reaches 1..5 but dimension 1 of 'B' has size 4"))
      << d[0].message;
}

TEST(DiagnosticRecovery, StructuralErrorIsReportedOnceForManyInstances) {
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = Aa[i]; }\n"
                         "instance x = k<4>;\ninstance y = k<5>;\ninstance z = k<6>;\n");
  EXPECT_EQ(errorCodes(*s), std::vector<std::string>{"E0203"}) << render(*s);
  EXPECT_TRUE(s->instances({}).empty());
}

TEST(DiagnosticRecovery, SizeErrorNamesTheInstance) {
  auto s = test::analyse("kernel k<N, M>(A: f32[N], C: f32[M]) -> (B: f32[N]) { B[i] = A[i] + "
                         "C[i]; }\ninstance ok = k<4, 4>;\ninstance bad = k<4, 5>;\n");
  auto d = test::withCode(*s, "E0403");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  ASSERT_EQ(d[0].notes.size(), 1u);
  EXPECT_EQ(d[0].notes[0].message, "in instance 'bad'");
  EXPECT_EQ(test::rangeText(*s, Diagnostic{Severity::Note, "", d[0].notes[0].range, "", {}, {}}),
            "instance bad = k<4, 5>;");
  EXPECT_EQ(errorCodes(*s), std::vector<std::string>{"E0403"});
  // The good instance still lowers.
  auto ks = s->instances({"ok", "", {}});
  ASSERT_EQ(ks.size(), 1u);
}

TEST(DiagnosticRecovery, InstructionStatementErrorIsNotFollowedByNeverWritten) {
  auto s = test::analyse("target t { memory D { size 1 GiB; } memory S : D { size 1 MiB; } "
                         "move mv<R>(dst: out f32[R, 16] in S, src: in f32[R, 16] in D) "
                         "{ dst[r, c] = src[R, c]; } }");
  auto d = test::withCode(*s, "E0308");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "R");
  EXPECT_TRUE(contains(d[0].message, "instruction size parameter 'R' cannot appear in an index"));
  if (!test::withCode(*s, "E0509").empty())
    GTEST_SKIP() << "BUG: an instruction statement that fails to lower is followed by a spurious "
                    "E0509 'out operand is never written by the semantics':\n"
                 << render(*s);
  EXPECT_EQ(errorCodes(*s), std::vector<std::string>{"E0308"});
}

// ---- notes and fix-its -------------------------------------------------------------------------

TEST(DiagnosticDetails, DeclaredTwicePointsAtBothDeclarations) {
  auto s = test::analyse(std::string(kCopy) + kCopy);
  auto d = test::withCode(*s, "E0201");
  ASSERT_EQ(d.size(), 1u);
  std::string src = s->sources().text(d[0].range.file);
  size_t second = src.find("kernel k", 1) + 7;
  EXPECT_EQ(d[0].range.begin, second);
  ASSERT_EQ(d[0].notes.size(), 1u);
  EXPECT_EQ(d[0].notes[0].range.begin, 7u);
  EXPECT_EQ(d[0].notes[0].message, "the first declaration is here");
}

TEST(DiagnosticDetails, SizeAndTensorSharingANameIsDeclaredTwice) {
  // The weight tensor W collides with the width size parameter W.
  auto s = test::analyse(
      "kernel conv<N, K, C, H, W, R, S>(I: f32[N, C, H + R - 1, W + S - 1], W: f32[K, C, R, S])"
      " -> (O: f32[N, K, H, W]) {\n"
      "  O[n, k, h, w] += I[n, c, h + r, w + s] * W[k, c, r, s];\n"
      "}\n");
  auto d = test::withCode(*s, "E0201");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "W");
  EXPECT_TRUE(contains(d[0].message, "'W' is declared twice in this kernel"));
  EXPECT_EQ(errorCodes(*s), std::vector<std::string>{"E0201"}) << render(*s);
}

TEST(DiagnosticDetails, FixItsReplaceTheMisspelling) {
  auto s = test::analyse(std::string(kCopy) + "instance x = kk<4>;\n");
  auto d = test::withCode(*s, "E0202");
  ASSERT_EQ(d.size(), 1u);
  ASSERT_EQ(d[0].fixits.size(), 1u);
  EXPECT_EQ(d[0].fixits[0].replacement, "k");
  EXPECT_EQ(d[0].fixits[0].range.begin, d[0].range.begin);
  EXPECT_EQ(d[0].fixits[0].range.end, d[0].range.end);

  auto t = test::analyse("target t { memory DRAM { sise 1 GiB; } }");
  auto p = test::withCode(*t, "E0502");
  ASSERT_EQ(p.size(), 1u);
  ASSERT_EQ(p[0].fixits.size(), 1u);
  EXPECT_EQ(p[0].fixits[0].replacement, "size");
}

// A fix-it never changes what a program means: which reduction a `=` meant, or which function
// an unknown name meant, is said in the message and left to the author.
TEST(DiagnosticDetails, NoFixItChoosesAReductionOrAFunction) {
  auto s = test::analyse("kernel k<N>(A: f32[N, N]) -> (B: f32[N]) { B[i] = A[i, j]; }\n");
  auto d = test::withCode(*s, "E0305");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(d[0].fixits.empty());
  EXPECT_TRUE(contains(d[0].message, "say how: '+=' (sum), '*=' (product), 'max=' or 'min='"));

  auto f = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = sinh(A[i]); }\n");
  auto e = test::withCode(*f, "E0204");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_TRUE(e[0].fixits.empty());
  EXPECT_EQ(e[0].message, "unknown function 'sinh'; did you mean 'sin'?");
}

TEST(DiagnosticDetails, UnknownParentDoesNotSuggestTheMemoryItself) {
  auto s =
      test::analyse("target t { memory DRAM { size 1 GiB; } memory L1 : L2 { size 32 KiB; } }");
  auto d = test::withCode(*s, "E0504");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(test::rangeText(*s, d[0]), "L2");
  EXPECT_TRUE(contains(d[0].message, "unknown parent memory 'L2'"));
  if (contains(d[0].message, "did you mean 'L1'"))
    GTEST_SKIP() << "BUG: '" << d[0].message
                 << "' suggests making L1 its own parent (a cycle); the fix-it would create E0505";
  for (const auto &f : d[0].fixits)
    EXPECT_NE(f.replacement, "L1");
}

TEST(DiagnosticDetails, UnitDeclaredTwice) {
  auto s = test::analyse("target t { memory M { size 1 GiB; } unit u { } unit u { count 2; } }");
  auto d = test::withCode(*s, "E0201");
  if (d.empty())
    GTEST_SKIP() << "BUG: a second `unit u` is accepted silently (instructions `on u` bind to the "
                    "last one); expected E0201 on the second 'u'";
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(d[0].range.begin, s->sources().text(d[0].range.file).rfind("u {"));
}

TEST(DiagnosticDetails, LlvmFieldGivenTwice) {
  auto s = test::analyse("target t { llvm triple \"a\" triple \"b\"; memory M { size 1 GiB; } }");
  auto d = test::withCode(*s, "E0201");
  if (d.empty())
    GTEST_SKIP() << "BUG: `llvm triple \"a\" triple \"b\"` is accepted silently (the last wins); "
                    "expected E0201 \"'triple' is given twice\" as for properties";
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "triple");
}

TEST(DiagnosticDetails, IndexGivenTwoWhereRanges) {
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i] where i in 0..2, "
                         "i in 0..3; }\ninstance x = k<4>;\n");
  if (!s->diagnostics().hasErrors())
    GTEST_SKIP() << "BUG: `where i in 0..2, i in 0..3` is accepted silently (the last range "
                    "wins); expected E0201 on the second 'i'";
  auto d = test::withCode(*s, "E0201");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "i");
}

TEST(DiagnosticRecovery, DuplicateMemoryIsNotAlsoACycle) {
  // The second M is rejected as a duplicate; its `: M` must not make the first M its own parent.
  auto s = test::analyse(
      "target t { memory M { size 1 GiB; } registers M : M { count 1; width 4 B; } }");
  auto d = test::withCode(*s, "E0201");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(d[0].message, "memory 'M' is declared twice");
  if (!test::withCode(*s, "E0505").empty())
    GTEST_SKIP() << "BUG: the rejected duplicate's parent is still applied to the first 'M', "
                    "giving a spurious E0505 'memory M is its own ancestor':\n"
                 << render(*s);
  EXPECT_EQ(errorCodes(*s), std::vector<std::string>{"E0201"});
}

// ---- selections and files ----------------------------------------------------------------------

TEST(DiagnosticSelection, UnknownSizeParameterAndInstance) {
  auto s = test::analyse(std::string(kCopy) + "instance x = k<4>;\n");
  EXPECT_FALSE(s->diagnostics().hasErrors());
  EXPECT_TRUE(s->instances({"", "k", {{"N", 4}, {"M", 3}}}).empty());
  auto d = test::withCode(*s, "E0409");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message, "kernel 'k' has no size parameter 'M'");
  EXPECT_FALSE(d[0].range.valid());

  auto t = test::analyse(std::string(kCopy) + "instance xx = k<4>;\n");
  EXPECT_TRUE(t->instances({"xy", "", {}}).empty());
  auto e = test::withCode(*t, "E0202");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].message, "no instance named 'xy'; did you mean 'xx'?");

  auto u = test::analyse(kCopy);
  EXPECT_TRUE(u->instances({"", "kk", {{"N", 4}}}).empty());
  ASSERT_EQ(test::withCode(*u, "E0202").size(), 1u);
  EXPECT_EQ(test::withCode(*u, "E0202")[0].message, "no kernel named 'kk'");
}

TEST(DiagnosticFiles, MissingMainFileIsE0603) {
  TempDir dir;
  Session s;
  EXPECT_FALSE(s.loadFile(dir.path() + "/absent.isam"));
  auto d = test::withCode(s, "E0603");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(contains(d[0].message, "absent.isam': no such file")) << d[0].message;
  EXPECT_TRUE(s.diagnostics().hasErrors());
}

TEST(DiagnosticFiles, UnreadableImportIsE0603) {
  if (geteuid() == 0)
    GTEST_SKIP() << "running as root: a mode-000 file is still readable";
  TempDir dir;
  std::string locked = dir.write("locked.isam", kCopy);
  ASSERT_EQ(chmod(locked.c_str(), 0), 0);
  std::string main = dir.write("main.isam", "import \"locked.isam\";\n");
  Session s;
  ASSERT_TRUE(s.loadFile(main));
  auto d = test::withCode(s, "E0603");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(test::rangeText(s, d[0]), "\"locked.isam\"");
  EXPECT_TRUE(contains(d[0].message, "cannot read")) << d[0].message;
}

TEST(DiagnosticFiles, ImportCycleNotesTheChainAndLoadsEachFileOnce) {
  TempDir dir;
  dir.write("b.isam", "import \"c.isam\";\n");
  dir.write("c.isam", "import \"a.isam\";\n");
  std::string a = dir.write("a.isam", "import \"b.isam\";\n" + std::string(kCopy));
  Session s;
  ASSERT_TRUE(s.loadFile(a));
  s.checkAll();
  auto d = test::withCode(s, "E0602");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(contains(s.sources().path(d[0].range.file), "c.isam"));
  EXPECT_EQ(test::rangeText(s, d[0]), "\"a.isam\"");
  EXPECT_EQ(d[0].notes.size(), 3u); // a, b, c
  EXPECT_EQ(s.files().size(), 3u);
  EXPECT_EQ(errorCodes(s), std::vector<std::string>{"E0602"});
}

TEST(DiagnosticFiles, ImportFoundNextToTheImporterIsNotAnError) {
  TempDir dir;
  dir.write("lib.isam", kCopy);
  std::string main = dir.write("main.isam", "import \"lib.isam\";\ninstance x = k<4>;\n");
  Session s;
  ASSERT_TRUE(s.loadFile(main));
  s.checkAll();
  EXPECT_FALSE(s.diagnostics().hasErrors()) << render(s);
  EXPECT_EQ(s.instances({}).size(), 1u);
}

TEST(DiagnosticFiles, ImportNotFoundListsWhereItLooked) {
  TempDir dir;
  std::string main = dir.write("main.isam", "import \"isamap_absent_9.isam\";\n");
  Session s;
  ASSERT_TRUE(s.loadFile(main));
  auto d = test::withCode(s, "E0601");
  ASSERT_EQ(d.size(), 1u);
  ASSERT_FALSE(d[0].notes.empty());
  EXPECT_TRUE(contains(d[0].notes[0].message, dir.path() + "/isamap_absent_9.isam"))
      << d[0].notes[0].message;
}

} // namespace
