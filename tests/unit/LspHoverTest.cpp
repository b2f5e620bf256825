// Hover below the protocol: the facts (HoverInfo) for each kind of name, asserted on the struct,
// and their Markdown rendering on its own.
#include "lsp/Hover.h"
#include "support/Annotations.h"
#include "support/LspTesting.h"

#include <gtest/gtest.h>

using namespace isam;
using namespace isam::lsp;
using isam::test::Annotations;

namespace {

// Each name's hover is asked for at the start of its range, or at its point.
const char *kGemm = R"isam(// a comment ^
kernel $kernel[[gemm]]<$M[[M]], N, K>($A[[A]]: $f32[[f32]][M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  $statement[[C[m, n] $op^+= A[m, $k[[k]]] * B[k, $n[[n]]];]]
}
kernel $unused[[copy]]<N>(X: f32[N]) -> (Y: f32[N]) {
  Y[i] = $exp[[exp]](X[i]);
}
instance $small[[g444]] = gemm<4, 4, 4>;
instance other = gemm<2, 3, 5>;
)isam";

HoverInfo hoverAt(lsp::Analysis &a, const Annotations &t, const std::string &name) {
  Position at = t.points(name).empty() ? t.range(name).start : t.point(name);
  auto h = hover(a, at);
  EXPECT_TRUE(h.has_value()) << "no hover at " << name;
  return h.value_or(HoverInfo{});
}

class LspHover : public ::testing::Test {
protected:
  void SetUp() override {
    auto lock = a->lock();
    ASSERT_EQ(a->checkDiagnostics().size(), 0u) << a->checkDiagnostics().front().message;
  }
  Annotations t{kGemm};
  std::shared_ptr<lsp::Analysis> a = test::analyseDocument(t.code());
};

} // namespace

TEST_F(LspHover, TensorHasItsDeclaredTypeAndItsShapeInTheFirstInstance) {
  HoverInfo h = hoverAt(*a, t, "A");
  EXPECT_EQ(h.definition, "tensor A: f32[M, K]");
  EXPECT_EQ(h.range, t.range("A"));
  ASSERT_TRUE(h.inInstance);
  EXPECT_EQ(h.inInstance->instance, "g444");
  EXPECT_EQ(h.inInstance->value, "f32[4, 4]");
  EXPECT_FALSE(h.statement) << "the header is no statement";
}

TEST_F(LspHover, SizeParameterHasItsValue) {
  HoverInfo h = hoverAt(*a, t, "M");
  EXPECT_EQ(h.definition, "size parameter M");
  ASSERT_TRUE(h.inInstance);
  EXPECT_EQ(h.inInstance->value, "M = 4");
}

TEST_F(LspHover, KernelHasItsInstanceSizesAndWork) {
  HoverInfo h = hoverAt(*a, t, "kernel");
  EXPECT_EQ(h.range, t.range("kernel"));
  ASSERT_TRUE(h.inInstance);
  EXPECT_EQ(h.inInstance->value, "gemm<4, 4, 4>");
  EXPECT_EQ(h.inInstance->flops, 2.0 * 4 * 4 * 4);
}

TEST_F(LspHover, IndexHasItsRangeInTheStatementAndTheStatementHowItRuns) {
  HoverInfo k = hoverAt(*a, t, "k");
  EXPECT_EQ(k.range, t.range("k"));
  ASSERT_TRUE(k.inInstance);
  EXPECT_EQ(k.inInstance->value, "k in 0..4");
  EXPECT_TRUE(k.inInstance->reduction);
  EXPECT_EQ(k.statement, 0u);
  ASSERT_TRUE(k.run) << k.runProblem;
  EXPECT_EQ(k.run->instance, "g444");
  EXPECT_EQ(k.run->target, "x86_avx512");
  EXPECT_GT(k.run->cycles, 0);
  EXPECT_EQ(k.run->search.rfind("search: ", 0), 0u) << k.run->search;

  HoverInfo n = hoverAt(*a, t, "n");
  ASSERT_TRUE(n.inInstance);
  EXPECT_EQ(n.inInstance->value, "n in 0..4");
  EXPECT_FALSE(n.inInstance->reduction);
}

TEST_F(LspHover, BetweenNamesInAStatementIsAboutTheStatement) {
  HoverInfo h = hoverAt(*a, t, "op");
  EXPECT_TRUE(h.definition.empty());
  EXPECT_EQ(h.range, t.range("statement"));
  EXPECT_EQ(h.statement, 0u);
  EXPECT_TRUE(h.run) << h.runProblem;
}

TEST_F(LspHover, ElementTypesAndFunctionsAreTheLanguagesVocabulary) {
  HoverInfo f32 = hoverAt(*a, t, "f32");
  EXPECT_EQ(f32.definition, "type f32");
  EXPECT_EQ(f32.documentation, "4-byte floating-point element");
  EXPECT_EQ(f32.range, t.range("f32"));
  EXPECT_FALSE(f32.inInstance);

  HoverInfo exp = hoverAt(*a, t, "exp");
  EXPECT_EQ(exp.definition, "exp(x)");
  EXPECT_EQ(exp.documentation, "Element-wise: e to the power x.");
  EXPECT_FALSE(exp.run) << "a function is not about its statement";
}

TEST_F(LspHover, KernelWithoutInstanceSaysHowToGetOne) {
  HoverInfo h = hoverAt(*a, t, "unused");
  ASSERT_TRUE(h.inInstance);
  EXPECT_TRUE(h.inInstance->instance.empty());
  EXPECT_NE(h.inInstance->problem.find("declare an instance of 'copy'"), std::string::npos)
      << h.inInstance->problem;
}

