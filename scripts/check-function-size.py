#!/usr/bin/env python3
"""Repository rule: no production function body longer than 100 lines without a reason.

A function's length is counted from the line of its body's opening brace to the line of its
closing brace, both included. A longer function passes only if the comment block just above
its signature has a line starting `// Long:` followed by the reason (a flat switch over every
opcode, say). Lambdas and local classes are part of their enclosing function.

    scripts/check-function-size.py            # production code: every top-level folder but
                                              # tests/, scripts/, docs/, editor-extension/, ...
    scripts/check-function-size.py DIR|FILE   # those instead (the self-test's fixtures)

Prints every offender as `file:line: name is N lines`, longest first, and exits 1 when there
is one; exits 0 otherwise. Run by ctest as `function_size` (tests/tidy/).

The scanner is a small C++ lexer, not a parser: comments, string, character and raw string
literals and preprocessor lines are blanked first (keeping line breaks) so their braces do not
count; then each `{` at namespace or class scope is classified by the declaration text before
it (the "head"): namespace, class, initializer, or a function body.
"""

import argparse
import os
import re
import sys

LIMIT = 100
# Production code is every top-level folder but these (and build trees, hidden folders), so
# that a new library is checked from its first commit.
NOT_PRODUCTION = {"tests", "scripts", "docs", "editor-extension", "grammar", "samples", "hwdesc"}
SOURCE_SUFFIXES = (".cpp", ".cc", ".h", ".hpp", ".inc")
# Generated code (the ANTLR parser) lives in the build tree, under build*/ or generated/.
SKIPPED_DIRS = ("generated", "node_modules")


