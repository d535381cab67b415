"""Pairs of files found byte-identical before, so that ``verify`` need not read them again.

``verify`` compares every file the series does not touch with the pristine tree. Reading
both trees whole is most of its time; like ``git status``, which trusts its index's stat data,
a pair of files found equal is remembered with each file's *stat key* (size, modification
and change time in nanoseconds, inode), and while both keys are unchanged the pair is equal
without a read. Any write changes the change time (which no program can set), so an edited
file is read again. A pair is remembered only when both files were last changed more than
:data:`~patchkeeper.system.cachedir.RACY_SECONDS` before the comparison (git's "racily
clean" rule): a file changed again within the file system's timestamp granularity would
otherwise keep its key.

One store per (target, pristine tree) pair, in ``$PATCHKEEPER_CACHE/verify/`` (default
``~/.cache/patchkeeper-corpus/verify/``), never in the target or the downstream. A missing,
unreadable or foreign store is read as empty; one that cannot be written is skipped.
"""

from __future__ import annotations

import os
from pathlib import Path

from patchkeeper.system.cachedir import StatKey, load_store, racy_since, save_store, store_path

#: Bump when a store's shape changes.
FORMAT = "verify-1"
#: Stores kept; the least recently written beyond this are removed.
MAX_STORES = 32


def cache_dir() -> Path:
    """``$PATCHKEEPER_CACHE/verify`` or ``~/.cache/patchkeeper-corpus/verify``."""
    from patchkeeper.system.cachedir import cache_root

    return cache_root() / "verify"


class EqualFiles:
    """The remembered equal pairs between two trees, loaded once, saved once if changed.

    Args:
        ours: the target's base directory.
        theirs: the pristine tree's base directory.
    """

    def __init__(self, ours: Path, theirs: Path) -> None:
        key = f"{FORMAT}\0{os.path.realpath(ours)}\0{os.path.realpath(theirs)}"
        self.path = store_path(cache_dir(), key)
        self.pairs: dict[str, tuple[StatKey, StatKey]] = {}
        self.dirty = False
        self._recent_ns = racy_since()
        loaded = load_store(self.path)
        if isinstance(loaded, dict):
            self.pairs = loaded

    def known_equal(self, path: str, mine: StatKey, base: StatKey) -> bool:
        """Whether ``path`` was found equal in both trees with these very stat keys."""
        return self.pairs.get(path) == (mine, base)

    def found_equal(self, path: str, mine: StatKey, base: StatKey) -> None:
        """Remember that ``path`` is equal in both trees (unless either was changed lately)."""
        if max(mine[1], mine[2], base[1], base[2]) > self._recent_ns:
            return
        self.pairs[path] = (mine, base)
        self.dirty = True

    def forget(self, path: str) -> None:
        """Drop ``path`` (found different, or gone)."""
        if self.pairs.pop(path, None) is not None:
            self.dirty = True

    def save(self, present: set[str] | None = None) -> None:
        """Write the store if it changed; with ``present``, keep only those paths."""
        if present is not None and any(path not in present for path in self.pairs):
            self.pairs = {p: keys for p, keys in self.pairs.items() if p in present}
            self.dirty = True
        if not self.dirty:
            return
        save_store(self.path, self.pairs, MAX_STORES)
