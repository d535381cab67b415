"""A patch that ``apply`` placed at an offset, whose undoing meets a nearer copy of its
post-image (or whose pre-image stands again in the patched file, nearer than the
post-image): ``verify`` judges it by applying forward from the pristine file, and
``unapply`` writes the pristine bytes.

``-a b -a`` (no final newline) applies only at line 2 of ``b a b a``, leaving ``b b``; undoing
it looks for ``b`` from line 1 and meets the first one, where the pre-image does not fit
(GNU ``patch -R`` fails there too). ``a -a`` with one line of leading context and none after
must apply at the end of the file (GNU patch's rule): on ``a a a`` it leaves ``a a``, where it
also applies forward, in place.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from engine_support import make_downstream, run, tree_state

PRISTINE = b"b\na\nb\na"
#: ``a b a`` (no final newline) to ``b``: GNU diff -U1 output.
PATCH = b"--- a/d/h\n+++ b/d/h\n@@ -1,3 +1 @@\n-a\n b\n-a\n\\ No newline at end of file\n"
#: What GNU patch and ``apply`` leave: the hunk at line 2 (offset +1).
APPLIED = b"b\nb\n"
#: A second patch of the same file, adding a first line.
TOP = b"--- a/d/h\n+++ b/d/h\n@@ -1 +1,2 @@\n+z\n b\n"


@pytest.mark.tool("patch")
def test_gnu_patch_leaves_the_bytes_apply_leaves(tmp_path: Path) -> None:
    (tmp_path / "gnu" / "d").mkdir(parents=True)
    (tmp_path / "gnu" / "d" / "h").write_bytes(PRISTINE)
    gnu = ["patch", "-p1", "--fuzz", "0", "-s", "--no-backup-if-mismatch"]
    subprocess.run(gnu, input=PATCH, cwd=tmp_path / "gnu", check=True)
    ds = make_downstream(tmp_path / "ds", {"d/h": PRISTINE}, {"p.patch": PATCH})
    outcome = run(ds, "apply")
    assert (outcome.code, outcome.out.splitlines()[1:]) == (
        0,
        ["  offset: p.patch d/h hunk #1 at line 2 (+1 lines)"],
    )
    assert (ds.target / "d" / "h").read_bytes() == (tmp_path / "gnu" / "d" / "h").read_bytes()
    assert (ds.target / "d" / "h").read_bytes() == APPLIED


@pytest.mark.parametrize(
    ("pristine", "patch", "applied"),
    [
        (PRISTINE, PATCH, APPLIED),
        (b"b\na\nb\na\n", b"--- a/d/h\n+++ b/d/h\n@@ -1,3 +1 @@\n-a\n b\n-a\n", b"b\nb\n"),
        (b"a\na\na\n", b"--- a/d/h\n+++ b/d/h\n@@ -1,2 +1 @@\n a\n-a\n", b"a\na\n"),
    ],
    ids=["undo-fails-nearer", "undo-takes-back-nearer", "pre-image-again-nearer"],
)
def test_verify_calls_it_applied_and_unapply_gives_pristine(
    tmp_path: Path, pristine: bytes, patch: bytes, applied: bytes
) -> None:
    ds = make_downstream(tmp_path, {"d/h": pristine}, {"p.patch": patch})
    before = tree_state(ds.target)
    assert run(ds, "apply").code == 0
    assert (ds.target / "d" / "h").read_bytes() == applied
    for command in ("verify", "status"):
        outcome = run(ds, command)
        assert (outcome.code, outcome.out.splitlines()[1:]) == (
            0,
            ["  applied  p.patch", "ok: 1 of 1 patches applied, 0 files drifted"],
        )
    on_pristine = run(ds, "verify", target=ds.pristine)
    assert (on_pristine.code, on_pristine.out.splitlines()[1:]) == (
        1,
        ["  not applied  p.patch", "not ok: 0 of 1 patches applied, 0 files drifted"],
    )
    untouched = tree_state(ds.pristine)
    for force in ((), ("--force",)):
        on_pristine = run(ds, "unapply", *force, target=ds.pristine)
        assert (on_pristine.code, on_pristine.out.splitlines()[-1]) == (0, "nothing was changed")
        assert tree_state(ds.pristine) == untouched
    outcome = run(ds, "unapply")
    assert (outcome.code, outcome.out.splitlines()) == (
        0,
        [f"unapplied 1 patch on directory {ds.target}: 1 file changed"],
    )
    assert (ds.target / "d" / "h").read_bytes() == pristine
    assert tree_state(ds.target) == before


def test_the_hunk_shows_where_apply_put_its_post_image(tmp_path: Path) -> None:
    ds = make_downstream(tmp_path, {"d/h": PRISTINE}, {"p.patch": PATCH})
    assert run(ds, "apply").code == 0
    outcome = run(ds, "status", "--json")
    assert outcome.code == 0
    (state,) = json.loads(outcome.out)["state"]["patches"]
    assert state == {
        "name": "p.patch",
        "state": "applied",
        "applied_hunks": [
            {"path": "d/h", "index": 1, "header": "@@ -1,3 +1 @@", "line": 2, "patch_line": 3}
        ],
        "missing_hunks": [],
        "problems": [],
        "missing_changes": [],
        "waits_for": "",
    }


def test_a_later_patch_of_the_file_not_applied_is_left_out(tmp_path: Path) -> None:
    ds = make_downstream(
        tmp_path,
        {"d/h": PRISTINE},
        {"p.patch": PATCH, "top.patch": TOP},
        series_lines=["p.patch"],
    )
    assert run(ds, "apply").code == 0
    (ds.patches / "series").write_text("p.patch\ntop.patch\n")
    outcome = run(ds, "verify")
    assert (outcome.code, outcome.out.splitlines()[1:]) == (
        1,
        [
            "  applied      p.patch",
            "  not applied  top.patch",
            "not ok: 1 of 2 patches applied, 0 files drifted",
        ],
    )
    outcome = run(ds, "unapply")
    assert (outcome.code, outcome.out.splitlines()) == (
        0,
        [
            f"unapplied 1 patch on directory {ds.target}: 1 file changed",
            "not applied, so left as they were: top.patch; the target is pristine again "
            "(checked against the pristine reference)",
        ],
    )
    assert (ds.target / "d" / "h").read_bytes() == PRISTINE


def test_an_edit_after_apply_is_still_a_conflict_and_nothing_is_undone(tmp_path: Path) -> None:
    """The forward replay gives ``b b``, not the edited bytes: nothing shows the patch
    applied, and ``unapply`` writes nothing."""
    ds = make_downstream(tmp_path, {"d/h": PRISTINE}, {"p.patch": PATCH})
    assert run(ds, "apply").code == 0
    (ds.target / "d" / "h").write_bytes(b"b\nb\nc\n")
    outcome = run(ds, "verify")
    assert (outcome.code, outcome.out.splitlines()[1:3]) == (
        1,
        ["  conflict  p.patch", "    p.patch: d/h hunk #1 not applied"],
    )
    outcome = run(ds, "unapply")
    assert outcome.code == 1
    assert (ds.target / "d" / "h").read_bytes() == b"b\nb\nc\n"
