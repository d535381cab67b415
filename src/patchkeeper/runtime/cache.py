"""The parsed-tree cache: per-file summaries pickled under the corpus cache.

A summary is keyed by the file's absolute path, size and modification time (nanoseconds),
and the whole store by the tree root and a *salt* (the summary format version plus the
settings that change a summary), so a changed file is parsed again and nothing else is.
The store lives in ``$PATCHKEEPER_CACHE/runtime/`` (default ``~/.cache/patchkeeper-corpus``);
a missing, unreadable or foreign store is treated as empty, never as an error.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from patchkeeper.constants import CACHE_ENV

#: Bump when a cached summary's shape changes.
FORMAT = "runtime-7"


def cache_root() -> Path:
    """``$PATCHKEEPER_CACHE`` or ``~/.cache/patchkeeper-corpus``."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path.home() / ".cache" / "patchkeeper-corpus"


class SummaryCache:
    """A dict-like store ``file -> summary`` for one tree, loaded once, saved once.

    Args:
        root: the tree's root directory (part of the key).
        salt: what else the summaries depend on (settings), as text.
    """

    def __init__(self, root: Path, salt: str) -> None:
        digest = hashlib.sha256(f"{FORMAT}\0{root.resolve()}\0{salt}".encode()).hexdigest()[:24]
        self.path = cache_root() / "runtime" / f"{digest}.pickle"
        self.entries: dict[str, tuple[int, int, Any]] = {}
        self.dirty = False
        try:
            with self.path.open("rb") as handle:
                loaded = pickle.load(handle)
            if isinstance(loaded, dict):
                self.entries = loaded
        except (OSError, pickle.PickleError, EOFError, AttributeError, ImportError, TypeError):
            self.entries = {}

    def get(self, file: Path) -> Any | None:
        """The cached summary of ``file`` if it has not changed since, else ``None``."""
        hit = self.entries.get(str(file))
        if hit is None:
            return None
        try:
            stat = file.stat()
        except OSError:
            return None
        if (stat.st_size, stat.st_mtime_ns) != hit[:2]:
            return None
        return hit[2]

    def put(self, file: Path, summary: Any) -> None:
        """Remember ``summary`` for the current state of ``file``."""
        try:
            stat = file.stat()
        except OSError:
            return
        self.entries[str(file)] = (stat.st_size, stat.st_mtime_ns, summary)
        self.dirty = True

    def save(self) -> None:
        """Write the store atomically if anything changed (errors are ignored: a cache)."""
        if not self.dirty:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as handle:
                pickle.dump(self.entries, handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self.path)
            self.dirty = False
        except OSError:
            return
