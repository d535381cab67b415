"""What the audit record must account for: every series patch and every runtime entry.

Each :class:`Item` joins, for one patch or entry, what the stored evidence says about it
(``audit``, ``port``, ``verify``, ``runtime audit``, ``runtime check``), the decision that
evidence suggests, the removal condition its header states, and whether it is still in the
code. Evidence is read in its JSON form (:mod:`patchkeeper.record.evidence_store`), so this module
depends on the shapes of the results, not on the modules that make them.

Suggestions (the series workflow's kinds and step 3 of the runtime audit workflow,
docs/glossary.md):

==========================================  =====================
evidence verdict                            suggested decision
==========================================  =====================
clean, offset (applies at fuzz 0)           carry
port: merged, resolved                      carry (the refreshed patch)
upstreamed, port: dropped                   retire
partially upstreamed, conflict,             update
target gone, blocked
runtime: retain / update / remove / migrate the same
runtime: investigate, not-audited           none: a person decides
==========================================  =====================
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from patchkeeper.config import Config
from patchkeeper.constants import DecisionWord as Word
from patchkeeper.record.decisions import RUNTIME, SERIES, runtime_key
from patchkeeper.record.evidence_store import StoredEvidence
from patchkeeper.series.headers import parse_headers

#: The decision an audit or port verdict suggests, by the verdict's word in the stored
#: evidence (:class:`patchkeeper.audit.verdicts.Verdict`,
#: :class:`patchkeeper.port.rebase.PortVerdict`).
SERIES_SUGGESTIONS: dict[str, str] = {
    "clean": Word.CARRY,
    "offset": Word.CARRY,
    "upstreamed": Word.RETIRE,
    "partially upstreamed": Word.UPDATE,
    "conflict": Word.UPDATE,
    "target gone": Word.UPDATE,
    "blocked": Word.UPDATE,
    # port's own verdicts: refreshed by git's three-way merge, resolved by a person and
    # finished with --continue, dropped because upstream has it
    "merged": Word.CARRY,
    "resolved": Word.CARRY,
    "dropped": Word.RETIRE,
}
#: A runtime audit's suggestion is the decision itself (``investigate`` suggests none).
RUNTIME_SUGGESTIONS: dict[str, str] = {
    w: w for w in (Word.RETAIN, Word.UPDATE, Word.REMOVE, Word.MIGRATE)
}
#: The verdicts that say a patch no longer applies as it is.
NOT_APPLYING = frozenset({"conflict", "target gone", "blocked"})
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
        source: which evidence gave it (``"audit"``, ``"port"``, ``"runtime audit"``).
        evidence: one sentence per piece of evidence, prefixed with its command.
        suggested: the suggested decision, ``""`` when the evidence suggests none.
        condition_field, condition: the header's removal condition (``"Retires-when"``,
            ``"upstreamed"``), ``""`` when it states none.
        present: the patch is in the series file / the entry is in the plugin's code now.
        target_gone: the target file or symbol is gone from the new upstream (for a runtime
            entry: the old upstream defined it and the new one does not define it there; a
            name in neither release is not gone, the plugin adds it).
        removal: for a runtime *remove*, why (:func:`runtime_removal`): ``"never imported"``,
            ``"dead gate"``, ``"target gone"`` or ``"upstream"``; ``""`` otherwise.
        live: the ``runtime check`` status (``"replaced"``), ``""`` when not checked.
    """

    kind: str
    key: str
    where: str
    verdict: str = ""
    source: str = ""
    evidence: tuple[str, ...] = ()
    suggested: str = ""
    condition_field: str = ""
    condition: str = ""
    present: bool = True
    target_gone: bool = False
    removal: str = ""
    live: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)


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


def _verdict_lists(result: Any) -> list[dict[str, Any]]:
    """Per-patch verdict dicts of an ``audit`` or ``port`` result: the first list of dicts
    with ``name`` and ``verdict`` under ``verdicts`` or ``patches``."""
    if not isinstance(result, dict):
        return []
    for key in ("verdicts", "patches"):
        value = result.get(key)
        if isinstance(value, list) and all(
            isinstance(v, dict) and "name" in v and "verdict" in v for v in value
        ):
            return value
    return []


