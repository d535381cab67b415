"""``retire NAME --at VERSION --why TEXT``: take a patch out of the series and the tree, and
record it in the ledger's Retired table."""

from __future__ import annotations

from patchkeeper.config import Config
from patchkeeper.ledger.table import RetireResult, retire


def run(config: Config, name: str, *, at: str, why: str) -> RetireResult:
    """Retire the series patch ``name`` at upstream version ``at`` for the reason ``why``.

    Raises: as :func:`patchkeeper.ledger.table.retire`.
    """
    return retire(config, name, at=at, why=why)
