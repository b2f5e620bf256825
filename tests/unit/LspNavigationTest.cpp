// Names below the protocol: definition, references, highlights, rename (and what it refuses),
// the outline and workspace symbols, asserted on protocol structs against marked-up sources.
#include "lsp/Navigation.h"
#include "support/Annotations.h"
#include "support/LspTesting.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace isam;
using namespace isam::lsp;
using isam::test::Annotations;

namespace {

const char *kGemm =
    R"isam(kernel $gemm[[gemm]]<M, N, $K[[K]]>($A[[A]]: f32[M, $K[[K]]], B: f32[$K[[K]], N]) -> (C: f32[M, N], D: f32[M]) {
  $s0[[C[m, n] += $A[[A^]][m, $k[[k]]] * B[$k[[k]], n];]]
  $s1[[D[m] += C[m, $k1[[k]]];]]
}
instance $g[[g]] = gemm<4, 4, 4>;
)isam";

class LspNavigation : public ::testing::Test {
protected:
  void SetUp() override {
    auto lock = a->lock();
    ASSERT_EQ(a->checkDiagnostics().size(), 0u) << a->checkDiagnostics().front().message;
  }
  Annotations t{kGemm};
  std::shared_ptr<lsp::Analysis> a = test::analyseDocument(t.code());
  std::string uri = a->document().uri;
};

std::vector<Range> rangesOf(const std::vector<Location> &locations) {
  std::vector<Range> out;
  for (const auto &l : locations)
    out.push_back(l.range);
  return out;
}

} // namespace

TEST_F(LspNavigation, DefinitionIsTheDeclaringName) {
  auto d = definition(*a, t.point());
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, (Location{uri, t.ranges("A")[0]}));
  EXPECT_FALSE(definition(*a, {0, 1})) << "a keyword";
}

TEST_F(LspNavigation, ReferencesWithAndWithoutTheDeclaration) {
  auto all = references(*a, t.point());
  ASSERT_TRUE(all);
  EXPECT_EQ(rangesOf(*all), t.ranges("A"));
  for (const auto &l : *all)
    EXPECT_EQ(l.uri, uri);
  auto uses = references(*a, t.ranges("A")[0].start, false);
  ASSERT_TRUE(uses);
  EXPECT_EQ(rangesOf(*uses), std::vector<Range>{t.ranges("A")[1]});
  // An index is one statement's: s1's k is another symbol.
  auto k = references(*a, t.ranges("k")[0].start);
  ASSERT_TRUE(k);
  EXPECT_EQ(rangesOf(*k), t.ranges("k"));
  EXPECT_FALSE(references(*a, t.range("s0").end)) << "after the statement's ';'";
}

TEST_F(LspNavigation, HighlightsMarkTheDeclarationWritten) {
  auto h = highlights(*a, t.point());
  ASSERT_TRUE(h);
  ASSERT_EQ(h->size(), 2u);
  EXPECT_EQ((*h)[0].range, t.ranges("A")[0]);
  EXPECT_EQ((*h)[0].kind, DocumentHighlight::Kind::Write);
  EXPECT_EQ((*h)[1].range, t.ranges("A")[1]);
  EXPECT_EQ((*h)[1].kind, DocumentHighlight::Kind::Read);
}

TEST_F(LspNavigation, RenameEditsEveryOccurrence) {
  std::string why;
  auto prepared = prepareRename(*a, t.point(), &why);
  ASSERT_TRUE(prepared) << why;
  EXPECT_EQ(prepared->range, t.ranges("A")[1]);
  EXPECT_EQ(prepared->placeholder, "A");

  auto edit = rename(*a, t.ranges("K")[0].start, "Depth", &why);
  ASSERT_TRUE(edit) << why;
  ASSERT_EQ(edit->changes.size(), 1u);
  std::vector<TextEdit> expected;
  for (const auto &r : t.ranges("K"))
    expected.push_back({r, "Depth"});
  EXPECT_EQ(edit->changes[uri], expected);
}

