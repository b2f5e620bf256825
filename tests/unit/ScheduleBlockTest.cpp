// Schedule blocks checked by sema (sema/ScheduleBlocks.h): every problem that needs no target
// is reported by the full check, located, and what the blocks pin comes out typed.
#include "support/TestSupport.h"

#include "sema/ScheduleBlocks.h"
#include "sema/ScheduleKeys.h"

#include <gtest/gtest.h>

using namespace isam;

namespace {

// A GEMM whose statement is followed by `schedule { BLOCK }`.
std::string gemm(const std::string &block) {
  return "kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
         "  C[m, n] += A[m, k] * B[k, n];\n  schedule { " +
         block + " }\n}\ninstance g = gemm<64, 64, 64>;\n";
}

std::string render(Session &s) {
  std::string out;
  for (const auto &d : s.diagnostics().all())
    out += renderDiagnostic(d, s.sources()) + "\n";
  return out.empty() ? "(no diagnostics)" : out;
}

// The pins of the main file's first kernel, checked in a sink of their own.
sema::KernelPins pinsOf(Session &s) {
  DiagnosticSink scratch;
  return sema::checkScheduleBlocks(s.mainFile()->kernels.at(0), scratch);
}

std::vector<std::string> names(const std::vector<ast::Ident> &ids) {
  std::vector<std::string> out;
  for (const auto &i : ids)
    out.push_back(i.name);
  return out;
}

TEST(ScheduleBlocks, AWellFormedBlockPinsItsStatementTyped) {
  auto s = test::analyse(gemm("map fma16; tile L1: n 64, m 6; order ZMM: k, m, n; parallel: m;"));
  ASSERT_FALSE(s->diagnostics().hasErrors()) << render(*s);
  sema::KernelPins k = pinsOf(*s);
  EXPECT_TRUE(k.ok);
  ASSERT_EQ(k.statements.size(), 1u);
  const sema::StatementPins &p = k.statements.at(0);
  ASSERT_TRUE(p.instruction);
  EXPECT_EQ(p.instruction->name, "fma16");
  ASSERT_EQ(p.tiles.size(), 2u);
  EXPECT_EQ(p.tiles[0].memory.name, "L1");
  EXPECT_EQ(p.tiles[0].index.name, "n");
  EXPECT_EQ(p.tiles[0].size, 64);
  EXPECT_EQ(p.tiles[1].index.name, "m");
  EXPECT_EQ(p.tiles[1].size, 6);
  ASSERT_EQ(p.orders.size(), 1u);
  EXPECT_EQ(p.orders[0].memory.name, "ZMM");
  EXPECT_EQ(names(p.orders[0].indices), (std::vector<std::string>{"k", "m", "n"}));
  ASSERT_TRUE(p.parallel);
  EXPECT_EQ(p.parallel->name, "m");
  EXPECT_EQ(s->sources().text(p.range.file).substr(p.range.begin, p.range.end - p.range.begin),
            "schedule { map fma16; tile L1: n 64, m 6; order ZMM: k, m, n; parallel: m; }");
}

TEST(ScheduleBlocks, EachBlockPinsTheStatementBeforeIt) {
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (C: f32[N]) {\n"
                         "  B[i] = A[i] * 2.0;\n  schedule { parallel: i; }\n"
                         "  C[j] = B[j] + 1.0;\n  schedule { tile L1: j 16; }\n"
                         "  schedule { map add16; }\n}\n");
  ASSERT_FALSE(s->diagnostics().hasErrors()) << render(*s);
  sema::KernelPins k = pinsOf(*s);
  ASSERT_EQ(k.statements.size(), 2u);
  EXPECT_EQ(k.statements.at(0).parallel->name, "i");
  EXPECT_FALSE(k.statements.at(0).instruction);
  // Two blocks after one statement add up.
  EXPECT_EQ(k.statements.at(1).tiles.at(0).index.name, "j");
  EXPECT_EQ(k.statements.at(1).instruction->name, "add16");
}

TEST(ScheduleBlocks, FullCheckReportsAMisspeltItemWithAFix) {
  // No target is loaded: the block's problem needs none.
  auto s = test::analyse(gemm("tyle DRAM: m 4;"));
  auto d = test::withCode(*s, "E0704");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "tyle DRAM: m 4;");
  EXPECT_EQ(d[0].message,
            "unknown schedule item 'tyle' (did you mean 'tile'?); write `map INSTR;`, "
            "`tile MEMORY: i N, ...;`, `order MEMORY: i, j, ...;` or `parallel: i;`");
  ASSERT_EQ(d[0].fixits.size(), 1u);
  EXPECT_EQ(d[0].fixits[0].replacement, "tile");
  EXPECT_FALSE(pinsOf(*s).ok);
}

