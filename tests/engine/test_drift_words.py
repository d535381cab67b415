"""The drift line of a file the series touches and pristine lacks (a new user's report: a
deletion with the wrong ``-p`` was reported as ``a/f exists ... but pristine has no such
file``, while the target has no ``a/f``: the file appears only once the series is undone)."""

from __future__ import annotations

import pytest
from engine_support import make_downstream, run, tree_state

#: Deletes ``f``, but read with ``-p0`` its path is ``a/f``, a file neither tree has.
DELETION = b"--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n"
#: sha256 of b"a\n", the content undoing the deletion writes.
LEFT = "87428fc52280"
WORDS = (
    f"is left by undoing the series (sha256 {LEFT}), but pristine has no such file: a patch "
    "changes or deletes a file pristine lacks (check the patch's paths and strip level, or the "
    "pristine release)"
)


@pytest.mark.parametrize("command", ["status", "verify", "unapply"])
def test_a_deletion_with_the_wrong_strip_level(tmp_path, command: str, monkeypatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)  # one line each, unwrapped
    ds = make_downstream(tmp_path, {"f": b"a\n"}, {"del.patch": DELETION},
                         series_lines=["del.patch -p0"])  # fmt: skip
    before = tree_state(ds.target)
    outcome = run(ds, command)
    assert outcome.code == 1
    assert f"  drift: a/f {WORDS}" in outcome.out.splitlines()
    assert "exists" not in outcome.out
    assert not (ds.target / "a").exists()
    assert tree_state(ds.target) == before


def test_a_file_changed_outside_the_series_still_exists(tmp_path, monkeypatch) -> None:
    """An untouched file the target has and pristine lacks is still said to exist."""
    monkeypatch.delenv("COLUMNS", raising=False)
    ds = make_downstream(
        tmp_path, {"f": b"a\n"}, {"p.patch": b"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"}
    )
    assert run(ds, "apply").code == 0
    (ds.target / "extra").write_bytes(b"a\n")
    outcome = run(ds, "verify")
    assert outcome.code == 1
    assert (
        f"  changed outside the series: extra exists (sha256 {LEFT}) but pristine has no such file"
        in outcome.out.splitlines()
    )


#: Creates ``banner.py`` next to ``f``, as git format-patch writes a new file.
CREATION = (
    b"diff --git a/banner.py b/banner.py\nnew file mode 100644\n--- /dev/null\n"
    b"+++ b/banner.py\n@@ -0,0 +1,2 @@\n+NAME = 'fork'\n+SHOWN = True\n"
)


@pytest.mark.parametrize("command", ["status", "verify", "unapply"])
def test_a_created_file_edited_since(tmp_path, command: str, monkeypatch) -> None:
    """A file the series creates, edited by hand afterwards, is left when the series is
    undone: it was said to be a file a patch changes or deletes that pristine lacks, with
    advice to check the strip level, where the patch creates it and the edit is the cause."""
    monkeypatch.delenv("COLUMNS", raising=False)
    ds = make_downstream(tmp_path, {"f": b"a\n"}, {"banner.patch": CREATION})
    assert run(ds, "apply").code == 0
    banner = ds.target / "banner.py"
    banner.write_bytes(banner.read_bytes() + b"# local tweak\n")
    before = tree_state(ds.target)
    outcome = run(ds, command)
    assert outcome.code == 1
    assert (
        "  drift: banner.py is left by undoing the series (sha256 75492531fd4e), which creates "
        "it: it changed after the patch created it (an edit by hand, or another tool), so "
        "undoing the creation does not remove it"
    ) in outcome.out.splitlines()
    assert "strip level" not in outcome.out
    assert tree_state(ds.target) == before


#: Changes ``f`` and creates ``banner.py``, in one patch.
CHANGE_AND_CREATION = b"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n" + CREATION


def test_a_created_file_of_a_patch_not_undone_whole(tmp_path, monkeypatch) -> None:
    """A patch whose change of ``f`` was taken back by hand, and whose creation of
    ``banner.py`` is there: undoing it in memory removes the created lines but not the file,
    which is left empty. That is said, not that the file changed after the patch made it."""
    monkeypatch.delenv("COLUMNS", raising=False)
    ds = make_downstream(tmp_path, {"f": b"a\n"}, {"both.patch": CHANGE_AND_CREATION})
    assert run(ds, "apply").code == 0
    (ds.target / "f").write_bytes(b"a\n")
    outcome = run(ds, "verify")
    assert outcome.code == 1
    assert outcome.out.splitlines()[1:] == [
        "  partially applied  both.patch",
        "    both.patch: banner.py hunk #1 applied (line 1)",
        "    both.patch: f hunk #1 not applied",
        "  drift: banner.py is left empty by undoing the series, which creates it: the patch "
        "that creates it is not undone whole (see its hunks above)",
        "not ok: 0 of 1 patches applied, 1 file drifted",
    ]


#: Renames ``old.py`` to ``new.py`` and changes a line, as git format-patch writes a rename.
RENAME = (
    b"diff --git a/old.py b/new.py\nsimilarity index 80%\nrename from old.py\n"
    b"rename to new.py\n--- a/old.py\n+++ b/new.py\n@@ -1,2 +1,2 @@\n A = 1\n-B = 2\n+B = 20\n"
)


def test_a_renamed_file_edited_since(tmp_path, monkeypatch) -> None:
    """The new name of a renamed file, edited by hand afterwards, is one the series creates:
    it was said to be a file a patch changes or deletes that pristine lacks."""
    monkeypatch.delenv("COLUMNS", raising=False)
    ds = make_downstream(tmp_path, {"old.py": b"A = 1\nB = 2\n"}, {"move.patch": RENAME})
    assert run(ds, "apply").code == 0
    moved = ds.target / "new.py"
    moved.write_bytes(moved.read_bytes() + b"C = 3\n")
    outcome = run(ds, "verify")
    assert outcome.code == 1
    # The line added after the hunk's last line unanchors it from the file's end.
    assert outcome.out.splitlines()[1:] == [
        "  conflict  move.patch",
        "    move.patch: new.py hunk #1 not applied",
        "    move.patch: old.py: the file does not exist",
        "  drift: old.py is missing once the series is undone (pristine sha256 570508a11978)",
        "  drift: new.py is left by undoing the series (sha256 556eb6991ab5), which creates it: "
        "it changed after the patch created it (an edit by hand, or another tool), so undoing "
        "the creation does not remove it",
        "not ok: 0 of 1 patches applied, 2 files drifted",
    ]
