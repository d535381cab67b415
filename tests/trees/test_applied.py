"""Which patches are applied: exact even when two patches touch the same lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchkeeper.series.engine import FileState, Workspace
from patchkeeper.series.parse import parse_patch
from patchkeeper.trees.applied import APPLIED, CONFLICT, NOT_APPLIED, PARTIAL, series_state
from patchkeeper.trees.tree import Pristine, Tree


def patch(name: str, diff: str):
    return parse_patch(diff.encode(), name=name, path=Path(name), strip=1)


# P1 changes line 3 from "c" to "C"; P2 changes the same line again, "C" to "CC", and adds a
# line; P3 changes another file.
P1 = patch("p1", "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n")
P2 = patch("p2", "--- a/f\n+++ b/f\n@@ -2,3 +2,4 @@\n b\n-C\n+CC\n+extra\n d\n")
P3 = patch("p3", "--- a/g\n+++ b/g\n@@ -1,2 +1,2 @@\n-x\n+X\n y\n")
PRISTINE = {"f": b"a\nb\nc\nd\ne\n", "g": b"x\ny\n"}


def workspace(files: dict[str, bytes]) -> Workspace:
    return Workspace(lambda path: FileState.from_bytes(files[path]) if path in files else None)


@pytest.fixture
def pristine(tmp_path: Path) -> Pristine:
    for name, data in PRISTINE.items():
        (tmp_path / name).write_bytes(data)
    tree = Tree("directory", tmp_path, tmp_path, "pristine")
    return Pristine("pristine", tree=tree)


@pytest.mark.parametrize(
    ("files", "states", "drifted"),
    [
        ({"f": b"a\nb\nCC\nextra\nd\ne\n", "g": b"X\ny\n"}, [APPLIED, APPLIED, APPLIED], []),
        (PRISTINE, [NOT_APPLIED, NOT_APPLIED, NOT_APPLIED], []),
        ({"f": b"a\nb\nC\nd\ne\n", "g": b"x\ny\n"}, [APPLIED, NOT_APPLIED, NOT_APPLIED], []),
        ({"f": b"a\nb\nCC\nextra\nd\ne\n", "g": b"x\ny\n"}, [APPLIED, APPLIED, NOT_APPLIED], []),
        # f edited by hand after the series: P2 no longer reverses, and f drifted
        ({"f": b"a\nb\nCC\nextra\nd\nEDIT\n", "g": b"X\ny\n"}, [APPLIED, APPLIED, APPLIED], ["f"]),
        # f's line 3 edited by hand: P1 in conflict; P2, whose context is P1's line, waits
        ({"f": b"a\nb\nZ\nd\ne\n", "g": b"X\ny\n"}, [CONFLICT, NOT_APPLIED, APPLIED], ["f"]),
    ],
)
def test_states_and_drift(files, states, drifted, pristine: Pristine) -> None:
    result = series_state(workspace(files), [P1, P2, P3], pristine)
    assert [p.state for p in result.patches] == states
    assert [f.path for f in result.drifted] == drifted


def test_partially_applied_names_the_hunks(pristine: Pristine) -> None:
    two = patch(
        "two", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -4,2 +4,2 @@\n d\n-e\n+E\n"
    )
    state = series_state(workspace({"f": b"A\nb\nc\nd\ne\n", "g": b"x\ny\n"}), [two], pristine)
    (only,) = state.patches
    assert only.state == PARTIAL
    assert [(h.path, h.index, h.line) for h in only.applied_hunks] == [("f", 1, 1)]
    assert [(h.path, h.index) for h in only.missing_hunks] == [("f", 2)]
    assert state.drifted == ()


def test_context_free_deletion_is_applied_only_when_its_lines_are_gone(pristine: Pristine) -> None:
    # diff -U0: "@@ -3 +2,0 @@" deletes line 3 ("c") with no context at all
    deletion = patch("del", "--- a/f\n+++ b/f\n@@ -2,0 +3 @@\n+new\n@@ -3 +3,0 @@\n-c\n")
    still_there = workspace({"f": b"a\nb\nc\nd\ne\n", "g": b"x\ny\n"})
    (state,) = series_state(still_there, [deletion], pristine).patches
    assert state.state == NOT_APPLIED
    # Its context-free insertion's line is at its place, but an empty pre-image occurs
    # everywhere, so that shows nothing (docs/reliability.md, Limits): undoing the whole patch does not
    # give the pristine file, and nothing of it is taken as applied.
    half = workspace({"f": b"a\nb\nnew\nc\nd\ne\n", "g": b"x\ny\n"})
    result = series_state(half, [deletion], pristine)
    (state,) = result.patches
    assert state.state == CONFLICT
    assert state.applied_hunks == ()
    assert [(h.path, h.index) for h in state.missing_hunks] == [("f", 1), ("f", 2)]
    assert [check.path for check in result.drifted] == ["f"]


# The shape of Debian's werkzeug CVE-2024-34069-1/-2: the first patch adds two lines to a
# function, the second takes them back out and changes another place of the file. On the
# pristine tree the second patch's removal "reverses" (its post-image is the pristine text).
ADDS = patch(
    "cve-1",
    "--- a/f\n+++ b/f\n@@ -1,3 +1,5 @@\n a\n+check = True\n+assert check\n b\n c\n",
)
TAKES_BACK = patch(
    "cve-2",
    "--- a/f\n+++ b/f\n@@ -1,5 +1,3 @@\n a\n-check = True\n-assert check\n b\n c\n"
    "@@ -5,2 +3,2 @@\n d\n-e\n+E\n",
)


@pytest.mark.parametrize(
    ("content", "states"),
    [
        # pristine: neither is applied (the take-back alone proves nothing)
        (b"a\nb\nc\nd\ne\n", [NOT_APPLIED, NOT_APPLIED]),
        # the first applied, the second not
        (b"a\ncheck = True\nassert check\nb\nc\nd\ne\n", [APPLIED, NOT_APPLIED]),
        # both applied
        (b"a\nb\nc\nd\nE\n", [APPLIED, APPLIED]),
        # the first applied, the second's other hunk only: truly partial
        (b"a\ncheck = True\nassert check\nb\nc\nd\nE\n", [APPLIED, PARTIAL]),
    ],
)
def test_a_hunk_taking_back_an_earlier_patch_lines_is_not_evidence_on_its_own(
    content: bytes, states: list[str], tmp_path: Path
) -> None:
    (tmp_path / "f").write_bytes(b"a\nb\nc\nd\ne\n")
    reference = Pristine("pristine", tree=Tree("directory", tmp_path, tmp_path, "pristine"))
    result = series_state(workspace({"f": content}), [ADDS, TAKES_BACK], reference)
    assert [p.state for p in result.patches] == states
    assert result.drifted == ()


def test_apply_outcome_words_are_the_patch_status_words() -> None:
    """``apply``'s outcome and a patch's state share two words, spelled once each."""
    from patchkeeper.trees.applied import PatchStatus
    from patchkeeper.trees.results import Outcome

    assert (Outcome.APPLIED.value, Outcome.PARTIAL.value) == (
        PatchStatus.APPLIED.value,
        PatchStatus.PARTIAL.value,
    )
    assert (Outcome.APPLIED.value, Outcome.PARTIAL.value) == ("applied", "partially applied")


# git format-patch's deletion of an empty file (``git rm py.typed``): a header and no hunk.
DELETE_EMPTY = patch(
    "drop-marker",
    "diff --git a/marker b/marker\ndeleted file mode 100644\nindex e69de29..0000000\n",
)
# The deletion of a one-line file, with its hunk.
DELETE_G = patch(
    "drop-g",
    "diff --git a/g b/g\ndeleted file mode 100644\nindex 587be6b..0000000\n"
    "--- a/g\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n",
)


@pytest.mark.parametrize("with_pristine", [True, False])
def test_a_deletion_is_not_applied_while_its_file_is_there(
    with_pristine: bool, pristine: Pristine, tmp_path: Path
) -> None:
    # Undoing a deletion creates the file, and patch creates over an existing empty file:
    # that success must not make the deletion applied while the tree still has the file.
    (tmp_path / "marker").write_bytes(b"")
    reference = pristine if with_pristine else None
    untouched = workspace({**PRISTINE, "marker": b""})
    result = series_state(untouched, [DELETE_EMPTY, DELETE_G], reference)
    assert [p.state for p in result.patches] == [NOT_APPLIED, NOT_APPLIED]
    assert result.drifted == ()
    emptied = workspace({"f": PRISTINE["f"], "g": b"", "marker": b""})
    result = series_state(emptied, [DELETE_EMPTY, DELETE_G], reference)
    # g's lines are gone (its hunk is applied) but the file is not: half of the deletion.
    assert [p.state for p in result.patches] == [NOT_APPLIED, PARTIAL]
    assert [(h.path, h.index) for h in result.patches[1].applied_hunks] == [("g", 1)]
    deleted = workspace({"f": PRISTINE["f"]})
    result = series_state(deleted, [DELETE_EMPTY, DELETE_G], reference)
    assert [p.state for p in result.patches] == [APPLIED, APPLIED]
    assert result.drifted == ()
