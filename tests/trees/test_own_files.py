"""A target that holds the downstream is verified without its own files counting as drift.

A Debian source package is the upstream tree with ``debian/`` in it (``apt-get source``,
``dpkg-source -x``): its packaging (``debian/control``, ``debian/rules``, ...) is no upstream
file, yet ``verify --target .`` listed each one as "changed outside the series". So did the
files ``decide`` and ``report`` write (``patchkeeper-decisions.toml``, ``AUDIT.md``) and a
stopped port's work directory, in a git branch on an upstream tag as much as in a Debian
package. An upstream file changed by hand is drift still.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers import write_files

#: The upstream release as its sdist unpacks (the pristine tree).
UPSTREAM = {
    "PKG-INFO": "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n",
    "setup.py": "from setuptools import setup\nsetup(name='demo')\n",
    "demo/__init__.py": "",
    "demo/core.py": "A = 1\nB = 2\nC = 3\nD = 4\n",
}

#: A Debian source package's packaging, in the shape ``apt-get source`` unpacks it.
PACKAGING = {
    "debian/changelog": (
        "demo (1.0-2) unstable; urgency=medium\n\n  * B is 20.\n\n"
        " -- A Maintainer <a@example.org>  Mon, 01 Jan 2024 00:00:00 +0000\n"
    ),
    "debian/control": "Source: demo\n\nPackage: python3-demo\nArchitecture: all\n",
    "debian/rules": "#!/usr/bin/make -f\n%:\n\tdh $@ --buildsystem=pybuild\n",
    "debian/source/format": "3.0 (quilt)\n",
    "debian/tests/control": "Test-Command: true\n",
    "debian/patches/series": "b-is-20.patch\n",
    "debian/patches/b-is-20.patch": (
        "Description: B is 20\nForwarded: not-needed\n---\n"
        "--- a/demo/core.py\n+++ b/demo/core.py\n"
        "@@ -1,4 +1,4 @@\n A = 1\n-B = 2\n+B = 20\n C = 3\n D = 4\n"
    ),
    "patchkeeper.toml": (
        'upstream = "demo"\npin = "1.0"\nseries = "debian/patches/series"\n\n'
        '[headers]\nschema = "dep3"\n'
    ),
}


def source_package(tmp_path: Path) -> tuple[Path, Path]:
    """``(pristine, package)``: the upstream tree, and a copy of it with the packaging in."""
    pristine = tmp_path / "demo-1.0"
    write_files(pristine, UPSTREAM)
    package = tmp_path / "demo-1.0-2"
    shutil.copytree(pristine, package)
    write_files(package, PACKAGING)
    return pristine, package


def test_a_debian_source_package_verifies_without_its_packaging(cli, tmp_path: Path) -> None:
    pristine, package = source_package(tmp_path)
    assert cli("apply", "--target", ".", cwd=package).code == 0
    run = cli("verify", "--target", ".", "--pristine", str(pristine), cwd=package)
    assert (run.code, run.out.splitlines()[1:]) == (
        0,
        ["  applied  b-is-20.patch", "ok: 1 of 1 patches applied, 0 files drifted"],
    )
    run = cli("status", "--target", ".", "--pristine", str(pristine), "--json", cwd=package)
    assert (run.code, json.loads(run.out)["untouched"]) == (0, [])


def test_the_record_and_a_stopped_port_are_the_downstreams_own(cli, tmp_path: Path) -> None:
    pristine, package = source_package(tmp_path)
    assert cli("apply", "--target", ".", cwd=package).code == 0
    write_files(
        package,
        {
            "patchkeeper-decisions.toml": "# patchkeeper decisions\n",
            "AUDIT.md": "# Audit\n",
            "AUDIT.html": "<html></html>\n",
            ".patchkeeper-port/conflict/INSTRUCTIONS.md": "# Port stopped\n",
            ".patchkeeper-upgrade/state.json": "{}\n",
        },
    )
    run = cli("verify", "--target", ".", "--pristine", str(pristine), cwd=package)
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 1 of 1 patches applied, 0 files drifted",
    )


def test_an_upstream_file_changed_by_hand_is_drift_still(cli, tmp_path: Path) -> None:
    pristine, package = source_package(tmp_path)
    assert cli("apply", "--target", ".", cwd=package).code == 0
    (package / "setup.py").write_text("from setuptools import setup\nsetup(name='demo2')\n")
    (package / "debian.txt").write_text("not the packaging\n")
    run = cli("verify", "--target", ".", "--pristine", str(pristine), cwd=package)
    assert run.code == 1
    assert [line.split(" (")[0] for line in run.out.splitlines()[2:]] == [
        "  changed outside the series: debian.txt exists",
        "  changed outside the series: setup.py differs from pristine",
        "not ok: 1 of 1 patches applied, 2 files drifted",
    ]


def test_a_quilt_series_keeps_its_other_directories_compared(cli, tmp_path: Path) -> None:
    """Only a series at ``debian/patches/series`` makes ``debian/`` the packaging: a quilt
    series elsewhere leaves a ``debian/`` directory the upstream tree lacks as drift."""
    pristine, package = source_package(tmp_path)
    (package / "patches").mkdir()
    shutil.move(package / "debian" / "patches" / "series", package / "patches" / "series")
    shutil.move(
        package / "debian" / "patches" / "b-is-20.patch", package / "patches" / "b-is-20.patch"
    )
    (package / "debian" / "patches").rmdir()
    (package / "patchkeeper.toml").write_text(
        'upstream = "demo"\npin = "1.0"\nseries = "patches/series"\n\n[headers]\nschema = "dep3"\n'
    )
    assert cli("apply", "--target", ".", cwd=package).code == 0
    run = cli("verify", "--target", ".", "--pristine", str(pristine), cwd=package)
    assert run.code == 1
    assert [line.split(" (")[0] for line in run.out.splitlines()[2:-1]] == [
        f"  changed outside the series: {name} exists"
        for name in (
            "debian/changelog",
            "debian/control",
            "debian/rules",
            "debian/source/format",
            "debian/tests/control",
        )
    ]
