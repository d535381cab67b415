"""Apply and undo are symmetric.

Whatever ``apply`` accepts, ``verify`` and ``status`` call applied and ``unapply`` undoes to
the pristine bytes; whatever it cannot undo exactly, it refuses.
"""

from __future__ import annotations

import pytest
from engine_support import make_downstream, run, tree_state
from fuzzing import run_command

CREATE_A = b"--- a/new.py\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+n1\n+n2\n"
CREATE_P0 = b"--- pkg/new.py\n+++ pkg/new.py\n@@ -0,0 +1,2 @@\n+n1\n+n2\n"


@pytest.mark.parametrize(
    ("files", "patch", "strip", "created"),
    [
        ({"x.py": b"a\n"}, CREATE_A, 1, "new.py"),
        ({"pkg/x.py": b"a\n"}, CREATE_P0, 0, "pkg/new.py"),
    ],
    ids=["a-prefix", "p0"],
)
def test_creation_without_dev_null_is_undone(tmp_path, files, patch, strip, created) -> None:
    ds = make_downstream(tmp_path, files, {"p.patch": patch}, strip=strip)
    pristine = tree_state(ds.target)
    assert run(ds, "apply").code == 0
    assert (ds.target / created).read_bytes() == b"n1\nn2\n"
    for command in ("verify", "status"):
        outcome = run(ds, command)
        assert (outcome.code, outcome.out.splitlines()[-1]) == (
            0,
            "ok: 1 of 1 patches applied, 0 files drifted",
        )
    outcome = run(ds, "unapply")
    assert outcome.code == 0, outcome.out
    assert tree_state(ds.target) == pristine  # the file is gone, its directory too
    assert run(ds, "verify").code == 1
    code, out = run_command(ds.down, "audit", ds.pristine)  # a creation there too
    row = next(line for line in out.splitlines() if line.startswith("  p.patch"))
    assert (code, row) == (
        0,
        "  p.patch  clean    applies at fuzz 0, every hunk in place; to do: carry (it applies)",
    )


def test_modification_of_an_empty_file_keeps_it(tmp_path) -> None:
    """The same diff on a tree whose pristine file exists and is empty: undoing it gives the
    empty file back (mode kept), not its absence."""
    ds = make_downstream(tmp_path, {"new.py": b""}, {"p.patch": CREATE_A})
    (ds.target / "new.py").chmod(0o600)
    (ds.pristine / "new.py").chmod(0o600)
    pristine = tree_state(ds.target)
    assert run(ds, "apply").code == 0
    assert (ds.target / "new.py").read_bytes() == b"n1\nn2\n"
    assert run(ds, "verify").code == 0
    assert run(ds, "unapply").code == 0
    assert tree_state(ds.target) == pristine


def test_empty_post_image_on_a_file_with_other_lines_does_not_apply(tmp_path) -> None:
    """``@@ -1,2 +0,0 @@`` removing x, y from a file that holds other lines: not "already
    applied" (nothing shows that it is), but a hunk that does not apply."""
    patch = b"--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-x\n-y\n"
    ds = make_downstream(tmp_path, {"f": b"a\nb\n"}, {"p.patch": patch})
    before = tree_state(ds.target)
    outcome = run(ds, "apply")
    assert outcome.code == 1
    assert outcome.out.splitlines() == [
        f"p.patch does not apply to directory {ds.target}",
        "  f:",
        "    hunk #1 @@ -1,2 +0,0 @@  (patch line 3)",
        "      none of its 2 context/removed lines occur in the file",
        "      the hunk only removes lines and has no context (diff -U0): its lines are gone, "
        "which may mean it is already applied, but only a pristine reference can tell "
        "(status --pristine DIR, or 'pristine' in the configuration)",
        "nothing was changed",
    ]
    status = run(ds, "status")
    assert status.code == 1
    assert status.out.splitlines()[1:] == [
        "  conflict  p.patch",
        "    p.patch: f hunk #1 not applied",
        "not ok: 0 of 1 patches applied, 0 files drifted",
    ]
    # the target is the pristine reference's: nothing to undo, and the patch is named
    undone = run(ds, "unapply")
    assert (undone.code, undone.out.splitlines()) == (
        0,
        [
            f"unapply: the series is already pristine on directory {ds.target}",
            "nothing was changed; p.patch does not apply to this tree either (none of its "
            "hunks is there, and they do not fit: see 'patchkeeper status')",
        ],
    )
    assert tree_state(ds.target) == before


