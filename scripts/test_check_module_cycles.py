#!/usr/bin/env python3
"""Tests of check_module_cycles.py on small made-up crates, Python packages and
JS folders: a real edge makes a cycle, at the top level or between siblings
inside a module; an edge in a comment, a string or test code does not, nor one
to a module's own parent or child."""

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
    return run_tree({"lib.rs": LIB, **files})


def run_tree(files, under=""):
    """The script's exit code and output on a folder made of `files` ({path: text}) alone (its subfolder `under`)."""
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as out:
                out.write(text)
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            code = check_module_cycles.main([os.path.join(root, under)])
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
        code, output = run(
            {
                "a/mod.rs": "mod inner;",
                "a/inner.rs": "use super::super::b::X;",
                "b.rs": "use crate::Renamed;",
                "c/mod.rs": "use crate::a::Y;",
                "c/other.rs": "",
            }
        )
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
            '#[cfg(all(test, feature = "json"))]\nmod json_tests { use crate::a::U; }\n'
        )
        files = {"a.rs": "use crate::b::X;", "b.rs": b, "b/more.rs": "use crate::a::T;", "c.rs": ""}
        code, output = run(files)
        self.assertEqual(code, 0, output)
        # Code after a test module still counts.
        code, output = run({**files, "b.rs": b + "use crate::a::After;\n"})
        self.assertEqual(code, 1, output)
        self.assertIn("b -> a  (b.rs:16)", output)

    def test_a_cycle_between_siblings_inside_a_folder_module_fails(self):
        nested = {
            "a/mod.rs": "mod x;\nmod y;\n",
            "a/x.rs": "use super::y::T;\n",
            "a/y.rs": "\nfn f() { super::x::g() }\n",
            "b.rs": "",
            "c.rs": "",
        }
        code, output = run(nested)
        self.assertEqual(code, 1, output)
        self.assertIn("inside a: x <-> y", output)
        self.assertIn("x -> y  (a/x.rs:1)", output)
        self.assertIn("y -> x  (a/y.rs:2)", output)
        # Two levels down, in an `x.rs` beside `x/`, through `crate::` paths and the parent's re-export.
        deep = {
            "a.rs": "mod d;",
            "a/d.rs": "pub mod x;\npub mod y;\npub use y::T;",
            "a/d/x.rs": "use super::T;",
            "a/d/y.rs": "use crate::a::d::x::U;",
            "b.rs": "",
            "c.rs": "",
        }
        code, output = run(deep)
        self.assertEqual(code, 1, output)
        self.assertIn("inside a::d: x <-> y", output)
        # Inline modules are nodes too.
        code, output = run(
            {"a.rs": "mod p { fn f() { super::q::g() } }\nmod q { use super::p::f; }", "b.rs": "", "c.rs": ""}
        )
        self.assertEqual(code, 1, output)
        self.assertIn("inside a: p <-> q", output)

    def test_nested_edges_one_way_and_edges_to_parent_or_child_pass(self):
        files = {
            "a/mod.rs": "mod x;\nmod y;\npub use x::X;\nfn helper() {}\nfn g() { y::h() }\n",
            "a/x.rs": "use super::y::T;\nuse super::helper;\nuse crate::b::B;\n",
            "a/y.rs": "fn h() { super::helper() }\n",
            "b.rs": "pub struct B;",
            "c.rs": "",
        }
        code, output = run(files)
        self.assertEqual(code, 0, output)
        # A `use` in a function body is an edge too: X is x's (re-exported by a), so y -> x closes a cycle.
        code, output = run({**files, "a/y.rs": "fn k() { use crate::a::X; }\n"})
        self.assertEqual(code, 1, output)
        self.assertIn("y -> x  (a/y.rs:1)", output)

    def test_each_root_is_checked(self):
        with tempfile.TemporaryDirectory() as clean, tempfile.TemporaryDirectory() as tangled:
            for root, files in (
                (clean, {"lib.rs": "mod a;", "a.rs": "", "main.rs": "fn main() {}"}),
                (tangled, {"lib.rs": "mod a;\nmod b;", "a.rs": "use crate::b::B;", "b.rs": "use crate::a::A;"}),
            ):
                for path, text in files.items():
                    with open(os.path.join(root, path), "w", encoding="utf-8") as out:
                        out.write(text)
            output = io.StringIO()
            with contextlib.redirect_stdout(output):
                self.assertEqual(check_module_cycles.main([clean]), 0, output.getvalue())
                self.assertEqual(check_module_cycles.main([clean, tangled]), 1, output.getvalue())
            self.assertIn(f"cycle among modules of {tangled}: a <-> b", output.getvalue())

    def test_the_core_the_cli_and_the_python_binding_have_no_cycle(self):
        repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
        roots = ["core/src", "cli/src", "bindings-python/src", "bindings-python/python/retryplan"]
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            self.assertEqual(
                check_module_cycles.main([os.path.join(repo, root) for root in roots]), 0, output.getvalue()
            )
        self.assertIn(
            "core/src, cli/src (lib.rs), cli/src (main.rs), bindings-python/src, bindings-python/python/retryplan",
            output.getvalue(),
        )

    def test_by_default_every_module_tree_of_the_repository_is_read(self):
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            check_module_cycles.main(["--graph"])
        for root in check_module_cycles.DEFAULT_ROOTS:
            self.assertIn(f"\n{root}", "\n" + output.getvalue(), f"{root} has no module with an edge")
        # Each language's edges are read: a Rust `use`, a Python import, a JS import.
        self.assertIn("bindings-python/python/retryplan: httpx -> ", output.getvalue())
        self.assertIn("bindings-js/lib: driver.js -> ", output.getvalue())


