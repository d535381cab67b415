"""A patch with two diffs of one file (``git diff`` of two commits joined, a hand-edited
patch): each diff numbers its hunks from 1, so ``x.py`` hunk #1 is two hunks. ``apply``,
``verify`` and ``unapply`` tell them apart by the line of their header in the patch file,
and give the bytes GNU patch gives.

The file has two ``try`` blocks of the same shape; the first diff changes the first block's
fallback (10 -> 30), the second diff the second block's (5 -> 10). With only the first diff
applied, undoing "hunk #1" of both diffs would undo the second one's at the first block
(its post-image, ``timeout = 10`` between the same lines, is there once the first is
undone) and show the file drifted.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from patchkeeper.series.engine import FileState, Workspace
from patchkeeper.series.parse import parse_patch
from patchkeeper.trees.applied import PARTIAL, series_state
from patchkeeper.trees.tree import Pristine, Tree

pytestmark = pytest.mark.tool("patch")

PRISTINE = b"""def connect(settings):
    try:
        timeout = settings["connect"]
    except KeyError:
        timeout = 10
    return timeout


def read(settings):
    try:
        timeout = settings["read"]
    except KeyError:
        timeout = 5
    return timeout
"""

#: The first commit's diff.
FIRST = b"""--- a/pkg/client.py
+++ b/pkg/client.py
@@ -4,3 +4,3 @@ def connect(settings):
     except KeyError:
-        timeout = 10
+        timeout = 30
     return timeout
"""
#: The second commit's diff, of the file the first left.
SECOND = b"""--- a/pkg/client.py
+++ b/pkg/client.py
@@ -12,3 +12,3 @@ def read(settings):
     except KeyError:
-        timeout = 5
+        timeout = 10
     return timeout
