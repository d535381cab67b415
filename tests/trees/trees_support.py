"""Helpers for the tree tests: a downstream of one patch of the example's ``minihttp/retry.py``."""

from __future__ import annotations

import difflib
from pathlib import Path

from helpers import Example


def retry_downstream(tmp: Path, example: Example, prefix: str, directory: str = "") -> Path:
    """A downstream with one patch of ``minihttp/retry.py``, its paths ``a/PREFIX...``."""
    root = tmp / "downstream"
    (root / "patches").mkdir(parents=True)
    config = f'upstream = "minihttp"\npin = "1.0"\ndirectory = "{directory}"\n'
    (root / "patchkeeper.toml").write_text(config)
    old = (example.old / "minihttp" / "retry.py").read_text().splitlines(keepends=True)
    new = [*old, "# downstream\n"]
    diff = difflib.unified_diff(old, new, f"a/{prefix}retry.py", f"b/{prefix}retry.py")
    (root / "patches" / "retry.patch").write_text("".join(diff))
    (root / "patches" / "series").write_text("retry.patch\n")
    return root
