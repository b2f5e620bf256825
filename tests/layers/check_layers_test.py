#!/usr/bin/env python3
"""Tests of scripts/check-layers.py on small trees that obey or break a layer table: the checker
must fail, naming the file and line, on each kind of violation it exists to catch."""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                       "check-layers.py")

TABLE = """\
guarded: llvm/ nlohmann/
unchecked: tests
base | core/base |      | llvm/ADT/
top  | core/top  | base | nlohmann/
app  | app       | top  | llvm/
"""


class Tree:
    """A temporary source tree: files by relative path."""

    def __init__(self, files, table=TABLE):
        self.root = tempfile.mkdtemp(prefix="layers-")
        self.write("layers.txt", table)
        for path, text in files.items():
            self.write(path, text)

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(text))

    def check(self, *extra):
        return subprocess.run(
            [sys.executable, CHECKER, "--root", self.root, "--table",
             os.path.join(self.root, "layers.txt"), *extra],
            capture_output=True, text=True)

    def remove(self):
        shutil.rmtree(self.root)


GOOD = {
    "core/base/Base.h": '#pragma once\n#include <vector>\n#include <llvm/ADT/StringRef.h>\n',
    "core/base/Base.cpp": '#include "base/Base.h"\n',
    "core/top/Top.h": '#pragma once\n#include "base/Base.h"\n#include <nlohmann/json.hpp>\n',
    "core/top/Top.cpp": '#include "Top.h"\n#include "top/Top.h"\n',
    "app/Main.cpp": '#include "top/Top.h"\n#include "base/Base.h"\n#include <llvm/IR/Module.h>\n',
    "tests/AnythingGoes.cpp": '#include "app/Main.cpp"\n',
}


class IncludeRules(unittest.TestCase):
    def run_tree(self, files, table=TABLE, extra=()):
        tree = Tree(files, table)
        self.addCleanup(tree.remove)
        return tree.check(*extra)

    def test_a_tree_that_obeys_the_table_passes(self):
        result = self.run_tree(GOOD)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(result.stdout, "")

    def test_an_include_the_wrong_way_fails_naming_file_and_line(self):
        files = dict(GOOD)
        files["core/base/Base.cpp"] = '#include "base/Base.h"\n\n#include "top/Top.h"\n'
        result = self.run_tree(files)
        self.assertEqual(result.returncode, 1)
        self.assertIn("core/base/Base.cpp:3: layer 'base' includes \"top/Top.h\" of layer 'top', "
                      "the wrong way", result.stdout)

    def test_an_include_from_the_source_root_is_resolved_too(self):
        files = dict(GOOD)
        files["core/top/Top.cpp"] = '#include "app/Main.cpp"\n'
        result = self.run_tree(files)
        self.assertEqual(result.returncode, 1)
        self.assertIn("core/top/Top.cpp:1: layer 'top' includes \"app/Main.cpp\" of layer 'app'",
                      result.stdout)

    def test_a_guarded_outside_header_needs_the_layers_own_prefix(self):
        files = dict(GOOD)
        files["core/base/Jit.cpp"] = '#include <llvm/ExecutionEngine/Orc/LLJIT.h>\n'
        # Not inherited from the layers above either: base may not include JSON.
        files["core/base/Json.cpp"] = '  #  include <nlohmann/json.hpp>\n'
        result = self.run_tree(files)
        self.assertEqual(result.returncode, 1)
        self.assertIn("core/base/Jit.cpp:1: layer 'base' may not include "
                      "<llvm/ExecutionEngine/Orc/LLJIT.h>", result.stdout)
        self.assertIn("core/base/Json.cpp:1: layer 'base' may not include <nlohmann/json.hpp>",
                      result.stdout)

    def test_a_file_outside_every_layer_fails(self):
        files = dict(GOOD)
        files["newdir/Thing.cpp"] = "int x;\n"
        result = self.run_tree(files)
        self.assertEqual(result.returncode, 1)
        self.assertIn("newdir/Thing.cpp: belongs to no layer", result.stdout)

    def test_a_table_with_a_cycle_or_unknown_layer_fails(self):
        cyclic = TABLE.replace("base | core/base |      |", "base | core/base | top  |")
        result = self.run_tree(GOOD, cyclic)
        self.assertEqual(result.returncode, 1)
        self.assertIn("layer 'base' uses 'top', which is not a layer listed above it",
                      result.stdout)


def compile_archive(tree, name, source):
    # Under the table's unchecked directory: the C file is not part of any layer.
    c = os.path.join(tree.root, "tests", name + ".c")
    o = os.path.join(tree.root, "tests", name + ".o")
    a = os.path.join(tree.root, "tests", f"lib{name}.a")
    with open(c, "w", encoding="utf-8") as f:
        f.write(source)
    subprocess.run(["cc", "-c", c, "-o", o], check=True)
    subprocess.run(["ar", "rcs", a, o], check=True)
    return a


class CMakeAndLinks(unittest.TestCase):
    def setUp(self):
        self.tree = Tree(GOOD)
        self.addCleanup(self.tree.remove)

    def graph(self, lines):
        path = os.path.join(self.tree.root, "graph.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def test_link_libs_that_differ_from_the_table_fail(self):
        graph = self.graph(["isamap_base base.a", "isamap_top top.a",
                            "isamap_app app.a isamap_top isamap_base"])
        result = self.tree.check("--cmake-graph", graph)
        self.assertEqual(result.returncode, 1)
        self.assertIn("isamap_top: LINK_LIBS and layers.txt disagree (LINK_LIBS lacks "
                      "isamap_base)", result.stdout)
        self.assertIn("isamap_app: LINK_LIBS and layers.txt disagree (the table does not list "
                      "base)", result.stdout)

    def test_a_library_that_is_no_layer_fails(self):
        graph = self.graph(["isamap_base base.a", "isamap_extra extra.a isamap_base"])
        result = self.tree.check("--cmake-graph", graph)
        self.assertEqual(result.returncode, 1)
        self.assertIn("isamap_extra: declared with isamap_add_library but 'extra' is no layer",
                      result.stdout)

    def test_a_symbol_used_from_an_undeclared_library_fails(self):
        base = compile_archive(self.tree, "base", "int top_value(void);\n"
                               "int base_value(void) { return top_value(); }\n")
        top = compile_archive(self.tree, "top", "int base_value(void);\n"
                              "int top_value(void) { return 1; }\n"
                              "int top_twice(void) { return 2 * base_value(); }\n")
        graph = self.graph([f"isamap_base {base}", f"isamap_top {top} isamap_base"])
        result = self.tree.check("--cmake-graph", graph, "--links")
        self.assertEqual(result.returncode, 1)
        self.assertIn("isamap_base: uses 1 symbol(s) of isamap_top without declaring it",
                      result.stdout)
        self.assertIn("top_value", result.stdout)
        self.assertNotIn("isamap_top: uses", result.stdout)  # declared: fine

    def test_declared_symbols_pass(self):
        base = compile_archive(self.tree, "base", "int base_value(void) { return 1; }\n")
        top = compile_archive(self.tree, "top", "int base_value(void);\n"
                              "int top_value(void) { return base_value(); }\n")
        graph = self.graph([f"isamap_base {base}", f"isamap_top {top} isamap_base"])
        result = self.tree.check("--cmake-graph", graph, "--links")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)


if __name__ == "__main__":
    unittest.main()