TEST(ScheduleBlocks, EveryKeyOfTheTableIsAccepted) {
  for (const auto &key : sema::kScheduleKeys) {
    std::string item = std::string(key.name) + (key.takesMemory ? " L1: " : " ") +
                       (key.key == sema::ScheduleKey::Tile    ? "m 4;"
                        : key.key == sema::ScheduleKey::Order ? "m, n, k;"
                                                              : "m;");
    auto s = test::analyse(gemm(item));
    EXPECT_FALSE(s->diagnostics().hasErrors()) << item << "\n" << render(*s);
    EXPECT_EQ(sema::scheduleKey(key.name), &key);
  }
  EXPECT_EQ(sema::scheduleKey("tyle"), nullptr);
}

struct BadBlock {
  std::string name, block, code, covered, phrase;
};

void PrintTo(const BadBlock &b, std::ostream *os) {
  *os << b.name;
}

class BadScheduleBlock : public ::testing::TestWithParam<BadBlock> {};

TEST_P(BadScheduleBlock, IsReportedByTheFullCheck) {
  const BadBlock &b = GetParam();
  auto s = test::analyse(gemm(b.block));
  std::vector<Diagnostic> errors;
  for (const auto &d : s->diagnostics().all())
    if (d.severity == Severity::Error)
      errors.push_back(d);
  ASSERT_EQ(errors.size(), 1u) << render(*s);
  EXPECT_EQ(errors[0].code, b.code) << render(*s);
  EXPECT_EQ(test::rangeText(*s, errors[0]), b.covered);
  EXPECT_NE(errors[0].message.find(b.phrase), std::string::npos) << errors[0].message;
  EXPECT_FALSE(pinsOf(*s).ok);
}

