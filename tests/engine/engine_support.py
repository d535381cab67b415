"""A small downstream for engine tests: a pristine tree, a target copy, a series of patches.

Layout under the test's temporary directory::

    down/patchkeeper.toml     strip, directory "" and pristine = "../pristine"
    down/patches/series       the patches, one a line
    pristine/                 the upstream as released
    target/                   a copy of pristine that the commands change
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.main import main


@dataclass(frozen=True)
class Outcome:
    """One in-process CLI run: its exit code and the text it printed (stdout + stderr)."""

    code: int
    out: str


@dataclass
class Downstream:
    """A downstream directory with its pristine tree and a target copy."""

    root: Path

    @property
    def down(self) -> Path:
        return self.root / "down"

    @property
    def pristine(self) -> Path:
        return self.root / "pristine"

    @property
    def target(self) -> Path:
        return self.root / "target"

    @property
    def patches(self) -> Path:
        return self.down / "patches"


def make_downstream(
    root: Path,
    files: dict[str, bytes],
    patches: dict[str, bytes],
    *,
    strip: int = 1,
    series_lines: list[str] | None = None,
) -> Downstream:
    """Write a downstream under ``root``: pristine ``files``, the ``patches`` in a series (in
    dict order, or ``series_lines`` verbatim), and a target copied from pristine."""
    ds = Downstream(root)
    ds.patches.mkdir(parents=True)
    (ds.down / "patchkeeper.toml").write_text(
        f'series = "patches/series"\nstrip = {strip}\npristine = "../pristine"\n'
    )
    for name, data in patches.items():
        (ds.patches / name).write_bytes(data)
    lines = series_lines if series_lines is not None else list(patches)
    (ds.patches / "series").write_text("".join(line + "\n" for line in lines))
    ds.pristine.mkdir()
    for path, data in files.items():
        dest = ds.pristine / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    shutil.copytree(ds.pristine, ds.target, symlinks=True)
    return ds


def run(ds: Downstream, *args: str, target: Path | None = None) -> Outcome:
    """Run ``patchkeeper -C down ARGS --target TARGET`` in-process."""
    where = ds.target if target is None else target
    argv = ["-C", str(ds.down), *args, "--target", str(where)]
    out, err = io.StringIO(), io.StringIO()
    before = os.getcwd()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        finally:
            os.chdir(before)
    return Outcome(code, out.getvalue() + err.getvalue())


def tree_state(root: Path) -> dict[str, bytes | str]:
    """Every entry under ``root``: file bytes (and mode), symlink destinations, directories."""
    out: dict[str, bytes | str] = {}
    if not root.exists():
        return out
    for path in sorted(root.rglob("*")):
        key = path.relative_to(root).as_posix()
        if key.startswith(".patchkeeper") or "__pycache__" in key:
            continue
        if path.is_symlink():
            out[key] = "-> " + os.readlink(path)
        elif path.is_file():
            out[key] = path.read_bytes()
            out[key + "@mode"] = oct(path.stat().st_mode & 0o777)
        else:
            out[key] = "dir"
    return out
