#include "lsp/Features.h"
#include "lsp/Custom.h"

namespace isam::lsp {

std::map<std::string, Feature> features() {
  return {
      {"textDocument/definition", {definition}},
      {"textDocument/declaration", {definition}},
      {"textDocument/references", {references}},
      {"textDocument/documentHighlight", {documentHighlight}},
      {"textDocument/prepareRename", {prepareRename}},
      {"textDocument/rename", {rename}},
      {"textDocument/documentSymbol", {documentSymbol}},
      {"workspace/symbol", {workspaceSymbol}},
      {"textDocument/hover", {hover}},
      {"textDocument/completion", {completion}},
      {"textDocument/signatureHelp", {signatureHelp}},
      {"textDocument/semanticTokens/full", {semanticTokensFull}},
      {"textDocument/semanticTokens/full/delta", {semanticTokensDelta}},
      {"textDocument/formatting", {formatting}},
      {"textDocument/foldingRange", {foldingRange}},
      {"textDocument/inlayHint", {inlayHint}},
      {"textDocument/codeAction", {codeAction, true}},
      {"textDocument/codeLens", {codeLens, true}},
      {"isamap/mappings", {mappingsRequest, true}},
      {"isamap/schedule", {scheduleRequest, true}},
      {"isamap/diagram", {diagramRequest, true}},
      {"isamap/targetCode", {targetCodeRequest, true}},
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
      {"documentHighlightProvider", true},
      {"renameProvider", {{"prepareProvider", true}}},
      {"documentSymbolProvider", true},
      {"workspaceSymbolProvider", true},
      {"hoverProvider", true},
      {"completionProvider",
       {{"triggerCharacters", {".", ":", "<", "("}}, {"resolveProvider", false}}},
      {"signatureHelpProvider", {{"triggerCharacters", {"<", "(", ","}}}},
      {"semanticTokensProvider",
       {{"legend", semanticTokensLegend()}, {"full", {{"delta", true}}}, {"range", false}}},
      {"documentFormattingProvider", true},
      {"foldingRangeProvider", true},
      {"inlayHintProvider", true},
      {"codeLensProvider", {{"resolveProvider", false}}},
      {"codeActionProvider", {{"codeActionKinds", {"quickfix", "refactor.rewrite"}}}},
      {"workspace", {{"workspaceFolders", {{"supported", true}, {"changeNotifications", true}}}}},
      {"experimental",
       {{"isamap",
         {{"requests",
           {"isamap/mappings", "isamap/schedule", "isamap/diagram", "isamap/targetCode"}}}}}},
  };
}

} // namespace isam::lsp
