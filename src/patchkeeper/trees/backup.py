"""Where ``unapply --force`` keeps the drifted files' bytes before undoing the series."""

from __future__ import annotations

import time
from pathlib import Path

from patchkeeper.errors import TargetError
from patchkeeper.system.removal import remove_tree
from patchkeeper.trees.tree import Tree

#: Where ``unapply --force`` keeps drifted files, under the downstream root.
BACKUP_DIR = ".patchkeeper/backup"


def backup_files(tree: Tree, paths: list[str], root: Path) -> Path:
    """Copy the target's files at ``paths`` (patch paths; an absent one is skipped) to a new
    directory ``ROOT/.patchkeeper/backup/unapply-<UTC time>[-N]/<patch path>``, modes kept.

    Returns:
        The backup directory (absolute).

    Raises:
        TargetError: the backup cannot be written (nothing is left behind).
    """
    import shutil

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    parent = (root / BACKUP_DIR).resolve()
    backup = parent / f"unapply-{stamp}"
    number = 1
    while backup.exists():
        number += 1
        backup = parent / f"unapply-{stamp}-{number}"
    try:
        backup.mkdir(parents=True)
        for path in paths:
            source = tree.path_of(path)
            if source.is_file():
                dest = backup / path
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, dest)
    except OSError as exc:
        remove_tree(backup, ignore_errors=True)
        raise TargetError(
            f"cannot keep the drifted files in {backup}: {exc.strerror}",
            path=backup,
            hint="make the directory writable, or restore the drifted files and unapply "
            "without --force",
        ) from None
    return backup
