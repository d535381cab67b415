"""``decide``: start the decisions file from the evidence, never overwriting a decision.

For every series patch and runtime entry that has no table in the decisions file yet,
``decide`` appends one with the decision the last ``audit``/``port``/``runtime audit``
evidence suggests (:mod:`patchkeeper.record.patch_evidence`), the evidence as the reason, and
the header's removal condition (``Retires-when``, DEP-3 ``Applied-Upstream``, a runtime
file's ``Remove at``) when the suggestion keeps the change. A suggested decision is written
``decision = "suggested: carry"``: nobody has reviewed it, and ``report --check`` fails on it
until a person deletes the prefix (accepts it) or writes another decision. A table that
exists is left byte for byte as it is: the file is merged by key. The one exception is a
table ``decide`` itself wrote before there was any evidence and nobody touched since (byte
for byte the empty table with its "no evidence yet" comment): it gets the suggestion once
evidence makes one, or a ``decide`` run too early would keep every suggestion out for good.
A suggestion nobody reviewed about a patch a port has since taken out of the series (its
verdict upstreamed or dropped) is replaced by the port's suggestion, *retire*: the patch is
gone, and the suggestion made before the port would stand for a decision about nothing.
So is a suggestion nobody reviewed to *update* a patch the port has since carried onto the
new pin (merged, resolved by a person, or applied once its blocker was carried): by the
port's evidence, *carry*; the update it asked for is done.
Where the evidence suggests nothing (*look*), the decision is left empty
for a person, and ``report --check`` fails until one is written.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from patchkeeper.config import Config, spelt_for
from patchkeeper.constants import DecisionWord as Word
from patchkeeper.errors import PatchkeeperError
from patchkeeper.record import evidence_store as store
from patchkeeper.record.decisions import (
    DROPS,
    KEEPS,
    SERIES,
    Decision,
    Decisions,
    append_tables,
    load,
    read_utf8,
    render_table,
    replace_block,
)
from patchkeeper.record.patch_evidence import SERIES_SUGGESTIONS, Item, all_items
from patchkeeper.record.patch_evidence import suggestion as evidence_suggestion
from patchkeeper.record.results import Added, DecideResult
from patchkeeper.record.settings import report_settings
from patchkeeper.record.stored_results import port_result

#: The comment of a table written before there was evidence (``pyproject.toml``'s spelling).
NO_EVIDENCE = (
    "no evidence yet: run audit, port or runtime audit with --save-evidence (or set "
    "evidence = true in [tool.patchkeeper.report]), or decide by hand"
)
#: How a person accepts a suggested decision (the comment above a suggested table's fields).
ACCEPT = 'to accept it, delete "suggested: " from the decision'
#: What a suggestion to keep (carry, retain) with no removal condition also needs.
WRITE_CONDITION = "and write in removal-condition when it can go (report --check asks for it)"


def suggestion(item: Item, source: Path | None = None) -> tuple[Decision, tuple[str, ...]]:
    """The table ``decide`` writes for ``item``, and the comment lines above its fields
    (configuration tables named as ``source``, the configuration file in use, spells them:
    :func:`patchkeeper.config.spelt_for`)."""
    said = item.verdict
    if item.review and item.suggested:
        # upstream has it, yet the audit asks for a review before acting: the suggestion
        # says so, and so does every list that quotes it (upgrade's, report's)
        said = f"{item.verdict}, to do: {item.action} {item.review}"
    elif item.action and item.suggested != SERIES_SUGGESTIONS.get(item.verdict, ""):
        # the action, not the verdict, made the suggestion (a conflict to refresh: carry)
        said = f"{item.verdict}, to do: {item.action}"
    reason = f"suggested by patchkeeper decide from the {item.source} verdict: {said}"
    if item.suggested:
        comment = f"suggested from {item.source}: {said}; {ACCEPT}"
    elif item.verdict:
        comment = f"no suggestion: {item.source} says {said}; decide by hand"
    else:
        comment = spelt_for(NO_EVIDENCE, source)
    condition = "" if item.suggested in DROPS else item.condition
    comments = [comment]
    if condition:
        comments.append(f"removal condition from the {item.condition_field} header")
    elif item.suggested in KEEPS:
        # report --check fails on a kept patch or entry without one: accepting is not enough
        comments.append(WRITE_CONDITION)
    reason = reason if item.suggested else ""
    decision = Decision(
        item.kind, item.key, item.suggested, reason, condition, "", suggested=bool(item.suggested)
    )
    return decision, tuple(comments)


def decide(config: Config) -> DecideResult:
    """Add a table for each patch and entry without one; return what was added.

    Raises:
        PatchkeeperError: there is nothing to decide (no series, no runtime evidence).
        ConfigError: the existing decisions file is malformed.
        EvidenceError: the evidence store is unreadable.
    """
    settings = report_settings(config)
    evidence = store.load_all(config)
    items = all_items(config, evidence)
    if not items:
        series = "the series lists no patches" if config.series.exists() else "no series file"
        raise PatchkeeperError(
            f"nothing to decide: {series} and there is no runtime inventory evidence",
            path=config.series,
            hint="configure the series, or run 'patchkeeper runtime audit --to NEW "
            "--save-evidence' first (NEW: the release to move to; or set evidence = true in "
            "[tool.patchkeeper.report])",
        )
    existing = load(settings.decisions_file)
    replaced = _replace_stale(settings.decisions_file, existing, items, evidence, config.source)
    if replaced:
        existing = load(settings.decisions_file)
    new = [
        suggestion(item, config.source)
        for item in items
        if existing.get(item.kind, item.key) is None
    ]
    text, filled = _fill_placeholders(settings.decisions_file, existing, items, config.source)
    if new or filled:
        text = append_tables(settings.decisions_file, new, text)
        store.write_text(settings.decisions_file, text)
    added = tuple(Added(d.kind, d.key, d.decision, _verdict(items, d), d.suggested) for d, _ in new)
    how = spelt_for(store.HOW_TO_SAVE, config.source)  # [report] in a patchkeeper.toml
    hint = "" if evidence else f"no evidence saved: {how}"
    return DecideResult(
        str(settings.decisions_file),
        added,
        len(items) - len(new),
        hint,
        tuple(filled),
        tuple(replaced),
    )


def replace_stale(config: Config) -> list[Added]:
    """After a port: write the port's suggestion over each suggestion nobody reviewed that
    the port has since made stale: *retire* about a patch the port took out of the series,
    *carry* about a patch suggested *update* that the port carried onto the new pin; what
    was replaced.

    Raises:
        ConfigError: the decisions file is malformed.
        EvidenceError: the evidence store is unreadable.
    """
    path = report_settings(config).decisions_file
    if not path.is_file():
        return []
    evidence = store.load_all(config)
    return _replace_stale(path, load(path), all_items(config, evidence), evidence, config.source)


def _replace_stale(
    path: Path,
    existing: Decisions,
    items: list[Item],
    evidence: dict[str, store.StoredEvidence],
    source: Path | None,
) -> list[Added]:
    """Write the port's suggestion over every suggestion nobody reviewed (the decision
    still ``"suggested: ..."``), and into every table nobody has decided yet (no decision,
    reason or removal condition: ``decide`` had no suggestion, the audit said *look*),
    about a patch the series no longer holds and the port's evidence took out (upstreamed,
    dropped: retire); a person's notes are kept. Without it, the table of a patch dropped
    at the port's conflict names no patch of the series any more and ``report --check``
    passes with nobody having decided it.

    Also every suggestion nobody reviewed to *update* a patch the series still holds that
    the port has carried onto the new pin since (its port verdict, not pending, suggests
    *carry*: git's merge refreshed it, a person resolved its conflict, or it applied once
    the patch that blocked it was carried): the update was the port's work, and is done;
    the table then holds the suggestion its latest evidence, the port's, makes, as a
    ``decide`` run after the port writes it. Returns what was replaced, in file order."""
    port = port_result(evidence)
    if port is None:
        return []
    held = {item.key: item for item in items if item.kind == SERIES}
    gone = []
    for patch in port.patches:
        verdict = str(patch.verdict)
        table = existing.get(SERIES, patch.name)
        suggested = evidence_suggestion(verdict)
        if table is None or not table.line:
            continue
        if patch.name in held:
            now = held[patch.name]
            if (
                not patch.pending
                and table.suggested
                and table.decision == Word.UPDATE
                and now.source == "port"
                and now.suggested == Word.CARRY
            ):
                gone.append((table, now))
            continue
        if not table.suggested and (table.decision or table.reason or table.removal_condition):
            continue  # a person's decision
        if suggested not in DROPS or table.decision == suggested:
            continue
        item = Item(
            SERIES,
            patch.name,
            "",
            verdict=verdict,
            source="port",
            evidence=(f"port: {verdict}: {patch.summary}",),
            suggested=suggested,
            present=False,
        )
        gone.append((table, item))
    if not gone:
        return []
    lines = read_utf8(path).splitlines(keepends=True)
    # Last table first: a replaced block changes the line numbers of the tables below it.
    for table, item in sorted(gone, key=lambda pair: -pair[0].line):
        start = table.line - 1
        end = start + 1
        while end < len(lines) and not lines[end].lstrip().startswith("["):
            end += 1
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        decision, comments = suggestion(item, source)
        if item.present and table.removal_condition.strip() not in ("", item.condition):
            # a condition a person wrote while the suggestion waited is theirs
            decision = replace(decision, removal_condition=table.removal_condition)
            comments = comments[:1]
        text = render_table(replace(decision, notes=table.notes), comments)
        lines[start:end] = text.splitlines(keepends=True)
    store.write_text(path, "".join(lines))
    return [Added(i.kind, i.key, i.suggested, i.verdict, True) for _, i in gone]


def _fill_placeholders(
    path: Path, existing: Decisions, items: list[Item], source: Path | None
) -> tuple[str | None, list[Added]]:
    """The decisions file's text with every table ``decide`` wrote before there was evidence
    (byte for byte as :func:`suggestion` writes an item without a verdict, its tables spelt
    for ``source`` or, as earlier versions wrote them, for ``pyproject.toml``) replaced by
    the suggestion the evidence now makes; ``(None, [])`` when there is none. A table a
    person touched (a field, a comment) is kept as it is."""
    text: str | None = None
    filled: list[Added] = []
    tables = [(existing.get(item.kind, item.key), item) for item in items]
    # Last table first: a replaced block changes the line numbers of the tables below it.
    for table, item in sorted(
        ((t, i) for t, i in tables if t is not None), key=lambda pair: -pair[0].line
    ):
        if not item.suggested or table.decision or not table.line:
            continue
        if text is None:
            text = read_utf8(path)
        blank = replace(item, verdict="", source="", evidence=(), suggested="")
        suggested = render_table(*suggestion(item, source))
        changed = None
        for spelling in dict.fromkeys((source, None)):
            placeholder = render_table(*suggestion(blank, spelling))
            changed = changed or replace_block(text, table.line, placeholder, suggested)
        if changed is not None:
            text = changed
            filled.append(Added(item.kind, item.key, item.suggested, item.verdict, True))
    order = {(i.kind, i.key): n for n, i in enumerate(items)}
    filled.sort(key=lambda added: order[(added.kind, added.key)])
    return (text, filled) if filled else (None, [])


def _verdict(items: list[Item], decision: Decision) -> str:
    return next((i.verdict for i in items if (i.kind, i.key) == (decision.kind, decision.key)), "")
