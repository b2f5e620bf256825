// The one place protocol values meet JSON (lsp/ProtocolJson.h): what each value looks like on the
// wire, optional fields left out when empty, and parameters of the wrong shape refused with
// InvalidParams.
#include "lsp/ProtocolJson.h"

#include <gtest/gtest.h>

using namespace isam::lsp;

namespace {

int errorCode(const std::function<void()> &f) {
  try {
    f();
  } catch (const RpcError &e) {
    return e.code;
  }
  return 0;
}

const Range kRange{{1, 2}, {1, 5}};
const json kRangeJson = {{"start", {{"line", 1}, {"character", 2}}},
                         {"end", {{"line", 1}, {"character", 5}}}};

} // namespace

TEST(LspProtocolJson, OptionalFieldsAreLeftOutWhenEmpty) {
  EXPECT_EQ(json(Hover{"text", std::nullopt}),
            json({{"contents", {{"kind", "markdown"}, {"value", "text"}}}}));
  EXPECT_EQ(json(Hover{"text", kRange})["range"], kRangeJson);

  InlayHint shape;
  shape.label = ": f32[4]";
  shape.kind = InlayHint::Kind::Type;
  EXPECT_EQ(
      json(shape),
      json({{"position", {{"line", 0}, {"character", 0}}}, {"label", ": f32[4]"}, {"kind", 1}}));
  InlayHint domain;
  domain.label = "x: i < 4";
  domain.paddingLeft = true;
  domain.tooltip = "why";
  EXPECT_EQ(json(domain).value("paddingLeft", false), true);
  EXPECT_FALSE(json(domain).contains("kind"));

  DocumentSymbol leaf{"A", "", SymbolKind::Array, kRange, kRange, {}};
  EXPECT_FALSE(json(leaf).contains("detail"));
  EXPECT_FALSE(json(leaf).contains("children"));
  DocumentSymbol parent{"k", "<N>", SymbolKind::Function, kRange, kRange, {leaf}};
  EXPECT_EQ(json(parent)["children"][0]["kind"], 18);
  EXPECT_EQ(json(parent)["detail"], "<N>");

  EXPECT_EQ(json(FoldingRange{1, 3, ""}), json({{"startLine", 1}, {"endLine", 3}}));
  EXPECT_EQ(json(FoldingRange{1, 3, "comment"})["kind"], "comment");

  CompletionList list{{{"A", CompletionItem::Kind::Variable, "f32[N]"},
                       {"kernel", CompletionItem::Kind::Keyword, ""}}};
  EXPECT_EQ(json(list), json({{"isIncomplete", false},
                              {"items",
                               {{{"label", "A"}, {"kind", 6}, {"detail", "f32[N]"}},
                                {{"label", "kernel"}, {"kind", 14}}}}}));
  EXPECT_EQ(orNull(std::optional<Location>()), json(nullptr));
}

TEST(LspProtocolJson, DiagnosticsCarryTheirFixesAndActionsLeaveThemOut) {
  LspDiagnostic d;
  d.range = kRange;
  d.severity = LspDiagnostic::Severity::Warning;
  d.code = "E0704";
  d.message = "unknown schedule item";
  json plain = d;
  EXPECT_EQ(plain, json({{"range", kRangeJson},
                         {"severity", 2},
                         {"code", "E0704"},
                         {"source", "isamap"},
                         {"message", "unknown schedule item"}}));
  d.fixes = {{kRange, "map"}};
  LspDiagnostic::Related related;
  related.location.uri = "file:///x.isam";
  related.message = "declared here";
  d.related.push_back(related);
  json full = d;
  EXPECT_EQ(full["data"]["fixes"][0], json({{"range", kRangeJson}, {"newText", "map"}}));
  EXPECT_EQ(full["relatedInformation"][0]["location"]["uri"], "file:///x.isam");

  CodeAction fix;
  fix.title = "Change to 'map'";
  fix.kind = "quickfix";
  fix.diagnostics = {d};
  fix.isPreferred = true;
  fix.edit.changes["file:///x.isam"] = d.fixes;
  json j = fix;
  EXPECT_FALSE(j["diagnostics"][0].contains("data"));
  EXPECT_EQ(j["isPreferred"], true);
  EXPECT_EQ(j["edit"]["changes"]["file:///x.isam"][0]["newText"], "map");
  CodeAction pin;
  pin.title = "Pin";
  pin.kind = "refactor.rewrite";
  EXPECT_FALSE(json(pin).contains("diagnostics"));
  EXPECT_FALSE(json(pin).contains("isPreferred"));
}

