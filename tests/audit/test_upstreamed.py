"""Verdict accuracy: "upstreamed" survives reformatting, moves and differing tests.

Each case is a small new upstream tree and a backport written against the old one, in the
shapes the Django 3.2 -> 4.2 series shows (black's quotes and line splits, a file split into
a package, upstream's own tests).
"""

from __future__ import annotations

from pathlib import Path

from patchkeeper.audit.series_verdicts import judge_series
from patchkeeper.series.engine import Workspace
from patchkeeper.series.parse import parse_patch
from patchkeeper.series.substantive_lines import FileIndex, is_code, substantive, tokens
from patchkeeper.trees.tree import read_file
from patchkeeper.upstream.treesearch import TreeSearch


def judge(tmp_path: Path, files: dict[str, str], *patches: str):
    for path, text in files.items():
        dest = tmp_path / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text)
    parsed = [
        parse_patch(text.encode(), name=f"p{n}.patch", path=Path(f"p{n}.patch"))
        for n, text in enumerate(patches)
    ]
    ws = Workspace(lambda path: read_file(tmp_path / path))
    return judge_series(ws, parsed, TreeSearch(tmp_path))


BACKPORT = """Subject: limit the language code
---
--- a/pkg/trans.py
+++ b/pkg/trans.py
@@ -1,4 +1,6 @@
 def variant(code, strict=False):
     code = code.strip()
+    if len(code) > MAX_LENGTH:
+        raise ValueError('lang code too long: %s' % code[:10], code,)
     return lookup(code, strict)
 
--- a/tests/test_trans.py
+++ b/tests/test_trans.py
@@ -1,3 +1,5 @@
 def test_variant():
     assert variant('en')
+    with raises(ValueError):
+        variant('x' * 1000)
 
"""

NEW_TRANS = '''"""Translation helpers (reformatted by black upstream)."""


def variant(code, strict=False):
    """Return the variant."""
    code = code.strip()
    if len(code) > MAX_LENGTH:
        raise ValueError(
            "lang code too long: %s" % code[:10],
            code,
        )
    return lookup(code, strict)
'''


def test_reformatted_code_with_other_tests_is_upstreamed(tmp_path: Path) -> None:
    files = {
        "pkg/trans.py": NEW_TRANS,
        "tests/test_trans.py": 'def test_variant():\n    assert variant("en")\n\n\n'
        "def test_too_long():\n    pytest.raises(ValueError, variant, 'x' * 1000)\n",
    }
    [verdict] = judge(tmp_path, files, BACKPORT)
    assert verdict.verdict == "upstreamed"
    assert verdict.summary.startswith(
        "every code hunk's post-image is there (pkg/trans.py #1); tests and docs differ "
        "(tests/test_trans.py #1 fails); 2 of 4 substantive added lines already upstream "
        "(strongest: pkg/trans.py 2/2)"
    )


def test_written_differently_names_what_is_missing(tmp_path: Path) -> None:
    patch = """Subject: x
---
--- a/pkg/mod.py
+++ b/pkg/mod.py
@@ -1,3 +1,7 @@
 def f(a):
+    checked = check(a)
+    logged = log(checked, level=3)
+    stored = store(logged, cache=True)
+    notify_downstream_listeners(stored)
     return a
 
"""
    new = (
        "def f(a):\n    return g(a)\n\n\ndef g(a):\n    stored = store(logged, cache=True)\n"
        "    checked = check(a)\n    logged = log(checked, level=3)\n    return a\n"
    )
    [verdict] = judge(tmp_path, {"pkg/mod.py": new}, patch)
    assert verdict.verdict == "upstreamed"
    assert verdict.summary.startswith(
        "upstream has it written differently: every code file has at least 75% of its "
        "substantive added lines there (pkg/mod.py 3/4) (the old pin's tree was not available: "
        "lines it already had are counted too); not found, review before retiring: "
        "`notify_downstream_listeners(stored)`"
    )


