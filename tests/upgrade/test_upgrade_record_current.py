"""An upgrade of a downstream that is not a git checkout writes the record while its state
directory (``.patchkeeper-upgrade/``) is in the downstream and deletes it when done: the
record's measure of the downstream leaves that directory out, so ``report --check`` right
after the upgrade finds the record current (only the suggestions wait for a person)."""

from __future__ import annotations

import json
from pathlib import Path

# a Debian source package's debian/ directory, its series cut against an sdist's root
SERIES = "fix-version.patch\n"
PATCH = """Description: read the version from the package
Author: A Maintainer <maintainer@example.org>
Forwarded: not-needed
Last-Update: 2026-01-02

--- a/setup.py
+++ b/setup.py
@@ -1,4 +1,4 @@
 from setuptools import setup
 
-setup(name="chunky", version=VERSION)
+setup(name="chunky", version="1.0")
 # end
"""
SETUP = 'from setuptools import setup\n\nsetup(name="chunky", version=VERSION)\n# end\n'
CONFIG = """upstream = "chunky"
pin = "1.0"
series = "debian/patches/series"
strip = 1

[headers]
schema = "dep3"
"""


def _tree(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def test_report_check_after_an_upgrade_outside_git_finds_no_change(cli, tmp_path: Path) -> None:
    down = tmp_path / "down"
    _tree(
        down,
        {
            "debian/patches/series": SERIES,
            "debian/patches/fix-version.patch": PATCH,
            "patchkeeper.toml": CONFIG,
        },
    )
    for version, init in (("1.0", ""), ("1.1", "# 1.1\n")):
        info = f"Metadata-Version: 2.1\nName: chunky\nVersion: {version}\n\n"
        _tree(
            tmp_path / f"chunky-{version}",
            {"PKG-INFO": info, "setup.py": SETUP, "chunky/__init__.py": init},
        )
    run = cli("upgrade", "--to", "../chunky-1.1", "--from", "../chunky-1.0", cwd=down)
    assert run.code == 0, run.err
    assert not (down / ".patchkeeper-upgrade").exists()
    run = cli("report", "--check", "--json", cwd=down)
    findings = json.loads(run.out)["findings"]
    assert (run.code, [f["code"] for f in findings]) == (
        1,
        ["not-reviewed", "kept-without-condition"],
    )
