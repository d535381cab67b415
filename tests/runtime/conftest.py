"""Fixtures of the runtime-patch tests: the seed-shaped plugin and its two upstream trees."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def runtime_trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the fixtures (plugin, upstream-1.0, upstream-2.0) and a private cache."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    work = tmp_path / "work"
    shutil.copytree(FIXTURES, work)
    return work