def run_floors(files, floors):
    """The script's exit code and output on a crate made of `files` alone, held to `floors` (ground floor first)."""
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as out:
                out.write(text)
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            code = check_module_cycles.main([f"--floors={','.join(floors)}", root])
        return code, output.getvalue()


FLOORED = {
    "lib.rs": "pub mod ground;\npub mod engine;\npub mod tools;\npub use engine::run::Run;\n",
    "ground/mod.rs": "pub mod units;\n",
    "ground/units.rs": "pub struct Ms;\n",
    "engine/mod.rs": "pub mod run;\n",
    "engine/run.rs": "use crate::ground::units::Ms;\npub struct Run(Ms);\n",
    "tools/mod.rs": "use crate::engine::run::Run;\n",
}


class FloorCheck(unittest.TestCase):
    def test_imports_down_or_level_pass(self):
        code, output = run_floors(FLOORED, ["ground", "engine", "tools"])
        self.assertEqual(code, 0, output)

    def test_an_import_up_a_floor_fails_with_its_line_even_through_a_root_reexport(self):
        for units in ("use crate::engine::run::Run;\n", "\n\nuse crate::Run;\n"):
            code, output = run_floors({**FLOORED, "ground/units.rs": units}, ["ground", "engine", "tools"])
            self.assertEqual(code, 1, output)
            self.assertIn("ground (floor 1) imports engine (floor 2), a higher floor", output)
            self.assertIn("ground/units.rs:", output)
            self.assertIn("1 floor problem(s)", output)

    def test_a_nested_import_up_a_floor_is_the_folders_edge(self):
        files = {
            **FLOORED,
            "tools/mod.rs": "pub mod deep;\n",
            "tools/deep.rs": "pub struct Deep;\n",
            "engine/run.rs": "use crate::tools::deep::Deep;\npub struct Run(Deep);\n",
        }
        code, output = run_floors(files, ["ground", "engine", "tools"])
        self.assertEqual(code, 1, output)
        self.assertIn("engine (floor 2) imports tools (floor 3), a higher floor  (engine/run.rs:1)", output)

    def test_a_top_level_module_with_no_floor_fails(self):
        code, output = run_floors(
            {**FLOORED, "lib.rs": FLOORED["lib.rs"] + "mod stray;\n", "stray.rs": ""}, ["ground", "engine", "tools"]
        )
        self.assertEqual(code, 1, output)
        self.assertIn("top-level module stray stands on no floor", output)

    def test_the_core_is_held_to_its_table_and_passes(self):
        repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
        self.assertEqual(check_module_cycles.label(os.path.join(repo, "core/src")), "core/src")
        self.assertIn("core/src", check_module_cycles.FLOORS)
        crate = check_module_cycles.Crate(os.path.join(repo, "core/src"), "lib.rs")
        levels = crate.edges()
        self.assertEqual(check_module_cycles.floor_violations(levels, check_module_cycles.FLOORS["core/src"]), [])
        # Every top-level module of the core is a floor of the table, and the table names no missing one.
        self.assertEqual(set(levels[()]), set(check_module_cycles.FLOORS["core/src"]))
        # The table is really applied: turned upside down, the core fails it.
        upside_down = tuple(reversed(check_module_cycles.FLOORS["core/src"]))
        self.assertNotEqual(check_module_cycles.floor_violations(levels, upside_down), [])


