"""What several commands do first: read the series, check its paths against a tree."""

from __future__ import annotations

from patchkeeper.config import Config
from patchkeeper.engine import touched_paths
from patchkeeper.model import Patch, Series
from patchkeeper.parse import load_patches, parse_series
from patchkeeper.trees import Tree


def load_series(config: Config) -> tuple[Series, list[Patch]]:
    """Read the configured series file and every patch it lists.

    Raises:
        PatchFormatError: naming the series or patch file and line.
    """
    series = parse_series(config.series)
    return series, load_patches(series, config.strip)


def check_paths(tree: Tree, patches: list[Patch]) -> None:
    """Refuse, before anything is read or written, any patch path that escapes ``tree``.

    Raises:
        TargetError: naming the path (see :func:`patchkeeper.trees.safe_path`).
    """
    for path in touched_paths(patches):
        tree.path_of(path)


def overlay_files(config: Config, tree: Tree) -> dict[str, bytes]:
    """The configured overlays (``[tool.patchkeeper.entries]``): path -> bytes to copy into the
    tree after the series; every path checked against the tree first."""
    from patchkeeper.entries import load_entries
    from patchkeeper.entries import overlay_files as configured

    if not any(entry.kind == "overlay" for entry in load_entries(config)):
        return {}
    files = configured(config)
    for path in files:
        tree.path_of(path)
    return files
