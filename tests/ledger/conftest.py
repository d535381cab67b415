"""Fixtures for the ledger, lint, export/import and check-branch tests: real git repositories.

Each test gets a private git configuration (an empty ``GIT_CONFIG_GLOBAL``, no system file, a
fixed identity), as b4's and gbp's test suites do, so the machine's settings cannot leak in.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from ledger_support import (
    FIXED_DATE,
    UPSTREAM_FILES,
    commit_topic,
    config_at,
    git,
    ledger_body,
    make_upstream,
    write_config,
)


def isolate(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """An empty global git configuration (in ``home``) and a fixed identity and date."""
    empty = home / "gitconfig"
    empty.write_text("")
    for key in list(os.environ):
        if key.startswith("GIT_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Tess Ter")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "tess@example.org")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Tess Ter")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "tess@example.org")
    monkeypatch.setenv("GIT_AUTHOR_DATE", FIXED_DATE)
    monkeypatch.setenv("GIT_COMMITTER_DATE", FIXED_DATE)


@pytest.fixture(autouse=True)
def isolated_git(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """An empty global git configuration and a fixed identity for every test."""
    isolate(monkeypatch, tmp_path_factory.mktemp("home"))


@pytest.fixture(scope="session")
def upstream_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository of :func:`upstream`, made once per session (git's ids are the same in
    every copy: fixed identity and dates); the tests only ever change their own copies."""
    work = tmp_path_factory.mktemp("ledger-upstream")
    with pytest.MonkeyPatch.context() as patch:
        isolate(patch, work)
        return make_upstream(work / "upstream", UPSTREAM_FILES)


@pytest.fixture(scope="session")
def topics_template(tmp_path_factory: pytest.TempPathFactory, upstream_template: Path) -> Path:
    """The repository of :func:`topics`, made once per session from a copy of the upstream."""
    work = tmp_path_factory.mktemp("ledger-topics")
    upstream = work / "upstream"
    shutil.copytree(upstream_template, upstream, symlinks=True)
    with pytest.MonkeyPatch.context() as patch:
        isolate(patch, work)
        git(upstream, "checkout", "-q", "-b", "work")
        commit_topic(
            upstream,
            "[pk] size-knob",
            ledger_body(
                kind="local",
                what="size read from PKG_SIZE | env",
                prose="Reads the size from the environment.",
                retires="stays",
            ),
            {
                "pkg/envs.py": UPSTREAM_FILES["pkg/envs.py"].replace(
                    '    "PKG_LEVEL"',
                    '    "PKG_SIZE": lambda: int(os.getenv("PKG_SIZE", "4")),\n    "PKG_LEVEL"',
                ),
                "pkg/core.py": UPSTREAM_FILES["pkg/core.py"].replace(
                    "return 4", "return envs.PKG_SIZE"
                ),
            },
        )
        commit_topic(
            upstream,
            "[pk] extra-module",
            ledger_body(
                kind="feature",
                what="adds pkg.extra",
                upstream="pkg #12 (open)",
                retires="upstreamed",
            ),
            {"pkg/extra.py": "def extra():\n    return 'extra'\n"},
        )
    return upstream


@pytest.fixture
def upstream(tmp_path: Path, upstream_template: Path) -> Path:
    """A small upstream repository tagged v1.0 (package ``pkg`` with an ``envs.py``): a copy
    of :func:`upstream_template`."""
    path = tmp_path / "upstream"
    shutil.copytree(upstream_template, path, symlinks=True)
    return path


@pytest.fixture
def topics(upstream: Path, topics_template: Path) -> Path:
    """The upstream with branch ``work`` checked out: two topic commits in the series workflow's shape (a
    copy of :func:`topics_template`, in the place of :func:`upstream`)."""
    shutil.rmtree(upstream)
    shutil.copytree(topics_template, upstream, symlinks=True)
    return upstream


@pytest.fixture
def downstream(tmp_path: Path, topics: Path) -> Path:
    """A downstream whose series was exported from ``topics`` (branch ``work``)."""
    from patchkeeper.ledger.export import export_range

    root = write_config(tmp_path / "down", checkout=topics)
    export_range(config_at(root), "v1.0..work")
    return root
