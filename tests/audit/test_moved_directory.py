"""A patch that creates a file in a directory upstream moved (requests 2.28 -> 2.32 moved
``requests/`` to ``src/requests/``): it applies only by creating the file where the new
release has no such directory, outside the project's code. Before: *clean* ("to do: carry
(it applies)"), and ``port`` carried it there."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

PIN = {
    "pkg/__init__.py": "from pkg.core import run\n",
    "pkg/core.py": "def run():\n    return 1\n",
    "pkg/util.py": "def helper():\n    return 2\n",
    "setup.py": "from setuptools import setup\nsetup(name='pkg')\n",
}
MOVED = {f"src/{path}" if path.startswith("pkg/") else path: text for path, text in PIN.items()}

CREATES = """Subject: add pkg.extra
---
--- /dev/null
+++ b/pkg/extra.py
@@ -0,0 +1,2 @@
+def extra():
+    return 3
"""


def test_a_file_created_in_a_moved_directory_is_target_gone(tmp_path: Path) -> None:
    [verdict] = judge(tmp_path, MOVED, [("extra.patch", CREATES)], old=PIN)
    assert verdict.verdict == "target gone"
    assert verdict.summary == (
        "pkg/extra.py would be created in pkg/, which the new release no longer has; likely "
        "moved to src/pkg/ (3 of 3 files of pkg/ found there); "
        "to do: port (into the directory its files moved to)"
    )
    assert [(m.path, m.likely) for m in verdict.moved] == [("pkg/extra.py", "src/pkg/extra.py")]


def test_a_new_directory_or_a_kept_one_is_still_clean(tmp_path: Path) -> None:
    new_dir = CREATES.replace("pkg/extra.py", "pkg/plugins/extra.py")
    verdicts = judge(tmp_path, PIN, [("extra.patch", CREATES), ("plugin.patch", new_dir)], old=PIN)
    assert [(v.verdict, v.action) for v in verdicts] == [("clean", "carry"), ("clean", "carry")]


def test_without_the_pin_tree_nothing_is_known_about_directories(tmp_path: Path) -> None:
    [verdict] = judge(tmp_path, MOVED, [("extra.patch", CREATES)], old=None)
    assert verdict.verdict == "clean"
