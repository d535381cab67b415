"""A checkout path that does not exist is named as such, and git missing from ``PATH`` says
so: before, both read "cannot run git in ../nope: ../nope not found" with the hint "install
git, or check the checkout path" (a new user's report: ``lint --checkout ../nope``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import Example


def test_a_checkout_that_does_not_exist(cli, example: Example) -> None:
    """Every option that names a checkout, ``port --upstream-repo`` too (its hint named
    ``--checkout`` only, an option port does not have)."""
    resolved = str((example.downstream.parent / "nope").resolve())
    for args, shown in (
        (("lint", "--checkout", "../nope"), "../nope"),
        (("export", "--checkout", "../nope", "HEAD"), "../nope"),
        (("port", "--to", "../upstream/minihttp-1.1", "--upstream-repo", "../nope"), resolved),
    ):
        run = cli(*args, cwd=example.downstream)
        assert (run.code, run.out, run.err) == (
            2,
            "",
            f"patchkeeper: error: {shown}: the directory does not exist\n"
            "  hint: check the path of the git checkout (--checkout, --upstream-repo, or "
            "checkout in the configuration's [git] table)\n",
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


def test_a_checkout_owned_by_another_user(tmp_path: Path) -> None:
    # A checkout in a container volume or unpacked as another user: git refuses it until
    # the user trusts it with safe.directory. patchkeeper said "this is not a git checkout";
    # it names the refusal, and follows the user's safe.directory once they trust it.
    if os.geteuid() != 0:
        pytest.skip("giving a checkout to another user takes root")
    checkout = tmp_path / "upstream"
    git = ["git", "-C", str(checkout), "-c", "user.name=u", "-c", "user.email=u@example.org"]
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    (checkout / "mod.py").write_text("x = 1\n")
    subprocess.run([*git, "add", "mod.py"], check=True)
    subprocess.run([*git, "commit", "-qm", "release 1.0"], check=True)
    subprocess.run([*git, "tag", "v1.0"], check=True)
    (checkout / "mod.py").write_text("x = 2\n")
    subprocess.run([*git, "commit", "-qam", "our change"], check=True)
    for path in [checkout, *checkout.rglob("*")]:
        os.chown(path, 65534, 65534, follow_symlinks=False)
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "XDG_CONFIG"))}
    env["HOME"] = str(home)

    def init() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "patchkeeper",
                "init",
                "--tag",
                "v1.0",
                "--upstream",
                "mod==1.0",
            ],
            cwd=checkout,
            env=env,
            capture_output=True,
            text=True,
        )

    done = init()
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"patchkeeper: error: {checkout}: git refuses to read the checkout {checkout}: it is "
        "owned by another user\n"
        f"  hint: if you trust it, run 'git config --global --add safe.directory {checkout}' "
        "(patchkeeper follows git's safe.directory), or work as the user who owns it\n",
    )
    assert sorted(p.name for p in checkout.iterdir()) == [".git", "mod.py"]
    (home / ".gitconfig").write_text(f"[safe]\n\tdirectory = {checkout}\n")
    done = init()
    assert (done.returncode, done.stderr) == (0, "")
    assert (checkout / "patches" / "series").read_text().splitlines()[-1] == (
        "0001-our-change.patch"
    )
