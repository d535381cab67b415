"""``RECORD`` rows that leave site-packages (a console script: ``../../../bin/NAME``) are
compared by hash, never walked as a directory of the distribution.

New user's report: with ``directory = ""`` (a series whose paths start at site-packages, as
Debian's series of ``markdown`` do), ``verify`` on ``Markdown 3.4.1`` installed by pip walked
``site-packages/..`` because its ``RECORD`` names ``../../../bin/markdown_py``: 794 files
"changed outside the series" (every file of every distribution, spelled
``../site-packages/...``), exit 1 on a correct install.

The distribution is a wheel written here as a wheel is (a zip with ``.dist-info/METADATA``,
``WHEEL``, ``entry_points.txt`` with a console script, ``RECORD``), installed by pip with
``--prefix`` (the layout of a virtual environment: ``lib/pythonX.Y/site-packages`` and
``bin/``), beside a second distribution.
"""

from __future__ import annotations

import difflib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import pure_wheel, tree_bytes

MODULE = b'"""A tool."""\n\n\ndef main():\n    return "one"\n\n\nLIMIT = 3\n'


def _wheel(out: Path, name: str, files: dict[str, bytes], scripts: str = "") -> Path:
    """A pure wheel of ``files`` (paths relative to site-packages), version 1.0, with the
    console script ``scripts`` (``NAME = MODULE:FUNCTION``) when given."""
    if scripts:
        entry_points = f"[console_scripts]\n{scripts}\n".encode()
        files = {**files, f"{name}-1.0.dist-info/entry_points.txt": entry_points}
    return pure_wheel(out, name, files)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``tooly`` 1.0 (with the console script ``tooly``) and ``other`` 1.0 installed by pip
    under a prefix, once; returns the prefix."""
    tmp_path = tmp_path_factory.mktemp("wheels")
    wheels = [
        _wheel(tmp_path, "tooly", {"tooly/__init__.py": MODULE}, "tooly = tooly:main"),
        _wheel(tmp_path, "other", {"other/__init__.py": b"X = 1\n"}),
    ]
    prefix = tmp_path / "env"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
         "--no-warn-script-location", "--prefix", str(prefix), *map(str, wheels)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return prefix


@pytest.fixture
def site(installed: Path, tmp_path: Path) -> Path:
    """A copy of the installed prefix (``RECORD``'s paths are relative); its site-packages."""
    prefix = shutil.copytree(installed, tmp_path / "env", symlinks=True)
    (site,) = prefix.glob("lib/python*/site-packages")
    record = (site / "tooly-1.0.dist-info" / "RECORD").read_text()
    assert "../../../bin/tooly,sha256=" in record  # the row this test is about
    return site


@pytest.fixture
def downstream(tmp_path: Path) -> Path:
    """A series of one patch whose paths start at site-packages (``directory = ""``)."""
    root = tmp_path / "downstream"
    (root / "patches").mkdir(parents=True)
    (root / "patchkeeper.toml").write_text('upstream = "tooly"\npin = "1.0"\n')
    old = MODULE.decode().splitlines(keepends=True)
    new = [line.replace("LIMIT = 3", "LIMIT = 4") for line in old]
    diff = "".join(difflib.unified_diff(old, new, "a/tooly/__init__.py", "b/tooly/__init__.py"))
    (root / "patches" / "limit.patch").write_text(diff)
    (root / "patches" / "series").write_text("limit.patch\n")
    return root


def test_verify_and_status_compare_the_script_and_walk_only_the_package(
    cli, site: Path, downstream: Path
) -> None:
    run = cli("apply", "--target", str(site), cwd=downstream)
    assert run.code == 0, run.out + run.err
    before = tree_bytes(site.parent.parent.parent)
    for command in ("verify", "status"):
        run = cli(command, "--target", str(site), cwd=downstream)
        assert (run.code, run.err) == (0, ""), run.out
        assert run.out.splitlines()[1:] == [
            "  applied  limit.patch",
            "ok: 1 of 1 patches applied, 0 files drifted",
        ]
    assert tree_bytes(site.parent.parent.parent) == before


def test_a_changed_script_and_a_file_added_to_the_package_are_still_drift(
    cli, site: Path, downstream: Path
) -> None:
    assert cli("apply", "--target", str(site), cwd=downstream).code == 0
    script = site.parent.parent.parent / "bin" / "tooly"
    script.write_bytes(script.read_bytes() + b"# edited\n")
    (site / "tooly" / "extra.py").write_bytes(b"")
    run = cli("verify", "--target", str(site), cwd=downstream)
    assert run.code == 1
    drift = [line for line in run.out.splitlines() if "changed outside the series" in line]
    assert [line.split(": ", 1)[1].split(" ", 1)[0] for line in drift] == [
        "../../../bin/tooly",
        "tooly/extra.py",
    ]
