"""Two upgrades of one downstream at once: an ``upgrade --abort`` run while another process
was still upgrading removed the port's work directory under it; the running one then
recorded a conflict with no patch name and no files and left its state behind. Each
``upgrade``, ``--continue`` and ``--abort`` holds the upgrade's lock (the git directory's,
or ``.patchkeeper/``'s outside git): a second waits ``lock-timeout`` seconds, then stops
naming the lock, having changed nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from upgrade_support import git, make_checkout, tracked_tree

from helpers import Example
from patchkeeper.trees.transaction import locked


def _timeout(down: Path) -> None:
    config = down / "patchkeeper.toml"
    config.write_text("lock-timeout = 0.2\n" + config.read_text())


@pytest.mark.parametrize("in_git", [True, False])
def test_a_second_upgrade_waits_for_the_first(cli, example: Example, in_git: bool) -> None:
    down = example.downstream
    _timeout(down)
    if in_git:
        make_checkout(down)
    started = cli("-C", str(down), "upgrade", "--to", "../upstream/minihttp-1.1")
    assert started.code == 1, started.err
    held = down / ".git" if in_git else down / ".patchkeeper"
    before = tracked_tree(down)
    with locked(held, 1.0, "the test's upgrade"):  # another process upgrading
        for options in (("--abort",), ("--continue",), ("--to", "../upstream/minihttp-1.2")):
            run = cli("-C", str(down), "upgrade", *options)
            assert (run.code, run.out) == (2, ""), options
            assert run.err == (
                f"patchkeeper: error: {held}: another patchkeeper process is working on an "
                "upgrade of the downstream; waited 0.2 s\n"
                "  hint: wait for it to finish, or raise 'lock-timeout' in the configuration\n"
            ), options
            assert tracked_tree(down) == before
    if in_git:
        assert git(down, "status", "--porcelain", "--", "patches") == ""
    assert cli("-C", str(down), "upgrade", "--abort").code == 0
