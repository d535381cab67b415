"""The three-way merge of one patch, file by file, with ``git merge-file``.

The issue ("patchkeeper 3"): when a patch does not apply at fuzz 0, merge per file with
base = the old pristine file with the earlier patches applied, ours = the same with this
patch, theirs = the new pristine file with the earlier *ported* patches applied, using git's
merge machinery, never a merge of our own. ``git merge-file CURRENT BASE OTHER`` is called
with CURRENT = theirs and OTHER = ours, as ``git rebase`` does (its conflict markers show the
new base first, then the commit being replayed), in diff3 style so the old lines show too.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.errors import GitError
from patchkeeper.series.engine import FileState, Workspace
from patchkeeper.series.hunks import patch_lines
from patchkeeper.series.model import Patch
from patchkeeper.upstream import gitops

CLEAN = "clean"
CONFLICT = "conflict"
#: The file is gone from the new tree and nothing says where its content went.
GONE = "gone"
#: The patch deletes a file the new upstream changed.
MODIFY_DELETE = "modify/delete"


@dataclass(frozen=True)
class Labels:
    """The names in conflict markers: ``<<<<<<< new``, ``||||||| old``, ``>>>>>>> patch``."""

    new: str
    old: str
    patch: str


@dataclass(frozen=True)
class FileMerge:
    """The merge of one path of a patch.

    Attributes:
        path: the path the patch names.
        target: where the result goes in the new tree (``path``, or where the file moved).
        status: :data:`CLEAN`, :data:`CONFLICT`, :data:`GONE` or :data:`MODIFY_DELETE`.
        result: the merged file (with conflict markers for :data:`CONFLICT`, and around the
            new pin's file for :data:`MODIFY_DELETE`), ``None`` for a deletion or when there
            is nothing to write (:data:`GONE`).
        conflicts: how many conflict regions git left.
    """

    path: str
    target: str
    status: str
    result: FileState | None
    conflicts: int = 0

    @property
    def ok(self) -> bool:
        return self.status == CLEAN


def merge_file(
    base: bytes, ours: bytes, theirs: bytes, labels: Labels, scratch: Path
) -> tuple[bytes, int]:
    """Merge one file with ``git merge-file -p --diff3``.

    Args:
        base: the common ancestor (old upstream with the earlier patches).
        ours: the base with the patch applied.
        theirs: the new upstream with the earlier ported patches.
        labels: the conflict marker names.
        scratch: an existing directory for the three temporary files.

    Returns:
        ``(merged bytes, number of conflicts)``; 0 conflicts is a clean merge.

    Raises:
        GitError: git cannot merge the files at all (binary content).
    """
    files = []
    for name, data in (("theirs", theirs), ("base", base), ("ours", ours)):
        path = scratch / name
        path.write_bytes(data)
        files.append(name)
    args = ["merge-file", "-p", "--diff3"]
    for label in (labels.new, labels.old, labels.patch):
        args += ["-L", label]
    done = gitops.call([*args, *files], scratch)
    if done.returncode < 0 or done.returncode > 127:
        output = done.stderr.decode("utf-8", "replace").strip()
        raise GitError(
            f"git merge-file failed with exit code {done.returncode}: {output}",
            hint="git merges text files only; port this file by hand",
        )
    return done.stdout, done.returncode


def _mode(base: FileState | None, ours: FileState | None, theirs: FileState | None) -> int | None:
    if ours is not None and base is not None and ours.mode != base.mode:
        return ours.mode
    if theirs is not None:
        return theirs.mode
    return ours.mode if ours is not None else None


def _deletion_region(base: FileState | None, theirs: FileState, labels: Labels) -> FileState:
    """The new pin's file of a modify/delete as one conflict region in diff3 style: the new
    pin's lines, the old pin's between ``|||||||`` and ``=======``, and the patch's side
    empty (it deletes the file). A file left as it was laid out then fails ``--continue``'s
    check for markers, as ``git rebase --continue`` refuses a path left unmerged: taking
    the new pin's file without a word would drop the patch's deletion. A side without a
    last line ending gets one, as ``git merge-file`` gives it one in a conflict."""
    eol = b"\r\n" if theirs.data.split(b"\n", 1)[0].endswith(b"\r") else b"\n"

    def side(data: bytes) -> bytes:
        return data if not data or data.endswith(b"\n") else data + eol

    data = b"".join(
        [
            b"<<<<<<< " + labels.new.encode("utf-8", "surrogateescape") + eol,
            side(theirs.data),
            b"||||||| " + labels.old.encode("utf-8", "surrogateescape") + eol,
            side(base.data if base is not None else b""),
            b"=======" + eol,
            b">>>>>>> " + labels.patch.encode("utf-8", "surrogateescape") + eol,
        ]
    )
    return FileState.from_bytes(data, theirs.mode)


def to_endings_of(new: bytes, old: bytes, patched: bytes) -> tuple[bytes, bytes]:
    """``old`` and ``patched`` (the old pin's file and the patch's) in the line endings of
    ``new`` (the new pin's), when ``new`` has one style (every line CRLF, or none) and
    ``old`` has the other.

    An upstream that converted a module from CRLF to LF between releases (or back) changed
    every line of it: ``git merge-file`` then sees the new pin and the patch change the same
    lines and puts the whole file in one conflict region. Read in the new pin's endings,
    only the lines upstream really changed meet the patch's, and the patch comes out in the
    endings of the file it now applies to. Files whose endings did not change, or that mix
    both styles at the new pin, are merged as they are.

    >>> to_endings_of(b"a\\nb\\n", b"a\\r\\nb\\r\\n", b"a\\r\\nB\\r\\n")
    (b'a\\nb\\n', b'a\\nB\\n')
    >>> to_endings_of(b"a\\r\\nb\\r\\n", b"a\\nb\\n", b"a\\nB\\n")
    (b'a\\r\\nb\\r\\n', b'a\\r\\nB\\r\\n')
    >>> to_endings_of(b"a\\nb\\r\\n", b"a\\r\\nb\\r\\n", b"a\\r\\n")
    (b'a\\r\\nb\\r\\n', b'a\\r\\n')
    """
    newlines = new.count(b"\n")
    crlf = new.count(b"\r\n")
    if not newlines or 0 < crlf < newlines:
        return old, patched  # no line, or both styles at the new pin
    if crlf == 0 and b"\r\n" in old:
        return old.replace(b"\r\n", b"\n"), patched.replace(b"\r\n", b"\n")
    if crlf == newlines and old.count(b"\n") and b"\r\n" not in old:
        return _crlf(old), _crlf(patched)
    return old, patched


def _crlf(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def merge_path(
    path: str,
    target: str,
    base: FileState | None,
    ours: FileState | None,
    theirs: FileState | None,
    labels: Labels,
    scratch: Path,
) -> FileMerge:
    """Merge one path; ``None`` states are absent files (created or deleted)."""
    if ours is None:  # the patch deletes the file
        if theirs is None or theirs == base:
            return FileMerge(path, target, CLEAN, None)
        return FileMerge(path, target, MODIFY_DELETE, _deletion_region(base, theirs, labels), 1)
    if theirs is None and base is not None:
        return FileMerge(path, target, GONE, None, 1)
    old, patched = base.data if base is not None else b"", ours.data
    if theirs is not None:
        old, patched = to_endings_of(theirs.data, old, patched)
    data, conflicts = merge_file(
        old,
        patched,
        theirs.data if theirs is not None else b"",
        labels,
        scratch,
    )
    state = FileState.from_bytes(data, _mode(base, ours, theirs))
    return FileMerge(path, target, CONFLICT if conflicts else CLEAN, state, conflicts)


def merge_patch(
    paths: list[str],
    before: Mapping[str, FileState | None],
    after: Mapping[str, FileState | None],
    theirs: Mapping[str, FileState | None],
    moved: Mapping[str, str],
    labels: Labels,
    exact: Mapping[str, FileState | None] | None = None,
    renamed_from: Mapping[str, str] | None = None,
) -> list[FileMerge]:
    """Merge every path a patch touches.

    A file the patch renames (``renamed_from``: new path -> old path) is merged with the
    old path's sides as its base and theirs when the new side still has the old path, as
    git's merge follows a rename: upstream's changes to the file since the old pin reach the
    renamed file. Merged under its new path
    alone, the renamed file would be the old pin's content with the patch's changes, and
    upstream's changes would be lost without a conflict saying so.

    Args:
        paths: the patch's paths, in order.
        before: each path on the old side before the patch (base).
        after: each path on the old side after the patch (ours).
        theirs: each *target* path on the new side (``moved.get(path, path)``).
        moved: paths that are gone from the new tree -> where their content likely went.
        labels: the conflict marker names.
        exact: paths whose hunks all apply at fuzz 0 on the new side, with the result; they
            are taken as they are, without a merge.
    """
    exact = exact or {}
    renamed_from = renamed_from or {}
    out = []
    with tempfile.TemporaryDirectory(prefix="patchkeeper-merge-") as scratch:
        for path in paths:
            if before.get(path) == after.get(path):
                continue
            target = moved.get(path, path)
            if path in exact:
                out.append(FileMerge(path, target, CLEAN, exact[path]))
                continue
            base, their = before.get(path), theirs.get(target)
            source = renamed_from.get(path)
            if source is not None and base is None and their is None:
                # only when the new side still has the old path: a file upstream deleted
                # leaves the renamed file the patch's, judged as before (target gone)
                old_side = theirs.get(moved.get(source, source))
                if old_side is not None:
                    base, their = before.get(source), old_side
            out.append(
                merge_path(path, target, base, after.get(path), their, labels, Path(scratch))
            )
    return out


def exact_paths(
    patch: Patch, ws: Workspace, moved: Mapping[str, str]
) -> dict[str, FileState | None]:
    """The paths whose file diffs all apply at fuzz 0 on the new side, with the result:
    they need no merge (the issue: clean hunks are regenerated, the rest merged)."""
    out: dict[str, FileState | None] = {}
    failing: set[str] = set()
    for diff in patch.files:
        path = diff.path
        if path in moved or diff.is_rename or path in failing:
            failing.add(path)
            continue
        state = out[path] if path in out else ws.get(path)
        if diff.is_deletion or (diff.is_creation and state is not None):
            failing.add(path)
            continue
        lines = state.lines if state is not None else ()
        result = patch_lines(lines, diff.hunks)
        if result.lines is None:
            failing.add(path)
            continue
        if state is not None:
            mode = state.mode
        else:
            mode = int(diff.new_mode[-3:], 8) if diff.new_mode else None
        out[path] = FileState(tuple(result.lines), mode)
    return {path: state for path, state in out.items() if path not in failing}
