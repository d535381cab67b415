"""``export REV`` / ``export --range BASE..BRANCH``: write topic commits as patch files."""

from __future__ import annotations

from pathlib import Path

from patchkeeper.config import Config
from patchkeeper.ledger.export import ExportResult, export_commit, export_range


def run(
    config: Config,
    *,
    rev: str | None = None,
    rev_range: str | None = None,
    checkout: Path | None = None,
    output: Path | None = None,
    tag: str | None = None,
    normalise: bool = False,
) -> ExportResult:
    """Export the commit ``rev`` (to ``output``, default: its series name) or every topic
    commit of ``rev_range``; exactly one of the two is given (``main`` checks). A patch file
    that exists keeps its form unless ``normalise`` (git's form then).

    Raises: as :func:`patchkeeper.ledger.export.export_commit` and
        :func:`patchkeeper.ledger.export.export_range`.
    """
    if rev_range is not None:
        return export_range(config, rev_range, checkout=checkout, tag=tag, normalise=normalise)
    return export_commit(
        config, str(rev), checkout=checkout, output=output, tag=tag, normalise=normalise
    )
