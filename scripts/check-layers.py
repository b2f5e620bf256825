#!/usr/bin/env python3
"""Checks isamap's layering against the layer table (scripts/layers.txt; ARCHITECTURE.md,
"Layers"). Exit 0 when everything obeys it, 1 with one line per violation, 2 on bad usage.

  check-layers.py [--root DIR] [--table FILE] [--cmake-graph FILE] [--links]

Always: the table is well formed (each layer uses only layers above it, so there is no cycle),
every C/C++ file outside the table's unchecked directories belongs to a layer, and every
#include in them names a header of the file's own layer, of a layer its layer reaches through
"uses", or an outside header its layer is allowed (guarded prefixes). Errors name file:line.

--cmake-graph FILE (build/layers.txt, written by cmake/IsamapLibrary.cmake: "name archive
dep..." per library): every library isamap_L is a layer L of the table and declares in
LINK_LIBS exactly the layers the table says L uses.

--links (with --cmake-graph): reads the archives with nm; a library that needs a symbol
defined in another of the listed libraries must reach that library through its declared
dependencies. Static libraries would otherwise hide the missing dependency until an
executable happens to link the other library too.
"""

import argparse
import os
import re
import subprocess
import sys

SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".c")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


class Table:
    def __init__(self, path):
        self.path = path
        self.order = []  # layer names, bottom up
        self.dirs = {}  # layer -> [directory]
        self.uses = {}  # layer -> set(layer)
        self.headers = {}  # layer -> [outside header prefix]
        self.guarded = []
        self.unchecked = []
        self.errors = []
        self._read()
        self.reach = {layer: self._closure(layer) for layer in self.order}

    def _read(self):
        with open(self.path, encoding="utf-8") as f:
            for number, raw in enumerate(f, 1):
                line = raw.split("#", 1)[0].strip()
                if not line:
                    continue
                where = f"{self.path}:{number}"
                if line.startswith("guarded:"):
                    self.guarded = line[len("guarded:"):].split()
                    continue
                if line.startswith("unchecked:"):
                    self.unchecked = [d.strip("/") for d in line[len("unchecked:"):].split()]
                    continue
                cells = [c.strip() for c in line.split("|")]
                if len(cells) != 4 or not cells[0] or not cells[1]:
                    self.errors.append(f"{where}: expected 'layer | directories | uses | headers'")
                    continue
                name, dirs, uses, headers = cells
                if name in self.dirs:
                    self.errors.append(f"{where}: layer '{name}' is listed twice")
                    continue
                for used in uses.split():
                    if used == name:
                        self.errors.append(f"{where}: layer '{name}' uses itself")
                    elif used not in self.dirs:
                        self.errors.append(
                            f"{where}: layer '{name}' uses '{used}', which is not a layer "
                            "listed above it (layers use only layers below them)")
                self.order.append(name)
                self.dirs[name] = [d.strip("/") for d in dirs.split()]
                self.uses[name] = set(uses.split()) & set(self.dirs)
                self.headers[name] = headers.split()

    def _closure(self, layer):
        seen, todo = set(), list(self.uses[layer])
        while todo:
            used = todo.pop()
            if used not in seen:
                seen.add(used)
                todo.extend(self.uses.get(used, ()))
        return seen

    def layer_of(self, relpath):
        """The layer owning a path relative to the root (longest directory match), or None."""
        best, best_len = None, -1
        for layer in self.order:
            for d in self.dirs[layer]:
                if (relpath == d or relpath.startswith(d + "/")) and len(d) > best_len:
                    best, best_len = layer, len(d)
        return best

    def is_unchecked(self, relpath):
        return any(relpath == d or relpath.startswith(d + "/") for d in self.unchecked)


def source_files(root, table):
    """Every C/C++ file under root, relative, skipping build trees and node_modules."""
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/")
        dirnames[:] = sorted(
            d for d in dirnames
            if not d.startswith(".") and d != "node_modules"
            and not os.path.exists(os.path.join(dirpath, d, "CMakeCache.txt"))
            and not table.is_unchecked(f"{rel_dir}/{d}" if rel_dir else d))
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES):
                yield f"{rel_dir}/{name}" if rel_dir else name


