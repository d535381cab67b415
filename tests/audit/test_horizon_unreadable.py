"""The upgrade horizon (``audit --to 'PROJECT>A'``) judges a series with a patch file that
cannot be read as the audit of one release does: that patch is *unreadable* at every
release, named under the table with its file, line and what to do, and every other patch is
judged (exit 2, the report complete). It stopped at the first such file, with no table at
all, though the manual says one unreadable patch costs only its own verdict.

The series is in the shape of a Debian package's: gbp pq patches, one of them with a hunk cut
short (in a rebase), one listed but missing."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import write_files

SERVER = "def parse(name):\n    return name\n"
EMPTY_NAMES = """From: Tess Ter <tess@example.org>
Subject: Disallow empty header names.

---
diff --git a/server/message.py b/server/message.py
--- a/server/message.py
+++ b/server/message.py
@@ -1,2 +1,4 @@
 def parse(name):
+    if not name:
+        raise ValueError(name)
     return name
"""
LOST_HUNKS = """From: Tess Ter <tess@example.org>
Subject: Don't call chown(2) if it would be a no-op

The hunk was cut short in a rebase.
---
diff --git a/server/message.py b/server/message.py
--- a/server/message.py
+++ b/server/message.py
@@ -1,2 +1,4 @@
 def parse(name):
+    chown(name)
"""


def _downstream(root: Path) -> Path:
    for version in ("1.0", "1.1"):
        write_files(
            root / "rel" / f"server-{version}",
            {
                "PKG-INFO": f"Metadata-Version: 2.1\nName: server\nVersion: {version}\n",
                "server/message.py": SERVER,
            },
        )
    return write_files(
        root / "down",
        {
            "patchkeeper.toml": 'upstream = "server"\npin = "1.0"\n'
            'series = "debian/patches/series"\npristine = "../rel/server-1.0"\n',
            "debian/patches/series": "0001-empty-names.patch\n0002-chown.patch\n0003-gone.patch\n",
            "debian/patches/0001-empty-names.patch": EMPTY_NAMES,
            "debian/patches/0002-chown.patch": LOST_HUNKS,
        },
    )


def test_an_unreadable_patch_costs_only_its_own_row(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    patches = down / "debian" / "patches"
    no_diff = (
        f"{patches / '0002-chown.patch'}:11: truncated hunk: the patch ends before the line "
        "counts of its header are met (regenerate the patch; do not edit hunks by hand)"
    )
    missing = (
        f"{patches / 'series'}:3: the series lists 0003-gone.patch, which does not exist "
        f"(restore {patches / '0003-gone.patch'} or remove the line from the series)"
    )
    rest = (
        "; the later patches were judged without it; to do: look (the patch file cannot be "
        "read: fix it, then audit again)"
    )

    run = cli("audit", "--to", "server>=1.0", "--releases", "../rel", cwd=down)
    data = json.loads(
        cli("audit", "--to", "server>=1.0", "--releases", "../rel", "--json", cwd=down).out
    )

    assert (run.code, run.err) == (2, "")
    assert run.out.splitlines()[4:] == [
        "  patch                   1.0         1.1",
        "  0001-empty-names.patch  clean       clean",
        "  0002-chown.patch        unreadable  unreadable",
        "  0003-gone.patch         unreadable  unreadable",
        "",
        f"0002-chown.patch (unreadable): {no_diff}{rest}",
        f"0003-gone.patch (unreadable): {missing}{rest}",
        "next pin: 1.1 (highest release that needs no patch ported by hand, not counting "
        "0002-chown.patch and 0003-gone.patch, which cannot be read)",
    ]
    assert (data["exit_code"], data["next_pin"]) == (2, "1.1")
    assert [
        [(v["name"], v["verdict"], v["unreadable"]) for v in r["verdicts"]]
        for r in data["releases"]
    ] == 2 * [
        [
            ("0001-empty-names.patch", "clean", ""),
            ("0002-chown.patch", "unreadable", no_diff.split(" (regenerate")[0]),
            ("0003-gone.patch", "unreadable", missing.split(" (restore")[0]),
        ]
    ]
