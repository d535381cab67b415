"""Decisions against evidence: one row per item, its flags, and the record's findings.

The record (docs/audit-record.md) flags "where the decision contradicts the evidence (a
``retain`` whose target is gone, a ``carry`` of an upstreamed patch)", and ``report --check``
fails on "an inventory entry or patch without a decision; a ``remove``/``retire`` decision
whose patch or target still exists in the code; a ``retain`` without a removal condition; ...
the decisions disagreeing with the patch headers (a patch whose ``Retires-when`` condition the
evidence shows met)". The rules are listed in :func:`contradictions` and
:func:`condition_met`; each finding's code names its rule (:data:`FINDING_KINDS`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from patchkeeper.audit.verdicts import CARRY, PARTIALLY_UPSTREAMED, UPSTREAMED
from patchkeeper.errors import Finding
from patchkeeper.port.rebase import DROPPED
from patchkeeper.record.decisions import (
    DROPS,
    KEEPS,
    MIGRATE,
    REMOVE,
    RETAIN,
    RETIRE,
    RUNTIME,
    SERIES,
    UPDATE,
    Decision,
    Decisions,
)
from patchkeeper.record.patch_evidence import NOT_APPLYING, Item, Removal

NO_DECISION = "no-decision"
DROPPED_BUT_PRESENT = "dropped-but-present"
KEPT_WITHOUT_CONDITION = "kept-without-condition"
KEPT_BUT_GONE = "kept-but-gone"
CONTRADICTION = "contradiction"
CONDITION_MET = "condition-met"
UNKNOWN_KEY = "unknown-key"
STALE_EVIDENCE = "stale-evidence"
ENVIRONMENT_CHANGED = "environment-changed"
RECORD_NOT_CURRENT = "record-not-current"
NOT_REVIEWED = "not-reviewed"
FINDING_KINDS = (
    NOT_REVIEWED,
    NO_DECISION,
    DROPPED_BUT_PRESENT,
    KEPT_WITHOUT_CONDITION,
    KEPT_BUT_GONE,
    CONTRADICTION,
    CONDITION_MET,
    UNKNOWN_KEY,
    STALE_EVIDENCE,
    ENVIRONMENT_CHANGED,
    RECORD_NOT_CURRENT,
)
#: A removal condition that waits for upstream: ``upstreamed``, ``upstream PR``,
#: ``the pin that carries #50021``, ``vllm #59888``.
UPSTREAM_CONDITION = re.compile(r"(?i)upstream|#\d+|pin that carries|\bmerge[sd]?\b")
#: Why a runtime *remove* is suggested (:attr:`Item.removal`), as a contradiction says it.
REMOVAL_WORDS: dict[str, str] = {
    Removal.NEVER_IMPORTED: "the entry is never imported: nothing reaches it",
    Removal.DEAD_GATE: "its version gate is false at the new release: dead code there",
    Removal.TARGET_GONE: "its target is gone from the new upstream",
    Removal.UPSTREAM: "the new upstream already has the change",
}
#: ``rides with spec-decode-attn``: retires with another patch.
RIDES_WITH = re.compile(r"(?i)^rides with (?P<name>[\w./+-]+)")
#: DEP-3 ``Applied-Upstream: 1.26.18, https://...``: the first upstream version with it.
APPLIED_VERSION = re.compile(r"^v?(?P<version>\d+(?:\.\d+)+)")
KEEPS_CHANGE = KEEPS | {UPDATE, MIGRATE}
#: What a person does with a suggested decision (a ``not-reviewed`` finding says it).
#: What to do about a kept patch or entry without a removal condition.
WRITE_CONDITION = (
    'write in its removal-condition when it can go (e.g. "upstreamed" or "the pin that '
    'carries #123")'
)
ACCEPT_OR_CHANGE = 'delete "suggested: " from its decision to accept it, or write your own'
#: What to do about each record finding: every finding says it (the hint of its
#: :class:`Finding`). A ``{what}`` is the item's kind (patch, entry), ``{key}`` its key.
NO_DECISION_HINT = (
    "run patchkeeper decide to suggest one from the evidence, or write its decision in "
    "the decisions file"
)
#: The same for an item no saved evidence judges: ``decide`` suggests from the verdicts of
#: the saved ``audit``/``port`` (a series patch) or ``runtime audit`` (a runtime entry), so
#: the command that saves one comes first.
NO_EVIDENCE_HINTS = {
    SERIES: "no saved audit judges it: run patchkeeper audit --to NEW --save-evidence (NEW: "
    "the release to move to), then patchkeeper decide to suggest one from its verdict; or "
    "write its decision in the decisions file",
    RUNTIME: "no saved runtime audit judges it: run patchkeeper runtime audit --to NEW "
    "--save-evidence (NEW: the release to move to), then patchkeeper decide to suggest one "
    "from its verdict; or write its decision in the decisions file",
}
#: The same for an item whose verdict suggests no decision (``decide`` leaves it to a person).
NO_SUGGESTION_HINT = (
    "the {source} verdict ({verdict}) suggests no decision: write its decision in the "
    "decisions file"
)


def no_decision_hint(item: Item) -> str:
    """What to do about ``item``, present and without a decision: save the evidence
    ``decide`` suggests from when none judges it, write the decision when its verdict
    suggests none, else run ``decide``.

    >>> no_decision_hint(Item(SERIES, "a.patch", "patches/a.patch"))[:60]
    'no saved audit judges it: run patchkeeper audit --to NEW --s'
    >>> no_decision_hint(Item(SERIES, "a.patch", "", verdict="unreadable", source="audit"))[:60]
    'the audit verdict (unreadable) suggests no decision: write i'
    """
    if not item.verdict:
        return NO_EVIDENCE_HINTS.get(item.kind, NO_EVIDENCE_HINTS[RUNTIME])
    if not item.suggested:
        return NO_SUGGESTION_HINT.format(source=item.source, verdict=item.verdict)
    return NO_DECISION_HINT


DROPPED_HINTS = {
    SERIES: "run patchkeeper retire {key} --at VERSION --why TEXT, or decide to keep it",
    RUNTIME: "take the entry out of the plugin's code, or decide to keep it",
}
#: A series patch decided retire while the configuration records the pin: ``retire`` takes
#: the pin as the release the patch retired at, so no ``--at`` is asked for.
RETIRE_AT_PIN_HINT = (
    "run patchkeeper retire {key} --why TEXT (it records the pin, {pin}, from {where}, as "
    "the release the patch retired at), or decide to keep it"
)
#: The same when the evidence judged the series against a release the pin has not moved to
#: yet (an audit before the port): that release carries the patch, not the pin.
RETIRE_AT_JUDGED_HINT = (
    "run patchkeeper retire {key} --at {at} --why TEXT ({at}: the release the evidence "
    "judged the series against; the pin in {where} is {pin}), or decide to keep it"
)
#: The same without a pin recorded: ``--at`` is asked for, and where the pin goes is named.
RETIRE_WITHOUT_PIN_HINT = (
    "run patchkeeper retire {key} --at VERSION --why TEXT, VERSION the upstream release that "
    'carries it (no pin is recorded: set pin = "VERSION" in {where} and retire takes it), '
    "or decide to keep it"
)


@dataclass(frozen=True)
class Pin:
    """What the project records of the release a retired patch retires at: the configured
    pin (``version``, ``None`` when it sets none), where it is written in words
    (``patchkeeper.toml``, ``[tool.patchkeeper] in pyproject.toml``), and ``judged``, the
    release the audit or port evidence judged the series against (``None`` without it)."""

    version: str | None = None
    where: str = "patchkeeper.toml"
    judged: str | None = None


def dropped_hint(kind: str, key: str, pin: Pin) -> str:
    """What to do about a patch or entry decided (or suggested) to go that is still there:
    for a series patch, ``retire`` at the recorded pin (no ``--at``: ``retire`` takes it),
    at the release the evidence judged when the pin is not there yet, or, with neither
    recorded, with ``--at`` asked for and the file the pin goes in named.

    >>> dropped_hint(SERIES, "a.patch", Pin("1.1", judged="1.1"))[:60]
    'run patchkeeper retire a.patch --why TEXT (it records the pi'
    """
    if kind != SERIES:
        return DROPPED_HINTS[RUNTIME]
    if pin.version and pin.judged in (None, pin.version):
        return RETIRE_AT_PIN_HINT.format(key=key, pin=pin.version, where=pin.where)
    if pin.judged:
        return RETIRE_AT_JUDGED_HINT.format(
            key=key, at=pin.judged, pin=pin.version or "not set", where=pin.where
        )
    return RETIRE_WITHOUT_PIN_HINT.format(key=key, where=pin.where)


GONE_HINTS = {
    SERIES: "decide retire if it was taken out on purpose, or put it back in the series",
    RUNTIME: "decide remove if it was taken out on purpose, or correct the key to where it is now",
}
CONTRADICTION_HINT = "change the decision, or say in its reason why the evidence does not hold"
CONDITION_MET_HINT = (
    "decide retire (a runtime entry: remove) and take it out, or correct the condition"
)
#: A kept table whose key the series or the inventory does not name: a patch taken out with
#: ``retire`` (or by a port) keeps its table, whose decision should say so.
UNKNOWN_KEY_HINTS = {
    SERIES: "decide retire if it was taken out on purpose ('patchkeeper retire', a port); else "
    "delete its table from the decisions file, or correct the key to the name the series gives",
    RUNTIME: "delete its table from the decisions file, or correct the key to the name the "
    "runtime inventory gives",
}
STALE_EVIDENCE_HINT = "run patchkeeper {command} again with --save-evidence"
#: The interpreter measured now differs from the recorded one.
ENVIRONMENT_CHANGED_HINT = (
    "pass report --python the audited interpreter, or run the evidence commands again in "
    "this environment and then patchkeeper report"
)
#: A tree the record read (the downstream, an upstream tree or checkout) changed: another
#: interpreter (``--python``) would not change it back.
SOURCE_CHANGED_HINT = (
    "a tree the record read changed since it was written (an edit, a retire, a port): run "
    "the evidence commands again on it and then patchkeeper report"
)
#: ``runtime check`` ran in another interpreter (or imported other files) than the record's.
CHECKED_ELSEWHERE_HINT = (
    "run patchkeeper runtime check --python PYTHON, PYTHON being the interpreter the record"
    " measures"
)


@dataclass(frozen=True)
class Row:
    """One row of the record: an item (``None`` for a decision about nothing known), its
    decision (``None`` when there is no table), and the flags on it."""

    kind: str
    key: str
    item: Item | None
    decision: Decision | None
    flags: tuple[str, ...] = ()

    @property
    def decided(self) -> str:
        """The decision (a suggestion too: it is judged like one), ``""`` when none."""
        return self.decision.decision if self.decision is not None else ""

    @property
    def suggested(self) -> bool:
        """Whether the decision is ``decide``'s suggestion, not reviewed by a person."""
        return self.decision is not None and self.decision.suggested


