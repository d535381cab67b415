"""``import``: commit each patch of the series on a new branch at the pin's tag (the module
is ``import_`` because ``import`` is a Python keyword)."""

from __future__ import annotations

from pathlib import Path

from patchkeeper.config import Config
from patchkeeper.ledger.importer import ImportResult, import_series


def run(
    config: Config,
    *,
    checkout: Path | None = None,
    branch: str | None = None,
    tag: str | None = None,
    force: bool = False,
) -> ImportResult:
    """Make the branch of topic commits (``force``: move it if it exists).

    Raises: as :func:`patchkeeper.ledger.importer.import_series`.
    """
    return import_series(config, checkout=checkout, branch=branch, tag=tag, force=force)
