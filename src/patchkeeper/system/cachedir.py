"""The user's cache directory for patchkeeper's own stores, and keeping it bounded.

Downloads, parsed series, files known equal, runtime summaries: each kind of store has a
folder under one root, ``$PATCHKEEPER_CACHE`` (``~`` expanded) or
``~/.cache/patchkeeper-corpus``. Nothing there is ever needed: a store that is missing or
unreadable is built again, so a folder may be pruned at any time.

The stores of parsed series and of files known equal are :mod:`marshal` files named by a
digest of what their content depends on (:func:`store_path`, :func:`load_store`,
:func:`save_store`), and trust a file's stat key (:func:`stat_key`) as ``git status`` trusts
its index, under git's "racily clean" rule (:data:`RACY_SECONDS`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from patchkeeper.constants import CACHE_ENV

#: A file changed this recently has its stat key not remembered (git's "racily clean" rule:
#: a change within the file system's timestamp granularity would keep the key).
RACY_SECONDS = 2.0

#: ``(size, mtime_ns, ctime_ns, inode)`` of a file (:func:`stat_key`).
StatKey = tuple[int, int, int, int]


def cache_root() -> Path:
    """``$PATCHKEEPER_CACHE`` (``~`` expanded) or ``~/.cache/patchkeeper-corpus``."""
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "patchkeeper-corpus"


def prune(directory: Path, keep: int, suffix: str = ".marshal") -> None:
    """Remove the least recently written files ending in ``suffix`` in ``directory`` beyond
    the ``keep`` newest; errors (a folder gone, a file removed by another process) are
    ignored, since every store can be built again."""
    try:
        stores = [entry for entry in os.scandir(directory) if entry.name.endswith(suffix)]
        if len(stores) <= keep:
            return
        stores.sort(key=lambda entry: entry.stat().st_mtime_ns)
        for entry in stores[: len(stores) - keep]:
            os.unlink(entry.path)
    except OSError:
        return


def stat_key(info: os.stat_result) -> StatKey:
    """The stat key of a file's ``os.stat``/``os.lstat`` result: any write changes the
    change time, which no program can set."""
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def racy_since() -> int:
    """The time (nanoseconds since the epoch) :data:`RACY_SECONDS` ago: a file modified or
    changed after it has its stat key not remembered."""
    import time

    return time.time_ns() - int(RACY_SECONDS * 1e9)


def store_path(folder: Path, key: str) -> Path:
    """The store file in ``folder`` for ``key`` (what the store's content depends on: its
    format, the paths it describes), named by a digest of it."""
    import hashlib

    name = hashlib.blake2b(key.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()
    return folder / f"{name}.marshal"


def load_store(path: Path) -> object:
    """The :mod:`marshal` value stored at ``path``; ``None`` when it is missing or cannot be
    read (the caller checks its shape: a foreign store is read as empty)."""
    import marshal

    try:
        return marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None


def save_store(path: Path, value: Any, keep: int) -> None:
    """Write ``value`` (builtin values) to ``path`` with :mod:`marshal`, atomically, then
    :func:`prune` its folder to the ``keep`` newest stores; a store that cannot be written
    is skipped."""
    import marshal

    from patchkeeper.system.atomic import write_atomic

    try:
        write_atomic(path, marshal.dumps(value), parents=True)
    except OSError:
        return
    prune(path.parent, keep)
