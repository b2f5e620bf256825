// Semantic tokens below the protocol: the classes of a marked-up source, the delta edits, and the
// last result per document that the workspace keeps for deltas and forgets when it closes.
#include "lsp/SemanticTokens.h"
#include "lsp/Workspace.h"
#include "support/Annotations.h"
#include "support/LspTesting.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace isam;
using namespace isam::lsp;
using isam::test::Annotations;

namespace {

struct Token {
  Range range;
  std::string type;
  std::vector<std::string> modifiers;
};

// The protocol's relative encoding, decoded with the legend.
std::vector<Token> decode(const std::vector<uint32_t> &data) {
  std::vector<Token> out;
  Position at;
  for (size_t i = 0; i + 5 <= data.size(); i += 5) {
    at = data[i] == 0 ? Position{at.line, at.character + data[i + 1]}
                      : Position{at.line + data[i], data[i + 1]};
    Token t{{at, {at.line, at.character + data[i + 2]}}, semanticTokenTypes().at(data[i + 3]), {}};
    for (size_t m = 0; m < semanticTokenModifiers().size(); ++m)
      if (data[i + 4] & (1u << m))
        t.modifiers.push_back(semanticTokenModifiers()[m]);
    out.push_back(t);
  }
  return out;
}

const Token *tokenAt(const std::vector<Token> &tokens, const Range &r) {
  auto it =
      std::find_if(tokens.begin(), tokens.end(), [&](const Token &t) { return t.range == r; });
  return it == tokens.end() ? nullptr : &*it;
}

} // namespace

TEST(LspSemanticTokens, NamesAreClassifiedByWhatTheyResolveTo) {
  // Each range is named after the token type expected over it.
  Annotations t(R"isam($comment[[// a comment]]
$keyword[[kernel]] $function[[vadd]]<$typeParameter[[N]]>($variable[[X]]: $type[[f32]][$typeParameter[[N]]]) -> ($variable[[Y]]: f32[N]) {
  $variable[[Y]][$parameter[[i]]] $operator[[=]] $variable[[X]][i] + $function[[exp]](X[i]); $comment[[/* two]]
$comment[[lines */]]
}
$keyword[[instance]] $variable[[v]] = vadd<$number[[64]]>;
)isam");
  auto a = test::analyseDocument(t.code());
  auto tokens = decode(semanticTokens(*a));
  for (const auto &type : semanticTokenTypes())
    for (const auto &r : t.ranges(type)) {
      const Token *token = tokenAt(tokens, r);
      ASSERT_TRUE(token) << type << " at " << r.start.line << ":" << r.start.character;
      EXPECT_EQ(token->type, type) << r.start.line << ":" << r.start.character;
    }
  // Modifiers: a declaration, an output written, an input read, a builtin.
  const Token *y = tokenAt(tokens, t.ranges("variable")[1]);
  EXPECT_EQ(y->modifiers, (std::vector<std::string>{"declaration", "modification"}));
  const Token *x = tokenAt(tokens, t.ranges("variable")[3]);
  EXPECT_EQ(x->modifiers, (std::vector<std::string>{"readonly"}));
  const Token *exp = tokenAt(tokens, t.ranges("function")[1]);
  EXPECT_EQ(exp->modifiers, (std::vector<std::string>{"defaultLibrary"}));
}

TEST(LspSemanticTokens, EditsReplaceWhatLiesBetweenTheCommonPrefixAndSuffix) {
  std::vector<uint32_t> before = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_TRUE(semanticTokensEdits(before, before).empty());
  std::vector<uint32_t> after = {1, 2, 3, 4, 5, 60, 70, 71, 8, 9, 10};
  EXPECT_EQ(semanticTokensEdits(before, after),
            (std::vector<SemanticTokensEdit>{{5, 2, {60, 70, 71}}}));
  // Everything removed; everything new.
  EXPECT_EQ(semanticTokensEdits(before, {}), (std::vector<SemanticTokensEdit>{{0, 10, {}}}));
  EXPECT_EQ(semanticTokensEdits({}, after), (std::vector<SemanticTokensEdit>{{0, 0, after}}));
  // A repeated value is not counted twice by the prefix and the suffix.
  EXPECT_EQ(semanticTokensEdits({7, 7}, {7, 7, 7}), (std::vector<SemanticTokensEdit>{{2, 0, {7}}}));
}

TEST(LspSemanticTokens, TheWorkspaceKeepsTheLastResultOfAnOpenDocumentOnly) {
  Workspace workspace([](const std::string &, int64_t, std::vector<LspDiagnostic>) {});
  Document doc;
  doc.uri = "untitled:tokens.isam";
  doc.path = doc.uri;
  doc.version = 1;
  doc.text = "kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\n";
  workspace.documents().open(doc);

  SemanticTokens first = workspace.rememberTokens(doc.uri, {1, 2, 3, 4, 5});
  SemanticTokens second = workspace.rememberTokens(doc.uri, {6, 7, 8, 9, 10});
  EXPECT_NE(first.resultId, second.resultId);
  EXPECT_FALSE(workspace.rememberedTokens(doc.uri, first.resultId)) << "superseded";
  EXPECT_EQ(workspace.rememberedTokens(doc.uri, second.resultId),
            (std::vector<uint32_t>{6, 7, 8, 9, 10}));

  // Closing the document forgets its tokens; a result computed for it after it closed (a
  // request that raced with didClose) is not kept.
  workspace.documents().close(doc.uri);
  workspace.closed(doc.uri, doc.path);
  EXPECT_FALSE(workspace.rememberedTokens(doc.uri, second.resultId));
  SemanticTokens late = workspace.rememberTokens(doc.uri, {1, 1, 1, 1, 1});
  EXPECT_FALSE(workspace.rememberedTokens(doc.uri, late.resultId));

  // Reopened, it starts afresh: no id of before is recognised.
  workspace.documents().open(doc);
  EXPECT_FALSE(workspace.rememberedTokens(doc.uri, second.resultId));
}

TEST(LspSemanticTokens, ARangeHasTheFullResultsTokensThatOverlapIt) {
  Annotations t(R"isam(// a comment
kernel vadd<N>(X: f32[N]) -> (Y: f32[N]) {
  Y[i] = X[i] + e$from^xp(X[i]); /* two
lines */
}
instance v = vadd<$to^64>;
)isam");
  auto a = test::analyseDocument(t.code());
  auto all = decode(semanticTokens(*a));
  Range range{t.point("from"), t.point("to")};
  std::vector<Token> expected;
  for (const auto &token : all)
    if (token.range.end > range.start && token.range.start < range.end)
      expected.push_back(token);
  auto got = decode(semanticTokensIn(semanticTokens(*a), range));
  ASSERT_EQ(got.size(), expected.size());
  ASSERT_GE(got.size(), 6u); // exp, X, i, the comment's two lines, instance, v ...
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].range, expected[i].range) << i;
    EXPECT_EQ(got[i].type, expected[i].type) << i;
  }
  EXPECT_EQ(got.front().type, "function"); // `exp`, which starts before the range's start
  EXPECT_TRUE(semanticTokensIn(semanticTokens(*a), {{40, 0}, {50, 0}}).empty());
}