TEST_F(LspHover, InstanceNameAndCommentsHaveNothingOfAKernel) {
  HoverInfo h = hoverAt(*a, t, "small");
  EXPECT_EQ(h.definition, "instance g444: gemm<4, 4, 4>");
  EXPECT_FALSE(h.inInstance);
  EXPECT_FALSE(hover(*a, t.point()).has_value()) << "inside a comment";
}

TEST(LspHoverMarkdown, RendersEachPartInOrder) {
  HoverInfo h;
  h.definition = "tensor A: f32[M, K]";
  h.inInstance = HoverInfo::InInstance{"g444", "", "f32[4, 4]", "", std::nullopt, false};
  EXPECT_EQ(markdown(h), "```isam\ntensor A: f32[M, K]\n```\n\nIn instance `g444`: `f32[4, 4]`\n");

  h.definition = "index k: reduction index";
  h.inInstance = HoverInfo::InInstance{"g444", "", "k in 0..4", "", std::nullopt, true};
  h.statement = 2;
  h.run = StatementSummary{"g444", "x86_avx512", "fma16", 1234, 99.6, 0.5, "compute"};
  EXPECT_EQ(markdown(h), "```isam\nindex k: reduction index\n```\n\n"
                         "In instance `g444`: `k in 0..4` (reduction: summed over)\n"
                         "\n---\n**s2** of `g444` on `x86_avx512`: maps to fma16 \u00d7 1,234 | "
                         "est. 50% of peak, ~99 cycles, bound by compute\n");
  // And how the schedule was found, when a search found it.
  h.run->search = "search: beam, 1 mapping, 400 of 9.6e+08 candidate schedules costed "
                  "(stopped by the candidate budget)";
  EXPECT_NE(markdown(h).find("bound by compute\n\n_search: beam, 1 mapping, 400 of 9.6e+08 "
                             "candidate schedules costed (stopped by the candidate budget)_\n"),
            std::string::npos)
      << markdown(h);

  HoverInfo kernel;
  kernel.definition = "kernel gemm";
  kernel.inInstance = HoverInfo::InInstance{"g444", "", "gemm<4, 4, 4>", "", 128.0, false};
  EXPECT_EQ(markdown(kernel),
            "```isam\nkernel gemm\n```\n\n"
            "In instance `g444`: `gemm<4, 4, 4>`, 128 floating-point operations\n");

  HoverInfo type;
  type.definition = "type i8";
  type.documentation = "1-byte integer element";
  EXPECT_EQ(markdown(type), "```isam\ntype i8\n```\n\n1-byte integer element\n");

  HoverInfo missing;
  missing.definition = "tensor T";
  missing.inInstance = HoverInfo::InInstance{"", "instance 'x' has errors", "", "", {}, false};
  EXPECT_EQ(markdown(missing), "```isam\ntensor T\n```\n\n_instance 'x' has errors_\n");

  HoverInfo why;
  why.statement = 0;
  why.runProblem = "declare an instance";
  EXPECT_EQ(markdown(why), "_declare an instance_\n");
}

TEST(LspHoverScheduleKey, ShowsTheKeysFormAndWhatPinningItDecides) {
  Annotations t(R"isam(kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
  schedule { $tile[[tile]] L1: m 4; $parallel[[parallel]]: m; }
}
instance g = gemm<16, 16, 16>;
)isam");
  auto a = test::analyseDocument(t.code());
  auto tile = hover(*a, t.range("tile").start);
  ASSERT_TRUE(tile);
  EXPECT_EQ(tile->definition, "tile MEMORY: i N, ...;");
  EXPECT_EQ(tile->documentation, "Pins the tile of each named index held at a memory level.");
  EXPECT_EQ(tile->range, t.range("tile"));
  auto parallel = hover(*a, t.range("parallel").start);
  ASSERT_TRUE(parallel);
  EXPECT_EQ(parallel->definition, "parallel: i;");
  EXPECT_NE(markdown(*parallel).find("non-reduction index"), std::string::npos);
}

TEST(LspHoverStrided, AnIndexSolvedAwayByAStridedWriteSaysWhatRunsInstead) {
  Annotations t(
      R"isam(kernel tconv<N>(I: f32[N, 2], W: f32[3]) -> (O: f32[2 * N + 1], P: f32[2 * N]) {
  O[2 * $i[[i]] + $r[[r]]] += I[i, 0] * W[r];
  P[2 * i + $t[[t]]] = I[i, t];
}
instance t5 = tconv<5>;
)isam");
  auto a = test::analyseDocument(t.code());
  {
    auto lock = a->lock();
    ASSERT_EQ(a->checkDiagnostics().size(), 0u) << a->checkDiagnostics().front().message;
  }
  HoverInfo i = hoverAt(*a, t, "i");
  ASSERT_TRUE(i.inInstance);
  EXPECT_EQ(i.inInstance->value, "solved away by the strided write, which runs over i' in 0..11");
  HoverInfo r = hoverAt(*a, t, "r"); // overlapping taps: r stays, summed over
  ASSERT_TRUE(r.inInstance);
  EXPECT_EQ(r.inInstance->value, "r in 0..3");
  EXPECT_TRUE(r.inInstance->reduction);
  HoverInfo u = hoverAt(*a, t, "t"); // P's digits: both recovered from i'
  ASSERT_TRUE(u.inInstance);
  EXPECT_EQ(u.inInstance->value, "solved away by the strided write, which runs over i' in 0..10");
}
