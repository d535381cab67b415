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
from pathlib import Path

from patchkeeper.trees.applied import FileCheck
from patchkeeper.trees.tree import Pristine, Tree

#: Never part of an upstream tree: caches, VCS data, patchkeeper's own state.
SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".patchkeeper", "patchkeeper-journal"})


def _files(base: Path, top: tuple[str, ...] = ("",)) -> dict[str, int]:
    """Regular files (and symlinks) under ``base``/each of ``top``: patch path -> size."""
    out: dict[str, int] = {}
    for start in top:
        root = base / start if start else base
        if not root.is_dir():
            continue
        for directory, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in SKIPPED_DIRS]
            rel = Path(directory).relative_to(base).as_posix()
            for name in filenames:
                path = name if rel == "." else f"{rel}/{name}"
                try:
                    out[path] = (Path(directory) / name).lstat().st_size
                except OSError:
                    continue
    return out


def _sha(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _against_tree(target: Tree, pristine: Tree, skip: set[str]) -> list[FileCheck]:
    ours = _files(target.base)
    theirs = _files(pristine.base)
    out = []
    for path in sorted((ours.keys() | theirs.keys()) - skip):
        mine = target.base / path if path in ours else None
        base = pristine.base / path if path in theirs else None
        same_size = mine is not None and base is not None and ours[path] == theirs[path]
        if same_size and mine.read_bytes() == base.read_bytes():  # type: ignore[union-attr]
            continue
        actual = _sha(mine) if mine is not None else None
        expected = _sha(base) if base is not None else None
        out.append(FileCheck(path, True, expected, actual))
    return out


def _against_record(
    target: Tree, recorded: dict[str, str], skip: set[str], at_site_root: bool
) -> list[FileCheck]:
    out = []
    for path, expected in sorted(recorded.items()):
        if path in skip:
            continue
        actual = _sha(target.base / path)
        if actual != expected:
            out.append(FileCheck(path, True, expected, actual))
    # files nobody recorded: under the base, or (when the base is site-packages itself) in
    # the top-level package directories the distribution owns; its .dist-info is pip's
    if at_site_root:
        tops = tuple(sorted({p.split("/", 1)[0] for p in recorded if "/" in p} - {""}))
        tops = tuple(top for top in tops if not top.endswith(".dist-info"))
    else:
        tops = ("",)
    for path in sorted(_files(target.base, tops)):
        if path not in recorded and path not in skip and not path.endswith(".pyc"):
            out.append(FileCheck(path, True, None, _sha(target.base / path)))
    return out


def untouched_drift(target: Tree, pristine: Pristine, skip: set[str]) -> tuple[FileCheck, ...]:
    """Every file under the target's base that the series does not explain.

    Args:
        target: the tree being verified.
        pristine: its pristine reference (a tree, or ``RECORD`` hashes).
        skip: paths already judged (the series' touched files, overlay files).

    Returns:
        One :class:`FileCheck` per file that changed (both hashes), appeared (expected
        ``None``) or went missing (actual ``None``), sorted by path.
    """
    if pristine.tree is not None:
        return tuple(_against_tree(target, pristine.tree, skip))
    return tuple(_against_record(target, pristine.recorded(), skip, pristine.at_site_root))
