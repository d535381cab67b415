"""Changing the downstream's own files (the series, patch files, the ledger) all or nothing.

``retire`` rewrites the series and the ledger and deletes a patch file; ``ledger`` rewrites
the ledger; ``export --range`` writes every topic's patch file and the series. Each such
command writes through one journaled transaction (:func:`patchkeeper.trees.transaction.commit`)
under the downstream's lock, so a crash, a Ctrl-C or a failed write leaves every file as it
was or every file changed (the user-test report, bug 1: ``retire`` took the patch out of the
series, then crashed before the ledger was written).

The journal lives in ``<downstream>/.patchkeeper/journal``; the lock is the one ``port``
takes on the downstream directory, so a ``retire`` cannot interleave with a port.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from patchkeeper.config import Config
from patchkeeper.constants import STATE_DIR
from patchkeeper.trees.transaction import Change, Recovery, commit, locked, recover

#: The journal directory, relative to the downstream root.
JOURNAL = Path(STATE_DIR) / "journal"


def journal_dir(config: Config) -> Path:
    """The downstream's journal directory (``<root>/.patchkeeper/journal``)."""
    return config.root / JOURNAL


@contextmanager
def locked_downstream(config: Config) -> Iterator[Recovery | None]:
    """Hold the downstream's lock; first roll back what an interrupted write left.

    Yields the :class:`~patchkeeper.trees.transaction.Recovery` of that roll-back, or ``None``.
    Do not nest it (``flock`` would wait for itself): ``port`` holds the same lock and calls
    the unlocked functions (:func:`patchkeeper.ledger.table.update_ledger`,
    :func:`patchkeeper.ledger.table.retire_patch`).

    Raises:
        LockError: another patchkeeper process holds the lock longer than ``lock-timeout``.
        TargetError: the journal cannot be rolled back.
    """
    with locked(config.root, config.lock_timeout, "the downstream"):
        yield recover(journal_dir(config), config.root)


def unchanged(change: Change) -> bool:
    """True when writing ``change`` would leave the file as it is."""
    path = change.path
    if change.data is None:
        return not path.exists() and not path.is_symlink()
    try:
        return path.is_file() and path.read_bytes() == change.data
    except OSError:
        return False


def commit_files(config: Config, changes: list[Change]) -> tuple[Path, ...]:
    """Write ``changes`` in one transaction journaled in the downstream; skip unchanged files.

    The caller holds :func:`locked_downstream` (or ``port``'s lock). Returns the paths
    written or deleted.

    Raises:
        TargetError: a file is read-only (nothing written), or a write failed (everything
            put back).
        Interrupted: a Ctrl-C while writing (everything put back).
    """
    todo = [change for change in changes if not unchanged(change)]
    if todo:
        commit(todo, journal_dir(config), root=config.root, whose="downstream")
    return tuple(change.path for change in todo)