INSTANTIATE_TEST_SUITE_P(
    Codes, BadScheduleBlock,
    ::testing::Values(
        // E0704: the form of an item.
        BadBlock{"MapWithAMemory", "map L1: fma16;", "E0704", "map L1: fma16;",
                 "write the item as `map INSTR;`"},
        BadBlock{"MapOfTwoInstructions", "map fma16, add16;", "E0704", "map fma16, add16;",
                 "`map INSTR;`"},
        BadBlock{"MapWithASize", "map fma16 4;", "E0704", "map fma16 4;", "`map INSTR;`"},
        BadBlock{"ParallelOverTwo", "parallel: m, n;", "E0704", "parallel: m, n;",
                 "`parallel: i;`"},
        BadBlock{"TileWithoutAMemory", "tile: m 4;", "E0704", "tile: m 4;",
                 "`tile MEMORY: index SIZE, ...;`"},
        BadBlock{"TileWithoutASize", "tile L1: m;", "E0704", "tile L1: m;", "positive whole sizes"},
        BadBlock{"ZeroTile", "tile L1: m 0;", "E0704", "tile L1: m 0;", "positive whole sizes"},
        BadBlock{"FractionalTile", "tile L1: m 2.5;", "E0704", "tile L1: m 2.5;",
                 "positive whole sizes"},
        BadBlock{"HugeTile", "tile L1: n 4, m 1e300;", "E0704", "m 1e300",
                 "the tile of 'm' is larger than 2^40"},
        BadBlock{"OrderWithASize", "order L1: m 4, n, k;", "E0704", "order L1: m 4, n, k;",
                 "`order MEMORY: i, j, ...;`"},
        BadBlock{"OrderWithoutAMemory", "order: m, n, k;", "E0704", "order: m, n, k;",
                 "`order MEMORY: i, j, ...;`"},
        // E0704: a decision pinned twice, differently.
        BadBlock{"TwoInstructions", "map fma16; map add16;", "E0704", "add16",
                 "the statement's instruction is pinned twice"},
        BadBlock{"TwoTilesOfOneIndex", "tile L1: m 4; tile L1: m 8;", "E0704", "m 8",
                 "the tile of 'm' at 'L1' is pinned twice"},
        BadBlock{"TwoOrdersOfOneLevel", "order L1: m, n, k; order L1: k, n, m;", "E0704",
                 "order L1: k, n, m;", "the loop order at 'L1' is pinned twice"},
        BadBlock{"TwoParallelLoops", "parallel: m; parallel: n;", "E0704", "n",
                 "the parallel loop is pinned twice"},
        // E0705: what the statement cannot take.
        BadBlock{"TileOfANonIndex", "tile L1: q 4;", "E0705", "q",
                 "'q' is not an index of the statement this block pins (m, n, k)"},
        BadBlock{"SizeParameterIsNoIndex", "parallel: M;", "E0705", "M",
                 "'M' is not an index of the statement"},
        BadBlock{"TensorIsNoIndex", "order L1: m, n, A;", "E0705", "A",
                 "'A' is not an index of the statement"},
        BadBlock{"ParallelOverAReduction", "parallel: k;", "E0705", "k",
                 "'k' is a reduction index, which cannot run in parallel; pin one of m, n"},
        BadBlock{"OrderMissingAnIndex", "order L1: n, m;", "E0705", "order L1: n, m;",
                 "order for 'L1' must name each index of the statement once (m, n, k)"},
        BadBlock{"OrderNamingAnIndexTwice", "order L1: n, m, m;", "E0705", "order L1: n, m, m;",
                 "must name each index of the statement once"}),
    [](const ::testing::TestParamInfo<BadBlock> &info) { return info.param.name; });

TEST(ScheduleBlocks, AnIndexCloseToAnotherGetsItAsAFix) {
  auto s = test::analyse(gemm("tile L1: kk 4;"));
  auto d = test::withCode(*s, "E0705");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_NE(d[0].message.find("did you mean 'k'?"), std::string::npos) << d[0].message;
  ASSERT_EQ(d[0].fixits.size(), 1u);
  EXPECT_EQ(d[0].fixits[0].replacement, "k");
}

TEST(ScheduleBlocks, TheSamePinTwiceIsNoConflict) {
  auto s = test::analyse(gemm("map fma16; tile L1: m 4; map fma16; tile L1: m 4, n 16;"));
  ASSERT_FALSE(s->diagnostics().hasErrors()) << render(*s);
  sema::KernelPins k = pinsOf(*s);
  EXPECT_EQ(k.statements.at(0).tiles.size(), 2u);
}

TEST(ScheduleBlocks, AnItemWithAnErrorPinsNothingTheOthersStillPin) {
  auto s = test::analyse(gemm("tile L1: m 0; map fma16; parallel: k; tile L2: n 32;"));
  EXPECT_EQ(test::withCode(*s, "E0704").size(), 1u) << render(*s);
  EXPECT_EQ(test::withCode(*s, "E0705").size(), 1u) << render(*s);
  sema::KernelPins k = pinsOf(*s);
  EXPECT_FALSE(k.ok);
  const auto &p = k.statements.at(0);
  EXPECT_EQ(p.instruction->name, "fma16");
  EXPECT_FALSE(p.parallel);
  ASSERT_EQ(p.tiles.size(), 1u);
  EXPECT_EQ(p.tiles[0].memory.name, "L2");
}

