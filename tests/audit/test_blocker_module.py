"""A patch that applies, but whose code imports a module that neither the old pin nor the
new release has and that only an earlier, failing patch of the series creates: it cannot
run before that patch is ported, so it is *blocked* (port it after that patch), never
*carry*. The shape of a security series: a fix that adds an image-format inspector module,
then its tests in a file of their own; the new release rewrote the code the fix changes."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from audit_support import dated, judge, write_tree

from patchkeeper.audit.series_verdicts import judge_series
from patchkeeper.series.engine import Workspace
from patchkeeper.series.parse import parse_patch
from patchkeeper.trees.tree import read_file
from patchkeeper.upstream.treesearch import TreeSearch

IMAGES = '''"""Fetching images."""


def fetch(path):
    with open(path, "rb") as f:
        return f.read()
'''

# the release reworked fetch(): the fix's hunk no longer fits
NEW_IMAGES = '''"""Fetching images."""


def fetch(path, limit=None):
    with open(path, "rb") as stream:
        return stream.read(limit or -1)
'''

FIX = """Subject: Check images with an inspector before using them
---
--- /dev/null
+++ b/app/inspector.py
@@ -0,0 +1,3 @@
+def detect(data):
+    \"\"\"The image format of data.\"\"\"
+    return "qcow2" if data.startswith(b"QFI") else "raw"
--- a/app/images.py
+++ b/app/images.py
@@ -1,6 +1,9 @@
 \"\"\"Fetching images.\"\"\"
+from app import inspector
 
 
 def fetch(path):
     with open(path, "rb") as f:
-        return f.read()
+        data = f.read()
+    inspector.detect(data)
+    return data
"""

TESTS = """Subject: Tests of the image inspector
Origin: upstream, https://review.example.org/c/app/+/923731
Date: Thu, 04 Jul 2024 12:38:39 +0100
---
--- /dev/null
+++ b/app/tests/test_inspector.py
@@ -0,0 +1,6 @@
+import unittest
+from app import inspector
+
+class TestInspector(unittest.TestCase):
+    def test_raw(self):
+        self.assertEqual(inspector.detect(b"plain"), "raw")
"""

OLD = {"app/__init__.py": "", "app/images.py": IMAGES, "app/tests/__init__.py": ""}


def test_tests_of_a_module_a_failing_patch_creates_are_blocked(tmp_path: Path) -> None:
    tests = TESTS.replace("Origin: upstream, https://review.example.org/c/app/+/923731\n", "")
    new = {**OLD, "app/images.py": NEW_IMAGES}
    fix, verdict = judge(tmp_path, new, [("fix.patch", FIX), ("tests.patch", tests)], OLD)
    assert (fix.verdict, fix.action) == ("conflict", "port")
    assert (verdict.verdict, verdict.action, verdict.rule) == ("blocked", "port", "blocker-module")
    assert verdict.blocked_by == "fix.patch"
    assert verdict.summary == (
        "it applies, but imports app/inspector.py, which neither the old pin nor the new "
        "release has and only the failing patch fix.patch creates; to do: port (after "
        "fix.patch)"
    )


def test_an_upstream_commit_so_blocked_is_looked_at(tmp_path: Path) -> None:
    # its Origin names upstream's review, dated before the release: as any blocked patch
    # that is upstream's commit, a person decides
    new_root = dated(
        write_tree(tmp_path / "new", {**OLD, "app/images.py": NEW_IMAGES}), dt.date(2025, 4, 2)
    )
    pin_root = dated(write_tree(tmp_path / "old", OLD), dt.date(2023, 1, 10))
    patches = [("fix.patch", FIX), ("tests.patch", TESTS)]
    parsed = [parse_patch(text.encode(), name=name, path=Path(name)) for name, text in patches]
    ws = Workspace(lambda path: read_file(new_root / path))
    search, pin = TreeSearch(new_root, "new"), TreeSearch(pin_root, "old")
    _, verdict = judge_series(ws, parsed, search, pin, "31.0.0")
    assert (verdict.verdict, verdict.action, verdict.rule) == ("blocked", "look", "upstream-commit")
    assert verdict.summary.endswith(
        "made by 2024-07-04, before the new release (2025-04-02); to do: look (it is "
        "upstream's commit, made before the new release: decide whether the release has it)"
    )


def test_tests_of_a_module_the_series_adds_carry_when_it_applies(tmp_path: Path) -> None:
    fix, verdict = judge(tmp_path, OLD, [("fix.patch", FIX), ("tests.patch", TESTS)], OLD)
    assert (fix.verdict, fix.action) == ("clean", "carry")
    assert (verdict.verdict, verdict.action, verdict.rule) == ("clean", "carry", "applies")


def test_a_module_the_new_release_has_is_not_the_series_concern(tmp_path: Path) -> None:
    # upstream wrote a module of that name itself: the failing patch's copy is not needed
    # for the tests to import one
    new = {
        **OLD,
        "app/images.py": NEW_IMAGES,
        "app/inspector.py": "def detect(data):\n    return 'raw'\n",
    }
    fix, verdict = judge(tmp_path, new, [("fix.patch", FIX), ("tests.patch", TESTS)], OLD)
    assert fix.action == "port"
    assert (verdict.verdict, verdict.action, verdict.rule) == ("clean", "carry", "applies")
