"""``init``: make the current directory a downstream from the series it already holds."""

from __future__ import annotations

from pathlib import Path

from patchkeeper.start.init import LEDGER_FILE, InitResult
from patchkeeper.start.init import init as start


def run(
    root: Path,
    *,
    upstream: str | None = None,
    patches: Path | None = None,
    tag: str | None = None,
    ledger: str = LEDGER_FILE,
    directory: str = "",
) -> InitResult:
    """Detect the series form in ``root``, find the pin, write the configuration and ledger.

    Raises: as :func:`patchkeeper.start.init.init`.
    """
    return start(
        root.resolve(),
        upstream=upstream,
        patches=patches,
        tag=tag,
        ledger=ledger,
        directory=directory,
    )
