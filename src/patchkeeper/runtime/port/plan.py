"""What ``runtime port`` does to each entry of the runtime audit, and the new text of every
file it changes: copies merged, moved targets retargeted, version gates cut, imports the new
release breaks rewritten, and the ``Affected versions:`` header of each patch file whose
every entry is done marked ``Reviewed against NEW.`` (``Ported to NEW, to review.`` where port
merged into it and left something to a human).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from patchkeeper.errors import Finding
from patchkeeper.runtime.inventory.plugin import PluginTree
from patchkeeper.runtime.judge.crosscheck import GONE_NAME, gone_name
from patchkeeper.runtime.judge.drift import MIGRATE, REMOVE, RETAIN, UPDATE
from patchkeeper.runtime.judge.missing import renamed_to
from patchkeeper.runtime.judge.runtime_audit import AuditedEntry, RuntimeAudit
from patchkeeper.runtime.lookup.resolve import FOUND, MOVED
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.port.copies import merge_entry, unreadable_copy
from patchkeeper.runtime.port.file_edits import Edits
from patchkeeper.runtime.port.gatecut import Cut
from patchkeeper.runtime.port.imports import (
    IMPORT,
    helper_imports,
    names,
    old_module_of,
    retarget_import,
)
from patchkeeper.runtime.port.results import (
    BEHIND,
    CONFLICT,
    DONE,
    GATE_CUT,
    LEFT,
    NOTHING,
    RETARGETED,
    PortedEntry,
)
from patchkeeper.runtime.syntax.gates import release_label, release_version

#: The header field that records the reviewed release (the plugin file header's template).
AFFECTED = re.compile(r"^(?P<lead>\s*#\s*Affected versions:)(?P<rest>.*)$")


#: A comment line that starts another header field (``# Remove at: ...``) or is a banner.
_FIELD_OR_RULE = re.compile(r"^\s*#\s*(?:[A-Z][\w -]*:(?:\s|$)|[-=#*_~]{3,}\s*$)")


def affected_field(lines: list[str]) -> tuple[int, int] | None:
    """The 1-based first and last line of the ``Affected versions:`` field in the first 80
    lines of a patch file: its line and the comment lines that continue its value (up to
    an empty ``#`` line, another field, a banner rule or code); ``None`` when absent.

    >>> affected_field(["# Note: n\\n", "# Affected versions: 0.1 (on 910B),\\n",
    ...                 "#   reviewed at abc.\\n", "#\\n", "# Remove at: r\\n"])
    (2, 3)
    """
    for number, line in enumerate(lines[:80], 1):
        if AFFECTED.match(line.rstrip("\r\n")):
            last = number
            for following in lines[number:80]:
                text = following.strip()
                if not text.startswith("#") or not text[1:].strip():
                    break
                if _FIELD_OR_RULE.match(text):
                    break
                last += 1
            return number, last
    return None


def _retarget(
    item: AuditedEntry, edits: Edits, trees: tuple[UpstreamTree, UpstreamTree]
) -> PortedEntry:
    """The patch statement of a moved target rewritten to name its new module, and the
    file's ``import OLD`` of that module rewritten or completed
    (:func:`~patchkeeper.runtime.port.imports.retarget_import`). A name its module renamed
    (it now binds a name extending it, :func:`~patchkeeper.runtime.judge.missing.renamed_to`)
    is left by hand: its readers call the new name, which may take other arguments."""
    entry, old_tree = item.entry, trees[0]
    base = PortedEntry(entry.file, entry.line, entry.target, item.drift.decision, LEFT, "")
    if item.new.status != MOVED or len(item.new.candidates) != 1:
        return replace(base, detail="the target moved to several places: choose one by hand")
    renamed = renamed_to(entry, item.new, trees)
    if renamed:
        return replace(base, detail=f"the target was renamed to {renamed}: retarget by hand")
    location = item.new.candidates[0].split(" (line")[0]
    old_module = old_module_of(entry.target, old_tree, entry.module_hint)
    tail = entry.target[len(old_module) + 1 :]
    if not location.endswith("." + tail):
        return replace(base, detail=f"the target is now {location}: rename it by hand")
    new_module = location[: -len(tail) - 1]
    lines = edits.original(entry.file)
    first = edits.line(entry.file, entry.line)
    if first is None:
        return replace(base, detail="a version gate cut rewrote the patch statement")
    for number in range(first, min(first + 4, len(lines) + 1)):
        text = lines[number - 1]
        if old_module in text:
            changed = text.replace(old_module, new_module)
            if edits.replace(entry.file, number, number, changed):
                shown = entry.line + number - first
                imported = retarget_import(edits, entry.file, old_module, new_module, number)
                detail = f"{old_module} -> {new_module} at line {shown}{imported}"
                return replace(base, action=RETARGETED, detail=detail)
    return replace(base, detail=f"{old_module} is not written in the patch statement")


def _gates(result: RuntimeAudit, edits: Edits, new: str) -> list[PortedEntry]:
    """Every gate port cut (``gate cut``, in each file's order), then every version gate
    whose live branch changes at the new release that it did not cut, left by hand with
    the edit it needs."""
    out, cut = [], set()
    for file in sorted(edits.cuts):
        for found in edits.cuts[file]:
            cut.add((file, found.line))
            detail = _cut_detail(found, new)
            out.append(PortedEntry(file, found.line, found.test, "gate", GATE_CUT, detail))
    for gate in result.gates:
        if gate.edit and (gate.file, gate.line) not in cut:
            out.append(PortedEntry(gate.file, gate.line, gate.test, "gate", LEFT, gate.edit))
    return out


def _cut_detail(found: Cut, new: str) -> str:
    """The sentence of a cut gate: which branch died at ``new`` and what port kept (and the
    lines after it deleted as unreachable,
    :attr:`~patchkeeper.runtime.port.gatecut.Cut.unreachable`)."""
    test = f"`{found.test}`"
    rest = ""
    if found.unreachable:
        rest = (
            f"; it ends in return or raise: the {found.unreachable} line(s) after it in its "
            "block, unreachable, deleted"
        )
    if found.kept == "if":
        return (
            f"the `else` branch of {test} is dead at {new}: cut the test, kept the `if` block{rest}"
        )
    if found.kept == "else":
        return f"the `if` branch of {test} is dead at {new}: cut it, kept the `else` block{rest}"
    if found.kept == "nothing":
        return f"the `if` branch of {test} is dead at {new}: cut it (no `else` block)"
    if found.kept.startswith("test: "):
        rest = found.kept.removeprefix("test: ")
        return f"the version gate in {test} is decided at {new}: the test is now `{rest}`"
    side = "first" if found.kept == "body" else "second"
    return f"{test} is decided at {new}: the conditional expression became its {side} operand"


def _headers(
    result: RuntimeAudit, new: str, label: str, edits: Edits, done: list[PortedEntry]
) -> list[PortedEntry]:
    """``Affected versions:`` of each audited file gains ``Reviewed against NEW.`` at the end
    of its value (:func:`affected_field`), once, when every entry of the file is done
    (``done``: port's report so far; each action in
    :data:`~patchkeeper.runtime.port.results.DONE`: no conflict marked, nothing left by
    hand, none never imported): the mark says the file was reviewed against the release,
    which a file with conflict markers or a dormant patch was not. A file port merged into
    that is not done (a conflict marked, a clean merge behind upstream) gains
    :func:`to_review` instead: the next port knows the merge was written and does not merge
    it again (after the conflicts are resolved, a second merge from the old release would
    conflict with the resolution); the human who reviews it writes ``Reviewed against``.
    When the
    new release's version is unknown (``new`` is ``""``: a directory without ``PKG-INFO`` or
    a ``version`` in ``pyproject.toml``, such as a checkout), no header is written and one
    entry says what is left by hand in the files that have the header, naming the tree by
    ``label`` (a path in a header would name nothing); none when no file has it."""
    files = sorted({a.entry.file for a in result.entries})
    if not new:
        # only the files that have the header: a file without one gains no mark either way
        headed = [f for f in files if affected_field(edits.original(f)) is not None]
        if not headed:
            return []
        detail = (
            f"the version of {label} is unknown (no PKG-INFO, no version in "
            "pyproject.toml): add 'Reviewed against VERSION.' to the 'Affected versions:' "
            f"header of {len(headed)} file(s) by hand"
        )
        where = result.inventory.patch_directory
        return [PortedEntry(where, 0, "Affected versions", "header", LEFT, detail)]
    undone = {e.file for e in done if e.action not in DONE}
    merged = {e.file for e in done if e.action in (CONFLICT, BEHIND)}
    for file in files:
        if file in undone and file not in merged:
            continue
        mark = to_review(new) if file in undone else f"Reviewed against {new}."
        lines = edits.original(file)
        field = affected_field(lines)
        value = "".join(lines[field[0] - 1 : field[1]]) if field is not None else ""
        if field is None or mark in value or to_review(new) in value:
            continue
        # The mark ends the field's value: after its last continuation line.
        line = lines[field[1] - 1]
        ending = line[len(line.rstrip("\r\n")) :]
        text = f"{line.rstrip()} {mark}{ending}"
        edits.replace(file, field[1], field[1], text)
    return []


def to_review(new: str) -> str:
    """The mark of a file port merged into without finishing it (conflicts marked, or
    behind upstream): ``Ported to NEW, to review.``"""
    return f"Ported to {new}, to review."


def _reviewed_files(result: RuntimeAudit, new: str, edits: Edits) -> dict[str, str]:
    """The audited files whose header already says ``Reviewed against NEW.`` or
    :func:`to_review` (written by an earlier ``runtime port --write`` to ``new``), each with
    the mark found: their copies were merged then, and resolved by hand where they
    conflicted; merging them again from the old release would conflict with that
    resolution. Empty when ``new`` (the version) is unknown."""
    if not new:
        return {}
    found = {}
    for file in sorted({a.entry.file for a in result.entries}):
        lines = edits.original(file)
        field = affected_field(lines)
        value = "".join(lines[field[0] - 1 : field[1]]) if field else ""
        for mark in (f"Reviewed against {new}.", to_review(new)):
            if mark in value:
                found[file] = mark
                break
    return found


def _cut_away(edits: Edits, file: str, line: int) -> bool:
    """Whether the version gate cut deleted the statement at ``line`` of ``file`` (as read):
    its line is gone from the cut text and no line of the cut text reads as it did."""
    if edits.line(file, line) is not None:
        return False
    read = edits.read[file]
    text = read[line - 1].strip() if 0 < line <= len(read) else ""
    return bool(text) and all(other.strip() != text for other in edits.original(file))


def _patch_files(result: RuntimeAudit, tree: PluginTree) -> set[str]:
    """The plugin files the patch consists of: each entry's file and the file of each
    replacement definition (``module:qualname``) inside the plugin's root."""
    files = {item.entry.file for item in result.entries}
    for item in result.entries:
        module, sep, _qual = (item.entry.replacement or "").partition(":")
        found = tree.module_file(module) if sep and "<" not in module else None
        if found is not None:
            try:
                files.add(tree.relative(found[0]))
            except ValueError:
                continue  # outside the plugin's root
    return files


#: The decision word of the report's entries for such a finding port did not handle.
FINDING = "finding"


def unhandled_findings(
    result: RuntimeAudit, done: list[PortedEntry], edits: Edits
) -> list[PortedEntry]:
    """Each finding of the audit that a name the plugin uses is gone from the new release
    (:data:`~patchkeeper.runtime.judge.crosscheck.GONE_NAME`) that no import entry of port's
    report (``done``) covers (rewritten or named: same file, same name) and no rewrite of
    its line by port drops (a retarget's ``import OLD`` -> ``import NEW``), left by hand
    with the audit's words, which say where the new release defines the name. Port rewrites
    the ``from M import name`` of the files that hold patches; a module of the plugin that
    holds none (a plugin scanned whole), or a use of the name other than an import
    (``vllm.a.b.name(...)``), is not rewritten: listed, they keep port from saying there is
    nothing to write while the plugin breaks at the new release."""
    covered = {(e.file, e.target) for e in done if e.decision == IMPORT}
    out = []
    for finding in result.findings:
        if finding.code not in GONE_NAME or not finding.path:
            continue
        name = gone_name(finding)
        if (str(finding.path), name) in covered or _rewritten(edits, finding, name):
            continue
        fix = finding.hint or (
            "use the name where the new upstream defines it"
            if "; now defined at " in finding.message
            else "replace or drop its use"
        )
        detail = f"{finding.code}: {finding.message}: runtime port does not rewrite it: {fix}"
        out.append(PortedEntry(str(finding.path), finding.line or 0, name, FINDING, LEFT, detail))
    return out


def _rewritten(edits: Edits, finding: Finding, name: str) -> bool:
    """Whether port rewrote the line of ``finding`` (a line of its file as read) into text
    that no longer names ``name``, or deleted it (the dead branch of a version gate it cut,
    :func:`_cut_away`)."""
    if finding.path not in edits.lines or not finding.line:
        return False
    if _cut_away(edits, finding.path, finding.line):
        return True
    line = edits.line(finding.path, finding.line)
    spans = edits.spans.get(finding.path, [])
    return line is not None and any(
        start <= line <= end and not names(text, name) for start, end, text in spans
    )


def port_plan(
    result: RuntimeAudit,
    root: Path,
    trees: tuple[UpstreamTree, UpstreamTree],
    tree: PluginTree,
) -> tuple[list[PortedEntry], dict[str, str]]:
    """Per-entry actions and the new text of every changed file (relative path -> text)."""
    versions = tuple(
        release_version(spec, tree_.root) or spec
        for spec, tree_ in zip((result.old, result.new), trees)
    )
    edits = Edits(root, (versions[0], versions[1]))
    for file in sorted(_patch_files(result, tree)):
        edits.original(file)
    new_version = release_version(result.new, trees[1].root)
    done: list[PortedEntry] = []
    reviewed = _reviewed_files(result, new_version, edits)
    for item in result.entries:
        entry, decision = item.entry, item.drift.decision
        base = PortedEntry(entry.file, entry.line, entry.target, decision, LEFT, "")
        if decision == RETAIN or decision == "not-audited":
            done.append(replace(base, action=NOTHING, detail=item.drift.evidence[0]))
        elif decision == UPDATE and item.new.status == MOVED:
            done.append(_retarget(item, edits, trees))
        elif decision == UPDATE and item.new.status == FOUND and item.old.status == FOUND:
            unresolved = unreadable_copy(entry.replacement, tree)
            if entry.file in reviewed and unresolved:
                done.append(replace(base, detail=unresolved))
            elif entry.file in reviewed:
                detail = (
                    f"not merged again: the file's 'Affected versions:' says "
                    f"'{reviewed[entry.file]}' (an earlier port merged it; a second merge from "
                    "the old release would conflict with the resolution)"
                )
                done.append(replace(base, action=NOTHING, detail=detail))
            else:
                done.append(merge_entry(item, result, trees, tree, edits))
        elif decision == REMOVE and _cut_away(edits, entry.file, entry.line):
            detail = f"{item.drift.evidence[0]}; the cut of its version gate deleted it"
            done.append(replace(base, action=GATE_CUT, detail=detail))
        elif decision in (REMOVE, MIGRATE):
            done.append(replace(base, detail=item.drift.evidence[0]))
        else:
            done.append(replace(base, detail=item.drift.evidence[0]))
    label = release_label(result.new, trees[1].root)
    patching = frozenset((e.entry.file, e.entry.line) for e in result.entries)
    done += helper_imports(sorted(_patch_files(result, tree)), trees, edits, label, patching)
    done += _gates(result, edits, versions[1])
    done += unhandled_findings(result, done, edits)
    done += _headers(result, new_version, label, edits, done)
    return done, edits.result()
