"""What the audit record must account for: every series patch and every runtime entry.

Each :class:`Item` joins, for one patch or entry, what the stored evidence says about it
(``audit``, ``port``, ``verify``, ``runtime audit``, ``runtime check``), the decision that
evidence suggests, the removal condition its header states, and whether it is still in the
code. Evidence is read as the typed results that made it
(:mod:`patchkeeper.record.stored_results`), and verdicts are compared with their own constants.

Suggestions (the series workflow's kinds and step 3 of the runtime audit workflow,
docs/glossary.md). An audit verdict suggests what its action says (the action already
weighs the evidence beyond the verdict: a *conflict* whose hunks land unchanged is *carry*,
refresh it); evidence written before verdicts had an action, and ``port``'s verdicts,
suggest by the verdict:

==========================================  =====================
evidence                                    suggested decision
==========================================  =====================
audit action: carry (applies, or refresh)   carry
audit action: retire                        retire
audit action: port                          update
audit action: look                          none: a person decides
clean, offset (applies at fuzz 0)           carry
port: merged, resolved                      carry (the refreshed patch)
upstreamed, port: dropped                   retire
partially upstreamed, conflict,             update
target gone, blocked
runtime: retain / update / remove / migrate the same
runtime: look, not-audited                  none: a person decides
==========================================  =====================
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from patchkeeper.audit.verdicts import (
    BLOCKED,
    CARRY,
    CLEAN,
    CONFLICT,
    LOOK,
    OFFSET,
    PARTIALLY_UPSTREAMED,
    PORT,
    RETIRE,
    TARGET_GONE,
    UPSTREAMED,
    action_of,
)
from patchkeeper.config import Config
from patchkeeper.constants import DecisionWord as Word
from patchkeeper.constants import WordEnum
from patchkeeper.port.history import IN_NEW, IN_OLD
from patchkeeper.port.rebase import DROPPED, MERGED, RESOLVED
from patchkeeper.record.decisions import RUNTIME, SERIES, runtime_key
from patchkeeper.record.evidence_store import StoredEvidence
from patchkeeper.record.stored_results import (
    audit_result,
    port_result,
    runtime_audit_result,
    runtime_check_result,
    runtime_inventory_result,
    verify_result,
)
from patchkeeper.series.headers import parse_headers

if TYPE_CHECKING:
    from patchkeeper.runtime.judge.runtime_audit import AuditedEntry
    from patchkeeper.runtime.model import Inventory, PatchEntry

#: The decision an audit or port verdict suggests, by the verdict
#: (:class:`patchkeeper.audit.verdicts.Verdict`, :class:`patchkeeper.port.rebase.PortVerdict`).
SERIES_SUGGESTIONS: dict[str, str] = {
    CLEAN: Word.CARRY,
    OFFSET: Word.CARRY,
    UPSTREAMED: Word.RETIRE,
    PARTIALLY_UPSTREAMED: Word.UPDATE,
    CONFLICT: Word.UPDATE,
    TARGET_GONE: Word.UPDATE,
    BLOCKED: Word.UPDATE,
    # port's own verdicts: refreshed by git's three-way merge, resolved by a person and
    # finished with --continue, dropped because upstream has it
    MERGED: Word.CARRY,
    RESOLVED: Word.CARRY,
    DROPPED: Word.RETIRE,
}
#: The decision an audit's action suggests (:data:`patchkeeper.audit.verdicts.ACTIONS`);
#: *look* suggests none: the evidence does not decide, a person does.
ACTION_SUGGESTIONS: dict[str, str] = {
    CARRY: Word.CARRY,
    RETIRE: Word.RETIRE,
    PORT: Word.UPDATE,
    LOOK: "",
}
#: A runtime audit's suggestion is the decision itself (``look`` suggests none).
RUNTIME_SUGGESTIONS: dict[str, str] = {
    w: w for w in (Word.RETAIN, Word.UPDATE, Word.REMOVE, Word.MIGRATE)
}
#: The verdicts that say a patch no longer applies as it is.
NOT_APPLYING = frozenset({CONFLICT, TARGET_GONE, BLOCKED})


class Removal(WordEnum):
    """Why the runtime audit suggests *remove* (:attr:`Item.removal`)."""

    NEVER_IMPORTED = "never imported"  # nothing reaches the entry
    DEAD_GATE = "dead gate"  # its version gate is false at the new release
    TARGET_GONE = "target gone"  # its target is gone from the new upstream
    UPSTREAM = "upstream"  # the new upstream already has the change


#: Header fields that state a removal condition, in the order they are looked for: the
#: series workflow's ``Retires-when``, DEP-3's ``Applied-Upstream``, the runtime audit
#: workflow's ``Remove at``.
CONDITION_FIELDS = ("Retires-when", "Applied-Upstream")
REMOVE_AT = "Remove at"
#: The removal plan of a plugin's ledger comment (vllm-ascend's ``Future Plan:``).
FUTURE_PLAN = "Future Plan"


@dataclass(frozen=True)
class Item:
    """One series patch or runtime entry with its evidence.

    Attributes:
        kind: ``"series"`` or ``"runtime"``.
        key: the patch name, or the runtime key (``FILE::TARGET``).
        where: the patch file (downstream-relative) or ``FILE:LINE``.
        verdict: the latest evidence's verdict (``"upstreamed"``, ``"update"``), ``""``.
        action: for a series patch whose latest evidence is ``audit``, its action
            (``"carry"``, ``"port"``, ...; :data:`patchkeeper.audit.verdicts.ACTIONS`);
            ``""`` otherwise.
        source: which evidence gave it (``"audit"``, ``"port"``, ``"runtime audit"``).
        evidence: one sentence per piece of evidence, prefixed with its command.
        suggested: the suggested decision, ``""`` when the evidence suggests none.
        review: for a series patch the latest ``audit`` found upstream but whose action asks
            a person to review first (:attr:`~patchkeeper.audit.results.AuditResult.to_review`:
            a retire "after reviewing the lines not found"), the action's reason; ``""``
            otherwise.
        condition_field, condition: the header's removal condition (``"Retires-when"``,
            ``"upstreamed"``), ``""`` when it states none.
        present: the patch is in the series file / the entry is in the plugin's code now.
        target_gone: the target file or symbol is gone from the new upstream (for a runtime
            entry: the old upstream defined it and the new one does not define it there; a
            name in neither release is not gone, the plugin adds it).
        removal: for a runtime *remove*, why (:func:`runtime_removal`): ``"never imported"``,
            ``"dead gate"``, ``"target gone"`` or ``"upstream"``; ``""`` otherwise.
        live: the ``runtime check`` status (``"replaced"``), ``""`` when not checked.
        carried: for a series patch, the header references ``port --upstream-repo`` found
            upstream (:func:`carried_references`).
        entry: for a runtime entry, the inventory's entry.
    """

    kind: str
    key: str
    where: str
    verdict: str = ""
    action: str = ""
    source: str = ""
    evidence: tuple[str, ...] = ()
    suggested: str = ""
    review: str = ""
    condition_field: str = ""
    condition: str = ""
    present: bool = True
    target_gone: bool = False
    removal: str = ""
    live: str = ""
    carried: tuple[str, ...] = field(default=(), compare=False)
    entry: PatchEntry | None = field(default=None, compare=False)


# --------------------------------------------------------------------------- headers


def file_header_field(path: Path, name: str) -> str:
    """The value of ``# Name: value`` in a Python file's comments (the runtime audit
    workflow's step 5 header), continuation comment lines joined; ``""`` when absent or
    unreadable."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    value: str | None = None
    prefix = f"{name.lower()}:"
    for line in lines:
        stripped = line.strip()
        if not stripped.startswith("#"):
            if value is not None:
                break
            continue
        comment = stripped.lstrip("#").strip()
        if value is None:
            if comment.lower().startswith(prefix):
                value = comment[len(prefix) :].strip()
        elif not comment or set(comment) <= set("-=~*") or re.match(r"^[\w ]+:\s", comment):
            break
        else:
            value += " " + comment
    return value or ""


