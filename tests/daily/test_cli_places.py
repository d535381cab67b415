"""``-C``/``--config`` after the command, GitHub annotations from the repository root, and
the platforms patchkeeper runs on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import REPO, Example
from patchkeeper.config import tomllib
from patchkeeper.main import main


def test_directory_after_the_command(cli, example: Example) -> None:
    before = cli("-C", "downstream", "ledger", "--check", cwd=example.root)
    after = cli("ledger", "--check", "-C", "downstream", cwd=example.root)

    assert (after.code, after.out, after.err) == (
        0,
        "PATCHES.md: the ledger is current (7 rows)\n",
        "",
    )
    assert (before.code, before.out) == (after.code, after.out)


def test_config_after_the_command_is_read_from_the_directory(cli, example: Example) -> None:
    config = example.downstream / "other.toml"
    config.write_text((example.downstream / "patchkeeper.toml").read_text())
    with config.open("a") as handle:
        handle.write('\n[ledger]\nfile = "MISSING.md"\n')

    run = cli("ledger", "--check", "--config", "other.toml", "-C", "downstream", cwd=example.root)

    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {example.downstream / 'MISSING.md'}: the ledger file does not exist",
    )


def test_a_bad_directory_after_a_runtime_command(cli, tmp_path: Path) -> None:
    run = cli("runtime", "inventory", "-C", str(tmp_path / "nowhere"), cwd=tmp_path)

    assert run.code == 2
    assert run.err.splitlines()[-1] == (
        f"Error: Invalid value for -C: {tmp_path / 'nowhere'}: No such file or directory"
    )


def test_github_annotations_name_files_from_the_repository_root(cli, example: Example) -> None:
    subprocess.run(["git", "init", "-q"], cwd=example.root, check=True)
    patches = example.downstream / "patches"
    (patches / "series").write_text((patches / "series").read_text() + "bare.patch\n")
    (patches / "bare.patch").write_text(
        "Subject: bare\n---\n--- a/client.py\n+++ b/client.py\n@@ -1 +1 @@\n-x\n+y\n"
    )

    github = cli("lint", "--format", "github", "-C", "downstream", cwd=example.root)
    text = cli("lint", "-C", "downstream", cwd=example.root)

    assert github.out.splitlines()[0] == (
        "::error file=downstream/patches/bare.patch,line=1,title=PK101::missing header 'Kind:'"
    )
    assert text.out.splitlines()[0] == "patches/bare.patch:1: PK101 missing header 'Kind:'"


def test_windows_is_refused_at_start_up(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "platform", "win32")

    code = main(["--version"])

    assert (code, capsys.readouterr().err) == (
        2,
        "patchkeeper: error: patchkeeper runs on Linux and macOS only (it locks files with "
        "fcntl), not on win32\n"
        "  hint: on Windows, run it in WSL (Windows Subsystem for Linux) or a Linux container\n",
    )


def test_the_supported_platforms_are_declared() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]

    assert [c for c in project["classifiers"] if c.startswith("Operating System")] == [
        "Operating System :: POSIX :: Linux",
        "Operating System :: MacOS",
    ]