TEST(LspProtocolJson, LensesSignaturesAndTokens) {
  CodeLens lens{
      kRange, {"show schedule", "isamap.showSchedule", {{"file:///x.isam", {1, 2}}}}, std::nullopt};
  EXPECT_EQ(json(lens)["command"]["arguments"],
            json::array({"file:///x.isam", {{"line", 1}, {"character", 2}}}));
  CodeLens why{kRange, {"declare an instance", "", std::nullopt}, std::nullopt};
  EXPECT_FALSE(json(why)["command"].contains("arguments"));
  EXPECT_EQ(json(why)["command"]["command"], "");
  // Unresolved: no command, the data that codeLens/resolve reads back.
  CodeLens later;
  later.range = kRange;
  later.unresolved = {"file:///x.isam", 7, {1, 2}, true};
  json j = later;
  EXPECT_FALSE(j.contains("command"));
  CodeLens::Unresolved back = unresolvedLens(j);
  EXPECT_EQ(back.uri, "file:///x.isam");
  EXPECT_EQ(back.version, 7);
  EXPECT_EQ(back.statement, (Position{1, 2}));
  EXPECT_TRUE(back.schedule);
  EXPECT_THROW(unresolvedLens(json{{"range", j["range"]}}), RpcError);

  SignatureHelp help{"max(x, y)", {{4, 5}, {7, 8}}, 1};
  EXPECT_EQ(json(help), json({{"signatures",
                               {{{"label", "max(x, y)"},
                                 {"parameters", {{{"label", {4, 5}}}, {{"label", {7, 8}}}}}}}},
                              {"activeSignature", 0},
                              {"activeParameter", 1}}));

  EXPECT_EQ(
      json(SemanticTokensDelta{"7", {{5, 2, {1, 2}}}}),
      json({{"resultId", "7"}, {"edits", {{{"start", 5}, {"deleteCount", 2}, {"data", {1, 2}}}}}}));
  EXPECT_EQ(json(SemanticTokensDelta{"8", {}})["edits"], json::array());
}

TEST(LspProtocolJson, ParametersOfTheWrongShapeAreInvalidParams) {
  json good = {{"textDocument", {{"uri", "file:///x.isam"}}},
               {"position", {{"line", 3}, {"character", 4}}},
               {"range", kRangeJson}};
  EXPECT_EQ(documentUri(good), "file:///x.isam");
  EXPECT_EQ(positionParam(good), (Position{3, 4}));
  EXPECT_EQ(rangeParam(good), kRange);
  for (const json &position :
       {json("line 1"), json({{"line", "1"}, {"character", 3}}),
        json({{"line", 1.5}, {"character", 3}}), json({{"line", -1}, {"character", 3}}),
        json({{"line", 1}}), json(nullptr)})
    EXPECT_EQ(errorCode([&] {
                positionParam({{"position", position}});
              }),
              InvalidParams)
        << position.dump();
  EXPECT_EQ(errorCode([&] { rangeParam({{"range", {{"start", 0}, {"end", 1}}}}); }), InvalidParams);
  EXPECT_EQ(errorCode([&] { documentUri({{"textDocument", {{"uri", 12}}}}); }), InvalidParams);

  EXPECT_TRUE(includeDeclaration(json::object()));
  EXPECT_FALSE(includeDeclaration({{"context", {{"includeDeclaration", false}}}}));
  EXPECT_EQ(errorCode([&] {
              includeDeclaration({{"context", {{"includeDeclaration", "yes"}}}});
            }),
            InvalidParams);

  EXPECT_EQ(formattingOptions({{"options", {{"tabSize", 4}, {"insertSpaces", true}}}}).tabSize, 4);
  EXPECT_FALSE(formattingOptions({{"options", {{"tabSize", "wide"}}}}).tabSize);
  EXPECT_EQ(errorCode([&] {
              formattingOptions({{"options", {{"insertSpaces", 1}}}});
            }),
            InvalidParams);

  FocusParams focus =
      focusParams({{"instance", "g"}, {"position", {{"line", 1}, {"character", 0}}}});
  EXPECT_EQ(focus.instance, "g");
  EXPECT_EQ(focus.position, (Position{1, 0}));
  EXPECT_FALSE(focusParams(json::object()).position);
  EXPECT_EQ(errorCode([&] { focusParams({{"target", 5}}); }), InvalidParams);
}

TEST(LspProtocol, RangesTouchWhenTheyShareAPositionEndsIncluded) {
  Range a{{1, 2}, {1, 5}};
  EXPECT_TRUE(touches(a, a));
  EXPECT_TRUE(touches(a, {{1, 5}, {2, 0}})) << "a cursor at the end";
  EXPECT_TRUE(touches(a, {{0, 0}, {1, 2}}));
  EXPECT_FALSE(touches(a, {{1, 6}, {1, 9}}));
  EXPECT_FALSE(touches(a, {{0, 0}, {1, 1}}));
  EXPECT_TRUE(touches(a, {{0, 0}, {9, 0}})) << "one inside the other";
}