def ledger_plans(path: Path) -> dict[str, str]:
    """``file -> Future Plan`` from a plugin's ledger comment (vllm-ascend's
    ``vllm_ascend/patch/__init__.py``: ``# ** 1. File: platform/patch_x.py**`` headings, each
    with a ``Future Plan:`` paragraph); files are relative to the patch directory."""
    from patchkeeper.runtime.inventory.patch_headers import LEDGER_FILE

    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return {}
    plans: dict[str, str] = {}
    section, collecting = "", False
    for line in lines:
        text = line.strip().lstrip("#").strip()
        heading = LEDGER_FILE.match(line.strip())
        if heading:
            section, collecting = heading.group("file"), False
        elif section and re.match(r"(?i)^future plan\s*[:：]", text):
            collecting = True
            rest = re.split(r"[:：]", text, maxsplit=1)[1].strip()
            plans[section] = rest
        elif collecting and text and not re.match(r"^[\w ()/,-]+[:：]$", text):
            plans[section] = f"{plans[section]} {text}".strip()
        else:
            collecting = False
    return plans


# --------------------------------------------------------------------------- series


def suggestion(verdict: str, action: str = "") -> str:
    """The decision a piece of series evidence suggests: by the audit's ``action`` when it
    has one (:data:`ACTION_SUGGESTIONS`), else by the ``verdict``
    (:data:`SERIES_SUGGESTIONS`); ``""`` when it suggests none."""
    if action in ACTION_SUGGESTIONS:
        return ACTION_SUGGESTIONS[action]
    return SERIES_SUGGESTIONS.get(verdict, "")


