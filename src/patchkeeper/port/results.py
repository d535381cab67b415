"""The result of ``port``, ``port --continue`` and ``port --abort``."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from patchkeeper.port.finish import STOPPED, PortOutcome
from patchkeeper.port.rebase import PortedPatch

ABORTED = PortOutcome.ABORTED
#: How :attr:`PortResult.counts` counts a patch judged after the port stopped.
PENDING = "pending"


@dataclass(frozen=True)
class PortResult:
    """The outcome of ``port``, ``port --continue`` or ``port --abort``.

    Attributes:
        action: ``"port"``, ``"continue"`` or ``"abort"``.
        outcome: :data:`DONE`, :data:`STOPPED` or :data:`ABORTED`.
        series: the series file.
        source, target: the old and new pin's trees, described.
        source_version, target_version: their versions.
        patches: every patch of the series, in order, with its verdict and evidence.
        stopped_at: the patch whose conflict waits in the work directory.
        work_dir: the work directory (while a port is in progress).
        output: the new series directory, or the series directory rewritten in place.
        in_place: the series was rewritten where it is.
        retired: patches recorded in the ledger's Retired section (``--retire``).
        history: the upstream checkout and tags used as evidence, ``None`` without one.
        todo: what is left to do, in order.
        by_hand: the items of ``todo`` that are edits to the downstream's own files the
            port leaves to a person (an RPM spec's ``Version:`` written with a macro, a
            ``Patch`` tag written out or still naming a retired patch).
    """

    action: str
    outcome: str
    series: str
    source: str = ""
    target: str = ""
    source_version: str | None = None
    target_version: str | None = None
    patches: tuple[PortedPatch, ...] = ()
    stopped_at: str | None = None
    work_dir: str | None = None
    output: str | None = None
    in_place: bool = False
    retired: tuple[str, ...] = ()
    history: str | None = None
    todo: tuple[str, ...] = ()
    by_hand: tuple[str, ...] = ()

    @property
    def counts(self) -> dict[str, int]:
        """How many patches got each verdict (pending ones counted as ``pending``)."""
        return dict(Counter(PENDING if p.pending else p.verdict for p in self.patches))

    @property
    def exit_code(self) -> int:
        return 1 if self.outcome == STOPPED else 0
