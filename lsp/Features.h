// Request handlers of the standard LSP features, one group per file (Navigation.cpp, Hover.cpp,
// Completion.cpp, SemanticTokens.cpp, Editing.cpp, Lenses.cpp); Custom.h has isamap's own.
#pragma once

#include "lsp/Call.h"

namespace isam::lsp {

json definition(Call &call);
json references(Call &call);
json documentHighlight(Call &call);
json prepareRename(Call &call);
json rename(Call &call);
json documentSymbol(Call &call);
json workspaceSymbol(Call &call);

json hover(Call &call);

json completion(Call &call);
json signatureHelp(Call &call);

json semanticTokensLegend();
json semanticTokensFull(Call &call);
json semanticTokensDelta(Call &call);

json formatting(Call &call);
json foldingRange(Call &call);
json inlayHint(Call &call);

json codeLens(Call &call);
json codeAction(Call &call);

} // namespace isam::lsp