def blank(text):
    """Returns text with comments, literals and preprocessor lines replaced by spaces.

    Line breaks are kept, so offsets and line numbers in the result are the source's. String
    and character literals keep their quotes (`""`) so that a head like `extern "C"` still
    reads as such."""
    out = list(text)
    n = len(text)
    i = 0
    at_line_start = True

    def erase(begin, end):
        for k in range(begin, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "\n":
            at_line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if at_line_start and c == "#":
            # A preprocessor directive runs to the end of the line, continued by backslashes.
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    continue
                if text.startswith("/*", j):
                    end = text.find("*/", j + 2)
                    j = n if end < 0 else end + 2
                    continue
                j += 1
            erase(i, j)
            i = j
            continue
        at_line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            erase(i, j)
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            erase(i, j)
            i = j
            continue
        raw = re.match(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(', text[i:i + 24])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = ")" + raw.group(1) + '"'
            body = i + raw.end()
            end = text.find(close, body)
            j = n if end < 0 else end + len(close)
            erase(body, n if end < 0 else end)
            i = j
            continue
        if c == "'" and is_digit_separator(text, i):
            i += 1
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            erase(i + 1, min(j, n))
            i = j + 1
            continue
        i += 1
    return "".join(out)


def is_digit_separator(text, quote):
    """True if the quote at `quote` is a digit separator (1'000'000), not a character literal."""
    j = quote
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_'."):
        j -= 1
    return j < quote and text[j].isdigit()


def matching(code, open_at):
    """Index of the bracket closing the one at open_at (or len(code) if it is never closed)."""
    pairs = {"{": "}", "(": ")", "[": "]"}
    stack = [pairs[code[open_at]]]
    i = open_at + 1
    n = len(code)
    while i < n and stack:
        c = code[i]
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")]}":
            stack.pop()
        i += 1
    return i - 1 if not stack else n


ACCESS = re.compile(r"^\s*(?:(?:public|private|protected)\s*:(?!:)\s*)+")
TEMPLATE = re.compile(r"^\s*template\s*<")
AGGREGATE = re.compile(r"^(?:typedef\s+)?(?:class|struct|union|enum)\b")
NAMESPACE = re.compile(r'^(?:inline\s+)?namespace\b|^extern\s*"\s*"\s*$')


def strip_template_prefix(head):
    """The head without leading `template <...>` clauses (angle brackets balanced)."""
    while True:
        m = TEMPLATE.match(head)
        if not m:
            return head
        depth = 0
        for k in range(m.end() - 1, len(head)):
            if head[k] == "<":
                depth += 1
            elif head[k] == ">":
                depth -= 1
                if depth == 0:
                    head = head[k + 1:]
                    break
        else:
            return head


def top_level_assignment(head):
    """Offset of an `=` at bracket depth 0 that is an initializer, or -1."""
    depth = 0
    for k, c in enumerate(head):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "=" and depth == 0:
            before = head[:k].rstrip()
            after = head[k + 1:k + 2]
            if after == "=" or before.endswith(("=", "!", "<", ">", "+", "-", "*", "/", "%",
                                                "&", "|", "^")):
                continue
            if re.search(r"\boperator\s*$", before):
                continue
            return k
    return -1


def function_name(head):
    """The declared name in a function head (`Foo::bar`, `operator()`, `main`), best effort."""
    m = re.search(r"((?:[\w~]+\s*(?:<[^()]*?>)?\s*::\s*)*operator\s*(?:\(\s*\)|[^\s(]+))\s*\(",
                  head)
    if m:
        return re.sub(r"\s+", "", m.group(1))
    depth = 0
    for k, c in enumerate(head):
        if c == "(" and depth == 0:
            m = re.search(r"((?:[\w~]+\s*(?:<[^()]*?>)?\s*::\s*)*[\w~]+)\s*(?:<[^()]*?>)?\s*$",
                          head[:k])
            return re.sub(r"\s+", "", m.group(1)) if m else "(anonymous)"
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
    return "(anonymous)"


class Function:
    def __init__(self, path, name, head_line, open_line, close_line):
        self.path = path
        self.name = name
        self.head_line = head_line  # 1-based line of the signature's first token
        self.open_line = open_line
        self.close_line = close_line
        self.length = close_line - open_line + 1


def line_of(line_starts, offset):
    lo, hi = 0, len(line_starts)
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if line_starts[mid] <= offset:
            lo = mid
        else:
            hi = mid
    return lo + 1


def functions(path, text):
    """Every function body in the file (not those inside another function)."""
    code = blank(text)
    line_starts = [0] + [m.end() for m in re.finditer("\n", code)]
    found = []

    def scan_scope(begin, end):
        """Scans declarations of a namespace or class body code[begin:end]."""
        head_start = begin
        i = begin
        while i < end:
            c = code[i]
            if c == ";" or c == "}":
                head_start = i + 1
            elif c in "([":
                close = matching(code, i)
                lambdas_in(i + 1, close)
                i = close
            elif c == "{":
                i = classify(head_start, i, end)
                head_start = i + 1
            i += 1

    def classify(head_start, brace, end):
        """Handles the `{` at `brace` whose declaration starts at head_start; returns the index
        of its closing brace."""
        raw_head = code[head_start:brace]
        access = ACCESS.match(raw_head)
        if access:
            head_start += access.end()
            raw_head = raw_head[access.end():]
        lead = len(raw_head) - len(raw_head.lstrip())
        head_start += lead
        head = strip_template_prefix(raw_head.strip()).strip()
        close = matching(code, brace)
        if NAMESPACE.match(head):
            scan_scope(brace + 1, close)
            return close
        if AGGREGATE.match(head):
            scan_scope(brace + 1, close)
            return close
        assign = top_level_assignment(head)
        if assign >= 0:
            if head[assign + 1:].lstrip().startswith("["):
                # A lambda bound to a name at namespace or class scope is that name's function.
                name = re.search(r"([\w~]+)\s*$", head[:assign])
                record(name.group(1) if name else "(lambda)", head_start, brace, close)
            lambdas_in(brace + 1, close)
            return close
        if "(" not in head:
            lambdas_in(brace + 1, close)
            return close  # `int x{5}`, `Foo table{...}`: an initializer
        body = body_brace(head_start, brace, end)
        if body is None:
            lambdas_in(brace + 1, close)
            return close
        close = matching(code, body)
        record(function_name(code[head_start:body]), head_start, body, close)
        return close

    def body_brace(head_start, brace, end):
        """The body's `{`: `brace` itself, unless the head has a constructor's initializer list,
        where `member{...}` braces come before the body's."""
        k = brace - 1
        while k >= 0 and code[k].isspace():
            k -= 1
        prev = code[k] if k >= 0 else ""
        if not (prev.isalnum() or prev in "_>") or not in_initializer_list(head_start, brace):
            return brace
        # `brace` is a member's brace initializer: skip it and the list's remaining items.
        i = matching(code, brace) + 1
        while i < end:
            c = code[i]
            if c in "([":
                i = matching(code, i)
            elif c == "{":
                k = i - 1
                while code[k].isspace():
                    k -= 1
                if code[k] in ")}":
                    return i
                i = matching(code, i)
            elif c == ";":
                return None
            i += 1
        return None

    def in_initializer_list(head_start, brace):
        """True if a constructor's `) :` precedes brace in its declaration."""
        i = brace - 1
        depth = 0
        while i >= head_start:
            c = code[i]
            if c in ")]}":
                depth += 1
            elif c in "([{":
                if depth == 0:
                    return False
                depth -= 1
            elif c == ":" and depth == 0:
                if code[i - 1] == ":" or code[i + 1] == ":":
                    i -= 2
                    continue
                k = i - 1
                while k >= 0 and code[k].isspace():
                    k -= 1
                word = re.search(r"(\w+)$", code[max(0, k - 20):k + 1])
                if word and word.group(1) in ("public", "private", "protected"):
                    return False
                return code[k] == ")" or (word is not None and word.group(1) in
                                          ("noexcept", "const", "override", "final"))
            i -= 1
        return False

    def lambdas_in(begin, end):
        """Records the lambdas in an initializer or argument list outside any function (a
        table of handlers, a validator built from a lambda): each is a function of its own."""
        i = begin
        while i < end:
            if code[i] == "[" and starts_lambda(i):
                j = matching(code, i) + 1
                while j < end and code[j] not in "{;)]}":
                    j = matching(code, j) + 1 if code[j] in "([" else j + 1
                if j < end and code[j] == "{":
                    close = matching(code, j)
                    record("(lambda)", i, j, close)
                    i = close
            i += 1

    def starts_lambda(bracket):
        """True if the `[` at bracket opens a lambda's capture list, not a subscript."""
        if code[bracket + 1:bracket + 2] == "[":
            return False  # an attribute, [[...]]
        k = bracket - 1
        while k >= 0 and code[k].isspace():
            k -= 1
        return k < 0 or code[k] in "(,={[:?" or code[max(0, k - 5):k + 1] == "return"

    def record(name, head_start, open_brace, close_brace):
        found.append(Function(path, name, line_of(line_starts, head_start),
                              line_of(line_starts, open_brace),
                              line_of(line_starts, min(close_brace, len(code) - 1))))

    scan_scope(0, len(code))
    return found


def has_reason(lines, head_line):
    """True if the comment block directly above line head_line (1-based) has `// Long: why`."""
    k = head_line - 2
    while k >= 0 and lines[k].strip().startswith("//"):
        if re.match(r"\s*// Long:\s*\S", lines[k]):
            return True
        k -= 1
    return False


def source_files(roots):
    for root in roots:
        if os.path.isfile(root):
            yield root
            continue
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS
                             and not d.startswith("build"))
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.join(folder, name)


def production_dirs(repo):
    return [os.path.relpath(os.path.join(repo, name)) for name in sorted(os.listdir(repo))
            if os.path.isdir(os.path.join(repo, name)) and name not in NOT_PRODUCTION
            and not name.startswith((".", "build"))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="files or folders (default: production code)")
    parser.add_argument("--limit", type=int, default=LIMIT, help="longest allowed body, lines")
    args = parser.parse_args()
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    roots = args.paths or production_dirs(repo)
    for root in roots:
        if not os.path.exists(root):
            print(f"check-function-size: no such file or folder: {root}", file=sys.stderr)
            return 2

    offenders = []
    for path in source_files(roots):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        lines = text.split("\n")
        for fn in functions(path, text):
            if fn.length > args.limit and not has_reason(lines, fn.head_line):
                offenders.append(fn)

    offenders.sort(key=lambda fn: (-fn.length, fn.path, fn.head_line))
    for fn in offenders:
        print(f"{fn.path}:{fn.head_line}: {fn.name} is {fn.length} lines")
    if offenders:
        print(f"\n{len(offenders)} function(s) longer than {args.limit} lines. Split each into "
              "named steps, or write the reason it is best long in a `// Long: ...` comment "
              "just above its signature.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
