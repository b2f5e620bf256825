#!/usr/bin/env python3
"""Self-test of scripts/check-function-size.py over the fixtures in tests/tidy/function-size.

    check_function_size_test.py SCRIPT   # run by ctest as function_size_selftest
"""

import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "function-size")
SCRIPT = None


def check(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          cwd=FIXTURES)


class CheckFunctionSize(unittest.TestCase):
    def test_too_long_functions_fail_longest_first(self):
        result = check("too-long")
        self.assertEqual(result.returncode, 1, result.stderr)
        # Line numbers are the signatures' first lines (the template's for `sum`); the lambda
        # inside `sum` is part of it, and no short function is reported, however many braces
        # its strings, comments and literals hold.
        self.assertEqual(result.stdout.splitlines(), [
            "too-long/Long.cpp:255: sum is 107 lines",
            "too-long/Long.cpp:145: Widget::Widget is 105 lines",
            "too-long/Long.cpp:32: draw is 104 lines",
        ])
        self.assertIn("// Long:", result.stderr)

    def test_a_written_reason_and_the_limit_itself_pass(self):
        result = check("with-reason")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(result.stdout, "")

    def test_the_limit_is_inclusive(self):
        result = check("--limit", "99", "with-reason")
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout.splitlines(),
                         ["with-reason/Reasoned.cpp:113: hundred is 100 lines"])

    def test_a_missing_folder_is_a_usage_error(self):
        result = check("no-such-folder")
        self.assertEqual(result.returncode, 2)
        self.assertIn("no-such-folder", result.stderr)


if __name__ == "__main__":
    SCRIPT = os.path.abspath(sys.argv.pop(1))
    unittest.main()