TEST_F(LspNavigation, RenameSaysWhyItRefuses) {
  std::string why;
  EXPECT_FALSE(rename(*a, t.point(), "B", &why));
  EXPECT_NE(why.find("'B' is already the name of a tensor in gemm"), std::string::npos) << why;
  EXPECT_FALSE(rename(*a, t.point(), "kernel", &why));
  EXPECT_NE(why.find("'kernel' is a keyword"), std::string::npos) << why;
  EXPECT_FALSE(prepareRename(*a, {0, 1}, &why));
  EXPECT_EQ(why, "there is no name to rename here");
}

TEST(LspNavigationShipped, NamesOfAShippedDescriptionAreNotRenamed) {
  Annotations t(R"isam(import "x86_avx512.isam";
kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
  schedule { map ^fma16; }
}
instance g = gemm<32, 32, 32>;
)isam");
  auto a = test::analyseDocument(t.code(), "shipped.isam");
  auto d = definition(*a, t.point());
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->uri.ends_with("hwdesc/x86_avx512.isam")) << d->uri;
  std::string why;
  EXPECT_FALSE(prepareRename(*a, t.point(), &why));
  EXPECT_NE(why.find("'fma16' is declared in a shipped description"), std::string::npos) << why;
}

TEST_F(LspNavigation, OutlineHasKernelsWithTensorsAndStatements) {
  auto symbols = documentSymbols(*a);
  ASSERT_EQ(symbols.size(), 2u);
  const DocumentSymbol &gemm = symbols[0];
  EXPECT_EQ(gemm.name, "gemm");
  EXPECT_EQ(gemm.kind, SymbolKind::Function);
  EXPECT_EQ(gemm.selectionRange, t.range("gemm"));
  std::vector<std::pair<std::string, SymbolKind>> children;
  for (const auto &c : gemm.children)
    children.push_back({c.name, c.kind});
  using P = std::pair<std::string, SymbolKind>;
  EXPECT_EQ(children, (std::vector<P>{{"A", SymbolKind::Array},
                                      {"B", SymbolKind::Array},
                                      {"C", SymbolKind::Array},
                                      {"D", SymbolKind::Array},
                                      {"s0: C[m, n] += A[m, k] * B[k, n];", SymbolKind::Operator},
                                      {"s1: D[m] += C[m, k];", SymbolKind::Operator}}));
  EXPECT_EQ(gemm.children[0].detail, "f32[M, K]");
  EXPECT_EQ(gemm.children[4].range, t.range("s0"));
  EXPECT_EQ(symbols[1].name, "g");
  EXPECT_EQ(symbols[1].kind, SymbolKind::Constant);
  EXPECT_EQ(symbols[1].selectionRange, t.range("g"));
}

TEST_F(LspNavigation, WorkspaceSymbolsMatchSubsequencesOnceEach) {
  // The same document twice: its symbols are listed once.
  auto found = workspaceSymbols(Beyond{{a, a}, {}, {}}, "gm");
  std::vector<std::string> names;
  for (const auto &s : found)
    names.push_back(s.name);
  EXPECT_EQ(names, std::vector<std::string>{"gemm"});
  EXPECT_EQ(found[0].location, (Location{uri, t.range("gemm")}));
  EXPECT_TRUE(workspaceSymbols(Beyond{{a}, {}, {}}, "zzqqx").empty());
  // Stopped before the first analysis: nothing.
  EXPECT_TRUE(workspaceSymbols(Beyond{{a}, {}, {}}, "", [] { return true; }).empty());
}

TEST(LspImports, APathLinksToTheFileItResolvedTo) {
  std::string hw = test::tempFile("lsp-features", "linked_hw.isam",
                                  "target linked { clock 1 GHz; memory MEM { size 1 GiB; } }\n");
  Annotations t(R"isam(import $path[["linked_^hw.isam"]];
import $missing[["nowhere.isam"]];
kernel k<N>(X: f32[N]) -> (Y: f32[N]) {
  Y[i] = X[i];
}
)isam");
  auto a = test::analyseDocument(t.code(), "links.isam");
  std::string target = pathToUri(canonicalPath(hw));
  // The import that resolves is linked; the one that does not is not.
  EXPECT_EQ(documentLinks(*a),
            (std::vector<DocumentLink>{{t.range("path"), target, canonicalPath(hw)}}));
  EXPECT_EQ(definition(*a, t.point()), (Location{target, Range{}}));
  EXPECT_EQ(definition(*a, t.range("missing").start), std::nullopt);
}
