// The Language Server Protocol's values as plain structs: what the features return and what
// ProtocolJson.cpp turns into JSON (the one place that does). Positions and ranges are in LSP
// terms (lines and UTF-16 code units); features convert from the compiler's byte offsets with
// the analysis's line maps (Convert.h).
//
// Only the fields isamap fills are modelled. An optional field that is absent (an empty string,
// an empty list, nullopt) is left out of the JSON, as the protocol lets clients expect.
#pragma once

#include "lsp/Positions.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace isam::lsp {

struct Range {
  Position start, end;
  bool operator==(const Range &) const = default;
};

// Whether two ranges share a position (ends included, as a cursor at a range's end is in it).
inline bool touches(const Range &a, const Range &b) {
  auto notAfter = [](const Position &p, const Position &q) {
    return p.line < q.line || (p.line == q.line && p.character <= q.character);
  };
  return notAfter(a.start, b.end) && notAfter(b.start, a.end);
}

struct Location {
  std::string uri;
  Range range;
  bool operator==(const Location &) const = default;
};

// A range and the ranges around it, innermost first (textDocument/selectionRange's answer is
// the chain; `ranges` holds it flat).
struct SelectionRange {
  std::vector<Range> ranges;
  bool operator==(const SelectionRange &) const = default;
};

// A range of the document that names another file (an import's path).
struct DocumentLink {
  Range range;
  std::string target; // a URI
  std::string tooltip;
  bool operator==(const DocumentLink &) const = default;
};

struct TextEdit {
  Range range;
  std::string newText;
  bool operator==(const TextEdit &) const = default;
};

// Edits by document URI.
struct WorkspaceEdit {
  std::map<std::string, std::vector<TextEdit>> changes;
};

// A problem as the client shows it. The compiler's Diagnostic (core/diag) becomes one in
// Convert.h: problems of imported files are shown at the import that brings them in.
struct LspDiagnostic {
  enum class Severity { Error = 1, Warning = 2, Information = 3, Hint = 4 };
  struct Related {
    Location location;
    std::string message;
  };
  Range range;
  Severity severity = Severity::Error;
  std::string code; // "E0102"; the source is always "isamap"
  std::string message;
  std::vector<Related> related;
  // The diagnostic's fix-its in the document (sent as `data.fixes`, read back by code actions).
  std::vector<TextEdit> fixes;
};

// textDocument/hover: the features' HoverInfo (Hover.h) rendered as Markdown.
struct Hover {
  std::string markdown;
  std::optional<Range> range;
};

struct DocumentHighlight {
  enum class Kind { Text = 1, Read = 2, Write = 3 };
  Range range;
  Kind kind = Kind::Text;
};

enum class SymbolKind {
  Module = 2,
  Namespace = 3,
  Class = 5,
  Method = 6,
  Field = 8,
  Function = 12,
  Variable = 13,
  Constant = 14,
  Array = 18,
  Struct = 23,
  Operator = 25,
  TypeParameter = 26,
};

struct DocumentSymbol {
  std::string name;
  std::string detail;
  SymbolKind kind = SymbolKind::Variable;
  Range range;          // the whole declaration
  Range selectionRange; // its name
  std::vector<DocumentSymbol> children;
};

// workspace/symbol's SymbolInformation.
struct SymbolInformation {
  std::string name;
  SymbolKind kind = SymbolKind::Variable;
  Location location;
  std::string containerName;
};

// An instance, kernel or instruction in a call hierarchy (instance -> kernel -> instruction).
struct CallHierarchyItem {
  enum class Role { Instance, Kernel, Instruction };
  std::string name;
  SymbolKind kind = SymbolKind::Function;
  std::string detail;
  std::string uri;
  Range range;          // the whole declaration
  Range selectionRange; // its name
  // Sent as `data` and given back by the client: which declaration (declarationKey) and what.
  std::string key;
  Role role = Role::Kernel;
};

// An incoming call (`item` is the caller) or an outgoing one (`item` is the callee); the
// ranges are in the caller's file, where it names or runs the callee.
struct CallHierarchyCall {
  CallHierarchyItem item;
  std::vector<Range> fromRanges;
};

struct PrepareRename {
  Range range;
  std::string placeholder;
};

struct CompletionItem {
  enum class Kind {
    Method = 2,
    Function = 3,
    Field = 5,
    Variable = 6,
    Class = 7,
    Module = 9,
    Property = 10,
    Keyword = 14,
    Constant = 21,
    Struct = 22,
    TypeParameter = 25,
  };
  std::string label;
  Kind kind = Kind::Keyword;
  std::string detail;
  std::string sortText = {}; // empty: the label
};

struct CompletionList {
  std::vector<CompletionItem> items;
  // Filtered by what has been typed: the client asks again as the word changes.
  bool incomplete = false;
};

struct SignatureHelp {
  std::string label; // "gemm<M, N, K>", "max(x, y)"
  // Each parameter as [begin, end) in `label`, counted in UTF-16 code units as the protocol
  // asks (labels are ASCII: bytes).
  std::vector<std::pair<uint32_t, uint32_t>> parameters;
  uint32_t activeParameter = 0;
};

struct FoldingRange {
  uint32_t startLine = 0, endLine = 0;
  std::string kind; // "comment", "imports", or empty (a region)
};

struct InlayHint {
  enum class Kind { Type = 1, Parameter = 2 };
  Position position;
  std::string label;
  std::optional<Kind> kind;
  bool paddingLeft = false;
  std::string tooltip;
};

// A command a lens runs. isamap's commands (isamap.showMappings, ...) take the place they are
// about: the document and a position in it, sent as the arguments [uri, position].
struct Command {
  std::string title;
  std::string command; // empty: a lens that only says something
  std::optional<std::pair<std::string, Position>> arguments;
};

struct CodeLens {
  Range range;
  Command command;
  // An unresolved lens (sent without its command, for codeLens/resolve to fill in): the
  // statement it is about, in which version of which document, and which of its two lenses.
  struct Unresolved {
    std::string uri;
    int64_t version = 0;
    Position statement;
    bool schedule = false; // "show schedule" (else the summary)
  };
  std::optional<Unresolved> unresolved;
};

struct CodeAction {
  std::string title;
  std::string kind;                       // "quickfix", "refactor.rewrite"
  std::vector<LspDiagnostic> diagnostics; // what a quick fix fixes
  bool isPreferred = false;
  WorkspaceEdit edit;
};

// The protocol's relative encoding, five integers per token (SemanticTokens.h).
struct SemanticTokens {
  std::string resultId;
  std::vector<uint32_t> data;
};

// One edit turning a previous result's data into the new one.
struct SemanticTokensEdit {
  uint32_t start = 0, deleteCount = 0;
  std::vector<uint32_t> data;
  bool operator==(const SemanticTokensEdit &) const = default;
};

struct SemanticTokensDelta {
  std::string resultId;
  std::vector<SemanticTokensEdit> edits;
};

// Parameters (what ProtocolJson.cpp reads besides positions and ranges).

struct FormattingOptions {
  std::optional<int64_t> tabSize; // used when the client indents with spaces
  bool insertSpaces = true;
};

// What one of isamap's requests is about (Focus.h): a position in the document, an instance
// by name, a target other than the configured one. Every field is optional.
struct FocusParams {
  std::optional<Position> position;
  std::string instance;
  std::string target;
};

} // namespace isam::lsp
