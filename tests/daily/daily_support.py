"""Helpers for the daily-use tests: a downstream in Debian's shape (``debian/patches`` with a
DEP-3 patch, a ledger under ``debian/``, an overlay entry)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from helpers import EXAMPLES

CONFIG = """\
upstream = "minihttp"
pin = "1.0"
series = "debian/patches/series"
directory = "minihttp"
pristine = "../upstream/minihttp-1.0"

[headers]
schema = "dep3"

[ledger]
file = "debian/PATCHES.md"

[git]
tag = "deb"

[entries.overlays.extra-files]
source = "debian/extra"
fields = { Description = "extra files", Origin = "vendor", Forwarded = "not-needed" }
"""


DEP3_PATCH_HEADER = (
    "Description: Client.describe() names the minihttp version\n"
    " Support tickets quote describe().\n"
    "Origin: vendor\n"
    "Forwarded: not-needed\n"
    "Last-Update: 2026-11-30\n"
    "---\n"
)


def debian_downstream(root: Path) -> Path:
    """A git checkout in Debian's shape: debian/patches/series with a DEP-3 patch, a ledger
    under debian/, an overlay entry; beside it the example's two upstream trees."""
    shutil.copytree(EXAMPLES / "upstream", root / "upstream")
    down = root / "d"
    (down / "debian" / "patches").mkdir(parents=True)
    (down / "debian" / "extra").mkdir()
    (down / "debian" / "extra" / "f.txt").write_text("hi\n")
    (down / "patchkeeper.toml").write_text(CONFIG)
    source = (EXAMPLES / "downstream" / "patches" / "client-describe-version.patch").read_text()
    diff = source[source.index("diff --git") :]
    (down / "debian" / "patches" / "describe-version.patch").write_text(DEP3_PATCH_HEADER + diff)
    (down / "debian" / "patches" / "series").write_text("describe-version.patch\n")
    (down / "debian" / "PATCHES.md").write_text(
        "# patches\n\n<!-- table:begin -->\n<!-- table:end -->\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=down, check=True)
    return down
