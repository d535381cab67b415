"""Files the series does not touch, compared with the pristine reference.

``verify`` promises that nothing but the series changed the target: no file is *drifted*
(changed outside the series; docs/glossary.md). The files the series touches are checked by
undoing it (:mod:`patchkeeper.trees.applied`); this module checks every other file under the
target's base: against a pristine tree (changed, added or missing files), or against an
installed distribution's ``RECORD`` (changed or missing recorded files, and files nobody
recorded inside the distribution's own directories).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from patchkeeper.system.cachedir import StatKey, stat_key
from patchkeeper.system.regular import read_regular
from patchkeeper.trees.applied import FileCheck
from patchkeeper.trees.equal_cache import EqualFiles
from patchkeeper.trees.leftovers import WalkIgnore, ignored_by
from patchkeeper.trees.tree import Pristine, Tree

#: Never part of an upstream tree: caches, VCS data, patchkeeper's own state.
SKIPPED_DIRS = frozenset(
    {"__pycache__", ".git", ".hg", ".svn", ".patchkeeper", "patchkeeper-journal"}
)
#: VCS data that is a file: the ``.git`` file of a ``git worktree`` or a submodule (a
#: pointer to the repository), so a worktree compares equal to a clone of the same commit.
SKIPPED_FILES = frozenset({".git"})


#: The stat key given to a file of ``unread`` (:func:`_files`): present, not looked at.
_NOT_READ: StatKey = (-1, -1, -1, -1)


def _files(
    base: Path,
    top: tuple[str, ...] = ("",),
    ignore: Sequence[str] = (),
    unread: set[str] | frozenset[str] = frozenset(),
) -> tuple[dict[str, StatKey], set[str]]:
    """Regular files (and symlinks) under ``base``/each of ``top``: ``(patch path -> stat key
    (:func:`patchkeeper.system.cachedir.stat_key`), ignored paths)``; an ignored directory
    is not walked and is listed once, as ``dir/``. A path of ``unread`` (the files the
    series touches, judged elsewhere) is listed without an ``lstat``, with the key
    :data:`_NOT_READ`."""
    out: dict[str, StatKey] = {}
    ignored: set[str] = set()
    walk = WalkIgnore(ignore) if ignore else None
    for start in top:
        root = base / start if start else base
        if not root.is_dir():
            continue
        pending = [(str(root), "" if not start else f"{start}/")]
        while pending:
            directory, prefix = pending.pop()
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            for entry in entries:
                name = entry.name
                try:
                    is_dir = entry.is_dir()  # a link to a directory too, as os.walk sorts
                except OSError:
                    continue
                if is_dir:
                    if name in SKIPPED_DIRS:
                        continue
                    if walk is not None and walk.ignores(prefix + name, is_dir=True):
                        ignored.add(f"{prefix}{name}/")
                        continue
                    if not entry.is_symlink():  # not followed (os.walk's default)
                        pending.append((entry.path, f"{prefix}{name}/"))
                    continue
                if name in SKIPPED_FILES:
                    continue
                path = prefix + name
                if walk is not None and walk.ignores(path, is_dir=False):
                    ignored.add(path)
                    continue
                if path in unread:
                    out[path] = _NOT_READ
                    continue
                try:
                    out[path] = stat_key(entry.stat(follow_symlinks=False))
                except OSError:
                    continue
    return out, ignored


def _sha(path: Path) -> str | None:
    try:
        return hashlib.sha256(read_regular(path)).hexdigest()
    except OSError:
        return None


def _same(mine: Path, base: Path) -> bool:
    try:
        return read_regular(mine) == read_regular(base)
    except OSError:
        return False


def _against_tree(
    target: Tree,
    pristine: Tree,
    skip: set[str],
    ignore: Sequence[str],
    own: frozenset[str] = frozenset(),
) -> tuple[list[FileCheck], set[str]]:
    """Files that differ between the target and the pristine tree; a pair of the same size
    is read only when :class:`EqualFiles` does not know it as equal already. A path of
    ``own`` that the pristine tree does not have is the downstream's own, not drift."""
    ours, ignored = _files(target.base, ignore=ignore, unread=skip)
    theirs, ignored_there = _files(pristine.base, ignore=ignore, unread=skip)
    equal = EqualFiles(target.base, pristine.base)
    out = []
    mine_only = {path for path in own if path in ours and path not in theirs}
    for path in sorted((ours.keys() | theirs.keys()) - skip - mine_only):
        mine_key, base_key = ours.get(path), theirs.get(path)
        if mine_key is not None and base_key is not None and mine_key[0] == base_key[0]:
            if equal.known_equal(path, mine_key, base_key):
                continue  # no path built: most files of a tree take this way
            if _same(target.base / path, pristine.base / path):
                equal.found_equal(path, mine_key, base_key)
                continue
        mine = target.base / path if mine_key is not None else None
        base = pristine.base / path if base_key is not None else None
        equal.forget(path)
        actual = _sha(mine) if mine is not None else None
        expected = _sha(base) if base is not None else None
        out.append(FileCheck(path, True, expected, actual))
    equal.save(present=ours.keys() & theirs.keys())
    return out, ignored | ignored_there


