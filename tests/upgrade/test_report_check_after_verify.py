"""``report --check`` after ``upgrade --to DIR`` and the upgrade's own "verify the result"
steps: ``verify --target COPY`` fetches the new pin into the fetch cache, which the record
wrote down as not in the cache."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from upgrade_support import CHUNKY_SETUP, chunky_downstream, make_checkout

from helpers import LocalIndex, make_tar, write_files


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
    assert "patchkeeper verify --target COPY" in run.out
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
