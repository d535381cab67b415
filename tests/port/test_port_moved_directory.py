"""``port`` of a patch that creates a file in a directory the new release moved (requests
2.28 -> 2.32: ``requests/`` became ``src/requests/``): the file is carried into the
directory the others moved to. Before: *clean*, the new series creating ``pkg/extra.py``
beside ``src/pkg/``, outside the package."""

from __future__ import annotations

from pathlib import Path

from port_support import port_one_patch

FILES = {
    "pkg/__init__.py": "from pkg.core import run\n",
    "pkg/core.py": "def run():\n    return 1\n",
    "pkg/util.py": "def helper():\n    return 2\n",
}

CREATES = """Subject: add pkg.extra
---
diff --git a/pkg/extra.py b/pkg/extra.py
new file mode 100644
--- /dev/null
+++ b/pkg/extra.py
@@ -0,0 +1,2 @@
+def extra():
+    return 3
"""


#: The new release's files: the package moved under ``src/``.
MOVED = {f"src/{path}": text for path, text in FILES.items()}


def _port(cli, tmp_path: Path, new: dict[str, str], name: str, patch: str):
    """``port --to`` the release ``new`` (2.0) of a downstream whose series is the one patch
    ``name`` (``patch``) on :data:`FILES` (1.0, its pristine); the run and the downstream."""
    return port_one_patch(cli, tmp_path, "pkg", (FILES, new), name, patch)


def test_a_created_file_follows_its_moved_directory(cli, tmp_path: Path) -> None:
    run, down = _port(cli, tmp_path, MOVED, "extra.patch", CREATES)
    assert run.code == 0, run.err
    assert (
        "  extra.patch  merged   pkg/extra.py is gone, merged into src/pkg/extra.py; "
        "git's three-way merge carried the patch\n"
    ) in run.out
    assert (down / "patches-2.0" / "extra.patch").read_text() == (
        "Subject: add pkg.extra\n---\n"
        "diff --git a/src/pkg/extra.py b/src/pkg/extra.py\nnew file mode 100644\n"
        "--- /dev/null\n+++ b/src/pkg/extra.py\n@@ -0,0 +1,2 @@\n+def extra():\n+    return 3\n"
    )


RENAMES = """Subject: rename pkg/util.py
---
diff --git a/pkg/util.py b/pkg/helpers.py
similarity index 100%
rename from pkg/util.py
rename to pkg/helpers.py
"""


def test_a_rename_of_a_file_gone_with_its_content_stops_the_port(cli, tmp_path: Path) -> None:
    """Before: *merged* ("; git's three-way merge carried the patch"), the new series
    creating pkg/helpers.py with the old pin's pkg/util.py, which upstream deleted."""
    kept = {path: text for path, text in FILES.items() if path != "pkg/util.py"}
    run, down = _port(cli, tmp_path, kept, "rename.patch", RENAMES)
    assert run.code == 1, run.err
    assert (
        "  rename.patch  target gone  nowhere to carry it: pkg/util.py no longer exists; its "
        "content was not found elsewhere; to do: look (its file is gone and its content was "
        "not found)\n"
    ) in run.out
    assert "stopped at rename.patch" in run.out
    assert not (down / "patches-2.0").exists()


def test_a_rename_follows_its_moved_directory(cli, tmp_path: Path) -> None:
    """Before: *merged* with a leading '; ' as its evidence, the new series creating
    pkg/helpers.py outside the package and leaving src/pkg/util.py."""
    run, down = _port(cli, tmp_path, MOVED, "rename.patch", RENAMES)
    assert run.code == 0, run.err
    assert (
        "  rename.patch  merged   pkg/util.py is gone, merged into src/pkg/util.py; "
        "git's three-way merge carried the patch\n"
    ) in run.out
    assert (down / "patches-2.0" / "rename.patch").read_text() == (
        "Subject: rename pkg/util.py\n---\n"
        "diff --git a/src/pkg/util.py b/src/pkg/helpers.py\nsimilarity index 100%\n"
        "rename from src/pkg/util.py\nrename to src/pkg/helpers.py\n"
    )
