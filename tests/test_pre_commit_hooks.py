"""The hooks of ``.pre-commit-hooks.yaml`` under a real ``pre-commit``, as a downstream uses them.

This checkout's HEAD is cloned into a temporary repository and tagged ``v0.0.0-test`` there
(only there: this repository's tags are not touched); a downstream (the bundled example, its
ledger made stale by an edited header) names that clone as ``repo:`` and the tag as ``rev:``
in its ``.pre-commit-config.yaml``, and ``pre-commit run --all-files`` runs. pre-commit builds
the hooks' environment itself, installing patchkeeper's dependencies from the package index
(so the test is ``network`` and ``slow``), under a ``PRE_COMMIT_HOME`` inside the test's
temporary directory. What is tested is the committed HEAD: uncommitted changes to the hooks
are not in the clone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import EXAMPLES, REPO, make_checkout

TAG = "v0.0.0-test"
OLD_WHAT = b"What: cap the retry backoff at BACKOFF_MAX (120 s)"
NEW_WHAT = b"What: cap the retry backoff at 120 s"
OLD_ROW = (
    "| retry-backoff-cap | backport | cap the retry backoff at BACKOFF_MAX (120 s) | minihttp "
    "#12 (merged after 1.0) | 1.0 | the pin that carries #12 |"
)
NEW_ROW = OLD_ROW.replace("BACKOFF_MAX (120 s)", "120 s")


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def hook_repository(tmp_path: Path) -> Path:
    """A clone of this checkout's HEAD, tagged :data:`TAG` in the clone."""
    head = git(REPO, "rev-parse", "HEAD").strip()
    clone = tmp_path / "patchkeeper-hooks"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    git(clone, "checkout", "-q", "--detach", head)
    git(clone, "tag", TAG)
    return clone


def downstream(tmp_path: Path, hooks: Path, hook_id: str) -> Path:
    """The example downstream as a git repository whose ledger is stale, with one hook."""
    root = tmp_path / f"downstream-{hook_id}"
    shutil.copytree(EXAMPLES / "downstream", root)
    patch = root / "patches" / "retry-backoff-cap.patch"
    data = patch.read_bytes()
    assert OLD_WHAT in data
    patch.write_bytes(data.replace(OLD_WHAT, NEW_WHAT))
    (root / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {TAG}\n    hooks:\n      - id: {hook_id}\n"
    )
    make_checkout(root, "downstream")
    return root


def hook_lines(stdout: str) -> list[str]:
    """pre-commit's report of the hooks, without its ``[INFO]`` lines on installing them."""
    return [line for line in stdout.splitlines() if not line.startswith("[INFO] ")]


def pre_commit(root: Path, home: Path) -> subprocess.CompletedProcess[str]:
    # The test tag is no PEP 440 version: a build that takes its version from git tags
    # (setuptools-scm) is given one, as it would read it from a release tag.
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), SETUPTOOLS_SCM_PRETEND_VERSION="0.0.0")
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.network
@pytest.mark.slow
def test_the_hooks_under_a_real_pre_commit(tmp_path: Path) -> None:
    hooks = hook_repository(tmp_path)
    home = tmp_path / "pre-commit-home"

    # the hook that fixes: rewrites the table, exit 1 so the commit stops; then exit 0
    fixing = downstream(tmp_path, hooks, "patchkeeper-ledger")
    ledger = fixing / "PATCHES.md"
    assert OLD_ROW in ledger.read_text().splitlines()
    done = pre_commit(fixing, home)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = hook_lines(done.stdout)
    assert lines[0].startswith("patchkeeper ledger (rewrite the table)...")
    assert lines[0].endswith("Failed")
    assert lines[1:4] == [
        "- hook id: patchkeeper-ledger",
        "- exit code: 1",
        "- files were modified by this hook",
    ]
    assert (
        "PATCHES.md: the ledger was stale; rewrote it (7 rows): review it, 'git add PATCHES.md' "
        "and commit again"
    ) in lines
    expected = (EXAMPLES / "downstream" / "PATCHES.md").read_text().replace(OLD_ROW, NEW_ROW)
    assert ledger.read_text() == expected
    assert git(fixing, "status", "--porcelain") == " M PATCHES.md\n"
    done = pre_commit(fixing, home)
    assert (done.returncode, hook_lines(done.stdout)[0].endswith("Passed")) == (0, True)
    assert ledger.read_text() == expected

    # the hook that checks: exit 1 naming the fixing hook; the file is left as it was
    checking = downstream(tmp_path, hooks, "patchkeeper-ledger-check")
    before = (checking / "PATCHES.md").read_bytes()
    done = pre_commit(checking, home)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = hook_lines(done.stdout)
    assert lines[0].startswith("patchkeeper ledger is current...")
    assert lines[1:3] == ["- hook id: patchkeeper-ledger-check", "- exit code: 1"]
    assert (
        "PATCHES.md: the ledger is stale; run 'pre-commit run patchkeeper-ledger --all-files' "
        "to rewrite it"
    ) in lines
    assert f"-{OLD_ROW}" in lines and f"+{NEW_ROW}" in lines
    assert (checking / "PATCHES.md").read_bytes() == before
    assert git(checking, "status", "--porcelain") == ""
