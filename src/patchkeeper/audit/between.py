"""The releases between the old pin and the audited one, for the patches that fail there.

``audit --to NAME==NEW`` judges the series at one release. A patch upstream took in a
release between the pin and ``NEW`` and then changed further does not reverse-apply at
``NEW``: judged there alone it is a *conflict* (to do: port), though a maintainer retires it.
Debian's xmltodict series cut against 0.13.0 holds such a patch: upstream took it in 0.15.0
and rewrote the lines around it before 1.0.4.

So, when some patch fails at ``NEW`` (*conflict*, *partially upstreamed*, *target gone*,
*blocked*: to do *port* or *look*; never one already carried or retired) and the pin and
``NEW`` are releases of the configured upstream on the package indexes, the releases between
them are fetched into the cache (as ``audit --to RANGE`` fetches them) and the series is
judged at each, against the same old pin's tree. What they show is kept apart as facts
(:class:`BetweenReleases`: every failing patch's verdict and rule at each release); the
decision (:func:`decide`) reads them:

- a release between has the patch by a strong rule (it reverse-applies, or every hunk's
  post-image is there at its place: :data:`STRONG_RULES`, with nothing asking a person
  first) and no later release applies it again: *upstreamed* at that release, changed
  since, to do *retire*, that release as its evidence (:attr:`PatchVerdict.taken_at`);
- such a release, but a later one applies the patch again (as if upstream had reverted
  it): the evidence is mixed, to do *look*, with the reason;
- otherwise the verdict at ``NEW`` stands. A weaker match at a release between (upstream
  wrote it differently, most of it there) changes nothing: a wrong retire drops a fix.

A pin far behind has many releases between (Django 2.2.28 to 5.2.17: 158), each fetched
and judged (about 2 s of CPU a release for Debian's Django series). When there are more than
:data:`MAX_BETWEEN`, :func:`chosen` judges the last release of each release series (the
same major and minor version: a maintenance branch takes fixes and keeps them, so its last
release holds every fix it took), evenly thinned to :data:`MAX_BETWEEN` with the oldest and
the newest kept. No bisection can stand in: a release where the patch conflicts does not
say whether upstream has not taken it yet or has taken it and rewritten it since, so the
window where it is upstream can only be sampled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from patchkeeper.audit.rules import Rule
from patchkeeper.audit.verdicts import (
    BLOCKED,
    CLEAN,
    CONFLICT,
    LOOK,
    OFFSET,
    PARTIALLY_UPSTREAMED,
    PORT,
    RETIRE,
    TARGET_GONE,
    UPSTREAMED,
    PatchVerdict,
    evidence_of,
    with_action,
)
from patchkeeper.config import Config
from patchkeeper.jsonable import FILE_NAME

if TYPE_CHECKING:
    from packaging.requirements import Requirement


#: The verdicts at the audited release that the releases between are asked about.
FAILING = frozenset({CONFLICT, PARTIALLY_UPSTREAMED, TARGET_GONE, BLOCKED})

#: The rules whose *upstreamed* at a release between counts: the patch reverse-applies there,
#: or every hunk's post-image is there at its place. Upstream writing it differently, or
#: most of it, does not.
STRONG_RULES = frozenset({Rule.REVERSE_APPLIES.value, Rule.HUNKS_PRESENT.value})

#: At most this many releases between are fetched and judged (:func:`chosen`).
MAX_BETWEEN = 12

#: Where the releases between come from (as :attr:`BetweenReleases.source` says it).
FROM_INDEXES = "the package indexes"


@dataclass(frozen=True)
class BetweenRow:
    """One failing patch's verdicts at the releases between (facts, no decision).

    Attributes:
        name: the series name.
        verdicts: its verdict at each release of :attr:`BetweenReleases.versions`.
        rules: the rule that decided each.
        actions: what each said to do.
    """

    name: str = field(metadata=FILE_NAME)
    verdicts: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    actions: tuple[str, ...] = ()

    def strong(self, index: int) -> bool:
        """Whether the release at ``index`` has the patch by a strong rule
        (:data:`STRONG_RULES`) with nothing asking a person first (to do: *retire*)."""
        return (
            self.verdicts[index] == UPSTREAMED
            and self.rules[index] in STRONG_RULES
            and self.actions[index] == RETIRE
        )


@dataclass(frozen=True)
class BetweenReleases:
    """The releases between the old pin and the audited one, judged for the patches that
    fail at the audited one.

    Attributes:
        source: where the releases came from (:data:`FROM_INDEXES`).
        versions: the releases judged, oldest first (empty when there is none between).
        rows: one per failing patch, in series order.
        note: why the releases between were not judged (the index cannot be asked, a
            release cannot be fetched, the old pin's tree cannot be had), else ``None``.
        left_out: how many releases between were neither fetched nor judged
            (:func:`chosen`: more than :data:`MAX_BETWEEN`).
    """

    source: str
    versions: tuple[str, ...] = ()
    rows: tuple[BetweenRow, ...] = ()
    note: str | None = None
    left_out: int = 0


def failing(verdict: PatchVerdict) -> bool:
    """Whether the releases between are asked about ``verdict``: it fails at the audited
    release (:data:`FAILING`) and says to port it or look at it, not to carry it (a
    refresh) or retire it."""
    return verdict.verdict in FAILING and verdict.action in (PORT, LOOK)


def between_range(config: Config, to: str, version: str | None) -> Requirement | None:
    """The range of releases strictly between the configured pin and ``version`` (the
    audited release, asked for as the requirement ``to``), ``NAME>PIN,<VERSION``; ``None``
    when ``to`` is no requirement of the configured upstream (the caller asks only for a
    release fetched as a requirement), there is no pin, or the versions cannot be read or
    are not in order."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version

    if config.upstream is None or config.pin is None or version is None:
        return None
    try:
        asked = Requirement(to.strip())
        low, high = Version(config.pin), Version(version)
    except (InvalidRequirement, InvalidVersion):
        return None
    if asked.url is not None or canonicalize_name(asked.name) != canonicalize_name(config.upstream):
        return None
    if not low < high:
        return None
    return Requirement(f"{canonicalize_name(config.upstream)}>{low},<{high}")


def chosen(versions: Sequence[str], most: int = MAX_BETWEEN) -> list[str]:
    """The releases between to judge, of ``versions`` (oldest first): all of them when they
    are ``most`` or fewer; else the last release of each release series (same major and
    minor version), and, when those are still more than ``most``, ``most`` of them evenly
    spaced, the oldest and the newest kept. A version PEP 440 cannot read is a series of
    its own.

    >>> chosen(["1.1", "1.1.1", "1.2"], 3)
    ['1.1', '1.1.1', '1.2']
    >>> chosen(["1.1", "1.1.1", "1.2", "1.2.1", "2.0"], 3)
    ['1.1.1', '1.2.1', '2.0']
    >>> chosen(["1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7"], 3)
    ['1.1', '1.4', '1.7']
    """
    if len(versions) <= most:
        return list(versions)
    from packaging.version import InvalidVersion, Version

    lasts: dict[object, str] = {}
    for text in versions:
        try:
            key: object = Version(text).release[:2]
        except InvalidVersion:
            key = text
        lasts.pop(key, None)  # re-inserted: the dict keeps the series in release order
        lasts[key] = text
    series = list(lasts.values())
    if len(series) <= most:
        return series
    if most <= 1:
        return series[-1:]
    picks = sorted({round(i * (len(series) - 1) / (most - 1)) for i in range(most)})
    return [series[i] for i in picks]


def facts(
    failing_names: Sequence[str],
    versions: Sequence[str],
    judged: Sequence[Sequence[PatchVerdict]],
    left_out: int = 0,
) -> BetweenReleases:
    """The facts: each of ``failing_names``' verdict, rule and action at each release of
    ``versions`` (``judged``: the series' verdicts there, in the same order); ``left_out``
    releases between were not judged (:func:`chosen`)."""
    rows = []
    for name in failing_names:
        at = [next(v for v in verdicts if v.name == name) for verdicts in judged]
        rows.append(
            BetweenRow(
                name,
                tuple(str(v.verdict) for v in at),
                tuple(str(v.rule) for v in at),
                tuple(v.action for v in at),
            )
        )
    return BetweenReleases(FROM_INDEXES, tuple(versions), tuple(rows), left_out=left_out)


def taken(row: BetweenRow, versions: Sequence[str]) -> tuple[str | None, str | None]:
    """``(taken, again)``: the release that had the patch by a strong rule
    (:meth:`BetweenRow.strong`; the first of the last run of such releases) and the first
    later release that applies it again (*clean* or *offset*), else ``None`` for each."""
    had: str | None = None
    again: str | None = None
    for index, version in enumerate(versions):
        if row.strong(index):
            if had is None or again is not None:
                had, again = version, None
        elif row.verdicts[index] in (CLEAN, OFFSET) and had is not None and again is None:
            again = version
    return had, again


def decide(
    verdicts: Sequence[PatchVerdict], between: BetweenReleases, version: str
) -> tuple[PatchVerdict, ...]:
    """``verdicts`` (at the release ``version``) with each failing patch that a release
    between had by a strong rule made *upstreamed* at that release (to do: *retire*), or,
    when a later release applies it again, left to a person (*look*); the rest as they
    are."""
    rows = {row.name: row for row in between.rows}
    out = []
    for verdict in verdicts:
        row = rows.get(verdict.name)
        if row is None or not failing(verdict):
            out.append(verdict)
            continue
        had, again = taken(row, between.versions)
        if had is None:
            out.append(verdict)
            continue
        rule = row.rules[between.versions.index(had)]
        at_new = evidence_of(verdict)
        if again is None:
            summary = (
                f"upstreamed at {had}, changed since: {had} has it ({rule}); at {version}: {at_new}"
            )
            decided = replace(
                verdict,
                verdict=UPSTREAMED,
                summary=summary,
                action="",
                rule=Rule.TAKEN_EARLIER,
                taken_at=had,
            )
        else:
            summary = (
                f"{at_new}; {had} had it ({rule}), yet {again} applies it again, as if "
                "upstream had reverted it"
            )
            decided = replace(verdict, summary=summary, action="", taken_at=had)
        out.append(with_action(decided))
    return tuple(out)


def not_judged(why: str) -> BetweenReleases:
    """The releases between, not judged, and why."""
    return BetweenReleases(FROM_INDEXES, note=why)
