"""An installed distribution whose version is not the configured pin is named, with what to
do, as a warning: on standard error before the output, and under ``--json`` in the envelope's
``warnings`` too (``verify`` and ``status`` also keep it as ``pin_mismatch``), never in the
result's text on standard output (user report: ``pin = "3.4"`` with idna 3.7 installed said
nothing). The exit codes stay those of the series. ``unapply`` on such a
release (sqlparse 0.4.4 installed over a series pinned to 0.4.2, where a patch upstream took
reads as a conflict) says so instead of how to undo hunks by hand.

The distribution is a real wheel of the example's minihttp 1.0 (written here as a wheel is:
a zip with ``.dist-info/METADATA``, ``WHEEL`` and ``RECORD``), installed by pip into a
``--target`` directory that patchkeeper reads as site-packages.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import EXAMPLES, Example, pure_wheel, tree_bytes


def _wheel(source: Path, out: Path, version: str = "1.0") -> Path:
    """A pure wheel of ``source`` (the directory holding ``minihttp/``), ``version``."""
    files = {
        p.relative_to(source).as_posix(): p.read_bytes()
        for p in sorted((source / "minihttp").rglob("*.py"))
    }
    return pure_wheel(out, "minihttp", files, version)


def _install(wheel: Path, site: Path) -> None:
    """Install ``wheel`` with pip into the directory ``site`` (``--target``), no index."""
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
         "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
    )  # fmt: skip


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """minihttp 1.0 (the bundled example's, which every test's copy holds) installed by pip
    into a ``--target`` directory, once for the module: the tests copy it, never change it."""
    work = tmp_path_factory.mktemp("pin-mismatch")
    wheel = _wheel(EXAMPLES / "upstream" / "minihttp-1.0", work)
    site = work / "site"
    _install(wheel, site)
    return site


@pytest.fixture
def site(installed: Path, example: Example, tmp_path: Path) -> Path:
    """A copy of :func:`installed` at ``tmp_path/site``; the downstream's pin is 0.9."""
    site = tmp_path / "site"
    shutil.copytree(installed, site, symlinks=True)
    config = example.downstream / "patchkeeper.toml"
    config.write_text(config.read_text().replace('pin = "1.0"', 'pin = "0.9"'))
    return site


def _warning(example: Example, installed: str = "1.0", pin: str = "0.9") -> str:
    return (
        f"minihttp {installed} is installed, but the series is cut against minihttp {pin} "
        f'(pin = "{pin}" in {example.downstream / "patchkeeper.toml"}): its patches are read '
        f"on another release; to do: install minihttp=={pin} and apply the series to it, or "
        "audit the series against the installed release ('patchkeeper audit --to "
        f"minihttp=={installed}') and move the pin"
    )


def test_status_and_verify_name_both_versions(cli, example: Example, site: Path) -> None:
    before = tree_bytes(site)
    run = cli("status", "--target", str(site), "--json", cwd=example.downstream)
    data = json.loads(run.out)
    assert (run.code, data["exit_code"]) == (1, 1)
    assert (data["warnings"], data["pin_mismatch"]) == ([_warning(example)], _warning(example))
    assert run.err == f"patchkeeper: warning: {_warning(example)}\n"
    run = cli("verify", "--target", str(site), cwd=example.downstream)
    assert (run.code, run.err) == (1, f"patchkeeper: warning: {_warning(example)}\n")
    assert run.out.splitlines()[0] == (
        f"verify: minihttp 1.0 installed in {site} against RECORD of minihttp 1.0"
    )
    assert tree_bytes(site) == before


def test_unapply_on_a_newer_release_says_it_is_not_the_pin(
    cli, example: Example, tmp_path: Path
) -> None:
    """minihttp 1.1 (which took retry-backoff-cap.patch) installed, the series pinned to 1.0:
    a patch upstream took reads as applied in part, and unapply refuses by the pin, never by
    undoing hunks by hand."""
    wheel = _wheel(EXAMPLES / "upstream" / "minihttp-1.1", tmp_path, "1.1")
    site = tmp_path / "site"
    _install(wheel, site)
    before = tree_bytes(site)
    run = cli("unapply", "--target", str(site), cwd=example.downstream)
    assert (run.code, run.err) == (
        1,
        f"patchkeeper: warning: {_warning(example, '1.1', '1.0')}\n",
    )
    assert "by hand" not in run.out
    assert run.out.splitlines()[-1] == (
        "nothing was changed: the target's release is not the pin (see the warning), so the "
        "series was never applied to it as cut; follow the warning's to do, not the states above"
    )
    assert tree_bytes(site) == before


