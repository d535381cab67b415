"""``unapply``: reverse the whole series, last patch first, back to pristine."""

from __future__ import annotations

from pathlib import Path

from patchkeeper.commands.apply import run_unapply
from patchkeeper.config import Config
from patchkeeper.trees.results import ApplyResult
from patchkeeper.upstream.requirements import check_release_option


def run(
    config: Config,
    *,
    target: Path | None = None,
    python: Path | None = None,
    pristine: str | None = None,
    force: bool = False,
) -> ApplyResult:
    """Undo the series on the target, checked against the pristine reference.

    ``force`` undoes the series even over drifted files, keeping their bytes in a backup.

    Raises: as :func:`patchkeeper.commands.apply.run_unapply`.
    """
    check_release_option(pristine, "--pristine", config.upstream, config.source)
    return run_unapply(config, target=target, python=python, pristine=pristine, force=force)
