// Semantic tokens: the lexer classifies keywords, numbers, strings, comments and operators; the
// symbol index classifies names by what they resolve to. Delta requests are answered with one
// edit covering what changed since the client's previous result.
#include "lsp/Convert.h"
#include "lsp/Features.h"

#include "syntax/Tokens.h"

#include <mutex>

namespace isam::lsp {

namespace {

// The legend: indices into these lists are the protocol's token types and modifier bits.
const std::vector<std::string> kTypes = {"namespace",     "type",      "class",    "struct",
                                         "typeParameter", "parameter", "variable", "property",
                                         "function",      "method",    "keyword",  "comment",
                                         "string",        "number",    "operator", "enumMember"};
enum Type {
  Namespace,
  TypeT,
  Class,
  Struct,
  TypeParameter,
  Parameter,
  Variable,
  PropertyT,
  FunctionT,
  MethodT,
  KeywordT,
  CommentT,
  StringT,
  NumberT,
  OperatorT,
  EnumMember
};
const std::vector<std::string> kModifiers = {"declaration", "readonly", "defaultLibrary",
                                             "modification"};
enum Modifier { Declaration = 1, Readonly = 2, DefaultLibrary = 4, Modification = 8 };

int symbolType(index::SymbolKind k) {
  using K = index::SymbolKind;
  switch (k) {
  case K::Kernel:
    return FunctionT;
  case K::Instance:
    return Variable;
  case K::Target:
  case K::System:
    return Namespace;
  case K::Memory:
  case K::Registers:
    return Struct;
  case K::Unit:
    return Class;
  case K::Instruction:
  case K::Move:
    return MethodT;
  case K::SizeParam:
    return TypeParameter;
  case K::Tensor:
    return Variable;
  case K::Index:
  case K::Operand:
    return Parameter;
  }
  return Variable;
}

struct Classified {
  uint32_t begin, end;
  int type;
  int modifiers;
};

std::vector<Classified> classify(Analysis &a) {
  const std::string &text = a.sources().text(a.mainFile());
  const auto &occurrences = a.index().occurrences(a.mainFile());
  const auto &symbols = a.index().symbols();
  std::vector<Classified> out;
  size_t o = 0;
  for (const syntax::Token &t : syntax::lex(text)) {
    switch (t.kind) {
    case syntax::TokenKind::Keyword:
      out.push_back({t.begin, t.end, KeywordT, 0});
      break;
    case syntax::TokenKind::Number:
      out.push_back({t.begin, t.end, NumberT, 0});
      break;
    case syntax::TokenKind::String:
      out.push_back({t.begin, t.end, StringT, 0});
      break;
    case syntax::TokenKind::LineComment:
    case syntax::TokenKind::BlockComment:
      out.push_back({t.begin, t.end, CommentT, 0});
      break;
    case syntax::TokenKind::Punctuation: {
      std::string_view p = syntax::tokenText(text, t);
      if (p == "=" || p == "+=" || p == "max=" || p == "min=" || p == "+" || p == "-" || p == "*" ||
          p == "/" || p == "->" || p == "..")
        out.push_back({t.begin, t.end, OperatorT, 0});
      break;
    }
    case syntax::TokenKind::Identifier: {
      while (o < occurrences.size() && occurrences[o].range.begin < t.begin)
        ++o;
      if (o == occurrences.size() || occurrences[o].range.begin != t.begin)
        break;
      const index::Occurrence &oc = occurrences[o];
      int mods = oc.isDeclaration ? Declaration : 0;
      switch (oc.kind) {
      case index::OccurrenceKind::Symbol: {
        const index::Symbol &s = symbols[size_t(oc.symbol)];
        if (s.kind == index::SymbolKind::Tensor || s.kind == index::SymbolKind::Operand)
          mods |= s.isOutput ? Modification : Readonly;
        if (s.kind == index::SymbolKind::SizeParam || s.kind == index::SymbolKind::Instance)
          mods |= Readonly;
        out.push_back({t.begin, t.end, symbolType(s.kind), mods});
        break;
      }
      case index::OccurrenceKind::ElemType:
        out.push_back({t.begin, t.end, TypeT, DefaultLibrary});
        break;
      case index::OccurrenceKind::Function:
        out.push_back({t.begin, t.end, FunctionT, DefaultLibrary});
        break;
      case index::OccurrenceKind::PropertyKey:
      case index::OccurrenceKind::LlvmKey:
        out.push_back({t.begin, t.end, PropertyT, 0});
        break;
      case index::OccurrenceKind::UnitOfMeasure:
        out.push_back({t.begin, t.end, EnumMember, 0});
        break;
      case index::OccurrenceKind::ScheduleKey:
        out.push_back({t.begin, t.end, KeywordT, 0});
        break;
      case index::OccurrenceKind::Unresolved:
        break;
      }
      break;
    }
    case syntax::TokenKind::Unexpected:
      break;
    }
  }
  return out;
}

// The protocol's relative encoding; a token over several lines (a block comment) becomes one
// token per line, as clients without multiline token support need.
std::vector<uint32_t> encode(Analysis &a, const std::vector<Classified> &tokens) {
  const LineMap &lines = a.lines(a.mainFile());
  const std::string &text = a.sources().text(a.mainFile());
  // Tokens come in order, so each position is found by walking on from the last one, as
  // LineMap::position walks from the start of the line (which is quadratic over a long line of
  // tokens: seconds for a line of 100,000). The same steps from the same line start give the
  // same positions; an offset behind the walk (inside a sequence it stepped over) asks the map.
  uint32_t walked = 0;
  Position walkedTo;
  auto positionAt = [&](uint32_t offset) {
    if (offset < walked)
      return lines.position(offset);
    while (walked < offset && walked < text.size()) {
      if (text[walked] == '\n') {
        walkedTo = {walkedTo.line + 1, 0};
        ++walked;
        continue;
      }
      Utf8Step step = utf8Step(text, walked);
      walked += step.bytes;
      walkedTo.character += step.units;
    }
    return walkedTo;
  };
  std::vector<uint32_t> data;
  Position previous;
  auto push = [&](Position start, uint32_t length, int type, int mods) {
    if (length == 0)
      return;
    uint32_t dl = start.line - previous.line;
    uint32_t dc = dl == 0 ? start.character - previous.character : start.character;
    data.insert(data.end(), {dl, dc, length, uint32_t(type), uint32_t(mods)});
    previous = start;
  };
  for (const auto &t : tokens) {
    Position start = positionAt(t.begin), end = positionAt(t.end);
    for (uint32_t line = start.line; line <= end.line; ++line) {
      Position from = line == start.line ? start : Position{line, 0};
      uint32_t to = line == end.line ? end.character
                                     : lines.position(lines.offset({line, UINT32_MAX})).character;
      push(from, to - from.character, t.type, t.modifiers);
    }
  }
  return data;
}

// The last result sent per document, for deltas.
struct Previous {
  std::string resultId;
  std::vector<uint32_t> data;
};
std::mutex previousMutex;
std::map<std::string, Previous> previousResults;
uint64_t nextResultId = 1;

std::string remember(const std::string &uri, std::vector<uint32_t> data) {
  std::lock_guard lock(previousMutex);
  std::string id = std::to_string(nextResultId++);
  previousResults[uri] = {id, std::move(data)};
  return id;
}

} // namespace

json semanticTokensLegend() {
  return {{"tokenTypes", kTypes}, {"tokenModifiers", kModifiers}};
}

json semanticTokensFull(Call &call) {
  auto a = call.document();
  std::vector<uint32_t> data;
  {
    auto lock = a->lock();
    data = encode(*a, classify(*a));
  }
  std::string id = remember(a->document().uri, data);
  return {{"resultId", id}, {"data", data}};
}

json semanticTokensDelta(Call &call) {
  auto a = call.document();
  std::string previousId = stringAt(call.params, "previousResultId");
  std::vector<uint32_t> data;
  {
    auto lock = a->lock();
    data = encode(*a, classify(*a));
  }
  std::vector<uint32_t> old;
  bool known = false;
  {
    std::lock_guard lock(previousMutex);
    auto it = previousResults.find(a->document().uri);
    if (it != previousResults.end() && it->second.resultId == previousId) {
      old = it->second.data;
      known = true;
    }
  }
  std::string id = remember(a->document().uri, data);
  if (!known)
    return {{"resultId", id}, {"data", data}}; // a full result is a valid answer to a delta
  size_t prefix = 0;
  while (prefix < old.size() && prefix < data.size() && old[prefix] == data[prefix])
    ++prefix;
  size_t suffix = 0;
  while (suffix < old.size() - prefix && suffix < data.size() - prefix &&
         old[old.size() - 1 - suffix] == data[data.size() - 1 - suffix])
    ++suffix;
  json edits = json::array();
  if (prefix != old.size() || prefix != data.size())
    edits.push_back(
        {{"start", prefix},
         {"deleteCount", old.size() - prefix - suffix},
         {"data", std::vector<uint32_t>(data.begin() + long(prefix), data.end() - long(suffix))}});
  return {{"resultId", id}, {"edits", edits}};
}

} // namespace isam::lsp