def test_apply_warns_and_still_applies(cli, example: Example, site: Path) -> None:
    run = cli("apply", "--target", str(site), cwd=example.downstream)
    assert (run.code, run.err) == (0, f"patchkeeper: warning: {_warning(example)}\n")
    assert run.out == f"applied 7 patches on minihttp 1.0 installed in {site}: 4 files changed\n"
    run = cli("unapply", "--target", str(site), "--json", cwd=example.downstream)
    data = json.loads(run.out)
    assert (run.code, data["exit_code"], data["warnings"]) == (0, 0, [_warning(example)])


def test_the_pin_written_otherwise_is_the_same_version(cli, example: Example, site: Path) -> None:
    """Versions are compared as PEP 440 versions: ``1.0.0`` is ``1.0``."""
    config = example.downstream / "patchkeeper.toml"
    config.write_text(config.read_text().replace('pin = "0.9"', 'pin = "1.0.0"'))
    run = cli("status", "--target", str(site), "--json", cwd=example.downstream)
    data = json.loads(run.out)
    assert (run.code, run.err, data["pin_mismatch"], "warnings" in data) == (1, "", "", False)


def _unpacked(example: Example, tmp_path: Path, version: str, name: str = "minihttp") -> Path:
    """The example's 1.0 files as an unpacked sdist whose ``PKG-INFO`` says ``name`` and
    ``version``, with ``retry-backoff-cap.patch`` already in it, as when upstream takes a
    patch word for word in the release after the pin."""
    target = tmp_path / f"{name}-{version}"
    shutil.copytree(example.old, target)
    (target / "PKG-INFO").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: A tiny HTTP client\n"
    )
    patch = EXAMPLES / "downstream" / "patches" / "retry-backoff-cap.patch"
    subprocess.run(
        ["patch", "-p1", "-s", "--no-backup-if-mismatch", "-d", str(target / "minihttp"),
         "-i", str(patch)],
        check=True,
    )  # fmt: skip
    return target


def test_a_directory_of_another_release_is_named_by_its_own_metadata(
    cli, example: Example, tmp_path: Path
) -> None:
    """An unpacked sdist of 1.1 given to apply: the patch upstream took reads as applied, the
    series as partly applied; the warning names both releases, and apply does not advise
    unapplying what the series never wrote (status says the same)."""
    target = _unpacked(example, tmp_path, "1.1")
    before = tree_bytes(target)
    warning = (
        f"{target} is minihttp 1.1 (as its own metadata says), but the series is cut against "
        f'1.0 (pin = "1.0" in {example.downstream / "patchkeeper.toml"}): its patches are read '
        "on another release; to do: apply the series to a tree of minihttp==1.0, or audit the "
        f"series against this one ('patchkeeper audit --to {target}') and move the pin"
    )
    refusal = (
        "nothing was changed: the target's release is not the pin (see the warning), so the "
        "series was never applied to it as cut; follow the warning's to do, not the states above"
    )
    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.err) == (1, f"patchkeeper: warning: {warning}\n")
    assert run.out.splitlines()[0] == (
        f"apply: the series is partially applied on directory {target}"
    )
    assert run.out.splitlines()[-1] == refusal
    run = cli("status", "--target", str(target), "--json", cwd=example.downstream)
    assert (run.code, json.loads(run.out)["pin_mismatch"]) == (1, warning)
    assert tree_bytes(target) == before


def test_a_directory_of_another_project_or_of_the_pin_is_not_warned_of(
    cli, example: Example, tmp_path: Path
) -> None:
    other = _unpacked(example, tmp_path, "7.0", name="someone-elses")
    run = cli("status", "--target", str(other), "--json", cwd=example.downstream)
    assert (run.code, run.err, json.loads(run.out)["pin_mismatch"]) == (1, "", "")
    pinned = example.target()
    run = cli("apply", "--target", str(pinned), cwd=example.downstream)
    assert (run.code, run.err) == (0, "")
