"""``ledger [--check]``: write the ledger table from the patch headers, or only compare it."""

from __future__ import annotations

from patchkeeper.config import Config
from patchkeeper.ledger.table import LedgerResult, write_ledger


def run(config: Config, *, check: bool = False, pre_commit: bool = False) -> LedgerResult:
    """Rewrite (``check``: only compare) the table between the ledger file's markers;
    ``pre_commit``: as a pre-commit hook (a rewrite exits 1, messages name pre-commit's
    commands).

    Raises: as :func:`patchkeeper.ledger.table.write_ledger`.
    """
    return write_ledger(config, check=check, pre_commit=pre_commit)
