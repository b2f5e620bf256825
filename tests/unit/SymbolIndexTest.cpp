#include "index/SymbolIndex.h"
#include "support/TestSupport.h"
#include "syntax/Parser.h"
#include "syntax/Tokens.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <memory>
#include <set>

using namespace isam;
using namespace isam::index;

namespace {

// Texts parsed as files f0.isam, f1.isam, ... and indexed together.
struct Indexed {
  SourceManager sm;
  DiagnosticSink diags;
  std::vector<ast::File> files;
  SymbolIndex index;

  explicit Indexed(const std::vector<std::string> &texts) {
    for (size_t i = 0; i < texts.size(); ++i) {
      std::string name = "f";
      name += std::to_string(i);
      name += ".isam";
      files.push_back(parseFile(sm.addFile(name, texts[i]), sm, diags));
    }
    std::vector<const ast::File *> all;
    for (const auto &f : files)
      all.push_back(&f);
    index = SymbolIndex::build(all);
  }

  FileId id(size_t f) const { return files[f].id; }
  // The offset of the nth (from 0) `needle` in file f.
  uint32_t pos(std::string_view needle, int nth = 0, size_t f = 0) const {
    const std::string &t = sm.text(id(f));
    size_t p = t.find(needle);
    for (int i = 0; i < nth && p != std::string::npos; ++i)
      p = t.find(needle, p + 1);
    EXPECT_NE(p, std::string::npos) << "no " << nth << "th '" << needle << "'";
    return p == std::string::npos ? 0 : uint32_t(p);
  }
  const Occurrence *at(std::string_view needle, int nth = 0, size_t f = 0) const {
    return index.at(id(f), pos(needle, nth, f));
  }
  // The symbol named at the start of the nth `needle`, or -1.
  int sym(std::string_view needle, int nth = 0, size_t f = 0) const {
    const Occurrence *o = at(needle, nth, f);
    return o && o->kind == OccurrenceKind::Symbol ? o->symbol : -1;
  }
  OccurrenceKind kind(std::string_view needle, int nth = 0, size_t f = 0) const {
    const Occurrence *o = at(needle, nth, f);
    EXPECT_NE(o, nullptr) << "no occurrence at '" << needle << "'";
    return o ? o->kind : OccurrenceKind::Unresolved;
  }
  // The nth symbol of this kind and name, or -1.
  int find(SymbolKind k, std::string_view name, int nth = 0) const {
    const auto &s = index.symbols();
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i].kind == k && s[i].name == name && nth-- == 0)
        return int(i);
    return -1;
  }
  const Symbol &symbol(int s) const { return index.symbols().at(size_t(s)); }
  std::string text(SourceRange r) const { return sm.text(r.file).substr(r.begin, r.end - r.begin); }
  std::vector<std::string> names(const std::vector<int> &symbols) const {
    std::vector<std::string> out;
    for (int s : symbols)
      out.push_back(symbol(s).name);
    return out;
  }
};

const char *kGemm = R"(kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
}
instance gemm_small = gemm<7, 5, 13>;
)";

const char *kTarget = R"(target acc16 {
  llvm triple "x86_64-unknown-linux-gnu" cpu "znver4";
  clock 1 GHz;
  memory DRAM { size 4 GiB; bandwidth 32 B/cycle; }
  memory SPAD : DRAM { size 256 KiB; }
  memory ACC : SPAD { size 64 KiB; }
  registers VR : SPAD { count 32; width 64 B; }
  unit dma { count 1; }
  move mvin<R>(dst: out f32[R, 16] in SPAD, src: f32[R, 16] in DRAM) on dma {
    dst[i, j] = src[i, j];
  } cost { latency 100; bandwidth 16 B/cycle; } asm "mvin {dst}, {src}, {R}";
  instr mma(acc: inout f32[16, 16] in ACC, a: f32[16, 16] in SPAD, b: f32[16, 16] in SPAD) {
    acc[i, j] += a[i, k] * b[k, j];
  } cost { latency 48; per_cycle 1/16; } asm "matmul {acc}, {a}, {b}";
}
)";

TEST(SymbolIndex, KernelParametersAndTensors) {
  Indexed x({kGemm});
  int gemm = x.find(SymbolKind::Kernel, "gemm");
  ASSERT_GE(gemm, 0);
  EXPECT_EQ(x.symbol(gemm).detail, "<M, N, K>(A, B) -> (C)");
  EXPECT_EQ(x.text(x.symbol(gemm).nameRange), "gemm");
  EXPECT_EQ(x.symbol(gemm).fullRange.begin, 0u);
  EXPECT_EQ(x.text(x.symbol(gemm).fullRange).back(), '}');

  int a = x.find(SymbolKind::Tensor, "A"), c = x.find(SymbolKind::Tensor, "C");
  ASSERT_GE(a, 0);
  ASSERT_GE(c, 0);
  EXPECT_EQ(x.symbol(a).detail, "f32[M, K]");
  EXPECT_EQ(x.symbol(a).parent, gemm);
  EXPECT_EQ(x.text(x.symbol(a).fullRange), "A: f32[M, K]");
  EXPECT_FALSE(x.symbol(a).isOutput);
  EXPECT_TRUE(x.symbol(c).isOutput);
  EXPECT_EQ(x.sym("A[m"), a);
  EXPECT_EQ(x.sym("C[m"), c);

  // Size parameters: declared in <...>, used in shapes.
  int m = x.find(SymbolKind::SizeParam, "M");
  EXPECT_EQ(x.sym("M, N, K>"), m);
  EXPECT_EQ(x.sym("M, K]"), m);
  EXPECT_EQ(x.sym("M, N]"), m);
  EXPECT_EQ(x.symbol(m).parent, gemm);
  EXPECT_EQ(x.kind("f32[M, K]"), OccurrenceKind::ElemType);

  auto refs = x.index.references(a);
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_TRUE(refs[0].isDeclaration);
  EXPECT_EQ(refs[0].range.begin, x.pos("A: f32"));
  EXPECT_EQ(refs[1].range.begin, x.pos("A[m"));
  EXPECT_FALSE(refs[1].isDeclaration);
  EXPECT_EQ(x.index.references(m).size(), 3u);
}

