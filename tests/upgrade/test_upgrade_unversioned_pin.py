"""``upgrade --to DIR`` where DIR does not say its version (an upstream checkout: no
``PKG-INFO``, its ``pyproject.toml`` computing the version at build time) is refused before
anything is written: the port step writes that version as the pin, and an upgrade in
progress keeps its ``--to``, so finding it out there left an upgrade no ``--continue`` could
finish."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import write_files

PATCH = """Description: drop the network test
Author: A Maintainer <maintainer@example.org>
Forwarded: not-needed

--- a/tests/test_net.py
+++ b/tests/test_net.py
@@ -1,3 +1,2 @@
 import socket
-TIMEOUT = 5
 # tests
"""
CONFIG = """upstream = "chunky"
pin = "1.0"
series = "debian/patches/series"
strip = 1
"""
PYPROJECT = """[build-system]
requires = ["hatchling", "hatch-vcs"]
build-backend = "hatchling.build"

[project]
name = "chunky"
dynamic = ["version"]

[tool.hatch.version]
source = "vcs"
"""


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def test_a_new_pin_that_does_not_say_its_version_is_refused_first(cli, tmp_path: Path) -> None:
    down = tmp_path / "down"
    write_files(
        down,
        {
            "debian/patches/series": "no-net.patch\n",
            "debian/patches/no-net.patch": PATCH,
            "patchkeeper.toml": CONFIG,
        },
    )
    test = "import socket\nTIMEOUT = 5\n# tests\n"
    info = "Metadata-Version: 2.1\nName: chunky\nVersion: 1.0\n\n"
    write_files(tmp_path / "chunky-1.0", {"PKG-INFO": info, "tests/test_net.py": test})
    write_files(tmp_path / "checkout", {"pyproject.toml": PYPROJECT, "tests/test_net.py": test})
    before = _files(down)
    run = cli("upgrade", "--to", "../checkout", "--from", "../chunky-1.0", "--json", cwd=down)
    error = json.loads(run.out)["error"]
    assert (run.code, error["message"], error["file"], error["hint"]) == (
        2,
        "cannot tell the version of the new pin: the directory has no PKG-INFO and its "
        "pyproject.toml no static [project] version",
        str(tmp_path / "checkout"),
        "pass --to NAME==VERSION (the release, fetched), or --to the unpacked sdist of that "
        "release (it has PKG-INFO)",
    )
    assert _files(down) == before
