"""All-or-nothing writes into a plugin checkout (``runtime lock``, ``runtime port --write``).

The plugin root gets the same journal every downstream write uses
(``<root>/.patchkeeper/journal``, :mod:`patchkeeper.trees.transaction`): an interrupted earlier
write is rolled back first, then the new files are written in one journaled transaction, so a
failure or a Ctrl-C leaves every file as it was.
"""

from __future__ import annotations

from pathlib import Path

from patchkeeper.trees.transaction import Change, commit, recover

JOURNAL = Path(".patchkeeper") / "journal"


def write_files(root: Path, files: dict[Path, bytes]) -> None:
    """Write ``files`` (absolute path -> bytes, every path inside ``root``) atomically.

    Raises:
        TargetError: a file is not writable or a write failed (nothing was changed).
    """
    journal = root / JOURNAL
    recover(journal, root)
    commit([Change(path, data) for path, data in sorted(files.items())], journal, root=root)
