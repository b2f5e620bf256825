// Completion and signature help below the protocol, against marked-up sources.
#include "lsp/Completion.h"
#include "support/Annotations.h"
#include "support/LspTesting.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace isam;
using namespace isam::lsp;
using isam::test::Annotations;
using Kind = CompletionItem::Kind;

namespace {

std::map<std::string, CompletionItem> itemsAt(lsp::Analysis &a, Position p) {
  std::map<std::string, CompletionItem> out;
  for (const auto &i : completion(a, p).items)
    EXPECT_TRUE(out.emplace(i.label, i).second) << "twice: " << i.label;
  return out;
}

} // namespace

TEST(LspCompletion, InAKernelItsNamesFunctionsAndKeywords) {
  Annotations t(R"isam(kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += ^A[m, k] * B[k, n];
}
$top^instance g = gemm<4, 4, 4>;
)isam");
  auto a = test::analyseDocument(t.code());
  auto in = itemsAt(*a, t.point());
  for (auto [label, kind] : std::vector<std::pair<std::string, Kind>>{{"A", Kind::Variable},
                                                                      {"M", Kind::Constant},
                                                                      {"k", Kind::Variable},
                                                                      {"exp", Kind::Function},
                                                                      {"f32", Kind::TypeParameter},
                                                                      {"where", Kind::Keyword}}) {
    ASSERT_TRUE(in.count(label)) << label;
    EXPECT_EQ(in[label].kind, kind) << label;
  }
  EXPECT_EQ(in["A"].detail, "f32[M, K]");
  EXPECT_EQ(in["M"].detail, "size parameter");
  for (const char *absent : {"kernel", "instance", "map", "gemm", "g"})
    EXPECT_FALSE(in.count(absent)) << absent;

  auto top = itemsAt(*a, t.point("top"));
  for (const char *keyword : {"import", "kernel", "instance", "target", "system"})
    EXPECT_EQ(top[keyword].kind, Kind::Keyword) << keyword;
  EXPECT_EQ(top["gemm"].kind, Kind::Function);
  EXPECT_FALSE(top.count("A") || top.count("exp"));
}

TEST(LspCompletion, InAScheduleBlockItemsAndTheTargetsNames) {
  Annotations t(R"isam(kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
  schedule { map fma16; ^ }
}
instance g = gemm<32, 32, 32>;
)isam");
  auto a = test::analyseDocument(t.code());
  auto in = itemsAt(*a, t.point());
  for (const char *key : {"map", "tile", "order", "parallel"})
    EXPECT_EQ(in[key].kind, Kind::Keyword) << key;
  EXPECT_EQ(in["tile"].detail.rfind("tile MEMORY: i N, ...; (", 0), 0u) << in["tile"].detail;
  EXPECT_EQ(in["L1"].kind, Kind::Struct);
  EXPECT_EQ(in["L1"].detail, "memory of x86_avx512");
  EXPECT_EQ(in["fma16"].kind, Kind::Method);
  EXPECT_EQ(in["fma16"].detail, "instruction of x86_avx512");
  EXPECT_EQ(in["load16"].detail, "move of x86_avx512");
  for (const char *index : {"m", "n", "k"})
    EXPECT_TRUE(in.count(index)) << "the pinned statement's index " << index;
  EXPECT_FALSE(in.count("exp")) << "no expressions in a schedule block";
}

TEST(LspSignatureHelp, SizeParametersOfAKernelAndArgumentsOfAFunction) {
  Annotations t(R"isam(kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  $none^C[m, n] += max($first^A[m, k], $second^B[k, n]);
}
instance x = gemm<7, ^)isam");
  auto a = test::analyseDocument(t.code());
  auto sizes = signatureHelp(*a, t.point());
  ASSERT_TRUE(sizes);
  EXPECT_EQ(sizes->label, "gemm<M, N, K>");
  EXPECT_EQ(sizes->parameters,
            (std::vector<std::pair<uint32_t, uint32_t>>{{5, 6}, {8, 9}, {11, 12}}));
  EXPECT_EQ(sizes->activeParameter, 1u);

  auto first = signatureHelp(*a, t.point("first"));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->label, "max(x, y)");
  EXPECT_EQ(first->parameters, (std::vector<std::pair<uint32_t, uint32_t>>{{4, 5}, {7, 8}}));
  EXPECT_EQ(first->activeParameter, 0u);
  auto second = signatureHelp(*a, t.point("second"));
  ASSERT_TRUE(second);
  EXPECT_EQ(second->activeParameter, 1u) << "the comma inside A[m, k] is not max's";
  EXPECT_FALSE(signatureHelp(*a, t.point("none")));
}

TEST(LspCompletion, TheTextBeforeTheCursorNarrowsTheList) {
  Annotations t(R"isam(kernel gemm<M, N, K>(A: f32[M, $shape^K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, $sub^k] * B[k, n] + exp$prefix^(A[m, k]);
  schedule { map $map^; tile $tile^ }
}
target tiny {
  memory MEM { size 1 GiB; }
  registers R : MEM { count 4; width 16 B; }
  unit alu { count 1; }
  instr add4(d: out f32[4] in $in^R, a: f32[4] in R) on $on^alu { d[i] = a[i]; }
}
instance g = gemm<4, 4, 4>;
)isam");
  auto a = test::analyseDocument(t.code());
  auto labels = [&](const char *point) {
    std::set<std::string> out;
    for (const auto &i : completion(*a, t.point(point)).items)
      out.insert(i.label);
    return out;
  };
  using Labels = std::set<std::string>;
  // Shapes in the signature: size parameters only.
  EXPECT_EQ(labels("shape"), (Labels{"M", "N", "K"}));
  // A subscript in a statement: the statement's indices and the sizes, nothing else.
  EXPECT_EQ(labels("sub"), (Labels{"m", "n", "k", "M", "N", "K"}));
  // The word being typed: only what starts with it, and the client is told to ask again.
  EXPECT_TRUE(labels("prefix").count("exp"));
  for (const auto &label : labels("prefix"))
    EXPECT_EQ(label.rfind("exp", 0), 0u) << label;
  EXPECT_TRUE(completion(*a, t.point("prefix")).incomplete);
  EXPECT_FALSE(completion(*a, t.point("sub")).incomplete);
  // `map` takes an instruction (no moves), `tile` a memory.
  Labels map = labels("map");
  EXPECT_TRUE(map.count("fma16"));
  EXPECT_FALSE(map.count("load16") || map.count("L1") || map.count("tile"));
  Labels tile = labels("tile");
  EXPECT_TRUE(tile.count("L1"));
  EXPECT_FALSE(tile.count("fma16") || tile.count("map"));
  // In a target: `in` places an operand in a memory or registers, `on` an instruction on a unit.
  EXPECT_EQ(labels("in"), (Labels{"MEM", "R"}));
  EXPECT_EQ(labels("on"), (Labels{"alu"}));
}

TEST(LspCompletion, NamesInScopeSortBeforeFunctionsAndKeywords) {
  Annotations t(R"isam(kernel k<N>(X: f32[N]) -> (Y: f32[N]) {
  Y[i] = ^X[i];
}
)isam");
  auto a = test::analyseDocument(t.code());
  std::map<std::string, std::string> sort;
  for (const auto &i : completion(*a, t.point()).items)
    sort[i.label] = i.sortText;
  EXPECT_LT(sort.at("X"), sort.at("exp"));
  EXPECT_LT(sort.at("exp"), sort.at("where"));
  EXPECT_LT(sort.at("N"), sort.at("f32"));
}