def _owned_top(name: str) -> bool:
    """A top-level ``RECORD`` directory the distribution owns inside site-packages: not
    empty, not ``.``/``..`` (a row that leaves site-packages), not its ``.dist-info``."""
    return name not in ("", ".", "..") and not name.endswith(".dist-info")


def _against_record(
    target: Tree,
    recorded: dict[str, str],
    skip: set[str],
    at_site_root: bool,
    ignore: Sequence[str],
) -> tuple[list[FileCheck], set[str]]:
    out = []
    ignored: set[str] = set()
    for path, expected in sorted(recorded.items()):
        if path in skip:
            continue
        if ignore and ignored_by(path, ignore):
            ignored.add(path)
            continue
        actual = _sha(target.base / path)
        if actual != expected:
            out.append(FileCheck(path, True, expected, actual))
    # files nobody recorded: under the base, or (when the base is site-packages itself) in
    # the top-level package directories the distribution owns; its .dist-info is pip's, and
    # a row that leaves site-packages (a console script, ``../../../bin/NAME``) is a file
    # compared above, never a directory to walk (the parent of site-packages holds others')
    if at_site_root:
        tops = tuple(sorted({p.split("/", 1)[0] for p in recorded if "/" in p}))
        tops = tuple(top for top in tops if _owned_top(top))
    else:
        tops = ("",)
    present, ignored_here = _files(target.base, tops, ignore)
    for path in sorted(present):
        if path not in recorded and path not in skip and not path.endswith(".pyc"):
            out.append(FileCheck(path, True, None, _sha(target.base / path)))
    return out, ignored | ignored_here


def untouched_drift(
    target: Tree,
    pristine: Pristine,
    skip: set[str],
    ignore: Sequence[str] = (),
    own: frozenset[str] = frozenset(),
) -> tuple[tuple[FileCheck, ...], tuple[str, ...]]:
    """Every file under the target's base that the series does not explain.

    Args:
        target: the tree being verified.
        pristine: its pristine reference (a tree, or ``RECORD`` hashes).
        skip: paths already judged (the series' touched files, overlay files).
        ignore: the configuration's ``ignore`` patterns (:mod:`patchkeeper.trees.leftovers`):
            build and test leftovers, not compared.
        own: the downstream's own files (its configuration, series, patches and ledger)
            as paths under the target's base, for a target that holds the downstream (a git
            branch on an upstream tag): not drift where the pristine tree has no such file.

    Returns:
        ``(drift, ignored)``: one :class:`FileCheck` per file that changed (both hashes),
        appeared (expected ``None``) or went missing (actual ``None``), sorted by path; and
        the ignored paths found in either tree, sorted (an ignored directory once, as
        ``dir/``).
    """
    if pristine.tree is not None:
        drift, ignored = _against_tree(target, pristine.tree, skip, ignore, own)
    else:
        drift, ignored = _against_record(
            target, pristine.recorded(), skip, pristine.at_site_root, ignore
        )
    return tuple(drift), tuple(sorted(ignored))
