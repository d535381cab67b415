"""An installed distribution whose version is not the configured pin is named on standard
error by ``apply``, ``verify`` and ``status``, and ``status --json`` carries it (user report:
``pin = "3.4"`` with idna 3.7 installed said nothing). The exit codes stay those of the series.

The distribution is a real wheel of the example's minihttp 1.0 (written here as a wheel is:
a zip with ``.dist-info/METADATA``, ``WHEEL`` and ``RECORD``), installed by pip into a
``--target`` directory that patchkeeper reads as site-packages.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from helpers import EXAMPLES, Example, tree_bytes


def _wheel(source: Path, out: Path) -> Path:
    """A pure wheel of ``source`` (the directory holding ``minihttp/``), version 1.0."""
    wheel = out / "minihttp-1.0-py3-none-any.whl"
    info = "minihttp-1.0.dist-info"
    files = {
        p.relative_to(source).as_posix(): p.read_bytes()
        for p in sorted((source / "minihttp").rglob("*.py"))
    }
    files[f"{info}/METADATA"] = b"Metadata-Version: 2.1\nName: minihttp\nVersion: 1.0\n"
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    rows = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append(f"{name},sha256={digest},{len(data)}")
    files[f"{info}/RECORD"] = ("\n".join([*rows, f"{info}/RECORD,,"]) + "\n").encode()
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """minihttp 1.0 (the bundled example's, which every test's copy holds) installed by pip
    into a ``--target`` directory, once for the module: the tests copy it, never change it."""
    work = tmp_path_factory.mktemp("pin-mismatch")
    wheel = _wheel(EXAMPLES / "upstream" / "minihttp-1.0", work)
    site = work / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
         "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return site


@pytest.fixture
def site(installed: Path, example: Example, tmp_path: Path) -> Path:
    """A copy of :func:`installed` at ``tmp_path/site``; the downstream's pin is 0.9."""
    site = tmp_path / "site"
    shutil.copytree(installed, site, symlinks=True)
    config = example.downstream / "patchkeeper.toml"
    config.write_text(config.read_text().replace('pin = "1.0"', 'pin = "0.9"'))
    return site


def _warning(example: Example) -> str:
    return (
        'minihttp 1.0 is installed, but the series is cut against minihttp 0.9 (pin = "0.9" '
        f"in {example.downstream / 'patchkeeper.toml'})"
    )


def test_status_and_verify_name_both_versions(cli, example: Example, site: Path) -> None:
    before = tree_bytes(site)
    run = cli("status", "--target", str(site), "--json", cwd=example.downstream)
    data = json.loads(run.out)
    assert (run.code, data["exit_code"]) == (1, 1)
    assert data["pin_mismatch"] == _warning(example)
    assert run.err == f"patchkeeper: warning: {_warning(example)}\n"
    run = cli("verify", "--target", str(site), cwd=example.downstream)
    assert run.code == 1
    assert run.err == f"patchkeeper: warning: {_warning(example)}\n"
    assert tree_bytes(site) == before


def test_apply_warns_and_still_applies(cli, example: Example, site: Path) -> None:
    run = cli("apply", "--target", str(site), cwd=example.downstream)
    assert (run.code, run.err) == (0, f"patchkeeper: warning: {_warning(example)}\n")
    assert run.out == f"applied 7 patches on minihttp 1.0 installed in {site}: 4 files changed\n"


def test_the_pin_written_otherwise_is_the_same_version(cli, example: Example, site: Path) -> None:
    """Versions are compared as PEP 440 versions: ``1.0.0`` is ``1.0``."""
    config = example.downstream / "patchkeeper.toml"
    config.write_text(config.read_text().replace('pin = "0.9"', 'pin = "1.0.0"'))
    run = cli("status", "--target", str(site), "--json", cwd=example.downstream)
    assert (run.code, run.err, json.loads(run.out)["pin_mismatch"]) == (1, "", "")
