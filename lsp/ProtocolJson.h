// The one place where protocol values (Protocol.h) and request parameters meet JSON, in
// nlohmann's to_json/from_json form: `json j = locations;` converts a vector too.
//
// Reading never trusts the client: a field of the wrong type or out of range is
// RpcError(InvalidParams) naming it, never a crash or a silent default.
#pragma once

#include "lsp/Custom.h"
#include "lsp/Protocol.h"
#include "lsp/Rpc.h"
#include "lsp/Targets.h"

namespace isam::lsp {

void to_json(json &j, const Position &p);
void to_json(json &j, const Range &r);
void to_json(json &j, const Location &l);
void to_json(json &j, const DocumentLink &l);
void to_json(json &j, const SelectionRange &r);
void to_json(json &j, const TextEdit &e);
void to_json(json &j, const WorkspaceEdit &e);
void to_json(json &j, const LspDiagnostic &d);
void to_json(json &j, const Hover &h);
void to_json(json &j, const DocumentHighlight &h);
void to_json(json &j, const DocumentSymbol &s);
void to_json(json &j, const SymbolInformation &s);
void to_json(json &j, const PrepareRename &r);
void to_json(json &j, const CallHierarchyItem &i);
// CallHierarchyIncomingCall ({from, fromRanges}) or CallHierarchyOutgoingCall ({to, ...}).
json callsJson(const std::vector<CallHierarchyCall> &calls, bool incoming);
void to_json(json &j, const CompletionList &l);
void to_json(json &j, const SignatureHelp &h);
void to_json(json &j, const FoldingRange &r);
void to_json(json &j, const InlayHint &h);
void to_json(json &j, const CodeLens &l);
void to_json(json &j, const CodeAction &a);
void to_json(json &j, const SemanticTokens &t);
void to_json(json &j, const SemanticTokensDelta &d);
// isamap's requests (Custom.h): the headline {kernel, instance, target, statement} and the
// result, the mappings and schedule in the CLI's forms (report/Json.h).
void to_json(json &j, const MappingsResult &r);
void to_json(json &j, const ScheduleResult &r);
void to_json(json &j, const DiagramResult &r);
void to_json(json &j, const TargetCode &c);
void to_json(json &j, const TargetChoice &c); // path and description only when known

// A value, or null when there is none (the protocol's answer for "nothing here").
template <class T> json orNull(const std::optional<T> &value) {
  return value ? json(*value) : json(nullptr);
}

// Parameters. Each throws RpcError(InvalidParams) when `j` is malformed.
void from_json(const json &j, Position &p); // non-negative integers line and character
void from_json(const json &j, Range &r);
// params.textDocument.uri
std::string documentUri(const json &params);
// params[key] as a Position / Range (required).
Position positionParam(const json &params, const char *key = "position");
Range rangeParam(const json &params, const char *key = "range");

// The data of a lens sent unresolved, from codeLens/resolve's params (the lens).
CodeLens::Unresolved unresolvedLens(const json &params);
// params.item of callHierarchy/incomingCalls and outgoingCalls, as prepareCallHierarchy gave it.
CallHierarchyItem callHierarchyItem(const json &params);
// params.context.includeDeclaration of textDocument/references (absent: true).
bool includeDeclaration(const json &params);
// params.options of textDocument/formatting (absent: the defaults).
FormattingOptions formattingOptions(const json &params);
// The optional `position`, `instance` and `target` of isamap's requests and lenses.
FocusParams focusParams(const json &params);
// isamap/diagram's `view` (default schedule), `format` (svg or dot) and `mapping` (a rank, from 0).
DiagramParams diagramParams(const json &params);
// isamap/targetCode's `kind` (asm, the default, or llvm).
TargetCodeParams targetCodeParams(const json &params);

} // namespace isam::lsp
