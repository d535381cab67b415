"""A range wholly below the pin (``audit --to 'evlet>=0.40.0,<0.40.2'`` with the pin at
0.41.3) is audited as asked, but none of its releases is a next pin: moving the pin back is
no upgrade, even where every patch applies."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import write_files

WSGI = """import socket


def handle(sock):
    data = sock.recv(4096)
    return data.split(b"\\r\\n")[0]
"""

# A Debian patch (quilt's Index: form) changing one line of the module.
PATCH = """Description: Read more at once
Author: A Maintainer <maint@example.org>
Forwarded: no
Last-Update: 2025-09-01

Index: python-evlet/evlet/wsgi.py
===================================================================
--- python-evlet.orig/evlet/wsgi.py
+++ python-evlet/evlet/wsgi.py
@@ -2,5 +2,5 @@ import socket
 
 
 def handle(sock):
-    data = sock.recv(4096)
+    data = sock.recv(65536)
     return data.split(b"\\r\\n")[0]
"""


def _downstream(root: Path) -> Path:
    """Releases 0.40.0, 0.40.1 and 0.41.3 of one module, and a Debian downstream on 0.41.3
    whose series has a comment line, as Debian's often do."""
    for version in ("0.40.0", "0.40.1", "0.41.3"):
        pkg_info = f"Metadata-Version: 2.1\nName: evlet\nVersion: {version}\n"
        write_files(
            root / "rel" / f"evlet-{version}", {"PKG-INFO": pkg_info, "evlet/wsgi.py": WSGI}
        )
    return write_files(
        root / "down",
        {
            "patchkeeper.toml": 'upstream = "evlet"\npin = "0.41.3"\n'
            'series = "debian/patches/series"\npristine = "../rel/evlet-0.41.3"\n',
            "debian/patches/series": "#python3.12.patch\nrecv-size.patch\n",
            "debian/patches/recv-size.patch": PATCH,
        },
    )


def test_a_range_below_the_pin_suggests_no_next_pin(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    args = ("audit", "--to", "evlet>=0.40.0,<0.40.2", "--releases", "../rel")
    run = cli(*args, "--json", cwd=down)
    data = json.loads(run.out)
    rows = [(r["version"], [v["verdict"] for v in r["verdicts"]]) for r in data["releases"]]
    assert (run.code, rows, data["next_pin"]) == (
        0,
        [("0.40.0", ["clean"]), ("0.40.1", ["clean"])],
        None,
    )
    run = cli(*args, cwd=down)
    assert run.out.splitlines()[-1] == (
        "next pin: none (every release of the range is older than the pin 0.41.3: audit a"
        " range above it, such as 'evlet>0.41.3')"
    )


def test_a_range_from_the_pin_on_still_suggests_the_pin(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    run = cli("audit", "--to", "evlet>=0.40.0", "--releases", "../rel", "--json", cwd=down)
    data = json.loads(run.out)
    assert ([r["version"] for r in data["releases"]], data["left_out"], data["next_pin"]) == (
        ["0.41.3"],
        2,
        "0.41.3",
    )
