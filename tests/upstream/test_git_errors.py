"""A checkout path that does not exist is named as such, and git missing from ``PATH`` says
so: before, both read "cannot run git in ../nope: ../nope not found" with the hint "install
git, or check the checkout path" (a new user's report: ``lint --checkout ../nope``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from helpers import Example


def test_a_checkout_that_does_not_exist(cli, example: Example) -> None:
    for args in (("lint", "--checkout", "../nope"), ("export", "--checkout", "../nope", "HEAD")):
        run = cli(*args, cwd=example.downstream)
        assert (run.code, run.out, run.err) == (
            2,
            "",
            "patchkeeper: error: ../nope: the directory does not exist\n"
            "  hint: check the checkout path (--checkout, or the configuration)\n",
        )


def test_git_not_on_path(cli, example: Example, tmp_path: Path, monkeypatch) -> None:
    checkout = tmp_path / "checkout"
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    run = cli("export", "--checkout", str(checkout), "HEAD", cwd=example.downstream)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {checkout}: cannot run git in {checkout}: git not found\n"
        "  hint: install git, or put it on PATH\n",
    )
