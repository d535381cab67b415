"""``patchkeeper init`` on real Debian source packages' ``debian/`` directories: the project
from ``debian/watch`` (or the source name), the pin from ``debian/changelog``, and a ledger
that ``ledger --check`` reads back as current."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from corpus import debian_series

pytestmark = pytest.mark.network


def _unpacked(tmp_path: Path, package: str) -> Path:
    patches, _ = debian_series(package)
    root = tmp_path / package
    shutil.copytree(patches.parent, root / "debian")
    return root


def test_python_urllib3(cli, tmp_path: Path) -> None:
    root = _unpacked(tmp_path, "python-urllib3")
    run = cli("init", cwd=root)
    assert (run.code, run.err) == (0, "")
    changelog = (root / "debian" / "changelog").read_text().splitlines()[0]
    full = changelog.split("(")[1].split(")")[0]
    assert full.startswith("1.26.12-")
    assert run.out.splitlines()[:3] == [
        "found a Debian series (12 patches): debian/patches/series is a Debian source "
        'package\'s patch series, and debian/source/format says "3.0 (quilt)"',
        f"upstream urllib3, pin 1.26.12: urllib3 from debian/watch, 1.26.12 from "
        f"debian/changelog ({full})",
        "header schema dep3: a Debian series: DEP-3 headers",
    ]
    assert cli("ledger", "--check", cwd=root).out == "PATCHES.md: the ledger is current (12 rows)\n"


def test_flask_names_its_project_in_debian_watch(cli, tmp_path: Path) -> None:
    root = _unpacked(tmp_path, "flask")
    run = cli("init", cwd=root)
    assert run.code == 0, run.err
    assert run.out.splitlines()[1] == (
        "upstream Flask, pin 2.2.2: Flask from debian/watch, 2.2.2 from debian/changelog (2.2.2-3)"
    )
    assert cli("ledger", "--check", cwd=root).code == 0
