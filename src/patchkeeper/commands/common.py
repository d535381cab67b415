"""What the series commands share: the configured overlays, checked against the tree."""

from __future__ import annotations

from patchkeeper.config import Config
from patchkeeper.trees.tree import Tree


def overlay_files(config: Config, tree: Tree) -> dict[str, bytes]:
    """The configured overlays (``[tool.patchkeeper.entries]``): path -> bytes to copy into the
    tree after the series; every path checked against the tree first."""
    from patchkeeper.ledger.entries import load_entries
    from patchkeeper.ledger.entries import overlay_files as configured

    if not any(entry.kind == "overlay" for entry in load_entries(config)):
        return {}
    files = configured(config)
    for path in files:
        tree.path_of(path)
    return files
