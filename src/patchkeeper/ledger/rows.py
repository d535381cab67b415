"""A row of the ledger table, shared by the table (:mod:`patchkeeper.ledger.table`) and the
entries that are not patches (:mod:`patchkeeper.ledger.entries`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class LedgerRow:
    """One row: a patch of the series, or an entry that is not a patch.

    Attributes:
        name: the first cell (the series name without ``.patch``, or the entry's name).
        values: the column values, unescaped, in column order.
        source: the patch file (or the configuration file for an entry).
        line_no: where the row's headers start in ``source`` (1 when unknown).
    """

    name: str
    values: tuple[str, ...]
    source: Path
    line_no: int = 1
