"""Fixtures of the audit-record tests: the bundled example audited, with a private cache
(``private_cache``, of the root conftest)."""

from __future__ import annotations

from pathlib import Path

import pytest
from recordhelpers import enable_evidence

from helpers import Example


@pytest.fixture
def audited(cli, example: Example, private_cache: Path) -> Path:
    """The example downstream keeping evidence, after ``audit --to ../upstream/minihttp-1.1``
    (exit 1)."""
    enable_evidence(example.downstream / "patchkeeper.toml")
    run = cli("audit", "--to", "../upstream/minihttp-1.1", cwd=example.downstream)
    assert run.code == 1
    return example.downstream
