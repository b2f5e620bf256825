// The request handlers: each reads its parameters (ProtocolJson.h), asks the feature (a function
// over the document's analysis returning protocol values) and converts the answer to JSON. No
// feature logic lives here; what a feature could not do becomes the protocol's error.
#include "lsp/Call.h"
#include "lsp/CallHierarchy.h"
#include "lsp/Completion.h"
#include "lsp/Custom.h"
#include "lsp/Editing.h"
#include "lsp/Hover.h"
#include "lsp/Lenses.h"
#include "lsp/Navigation.h"
#include "lsp/ProtocolJson.h"
#include "lsp/SemanticTokens.h"
#include "lsp/Targets.h"

namespace isam::lsp {

namespace {

// The document the request is about, then the position in it (in this order, so that a request
// for a document that is not open says so whatever else is wrong).
std::pair<std::shared_ptr<Analysis>, Position> documentAndPosition(Call &call) {
  auto a = call.document();
  return {a, positionParam(call.params)};
}

// The open documents and the workspace's other files, for workspace-wide requests.
Beyond beyond(Call &call) {
  Workspace &w = call.workspace;
  Beyond out{w.allCurrent(), w.indexed(call.cancelled),
             [&w](const std::string &path) { return w.analyseFile(path); }};
  call.checkCancelled();
  return out;
}

json definitionHandler(Call &call) {
  auto [a, p] = documentAndPosition(call);
  return orNull(definition(*a, p));
}

json documentLinkHandler(Call &call) {
  return documentLinks(*call.document());
}

json referencesHandler(Call &call) {
  auto [a, p] = documentAndPosition(call);
  return orNull(references(*a, p, includeDeclaration(call.params), beyond(call)));
}

json highlightHandler(Call &call) {
  auto [a, p] = documentAndPosition(call);
  return orNull(highlights(*a, p));
}

json prepareRenameHandler(Call &call) {
  auto [a, p] = documentAndPosition(call);
  std::string why;
  auto result = prepareRename(*a, p, &why);
  if (!result)
    throw RpcError(RequestFailed, why);
  return *result;
}

json renameHandler(Call &call) {
  auto a = call.document();
  std::string newName = stringAt(call.params, "newName");
  Position p = positionParam(call.params);
  std::string why;
  auto edit = rename(*a, p, newName, &why, beyond(call));
  if (!edit)
    throw RpcError(RequestFailed, why);
  return *edit;
}

json documentSymbolHandler(Call &call) {
  return documentSymbols(*call.document());
}

json workspaceSymbolHandler(Call &call) {
  std::string query = optionalString(call.params, "query");
  auto symbols = workspaceSymbols(beyond(call), query, call.cancelled);
  call.checkCancelled();
  return symbols;
}

json prepareCallHierarchyHandler(Call &call) {
  auto [a, p] = documentAndPosition(call);
  return orNull(prepareCallHierarchy(*a, p));
}

json incomingCallsHandler(Call &call) {
  CallHierarchyItem item = callHierarchyItem(call.params);
  auto calls = incomingCalls(item, beyond(call), call.cancelled);
  call.checkCancelled();
  return callsJson(calls, true);
}

json outgoingCallsHandler(Call &call) {
  CallHierarchyItem item = callHierarchyItem(call.params);
  auto calls = outgoingCalls(item, beyond(call), call.cancelled);
  call.checkCancelled();
  return callsJson(calls, false);
}

json targetsHandler(Call &call) {
  std::shared_ptr<Analysis> a;
  if (call.params.is_object() && call.params.contains("textDocument")) {
    std::string uri = documentUri(call.params);
    if (call.workspace.documents().get(uri))
      a = call.workspace.current(uri);
  }
  return {{"targets", targetChoices(a.get(), call.workspace.settings())}};
}

json diagnosticHandler(Call &call) {
  Workspace::Pulled pulled = call.workspace.pull(documentUri(call.params));
  if (optionalString(call.params, "previousResultId") == pulled.resultId)
    return {{"kind", "unchanged"}, {"resultId", pulled.resultId}};
  return {{"kind", "full"}, {"resultId", pulled.resultId}, {"items", pulled.items}};
}

json hoverHandler(Call &call) {
  auto [a, p] = documentAndPosition(call);
  auto info = hover(*a, p, call.cancelled);
  if (!info)
    return nullptr;
  return Hover{markdown(*info), info->range};
}

json completionHandler(Call &call) {
  auto [a, p] = documentAndPosition(call);
  return completion(*a, p);
}

json signatureHelpHandler(Call &call) {
  auto [a, p] = documentAndPosition(call);
  return orNull(signatureHelp(*a, p));
}

json semanticTokensFullHandler(Call &call) {
  auto a = call.document();
  return call.workspace.rememberTokens(a->document().uri, semanticTokens(*a));
}

json semanticTokensRangeHandler(Call &call) {
  auto a = call.document();
  // No result id: a range result is not what a later delta is computed against.
  return SemanticTokens{"", semanticTokensIn(semanticTokens(*a), rangeParam(call.params))};
}

json semanticTokensDeltaHandler(Call &call) {
  auto a = call.document();
  std::string previousId = stringAt(call.params, "previousResultId");
  std::vector<uint32_t> data = semanticTokens(*a);
  auto before = call.workspace.rememberedTokens(a->document().uri, previousId);
  SemanticTokens now = call.workspace.rememberTokens(a->document().uri, std::move(data));
  if (!before)
    return now; // a full result is a valid answer to a delta
  return SemanticTokensDelta{now.resultId, semanticTokensEdits(*before, now.data)};
}

json formattingHandler(Call &call) {
  auto a = call.document();
  std::string why;
  auto edits = formatting(*a, formattingOptions(call.params), &why);
  if (!edits)
    throw RpcError(RequestFailed, "cannot format this document: " + why);
  return *edits;
}

json rangeFormattingHandler(Call &call) {
  auto a = call.document();
  std::string why;
  auto edits = rangeFormatting(*a, formattingOptions(call.params), rangeParam(call.params), &why);
  if (!edits)
    throw RpcError(RequestFailed, "cannot format this document: " + why);
  return *edits;
}

json foldingRangeHandler(Call &call) {
  return foldingRanges(*call.document());
}

json selectionRangeHandler(Call &call) {
  auto a = call.document();
  const json &list = required(call.params, "positions");
  if (!list.is_array())
    throw RpcError(InvalidParams, "parameter 'positions' must be an array");
  std::vector<Position> positions;
  for (size_t i = 0; i < list.size(); ++i)
    positions.push_back(positionParam(json{{"position", list[i]}}));
  return selectionRanges(*a, positions);
}

json inlayHintHandler(Call &call) {
  auto a = call.document();
  return inlayHints(*a, rangeParam(call.params));
}

// How long a lens request schedules statements whose lenses are not known from before: none,
// so that it answers at once; the client resolves those it shows (codeLens/resolve), and only
// those are scheduled.
constexpr double kLensBudgetMs = 0;

json codeLensHandler(Call &call) {
  auto lenses = codeLenses(*call.document(), call.cancelled, kLensBudgetMs);
  call.checkCancelled();
  return lenses;
}

json codeLensResolveHandler(Call &call) {
  CodeLens lens;
  lens.range = rangeParam(call.params);
  lens.unresolved = unresolvedLens(call.params);
  auto a = call.workspace.current(lens.unresolved->uri);
  if (a->document().version != lens.unresolved->version)
    throw RpcError(ContentModified, "the document has changed since the lens was made");
  CodeLens resolved = resolveCodeLens(*a, lens, call.cancelled);
  call.checkCancelled();
  return resolved;
}

json codeActionHandler(Call &call) {
  auto a = call.document();
  std::vector<std::string> only;
  if (call.params.contains("context") && call.params["context"].is_object()) {
    const json &context = call.params["context"];
    if (context.contains("only")) {
      if (!context["only"].is_array())
        throw RpcError(InvalidParams, "parameter 'context.only' must be an array of kinds");
      for (const json &kind : context["only"]) {
        if (!kind.is_string())
          throw RpcError(InvalidParams, "parameter 'context.only' must be an array of kinds");
        only.push_back(kind);
      }
    }
  }
  auto actions = codeActions(*a, rangeParam(call.params), call.cancelled, only);
  call.checkCancelled();
  return actions;
}

// A custom request's answer: its result, {"message": why} when there is nothing to show, or the
// protocol's error for a refused one. Checked for cancellation first, as a stopped feature
// answers without a result.
template <class T> json customAnswer(Call &call, const Answer<T> &answer) {
  call.checkCancelled();
  if (answer.result)
    return *answer.result;
  if (answer.refusal == Refusal::InvalidParams)
    throw RpcError(InvalidParams, answer.message);
  if (answer.refusal == Refusal::Failed)
    throw RpcError(RequestFailed, answer.message);
  return {{"message", answer.message}};
}

Progress progressOf(Call &call) {
  return {[&call](const std::string &title) { call.progressBegin(title); },
          [&call] { call.progressEnd(); }};
}

json mappingsHandler(Call &call) {
  auto a = call.document();
  return customAnswer(call, mappings(*a, focusParams(call.params), call.cancelled));
}

json scheduleHandler(Call &call) {
  auto a = call.document();
  FocusParams p = focusParams(call.params);
  return customAnswer(call, schedule(*a, p, call.cancelled, progressOf(call)));
}

json diagramHandler(Call &call) {
  auto a = call.document();
  DiagramParams p = diagramParams(call.params);
  return customAnswer(call, diagram(*a, p, call.cancelled, progressOf(call)));
}

json targetCodeHandler(Call &call) {
  auto a = call.document();
  TargetCodeParams p = targetCodeParams(call.params);
  return customAnswer(call, targetCode(*a, p, call.cancelled, progressOf(call)));
}

} // namespace

std::map<std::string, Feature> features() {
  return {
      {"textDocument/definition", {definitionHandler}},
      {"textDocument/declaration", {definitionHandler}},
      {"textDocument/references", {referencesHandler, true}},
      {"textDocument/documentLink", {documentLinkHandler}},
      {"textDocument/documentHighlight", {highlightHandler}},
      {"textDocument/prepareRename", {prepareRenameHandler}},
      {"textDocument/rename", {renameHandler, true}},
      {"textDocument/documentSymbol", {documentSymbolHandler}},
      {"workspace/symbol", {workspaceSymbolHandler, true}},
      {"textDocument/prepareCallHierarchy", {prepareCallHierarchyHandler}},
      {"callHierarchy/incomingCalls", {incomingCallsHandler, true}},
      {"callHierarchy/outgoingCalls", {outgoingCallsHandler, true}},
      {"textDocument/hover", {hoverHandler}},
      {"textDocument/diagnostic", {diagnosticHandler}},
      {"textDocument/completion", {completionHandler}},
      {"textDocument/signatureHelp", {signatureHelpHandler}},
      {"textDocument/semanticTokens/full", {semanticTokensFullHandler}},
      {"textDocument/semanticTokens/full/delta", {semanticTokensDeltaHandler}},
      {"textDocument/semanticTokens/range", {semanticTokensRangeHandler}},
      {"textDocument/formatting", {formattingHandler}},
      {"textDocument/rangeFormatting", {rangeFormattingHandler}},
      {"textDocument/foldingRange", {foldingRangeHandler}},
      {"textDocument/selectionRange", {selectionRangeHandler}},
      {"textDocument/inlayHint", {inlayHintHandler}},
      {"textDocument/codeAction", {codeActionHandler, true}},
      {"textDocument/codeLens", {codeLensHandler, true}},
      {"codeLens/resolve", {codeLensResolveHandler, true}},
      {"isamap/mappings", {mappingsHandler, true}},
      {"isamap/schedule", {scheduleHandler, true}},
      {"isamap/diagram", {diagramHandler, true}},
      {"isamap/targetCode", {targetCodeHandler, true}},
      {"isamap/targets", {targetsHandler}},
  };
}

json serverCapabilities() {
  return {
      {"positionEncoding", "utf-16"},
      {"textDocumentSync",
       {{"openClose", true}, {"change", 2 /* incremental */}, {"save", {{"includeText", false}}}}},
      {"definitionProvider", true},
      {"declarationProvider", true},
      {"referencesProvider", true},
      {"documentLinkProvider", {{"resolveProvider", false}}},
      {"documentHighlightProvider", true},
      {"renameProvider", {{"prepareProvider", true}}},
      {"documentSymbolProvider", true},
      {"workspaceSymbolProvider", true},
      {"callHierarchyProvider", true},
      {"hoverProvider", true},
      {"completionProvider",
       {{"triggerCharacters", {".", ":", "<", "("}}, {"resolveProvider", false}}},
      {"signatureHelpProvider", {{"triggerCharacters", {"<", "(", ","}}}},
      {"semanticTokensProvider",
       {{"legend",
         {{"tokenTypes", semanticTokenTypes()}, {"tokenModifiers", semanticTokenModifiers()}}},
        {"full", {{"delta", true}}},
        {"range", true}}},
      {"documentFormattingProvider", true},
      {"documentRangeFormattingProvider", true},
      {"foldingRangeProvider", true},
      {"selectionRangeProvider", true},
      {"inlayHintProvider", true},
      {"codeLensProvider", {{"resolveProvider", true}}},
      {"codeActionProvider", {{"codeActionKinds", {"quickfix", "refactor.rewrite"}}}},
      {"workspace", {{"workspaceFolders", {{"supported", true}, {"changeNotifications", true}}}}},
      {"experimental",
       {{"isamap",
         {{"requests",
           {"isamap/mappings", "isamap/schedule", "isamap/diagram", "isamap/targetCode",
            "isamap/targets"}}}}}},
  };
}

} // namespace isam::lsp
