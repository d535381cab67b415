"""Build small upstream trees (the old pin and the new release) and a series from strings,
and judge the series the way ``audit --to`` does."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

from helpers import write_files
from patchkeeper.audit.horizon import ReleaseVerdicts, taken_earlier
from patchkeeper.audit.series_verdicts import judge_series
from patchkeeper.audit.verdicts import PatchVerdict
from patchkeeper.series.engine import Workspace
from patchkeeper.series.parse import parse_patch
from patchkeeper.trees.tree import read_file
from patchkeeper.upstream.treesearch import TreeSearch


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (path -> text) under ``root``; return ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    return write_files(root, files)


def dated(root: Path, day: dt.date) -> Path:
    """Set every file under ``root`` to noon of ``day`` (as an unpacked tarball keeps its
    archive's times); return ``root``."""
    stamp = dt.datetime(day.year, day.month, day.day, 12, tzinfo=dt.timezone.utc).timestamp()
    for directory, _, files in os.walk(root):
        for name in files:
            os.utime(Path(directory) / name, (stamp, stamp))
    return root


def judge(
    tmp_path: Path,
    new: dict[str, str],
    patches: list[tuple[str, str]],
    old: dict[str, str] | None = None,
    version: str | None = None,
) -> list[PatchVerdict]:
    """Judge ``patches`` (name, text) on the new tree ``new``, with the old pin's tree ``old``
    when given (``None``: the pin's tree cannot be had), as release ``version`` (``None``:
    unknown)."""
    new_root = write_tree(tmp_path / "new", new)
    pin = TreeSearch(write_tree(tmp_path / "old", old), "old") if old is not None else None
    parsed = [parse_patch(text.encode(), name=name, path=Path(name)) for name, text in patches]
    ws = Workspace(lambda path: read_file(new_root / path))
    return judge_series(ws, parsed, TreeSearch(new_root, "new"), pin, version)


def judge_horizon(
    tmp_path: Path,
    path: str,
    pin: str,
    patches: list[tuple[str, str]],
    releases: list[tuple[str, str]],
) -> list[ReleaseVerdicts]:
    """Judge ``patches`` (name, text), all on the one file ``path``, at each release
    ``(version, text of path)``, oldest first, against the pin's ``path`` holding ``pin``,
    with what upstream took earlier carried forward
    (:func:`patchkeeper.audit.horizon.taken_earlier`)."""
    pin_tree = TreeSearch(write_tree(tmp_path / "pin", {path: pin}), "pin")
    parsed = [parse_patch(text.encode(), name=name, path=Path(name)) for name, text in patches]
    judged = []
    for version, text in releases:
        root = write_tree(tmp_path / version, {path: text})
        ws = Workspace(lambda path, root=root: read_file(root / path))
        verdicts = judge_series(ws, parsed, TreeSearch(root, version), pin_tree, version)
        judged.append(ReleaseVerdicts(version, version, tuple(verdicts)))
    return taken_earlier(judged)
