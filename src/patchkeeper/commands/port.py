"""``port --to TARGET``: carry the series to a new upstream release, with evidence.

Every patch is carried onto the new pin in series order (:mod:`patchkeeper.port.rebase`):
regenerated when it applies, merged with git's three-way merge when it does not, proposed
for retirement when upstream has it. The first real conflict stops the port, like ``git
rebase``: its files wait in the work directory with conflict markers and their upstream
cause; ``port --continue`` regenerates that patch from the resolved files and carries on;
``port --abort`` drops the work directory. Nothing outside the work directory is written
until every patch is through; then the new series goes to a new directory (default: beside
the series directory, named after the new pin) or, with ``--in-place``, over the old one.
The session itself is :mod:`patchkeeper.port.session`.

Exit 0 when the port is done (or aborted), 1 when it stopped at a conflict.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from patchkeeper.commands.common import command_line
from patchkeeper.config import Config
from patchkeeper.port.results import PortResult
from patchkeeper.port.session import port_series
from patchkeeper.record import evidence_store


def run(
    config: Config,
    *,
    to: str | None = None,
    source: str | None = None,
    in_place: bool = False,
    retire: bool = False,
    upstream_repo: Path | None = None,
    output: Path | None = None,
    action: str = "port",
    argv: Sequence[str] | None = None,
    save_evidence: bool = False,
) -> PortResult:
    """``port`` (``action="port"``), ``port --continue`` or ``port --abort``; the result of a
    port or a ``--continue`` is kept in the evidence store, with ``argv`` (the command line;
    default: the one that asks for this port).

    Raises: as :func:`patchkeeper.port.session.port_series`.
    """
    result = port_series(
        config,
        to=to,
        source=source,
        in_place=in_place,
        retire=retire,
        upstream_repo=upstream_repo,
        output=output,
        action=action,
    )
    if action == "abort":
        return result
    options = {
        "--to": to,
        "--from": source,
        "--in-place": in_place,
        "--output": output,
        "--retire": retire,
        "--upstream-repo": upstream_repo,
        "--continue": action == "continue",
    }
    evidence_store.keep(
        config, "port", result, command_line(["port"], options, argv), save_evidence
    )
    return result