def test_zero_context_removal_at_an_offset_is_refused(tmp_path) -> None:
    """A ``diff -U0`` hunk carries no context: it applies at its header's line or not at all,
    so undoing it (which puts the line back at the header's line) is exact."""
    patch = b"--- a/f\n+++ b/f\n@@ -2 +1,0 @@\n-x\n"
    ds = make_downstream(tmp_path, {"f": b"a\nb\nc\nx\nd\n"}, {"p.patch": patch})
    before = tree_state(ds.target)
    outcome = run(ds, "apply")
    assert outcome.code == 1
    assert outcome.out.splitlines()[3:] == [
        "      expected at line 2; closest match at line 4: 1 of 1 lines match",
        "      every line matches at line 4, but the hunk has no context lines (diff -U0), so "
        "it may only apply at the line its header names (2); regenerate the patch with "
        "context (diff -u)",
        "nothing was changed",
    ]
    assert tree_state(ds.target) == before
    verify = run(ds, "verify")
    assert (verify.code, verify.out.splitlines()[-1]) == (
        1,
        "not ok: 0 of 1 patches applied, 0 files drifted",
    )


def test_zero_context_post_image_in_place_with_its_pre_image_elsewhere_is_refused(
    tmp_path,
) -> None:
    """``@@ -1 +1 @@`` ``-b``/``+a`` on ``a``, ``b``: the post-image ``a`` is at line 1, but
    the pre-image ``b`` is at line 2, where GNU patch applies the hunk forward (offset +1).
    Without context nothing tells the two apart, so it is not "already applied"; the
    pristine reference shows the target is the pristine file, so ``unapply`` has nothing to
    undo (it does not make ``b``, ``b`` of it)."""
    patch = b"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n+a\n"
    ds = make_downstream(tmp_path, {"f": b"a\nb\n"}, {"p.patch": patch})
    before = tree_state(ds.target)
    outcome = run(ds, "apply")
    assert outcome.code == 1
    assert outcome.out.splitlines() == [
        f"p.patch does not apply to directory {ds.target}",
        "  f:",
        "    hunk #1 @@ -1 +1 @@  (patch line 3)",
        "      expected at line 1; closest match at line 2: 1 of 1 lines match",
        "      every line matches at line 2, and the lines it puts in are already at line 1, "
        "where its header puts them; the hunk has no context lines (diff -U0), so it cannot "
        "tell whether it is applied or belongs at line 2 (where GNU patch applies it); "
        "regenerate the patch with context (diff -U3), or give a pristine reference "
        "(status --pristine DIR, or 'pristine' in the configuration)",
        "nothing was changed",
    ]
    assert tree_state(ds.target) == before
    verify = run(ds, "verify")
    assert verify.code == 1
    assert verify.out.splitlines()[1:] == [
        "  conflict  p.patch",
        "    p.patch: f hunk #1 not applied",
        "not ok: 0 of 1 patches applied, 0 files drifted",
    ]
    # the target is the pristine reference's: nothing was applied, so nothing is undone
    unapply = run(ds, "unapply")
    assert unapply.code == 0
    assert unapply.out.splitlines() == [
        f"unapply: the series is already pristine on directory {ds.target}",
        "nothing was changed; p.patch does not apply to this tree either (none of its hunks "
        "is there, and they do not fit: see 'patchkeeper status')",
    ]
    assert tree_state(ds.target) == before


def test_zero_context_post_image_in_place_with_its_pre_image_nowhere_is_applied(
    tmp_path,
) -> None:
    """The same hunk on ``a``, ``c`` (pristine ``b``, ``c``): its pre-image occurs nowhere,
    so applying it forward is impossible anyway (GNU patch too calls it "previously
    applied"); it is applied, and undoing it gives the pristine file back."""
    patch = b"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n+a\n"
    ds = make_downstream(tmp_path, {"f": b"b\nc\n"}, {"p.patch": patch})
    (ds.target / "f").write_bytes(b"a\nc\n")
    outcome = run(ds, "apply")
    assert (outcome.code, outcome.out.splitlines()) == (
        0,
        [
            f"apply: the series is already applied on directory {ds.target}",
            "nothing was changed",
        ],
    )
    assert (ds.target / "f").read_bytes() == b"a\nc\n"
    assert run(ds, "verify").code == 0
    assert run(ds, "unapply").code == 0
    assert (ds.target / "f").read_bytes() == b"b\nc\n"


