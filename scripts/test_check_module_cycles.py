#!/usr/bin/env python3
"""Tests of check_module_cycles.py on small made-up crates: a real edge makes a
cycle, an edge in a comment, a string or test code does not."""

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_module_cycles  # noqa: E402

LIB = "mod a;\nmod b;\nmod c;\npub use c::{Thing, other::Deep as Renamed};\n"


def run(files):
    """The script's exit code and output on a crate made of `files` ({path: text})."""
    with tempfile.TemporaryDirectory() as root:
        for path, text in {"lib.rs": LIB, **files}.items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as out:
                out.write(text)
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            code = check_module_cycles.main([root])
        return code, output.getvalue()


class CycleCheck(unittest.TestCase):
    def test_a_use_each_way_is_a_cycle_named_with_its_lines(self):
        code, output = run({"a.rs": "use crate::b::X;\n", "b.rs": "\n\nuse crate::a::Y;\n", "c.rs": ""})
        self.assertEqual(code, 1)
        self.assertIn("a <-> b", output)
        self.assertIn("a -> b  (a.rs:1)", output)
        self.assertIn("b -> a  (b.rs:3)", output)

    def test_grouped_uses_paths_super_and_root_reexports_are_edges(self):
        for a in ["use crate::{x::Y, b::{Z, W}};", "fn f() -> crate::b::Z { todo!() }"]:
            code, _ = run({"a.rs": a, "b.rs": "use crate::Thing;", "c.rs": "use crate::a::Q;"})
            self.assertEqual(code, 1, a)
        code, output = run({"a/mod.rs": "mod inner;", "a/inner.rs": "use super::super::b::X;", "b.rs": "use crate::Renamed;", "c/mod.rs": "use crate::a::Y;", "c/other.rs": ""})
        self.assertEqual(code, 1, output)
        self.assertIn("a <-> b <-> c", output)

    def test_comments_strings_and_test_code_are_not_edges(self):
        b = (
            "// use crate::a::X;\n"
            "/* crate::a::Y */\n"
            "/// [`crate::a::Z`]\n"
            'const S: &str = "crate::a::W";\n'
            'const R: &str = r#"crate::a::V"#;\n'
            "fn f<'x>(c: char) -> bool { c == '\"' }\n"
            "#[cfg(test)]\nmod tests {\n    use crate::a::T;\n    fn g() { if true { crate::a::h(); } }\n}\n"
            "#[cfg(test)]\nmod more;\n"
        )
        files = {"a.rs": "use crate::b::X;", "b.rs": b, "b/more.rs": "use crate::a::T;", "c.rs": ""}
        code, output = run(files)
        self.assertEqual(code, 0, output)
        # Code after a test module still counts.
        code, output = run({**files, "b.rs": b + "use crate::a::After;\n"})
        self.assertEqual(code, 1, output)
        self.assertIn("b -> a  (b.rs:14)", output)

    def test_the_core_has_no_cycle(self):
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "core", "src")
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            self.assertEqual(check_module_cycles.main([root]), 0, output.getvalue())


if __name__ == "__main__":
    unittest.main()
