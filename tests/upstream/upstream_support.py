"""Helpers for the upstream tests: a downstream pinned to a release the local index lacks."""

from __future__ import annotations

from pathlib import Path

from helpers import write_files

SERIES = {
    "patches/series": "b.patch\n",
    "patches/b.patch": (
        "Subject: B is 20\n\n--- a/pk_demo/core.py\n+++ b/pk_demo/core.py\n"
        "@@ -1,2 +1,2 @@\n A = 1\n-B = 2\n+B = 20\n"
    ),
}


CONFIG = (
    "# the pin below is a typo\n"
    'upstream = "pk-demo"\n'
    'pin = "1.99"\n'
    'series = "patches/series"\n\n[headers]\nschema = "dep3"\n'
)


def downstream(tmp_path: Path, local_index) -> Path:
    """A downstream pinned to a release the local index lacks (it has 1.0 and 1.1)."""
    for version in ("1.0", "1.1"):
        local_index.publish_sdist("pk-demo", version, {"pk_demo/core.py": b"A = 1\nB = 2\n"})
    root = tmp_path / "downstream"
    write_files(root, {**SERIES, "patchkeeper.toml": CONFIG})
    write_files(tmp_path / "target", {"pk_demo/core.py": "A = 1\nB = 2\n"})
    return root
