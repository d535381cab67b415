"""Trying a write before it, leaving nothing: the one check the ``--markdown`` report and a
commit's files share (:func:`patchkeeper.system.writable.try_write`).

Tests run as root, which ignores permission bits, so a directory is made unwritable with
``chattr +i`` (:func:`helpers.set_read_only`); the machine then refuses with ``EPERM``, as
another user meets ``EACCES``. A file system mounted read-only (``EROFS``) is met by the
command line's tests (``patchkeeper_on_read_only_mount``)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from helpers import set_read_only, tree_bytes, write_files
from patchkeeper.errors import TargetError
from patchkeeper.system.writable import try_write
from patchkeeper.trees.transaction import Change, commit

REFUSED = errno.EPERM if os.geteuid() == 0 else errno.EACCES


def test_an_existing_file_is_opened_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "core.py"
    path.write_bytes(b"x = 1\n")
    before = path.stat()
    try_write(path)
    after = path.stat()
    assert path.read_bytes() == b"x = 1\n"
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert [p.name for p in tmp_path.iterdir()] == ["core.py"]


def test_a_new_file_is_made_and_removed(tmp_path: Path) -> None:
    try_write(tmp_path / "report.md")
    assert list(tmp_path.iterdir()) == []


def test_a_directory_gets_a_file_made_and_removed_in_it(tmp_path: Path) -> None:
    (tmp_path / "kept.txt").write_bytes(b"kept\n")
    try_write(tmp_path)
    assert tree_bytes(tmp_path) == {"kept.txt": b"kept\n"}


def test_a_read_only_directory_is_the_machine_s_refusal_naming_it(tmp_path: Path) -> None:
    directory = tmp_path / "pkg"
    directory.mkdir()
    set_read_only(directory, True)
    try:
        with pytest.raises(OSError) as refused:
            try_write(directory)
    finally:
        set_read_only(directory, False)
    assert (refused.value.errno, refused.value.filename) == (REFUSED, str(directory))
    assert list(directory.iterdir()) == []


def test_a_commit_refused_in_its_second_directory_leaves_the_first_as_it_was(
    tmp_path: Path,
) -> None:
    """The check tries a write in every directory of the files to change before the first
    is written: the try in ``a/`` (which succeeds) leaves nothing there, the refusal in
    ``b/`` names its file, and no file was changed."""
    target = write_files(tmp_path / "target", {"a/x.py": "x = 1\n", "b/y.py": "y = 1\n"})
    before = tree_bytes(target)
    changes = [Change(target / "a/x.py", b"x = 2\n"), Change(target / "b/y.py", b"y = 2\n")]
    set_read_only(target / "b", True)
    try:
        with pytest.raises(TargetError) as refused:
            commit(changes, target / ".patchkeeper" / "journal", root=target)
    finally:
        set_read_only(target / "b", False)
    assert str(refused.value) == (
        f"{target}/b/y.py: the target is read-only here; nothing was changed\n"
        "  hint: run as a user who can write the target, or apply to a copy with --target"
    )
    assert tree_bytes(target) == before
    assert sorted(p.name for p in target.iterdir()) == ["a", "b"]


def test_a_commit_s_tries_leave_nothing_when_it_succeeds(tmp_path: Path) -> None:
    """A new file in a missing directory is tried in its nearest existing directory (the
    top): after the commit the tree holds the changed and the new file only."""
    target = write_files(tmp_path / "target", {"a/x.py": "x = 1\n"})
    changes = [Change(target / "a/x.py", b"x = 2\n"), Change(target / "c/d/z.py", b"z = 1\n")]
    commit(changes, target / ".patchkeeper" / "journal", root=target)
    assert tree_bytes(target) == {"a/x.py": b"x = 2\n", "c/d/z.py": b"z = 1\n"}
    assert sorted(p.name for p in target.iterdir()) == ["a", "c"]