TEST(SymbolIndex, IndicesBelongToTheirStatement) {
  Indexed x({R"(kernel k<N>(A: f32[N], B: f32[N, N]) -> (C: f32[N], D: f32[N], S: f32) {
  C[i] = A[i];
  D[i] += B[i, j] * A[j];
  S += A[i];
}
)"});
  int i1 = x.sym("i] = A"), i2 = x.sym("i] += B"), i3 = x.sym("i];\n}");
  ASSERT_GE(i1, 0);
  ASSERT_GE(i2, 0);
  ASSERT_GE(i3, 0);
  EXPECT_NE(i1, i2);
  EXPECT_NE(i2, i3);
  EXPECT_EQ(x.symbol(i1).kind, SymbolKind::Index);
  EXPECT_EQ(x.sym("i]", 1), i1); // A[i] in the first statement
  EXPECT_EQ(x.sym("i, j]"), i2);
  // Declared by the first occurrence; the full range is the statement.
  EXPECT_EQ(x.symbol(i2).nameRange.begin, x.pos("i] += B"));
  EXPECT_EQ(x.text(x.symbol(i2).fullRange), "D[i] += B[i, j] * A[j];");
  EXPECT_EQ(x.index.references(i2).size(), 2u);
  // j appears only on the right: a reduction; a scalar's index always is.
  int j = x.sym("j] * A");
  EXPECT_EQ(x.sym("j];"), j);
  EXPECT_EQ(x.symbol(j).detail, "reduction index");
  EXPECT_EQ(x.symbol(i2).detail, "index");
  EXPECT_EQ(x.symbol(i3).detail, "reduction index");
  EXPECT_EQ(x.sym("S +="), x.find(SymbolKind::Tensor, "S"));
  // Indices are children of their kernel.
  int k = x.find(SymbolKind::Kernel, "k");
  EXPECT_EQ(x.symbol(j).parent, k);
}

TEST(SymbolIndex, WhereDeclaresTheIndexAndSizesInIndicesAreSizes) {
  Indexed x({R"(kernel pool<N, H>(I: f32[N, 2 * H]) -> (O: f32[N, H], G: f32[N, H]) {
  O[n, h] max= I[n, 2 * h + r] where r in 0..2;
  G[b, h] = O[b, H - 1 - h] where b in 0..N;
}
)"});
  int r = x.sym("r in");
  ASSERT_GE(r, 0);
  EXPECT_EQ(x.symbol(r).nameRange.begin, x.pos("r in")); // the where, not the first use
  EXPECT_EQ(x.sym("r]"), r);
  EXPECT_EQ(x.symbol(r).detail, "reduction index in 0..2");
  auto refs = x.index.references(r);
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0].range.begin, x.pos("r in"));
  int b = x.sym("b in");
  EXPECT_EQ(x.sym("b, h] ="), b);
  EXPECT_EQ(x.symbol(b).detail, "index in 0..N");
  EXPECT_EQ(x.sym("N;"), x.find(SymbolKind::SizeParam, "N"));
  // A size parameter in an index expression is a size, not an index.
  EXPECT_EQ(x.sym("H - 1"), x.find(SymbolKind::SizeParam, "H"));
  EXPECT_EQ(x.at("max="), nullptr); // an operator, not a name
}

TEST(SymbolIndex, ImplicitAndExplicitLocals) {
  Indexed x({R"(kernel dw<C, H>(I: f32[C, H], P: f32[C]) -> (O: f32[C]) {
  local L: f32[C];
  X[c] = U[c];
  T[c] += I[c, h];
  L[c] = T[c] * P[c];
  O[c] = L[c];
}
)"});
  int t = x.find(SymbolKind::Tensor, "T");
  ASSERT_GE(t, 0);
  EXPECT_EQ(x.symbol(t).detail, "implicit local");
  EXPECT_EQ(x.symbol(t).nameRange.begin, x.pos("T[c] +="));
  EXPECT_EQ(x.text(x.symbol(t).fullRange), "T[c] += I[c, h];");
  EXPECT_EQ(x.sym("T[c] *"), t);
  int l = x.find(SymbolKind::Tensor, "L");
  EXPECT_EQ(x.symbol(l).detail, "local f32[C]");
  EXPECT_EQ(x.sym("L[c] ="), l);
  EXPECT_EQ(x.sym("L[c];"), l);
  // An unknown read is unresolved (sema: unknown tensor); the write beside it declares X.
  EXPECT_EQ(x.kind("U[c]"), OccurrenceKind::Unresolved);
  EXPECT_GE(x.find(SymbolKind::Tensor, "X"), 0);
}

