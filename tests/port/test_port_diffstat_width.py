"""A ``gbp pq export`` patch of a Debian series carries its diffstat in 80 columns (git's
width for ``--stat`` with no number), not the 72 of ``git format-patch``: a port that
refreshed it (here after a conflict resolved by hand, upstream having dropped one of the
lines the patch deletes) kept the old stat byte for byte, counts and all, since it is not
the stat git writes for the old body in 72 columns. The stat is now recognised in either
width and rewritten in the one it was written in, as git writes it for the new body."""

from __future__ import annotations

from pathlib import Path

from port_support import port_one_patch


def values(count: int, mark: str = "") -> str:
    """The module's table of ``count`` values, each line prefixed with ``mark``."""
    return "".join(f"{mark}VALUE_{i:02d} = {i}\n" for i in range(count))


def module(count: int) -> str:
    """``certbundle/core.py`` with ``count`` values."""
    return (
        '"""Where the CA bundle is."""\nimport os\n\n'
        + values(count)
        + "\n\ndef where():\n    return VALUE_00\n"
    )


PATCHED = (
    '"""Where the CA bundle is."""\nimport os\n\n'
    'BUNDLE = "/etc/ssl/certs/ca-certificates.crt"\n\n\ndef where():\n    return BUNDLE\n'
)
HEADER = """\
From: A Maintainer <maintainer@example.org>
Date: Wed, 11 Dec 2019 13:51:16 -0300
Subject: Use the system's CA bundle

---
"""
PATCH = (
    HEADER + " certbundle/core.py | 73 ++----------------------------------------------------\n"
    " 1 file changed, 2 insertions(+), 71 deletions(-)\n"
    "\n"
    "diff --git a/certbundle/core.py b/certbundle/core.py\n"
    "index ab5a240..f95c5db 100644\n"
    "--- a/certbundle/core.py\n"
    "+++ b/certbundle/core.py\n"
    "@@ -1,77 +1,8 @@\n"
    ' """Where the CA bundle is."""\n'
    " import os\n"
    " \n" + values(70, "-") + '+BUNDLE = "/etc/ssl/certs/ca-certificates.crt"\n'
    " \n"
    " \n"
    " def where():\n"
    "-    return VALUE_00\n"
    "+    return BUNDLE\n"
    "-- \n"
    "2.39.5\n"
)


def test_a_diffstat_in_80_columns_is_rewritten_in_80(cli, tmp_path: Path) -> None:
    trees = ({"certbundle/core.py": module(70)}, {"certbundle/core.py": module(69)})
    name = "0001-Use-the-system-s-CA-bundle.patch"
    run, down = port_one_patch(cli, tmp_path, "certbundle", trees, name, PATCH)
    assert run.code == 1  # VALUE_69 is gone upstream: the merge conflicts next to it
    resolution = down / ".patchkeeper-port" / "conflict" / "files" / "certbundle" / "core.py"
    resolution.write_text(PATCHED)
    run = cli("port", "--continue", cwd=down)
    assert run.code == 0, run.err
    text = (down / "patches-2.0" / name).read_text()
    assert text[: text.index("diff --git")] == (
        HEADER + " certbundle/core.py | 72 ++----------------------------------------------------\n"
        " 1 file changed, 2 insertions(+), 70 deletions(-)\n"
        "\n"
    )
