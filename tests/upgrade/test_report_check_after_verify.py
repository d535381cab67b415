"""``report --check`` after ``upgrade --to DIR`` and the upgrade's own "verify the result"
steps: ``verify --target COPY`` fetches the new pin into the fetch cache, which the record
wrote down as not in the cache."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from upgrade_support import CHUNKY_SETUP, chunky_downstream, make_checkout

from helpers import LocalIndex, make_tar, write_files

SRC = Path(__file__).resolve().parents[2] / "src"


def _release(version: str, init: str = "") -> dict[str, str]:
    return {
        "PKG-INFO": f"Metadata-Version: 2.1\nName: chunky\nVersion: {version}\n\n",
        "setup.py": CHUNKY_SETUP,
        "chunky/__init__.py": f"# {version}\n{init}",
    }


def _publish(index: LocalIndex, version: str, init: str = "") -> str:
    """``chunky-VERSION.tar.gz`` on the index, alone on its page; its sha256."""
    page = index.root / "simple" / "chunky" / "index.html"
    if page.exists():
        page.unlink()
    members = _release(version, init).items()
    data = make_tar([(f"chunky-{version}/{path}", text.encode()) for path, text in members])
    return index.publish("chunky", f"chunky-{version}.tar.gz", data)


def _check(cli, down: Path) -> tuple[int, list[tuple[str, str]]]:
    run = cli("report", "--check", "--json", cwd=down)
    findings = json.loads(run.out)["findings"]
    return run.code, [(f["code"], f["message"]) for f in findings]


def _verify_steps(cli, tmp_path: Path, down: Path) -> int:
    """The upgrade's printed steps: the series applied to a copy of the new pin, verified
    against the pin fetched into the cache; verify's exit code."""
    shutil.rmtree(tmp_path / "COPY", ignore_errors=True)
    shutil.copytree(tmp_path / "chunky-1.1", tmp_path / "COPY")
    run = cli("apply", "--target", "../COPY", cwd=down)
    assert run.code == 0, run.err
    return cli("verify", "--target", "../COPY", cwd=down).code


def test_verify_fetching_the_pin_leaves_the_record_current(
    cli, tmp_path: Path, local_index: LocalIndex
) -> None:
    down = tmp_path / "down"
    write_files(down, chunky_downstream())
    make_checkout(down)
    for version in ("1.0", "1.1"):
        write_files(tmp_path / f"chunky-{version}", _release(version))
    first = _publish(local_index, "1.1")
    run = cli("upgrade", "--to", "../chunky-1.1", "--from", "../chunky-1.0", cwd=down)
    assert run.code == 0, run.err
    assert "patchkeeper verify --target $COPY" in run.out
    environment = down / ".patchkeeper" / "evidence" / "environment.json"
    pin = json.loads(environment.read_text())["environment"]["sources"][1]
    assert (pin["role"], pin["kind"], pin["version"]) == ("pin", "not in the cache", "1.1")
    waiting = [
        (
            "not-reviewed",
            "patchkeeper-decisions.toml:12: `fix-version.patch`: decide suggested "
            '"carry" and nobody has reviewed it',
        ),
        (
            "kept-without-condition",
            "patchkeeper-decisions.toml:12: `fix-version.patch` is suggested carry without "
            "a removal condition",
        ),
    ]

    assert _verify_steps(cli, tmp_path, down) == 0  # fetches chunky==1.1 into the cache

    assert _check(cli, down) == (1, waiting)
    # the record is written again with the pin as cached: its sha256 is the evidence now
    assert cli("report", cwd=down).code == 1  # the two findings above, record written
    pin = json.loads(environment.read_text())["environment"]["sources"][1]
    assert (pin["kind"], pin["identity"]) == ("sdist", f"sha256 {first}")
    assert _check(cli, down) == (1, waiting)

    # another file under the same name and version is a change, reported
    shutil.rmtree(tmp_path / "cache")
    second = _publish(local_index, "1.1", init="EXTRA = 1\n")
    assert _verify_steps(cli, tmp_path, down) == 1  # COPY drifted from the new file
    changed = (
        "environment-changed",
        f'environment changed: sources.1.identity: "sha256 {first}" -> "sha256 {second}"',
    )
    assert _check(cli, down) == (1, [*waiting, changed])


def test_the_printed_verify_commands_run_as_written_in_the_downstream(
    cli, tmp_path: Path, local_index: LocalIndex
) -> None:
    """The upgrade's "verify the result" commands, pasted into a shell in the downstream as
    printed, pass and leave the record current: the copy of the new pin goes to a new
    temporary directory. A copy made there as ``COPY`` was a change to the downstream's
    checkout, and the last command, ``report --check``, then failed on it ("environment
    changed: ... 1 changed: COPY/")."""
    down = tmp_path / "down"
    write_files(down, chunky_downstream())
    make_checkout(down)
    for version in ("1.0", "1.1"):
        write_files(tmp_path / f"chunky-{version}", _release(version))
    _publish(local_index, "1.1")
    run = cli("upgrade", "--to", "../chunky-1.1", "--from", "../chunky-1.0", "--json", cwd=down)
    assert run.code == 0, run.err
    commands = json.loads(run.out)["verify"]
    assert commands[0] == (
        f"COPY=$(mktemp -d) && cp -R {tmp_path}/chunky-1.1/. $COPY && patchkeeper apply "
        "--target $COPY && patchkeeper verify --target $COPY"
    )
    (tmp_path / "tmp").mkdir()
    shell = f'patchkeeper() {{ "{sys.executable}" -m patchkeeper "$@"; }}\n'
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp"), "PYTHONPATH": str(SRC)}
    codes = [
        subprocess.run(
            ["sh", "-c", shell + command], cwd=down, env=env, capture_output=True, check=False
        ).returncode
        for command in commands
    ]
    assert commands[1:] == ["patchkeeper lint", "patchkeeper report --check"]
    assert codes == [0, 0, 1]  # report --check: the suggestions nobody has reviewed yet
    assert _check(cli, down)[1] == [
        (
            "not-reviewed",
            "patchkeeper-decisions.toml:12: `fix-version.patch`: decide suggested "
            '"carry" and nobody has reviewed it',
        ),
        (
            "kept-without-condition",
            "patchkeeper-decisions.toml:12: `fix-version.patch` is suggested carry without "
            "a removal condition",
        ),
    ]
    # the copy is in the temporary directory, with the series applied; none in the downstream
    copies = list((tmp_path / "tmp").iterdir())
    assert [copy.name.startswith("tmp.") for copy in copies] == [True]
    assert (copies[0] / "setup.py").read_text() != (tmp_path / "chunky-1.1/setup.py").read_text()
    assert not (down / "COPY").exists()