TEST(SymbolIndex, FunctionsConversionsAndUnknownNames) {
  Indexed x({R"(kernel f<D>(A: bf16[D]) -> (B: f32[D], C: f32[D], E: f32[D]) {
  B[d] = exp(f32(A[d])) / sqrt(D);
  C[d] = max(B[d], 0.0) + foo(B[d]);
  E[d] = B[d] * q + d;
}
)"});
  EXPECT_EQ(x.kind("exp("), OccurrenceKind::Function);
  EXPECT_EQ(x.kind("f32(A"), OccurrenceKind::ElemType);
  EXPECT_EQ(x.kind("bf16["), OccurrenceKind::ElemType);
  EXPECT_EQ(x.kind("max("), OccurrenceKind::Function);
  EXPECT_EQ(x.kind("foo("), OccurrenceKind::Unresolved);
  EXPECT_EQ(x.sym("D);"), x.find(SymbolKind::SizeParam, "D"));
  EXPECT_EQ(x.kind("q +"), OccurrenceKind::Unresolved);
  // An index used as a value is an error, but it still names the index.
  EXPECT_EQ(x.sym("d;"), x.sym("d] = B[d] * q"));
}

TEST(SymbolIndex, InstancesResolveKernelsAcrossFiles) {
  Indexed x({kGemm, "instance big = gemm<1024, 2 * 512, 64 + 1>;\ninstance bad = gemx<1>;\n"
                    "instance odd = gemm<X>;\n"});
  int gemm = x.find(SymbolKind::Kernel, "gemm");
  int big = x.find(SymbolKind::Instance, "big");
  ASSERT_GE(big, 0);
  EXPECT_EQ(x.symbol(big).detail, "gemm<1024, 2 * 512, 64 + 1>");
  EXPECT_EQ(x.symbol(big).nameRange.file, x.id(1));
  EXPECT_EQ(x.sym("gemm<1024", 0, 1), gemm);
  EXPECT_EQ(x.kind("gemx", 0, 1), OccurrenceKind::Unresolved);
  EXPECT_EQ(x.kind("X>", 0, 1), OccurrenceKind::Unresolved);
  EXPECT_EQ(x.symbol(x.find(SymbolKind::Instance, "gemm_small")).detail, "gemm<7, 5, 13>");

  auto refs = x.index.references(gemm);
  ASSERT_EQ(refs.size(), 4u); // the declaration, gemm_small's, big's and odd's
  EXPECT_TRUE(refs[0].isDeclaration);
  EXPECT_EQ(refs[0].range.file, x.id(0));
  EXPECT_EQ(refs[1].range.file, x.id(0));
  EXPECT_EQ(refs[2].range.file, x.id(1));
  EXPECT_EQ(refs[3].range.file, x.id(1));
}

TEST(SymbolIndex, TopLevelNamesResolveThroughImports) {
  std::string dir = test::tempFile("symbolindex", "lib.isam", kGemm);
  auto s = test::analyse("import \"" + dir + "\";\ninstance mine = gemm<2, 3, 4>;\n");
  auto files = s->files();
  ASSERT_EQ(files.size(), 2u);
  SymbolIndex index = SymbolIndex::build(files);
  const std::string &text = s->sources().text(files[0]->id);
  const Occurrence *o = index.at(files[0]->id, uint32_t(text.find("gemm<")));
  ASSERT_NE(o, nullptr);
  ASSERT_EQ(o->kind, OccurrenceKind::Symbol);
  const Symbol &k = index.symbols()[size_t(o->symbol)];
  EXPECT_EQ(k.kind, SymbolKind::Kernel);
  EXPECT_EQ(k.nameRange.file, files[1]->id);
}

TEST(SymbolIndex, TargetsMemoriesUnitsAndProperties) {
  Indexed x({kTarget});
  int t = x.find(SymbolKind::Target, "acc16");
  ASSERT_GE(t, 0);
  EXPECT_EQ(x.symbol(t).detail, "x86_64-unknown-linux-gnu");
  int dram = x.find(SymbolKind::Memory, "DRAM"), spad = x.find(SymbolKind::Memory, "SPAD");
  int vr = x.find(SymbolKind::Registers, "VR"), dma = x.find(SymbolKind::Unit, "dma");
  ASSERT_GE(vr, 0);
  EXPECT_EQ(x.symbol(spad).parent, t);
  EXPECT_EQ(x.symbol(spad).detail, "DRAM");
  EXPECT_EQ(x.symbol(dram).detail, "");
  EXPECT_EQ(x.symbol(vr).detail, "SPAD");
  EXPECT_EQ(x.text(x.symbol(vr).fullRange), "registers VR : SPAD { count 32; width 64 B; }");
  EXPECT_EQ(x.sym("DRAM {", 1), dram); // SPAD's parent
  EXPECT_EQ(x.sym("SPAD {"), spad);    // ACC's parent
  EXPECT_EQ(x.sym("SPAD { count"), spad);
  EXPECT_EQ(x.sym("dma {", 1), dma); // `on dma`

  EXPECT_EQ(x.kind("triple"), OccurrenceKind::LlvmKey);
  EXPECT_EQ(x.kind("cpu"), OccurrenceKind::LlvmKey);
  EXPECT_EQ(x.kind("clock"), OccurrenceKind::PropertyKey);
  EXPECT_EQ(x.kind("GHz"), OccurrenceKind::UnitOfMeasure);
  EXPECT_EQ(x.kind("size 4"), OccurrenceKind::PropertyKey);
  EXPECT_EQ(x.kind("GiB"), OccurrenceKind::UnitOfMeasure);
  EXPECT_EQ(x.kind("count 32"), OccurrenceKind::PropertyKey);
  EXPECT_EQ(x.kind("per_cycle"), OccurrenceKind::PropertyKey);
  // `B/cycle` is two words.
  const Occurrence *b = x.at("B/cycle"), *cycle = x.at("cycle;");
  ASSERT_NE(b, nullptr);
  ASSERT_NE(cycle, nullptr);
  EXPECT_EQ(x.text(b->range), "B");
  EXPECT_EQ(x.text(cycle->range), "cycle");
  EXPECT_EQ(cycle->kind, OccurrenceKind::UnitOfMeasure);
  EXPECT_EQ(x.at("/cycle"), b); // just after B

  // Outlines: the target's children in source order.
  EXPECT_EQ(x.names(x.index.children(t)),
            (std::vector<std::string>{"DRAM", "SPAD", "ACC", "VR", "dma", "mvin", "mma"}));
  EXPECT_EQ(x.names(x.index.topLevel(x.id(0))), std::vector<std::string>{"acc16"});
}