TEST(ScheduleBlocks, ABlockBeforeAnyStatementPinsNothing) {
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  schedule { parallel: i; }\n"
                         "  B[i] = A[i];\n}\n");
  auto d = test::withCode(*s, "E0704");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "schedule { parallel: i; }");
  EXPECT_NE(d[0].message.find("this one has none"), std::string::npos) << d[0].message;
  EXPECT_TRUE(pinsOf(*s).statements.empty());
}

TEST(ScheduleBlocks, IndicesAreThoseOfTheStatementTheBlockFollows) {
  // `j` is an index of the second statement only; `T`, an implicit local, is none; a reduction
  // to a scalar has no index to run in parallel.
  auto s = test::analyse("kernel k<N>(A: f32[N]) -> (S: f32) {\n"
                         "  T[i] = A[i] * 2.0;\n  schedule { tile L1: j 4; }\n"
                         "  S += T[j];\n  schedule { tile L1: T 4; parallel: j; }\n}\n");
  auto d = test::withCode(*s, "E0705");
  ASSERT_EQ(d.size(), 3u) << render(*s);
  EXPECT_NE(d[0].message.find("'j' is not an index of the statement this block pins (i)"),
            std::string::npos)
      << d[0].message;
  EXPECT_NE(d[1].message.find("'T' is not an index of the statement this block pins (j)"),
            std::string::npos)
      << d[1].message;
  EXPECT_NE(d[2].message.find("'j' is a reduction index, which cannot run in parallel; this "
                              "statement has no other index"),
            std::string::npos)
      << d[2].message;
}

TEST(ScheduleBlocks, OnlyTheFormIsCheckedInAKernelThatLostText) {
  // The statement before the block did not parse: which statement the block follows, and so
  // its indices, is not known.
  auto s = test::analyse("kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                         "  C[m, n] += A[m, k] * * B[k, n];\n"
                         "  schedule { tile L1: q 4; tyle L1: m 4; }\n}\n");
  ASSERT_TRUE(s->mainFile()->kernels.at(0).incomplete) << render(*s);
  EXPECT_TRUE(test::withCode(*s, "E0705").empty()) << render(*s);
  EXPECT_EQ(test::withCode(*s, "E0704").size(), 1u) << render(*s);
}

TEST(ScheduleBlocks, SchedulingReportsTheBlocksProblemsOnceWithoutTheFullCheck) {
  // `isamap schedule` does not run the full check: the first schedule of the kernel reports.
  auto s = std::make_unique<Session>();
  s->loadText("test.isam", gemm("parallel: k; tile L1: n 64;"));
  auto kernels = s->instances({});
  auto target = s->target("x86_avx512");
  ASSERT_TRUE(target && kernels.size() == 1u) << render(*s);
  ASSERT_FALSE(s->diagnostics().hasErrors()) << render(*s);
  schedule::ScheduleOptions options;
  options.budget.candidates = 50;
  auto ks = s->schedule(kernels[0], *target, options);
  s->schedule(kernels[0], *target, options);
  s->checkAll();
  auto d = test::withCode(*s, "E0705");
  ASSERT_EQ(d.size(), 1u) << render(*s);
  EXPECT_EQ(test::rangeText(*s, d[0]), "k");
  // The rest of the block is pinned.
  ASSERT_EQ(ks.statements.size(), 1u);
  const auto &c = ks.statements[0].config;
  int l1 = -1, n = -1;
  for (size_t l = 0; l < c.levels.size(); ++l)
    if (c.levels[l].name == "L1")
      l1 = int(l);
  for (size_t v = 0; v < c.vindices.size(); ++v)
    if (c.vindices[v].name == "n")
      n = int(v);
  ASSERT_TRUE(l1 >= 0 && n >= 0);
  EXPECT_EQ(c.tiles[size_t(l1)][size_t(n)], 64);
}

} // namespace
