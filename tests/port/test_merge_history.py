"""git's three-way merge per file, and line ranges carried between two pins."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchkeeper.port.history import _carry_line
from patchkeeper.port.merge import CLEAN, CONFLICT, GONE, MODIFY_DELETE, Labels, merge_patch
from patchkeeper.series.engine import FileState

LABELS = Labels("new pin 2.0", "old pin 1.0", "fix.patch")
BASE = FileState.from_bytes(b"a\nb\nc\nd\ne\n", 0o644)


def merge(base, ours, theirs, moved=None):
    paths = ["f.py"]
    target = (moved or {}).get("f.py", "f.py")
    return merge_patch(
        paths, {"f.py": base}, {"f.py": ours}, {target: theirs}, moved or {}, LABELS
    )[0]


def test_changes_a_line_apart_merge_cleanly() -> None:
    result = merge(
        BASE,
        FileState.from_bytes(b"a\nB\nc\nd\ne\n", 0o644),
        FileState.from_bytes(b"a\nb\nc\nD\ne\n", 0o644),
    )
    assert (result.status, result.conflicts) == (CLEAN, 0)
    assert result.result == FileState.from_bytes(b"a\nB\nc\nD\ne\n", 0o644)


def test_one_line_changed_both_ways_is_a_conflict_in_diff3_style() -> None:
    result = merge(
        BASE,
        FileState.from_bytes(b"a\nb\nPATCH\nd\ne\n", 0o644),
        FileState.from_bytes(b"a\nb\nUPSTREAM\nd\ne\n", 0o644),
    )
    assert (result.status, result.conflicts) == (CONFLICT, 1)
    assert result.result is not None
    assert result.result.data == (
        b"a\nb\n<<<<<<< new pin 2.0\nUPSTREAM\n||||||| old pin 1.0\nc\n=======\nPATCH\n"
        b">>>>>>> fix.patch\nd\ne\n"
    )


def test_a_moved_file_is_merged_where_it_went() -> None:
    moved = FileState.from_bytes(b"header\na\nb\nc\nd\ne\n", 0o644)
    result = merge(BASE, FileState.from_bytes(b"a\nb\nc\nd\nE\n", 0o644), moved, {"f.py": "g.py"})
    assert (result.path, result.target, result.status) == ("f.py", "g.py", CLEAN)
    assert result.result == FileState.from_bytes(b"header\na\nb\nc\nd\nE\n", 0o644)


@pytest.mark.parametrize(
    ("ours", "theirs", "status"),
    [
        (None, BASE, CLEAN),  # the patch deletes a file upstream left alone
        (None, FileState.from_bytes(b"changed\n", 0o644), MODIFY_DELETE),
        (FileState.from_bytes(b"a\n", 0o644), None, GONE),  # upstream removed the file
    ],
)
def test_deletions_and_files_gone(ours, theirs, status) -> None:
    assert merge(BASE, ours, theirs).status == status


def test_labels_name_both_pins_and_the_patch(tmp_path: Path) -> None:
    result = merge(
        None,
        FileState.from_bytes(b"mine\n", 0o644),
        FileState.from_bytes(b"theirs\n", 0o644),
    )
    assert result.result is not None
    assert result.result.data.startswith(b"<<<<<<< new pin 2.0\ntheirs\n||||||| old pin 1.0\n")


# ``git diff -U0`` hunks (a, b, c, d): old lines a..a+b-1 became new lines c..c+d-1
HUNKS = [(3, 0, 4, 2), (10, 2, 12, 1), (20, 3, 20, 0)]


@pytest.mark.parametrize(
    ("line", "start", "expected"),
    [
        (2, True, 2),  # before any change
        (5, True, 7),  # after two inserted lines
        (10, True, 12),  # inside a replaced block: its first new line
        (11, False, 12),  # ... or its last
        (15, True, 16),  # after the block (2 lines became 1)
        (21, True, 20),  # inside a deleted block: the lines around where it was
        (21, False, 21),
        (30, True, 28),  # after the deletion
    ],
)
def test_carry_a_line_from_the_old_pin_to_the_new(line, start, expected) -> None:
    assert _carry_line(line, HUNKS, start=start) == expected