def series_evidence(
    evidence: dict[str, StoredEvidence],
) -> dict[str, list[tuple[str, str, str, str]]]:
    """``patch name -> [(command, verdict, action, summary)]`` from ``audit``, then
    ``port`` (whose verdicts have no action: ``""``)."""
    out: dict[str, list[tuple[str, str, str, str]]] = {}
    audit = audit_result(evidence)
    for verdict in audit.verdicts if audit is not None else ():
        out.setdefault(verdict.name, []).append(
            ("audit", str(verdict.verdict), str(verdict.action), verdict.summary)
        )
    port = port_result(evidence)
    for patch in port.patches if port is not None else ():
        summary = patch.summary
        if patch.pending:
            summary = "pending (judged after the port stopped): " + summary
        out.setdefault(patch.name, []).append(("port", str(patch.verdict), "", summary))
    return out


def carried_references(evidence: dict[str, StoredEvidence]) -> dict[str, list[str]]:
    """``patch name -> ["vllm #50021 (in the new pin: commit, first in v0.32.0)"]``: the
    header references that ``port --upstream-repo`` found in the new or the old pin."""
    port = port_result(evidence)
    out: dict[str, list[str]] = {}
    for patch in port.patches if port is not None else ():
        for ref in patch.references:
            if ref.status not in (IN_NEW, IN_OLD):
                continue
            commit = ref.commit.id if ref.commit is not None else ""
            where = ", ".join(
                x for x in (commit[:12], f"first in {ref.first_tag}" if ref.first_tag else "") if x
            )
            out.setdefault(patch.name, []).append(
                f"{ref.text} ({ref.status}" + (f": {where}" if where else "") + ")"
            )
    return out


def _reviews(evidence: dict[str, StoredEvidence]) -> dict[str, str]:
    """``patch name -> reason`` for the patches the last saved ``audit`` found upstream
    but whose action asks for a review first (:attr:`Item.review`)."""
    audit = audit_result(evidence)
    if audit is None or not audit.to_review:
        return {}
    names = set(audit.to_review)
    return {v.name: action_of(v)[1] for v in audit.verdicts if v.name in names}


