"""The user's cache directory for patchkeeper's own stores, and keeping it bounded.

Downloads, parsed series, files known equal, runtime summaries: each kind of store has a
folder under one root, ``$PATCHKEEPER_CACHE`` (``~`` expanded) or
``~/.cache/patchkeeper-corpus``. Nothing there is ever needed: a store that is missing or
unreadable is built again, so a folder may be pruned at any time.
"""

from __future__ import annotations

import os
from pathlib import Path

from patchkeeper.constants import CACHE_ENV


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
