#include "lsp/Editing.h"
#include "lsp/Convert.h"
#include "lsp/Focus.h"

#include "format/Formatter.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace isam::lsp {

namespace {

// The document's text as the formatter of `isamap fmt` writes it, with the client's indent.
std::optional<std::string> formattedText(Analysis &a, const FormattingOptions &options,
                                         std::string *why) {
  format::FormatOptions format;
  if (options.insertSpaces && options.tabSize)
    format.indentWidth = int(*options.tabSize);
  return format::formatText(a.document().text, format, why);
}

} // namespace

std::optional<std::vector<TextEdit>> formatting(Analysis &a, const FormattingOptions &options,
                                                std::string *why) {
  const std::string &text = a.document().text;
  auto formatted = formattedText(a, options, why);
  if (!formatted)
    return std::nullopt;
  if (*formatted == text)
    return std::vector<TextEdit>{};
  auto lock = a.lock();
  SourceRange all{a.mainFile(), 0, uint32_t(text.size())};
  return std::vector<TextEdit>{{rangeOf(a, all), *formatted}};
}

namespace {

// The offsets where each line of `text` starts, and one past the end.
std::vector<uint32_t> lineStarts(const std::string &text) {
  std::vector<uint32_t> starts{0};
  for (uint32_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n' && i + 1 < text.size())
      starts.push_back(i + 1);
  starts.push_back(uint32_t(text.size()));
  return starts;
}

std::vector<std::string_view> linesOf(const std::string &text,
                                      const std::vector<uint32_t> &starts) {
  std::vector<std::string_view> out;
  for (size_t i = 0; i + 1 < starts.size(); ++i)
    out.push_back(std::string_view(text).substr(starts[i], starts[i + 1] - starts[i]));
  return out;
}

// A run of lines [a, aEnd) of the old text replaced by [b, bEnd) of the new one.
struct Hunk {
  size_t a, aEnd, b, bEnd;
};

// The changed runs between two texts' lines: the common head and tail are skipped, the middle
// is compared by a longest common subsequence of lines.
std::vector<Hunk> lineDiff(const std::vector<std::string_view> &x,
                           const std::vector<std::string_view> &y) {
  size_t head = 0;
  while (head < x.size() && head < y.size() && x[head] == y[head])
    ++head;
  size_t tail = 0;
  while (tail < x.size() - head && tail < y.size() - head &&
         x[x.size() - 1 - tail] == y[y.size() - 1 - tail])
    ++tail;
  size_t n = x.size() - head - tail, m = y.size() - head - tail;
  // lcs[i][j]: the longest common subsequence of x's middle from i and y's middle from j.
  std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = x[head + i] == y[head + j] ? lcs[i + 1][j + 1] + 1
                                             : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<Hunk> out;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[head + i] == y[head + j]) {
      ++i, ++j;
      continue;
    }
    Hunk h{head + i, head + i, head + j, head + j};
    while ((i < n || j < m) && !(i < n && j < m && x[head + i] == y[head + j])) {
      if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]))
        ++j;
      else
        ++i;
    }
    h.aEnd = head + i;
    h.bEnd = head + j;
    out.push_back(h);
  }
  return out;
}

} // namespace

std::optional<std::vector<TextEdit>> rangeFormatting(Analysis &a, const FormattingOptions &options,
                                                     Range range, std::string *why) {
  const std::string &text = a.document().text;
  auto formatted = formattedText(a, options, why);
  if (!formatted)
    return std::nullopt;
  std::vector<TextEdit> out;
  if (*formatted == text)
    return out;
  std::vector<uint32_t> oldStarts = lineStarts(text), newStarts = lineStarts(*formatted);
  auto oldLines = linesOf(text, oldStarts), newLines = linesOf(*formatted, newStarts);
  size_t first = range.start.line, last = range.end.line;
  auto lock = a.lock();
  std::vector<Hunk> hunks;
  for (const Hunk &h : lineDiff(oldLines, newLines)) {
    // Lines changed one for one (the formatter's usual change: spacing, indentation) are edits
    // of their own, so that a range takes only its own lines.
    if (h.aEnd - h.a == h.bEnd - h.b)
      for (size_t k = 0; k < h.aEnd - h.a; ++k)
        hunks.push_back({h.a + k, h.a + k + 1, h.b + k, h.b + k + 1});
    else
      hunks.push_back(h);
  }
  for (const Hunk &h : hunks) {
    // A run of changed lines overlaps the range; an insertion counts where it goes.
    bool overlaps = h.aEnd > h.a ? h.a <= last && h.aEnd > first : h.a >= first && h.a <= last + 1;
    if (!overlaps)
      continue;
    SourceRange replaced{a.mainFile(), oldStarts[h.a], oldStarts[h.aEnd]};
    out.push_back({rangeOf(a, replaced),
                   formatted->substr(newStarts[h.b], newStarts[h.bEnd] - newStarts[h.b])});
  }
  return out;
}