def _verify_states(evidence: dict[str, StoredEvidence]) -> dict[str, str]:
    verify = verify_result(evidence)
    return {p.name: str(p.state) for p in verify.state.patches} if verify is not None else {}


def series_items(config: Config, evidence: dict[str, StoredEvidence]) -> list[Item]:
    """One item per patch of the configured series, in series order (none without a series).

    Raises:
        PatchFormatError: the series or a patch cannot be parsed.
    """
    if not config.series.exists():
        return []
    from patchkeeper.series.load import load_series

    _, patches = load_series(config)
    by_name = series_evidence(evidence)
    verified = _verify_states(evidence)
    reviews = _reviews(evidence)
    references = carried_references(evidence)
    items = []
    for patch in patches:
        found = by_name.get(patch.name, [])
        lines = [f"{command}: {verdict}: {summary}" for command, verdict, _, summary in found]
        if patch.name in verified:
            lines.append(f"verify: {verified[patch.name]}")
        carried = references.get(patch.name, [])
        if carried:
            lines.append("port: upstream carries " + "; ".join(carried))
        command, verdict, action = found[-1][:3] if found else ("", "", "")
        headers = parse_headers(patch.preamble)
        name, condition = next(
            ((f, headers.value(f)) for f in CONDITION_FIELDS if headers.value(f)), ("", "")
        )
        try:
            where = patch.path.relative_to(config.root).as_posix()
        except ValueError:
            where = str(patch.path)
        items.append(
            Item(
                kind=SERIES,
                key=patch.name,
                where=where,
                verdict=verdict,
                source=command,
                evidence=tuple(lines),
                action=action,
                suggested=suggestion(verdict, action),
                review=reviews.get(patch.name, "") if command == "audit" else "",
                condition_field=name,
                condition=condition,
                present=True,
                target_gone=verdict == TARGET_GONE,
                carried=tuple(carried),
            )
        )
    return items


# --------------------------------------------------------------------------- runtime


def _runtime_source(
    evidence: dict[str, StoredEvidence],
) -> tuple[str, Inventory | None, list[tuple[PatchEntry, AuditedEntry | None]]]:
    """``(command, inventory, entries)`` from ``runtime audit``, else ``runtime
    inventory``: each entry with its audit (``None`` from ``runtime inventory``)."""
    audit = runtime_audit_result(evidence)
    if audit is not None:
        return "runtime audit", audit.inventory, [(a.entry, a) for a in audit.entries]
    inventory = runtime_inventory_result(evidence)
    if inventory is not None:
        return "runtime inventory", inventory, [(e, None) for e in inventory.entries]
    return "", None, []


def current_runtime_keys(config: Config, inventory: Inventory) -> set[str] | None:
    """The runtime keys in the plugin's code now (a fresh static scan), or ``None`` when the
    runtime commands are not available to scan with."""
    try:
        from patchkeeper.runtime.inventory.runtime_inventory import scan_plugin
        from patchkeeper.runtime.settings import resolve_settings
    except ImportError:
        return None
    settings = resolve_settings(
        config,
        plugin=Path(inventory.plugin_root),
        package=inventory.package or None,
        patch_directory=inventory.patch_directory or None,
    )
    entries = scan_plugin(settings).inventory.entries
    return {runtime_key(e.file, e.target, e.key) for e in entries}


