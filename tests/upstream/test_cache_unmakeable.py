"""The cache of downloaded releases cannot be made (a home folder the user cannot write, a
``PATCHKEEPER_CACHE`` under a file): the error names the folder and the variable that moves
the cache. A cache under a file stopped ``audit --to`` as a bug (exit 3); a home on a
read-only file system was told to "work on a copy". The file in the way is named with what it
is (mkdir says "Not a directory" or "File exists", which names nothing one can act on)."""

from __future__ import annotations

import errno
import json
from pathlib import Path

from upstream_support import downstream

from helpers import tree_bytes
from patchkeeper.system.refusals import machine_refused


def test_a_cache_under_a_file_is_named(cli, tmp_path, local_index, monkeypatch) -> None:
    root = downstream(tmp_path, local_index)
    (tmp_path / "notes.txt").write_text("not a folder\n")
    cache = tmp_path / "notes.txt" / "cache"
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(cache))
    before = tree_bytes(root)
    run = cli("audit", "--to", "pk-demo==1.1", "--pristine", str(tmp_path / "target"), cwd=root)
    assert (run.code, run.out) == (2, "")
    notes = tmp_path / "notes.txt"
    assert run.err == (
        f"patchkeeper: error: {notes}: the new upstream (--to) pk-demo==1.1 cannot be "
        f"fetched: the cache of downloaded releases cannot be made at {cache}: {notes} is a "
        "regular file, not a directory\n"
        "  hint: set PATCHKEEPER_CACHE to a directory this user can write\n"
    )
    # the cache itself a file: mkdir's "File exists" named as what is there
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(notes))
    run = cli("audit", "--to", "pk-demo==1.1", "--pristine", str(tmp_path / "target"), cwd=root)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {notes}: the new upstream (--to) pk-demo==1.1 cannot be "
        f"fetched: the cache of downloaded releases cannot be made at {notes}: {notes} is a "
        "regular file, not a directory",
    )
    run = cli("audit", "--to", "pk-demo==1.1", "--json", cwd=root)
    assert json.loads(run.out)["error"]["hint"] == (
        "set PATCHKEEPER_CACHE to a directory this user can write"
    )
    assert tree_bytes(root) == before


def test_a_refused_write_in_the_cache_names_the_variable(tmp_path: Path, monkeypatch) -> None:
    """A write the machine refuses inside the cache, or on the folder the cache needs made,
    says how to move the cache; one elsewhere keeps the general advice."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "home" / ".cache" / "pk"))
    inside = PermissionError(errno.EACCES, "Permission denied", str(tmp_path / "home/.cache"))
    error = machine_refused(inside)
    assert error is not None and error.hint == (
        f"the cache of downloaded releases is {tmp_path / 'home' / '.cache' / 'pk'}: set "
        "PATCHKEEPER_CACHE to a directory this user can write"
    )
    elsewhere = PermissionError(errno.EACCES, "Permission denied", str(tmp_path / "d"))
    error = machine_refused(elsewhere)
    assert error is not None
    assert error.hint == "let this user write it and its directory, or work on a copy"
