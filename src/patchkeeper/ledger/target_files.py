"""The downstream's files that meet a target tree: the configured overlays copied into it,
and the downstream's own files that lie under it.

``apply``, ``unapply``, ``verify`` and ``status`` hand these to their features
(:mod:`patchkeeper.trees.apply_series`, :mod:`patchkeeper.trees.verify_series`), which sit
below the ledger and so cannot read its settings themselves. The ledger's modules are imported
only when the configuration names entries, so a downstream without them does not pay for them.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from patchkeeper.errors import PatchkeeperError

#: The directory of a Debian source package's packaging, which holds its series
#: (``debian/patches/series``).
DEBIAN_DIR = "debian"

if TYPE_CHECKING:
    from patchkeeper.config import Config
    from patchkeeper.series.model import Patch
    from patchkeeper.trees.tree import Tree


def overlay_files(config: Config, tree: Tree) -> dict[str, bytes]:
    """The configured overlays (``[tool.patchkeeper.entries]``): path -> bytes to copy into the
    tree after the series; every path checked against the tree first.

    Raises:
        ConfigError: an entry is malformed.
        TargetError: an overlay's path escapes the tree.
    """
    entries = config.sections.get("entries")
    if entries is not None and not entries.get("overlays"):
        return {}  # nothing to read: the ledger's modules are not even imported
    from patchkeeper.ledger.entries import load_entries
    from patchkeeper.ledger.entries import overlay_files as configured

    if not any(entry.kind == "overlay" for entry in load_entries(config)):
        return {}
    files = configured(config)
    for path in files:
        tree.path_of(path)
    return files


def downstream_files(
    config: Config, tree: Tree, patches: Sequence[Patch], also: Sequence[Path] = ()
) -> frozenset[str]:
    """The downstream's own files (configuration, series, patch files, ledger) that lie
    under ``tree``'s base, as paths relative to it: a git branch on an upstream tag is the
    downstream and the patched tree at once (``patchkeeper init --tag``), and so is a Debian
    source package, the upstream tree with ``debian/`` in it.

    ``also`` names more of the downstream's files and directories (the record's files, the
    work directory of a stopped port); a directory counts with every file in it. For a
    Debian series (``debian/patches/series``) the whole ``debian/`` directory is the
    downstream's: it is the packaging, which the "3.0 (quilt)" format keeps apart from the
    upstream tree."""
    from patchkeeper.ledger.settings import ledger_settings
    from patchkeeper.system.realpaths import RealPaths

    patches_dir = str(config.patches_dir)
    files = [
        str(config.series),
        *(os.path.join(patches_dir, patch.name) for patch in patches),
        *map(str, also),
    ]
    if config.source is not None:
        files.append(str(config.source))
    try:
        files.append(str(ledger_settings(config).file))
    except PatchkeeperError:
        pass
    packaging = config.series.parent.parent
    if config.series.parent.name == "patches" and packaging.name == DEBIAN_DIR:
        files.append(str(packaging))
    base = str(tree.base.resolve())
    inside = base.rstrip("/") + "/"
    real = RealPaths()
    own = set()
    for path in files:
        for file in _files_of(path):
            try:
                resolved = real.real(file)
            except (ValueError, OSError):
                continue
            if resolved.startswith(inside):
                own.add(resolved[len(inside) :])
    return frozenset(own)


def _files_of(path: str) -> list[str]:
    """``path`` itself, or every file under it when it is a directory (symbolic links to
    directories not followed, as the drift check does not follow them)."""
    try:
        mode = os.lstat(path).st_mode
    except (OSError, ValueError):
        return [path]
    if not stat.S_ISDIR(mode):
        return [path]
    return [os.path.join(top, name) for top, _, names in os.walk(path) for name in names]