def _still_in_file(root: Path, entry: PatchEntry) -> bool:
    """Without a scanner: the entry's file exists and still names the target's last part."""
    try:
        text = (root / entry.file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return entry.target.rsplit(".", 1)[-1] in text


def _live_states(evidence: dict[str, StoredEvidence]) -> dict[tuple[str, str], str]:
    live = runtime_check_result(evidence)
    if live is None:
        return {}
    return {(e.file, e.target): f"{e.status}: {e.detail}".rstrip(": ") for e in live.entries}


def runtime_removal(verdict: str, activation: str, evidence: Sequence[object]) -> str:
    """Why the runtime audit suggests *remove* (``""`` for another verdict): the entry is
    ``"never imported"`` (its activation), its version gate is false at the new release
    (``"dead gate"``), its target is gone from the new upstream (``"target gone"``), or the
    new upstream already has its change (``"upstream"``); read from the activation status
    and the first evidence sentence, which :mod:`patchkeeper.runtime.judge.judge` writes."""
    if verdict != Word.REMOVE:
        return ""
    first = str(evidence[0]) if evidence else ""
    if activation == "never" or first.startswith("never imported"):
        return Removal.NEVER_IMPORTED
    if first.startswith("its version gate is false"):
        return Removal.DEAD_GATE
    if "is gone from the new one" in first:
        return Removal.TARGET_GONE
    return Removal.UPSTREAM


def _runtime_item(
    entry: PatchEntry,
    audited: AuditedEntry | None,
    command: str,
    root: Path,
    live: dict[tuple[str, str], str],
    plans: dict[str, str],
) -> Item:
    from patchkeeper.runtime.lookup.resolve import FOUND, MOVED, REMOVED
    from patchkeeper.runtime.model import ActivationStatus

    key = runtime_key(entry.file, entry.target, entry.key)
    verdict = str(audited.drift.decision) if audited is not None else ""
    evidence = audited.drift.evidence if audited is not None else ()
    lines = []
    if verdict:
        lines.append(f"{command}: {verdict}: " + "; ".join(evidence))
    activation = entry.activation.status.value if entry.activation is not None else ""
    if activation and activation != ActivationStatus.ACTIVE:
        lines.append(f"activation: {activation}")
    state = live.get((entry.file, entry.target), "")
    if state:
        lines.append(f"runtime check: {state}")
    field, condition = REMOVE_AT, file_header_field(root / entry.file, REMOVE_AT)
    plan = next((p for f, p in plans.items() if entry.file.endswith("/" + f)), "")
    if not condition and plan:
        field, condition = FUTURE_PLAN, plan
    gone = audited is not None and audited.new.status in (MOVED, REMOVED)
    return Item(
        kind=RUNTIME,
        key=key,
        where=f"{entry.file}:{entry.line}",
        verdict=verdict,
        source=command if verdict else "",
        evidence=tuple(lines),
        suggested=RUNTIME_SUGGESTIONS.get(verdict, ""),
        condition_field=field,
        condition=condition,
        target_gone=gone and audited is not None and audited.old.status == FOUND,
        removal=runtime_removal(verdict, activation, evidence),
        live=state.split(":", 1)[0],
        entry=entry,
    )


def runtime_items(config: Config, evidence: dict[str, StoredEvidence]) -> list[Item]:
    """One item per runtime entry of the last ``runtime audit`` (else ``runtime inventory``)
    evidence, in inventory order; ``present`` from a fresh scan of the plugin's code."""
    command, inventory, entries = _runtime_source(evidence)
    if not command or inventory is None:
        return []
    root = Path(inventory.plugin_root)
    live = _live_states(evidence)
    directory = inventory.patch_directory
    plans = ledger_plans(root / directory / "__init__.py") if directory else {}
    keys = current_runtime_keys(config, inventory) if inventory.plugin_root else None
    items: list[Item] = []
    seen: dict[str, int] = {}
    for entry, audited in entries:
        item = _runtime_item(entry, audited, command, root, live, plans)
        count = seen[item.key] = seen.get(item.key, 0) + 1
        present = item.key in keys if keys is not None else _still_in_file(root, entry)
        key = item.key if count == 1 else f"{item.key} #{count}"
        items.append(replace(item, key=key, present=present))
    return items


def all_items(config: Config, evidence: dict[str, StoredEvidence]) -> list[Item]:
    """Series items, then runtime items."""
    return series_items(config, evidence) + runtime_items(config, evidence)