std::vector<FoldingRange> foldingRanges(Analysis &a) {
  auto lock = a.lock();
  const LineMap &lines = a.lines(a.mainFile());
  std::vector<FoldingRange> out;
  // The closing line stays visible, as editors show folded blocks.
  auto fold = [&](SourceRange r, const char *kind = nullptr) {
    if (!r.valid())
      return;
    uint32_t first = lines.position(r.begin).line, last = lines.position(r.end).line;
    if (kind == nullptr && last > first)
      --last;
    if (last <= first)
      return;
    out.push_back({first, last, kind ? kind : ""});
  };
  const ast::File &f = a.mainAst();
  for (const auto &k : f.kernels) {
    fold(k.range);
    for (const auto &s : k.schedules)
      fold(s.range);
  }
  for (const auto &t : f.targets) {
    fold(t.range);
    for (const auto &m : t.memories)
      fold(m.range);
    for (const auto &u : t.units)
      fold(u.range);
    for (const auto &i : t.instrs)
      fold(i.range);
  }
  for (const auto &s : f.systems)
    fold(s.range);
  if (f.imports.size() > 1)
    fold(f.imports.front().range.to(f.imports.back().range), "imports");
  // Comments: a block comment, or a run of line comments on consecutive lines.
  const std::string &text = a.sources().text(a.mainFile());
  for (size_t i = 0; i < f.comments.size();) {
    SourceRange r = f.comments[i].range;
    size_t j = i + 1;
    bool line = text.compare(r.begin, 2, "//") == 0;
    while (line && j < f.comments.size() && text.compare(f.comments[j].range.begin, 2, "//") == 0 &&
           lines.position(f.comments[j].range.begin).line == lines.position(r.end).line + 1) {
      r = r.to(f.comments[j].range);
      ++j;
    }
    fold(r, "comment");
    i = j;
  }
  return out;
}

std::vector<InlayHint> inlayHints(Analysis &a, Range range) {
  auto lock = a.lock();
  uint32_t from = offsetOf(a, range.start), to = offsetOf(a, range.end);
  const LineMap &lines = a.lines(a.mainFile());
  std::vector<InlayHint> out;
  for (const auto &k : a.mainAst().kernels) {
    if (k.range.end < from || k.range.begin > to)
      continue;
    Focus focus;
    focus.kernel = &k;
    focus.subject.kernel = k.name.name;
    const ir::Kernel *ir = a.instance(focus.subject);
    if (!ir)
      continue;
    for (size_t i = 0; i < k.statements.size(); ++i) {
      const ast::Statement &s = k.statements[i];
      if (s.range.end < from || s.range.begin > to)
        continue;
      focus.statement = i;
      std::optional<size_t> st = irStatementOf(focus, *ir);
      if (!st)
        continue;
      // After the statement: its iteration domain in the instance.
      std::string label = ir->name + ":";
      for (const auto &idx : ir->statements[*st].indices)
        label +=
            " " + idx.name + (idx.reduction ? " \u03a3" : "") + " < " + std::to_string(idx.extent);
      InlayHint domain;
      domain.position = lines.position(s.range.end);
      domain.label = label;
      domain.paddingLeft = true;
      domain.tooltip = "the statement's index ranges, inferred for instance " + ir->name;
      out.push_back(std::move(domain));
      // After a local tensor written without a declared shape: the shape inferred.
      if (s.lhs && s.lhs->kind == ast::Expr::Kind::Access) {
        const std::string &name = s.lhs->name.name;
        bool declared = false;
        for (const auto &l : k.locals)
          declared = declared || l.name.name == name;
        for (const auto &p : k.outputs)
          declared = declared || p.name.name == name;
        int t = ir->tensorIndex(name);
        if (!declared && t >= 0 && ir->tensors[size_t(t)].role == ir::TensorRole::Local) {
          const ir::Tensor &tensor = ir->tensors[size_t(t)];
          std::string shape = std::string(": ") + ir::elemTypeName(tensor.type) + "[";
          for (size_t d = 0; d < tensor.shape.size(); ++d)
            shape += (d ? ", " : "") + std::to_string(tensor.shape[d]);
          shape += "]";
          InlayHint type;
          type.position = lines.position(s.lhs->name.range.end);
          type.label = shape;
          type.kind = InlayHint::Kind::Type;
          out.push_back(std::move(type));
        }
      }
    }
  }
  return out;
}

} // namespace isam::lsp

namespace isam::lsp {

std::vector<SelectionRange> selectionRanges(Analysis &a, const std::vector<Position> &positions) {
  auto lock = a.lock();
  const std::string &text = a.sources().text(a.mainFile());
  const ast::File &file = a.mainAst();
  std::vector<SelectionRange> out;
  for (Position p : positions) {
    uint32_t offset = std::min<uint32_t>(offsetOf(a, p), uint32_t(text.size()));
    std::vector<SourceRange> chain; // innermost first
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    uint32_t begin = offset, end = offset;
    while (begin > 0 && word(text[begin - 1]))
      --begin;
    while (end < text.size() && word(text[end]))
      ++end;
    if (begin < end)
      chain.push_back({a.mainFile(), begin, end});
    auto around = [&](SourceRange r) {
      if (r.file == a.mainFile() && r.begin <= offset && offset <= r.end)
        chain.push_back(r);
    };
    for (const auto &k : file.kernels) {
      for (const auto &st : k.statements)
        around(st.range);
      for (const auto &b : k.schedules)
        around(b.range);
      around(k.range);
    }
    for (const auto &d : file.instances)
      around(d.range);
    for (const auto &d : file.targets)
      around(d.range);
    for (const auto &d : file.systems)
      around(d.range);
    for (const auto &d : file.imports)
      around(d.range);
    chain.push_back({a.mainFile(), 0, uint32_t(text.size())});
    // Innermost first, each holding the one before; equal ranges once.
    std::stable_sort(chain.begin(), chain.end(), [](const SourceRange &x, const SourceRange &y) {
      return x.end - x.begin < y.end - y.begin;
    });
    SelectionRange s;
    SourceRange last{kNoFile, 0, 0};
    for (const SourceRange &r : chain) {
      if (last.valid() && (r.begin > last.begin || r.end < last.end ||
                           (r.begin == last.begin && r.end == last.end)))
        continue;
      s.ranges.push_back(rangeOf(a, r));
      last = r;
    }
    out.push_back(std::move(s));
  }
  return out;
}

} // namespace isam::lsp
