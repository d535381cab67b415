"""What several commands do first: read the series, check its paths against a tree."""

from __future__ import annotations

from pathlib import Path

from patchkeeper.config import Config
from patchkeeper.errors import TargetError
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
        TargetError: naming the patch file, the line of the file diff and the path (see
            :func:`patchkeeper.trees.safe_path`).
    """
    checked: set[str] = set()
    for patch in patches:
        for diff in patch.files:
            for path in (diff.old_path, diff.new_path):
                if path is None or path in checked:
                    continue
                try:
                    check_target_file(tree, tree.path_of(path), path)
                except TargetError as exc:
                    where = f" at {exc.path}" if exc.path is not None else ""
                    raise TargetError(
                        f"{exc.message}{where}; nothing was written",
                        path=patch.path,
                        line=diff.line_no,
                        hint=exc.hint,
                    ) from None
                checked.add(path)


def check_target_file(tree: Tree, path: Path, relative: str) -> None:
    """Refuse a patch path that is a symlink or another non-regular file in the target (GNU
    patch: "not a regular file"; writing it would replace the link), or that lies in
    patchkeeper's own state (``.patchkeeper/``, the journal, ``patchkeeper.json``).

    Raises:
        TargetError: naming the path.
    """
    if path.is_symlink():
        raise TargetError(
            f"the patch path {relative!r} is a symbolic link in the target; patchkeeper "
            "patches regular files only (GNU patch: not a regular file)",
            path=path,
            hint="patch the file the link points to, or remove the link",
        )
    if path.exists() and not path.is_file() and not path.is_dir():
        raise TargetError(
            f"the patch path {relative!r} is not a regular file in the target",
            path=path,
        )
    for state in own_state(tree):
        if path == state or path.is_relative_to(state):
            raise TargetError(
                f"the patch path {relative!r} lies in patchkeeper's own state ({state})",
                path=path,
                hint="a patch may not change patchkeeper's state; fix the patch",
            )


def own_state(tree: Tree) -> tuple[Path, ...]:
    """Where patchkeeper keeps its state in ``tree``: the journal, and ``.patchkeeper/`` of a
    directory or ``patchkeeper.json`` and ``RECORD`` of an installed distribution."""
    if tree.dist is not None:
        dist = tree.dist
        return (tree.journal_dir, dist.applied_record_path, dist.record_path)
    return (tree.root / ".patchkeeper", tree.journal_dir)


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