def series_evidence(evidence: dict[str, StoredEvidence]) -> dict[str, list[tuple[str, str, str]]]:
    """``patch name -> [(command, verdict, summary)]`` from ``audit``, then ``port``."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for command in ("audit", "port"):
        stored = evidence.get(command)
        if stored is None:
            continue
        for verdict in _verdict_lists(stored.result):
            summary = str(verdict.get("summary") or verdict.get("evidence") or "")
            if verdict.get("pending"):
                summary = "pending (judged after the port stopped): " + summary
            out.setdefault(str(verdict["name"]), []).append(
                (command, str(verdict["verdict"]), summary)
            )
    return out


def carried_references(evidence: dict[str, StoredEvidence]) -> dict[str, list[str]]:
    """``patch name -> ["vllm #50021 (in the new pin: commit, first in v0.32.0)"]``: the
    header references that ``port --upstream-repo`` found in the new or the old pin."""
    stored = evidence.get("port")
    out: dict[str, list[str]] = {}
    for patch in _verdict_lists(stored.result if stored is not None else None):
        for ref in patch.get("references") or ():
            if ref.get("status") not in ("in the new pin", "already in the old pin"):
                continue
            commit = (ref.get("commit") or {}).get("sha") or (ref.get("commit") or {}).get("id")
            where = ", ".join(
                x
                for x in (
                    str(commit or "")[:12],
                    f"first in {ref['first_tag']}" if ref.get("first_tag") else "",
                )
                if x
            )
            out.setdefault(str(patch["name"]), []).append(
                f"{ref['text']} ({ref['status']}" + (f": {where}" if where else "") + ")"
            )
    return out


def _verify_states(evidence: dict[str, StoredEvidence]) -> dict[str, str]:
    stored = evidence.get("verify")
    state = stored.result.get("state", {}) if stored and isinstance(stored.result, dict) else {}
    return {str(p["name"]): str(p["state"]) for p in state.get("patches", []) if "name" in p}


def series_items(config: Config, evidence: dict[str, StoredEvidence]) -> list[Item]:
    """One item per patch of the configured series, in series order (none without a series).

    Raises:
        PatchFormatError: the series or a patch cannot be parsed.
    """
    if not config.series.is_file():
        return []
    from patchkeeper.series.load import load_series

    _, patches = load_series(config)
    by_name = series_evidence(evidence)
    verified = _verify_states(evidence)
    references = carried_references(evidence)
    items = []
    for patch in patches:
        found = by_name.get(patch.name, [])
        lines = [f"{command}: {verdict}: {summary}" for command, verdict, summary in found]
        if patch.name in verified:
            lines.append(f"verify: {verified[patch.name]}")
        carried = references.get(patch.name, [])
        if carried:
            lines.append("port: upstream carries " + "; ".join(carried))
        command, verdict = (found[-1][0], found[-1][1]) if found else ("", "")
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
                suggested=SERIES_SUGGESTIONS.get(verdict, ""),
                condition_field=name,
                condition=condition,
                present=True,
                target_gone=verdict == "target gone",
                extra={"carried": tuple(carried)},
            )
        )
    return items


# --------------------------------------------------------------------------- runtime


def _runtime_source(evidence: dict[str, StoredEvidence]) -> tuple[str, dict[str, Any], list[Any]]:
    """``(command, inventory JSON, entries)`` from ``runtime audit``, else ``runtime
    inventory``; each entry is ``{"entry": ..., "new": ..., "drift": ...}`` or a bare entry."""
    audit = evidence.get("runtime audit")
    if audit is not None and isinstance(audit.result, dict):
        return "runtime audit", audit.result.get("inventory", {}), audit.result.get("entries", [])
    inventory = evidence.get("runtime inventory")
    if inventory is not None and isinstance(inventory.result, dict):
        entries = [{"entry": e} for e in inventory.result.get("entries", [])]
        return "runtime inventory", inventory.result, entries
    return "", {}, []


def current_runtime_keys(config: Config, inventory: dict[str, Any]) -> set[str] | None:
    """The runtime keys in the plugin's code now (a fresh static scan), or ``None`` when the
    runtime commands are not available to scan with."""
    try:
        from patchkeeper.runtime.inventory.runtime_inventory import scan_plugin
        from patchkeeper.runtime.settings import resolve_settings
    except ImportError:
        return None
    settings = resolve_settings(
        config,
        plugin=Path(inventory["plugin_root"]),
        package=inventory.get("package") or None,
        patch_directory=inventory.get("patch_directory") or None,
    )
    entries = scan_plugin(settings).inventory.entries
    return {runtime_key(e.file, e.target, e.key) for e in entries}


def _still_in_file(root: Path, entry: dict[str, Any]) -> bool:
    """Without a scanner: the entry's file exists and still names the target's last part."""
    try:
        text = (root / entry["file"]).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return str(entry["target"]).rsplit(".", 1)[-1] in text


def _live_states(evidence: dict[str, StoredEvidence]) -> dict[tuple[str, str], str]:
    stored = evidence.get("runtime check")
    if stored is None or not isinstance(stored.result, dict):
        return {}
    return {
        (str(e["file"]), str(e["target"])): f"{e['status']}: {e.get('detail', '')}".rstrip(": ")
        for e in stored.result.get("entries", [])
    }


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
        return "never imported"
    if first.startswith("its version gate is false"):
        return "dead gate"
    if "is gone from the new one" in first:
        return "target gone"
    return "upstream"


def _runtime_item(
    record: dict[str, Any],
    command: str,
    root: Path,
    live: dict[tuple[str, str], str],
    plans: dict[str, str],
) -> Item:
    entry = record["entry"]
    key = runtime_key(entry["file"], entry["target"], entry.get("key"))
    drift = record.get("drift") or {}
    new = record.get("new") or {}
    old = record.get("old") or {}
    verdict = str(drift.get("decision", ""))
    lines = []
    if verdict:
        lines.append(f"{command}: {verdict}: " + "; ".join(drift.get("evidence", ())))
    activation = (entry.get("activation") or {}).get("status", "")
    if activation and activation != "active":
        lines.append(f"activation: {activation}")
    state = live.get((entry["file"], entry["target"]), "")
    if state:
        lines.append(f"runtime check: {state}")
    field, condition = REMOVE_AT, file_header_field(root / entry["file"], REMOVE_AT)
    plan = next((p for f, p in plans.items() if entry["file"].endswith("/" + f)), "")
    if not condition and plan:
        field, condition = FUTURE_PLAN, plan
    return Item(
        kind=RUNTIME,
        key=key,
        where=f"{entry['file']}:{entry['line']}",
        verdict=verdict,
        source=command if verdict else "",
        evidence=tuple(lines),
        suggested=RUNTIME_SUGGESTIONS.get(verdict, ""),
        condition_field=field,
        condition=condition,
        target_gone=new.get("status") in ("moved", "removed") and old.get("status") == "found",
        removal=runtime_removal(verdict, activation, drift.get("evidence") or ()),
        live=state.split(":", 1)[0],
        extra={"entry": entry},
    )


def runtime_items(config: Config, evidence: dict[str, StoredEvidence]) -> list[Item]:
    """One item per runtime entry of the last ``runtime audit`` (else ``runtime inventory``)
    evidence, in inventory order; ``present`` from a fresh scan of the plugin's code."""
    command, inventory, records = _runtime_source(evidence)
    if not command:
        return []
    root = Path(inventory.get("plugin_root", config.root))
    live = _live_states(evidence)
    directory = inventory.get("patch_directory") or ""
    plans = ledger_plans(root / directory / "__init__.py") if directory else {}
    keys = current_runtime_keys(config, inventory) if inventory.get("plugin_root") else None
    items: list[Item] = []
    seen: dict[str, int] = {}
    for record in records:
        item = _runtime_item(record, command, root, live, plans)
        count = seen[item.key] = seen.get(item.key, 0) + 1
        present = item.key in keys if keys is not None else _still_in_file(root, record["entry"])
        key = item.key if count == 1 else f"{item.key} #{count}"
        items.append(replace(item, key=key, present=present))
    return items


def all_items(config: Config, evidence: dict[str, StoredEvidence]) -> list[Item]:
    """Series items, then runtime items."""
    return series_items(config, evidence) + runtime_items(config, evidence)