def test_zero_context_hunks_in_place_round_trip(tmp_path) -> None:
    """The same kind of hunks at their header's lines apply, verify and undo exactly."""
    patch = b"--- a/f\n+++ b/f\n@@ -2 +1,0 @@\n-x\n@@ -4,0 +4 @@\n+new\n"
    ds = make_downstream(tmp_path, {"f": b"a\nx\nb\nc\nd\n"}, {"p.patch": patch})
    before = tree_state(ds.target)
    assert run(ds, "apply").code == 0
    assert (ds.target / "f").read_bytes() == b"a\nb\nc\nnew\nd\n"
    assert run(ds, "verify").code == 0
    assert run(ds, "unapply").code == 0
    assert tree_state(ds.target) == before


OVERLAY = """
[entries.overlays.extras]
source = "extras"
target = "contrib"
"""


def test_overlay_file_edited_in_the_target_is_drift(tmp_path) -> None:
    patch = b"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
    ds = make_downstream(tmp_path, {"f": b"a\n"}, {"p.patch": patch})
    (ds.down / "extras").mkdir()
    (ds.down / "extras" / "tool.py").write_bytes(b"TOOL = 1\n")
    with (ds.down / "patchkeeper.toml").open("a") as handle:
        handle.write(OVERLAY)
    assert run(ds, "apply").code == 0
    (ds.target / "contrib" / "tool.py").write_bytes(b"TOOL = 2  # edited here\n")
    edited = tree_state(ds.target)
    verify = run(ds, "verify")
    assert verify.code == 1
    assert "  overlay: contrib/tool.py differs" in verify.out.splitlines()
    outcome = run(ds, "unapply")
    assert outcome.code == 1
    assert outcome.out.splitlines()[-2:] == [
        "  drift: overlay file contrib/tool.py differs from the overlay's (edited in the target)",
        "overlay files were edited in the target; undoing the series would lose the edits; "
        "nothing was changed",
    ]
    assert tree_state(ds.target) == edited
    # put back as the overlay has it: unapply removes it with the rest
    (ds.target / "contrib" / "tool.py").write_bytes(b"TOOL = 1\n")
    assert run(ds, "unapply").code == 0
    assert tree_state(ds.target) == tree_state(ds.pristine)


def test_a_last_line_without_newline_only_ends_the_file(tmp_path) -> None:
    """Found by the property test: ``@@ -0,0 +1 @@ +a`` with ``\\ No newline`` put before
    other lines would get a newline, and undoing it could not find it again."""
    patch = b"--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+a\n\\ No newline at end of file\n"
    ds = make_downstream(tmp_path, {"f": b"a\n"}, {"p.patch": patch})
    outcome = run(ds, "apply")
    assert outcome.code == 1
    assert outcome.out.splitlines()[2:5] == [
        "    hunk #1 @@ -0,0 +1 @@  (patch line 3)",
        "      none of its 0 context/removed lines occur in the file",
        "      the hunk leaves its last line without a newline ('\\ No newline at end of "
        "file'), so it may only apply at the end of the file",
    ]
    assert (ds.target / "f").read_bytes() == b"a\n"


def test_hunk_whose_post_image_occurs_twice_is_undone_where_apply_put_it(tmp_path) -> None:
    """``b a`` is the post-image; after apply at line 3 the file is ``b a b a``, and undoing
    from the header's line 1 finds ``b a`` there first. Applying forward to the pristine file
    gives the target, so verify calls nothing drifted and unapply gives the pristine bytes."""
    patch = b"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n b\n+a\n"
    ds = make_downstream(tmp_path, {"f": b"b\na\na\nb\n"}, {"p.patch": patch})
    assert run(ds, "apply").code == 0
    assert (ds.target / "f").read_bytes() == b"b\na\nb\na\n"
    outcome = run(ds, "verify")
    assert (outcome.code, outcome.out.splitlines()[-1]) == (
        0,
        "ok: 1 of 1 patches applied, 0 files drifted",
    )
    assert run(ds, "unapply").code == 0
    assert (ds.target / "f").read_bytes() == b"b\na\na\nb\n"
