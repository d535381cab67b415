"""``unapply``: reverse the whole series, last patch first, back to pristine."""

from __future__ import annotations

from pathlib import Path

from patchkeeper.commands.apply import run_unapply
from patchkeeper.config import Config
from patchkeeper.trees.results import ApplyResult


def run(
    config: Config,
    *,
    target: Path | None = None,
    python: Path | None = None,
    pristine: str | None = None,
) -> ApplyResult:
    """Undo the series on the target, checked against the pristine reference.

    Raises: as :func:`patchkeeper.commands.apply.run_unapply`.
    """
    return run_unapply(config, target=target, python=python, pristine=pristine)