@dataclass(frozen=True)
class RowFinding:
    """Why the record is stale or false about one row's item: the finding (its ``code`` one
    of :data:`FINDING_KINDS`, its message naming the item's key; its ``path`` and 1-based
    ``line`` the item's table in the decisions file, ``""`` and ``None`` when it has none),
    and ``in_row``, the same finding worded for the record's table, in the row that already
    names the patch or entry (``"it has no decision"``).
    """

    finding: Finding
    in_row: str


def _about(code: str, row: Row, subject: str, predicate: str, hint: str) -> RowFinding:
    """A finding about ``row``'s item: "``subject`` ``predicate``" and what to do, ``hint``;
    in its row "it ``predicate``"."""
    return RowFinding(Finding(code, "", None, f"{subject} {predicate}", hint), f"it {predicate}")


def _decided(row: Row) -> str:
    """How a finding says ``row``'s decision: "is decided retire", or "is suggested retire"
    for ``decide``'s suggestion nobody has reviewed (a person has decided nothing yet)."""
    return f"is {'suggested' if row.suggested else 'decided'} {row.decided}"


def contradictions(item: Item, decided: str) -> list[str]:
    """Where ``decided`` contradicts ``item``'s evidence, one sentence each."""
    out: list[str] = []
    source, verdict = item.source, item.verdict
    if item.kind == SERIES and verdict:
        if decided in KEEPS and verdict == UPSTREAMED:
            out.append(f"{decided} of an upstreamed patch ({source}: upstreamed)")
        elif decided in KEEPS and verdict in NOT_APPLYING and item.action != CARRY:
            # a conflict whose hunks land unchanged is carried, refreshed (audit: carry)
            out.append(f"{decided}, but the patch does not apply as it is ({source}: {verdict})")
        elif decided == RETIRE and verdict not in (UPSTREAMED, PARTIALLY_UPSTREAMED, DROPPED):
            out.append(f"retire, but {source} does not find it upstream ({verdict})")
        elif decided == UPDATE and verdict == UPSTREAMED:
            out.append(f"update of an upstreamed patch ({source}: upstreamed)")
    if item.kind == RUNTIME:
        # an update of a gone target is a retarget when the audit itself says update
        gone = item.target_gone and (decided == RETAIN or verdict != UPDATE)
        if decided in (RETAIN, UPDATE) and gone:
            out.append(f"{decided} whose target is gone ({source}: {verdict or 'gone'})")
        elif decided == RETAIN and verdict == REMOVE:
            why = REMOVAL_WORDS.get(item.removal, REMOVAL_WORDS[Removal.UPSTREAM])
            out.append(f"retain, but {why} ({source}: remove)")
        elif decided == RETAIN and verdict == UPDATE:
            out.append(f"retain, but upstream changed the target ({source}: update)")
        if decided in KEEPS_CHANGE and item.live and item.live not in ("replaced", "registered"):
            out.append(f"{decided}, but runtime check finds it {item.live}")
    return out