def resolve(root, relfile, header):
    """The repository file a quoted include names (relative to the including file, then core/,
    then the root: the include path of every isamap target), or None for an outside header."""
    for base in (os.path.dirname(relfile), "core", ""):
        candidate = os.path.normpath(os.path.join(base, header)).replace(os.sep, "/")
        if not candidate.startswith("..") and os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def check_includes(root, table):
    errors = []
    for relfile in source_files(root, table):
        layer = table.layer_of(relfile)
        if layer is None:
            errors.append(f"{relfile}: belongs to no layer: add its directory to "
                          f"{os.path.relpath(table.path, root)} (or to 'unchecked')")
            continue
        with open(os.path.join(root, relfile), encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
        for number, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            header = m.group(2)
            where = f"{relfile}:{number}"
            target = resolve(root, relfile, header)
            if target is not None:
                other = table.layer_of(target)
                if other == layer:
                    continue
                if other is None:
                    errors.append(f"{where}: layer '{layer}' includes \"{header}\" ({target}), "
                                  "which belongs to no layer")
                elif other not in table.reach[layer]:
                    way = (f"the wrong way: '{other}' is above '{layer}'"
                           if layer in table.reach[other] else
                           f"'{layer}' does not use '{other}'")
                    errors.append(f"{where}: layer '{layer}' includes \"{header}\" of layer "
                                  f"'{other}', {way}")
                continue
            guard = next((g for g in table.guarded if header.startswith(g)), None)
            if guard and not any(header.startswith(h) for h in table.headers[layer]):
                allowed = " ".join(table.headers[layer]) or "none"
                errors.append(f"{where}: layer '{layer}' may not include <{header}> "
                              f"(guarded '{guard}'; this layer may include: {allowed})")
    return errors


def read_cmake_graph(path):
    libraries = {}  # name -> (archive, [dep])
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 2:
                libraries[fields[0]] = (fields[1], fields[2:])
    return libraries


def layer_name(library):
    return library[len("isamap_"):] if library.startswith("isamap_") else library


def check_cmake(table, libraries, table_path):
    errors = []
    for library, (_, deps) in sorted(libraries.items()):
        layer = layer_name(library)
        if layer not in table.uses:
            errors.append(f"{library}: declared with isamap_add_library but '{layer}' is no "
                          f"layer of {table_path}")
            continue
        declared = {layer_name(d) for d in deps}
        if declared != table.uses[layer]:
            missing = sorted(table.uses[layer] - declared)
            extra = sorted(declared - table.uses[layer])
            detail = []
            if missing:
                detail.append("LINK_LIBS lacks " + " ".join("isamap_" + d for d in missing))
            if extra:
                detail.append("the table does not list " + " ".join(extra))
            errors.append(f"{library}: LINK_LIBS and {table_path} disagree ({'; '.join(detail)})")
    return errors


def nm_symbols(archive):
    """(defined, undefined) mangled symbol sets of an archive; weak definitions (inline
    functions, template instances, emitted wherever they are used) are not owned by anyone."""
    out = subprocess.run(["nm", "-P", "-g", archive], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2 or line.endswith(":"):
            continue  # an archive member's header
        symbol, kind = fields[0], fields[1]
        if kind == "U":
            undefined.add(symbol)
        elif kind in "TDBRCG":
            defined.add(symbol)
    return defined, undefined - defined


def demangle(symbol):
    try:
        return subprocess.run(["c++filt", symbol], check=True, capture_output=True,
                              text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return symbol


def check_links(libraries):
    errors = []
    symbols = {lib: nm_symbols(archive) for lib, (archive, _) in libraries.items()}
    owner = {}
    for lib, (defined, _) in symbols.items():
        for s in defined:
            owner.setdefault(s, lib)

    def reach(lib):
        seen, todo = set(), list(libraries[lib][1])
        while todo:
            d = todo.pop()
            if d not in seen and d in libraries:
                seen.add(d)
                todo.extend(libraries[d][1])
        return seen

    for lib in sorted(libraries):
        reachable = reach(lib)
        missing = {}
        for s in symbols[lib][1]:
            o = owner.get(s)
            if o is not None and o != lib and o not in reachable:
                missing.setdefault(o, []).append(s)
        for o, syms in sorted(missing.items()):
            errors.append(f"{lib}: uses {len(syms)} symbol(s) of {o} without declaring it "
                          f"(directly or through its dependencies), e.g. "
                          f"{demangle(sorted(syms)[0])}")
    return errors


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.dirname(here))
    parser.add_argument("--table")
    parser.add_argument("--cmake-graph")
    parser.add_argument("--links", action="store_true")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    table_path = args.table or os.path.join(root, "scripts", "layers.txt")
    if args.links and not args.cmake_graph:
        parser.error("--links needs --cmake-graph")

    table = Table(table_path)
    errors = list(table.errors)
    if not errors:
        errors += check_includes(root, table)
        if args.cmake_graph:
            libraries = read_cmake_graph(args.cmake_graph)
            errors += check_cmake(table, libraries, os.path.relpath(table_path, root))
            if args.links:
                errors += check_links(libraries)
    for e in errors:
        print(e)
    if errors:
        print(f"check-layers: {len(errors)} violation(s) of {table_path}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
