"""Shared fixtures: an isolated git, a copy of the bundled example, and running the CLI."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import EXAMPLES, Example
from patchkeeper.main import main


@pytest.fixture(autouse=True)
def isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No user or system git configuration leaks in; a fixed identity (b4's and gbp's habit)."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "author@example.org")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Committer")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "committer@example.org")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(home.parent))
    monkeypatch.delenv("PATCHKEEPER_FAULT_AT", raising=False)
    monkeypatch.delenv("PATCHKEEPER_INTERRUPT_AT", raising=False)


@dataclass
class Run:
    """The outcome of one CLI run: exit code, standard output and error."""

    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Callable[..., Run]:
    """``cli(*args, cwd=DIR)`` runs ``patchkeeper`` in-process and returns a :class:`Run`."""

    def run(*args: str, cwd: Path | None = None) -> Run:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        before = os.getcwd()
        try:
            code = main(list(args))
        finally:
            os.chdir(before)  # ``-C DIR`` changes directory, as git -C does
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


@pytest.fixture
def example(tmp_path: Path) -> Example:
    # A user who ran the README's first command has .patchkeeper/ (evidence) in the example.
    shutil.copytree(
        EXAMPLES,
        tmp_path / "examples",
        ignore=shutil.ignore_patterns(".patchkeeper", "__pycache__"),
    )
    return Example(tmp_path / "examples")