def condition_met(item: Item, decisions: Decisions, target_version: str | None) -> str:
    """Why ``item``'s header removal condition is met by the evidence, or ``""``.

    Met when: the condition waits for upstream (:data:`UPSTREAM_CONDITION`) and the evidence
    finds the change upstream (*upstreamed*; a runtime *remove*); it rides with a patch
    decided ``retire``/``remove``; DEP-3 ``Applied-Upstream`` names a version at or below
    the audited one.
    """
    condition = item.condition.strip()
    if not condition:
        return ""
    label = f"{item.condition_field} '{condition}'"
    upstream = (item.kind == SERIES and item.verdict in (UPSTREAMED, DROPPED)) or (
        item.kind == RUNTIME and item.verdict == REMOVE and item.removal == Removal.UPSTREAM
    )
    if upstream and UPSTREAM_CONDITION.search(condition):
        return f"{label} is met: {item.source} finds the change upstream"
    for carried in item.carried:
        number = re.search(r"#\d+", carried)
        if number and re.search(rf"{number.group(0)}\b", condition):
            return f"{label} is met: port finds {carried}"
    rides = RIDES_WITH.match(condition)
    if rides:
        name = rides.group("name").rstrip(".,;")
        for key in (name, f"{name}.patch"):
            other = decisions.get(item.kind, key)
            if other is not None and other.decision in DROPS:
                verb = "suggested" if other.suggested else "decided"
                return f"{label} is met: {key} is {verb} {other.decision}"
    applied = APPLIED_VERSION.match(condition)
    if item.condition_field == "Applied-Upstream" and applied and target_version:
        from packaging.version import InvalidVersion, Version

        try:
            if Version(target_version) >= Version(applied.group("version")):
                return f"{label} is met: the audited upstream is {target_version}"
        except InvalidVersion:
            return ""
    return ""


