"""A ``git format-patch`` file whose last file diff has no hunk (the deletion of an empty file,
a mode change, a pure rename) ends with git's signature (``-- `` and git's version) right
after that file's header. The parser read the signature as part of the header, and the port,
which writes a git header anew, dropped it: a patch carried onto a release that did not
touch its files changed its bytes. The signature is the patch's trailer, as after a hunk."""

from __future__ import annotations

from pathlib import Path

import pytest
from port_support import port_one_patch

from patchkeeper.series.parse import parse_patch, render_patch

OLD = {"pkg/__init__.py": "", "pkg/core.py": "A = 1\n", "pkg/run.py": "run()\n"}
NEW = {**OLD, "pkg/core.py": "A = 1\nB = 2\n"}

HEAD = """From 8072713b2f0e6c1d3a6a1c8d5b1f0e6c1d3a6a1c Mon Sep 17 00:00:00 2001
From: A Maintainer <maintainer@example.org>
Date: Sun, 6 Dec 2026 17:48:14 +0000
Subject: [PATCH] {subject}

---
"""
SIGNATURE = "-- \n2.39.5\n\n"

DELETION = """ pkg/__init__.py | 0
 1 file changed, 0 insertions(+), 0 deletions(-)
 delete mode 100644 pkg/__init__.py

diff --git a/pkg/__init__.py b/pkg/__init__.py
deleted file mode 100644
index e69de29..0000000
"""
MODE = """ pkg/run.py | 0
 1 file changed, 0 insertions(+), 0 deletions(-)
 mode change 100644 => 100755 pkg/run.py

diff --git a/pkg/run.py b/pkg/run.py
old mode 100644
new mode 100755
"""


@pytest.mark.parametrize(
    ("subject", "body"), [("drop the marker", DELETION), ("make run executable", MODE)]
)
def test_the_signature_after_a_hunkless_diff_is_kept(
    cli, tmp_path: Path, subject: str, body: str
) -> None:
    text = HEAD.format(subject=subject) + body + SIGNATURE
    patch = parse_patch(text.encode(), name="p.patch", path=Path("p.patch"))
    assert (patch.trailer, render_patch(patch)) == (SIGNATURE.encode(), text.encode())
    run, down = port_one_patch(cli, tmp_path, "pkg", (OLD, NEW), "p.patch", text)
    assert run.code == 0, run.err
    assert (down / "patches-2.0" / "p.patch").read_text() == text