TEST(SymbolIndex, InstructionsOperandsAndBodies) {
  Indexed x({kTarget});
  int mvin = x.find(SymbolKind::Move, "mvin"), mma = x.find(SymbolKind::Instruction, "mma");
  ASSERT_GE(mvin, 0);
  ASSERT_GE(mma, 0);
  EXPECT_EQ(x.symbol(mvin).detail, "<R>(dst, src) on dma");
  EXPECT_EQ(x.symbol(mma).detail, "(acc, a, b)");
  int dst = x.find(SymbolKind::Operand, "dst"), acc = x.find(SymbolKind::Operand, "acc");
  int a = x.find(SymbolKind::Operand, "a");
  ASSERT_GE(dst, 0);
  EXPECT_EQ(x.symbol(dst).detail, "out f32[R, 16] in SPAD");
  EXPECT_EQ(x.symbol(acc).detail, "inout f32[16, 16] in ACC");
  EXPECT_EQ(x.symbol(a).detail, "f32[16, 16] in SPAD");
  EXPECT_TRUE(x.symbol(dst).isOutput);
  EXPECT_TRUE(x.symbol(acc).isOutput);
  EXPECT_FALSE(x.symbol(a).isOutput);
  EXPECT_EQ(x.symbol(dst).parent, mvin);

  int r = x.find(SymbolKind::SizeParam, "R");
  EXPECT_EQ(x.symbol(r).parent, mvin);
  EXPECT_EQ(x.sym("R, 16] in SPAD"), r);
  EXPECT_EQ(x.sym("SPAD, src"), x.find(SymbolKind::Memory, "SPAD"));
  EXPECT_EQ(x.sym("ACC, a:"), x.find(SymbolKind::Memory, "ACC"));
  // The body: operands and statement-scoped indices.
  EXPECT_EQ(x.sym("dst[i, j]"), dst);
  EXPECT_EQ(x.sym("acc[i, j]"), acc);
  EXPECT_EQ(x.sym("a[i, k]"), a);
  int i1 = x.sym("i, j] = src"), i2 = x.sym("i, j] +=");
  EXPECT_NE(i1, i2);
  EXPECT_EQ(x.symbol(i2).parent, mma);
  EXPECT_EQ(x.sym("k] *"), x.sym("k, j];"));
  EXPECT_EQ(x.symbol(x.sym("k] *")).detail, "reduction index");
  // asm placeholders name operands and size parameters (rename must change them).
  EXPECT_EQ(x.sym("dst}"), dst);
  EXPECT_EQ(x.sym("R}"), r);
  EXPECT_EQ(x.sym("acc}"), acc);
  EXPECT_EQ(x.index.references(dst).size(), 3u);
  EXPECT_EQ(x.names(x.index.children(mma)),
            (std::vector<std::string>{"acc", "a", "b", "i", "j", "k"}));
}

TEST(SymbolIndex, UnknownHardwareNamesAreUnresolved) {
  Indexed x({R"(target t {
  llvm tripel "x";
  memory M { size 1 KiB; sise 2; bandwidth 4 B/cycel; }
  registers V : Q { count 2; width 8 B; }
  instr f(d: out f32[4] in N, s: f32[4] in M) on u {
    d[i] = s[i] + x[i];
  } asm "f {d}, {s}, {nope}, {{lit}}, \"{s}\"";
}
)"});
  EXPECT_EQ(x.kind("tripel"), OccurrenceKind::Unresolved);
  EXPECT_EQ(x.kind("sise"), OccurrenceKind::Unresolved);
  EXPECT_EQ(x.kind("B/cycel"), OccurrenceKind::UnitOfMeasure);
  EXPECT_EQ(x.kind("cycel"), OccurrenceKind::Unresolved);
  EXPECT_EQ(x.kind("Q {"), OccurrenceKind::Unresolved);
  EXPECT_EQ(x.kind("N, s"), OccurrenceKind::Unresolved);
  EXPECT_EQ(x.kind("u {"), OccurrenceKind::Unresolved);
  EXPECT_EQ(x.kind("x[i]"), OccurrenceKind::Unresolved);
  // An escape in the template makes its offsets unknown: placeholders are not indexed.
  EXPECT_EQ(x.at("d},"), nullptr);
}