def build_rows(
    items: list[Item], decisions: Decisions, target_version: str | None = None
) -> list[Row]:
    """One row per item, in item order, then one per decision about an unknown key."""
    rows = []
    known = set()
    for item in items:
        known.add((item.kind, item.key))
        decision = decisions.get(item.kind, item.key)
        decided = decision.decision if decision else ""
        flags = contradictions(item, decided) if decided else []
        met = condition_met(item, decisions, target_version) if decided in KEEPS_CHANGE else ""
        if met:
            verb = "suggested" if decision is not None and decision.suggested else "decided"
            flags.append(met + f"; {verb} {decided}")
        rows.append(Row(item.kind, item.key, item, decision, tuple(flags)))
    for (kind, key), decision in decisions.tables.items():
        if (kind, key) not in known:
            rows.append(Row(kind, key, None, decision))
    return rows


def row_findings(
    row: Row, path: Path | None = None, shown: str = "", pin: Pin | None = None
) -> list[RowFinding]:
    """The findings of one row (see the module docstring); ``path`` is the decisions file
    and ``shown`` how the record names it (a path relative to the downstream): each finding
    about a row with a table there has ``shown`` (else ``path``) and the table's line as its
    place. ``pin``: the configured pin, which the advice to retire a patch uses.

    A decision ``decide`` suggested and nobody reviewed (``"suggested: carry"``) is a
    finding of its own, naming the file, the line and the item: the record is not true
    while a suggestion stands for a decision. The other rules judge the suggested decision
    as they would a person's, so that accepting it as it is shows what else is left.
    """
    item, decided = row.item, row.decided
    what = "patch" if row.kind == SERIES else "entry"
    out = []
    if row.suggested and row.decision is not None:
        place = f"{shown or (path.name if path else 'the decisions file')}:{row.decision.line}"
        message = f'{place}: `{row.key}`: decide suggested "{decided}" and nobody has reviewed it'
        out.append(
            RowFinding(
                Finding(NOT_REVIEWED, "", None, message, ACCEPT_OR_CHANGE),
                f"it is decide's suggestion, not reviewed: {ACCEPT_OR_CHANGE}",
            )
        )
    if item is not None and item.present and not decided:
        out.append(
            _about(
                NO_DECISION,
                row,
                f"the {what} `{row.key}`",
                "has no decision",
                no_decision_hint(item),
            )
        )
    if item is not None and item.present and decided in DROPS:
        place = "the series" if row.kind == SERIES else f"the code (`{item.where}`)"
        out.append(
            _about(
                DROPPED_BUT_PRESENT,
                row,
                f"`{row.key}`",
                f"{_decided(row)}, but it is still in {place}",
                dropped_hint(row.kind, row.key, pin or Pin()),
            )
        )
    if item is not None and not item.present and decided in KEEPS_CHANGE:
        place = "the series" if row.kind == SERIES else "the code"
        out.append(
            _about(
                KEPT_BUT_GONE,
                row,
                f"`{row.key}`",
                f"{_decided(row)}, but it is no longer in {place}",
                GONE_HINTS.get(row.kind, GONE_HINTS[RUNTIME]),
            )
        )
    if decided in KEEPS and row.decision is not None and not row.decision.removal_condition.strip():
        # named by its table and with what to do, as decide writes the key empty and a
        # person meets this finding on every kept patch the first time
        place = f"{shown or (path.name if path else 'the decisions file')}:{row.decision.line}"
        predicate = f"{_decided(row)} without a removal condition"
        message = f"{place}: `{row.key}` {predicate}"
        out.append(
            RowFinding(
                Finding(KEPT_WITHOUT_CONDITION, "", None, message, WRITE_CONDITION),
                f"it {predicate}",
            )
        )
    for flag in row.flags:
        met = " is met: " in flag
        code, hint = (
            (CONDITION_MET, CONDITION_MET_HINT) if met else (CONTRADICTION, CONTRADICTION_HINT)
        )
        out.append(RowFinding(Finding(code, "", None, f"`{row.key}`: {flag}", hint), flag))
    if item is None and decided and decided not in DROPS:
        place = "the series" if row.kind == SERIES else "the runtime inventory"
        out.append(
            _about(
                UNKNOWN_KEY,
                row,
                f"`{row.key}`",
                f"{_decided(row)}, but it is not in {place}",
                UNKNOWN_KEY_HINTS.get(row.kind, UNKNOWN_KEY_HINTS[RUNTIME]),
            )
        )
    if path is not None and row.decision is not None and row.decision.line:
        place = shown or str(path)
        line = row.decision.line
        out = [replace(f, finding=replace(f.finding, path=place, line=line)) for f in out]
    return out


def record_findings(
    rows: list[Row],
    evidence_commands: set[str],
    path: Path | None = None,
    shown: str = "",
    pin: Pin | None = None,
) -> list[Finding]:
    """Every row's findings (``path``, ``shown`` and ``pin``: see :func:`row_findings`),
    then stale evidence: a series patch the ``audit``/``port`` evidence has no verdict for
    while that evidence exists."""
    out = [found.finding for row in rows for found in row_findings(row, path, shown, pin)]
    series_evidence = evidence_commands & {"audit", "port"}
    if series_evidence:
        for row in rows:
            if row.kind == SERIES and row.item is not None and not row.item.verdict:
                evidence = "/".join(sorted(series_evidence))
                message = f"`{row.key}` is not in the {evidence} evidence"
                command = " (or ".join(sorted(series_evidence)) + ")" * (len(series_evidence) - 1)
                hint = STALE_EVIDENCE_HINT.format(command=command)
                out.append(Finding(STALE_EVIDENCE, "", None, message, hint))
    return out
