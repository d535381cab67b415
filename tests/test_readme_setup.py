"""The README's set-up block works pasted as one block, in either order, in a fresh clone.

The block is read from README.md as text (its first ``sh`` code block) and run by bash as one
script in a ``git clone`` of this checkout's HEAD, with pip refusing to install outside a
virtual environment (``PIP_REQUIRE_VIRTUALENV``: what a PEP 668 system Python does) and the
inner pytest only collecting (``PYTEST_ADDOPTS``) instead of running the suite again.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO

SUMMARY = "7 patches: 1 clean, 2 offset, 1 upstreamed, 1 conflict, 1 target gone, 1 blocked"
MARK = "setup-block-exit-code"


def setup_commands() -> list[str]:
    """The README's set-up block as its commands, each with the comment line above it."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"^```sh\n(.*?)^```", text, re.M | re.S)
    assert block is not None, "README.md has no ```sh block"
    return [part.strip() + "\n" for part in block.group(1).split("\n\n") if part.strip()]


def clean_environment(tmp_path: Path) -> dict[str, str]:
    """The environment of a fresh shell: this test's virtual environment taken off ``PATH``."""
    env = dict(os.environ)
    env.pop("VIRTUAL_ENV", None)
    if sys.prefix != sys.base_prefix:
        ours = str(Path(sys.prefix) / "bin")
        env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != ours)
    env["PIP_REQUIRE_VIRTUALENV"] = "1"
    env["PYTEST_ADDOPTS"] = "--collect-only -q"
    env["PATCHKEEPER_CACHE"] = str(tmp_path / "cache")
    return env


def fresh_clone(tmp_path: Path) -> Path:
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, check=True, capture_output=True, text=True
    ).stdout.strip()
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", "--detach", head], cwd=clone, check=True)
    return clone


def test_the_readme_states_what_the_first_command_prints() -> None:
    first, second = setup_commands()
    assert first.splitlines()[-1] == (
        "python3 -m venv .venv && . .venv/bin/activate && python -m pip install . && "
        "patchkeeper -C examples/downstream audit --to ../upstream/minihttp-1.1"
    )
    text = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert f"`{SUMMARY}` (exit code 1: three of them need work" in text
    # .ci/run runs exactly the README's test command, once, before it builds the release
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    test_command = second.splitlines()[-1]
    assert ci.count(test_command) == 1
    assert ci.index(test_command) < ci.index('python -m build --outdir "$work/dist" .')


@pytest.mark.network
@pytest.mark.slow
@pytest.mark.parametrize("order", ["as written", "reversed"])
def test_the_setup_block_runs_pasted_in_a_fresh_clone(tmp_path: Path, order: str) -> None:
    commands = setup_commands()
    if order == "reversed":
        commands.reverse()
    # the block as pasted, with the exit code of each command printed after it
    script = "".join(f'{c}echo "{MARK} $?"\n' for c in commands)
    clone = fresh_clone(tmp_path)
    run = subprocess.run(
        ["bash", "-c", script],
        cwd=clone,
        env=clean_environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=1200,
    )
    codes = re.findall(rf"^{MARK} (\d+)$", run.stdout, re.M)
    expected = {"as written": ["1", "0"], "reversed": ["0", "1"]}[order]
    assert codes == expected, run.stdout[-3000:] + run.stderr[-3000:]
    assert run.returncode == 0
    lines = run.stdout.splitlines()
    assert SUMMARY in lines
    assert "to retire (already upstream): retry-backoff-cap.patch" in lines
    assert re.search(r"^\d+ tests collected in ", run.stdout, re.M), run.stdout[-2000:]
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=clone, check=True, capture_output=True, text=True
    )
    assert status.stdout == ""
    ignored = subprocess.run(
        ["git", "status", "--porcelain", "--ignored"],
        cwd=clone,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert "!! .venv/\n" in ignored
