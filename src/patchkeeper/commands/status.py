"""``status``: per patch and per file, what is applied, partly applied or drifted."""

from __future__ import annotations

from pathlib import Path

from patchkeeper.commands import verify
from patchkeeper.config import Config
from patchkeeper.trees.results import VerifyResult


def run(
    config: Config,
    *,
    target: Path | None = None,
    python: Path | None = None,
    pristine: str | None = None,
) -> VerifyResult:
    """The state of the series on the target, every hunk shown; works without a pristine
    reference, and keeps no evidence (``verify`` does).

    Raises: as :func:`patchkeeper.commands.verify.run`.
    """
    return verify.run(config, target=target, python=python, pristine=pristine, detailed=True)
