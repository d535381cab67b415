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


BACKPORT = """Subject: limit decompression (backport)
---
--- a/python3/pkg/core.py
+++ b/python3/pkg/core.py
@@ -1,2 +1,3 @@
+from pkg.limits import LIMIT
 def run():
     return 1
--- /dev/null
+++ b/python3/pkg/limits.py
@@ -0,0 +1,2 @@
+LIMIT = 100 * 1024 * 1024
+RATIO = 100
"""


def test_a_file_created_beside_a_moved_file_is_judged_where_it_moved(tmp_path: Path) -> None:
    """httplib2 0.22.0 -> 0.32.0 (python3/httplib2/ became httplib2/): the backport of the
    fix that 0.32.0 released creates python3/httplib2/decode.py. With the rule above alone it
    became *target gone*; the created file goes where its directory's files went."""
    pin = {f"python3/{path}": text for path, text in PIN.items() if path.startswith("pkg/")}
    new = {
        **{path: text for path, text in PIN.items() if path.startswith("pkg/")},
        "pkg/core.py": "from pkg.limits import LIMIT\ndef run():\n    return 1\n",
        "pkg/limits.py": "LIMIT = 100 * 1024 * 1024\nRATIO = 100\n",
    }
    [verdict] = judge(tmp_path, new, [("limits.patch", BACKPORT)], old=pin)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.summary == (
        "python3/pkg/core.py moved to pkg/core.py; the patch reverse-applies: the new upstream "
        "already has its post-image; 3 of 3 substantive added lines already upstream "
        "(strongest: pkg/limits.py 2/2); to do: retire (upstream has it)"
    )


RENAME = """Subject: rename pkg/util.py
---
diff --git a/pkg/util.py b/pkg/helpers.py
similarity index 100%
rename from pkg/util.py
rename to pkg/helpers.py
"""


def test_a_pure_rename_of_a_moved_file_finds_it_by_its_whole_content(tmp_path: Path) -> None:
    """A rename without hunks has no context lines to look for. Before: "pkg/util.py no
    longer exists; its content was not found elsewhere; to do: look", though src/pkg/util.py
    holds it line for line."""
    [verdict] = judge(tmp_path, MOVED, [("rename.patch", RENAME)], old=PIN)
    assert verdict.verdict == "target gone"
    assert verdict.summary == (
        "pkg/util.py no longer exists; likely moved to src/pkg/util.py (same name and "
        "content: 2 of 2 lines of the file found there); "
        "to do: port (onto the file its content moved to)"
    )


def test_a_directory_of_one_file_is_counted_in_the_singular(tmp_path: Path) -> None:
    """The directory held one file at the pin: "1 of 1 file", not "1 of 1 files"; when the
    file is nowhere in the new release, "its 1 file not found elsewhere"."""
    pin = {"pkg/core.py": PIN["pkg/core.py"], "setup.py": PIN["setup.py"]}
    moved = {"src/pkg/core.py": PIN["pkg/core.py"], "setup.py": PIN["setup.py"]}
    [verdict] = judge(tmp_path / "moved", moved, [("extra.patch", CREATES)], old=pin)
    assert (verdict.verdict, verdict.summary) == (
        "target gone",
        "pkg/extra.py would be created in pkg/, which the new release no longer has; likely "
        "moved to src/pkg/ (1 of 1 file of pkg/ found there); "
        "to do: port (into the directory its files moved to)",
    )
    gone = {"setup.py": PIN["setup.py"]}
    [verdict] = judge(tmp_path / "gone", gone, [("extra.patch", CREATES)], old=pin)
    assert (verdict.verdict, verdict.summary) == (
        "target gone",
        "pkg/extra.py would be created in pkg/, which the new release no longer has; its 1 "
        "file not found elsewhere; to do: look (its file is gone and its content was not found)",
    )
