// Statement summaries kept across versions (lsp/Summaries.h): an edit that leaves a kernel, its
// instance and what it reads alone reuses its summaries; any edit to one of those, to a target
// the document declares, to an imported description on disk or to the target setting is
// summarized again, and says what a fresh analysis says.
#include "lsp/Lenses.h"
#include "support/LspTesting.h"

#include <gtest/gtest.h>

using namespace isam;
using namespace isam::lsp;

namespace {

const char *kTarget = R"isam(target vec {
  cores 1; clock 1 GHz;
  memory MEM { size 1 GiB; }
  memory L1 : MEM { size 32 KiB; line 64 B; }
  registers V : L1 { count 16; width 32 B; }
  move load8(dst: out f32[8] in V, src: f32[8] in L1) { dst[i] = src[i]; }
  move store8(dst: out f32[8] in L1, src: f32[8] in V) { dst[i] = src[i]; }
  move bcast8(dst: out f32[8] in V, src: f32 in L1) { dst[i] = src; }
  instr fma8(acc: inout f32[8] in V, a: f32[8] in V, b: f32 in V) { acc[i] += a[i] * b; }
    cost { latency 4; per_cycle 2; }
}
)isam";

const char *kKernels = R"isam(kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
}
// between the kernels
kernel scale<N>(X: f32[N]) -> (Y: f32[N]) {
  Y[i] = X[i] * 2.0;
}
instance g = gemm<64, 64, 64>;
instance s = scale<100>;
)isam";

Settings onVec() {
  Settings s = test::lspSettings();
  s.target = "vec";
  return s;
}

std::vector<std::string> titles(Analysis &a) {
  std::vector<std::string> out;
  for (const auto &lens : codeLenses(a))
    out.push_back(lens.command.title);
  return out;
}

std::string replaced(std::string text, const std::string &what, const std::string &with) {
  size_t at = text.find(what);
  EXPECT_NE(at, std::string::npos) << what;
  return at == std::string::npos ? text : text.replace(at, what.size(), with);
}

} // namespace

TEST(LspSummaries, AnEditOutsideTheKernelsReusesEverySummary) {
  auto cache = std::make_shared<SummaryCache>();
  std::string v1 = std::string(kTarget) + kKernels;
  auto first = titles(*test::analyseDocument(v1, "main.isam", onVec(), cache));
  ASSERT_EQ(first.size(), 4u);
  EXPECT_TRUE(first[0].starts_with("maps to fma8")) << first[0];
  EXPECT_EQ(cache->hits(), 0u);
  EXPECT_EQ(cache->size(), 2u);

  std::string v2 = replaced(v1, "// between the kernels", "// between the two kernels, edited");
  EXPECT_EQ(titles(*test::analyseDocument(v2, "main.isam", onVec(), cache)), first);
  EXPECT_EQ(cache->hits(), 2u);
}

TEST(LspSummaries, AnEditedInstanceOrKernelIsSummarizedAgain) {
  auto cache = std::make_shared<SummaryCache>();
  std::string v1 = std::string(kTarget) + kKernels;
  auto first = titles(*test::analyseDocument(v1, "main.isam", onVec(), cache));
  // Other sizes, another statement, a schedule block (inside the kernel's declaration).
  const std::string statement = "C[m, n] += A[m, k] * B[k, n];";
  for (std::string v2 : {replaced(v1, "gemm<64, 64, 64>", "gemm<32, 64, 64>"),
                         replaced(v1, statement, "C[m, n] += B[k, n] * A[m, k];"),
                         replaced(v1, statement, statement + "\n  schedule { parallel: m; }")}) {
    size_t hits = cache->hits();
    auto again = titles(*test::analyseDocument(v2, "main.isam", onVec(), cache));
    EXPECT_EQ(cache->hits(), hits + 1) << "only 'scale' is reused";
    EXPECT_EQ(again, titles(*test::analyseDocument(v2, "main.isam", onVec())));
  }
  // 64 x 64 x 64 and 32 x 64 x 64 issue different numbers of fma8.
  auto smaller = titles(*test::analyseDocument(replaced(v1, "gemm<64, 64, 64>", "gemm<32, 64, 64>"),
                                               "main.isam", onVec(), cache));
  EXPECT_NE(smaller[0], first[0]);
}

TEST(LspSummaries, ATargetEditedInTheDocumentIsSummarizedAgain) {
  auto cache = std::make_shared<SummaryCache>();
  std::string v1 = std::string(kTarget) + kKernels;
  auto first = titles(*test::analyseDocument(v1, "main.isam", onVec(), cache));
  std::string v2 = replaced(v1, "instr fma8(", "instr vfma8(");
  auto again = titles(*test::analyseDocument(v2, "main.isam", onVec(), cache));
  EXPECT_EQ(cache->hits(), 0u);
  EXPECT_TRUE(again[0].starts_with("maps to vfma8")) << again[0];
}

TEST(LspSummaries, AnImportedDescriptionChangedOnDiskIsSummarizedAgain) {
  auto cache = std::make_shared<SummaryCache>();
  std::string main = std::string("import \"vec_hw.isam\";\n") + kKernels;
  test::tempFile("lsp-features", "vec_hw.isam", kTarget);
  auto first = titles(*test::analyseDocument(main, "main.isam", onVec(), cache));
  ASSERT_TRUE(first[0].starts_with("maps to fma8")) << first[0];
  test::tempFile("lsp-features", "vec_hw.isam", replaced(kTarget, "instr fma8(", "instr vfma8("));
  auto again = titles(*test::analyseDocument(main, "main.isam", onVec(), cache));
  EXPECT_EQ(cache->hits(), 0u);
  EXPECT_TRUE(again[0].starts_with("maps to vfma8")) << again[0];
}

TEST(LspSummaries, AnotherTargetSettingIsSummarizedAgain) {
  auto cache = std::make_shared<SummaryCache>();
  std::string v1 = std::string(kTarget) + kKernels;
  titles(*test::analyseDocument(v1, "main.isam", onVec(), cache));
  auto onX86 = titles(*test::analyseDocument(v1, "main.isam", test::lspSettings(), cache));
  EXPECT_EQ(cache->hits(), 0u);
  EXPECT_TRUE(onX86[0].starts_with("maps to fma16")) << onX86[0];
}

TEST(LspSummaries, AStoppedSearchIsNotKept) {
  auto cache = std::make_shared<SummaryCache>();
  auto a = test::analyseDocument(std::string(kTarget) + kKernels, "main.isam", onVec(), cache);
  auto lock = a->lock();
  Focus f;
  f.kernel = &a->mainAst().kernels[0];
  f.subject.kernel = "gemm";
  f.statement = 0;
  std::string problem;
  EXPECT_FALSE(summarize(
      *a, f, [] { return true; }, &problem));
  EXPECT_EQ(cache->size(), 0u);
}
