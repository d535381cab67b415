"""The results of the audit-record commands: ``decide``, ``record`` and ``report``."""

from __future__ import annotations

from dataclasses import dataclass

from patchkeeper.errors import Finding
from patchkeeper.record import evidence_store as store


@dataclass(frozen=True)
class Added:
    """A table ``decide`` added: kind, key, the decision (``""``: none suggested), the
    evidence verdict it came from, and whether the decision is a suggestion nobody has
    reviewed (written ``"suggested: carry"``; ``report --check`` fails until a person
    accepts or changes it)."""

    kind: str
    key: str
    decision: str
    verdict: str
    suggested: bool = False


@dataclass(frozen=True)
class DecideResult:
    """The decisions file, the tables added, and how many were already there; ``hint``: when
    no evidence was saved at all, how to save it (``""`` otherwise); ``filled``: the tables
    ``decide`` had written before there was evidence, untouched since, that now got the
    evidence's suggestion (counted in ``kept`` too); ``replaced``: the suggestions nobody
    reviewed about patches a port has since taken out of the series, now the port's
    suggestion (retire)."""

    path: str
    added: tuple[Added, ...]
    kept: int
    hint: str = ""
    filled: tuple[Added, ...] = ()
    replaced: tuple[Added, ...] = ()

    @property
    def exit_code(self) -> int:
        return 0


@dataclass(frozen=True)
class RecordResult:
    """The recorded command and the store file."""

    command: store.RecordedCommand
    path: str

    @property
    def exit_code(self) -> int:
        """0 when the command passed, 1 when it failed (a finding, not an input error)."""
        return 0 if self.command.exit_code == 0 else 1


@dataclass(frozen=True)
class RecordCounts:
    """How many rows of each kind the record has and how they are decided.

    ``series`` patches and ``runtime`` entries are the ones the downstream carries now;
    ``retired`` counts the decisions file's tables, decided ``retire`` or ``remove``, of a
    patch or entry no longer carried (an upgrade's port takes an upstreamed patch out of
    the series, its table stays), ``unknown`` its other tables of a key that is not carried.
    The four add up to every row of the record. ``decided`` counts the rows, of any of
    them, with a decision a person wrote or accepted, ``suggested`` those with only
    ``decide``'s suggestion, not reviewed (each one a ``not-reviewed`` finding).
    """

    series: int = 0
    runtime: int = 0
    retired: int = 0
    unknown: int = 0
    decided: int = 0
    suggested: int = 0


@dataclass(frozen=True)
class ReportResult:
    """What ``report`` wrote, or what ``report --check`` found.

    Attributes:
        check: ``True`` for ``--check`` (nothing written).
        audit_file: the Markdown record.
        html_file: the HTML page, when asked for.
        written: the files written (empty for ``--check``).
        counts: how many rows of each kind, decided and suggested.
        findings: what makes the record stale or false.
        missing: ``--check`` found no record at ``audit_file`` (none was written yet).
    """

    check: bool
    audit_file: str
    html_file: str | None
    written: tuple[str, ...]
    counts: RecordCounts
    findings: tuple[Finding, ...]
    missing: bool = False

    @property
    def exit_code(self) -> int:
        return 1 if self.findings else 0