"""
PATCH = b"Subject: longer timeouts\n\n" + FIRST + SECOND


def gnu_patch(tree: Path, diff: bytes, *reverse: str) -> bytes:
    """``patch -p1 --fuzz 0`` (``reverse``: ``-R``) run on ``tree``; pkg/client.py after."""
    subprocess.run(
        ["patch", "-p1", "--fuzz", "0", "-s", "--no-backup-if-mismatch", *reverse],
        input=diff,
        cwd=tree,
        check=True,
    )
    return (tree / "pkg" / "client.py").read_bytes()


def tree_of(root: Path, content: bytes) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "client.py").write_bytes(content)
    return root


@pytest.fixture
def downstream(tmp_path: Path) -> Path:
    """A downstream whose series is :data:`PATCH`, with its pristine tree in ``pristine``."""
    root = tmp_path / "downstream"
    (root / "patches").mkdir(parents=True)
    (root / "patches" / "timeouts.patch").write_bytes(PATCH)
    (root / "patches" / "series").write_text("timeouts.patch\n")
    (root / "patchkeeper.toml").write_text('upstream = "pkg"\npin = "1.0"\n')
    tree_of(tmp_path / "pristine", PRISTINE)
    return root


def test_apply_verify_unapply_give_gnu_patchs_bytes(cli, downstream: Path, tmp_path: Path) -> None:
    target = tree_of(tmp_path / "target", PRISTINE)
    applied = gnu_patch(tree_of(tmp_path / "gnu", PRISTINE), PATCH)
    assert applied == PRISTINE.replace(b"= 10", b"= 30").replace(b"= 5\n", b"= 10\n")
    client = target / "pkg" / "client.py"

    run = cli("apply", "--target", str(target), cwd=downstream)
    assert (run.code, run.err) == (0, "")
    assert client.read_bytes() == applied

    run = cli("verify", "--target", str(target), "--pristine", "../pristine", cwd=downstream)
    assert (run.code, run.out.splitlines()[1:]) == (
        0,
        ["  applied  timeouts.patch", "ok: 1 of 1 patches applied, 0 files drifted"],
    )

    run = cli("unapply", "--target", str(target), "--pristine", "../pristine", cwd=downstream)
    assert (run.code, run.err) == (0, "")
    assert client.read_bytes() == gnu_patch(tmp_path / "gnu", PATCH, "-R") == PRISTINE


def test_only_the_first_diff_applied_is_partial_without_drift(
    cli, downstream: Path, tmp_path: Path
) -> None:
    half = gnu_patch(tree_of(tmp_path / "target", PRISTINE), FIRST)
    target = tmp_path / "target"

    run = cli("verify", "--target", str(target), "--pristine", "../pristine", cwd=downstream)
    assert (run.code, run.out.splitlines()[1:]) == (
        1,
        [
            "  partially applied  timeouts.patch",
            "    timeouts.patch: pkg/client.py hunk #1 (@@ -4,3 +4,3 @@) applied (line 4)",
            "    timeouts.patch: pkg/client.py hunk #1 (@@ -12,3 +12,3 @@) not applied",
            "not ok: 0 of 1 patches applied, 0 files drifted",
        ],
    )
    run = cli("unapply", "--target", str(target), "--pristine", "../pristine", cwd=downstream)
    assert run.code == 1
    assert (target / "pkg" / "client.py").read_bytes() == half  # refused: nothing written

    # What the walk leaves is the target with the first diff's hunk undone: GNU patch's
    # bytes for undoing that diff alone, the pristine file.
    patch = parse_patch(PATCH, name="timeouts.patch", path=Path("timeouts.patch"))
    ws = Workspace(lambda path: FileState.from_bytes(half) if path == "pkg/client.py" else None)
    pristine_tree = tmp_path / "pristine"
    reference = Pristine("pristine", tree=Tree("directory", pristine_tree, pristine_tree, "p"))
    state = series_state(ws, [patch], reference)
    (only,) = state.patches
    assert only.state == PARTIAL
    assert [(h.header, h.line, h.patch_line) for h in only.applied_hunks] == [
        ("@@ -4,3 +4,3 @@ def connect(settings):", 4, 5)
    ]
    assert [(h.header, h.patch_line) for h in only.missing_hunks] == [
        ("@@ -12,3 +12,3 @@ def read(settings):", 12)
    ]
    assert state.drifted == ()
    undone = ws.get("pkg/client.py")
    assert undone is not None
    shutil.copytree(target, tmp_path / "gnu")
    assert undone.data == gnu_patch(tmp_path / "gnu", FIRST, "-R") == PRISTINE


#: Two diffs of ``f``: the first, without context (``diff -U0``), changes line 2 ``b``, a
#: line that is at line 9 too, so that nothing shows it applied; the second changes line 6.
UNPROVABLE = b"--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n+B\n"
PROVABLE = b"--- a/f\n+++ b/f\n@@ -5,3 +5,3 @@\n e\n-f\n+F\n g\n"


def test_a_hunk_not_shown_applied_is_not_undone_with_its_namesake(tmp_path: Path) -> None:
    """Both diffs' hunks are there, and line 8 was edited outside the series: the file
    drifted, so the context-free hunk, which only a pristine file could confirm, counts as
    not applied. What the walk leaves is the target with the second diff's hunk undone
    only: GNU patch's bytes for undoing that diff alone."""
    pristine = tmp_path / "pristine"
    pristine.mkdir()
    (pristine / "f").write_bytes(b"a\nb\nc\nd\ne\nf\ng\nh\nb\n")
    target = b"a\nB\nc\nd\ne\nF\ng\nH\nb\n"
    patch = parse_patch(UNPROVABLE + PROVABLE, name="p.patch", path=Path("p.patch"))
    ws = Workspace(lambda path: FileState.from_bytes(target) if path == "f" else None)
    reference = Pristine("pristine", tree=Tree("directory", pristine, pristine, "pristine"))
    state = series_state(ws, [patch], reference)
    (only,) = state.patches
    assert only.state == PARTIAL
    assert [(h.header, h.patch_line) for h in only.applied_hunks] == [("@@ -5,3 +5,3 @@", 8)]
    assert [(h.header, h.patch_line) for h in only.missing_hunks] == [("@@ -2 +2 @@", 3)]
    assert [check.path for check in state.drifted] == ["f"]
    gnu = tmp_path / "gnu"
    gnu.mkdir()
    (gnu / "f").write_bytes(target)
    subprocess.run(
        ["patch", "-p1", "--fuzz", "0", "-s", "-R", "f"], input=PROVABLE, cwd=gnu, check=True
    )
    undone = ws.get("f")
    assert undone is not None
    assert undone.data == (gnu / "f").read_bytes() == b"a\nB\nc\nd\ne\nf\ng\nH\nb\n"
