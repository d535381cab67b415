"""A ``--branch`` name git refuses (``up 1.1``, ``up..1.1``) is refused first, saying why,
before the upgrade writes or commits anything; git's own failure came after the checks, as
``'git checkout -q -b up 1.1' failed`` with a hint to check that the revision exists."""

from __future__ import annotations

import pytest
from upgrade_support import git, make_checkout

from helpers import Example, tree_bytes

WHY = (
    "(no spaces, '..', '~', '^', ':', '?', '*', '[', '\\' or a leading '-'; see git "
    "check-ref-format)"
)


@pytest.mark.parametrize("name", ["up 1.1", "up..1.1", "up:1.1", "up.lock", "-up", "HEAD"])
def test_a_branch_name_git_refuses_is_refused_first(cli, example: Example, name: str) -> None:
    down = example.downstream
    head = make_checkout(down)
    before = tree_bytes(down)
    run = cli("upgrade", "--to", "../upstream/minihttp-1.1", "--branch", name, cwd=down)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: '{name}' is not a valid git branch name {WHY}\n"
        "  hint: pass another --branch\n",
    )
    assert tree_bytes(down) == before
    assert git(down, "for-each-ref", "--format=%(refname)", "refs/heads") == "refs/heads/main"
    assert git(down, "rev-parse", "HEAD") == head
    assert not (down / ".git" / "patchkeeper-upgrade").exists()
