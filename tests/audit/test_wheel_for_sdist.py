"""``audit --to`` a wheel for a series cut against the sdist (a Debian series, whose paths
start at the sdist's root): a wheel holds only the files it installs, so a patch to
``setup.cfg`` or ``tests/`` read as gone upstream, with nothing to say the wheel was why.
The audit now warns, naming those files and the way to judge them (the sdist); the
verdicts are the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import pure_wheel, write_files

CORE_OLD = "def answer():\n    return 41\n"
SETUP_CFG = "[metadata]\nname = tinypkg\n\n[options]\npackages = tinypkg\n"

CORE_PATCH = """Description: answer right
--- a/tinypkg/core.py
+++ b/tinypkg/core.py
@@ -1,2 +1,2 @@
 def answer():
-    return 41
+    return 42
"""
SETUP_PATCH = """Description: ship the data
--- a/setup.cfg
+++ b/setup.cfg
@@ -3,3 +3,4 @@
 
 [options]
 packages = tinypkg
+include_package_data = true
"""

pytestmark = pytest.mark.usefixtures("private_cache")


def _sdist(root: Path, version: str) -> Path:
    """The unpacked sdist of tinypkg ``version`` under ``root``."""
    return write_files(
        root / f"tinypkg-{version}",
        {
            "PKG-INFO": f"Metadata-Version: 2.1\nName: tinypkg\nVersion: {version}\n",
            "setup.cfg": SETUP_CFG,
            "tinypkg/__init__.py": "",
            "tinypkg/core.py": CORE_OLD,
        },
    )


def _downstream_and_wheel(tmp_path: Path, core_patch: str = CORE_PATCH) -> tuple[Path, Path]:
    """A Debian-style downstream cut against the sdist of tinypkg 1.0 (in ``tmp_path``),
    its patches ``core_patch`` and :data:`SETUP_PATCH`, and the wheel of tinypkg 1.1 (which
    holds no setup.cfg)."""
    down = write_files(
        tmp_path / "down",
        {
            "patchkeeper.toml": 'upstream = "tinypkg"\npin = "1.0"\n'
            'series = "debian/patches/series"\npristine = "../tinypkg-1.0"\n',
            "debian/patches/series": "answer.patch\nsetup-data.patch\n",
            "debian/patches/answer.patch": core_patch,
            "debian/patches/setup-data.patch": SETUP_PATCH,
        },
    )
    wheel = pure_wheel(
        tmp_path,
        "tinypkg",
        {"tinypkg/__init__.py": b"", "tinypkg/core.py": CORE_OLD.encode()},
        version="1.1",
    )
    return down, wheel


@pytest.fixture
def downstream(tmp_path: Path) -> tuple[Path, Path]:
    """:func:`_downstream_and_wheel` beside the unpacked sdist of tinypkg 1.0."""
    _sdist(tmp_path, "1.0")
    return _downstream_and_wheel(tmp_path)


def test_a_wheel_for_a_series_cut_against_the_sdist_is_warned_of(
    cli, downstream: tuple[Path, Path], tmp_path: Path
) -> None:
    down, wheel = downstream
    run = cli("audit", "--to", str(wheel), "--json", cwd=down)
    warning = (
        "the new upstream is a wheel and the old pin's tree is not: 1 file the series changes "
        "(setup.cfg) is not among the files a wheel installs, so it reads as gone upstream; "
        "pass --to the release's sdist (NAME==VERSION fetches it) to judge it"
    )
    assert (run.code, run.err) == (1, f"patchkeeper: warning: {warning}\n")
    envelope = json.loads(run.out)
    assert envelope["warnings"] == [warning]
    assert [(v["name"], v["verdict"]) for v in envelope["verdicts"]] == [
        ("answer.patch", "clean"),
        ("setup-data.patch", "target gone"),
    ]
    # the unpacked sdist of the same release: no warning
    sdist = _sdist(tmp_path, "1.1")
    run = cli("audit", "--to", str(sdist), cwd=down)
    assert (run.code, run.err) == (0, "")


def test_a_port_to_such_a_wheel_is_warned_of_too(cli, downstream: tuple[Path, Path]) -> None:
    down, wheel = downstream
    run = cli("port", "--to", str(wheel), cwd=down)
    assert run.err.startswith(
        "patchkeeper: warning: the new upstream is a wheel and the old pin's tree is not: 1 "
        "file the series changes (setup.cfg) is not among the files a wheel installs"
    )


def test_a_src_layout_file_the_wheel_has_is_not_named(cli, tmp_path: Path) -> None:
    """A series of a ``src/`` layout sdist: ``src/tinypkg/core.py`` is in the wheel as
    ``tinypkg/core.py``; the warning named it among the files a wheel does not install."""
    write_files(
        tmp_path / "tinypkg-1.0",
        {
            "PKG-INFO": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
            "setup.cfg": SETUP_CFG,
            "src/tinypkg/__init__.py": "",
            "src/tinypkg/core.py": CORE_OLD,
        },
    )
    down, wheel = _downstream_and_wheel(tmp_path, CORE_PATCH.replace("/tinypkg/", "/src/tinypkg/"))
    run = cli("audit", "--to", str(wheel), "--json", cwd=down)
    warning = (
        "the new upstream is a wheel and the old pin's tree is not: 1 file the series changes "
        "(setup.cfg) is not among the files a wheel installs, and 1 file "
        "(src/tinypkg/core.py) is in it without the leading src/, so they read as gone "
        "upstream or moved; pass --to the release's sdist (NAME==VERSION fetches it) to judge "
        "them"
    )
    assert (run.code, run.err) == (1, f"patchkeeper: warning: {warning}\n")
    verdicts = json.loads(run.out)["verdicts"]
    assert [(v["name"], v["verdict"]) for v in verdicts] == [
        ("answer.patch", "target gone"),
        ("setup-data.patch", "target gone"),
    ]


def test_a_wheel_as_the_old_pins_tree_is_warned_of(cli, tmp_path: Path) -> None:
    """The other way round: the pin's wheel given as the pristine tree (what ``pip download``
    left) and the new release's sdist: the series' ``setup.cfg`` is not in the wheel, so
    the audit said "not in the old pin's tree ... the series does not apply at its pin
    itself", with nothing to say the wheel was why. The audit and the port now warn, naming
    the file and the option that takes the pin's sdist; the verdicts are the same."""
    pin_wheel = pure_wheel(
        tmp_path,
        "tinypkg",
        {"tinypkg/__init__.py": b"", "tinypkg/core.py": CORE_OLD.encode()},
        version="1.0",
    )
    down, _ = _downstream_and_wheel(tmp_path)
    new = _sdist(tmp_path, "1.1")
    run = cli("audit", "--to", str(new), "--pristine", str(pin_wheel), "--json", cwd=down)
    warning = (
        "the old pin's tree is a wheel and the new upstream is not: 1 file the series changes "
        "(setup.cfg) is not among the files a wheel installs, so it reads as missing at the "
        "pin; pass {} the pin's sdist (NAME==VERSION fetches it) to judge it"
    )
    assert (run.code, run.err) == (0, f"patchkeeper: warning: {warning.format('--pristine')}\n")
    envelope = json.loads(run.out)
    assert envelope["warnings"] == [warning.format("--pristine")]
    assert [(v["name"], v["verdict"]) for v in envelope["verdicts"]] == [
        ("answer.patch", "clean"),
        ("setup-data.patch", "clean"),
    ]
    run = cli("port", "--to", str(new), "--from", str(pin_wheel), cwd=down)
    assert run.err.startswith(f"patchkeeper: warning: {warning.format('--from')}\n")