class PythonCycleCheck(unittest.TestCase):
    def test_an_import_each_way_is_a_cycle_even_a_lazy_one(self):
        files = {
            "pkg/__init__.py": "from ._a import A\n",
            "pkg/_a.py": "from ._b import B\n",
            "pkg/_b.py": "import sys\n\n\ndef f():\n    from ._a import A\n",
        }
        code, output = run_tree(files, "pkg")
        self.assertEqual(code, 1, output)
        self.assertIn("cycle among modules of", output)
        self.assertIn("_a <-> _b", output)
        self.assertIn("_a -> _b  (_a.py:1)", output)
        self.assertIn("_b -> _a  (_b.py:5)", output)

    def test_every_form_of_import_is_an_edge(self):
        for b in [
            "from . import _a\n",
            "import pkg._a\n",
            "from pkg._a import A\n",
            "from pkg import _a\n",
            "from . import A\n",  # re-exported by the package from _a
            "if TYPE_CHECKING:\n    from ._a import A\n",
            "from .sub.deep import D\n",  # sub.deep imports _a: b -> sub -> a -> b
        ]:
            files = {
                "pkg/__init__.py": "from ._a import A\n",
                "pkg/_a.py": "from ._b import B\n",
                "pkg/_b.py": b,
                "pkg/sub/__init__.py": "",
                "pkg/sub/deep.py": "from .._a import A\n",
            }
            code, output = run_tree(files, "pkg")
            self.assertEqual(code, 1, f"{b!r}: {output}")

    def test_a_module_using_its_package_or_another_package_is_not_an_edge(self):
        files = {
            "pkg/__init__.py": "from ._a import A\nfrom . import _b\n",
            "pkg/_a.py": "from ._b import B\nfrom ._native import N\nimport json\n",
            "pkg/_b.py": "from . import __version__\nfrom ._native import A\nimport other._a\nfrom other import _a\n",
        }
        code, output = run_tree(files, "pkg")
        self.assertEqual(code, 0, output)


class JsCycleCheck(unittest.TestCase):
    def test_an_import_each_way_is_a_cycle(self):
        for a, b in [
            ("import { b } from './b.js';\n", "\nimport * as a from './a.js';\n"),
            ("export { b } from './b.js';\n", "\nexport * from './a.js';\n"),
            ("const b = await import('./b.js');\n", "\nimport './a.js';\n"),
        ]:
            code, output = run_tree({"a.js": a, "b.js": b, "c.mjs": "import { a } from './a.js';\n"})
            self.assertEqual(code, 1, output)
            self.assertIn("a.js <-> b.js", output)
            self.assertIn("b.js -> a.js  (b.js:2)", output)

    def test_a_subfolder_is_one_node_at_its_parents_level(self):
        files = {"a.js": "import { x } from './gen/x.js';\n", "gen/x.js": "import { a } from '../a.js';\n"}
        code, output = run_tree(files)
        self.assertEqual(code, 1, output)
        self.assertIn("a.js <-> gen", output)
        self.assertIn("gen -> a.js  (gen/x.js:1)", output)

    def test_comments_strings_and_packages_are_not_edges(self):
        b = (
            "// import { a } from './a.js';\n"
            "/* export * from './a.js'; */\n"
            "const s = \"import './a.js'\";\n"
            "import { x } from 'some-package';\n"
            "import { y } from '../outside.js';\n"
        )
        code, output = run_tree({"a.js": "import { b } from './b.js';\n", "b.js": b})
        self.assertEqual(code, 0, output)


if __name__ == "__main__":
    unittest.main()
