#include "lsp/ProtocolJson.h"

namespace isam::lsp {

void to_json(json &j, const Position &p) {
  j = {{"line", p.line}, {"character", p.character}};
}

void to_json(json &j, const Range &r) {
  j = {{"start", r.start}, {"end", r.end}};
}

void to_json(json &j, const Location &l) {
  j = {{"uri", l.uri}, {"range", l.range}};
}

void to_json(json &j, const SelectionRange &r) {
  // Nested from the outermost in: {range, parent: {range, parent: ...}}.
  j = nullptr;
  for (auto it = r.ranges.rbegin(); it != r.ranges.rend(); ++it) {
    json inner = {{"range", *it}};
    if (!j.is_null())
      inner["parent"] = std::move(j);
    j = std::move(inner);
  }
}

void to_json(json &j, const DocumentLink &l) {
  j = {{"range", l.range}, {"target", l.target}, {"tooltip", l.tooltip}};
}

void to_json(json &j, const TextEdit &e) {
  j = {{"range", e.range}, {"newText", e.newText}};
}

void to_json(json &j, const WorkspaceEdit &e) {
  json changes = json::object();
  for (const auto &[uri, edits] : e.changes)
    changes[uri] = edits;
  j = {{"changes", changes}};
}

void to_json(json &j, const LspDiagnostic &d) {
  j = {{"range", d.range},
       {"severity", int(d.severity)},
       {"code", d.code},
       {"source", "isamap"},
       {"message", d.message}};
  if (!d.related.empty()) {
    json related = json::array();
    for (const auto &r : d.related)
      related.push_back({{"location", r.location}, {"message", r.message}});
    j["relatedInformation"] = related;
  }
  // Fix-its travel with the diagnostic, for quick fixes (textDocument/codeAction).
  if (!d.fixes.empty())
    j["data"] = {{"fixes", d.fixes}};
}

void to_json(json &j, const Hover &h) {
  j = {{"contents", {{"kind", "markdown"}, {"value", h.markdown}}}};
  if (h.range)
    j["range"] = *h.range;
}

void to_json(json &j, const DocumentHighlight &h) {
  j = {{"range", h.range}, {"kind", int(h.kind)}};
}

void to_json(json &j, const DocumentSymbol &s) {
  j = {{"name", s.name},
       {"kind", int(s.kind)},
       {"range", s.range},
       {"selectionRange", s.selectionRange}};
  if (!s.detail.empty())
    j["detail"] = s.detail;
  if (!s.children.empty())
    j["children"] = s.children;
}

void to_json(json &j, const SymbolInformation &s) {
  j = {{"name", s.name}, {"kind", int(s.kind)}, {"location", s.location}};
  if (!s.containerName.empty())
    j["containerName"] = s.containerName;
}

void to_json(json &j, const PrepareRename &r) {
  j = {{"range", r.range}, {"placeholder", r.placeholder}};
}

namespace {
const char *roleName(CallHierarchyItem::Role r) {
  switch (r) {
  case CallHierarchyItem::Role::Instance:
    return "instance";
  case CallHierarchyItem::Role::Kernel:
    return "kernel";
  case CallHierarchyItem::Role::Instruction:
    return "instruction";
  }
  return "kernel";
}
} // namespace

void to_json(json &j, const CallHierarchyItem &i) {
  j = {{"name", i.name},
       {"kind", int(i.kind)},
       {"uri", i.uri},
       {"range", i.range},
       {"selectionRange", i.selectionRange},
       {"data", {{"key", i.key}, {"role", roleName(i.role)}}}};
  if (!i.detail.empty())
    j["detail"] = i.detail;
}

void to_json(json &j, const TargetChoice &c) {
  j = {{"name", c.name}, {"kind", c.kind}, {"origin", c.origin}};
  if (!c.path.empty())
    j["path"] = c.path;
  if (!c.description.empty())
    j["description"] = c.description;
}

json callsJson(const std::vector<CallHierarchyCall> &calls, bool incoming) {
  json out = json::array();
  for (const auto &c : calls)
    out.push_back({{incoming ? "from" : "to", c.item}, {"fromRanges", c.fromRanges}});
  return out;
}

void to_json(json &j, const CompletionList &l) {
  json items = json::array();
  for (const auto &i : l.items) {
    json item = {{"label", i.label}, {"kind", int(i.kind)}};
    if (!i.detail.empty())
      item["detail"] = i.detail;
    if (!i.sortText.empty())
      item["sortText"] = i.sortText;
    items.push_back(std::move(item));
  }
  j = {{"isIncomplete", l.incomplete}, {"items", items}};
}

void to_json(json &j, const SignatureHelp &h) {
  json parameters = json::array();
  for (const auto &[begin, end] : h.parameters)
    parameters.push_back({{"label", {begin, end}}});
  j = {{"signatures", {{{"label", h.label}, {"parameters", parameters}}}},
       {"activeSignature", 0},
       {"activeParameter", h.activeParameter}};
}

void to_json(json &j, const FoldingRange &r) {
  j = {{"startLine", r.startLine}, {"endLine", r.endLine}};
  if (!r.kind.empty())
    j["kind"] = r.kind;
}

void to_json(json &j, const InlayHint &h) {
  j = {{"position", h.position}, {"label", h.label}};
  if (h.kind)
    j["kind"] = int(*h.kind);
  if (h.paddingLeft)
    j["paddingLeft"] = true;
  if (!h.tooltip.empty())
    j["tooltip"] = h.tooltip;
}

void to_json(json &j, const CodeLens &l) {
  j = {{"range", l.range}};
  if (const auto &u = l.unresolved) {
    j["data"] = {{"uri", u->uri},
                 {"version", u->version},
                 {"statement", u->statement},
                 {"lens", u->schedule ? "schedule" : "summary"}};
    return;
  }
  json command = {{"title", l.command.title}, {"command", l.command.command}};
  if (l.command.arguments)
    command["arguments"] = {l.command.arguments->first, l.command.arguments->second};
  j["command"] = command;
}

void to_json(json &j, const CodeAction &a) {
  j = {{"title", a.title}, {"kind", a.kind}, {"edit", a.edit}};
  if (!a.diagnostics.empty()) {
    // The diagnostics as the client has them, without the fixes that travel with them.
    json diagnostics = a.diagnostics;
    for (auto &d : diagnostics)
      d.erase("data");
    j["diagnostics"] = diagnostics;
  }
  if (a.isPreferred)
    j["isPreferred"] = true;
}

void to_json(json &j, const SemanticTokens &t) {
  j = {{"data", t.data}};
  if (!t.resultId.empty())
    j["resultId"] = t.resultId;
}

void to_json(json &j, const SemanticTokensDelta &d) {
  json edits = json::array();
  for (const auto &e : d.edits)
    edits.push_back({{"start", e.start}, {"deleteCount", e.deleteCount}, {"data", e.data}});
  j = {{"resultId", d.resultId}, {"edits", edits}};
}

namespace {

json headline(const About &a) {
  json j = {{"kernel", a.kernel}, {"instance", a.instance}, {"target", a.target}};
  j["statement"] = a.statement ? json(*a.statement) : json();
  return j;
}

} // namespace

void to_json(json &j, const MappingsResult &r) {
  j = headline(r.about);
  json statements = json::array();
  for (const auto &s : r.statements)
    statements.push_back(report::mappingsJson(s.mappings, r.kernel, r.target, s.range));
  j["statements"] = statements;
}

void to_json(json &j, const ScheduleResult &r) {
  j = headline(r.about);
  j["text"] = r.text;
  j["schedule"] = report::scheduleJson(r.schedule, r.kernel, r.target);
}

void to_json(json &j, const DiagramResult &r) {
  j = r.about ? headline(*r.about) : json{{"target", r.target}};
  j["view"] = r.viewName;
  j[r.dot ? "dot" : "svg"] = r.text;
}

void to_json(json &j, const TargetCode &c) {
  j = headline(c.about);
  j["kind"] = c.llvm ? "llvm" : "asm";
  j["text"] = c.text;
  if (c.stream)
    j["compileMs"] = {{"emit", c.emitMs}};
  else
    j["compileMs"] = {
        {"generate", c.generateMs}, {"optimize", c.optimizeMs}, {"machineCode", c.machineCodeMs}};
}

void from_json(const json &j, Position &p) {
  int64_t line = integerAt(j, "line"), character = integerAt(j, "character");
  if (line < 0 || character < 0 || line > UINT32_MAX || character > UINT32_MAX)
    throw RpcError(InvalidParams, "a position's line and character must be non-negative");
  p = {uint32_t(line), uint32_t(character)};
}

void from_json(const json &j, Range &r) {
  r = {required(j, "start").get<Position>(), required(j, "end").get<Position>()};
}

std::string documentUri(const json &params) {
  return stringAt(required(params, "textDocument"), "uri");
}

Position positionParam(const json &params, const char *key) {
  return required(params, key).get<Position>();
}

Range rangeParam(const json &params, const char *key) {
  return required(params, key).get<Range>();
}

CodeLens::Unresolved unresolvedLens(const json &params) {
  if (!params.is_object() || !params.contains("data") || !params["data"].is_object())
    throw RpcError(InvalidParams,
                   "the lens's 'data' must be the object textDocument/codeLens gave");
  const json &data = params["data"];
  CodeLens::Unresolved out;
  out.uri = stringAt(data, "uri");
  out.version = integerAt(data, "version");
  out.statement = positionParam(data, "statement");
  out.schedule = stringAt(data, "lens") == "schedule";
  return out;
}

CallHierarchyItem callHierarchyItem(const json &params) {
  if (!params.is_object() || !params.contains("item") || !params["item"].is_object())
    throw RpcError(InvalidParams, "parameter 'item' must be a call hierarchy item");
  const json &item = params["item"];
  CallHierarchyItem out;
  out.name = stringAt(item, "name");
  out.uri = stringAt(item, "uri");
  if (!item.contains("data") || !item["data"].is_object())
    throw RpcError(InvalidParams, "the item's 'data' must be the object prepareCallHierarchy gave");
  out.key = stringAt(item["data"], "key");
  std::string role = stringAt(item["data"], "role");
  if (role == "instance")
    out.role = CallHierarchyItem::Role::Instance;
  else if (role == "kernel")
    out.role = CallHierarchyItem::Role::Kernel;
  else if (role == "instruction")
    out.role = CallHierarchyItem::Role::Instruction;
  else
    throw RpcError(InvalidParams, "unknown call hierarchy role '" + role + "'");
  return out;
}

bool includeDeclaration(const json &params) {
  if (!params.is_object() || !params.contains("context") || !params["context"].is_object())
    return true;
  const json &context = params["context"];
  if (!context.contains("includeDeclaration"))
    return true;
  if (!context["includeDeclaration"].is_boolean())
    throw RpcError(InvalidParams, "parameter 'includeDeclaration' must be a boolean");
  return context["includeDeclaration"].get<bool>();
}

FormattingOptions formattingOptions(const json &params) {
  FormattingOptions options;
  if (!params.is_object() || !params.contains("options") || !params["options"].is_object())
    return options;
  const json &o = params["options"];
  if (o.contains("insertSpaces") && !o["insertSpaces"].is_boolean())
    throw RpcError(InvalidParams, "parameter 'insertSpaces' must be a boolean");
  options.insertSpaces = o.value("insertSpaces", true);
  // A tab size that is not an integer is left to the formatter's default, as before.
  if (o.contains("tabSize") && o["tabSize"].is_number_integer())
    options.tabSize = o["tabSize"].get<int64_t>();
  return options;
}

FocusParams focusParams(const json &params) {
  FocusParams p;
  p.target = optionalString(params, "target");
  p.instance = optionalString(params, "instance");
  if (params.is_object() && params.contains("position") && !params["position"].is_null())
    p.position = params["position"].get<Position>();
  return p;
}

DiagramParams diagramParams(const json &params) {
  DiagramParams p;
  p.viewName = optionalString(params, "view", "schedule");
  auto view = viz::parseWhat(p.viewName);
  if (!view)
    throw RpcError(InvalidParams, "view must be one of kernel, hardware, mapping, schedule; not '" +
                                      p.viewName + "'");
  p.view = *view;
  std::string format = optionalString(params, "format", "svg");
  if (format != "svg" && format != "dot")
    throw RpcError(InvalidParams, "format must be svg or dot");
  p.dot = format == "dot";
  int64_t candidate = optionalInteger(params, "mapping", 0);
  if (candidate < 0)
    throw RpcError(InvalidParams, "mapping must be a candidate's rank, from 0");
  p.candidate = size_t(candidate);
  p.focus = focusParams(params);
  return p;
}

TargetCodeParams targetCodeParams(const json &params) {
  TargetCodeParams p;
  std::string kind = optionalString(params, "kind", "asm");
  if (kind != "asm" && kind != "llvm")
    throw RpcError(InvalidParams, "kind must be asm or llvm");
  p.llvm = kind == "llvm";
  p.focus = focusParams(params);
  return p;
}

} // namespace isam::lsp
