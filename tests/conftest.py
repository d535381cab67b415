"""Shared fixtures: an isolated git, a copy of the bundled example, running the CLI and a
private cache.

Also which tests run. Plain ``pytest`` runs the fast ones: a test marked ``network`` (downloads
real releases and series) or ``slow`` (seconds each: the differential and crash tests, real
browsers and venvs) is deselected unless ``--all`` is given (CI and the README run
``pytest --all``) or ``-m`` picks tests by marker itself (``pytest -m slow``). A test marked
``tool("name", ...)`` needs those executables: absent, it is skipped, except in CI (the
variable ``CI`` set), where ``.ci/run`` installs them first and an absent tool fails the test.

The property tests (hypothesis) explore new cases on every local run and keep the failing
ones in ``.hypothesis/``; in CI they run the same derandomised cases each time, so a result
there depends on the change, not on the draw.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from helpers import EXAMPLES, Example, LocalIndex, isolate_pip
from patchkeeper.main import main

settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

#: The markers plain ``pytest`` leaves out; ``--all`` (or any ``-m``) takes them in.
NOT_BY_DEFAULT = ("network", "slow")


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--all``: the whole suite, as CI and the README's set-up command run it."""
    parser.addoption(
        "--all",
        action="store_true",
        default=False,
        help="run every test, network and slow ones too (CI runs this; plain pytest runs "
        "the fast tests only)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the ``network`` and ``slow`` tests unless ``--all`` or ``-m`` is given."""
    if config.getoption("--all") or config.getoption("-m"):
        return
    kept, left_out = [], []
    for item in items:
        marked = any(item.get_closest_marker(name) for name in NOT_BY_DEFAULT)
        (left_out if marked else kept).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


def pytest_report_header(config: pytest.Config) -> str | None:
    """Say, above the results, that a plain run leaves tests out and how to run them."""
    if config.getoption("--all") or config.getoption("-m"):
        return None
    return "network and slow tests are deselected: pytest --all runs every test"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test marked ``tool(...)`` whose executable is absent: skipped, or failed in CI."""
    for marker in item.iter_markers("tool"):
        missing = [name for name in marker.args if shutil.which(name) is None]
        if not missing:
            continue
        verb = "is" if len(missing) == 1 else "are"
        reason = f"{', '.join(missing)} {verb} not installed (.ci/run installs it when CI is set)"
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {reason}", pytrace=False)
        pytest.skip(reason)


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
    monkeypatch.delenv("PATCHKEEPER_INTERRUPT_POOL", raising=False)
    monkeypatch.delenv("PATCHKEEPER_PARSE_LOG", raising=False)


@pytest.fixture(autouse=True)
def same_working_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test ends in the directory it started in: ``main(["-C", DIR, ...])`` changes
    directory as ``git -C`` does, and a later test run without ``cwd`` found DIR's
    configuration (its hints then named ``[runtime]``, not ``[tool.patchkeeper.runtime]``)."""
    monkeypatch.chdir(os.getcwd())


@pytest.fixture(autouse=True)
def plain_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Output shaped as for a pipe: no ``$COLUMNS`` (a shell that exports it would wrap the
    exact outputs), no colour switch (docs/terminal-output.md)."""
    for name in ("COLUMNS", "NO_COLOR", "PATCHKEEPER_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    # GNU readline (imported by pytest's debugging plugin) exports COLUMNS/LINES into the
    # process's C environment when it starts (rl_change_environment), which os.environ
    # never sees: a subprocess inherited COLUMNS=80 and wrapped its output.
    for name in ("COLUMNS", "LINES"):
        if name not in os.environ:
            os.unsetenv(name)


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty ``PATCHKEEPER_CACHE`` for one test (``tmp_path/cache``): nothing the
    machine's cache holds is found, nothing is written there."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(cache))
    return cache


@pytest.fixture
def local_index(tmp_path: Path, private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> LocalIndex:
    """An empty package index on disk (``tmp_path/index``) that pip, and so patchkeeper, is
    told to use, alone (:func:`helpers.isolate_pip` first), with a :func:`private_cache`."""
    isolate_pip(monkeypatch)
    return LocalIndex.announced(tmp_path / "index", monkeypatch)


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
    # A user who ran the example with --save-evidence has .patchkeeper/ (evidence) in it.
    shutil.copytree(
        EXAMPLES,
        tmp_path / "examples",
        ignore=shutil.ignore_patterns(".patchkeeper", "__pycache__"),
    )
    return Example(tmp_path / "examples")
