#include "lsp/SemanticTokens.h"
#include "lsp/Convert.h"

#include "syntax/Tokens.h"

#include <algorithm>
#include <iterator>

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
      // '<' and '>' are left out: they also bracket size parameters (`k<N>`).
      static constexpr std::string_view operators[] = {
          "=",  "+=", "*=", "max=", "min=", "+",  "-",  "*",  "/", "%",
          "->", "..", "<=", ">=",   "==",   "!=", "&&", "||", "!", "?"};
      if (std::find(std::begin(operators), std::end(operators), p) != std::end(operators))
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

// The protocol's relative encoding, a multiline token cut at line ends.
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

} // namespace

const std::vector<std::string> &semanticTokenTypes() {
  return kTypes;
}

const std::vector<std::string> &semanticTokenModifiers() {
  return kModifiers;
}

std::vector<uint32_t> semanticTokens(Analysis &a) {
  auto lock = a.lock();
  return encode(a, classify(a));
}

std::vector<uint32_t> semanticTokensIn(const std::vector<uint32_t> &data, Range range) {
  std::vector<uint32_t> out;
  uint32_t line = 0, start = 0;         // the token's absolute position
  uint32_t lastLine = 0, lastStart = 0; // of the previous token kept
  for (size_t i = 0; i + 5 <= data.size(); i += 5) {
    line += data[i];
    start = data[i] == 0 ? start + data[i + 1] : data[i + 1];
    uint32_t end = start + data[i + 2];
    bool before =
        line < range.start.line || (line == range.start.line && end <= range.start.character);
    bool after = line > range.end.line || (line == range.end.line && start >= range.end.character);
    if (before || after)
      continue;
    out.push_back(line - lastLine);
    out.push_back(line == lastLine ? start - lastStart : start); // (0, 0) before the first
    out.insert(out.end(), data.begin() + long(i) + 2, data.begin() + long(i) + 5);
    lastLine = line;
    lastStart = start;
  }
  return out;
}

std::vector<SemanticTokensEdit> semanticTokensEdits(const std::vector<uint32_t> &before,
                                                    const std::vector<uint32_t> &after) {
  size_t prefix = 0;
  while (prefix < before.size() && prefix < after.size() && before[prefix] == after[prefix])
    ++prefix;
  size_t suffix = 0;
  while (suffix < before.size() - prefix && suffix < after.size() - prefix &&
         before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix])
    ++suffix;
  if (prefix == before.size() && prefix == after.size())
    return {};
  return {{uint32_t(prefix), uint32_t(before.size() - prefix - suffix),
           std::vector<uint32_t>(after.begin() + long(prefix), after.end() - long(suffix))}};
}

} // namespace isam::lsp
