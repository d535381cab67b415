"""Fixtures of the runtime-patch tests: the seed-shaped plugin and its two upstream trees, and
a writer of a test's own plugin and upstream releases."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from plugin_trees import TreeWriter

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def runtime_trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the fixtures (plugin, upstream-1.0, upstream-2.0) and a private cache."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    work = tmp_path / "work"
    shutil.copytree(FIXTURES, work)
    return work


@pytest.fixture
def runtime_versions(runtime_trees: Path) -> list[str]:
    """The ``--from`` and ``--to`` options naming the fixtures' two upstream trees."""
    return [
        "--from",
        str(runtime_trees / "upstream-1.0"),
        "--to",
        str(runtime_trees / "upstream-2.0"),
    ]


@pytest.fixture
def plugin_trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TreeWriter:
    """A writer of a plugin and its upstream releases under ``tmp_path``, with a private
    cache (:mod:`plugin_trees`)."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    return TreeWriter(tmp_path)