TEST(SymbolIndex, Systems) {
  Indexed x({kTarget, R"(target cpu { memory DRAM { size 1 GiB; } }
system soc {
  host cpu;
  device acc16;
  shared cpu.DRAM, acc16.DRAM;
  link cpu.DRAM -> acc16.SPAD { bandwidth 8 B/cycle; latency 10; }
}
system other { host soc; device nothing; shared cpu.SPAD, acc16.DRAM; }
)"});
  int acc16 = x.find(SymbolKind::Target, "acc16"), cpu = x.find(SymbolKind::Target, "cpu");
  int soc = x.find(SymbolKind::System, "soc");
  ASSERT_GE(soc, 0);
  EXPECT_EQ(x.symbol(soc).detail, "host cpu, device acc16");
  EXPECT_EQ(x.sym("cpu;", 0, 1), cpu);
  EXPECT_EQ(x.sym("acc16;", 0, 1), acc16);
  EXPECT_EQ(x.sym("cpu.DRAM", 0, 1), cpu);
  EXPECT_EQ(x.sym("DRAM, acc16", 0, 1), x.find(SymbolKind::Memory, "DRAM", 1));
  EXPECT_EQ(x.sym("DRAM;", 0, 1), x.find(SymbolKind::Memory, "DRAM", 0)); // acc16's
  EXPECT_EQ(x.sym("SPAD {", 0, 1), x.find(SymbolKind::Memory, "SPAD"));
  EXPECT_EQ(x.kind("bandwidth", 0, 1), OccurrenceKind::PropertyKey);
  EXPECT_EQ(x.kind("latency", 0, 1), OccurrenceKind::PropertyKey);
  // A system is not a target; unknown targets and memories are unresolved.
  EXPECT_EQ(x.kind("soc;", 0, 1), OccurrenceKind::Unresolved);
  EXPECT_EQ(x.kind("nothing", 0, 1), OccurrenceKind::Unresolved);
  EXPECT_EQ(x.sym("cpu.SPAD", 0, 1), cpu);
  EXPECT_EQ(x.kind("SPAD, acc16", 0, 1), OccurrenceKind::Unresolved);
  // Targets and systems across files.
  EXPECT_EQ(x.index.references(acc16).size(), 5u);
  EXPECT_EQ(x.names(x.index.topLevel(x.id(1))), (std::vector<std::string>{"cpu", "soc", "other"}));
}

TEST(SymbolIndex, ScheduleBlocks) {
  Indexed x({kTarget, R"(target cpu {
  memory DRAM { size 1 GiB; }
  memory ACC : DRAM { size 1 MiB; }
  memory L1 : DRAM { size 32 KiB; }
  registers ZMM : L1 { count 32; width 64 B; }
  instr fma16(acc: inout f32[16] in ZMM, a: f32[16] in ZMM, b: f32 in ZMM) { acc[i] += a[i] * b; }
}
kernel g<M, N>(A: f32[M, N]) -> (C: f32[M, N], D: f32[M, N]) {
  schedule { parallel: m; }
  C[m, n] = A[m, n];
  schedule { map mma; tile ACC: m 32, n 16; order L1: n, m; parallel: m; sched x; }
  D[m, n] = C[m, n];
  schedule { map fma16; tile ACC: n 64; tile L9: n 4; map nope; }
}
)"});
  int c1m = x.sym("m, n] = A", 0, 1), d2m = x.sym("m, n] = C", 0, 1);
  ASSERT_GE(c1m, 0);
  EXPECT_NE(c1m, d2m);
  // The first block follows no statement: its names are unresolved.
  EXPECT_EQ(x.kind("parallel: m; }", 0, 1), OccurrenceKind::ScheduleKey);
  EXPECT_EQ(x.kind("m; }", 0, 1), OccurrenceKind::Unresolved);
  // The second pins the first statement.
  EXPECT_EQ(x.kind("map mma", 0, 1), OccurrenceKind::ScheduleKey);
  EXPECT_EQ(x.sym("mma;", 0, 1), x.find(SymbolKind::Instruction, "mma"));
  EXPECT_EQ(x.kind("tile ACC", 0, 1), OccurrenceKind::ScheduleKey);
  // ACC is in both targets: the one declaring `map`'s instruction wins.
  int accMma = x.find(SymbolKind::Memory, "ACC", 0), accCpu = x.find(SymbolKind::Memory, "ACC", 1);
  EXPECT_EQ(x.symbol(accMma).parent, x.find(SymbolKind::Target, "acc16"));
  EXPECT_EQ(x.sym("ACC: m", 0, 1), accMma);
  EXPECT_EQ(x.sym("ACC: n", 0, 1), accCpu);
  EXPECT_EQ(x.sym("m 32", 0, 1), c1m);
  EXPECT_EQ(x.sym("n 16", 0, 1), x.sym("n] = A", 0, 1));
  EXPECT_EQ(x.sym("L1: n", 0, 1), x.find(SymbolKind::Memory, "L1"));
  EXPECT_EQ(x.sym("m; sched", 0, 1), c1m);
  EXPECT_EQ(x.kind("sched x", 0, 1), OccurrenceKind::Unresolved);
  // The third pins the second statement.
  EXPECT_EQ(x.sym("fma16;", 0, 1), x.find(SymbolKind::Instruction, "fma16"));
  EXPECT_EQ(x.sym("n 64", 0, 1), x.sym("n] = C", 0, 1));
  EXPECT_EQ(x.kind("L9", 0, 1), OccurrenceKind::Unresolved);
  EXPECT_EQ(x.kind("nope", 0, 1), OccurrenceKind::Unresolved);
  EXPECT_EQ(x.index.references(c1m).size(), 5u); // C[m, A[m and the second block's three
}

TEST(SymbolIndex, ScheduleLevelsInAnImportedShippedTarget) {
  auto s = test::analyse(R"(import "systolic16.isam";
kernel g<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
  schedule { map mma; tile ACC: m 32, n 32; order SPAD: k, m, n; }
}
)");
  SymbolIndex index = SymbolIndex::build(s->files());
  FileId main = s->files()[0]->id;
  const std::string &text = s->sources().text(main);
  for (const char *needle : {"mma;", "ACC:", "SPAD:", "k, m, n"}) {
    const Occurrence *o = index.at(main, uint32_t(text.find(needle)));
    ASSERT_NE(o, nullptr) << needle;
    EXPECT_EQ(o->kind, OccurrenceKind::Symbol) << needle;
  }
}

