"""``upgrade`` of a downstream that is a git branch of the user's commits on the old pin's
upstream tag (``init`` made it from the checkout: the commits since ``v1.0`` became
``patches/``): the port moves the series to the new pin, not the branch, so the upgrade
ends with the git commands that bring the branch onto the new release. It said nothing of
the branch, left on the old tag."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from upgrade_support import git, subjects

from helpers import write_files

SERVER = 'def serve():\n    return "serve"\n\n\ndef stop():\n    return None\n'


def _checkout(root: Path) -> Path:
    """``co``: tinyweb 1.0 tagged ``v1.0``, 1.1 tagged ``v1.1`` on a branch of its own, and
    ``mine``, the user's commit on ``v1.0`` with the downstream ``init`` writes committed;
    the unpacked releases ``tinyweb-1.0`` and ``tinyweb-1.1`` beside it."""
    co = write_files(
        root / "co",
        {
            "pyproject.toml": '[project]\nname = "tinyweb"\nversion = "1.0"\n',
            "tinyweb/server.py": SERVER,
        },
    )
    git(co, "init", "-q", "-b", "main")
    git(co, "add", "-A")
    git(co, "commit", "-qm", "tinyweb 1.0")
    git(co, "tag", "v1.0")
    git(co, "switch", "-q", "-c", "release")
    write_files(
        co,
        {
            "pyproject.toml": '[project]\nname = "tinyweb"\nversion = "1.1"\n',
            "tinyweb/server.py": 'VERSION = "1.1"\n\n\n' + SERVER,
        },
    )
    git(co, "commit", "-qam", "tinyweb 1.1")
    git(co, "tag", "v1.1")
    for version in ("1.0", "1.1"):
        tree = root / f"tinyweb-{version}"
        tree.mkdir()
        archive = subprocess.run(
            ["git", "archive", f"v{version}"], cwd=co, check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    git(co, "switch", "-q", "-c", "mine", "v1.0")
    write_files(co, {"tinyweb/server.py": SERVER.replace("return None", 'return "stopped"')})
    git(co, "commit", "-qam", "Stop cleanly")
    return co


def _init(cli, co: Path) -> None:
    assert cli("init", cwd=co).code == 0
    git(co, "add", "-A")
    git(co, "commit", "-qm", "patchkeeper init")


UPGRADE = ("upgrade", "--to", "../tinyweb-1.1", "--from", "../tinyweb-1.0", "--branch", "up")


def test_the_upgrade_gives_the_commands_that_rebase_the_branch(cli, tmp_path: Path) -> None:
    co = _checkout(tmp_path)
    _init(cli, co)

    run = cli(*UPGRADE, cwd=co)

    assert run.code == 0, run.err
    assert run.out.splitlines()[-3:] == [
        "3. bring your branch onto 1.1:",
        "   - git rebase --onto v1.1 v1.0 up",
        "     where git stops at a conflict, resolve it as the ported patch in the series "
        "does (the port resolved the same lines), then 'git rebase --continue'",
    ]
    # the commands do what they say: the user's commit, the downstream and the upgrade's
    # commits on v1.1
    git(co, "rebase", "-q", "--onto", "v1.1", "v1.0", "up")
    assert git(co, "merge-base", "--is-ancestor", "v1.1", "up") == ""
    assert subjects(co, "v1.1") == [
        "Stop cleanly",
        "patchkeeper init",
        "upgrade: audit the series against 1.1",
        "upgrade: suggest decisions from the evidence",
        "upgrade: port the series to 1.1",
        "upgrade: write the audit record",
    ]
    assert (co / "tinyweb" / "server.py").read_text() == 'VERSION = "1.1"\n\n\n' + SERVER.replace(
        "return None", 'return "stopped"'
    )


def test_a_new_tag_not_in_the_checkout_is_fetched_first(cli, tmp_path: Path) -> None:
    co = _checkout(tmp_path)
    git(co, "tag", "-d", "v1.1")
    _init(cli, co)
    run = cli(*UPGRADE, "--json", cwd=co)
    assert run.code == 0, run.err
    assert json.loads(run.out)["rebase"] == [
        "git fetch UPSTREAM tag v1.1  # UPSTREAM: the remote with the upstream's tags; v1.1 is "
        "not in this checkout",
        "git rebase --onto v1.1 v1.0 up",
    ]


@pytest.mark.parametrize("tagged", [False, True])
def test_no_commands_for_a_downstream_off_the_old_tag(cli, tmp_path: Path, tagged: bool) -> None:
    """A downstream whose history holds no old pin's tag (its own repository), or holds it
    elsewhere than under HEAD, is no upstream branch: nothing to rebase."""
    co = _checkout(tmp_path)
    _init(cli, co)
    git(co, "tag", "-d", "v1.0")
    if tagged:
        git(co, "tag", "v1.0", "release")  # the tag names a commit not under HEAD
    run = cli(*UPGRADE, "--json", cwd=co)
    assert run.code == 0, run.err
    assert json.loads(run.out)["rebase"] == []
