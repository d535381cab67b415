"""All-or-nothing writes into a plugin checkout (``runtime lock``, ``runtime port --write``).

The plugin root gets the same journal every downstream write uses
(``<root>/.patchkeeper/journal``, :mod:`patchkeeper.trees.transaction`): an interrupted earlier
write is rolled back first, then the new files are written in one journaled transaction, so a
failure or a Ctrl-C leaves every file as it was.
"""

from __future__ import annotations

from pathlib import Path

from patchkeeper.errors import TargetError
from patchkeeper.trees.transaction import Change, commit, recover

JOURNAL = Path(".patchkeeper") / "journal"


def write_files(root: Path, files: dict[Path, bytes], whose: str = "plugin") -> None:
    """Write ``files`` (absolute path -> bytes, every path inside ``root``) atomically;
    ``whose`` says in a read-only error what the files are (a key of
    :data:`patchkeeper.trees.transaction.READ_ONLY`: ``"plugin"``, ``"lock"``).

    Raises:
        TargetError: a file is not writable or a write failed (nothing was changed).
    """
    journal = root / JOURNAL
    recover(journal, root)
    changes = [Change(path, data) for path, data in sorted(files.items())]
    commit(changes, journal, root=root, whose=whose)


def refuse_links_out(root: Path, relatives: tuple[str, ...], command: str) -> None:
    """Refuse to write a plugin file (``relatives``: paths relative to ``root``) that is a
    symbolic link leading outside ``root``: the write would change a file of another tree
    (a patch file linked from a shared checkout), which the plugin's journal does not cover.

    Raises:
        TargetError: naming the first such file, where it leads, and what to do.
    """
    base = root.resolve()
    for relative in relatives:
        resolved = (root / relative).resolve()
        if not resolved.is_relative_to(base):
            raise TargetError(
                f"a symbolic link to {resolved}, outside the plugin directory {base}: "
                f"{command} does not write through it, and nothing was written",
                path=root / relative,
                hint="replace the link by a copy of the file, or leave --write out and apply "
                "the diff (--output FILE) where the link leads by hand",
            )
