"""``port`` of a patch that deletes a file the new pin changed (modify/delete): the file is
laid out as one conflict region, so a ``--continue`` with the file left as it was laid out
is refused, naming the file and its line, as ``git rebase --continue`` refuses a path left
unmerged; deleting the file keeps the deletion, removing the markers keeps the file.

The shape is that of a ``git format-patch`` commit that drops a module and its import, on an
upstream whose next release changed that module."""

from __future__ import annotations

from pathlib import Path

INFO = "Metadata-Version: 2.1\nName: pkg\nVersion: {}\n"
OLD = {
    "pkg/__init__.py": "from pkg.core import run\nfrom pkg.legacy import shim\n",
    "pkg/core.py": "def run():\n    return 1\n",
    "pkg/legacy.py": "def shim():\n    return 0\n",
}
NEW = {
    "pkg/__init__.py": "from pkg.core import run\nfrom pkg.legacy import shim\n",
    "pkg/core.py": "def run():\n    return 1\n",
    "pkg/legacy.py": "def shim():\n    return 0\n\n\ndef shim2():\n    return 2\n",
}
DROP = (
    """From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001
From: A Maintainer <maintainer@example.org>
Subject: [PATCH] drop the legacy module

---
 pkg/__init__.py | 1 -
 pkg/legacy.py   | 2 --
 2 files changed, 3 deletions(-)
 delete mode 100644 pkg/legacy.py

diff --git a/pkg/__init__.py b/pkg/__init__.py
index 1234567..89abcde 100644
--- a/pkg/__init__.py
+++ b/pkg/__init__.py
@@ -1,2 +1 @@
 from pkg.core import run
-from pkg.legacy import shim
diff --git a/pkg/legacy.py b/pkg/legacy.py
deleted file mode 100644
index 2345678..0000000
--- a/pkg/legacy.py
+++ /dev/null
@@ -1,2 +0,0 @@
-def shim():
-    return 0
"""
    + "-- \n2.39.5\n"
)  # git's signature: "-- " and its version


def _write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def _downstream(tmp_path: Path) -> Path:
    _write(tmp_path / "old", {**OLD, "PKG-INFO": INFO.format("1.0")})
    _write(tmp_path / "new", {**NEW, "PKG-INFO": INFO.format("2.0")})
    down = tmp_path / "down"
    _write(
        down,
        {
            "patchkeeper.toml": 'upstream = "pkg"\npin = "1.0"\npristine = "../old"\n',
            "patches/series": "0001-drop-the-legacy-module.patch\n",
            "patches/0001-drop-the-legacy-module.patch": DROP,
        },
    )
    return down


def test_the_file_a_patch_deletes_waits_between_markers(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    run = cli("port", "--to", "../new", cwd=down)
    assert run.code == 1, run.err
    files = down / ".patchkeeper-port" / "conflict" / "files" / "pkg"
    assert (files / "legacy.py").read_text() == (
        "<<<<<<< new pin 2.0\n"
        "def shim():\n    return 0\n\n\ndef shim2():\n    return 2\n"
        "||||||| old pin 1.0\n"
        "def shim():\n    return 0\n"
        "=======\n"
        ">>>>>>> 0001-drop-the-legacy-module.patch\n"
    )
    instructions = (down / ".patchkeeper-port" / "conflict" / "INSTRUCTIONS.md").read_text()
    assert (
        "- `pkg/legacy.py`: modify/delete: the patch deletes a file the new pin changed; its "
        "one conflict region holds the new pin's lines, then the old pin's between `|||||||` "
        "and `=======`, and nothing as the patch's side: delete the file from `files/` to keep "
        "the deletion, or edit it to the lines to keep, without the markers"
    ) in instructions


def test_continue_with_the_file_as_laid_out_is_refused(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    assert cli("port", "--to", "../new", cwd=down).code == 1
    run = cli("port", "--continue", cwd=down)
    assert run.code == 2
    legacy = down / ".patchkeeper-port" / "conflict" / "files" / "pkg" / "legacy.py"
    assert run.err == (
        f"patchkeeper: error: {legacy}:1: conflict markers are left in this file\n"
        "  hint: the patch deletes this file and the new pin changed it: delete the file to "
        "keep the deletion, or edit it to the lines to keep and remove the markers, then run "
        "'patchkeeper port --continue'\n"
    )
    assert not (down / "patches-2.0").exists()


def test_deleting_the_file_keeps_the_deletion(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    assert cli("port", "--to", "../new", cwd=down).code == 1
    (down / ".patchkeeper-port" / "conflict" / "files" / "pkg" / "legacy.py").unlink()
    run = cli("port", "--continue", cwd=down)
    assert run.code == 0, run.err
    run = cli("-C", str(down / "patches-2.0"), "apply", "--target", str(tmp_path / "new"))
    assert run.code == 0, run.err
    assert not (tmp_path / "new" / "pkg" / "legacy.py").exists()
    assert (tmp_path / "new" / "pkg" / "__init__.py").read_text() == "from pkg.core import run\n"


def test_removing_the_markers_keeps_the_file(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    assert cli("port", "--to", "../new", cwd=down).code == 1
    legacy = down / ".patchkeeper-port" / "conflict" / "files" / "pkg" / "legacy.py"
    legacy.write_text(NEW["pkg/legacy.py"])
    run = cli("port", "--continue", cwd=down)
    assert run.code == 0, run.err
    run = cli("-C", str(down / "patches-2.0"), "apply", "--target", str(tmp_path / "new"))
    assert run.code == 0, run.err
    assert (tmp_path / "new" / "pkg" / "legacy.py").read_text() == NEW["pkg/legacy.py"]
    assert (tmp_path / "new" / "pkg" / "__init__.py").read_text() == "from pkg.core import run\n"