TEST(SymbolIndex, AtBoundaries) {
  Indexed x({kGemm});
  uint32_t begin = x.pos("gemm<M"), end = begin + 4;
  int gemm = x.find(SymbolKind::Kernel, "gemm");
  ASSERT_NE(x.index.at(x.id(0), begin), nullptr);
  EXPECT_EQ(x.index.at(x.id(0), begin)->symbol, gemm);
  EXPECT_TRUE(x.index.at(x.id(0), begin)->isDeclaration);
  EXPECT_EQ(x.index.at(x.id(0), begin + 2)->symbol, gemm);
  EXPECT_EQ(x.index.at(x.id(0), end)->symbol, gemm);  // just after the name
  EXPECT_EQ(x.index.at(x.id(0), begin - 1), nullptr); // the space before
  EXPECT_EQ(x.index.at(x.id(0), 0), nullptr);         // `kernel` is a keyword
  // `A[m`: the cursor between `A` and `[` is A's; one past `[` is m's.
  uint32_t a = x.pos("A[m");
  EXPECT_EQ(x.index.at(x.id(0), a + 1)->symbol, x.find(SymbolKind::Tensor, "A"));
  EXPECT_EQ(x.index.at(x.id(0), a + 2)->symbol, x.sym("m, k]"));
  EXPECT_EQ(x.index.at(x.id(0), uint32_t(x.sm.text(x.id(0)).size()) + 10), nullptr);
  EXPECT_EQ(x.index.at(FileId(77), begin), nullptr);
  EXPECT_TRUE(x.index.occurrences(FileId(77)).empty());
  // Sorted by begin, no overlaps.
  const auto &occ = x.index.occurrences(x.id(0));
  for (size_t i = 1; i < occ.size(); ++i)
    EXPECT_LT(occ[i - 1].range.end, occ[i].range.begin + 1);
}

TEST(SymbolIndex, CanRename) {
  Indexed x({kGemm + std::string("kernel other<P>(X: f32[P]) -> (Y: f32[P]) { Y[p] = X[p]; }\n"),
             kTarget + std::string("target t2 { memory DRAM { size 1 GiB; } }\n")});
  int a = x.find(SymbolKind::Tensor, "A"), m = x.sym("m, n] +=");
  std::string why;
  EXPECT_TRUE(x.index.canRename(a, "Z", &why)) << why;
  EXPECT_TRUE(x.index.canRename(a, "A", &why)) << why; // unchanged
  EXPECT_TRUE(x.index.canRename(a, "P", &why)) << why; // other's P is another scope
  EXPECT_FALSE(x.index.canRename(a, "B", &why));
  EXPECT_EQ(why, "'B' is already the name of a tensor in gemm");
  EXPECT_FALSE(x.index.canRename(a, "K", &why)); // a size parameter
  EXPECT_FALSE(x.index.canRename(a, "k", &why)); // would capture the index k
  EXPECT_EQ(why, "'k' is already the name of an index in gemm");
  EXPECT_FALSE(x.index.canRename(a, "kernel", &why));
  EXPECT_EQ(why, "'kernel' is a keyword");
  EXPECT_FALSE(x.index.canRename(a, "f32", &why));
  EXPECT_FALSE(x.index.canRename(a, "exp", &why));
  EXPECT_FALSE(x.index.canRename(a, "max", &why));
  EXPECT_FALSE(x.index.canRename(a, "1x", &why));
  EXPECT_FALSE(x.index.canRename(a, "a b", &why));
  EXPECT_FALSE(x.index.canRename(a, "", &why));
  EXPECT_FALSE(x.index.canRename(-1, "ok", &why));

  EXPECT_TRUE(x.index.canRename(m, "i", &why)) << why;
  EXPECT_FALSE(x.index.canRename(m, "k", &why));
  EXPECT_EQ(why, "'k' is already the name of an index of the same statement in gemm");
  EXPECT_FALSE(x.index.canRename(m, "A", &why));
  EXPECT_FALSE(x.index.canRename(m, "N", &why));
  EXPECT_TRUE(x.index.canRename(x.sym("p] ="), "m", &why)) << why; // another kernel's statement

  int gemm = x.find(SymbolKind::Kernel, "gemm");
  EXPECT_FALSE(x.index.canRename(gemm, "other", &why));
  EXPECT_TRUE(x.index.canRename(gemm, "gemm_small", &why)) << why; // instances are apart
  int acc16 = x.find(SymbolKind::Target, "acc16");
  EXPECT_FALSE(x.index.canRename(acc16, "t2", &why));
  int spad = x.find(SymbolKind::Memory, "SPAD");
  EXPECT_FALSE(x.index.canRename(spad, "DRAM", &why));
  EXPECT_FALSE(x.index.canRename(spad, "VR", &why));        // registers share the memories' names
  EXPECT_TRUE(x.index.canRename(spad, "dma", &why)) << why; // units are apart
  EXPECT_TRUE(x.index.canRename(x.find(SymbolKind::Memory, "DRAM", 1), "SPAD", &why)) << why;
  EXPECT_FALSE(x.index.canRename(x.find(SymbolKind::Move, "mvin"), "mma", &why));
  int dst = x.find(SymbolKind::Operand, "dst");
  EXPECT_FALSE(x.index.canRename(dst, "R", &why));
  EXPECT_FALSE(x.index.canRename(dst, "src", &why));
  EXPECT_FALSE(x.index.canRename(dst, "i", &why));
  EXPECT_TRUE(x.index.canRename(dst, "acc", &why)) << why; // mma's, not mvin's
}

