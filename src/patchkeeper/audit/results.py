"""The result of auditing a series against a new upstream release."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

from patchkeeper.audit.between import BetweenReleases
from patchkeeper.audit.verdicts import (
    BLOCKED,
    CLEAN,
    CONFLICT,
    GOOD,
    OFFSET,
    PARTIALLY_UPSTREAMED,
    TARGET_GONE,
    UNREADABLE,
    UPSTREAMED,
    PatchVerdict,
    plainly_upstream,
)
from patchkeeper.jsonable import ABSENT_WHEN_NONE

#: The order the verdicts are counted in wherever an audit is summed up (``audit``'s closing
#: line, its Markdown report, ``upgrade``'s audit step): the patches that apply first, then
#: those upstream has, then those that need work, so one audit reads the same everywhere.
COUNT_ORDER = (
    CLEAN,
    OFFSET,
    UPSTREAMED,
    PARTIALLY_UPSTREAMED,
    CONFLICT,
    TARGET_GONE,
    BLOCKED,
    UNREADABLE,
)


@dataclass(frozen=True)
class AuditResult:
    """The audit of a series against a new upstream.

    Attributes:
        series: the series file.
        pin: the configured pin (the series' current base), or ``None``.
        target: the new upstream's description.
        target_version: its version, when known.
        verdicts: one per patch, in series order.
        pin_tree: the old pin's tree the evidence was weighed against (lines already there
            at the pin prove nothing), described; ``None`` when it could not be had.
        pin_note: why the old pin's tree could not be had, else ``None``.
        between: the releases between the pin and the audited one, judged for the patches
            that fail at it (:mod:`patchkeeper.audit.between`: the facts, or why they were
            not had); ``None`` when none was asked about (every patch applies or is
            upstream, no ``--between``, or the audited release is no index release), and
            then absent from the JSON form.
    """

    series: str
    pin: str | None
    target: str
    target_version: str | None
    verdicts: tuple[PatchVerdict, ...]
    pin_tree: str | None = None
    pin_note: str | None = None
    between: BetweenReleases | None = field(default=None, metadata=ABSENT_WHEN_NONE)

    @property
    def counts(self) -> dict[str, int]:
        """How many patches got each verdict."""
        return dict(Counter(v.verdict for v in self.verdicts))

    @property
    def counts_line(self) -> str:
        """The counts in :data:`COUNT_ORDER`: ``1 clean, 2 offset, 1 conflict``; empty for
        an empty series."""
        counts = self.counts
        return ", ".join(f"{counts[v]} {v}" for v in COUNT_ORDER if v in counts)

    @cached_property
    def _upstreamed(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """:attr:`to_retire` and :attr:`to_review`, each *upstreamed* verdict's action
        (:func:`~patchkeeper.audit.verdicts.plainly_upstream`) read once for both."""
        retire: list[str] = []
        review: list[str] = []
        for verdict in self.verdicts:
            if verdict.verdict == UPSTREAMED:
                (retire if plainly_upstream(verdict) else review).append(verdict.name)
        return tuple(retire), tuple(review)

    @property
    def to_retire(self) -> tuple[str, ...]:
        """The patches the new upstream already carries, with nothing of the evidence asking
        for a review first (:func:`~patchkeeper.audit.verdicts.plainly_upstream`)."""
        return self._upstreamed[0]

    @property
    def to_review(self) -> tuple[str, ...]:
        """The *upstreamed* patches whose action asks a person first (*look*, or a retire
        after reviewing the lines not found): retired only once someone has looked."""
        return self._upstreamed[1]

    @property
    def exit_code(self) -> int:
        """2 when a patch file cannot be read (the others are judged all the same), else
        1 when a patch needs work, else 0."""
        if any(v.verdict == UNREADABLE for v in self.verdicts):
            return 2
        return 0 if all(v.verdict in GOOD for v in self.verdicts) else 1
