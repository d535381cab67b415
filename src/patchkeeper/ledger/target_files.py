"""The downstream's files that meet a target tree: the configured overlays copied into it,
and the downstream's own files that lie under it.

``apply``, ``unapply``, ``verify`` and ``status`` hand these to their features
(:mod:`patchkeeper.trees.apply_series`, :mod:`patchkeeper.trees.verify_series`), which sit
below the ledger and so cannot read its settings themselves. The ledger's modules are imported
only when the configuration names entries, so a downstream without them does not pay for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from patchkeeper.errors import PatchkeeperError

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


def downstream_files(config: Config, tree: Tree, patches: Sequence[Patch]) -> frozenset[str]:
    """The downstream's own files (configuration, series, patch files, ledger) that lie
    under ``tree``'s base, as paths relative to it: a git branch on an upstream tag is the
    downstream and the patched tree at once (``patchkeeper init --tag``)."""
    from patchkeeper.ledger.settings import ledger_settings

    files = [config.series, *(config.patches_dir / patch.name for patch in patches)]
    if config.source is not None:
        files.append(config.source)
    try:
        files.append(ledger_settings(config).file)
    except PatchkeeperError:
        pass
    base = tree.base.resolve()
    own = set()
    for path in files:
        try:
            own.add(path.resolve().relative_to(base).as_posix())
        except (ValueError, OSError):
            continue
    return frozenset(own)