TEST(SymbolIndex, Outlines) {
  Indexed x({std::string(kGemm) + kTarget});
  EXPECT_EQ(x.names(x.index.topLevel(x.id(0))),
            (std::vector<std::string>{"gemm", "gemm_small", "acc16"}));
  EXPECT_EQ(x.names(x.index.children(x.find(SymbolKind::Kernel, "gemm"))),
            (std::vector<std::string>{"M", "N", "K", "A", "B", "C", "m", "n", "k"}));
  EXPECT_TRUE(x.index.children(x.find(SymbolKind::Instance, "gemm_small")).empty());
  EXPECT_TRUE(x.index.children(-1).empty());
  for (const Symbol &s : x.index.symbols()) {
    EXPECT_LE(s.fullRange.begin, s.nameRange.begin) << s.name;
    EXPECT_GE(s.fullRange.end, s.nameRange.end) << s.name;
  }
}

// ---- shipped files -----------------------------------------------------------------------------

std::vector<std::string> shippedFiles() {
  std::vector<std::string> out;
  for (const char *dir : {"samples", "hwdesc"})
    for (const auto &e : std::filesystem::directory_iterator(test::sourceDir() + "/" + dir))
      if (e.path().extension() == ".isam")
        out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The identifiers of a text outside comments and strings, with a plain scanner.
std::vector<SourceRange> identifiers(FileId file, const std::string &t) {
  std::vector<SourceRange> out;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = 0; i < t.size();) {
    if (t.compare(i, 2, "//") == 0) {
      i = t.find('\n', i);
    } else if (t.compare(i, 2, "/*") == 0) {
      i = t.find("*/", i + 2);
      i = i == std::string::npos ? i : i + 2;
    } else if (t[i] == '"') {
      for (++i; i < t.size() && t[i] != '"' && t[i] != '\n'; ++i)
        if (t[i] == '\\')
          ++i;
      ++i;
    } else if (std::isdigit(static_cast<unsigned char>(t[i]))) {
      while (i < t.size() && (word(t[i]) || t[i] == '.') && t.compare(i, 2, "..") != 0)
        ++i;
    } else if (word(t[i])) {
      size_t b = i;
      while (i < t.size() && word(t[i]))
        ++i;
      std::string w = t.substr(b, i - b);
      bool assignOp = (w == "max" || w == "min") && i < t.size() && t[i] == '=';
      if (!assignOp && !syntax::isKeyword(w))
        out.push_back({file, uint32_t(b), uint32_t(i)});
    } else {
      ++i;
    }
  }
  return out;
}

TEST(SymbolIndex, EveryIdentifierOfEveryShippedFileIsClassified) {
  for (const std::string &path : shippedFiles()) {
    Session s;
    ASSERT_TRUE(s.loadFile(path)) << path;
    auto files = s.files();
    SymbolIndex index = SymbolIndex::build(files);
    for (const ast::File *f : files) {
      const std::string &text = s.sources().text(f->id);
      auto ids = identifiers(f->id, text);
      ASSERT_FALSE(ids.empty());
      size_t inStrings = 0;
      for (const SourceRange &r : ids) {
        const Occurrence *o = index.at(f->id, r.begin);
        std::string where = s.sources().path(f->id) + ":" +
                            std::to_string(s.sources().lineColumn(f->id, r.begin).line + 1) +
                            ": '" + text.substr(r.begin, r.end - r.begin) + "'";
        ASSERT_NE(o, nullptr) << where;
        EXPECT_EQ(o->range.begin, r.begin) << where;
        EXPECT_EQ(o->range.end, r.end) << where;
        EXPECT_NE(o->kind, OccurrenceKind::Unresolved) << where;
      }
      // Every occurrence is an identifier, or a placeholder in an asm string.
      for (const Occurrence &o : index.occurrences(f->id)) {
        bool isIdentifier = std::any_of(ids.begin(), ids.end(), [&](const SourceRange &r) {
          return r.begin == o.range.begin && r.end == o.range.end;
        });
        if (!isIdentifier) {
          ++inStrings;
          EXPECT_EQ(text[o.range.begin - 1], '{')
              << s.sources().path(f->id) << " @" << o.range.begin;
          EXPECT_EQ(o.kind, OccurrenceKind::Symbol);
        }
      }
      if (s.sources().path(f->id).find("systolic16") != std::string::npos) {
        EXPECT_GT(inStrings, 0u);
      }
    }
  }
}

