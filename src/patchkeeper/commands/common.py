"""What several commands do first: read the series, check its paths against a tree."""

from __future__ import annotations

from patchkeeper.config import Config
from patchkeeper.errors import TargetError
from patchkeeper.series.model import Patch, Series
from patchkeeper.series.parse import load_patches, parse_series
from patchkeeper.trees.tree import Tree


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
        TargetError: naming the patch file, the line of the file diff and the path (see
            :func:`patchkeeper.trees.tree.safe_path`).
    """
    checked: set[str] = set()
    for patch in patches:
        for diff in patch.files:
            for path in (diff.old_path, diff.new_path):
                if path is None or path in checked:
                    continue
                try:
                    tree.path_of(path)
                except TargetError as exc:
                    where = f" at {exc.path}" if exc.path is not None else ""
                    raise TargetError(
                        f"{exc.message}{where}; nothing was written",
                        path=patch.path,
                        line=diff.line_no,
                        hint=exc.hint,
                    ) from None
                checked.add(path)


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