def test_half_of_a_fix_upstream_is_not_upstreamed(tmp_path: Path) -> None:
    patch = """Subject: x
---
--- a/a.py
+++ b/a.py
@@ -1,2 +1,3 @@
 def a():
+    validate_input_length(value)
     return 1
--- a/b.py
+++ b/b.py
@@ -1,2 +1,3 @@
 def b():
+    reject_negative_scale(value)
     return 2
"""
    files = {
        "a.py": "def a():\n    validate_input_length(value)\n    return 1\n",
        "b.py": "def b():\n    return 3\n",
    }
    [verdict] = judge(tmp_path, files, patch)
    assert verdict.verdict == "conflict"
    assert [(s.path, s.found, s.total) for s in verdict.shares] == [("a.py", 1, 1), ("b.py", 0, 1)]


def test_a_fix_in_a_file_that_became_a_package_is_upstreamed(tmp_path: Path) -> None:
    patch = """Subject: x
---
--- a/pkg/storage.py
+++ b/pkg/storage.py
@@ -1,5 +1,6 @@
 class Storage:
     def save(self, name, content):
         name = self.get_available_name(name)
+        validate_file_name(name, allow_relative_path=True)
         name = self._save(name, content)
         return name
"""
    moved = (
        "from pkg.utils import validate_file_name\n\n\nclass Storage:\n"
        "    def save(self, name, content):\n        name = self.get_available_name(name)\n"
        "        validate_file_name(name, allow_relative_path=True)\n"
        "        name = self._save(name, content)\n        return name\n"
    )
    files = {"pkg/storage/base.py": moved, "pkg/storage/__init__.py": "from .base import *\n"}
    [verdict] = judge(tmp_path, files, patch)
    assert verdict.verdict == "upstreamed"
    # judged against the file it moved to: there the patch reverse-applies
    assert verdict.summary == (
        "pkg/storage.py moved to pkg/storage/base.py; the patch reverse-applies: the new "
        "upstream already has its post-image; 1 of 1 substantive added lines already upstream "
        "(strongest: pkg/storage/base.py 1/1); to do: retire (upstream has it)"
    )


def test_one_shared_line_is_not_where_a_file_went(tmp_path: Path) -> None:
    patch = """Subject: x
---
--- a/bin/tool.py
+++ b/bin/tool.py
@@ -1,2 +1,2 @@
-#!/usr/bin/python
+#!/usr/bin/python3
 from pkg import main
"""
    [verdict] = judge(tmp_path, {"pkg/apps.py": "from pkg import main\n"}, patch)
    assert verdict.verdict == "target gone"
    assert verdict.summary == (
        "bin/tool.py no longer exists; its content was not found elsewhere; to do: look (its "
        "file is gone and its content was not found)"
    )


def test_tokens_and_the_file_index() -> None:
    assert tokens(b"x = f('a', b,)  # note") == [b"x", b"=", b"f", b"(", b'"a"', b",", b"b", b")"]
    index = FileIndex(
        [b"value = compute(\n", b'    "text",\n', b"    other,\n", b")\n", b"y.x = 1\n"]
    )
    assert index.find(substantive(b"value = compute('text', other)")) == 0
    assert index.find(b"x = 1") is None  # too short to match inside a longer line
    assert index.find(b"y.x = 1") == 4
    assert index.has(b"other,")
    # a hexadecimal escape is one character whatever the case of its digits (an escaped
    # backslash before an x is not an escape)
    assert tokens(rb'der = b"\x30\x0B" + "\\x0B"') == [
        b"der",
        b"=",
        b"b",
        rb'"\x30\x0b"',
        b"+",
        rb'"\\x0B"',
    ]
    assert FileIndex([rb'    der = b"\x30\x0b\x06"' + b"\n"]).has(rb'der = b"\x30\x0B\x06"')
    assert [
        is_code(p) for p in ("django/utils/html.py", "tests/x.py", "docs/releases/4.2.txt")
    ] == [
        True,
        False,
        False,
    ]