TEST(SymbolIndex, FirstDeclarationWins) {
  Indexed x({"kernel k<N>(A: f32[N], A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; }\n",
             "kernel k<M>(X: f32[M]) -> (Y: f32[M]) { Y[i] = X[i]; }\ninstance i = k<1>;\n"});
  EXPECT_EQ(x.sym("k<1>", 0, 1), x.find(SymbolKind::Kernel, "k", 0));
  EXPECT_EQ(x.symbol(x.find(SymbolKind::Kernel, "k", 0)).nameRange.file, x.id(0));
  EXPECT_EQ(x.sym("A[i]"), x.find(SymbolKind::Tensor, "A", 0));
  EXPECT_NE(x.find(SymbolKind::Tensor, "A", 1), -1); // still a symbol, for outlines
}

TEST(SymbolIndex, SurvivesBrokenShippedFiles) {
  for (const std::string &path : shippedFiles()) {
    std::string text = test::readFile(path);
    // Prefixes. Every one would take minutes: a few hundred spread over the file, and every one
    // in the first 200 bytes of code (past the header comment), cover the shapes of breakage.
    size_t stride = std::max<size_t>(1, text.size() / 300);
    size_t code = std::min(text.find("\nkernel"), text.find("\ntarget"));
    code = std::min(code, text.find("\nsystem"));
    code = code == std::string::npos ? 0 : code;
    // Then texts with a piece cut out of the middle: declarations broken inside.
    std::vector<std::string> variants;
    for (size_t n = 0; n <= text.size(); n += (n >= code && n < code + 200 ? 1 : stride))
      variants.push_back(text.substr(0, n));
    for (size_t at = code, len = 1; at < text.size(); at += 2 * stride, len = len % 9 + 1)
      variants.push_back(text.substr(0, at) + text.substr(std::min(text.size(), at + len)));
    for (const std::string &variant : variants) {
      uint32_t n = uint32_t(variant.size());
      SourceManager sm;
      DiagnosticSink diags;
      FileId id = sm.addFile(path, variant);
      ast::File f = parseFile(id, sm, diags);
      SymbolIndex index = SymbolIndex::build({&f});
      const auto &occ = index.occurrences(id);
      for (size_t i = 0; i < occ.size(); ++i) {
        ASSERT_LE(occ[i].range.end, n) << path << " cut to " << n << " bytes";
        ASSERT_LE(occ[i].range.begin, occ[i].range.end);
        if (i) {
          ASSERT_LT(occ[i - 1].range.begin, occ[i].range.begin);
        }
        if (occ[i].kind == OccurrenceKind::Symbol) {
          ASSERT_LT(size_t(occ[i].symbol), index.symbols().size());
        }
      }
      for (size_t s = 0; s < index.symbols().size(); ++s) {
        const Symbol &sym = index.symbols()[s];
        ASSERT_LE(sym.fullRange.begin, sym.nameRange.begin);
        ASSERT_GE(sym.fullRange.end, sym.nameRange.end);
        ASSERT_FALSE(index.references(int(s)).empty());
        index.children(int(s));
        index.canRename(int(s), "renamed", nullptr);
      }
      index.topLevel(id);
      for (uint32_t o = 0; o <= n; o += 13)
        index.at(id, o);
    }
  }
}

// A 2,000-line file: every name resolved; the build time is recorded, never asserted.
TEST(SymbolIndex, LargeFile) {
  std::string text = kTarget;
  int kernels = 0;
  while (std::count(text.begin(), text.end(), '\n') < 2000) {
    std::string k = std::to_string(kernels++);
    text += "kernel attention" + k +
            "<NH, S, T, D>(Q: f32[NH, S, D], K: f32[NH, T, D], V: f32[NH, T, D])\n"
            "    -> (O: f32[NH, S, D]) {\n"
            "  Sc[h, s, t] += Q[h, s, d] * K[h, t, d];\n"
            "  M[h, s] max= Sc[h, s, t];\n"
            "  E[h, s, t] = exp((Sc[h, s, t] - M[h, s]) / sqrt(D));\n"
            "  L[h, s] += E[h, s, t];\n"
            "  P[h, s, t] = E[h, s, t] / L[h, s];\n"
            "  O[h, s, e] += P[h, s, t] * V[h, t, e];\n"
            "  schedule { map mma; tile ACC: h 16, s 16; parallel: h; }\n"
            "}\n"
            "instance attention_" +
            k + " = attention" + k + "<12, 128, 128, 64>;\n";
  }
  Indexed x({text});
  auto start = std::chrono::steady_clock::now();
  std::vector<const ast::File *> files = {&x.files[0]};
  SymbolIndex index = SymbolIndex::build(files);
  double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("build_microseconds", int(us));
  size_t unresolved = 0;
  for (const Occurrence &o : index.occurrences(x.id(0)))
    unresolved += o.kind == OccurrenceKind::Unresolved;
  EXPECT_EQ(unresolved, 0u);
  EXPECT_GT(index.occurrences(x.id(0)).size(), 40u * size_t(kernels));
}

} // namespace
