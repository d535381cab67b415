"""Terminal and Markdown forms of the runtime-patch results (``patchkeeper runtime ...``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from patchkeeper.constants import DecisionWord
from patchkeeper.errors import Finding
from patchkeeper.render import markdown_renderer, text_renderer
from patchkeeper.runtime.inventory.activation import never_called
from patchkeeper.runtime.inventory.runners import LEFT_OUT_WHY
from patchkeeper.runtime.inventory.unparsed import conflict_line, describe, unparsed
from patchkeeper.runtime.judge.runtime_audit import RuntimeAudit
from patchkeeper.runtime.judge.samecode import SameCode
from patchkeeper.runtime.live.check import LiveCheck
from patchkeeper.runtime.model import Inventory, PatchEntry
from patchkeeper.system.english import plural
from patchkeeper.system.markdown_cells import escape_cell

DIFF_LINES = 40


def _counts(counts: dict[str, dict[str, int]], entries: Sequence[PatchEntry] = ()) -> list[str]:
    """One line per table of ``counts``; the activation line says how many of the
    never-imported ``entries`` are untraced: not reached from the roots the trees show, which
    does not say they never run (the plugin's loading is not declared)."""
    untraced = sum(
        1
        for e in entries
        if e.activation is not None
        and e.activation.status.value == "never-imported"
        and e.activation.untraced
    )
    return [
        f"{name}: "
        + (", ".join(f"{k} {v}" for k, v in table.items()) or "none")
        + (
            f" ({untraced} of them untraced: whether they run is not known)"
            if name == "activation" and untraced
            else ""
        )
        for name, table in counts.items()
    ]


def _not_read(inventory: Inventory, what: str) -> list[str]:
    """One line per patch file that does not parse: its entries are not ``what``."""
    found = unparsed(inventory)
    if not found:
        return []
    lines = [f"not {what} ({len(found)} file(s); their entries are unknown):"]
    root = Path(inventory.plugin_root)
    return lines + [f"  {describe(f, root)}" for f in found]


#: How an entry is shown when no upstream tree was read to see whether vLLM loads the
#: plugin itself (:func:`patchkeeper.runtime.inventory.loading.loading`).
NOT_TRACED = "loading not traced without the upstream"


def _activation(entry: PatchEntry) -> str:
    a = entry.activation
    if a is None:
        return "?"
    if a.status.value == "never-imported" and a.untraced.startswith(NOT_TRACED):
        return f"{NOT_TRACED} ({a.note})"
    if a.status.value == "never-imported" and a.untraced:
        return f"not reached from its import or console scripts ({a.note}); untraced"
    if a.status.value == "never-imported" and never_called(entry):
        return f"never called ({a.note})"
    if a.status.value == "never-imported":
        return f"never imported ({a.note})"
    if a.conditions:
        return "conditional: " + "; ".join(
            f"{c.described()} ({c.file}:{c.line})" for c in a.conditions
        )
    return "active"


def _tests_left_out(inventory: Inventory) -> list[str]:
    """The line saying how many test modules the inventory left out and why (none: no
    line); JSON lists their files (``tests_left_out``)."""
    left = inventory.tests_left_out
    if not left:
        return []
    return [f"test modules left out: {len(left)} ({LEFT_OUT_WHY}; --json lists them)"]


def _entry_line(entry: PatchEntry) -> str:
    key = f"[{entry.key}]" if entry.key else ""
    extra = " allow_missing" if entry.allow_missing else ""
    extra += " (temporary: restored in finally)" if entry.temporary else ""
    return (
        f"{entry.file}:{entry.line}  {entry.mechanism.value:<11} {entry.target}{key}"
        f"  <- {entry.replacement}{extra}"
    )


@text_renderer(Inventory)
def inventory_text(result: Inventory) -> str:
    lines = [
        f"plugin {result.package} ({result.plugin_root}), patch directory "
        f"{result.patch_directory}: {plural(len(result.files), 'file')}, "
        f"{plural(len(result.entries), 'entry')}"
    ]
    lines += [
        f"entry point {e.group}:{e.name} = {e.value} ({e.source})" for e in result.entry_points
    ]
    lines += [f"loading: {f}" for f in result.loading if not f.startswith("entry point ")]
    lines += _tests_left_out(result)
    for entry in result.entries:
        lines.append(_entry_line(entry))
        lines.append(f"    {_activation(entry)}")
    if result.findings:
        lines.append(f"{len(result.findings)} finding(s):")
        lines += [f"  {_finding(f, Path(result.plugin_root))}" for f in result.findings]
    lines += _counts(result.counts, result.entries)
    return "\n".join(lines)


def _finding(finding: Finding, root: Path) -> str:
    """``FILE:LINE: CODE: MESSAGE``; a file that does not parse because of a conflict region
    is said to, at its first marker (:func:`patchkeeper.runtime.inventory.unparsed.describe`)."""
    if finding.code == "syntax":
        marker = conflict_line(root / finding.path)
        if marker:
            return f"{finding.path}:{marker}: syntax: an unresolved conflict region"
    return f"{finding.where()}: {finding.code}: {finding.sentence()}"


@markdown_renderer(Inventory)
def inventory_markdown(result: Inventory) -> str:
    lines = [
        f"# Runtime patches of {result.package}",
        "",
        "| file:line | mechanism | target | replacement | activation |",
        "| --- | --- | --- | --- | --- |",
    ]
    for e in result.entries:
        key = f"[{e.key}]" if e.key else ""
        lines.append(
            f"| {e.file}:{e.line} | {e.mechanism.value} | `{e.target}{key}` | "
            f"`{e.replacement}` | {escape_cell(_activation(e))} |"
        )
    if result.findings:
        lines += ["", "## Findings", ""]
        lines += [f"- {f.where()} {f.code}: {f.sentence()}" for f in result.findings]
    lines += ["", *(f"- {c}" for c in _counts(result.counts, result.entries))]
    return "\n".join(lines) + "\n"


def _clip(diff: str) -> list[str]:
    """The first :data:`DIFF_LINES` lines of ``diff``, indented, each cut at the width rather
    than wrapped (:func:`patchkeeper.render.console.diff_lines`)."""
    from patchkeeper.render.console import diff_lines

    lines = diff.splitlines()
    if len(lines) <= DIFF_LINES:
        return diff_lines(lines, "      ")
    more = f"      ... ({len(lines) - DIFF_LINES} more lines; --json)"
    return [*diff_lines(lines[:DIFF_LINES], "      "), more]


@text_renderer(RuntimeAudit)
def audit_text(result: RuntimeAudit) -> str:
    lines = [f"runtime audit of {result.inventory.package}: {result.old} -> {result.new}"]
    for item in result.entries:
        e, d = item.entry, item.drift
        lines.append(f"{d.decision.upper():<12} {_entry_line(e)}")
        lines += [f"    {x}" for x in d.evidence]
        if d.outside_banners:
            lines += [f"    outside banners: {x}" for x in d.outside_banners]
        if d.decision == DecisionWord.UPDATE and d.upstream_diff:
            lines += _clip(d.upstream_diff)
    lines += _not_read(result.inventory, "audited")
    lines += _tests_left_out(result.inventory)
    if result.findings:
        lines.append(f"{len(result.findings)} finding(s):")
        lines += [f"  {_finding(f, Path(result.inventory.plugin_root))}" for f in result.findings]
    unpatched = [s for s in result.stale if not s.patched_by]
    lines.append(f"stale bindings: {len(result.stale)} ({len(unpatched)} not patched)")
    for s in result.stale:
        state = f"patched by {s.patched_by}" if s.patched_by else "NOT patched"
        lines.append(f"  {s.file}:{s.line} {s.importer}.{s.local} = {s.defined_at}: {state}")
    lines += _counts(result.counts, [item.entry for item in result.entries])
    return "\n".join(lines)


@markdown_renderer(RuntimeAudit)
def audit_markdown(result: RuntimeAudit) -> str:
    lines = [
        f"# Runtime patch audit: {result.old} -> {result.new}",
        "",
        "| decision | file:line | target | evidence |",
        "| --- | --- | --- | --- |",
    ]
    for item in result.entries:
        e, d = item.entry, item.drift
        lines.append(
            f"| {d.decision} | {e.file}:{e.line} | `{e.target}` | "
            f"{escape_cell('; '.join(d.evidence))} |"
        )
    broken = unparsed(result.inventory)
    if broken:
        lines += ["", "## Not audited (not valid Python: their entries are unknown)", ""]
        root = Path(result.inventory.plugin_root)
        lines += [f"- {describe(f, root)}" for f in broken]
    if result.findings:
        lines += ["", "## Findings", ""]
        lines += [f"- {f.where()} {f.code}: {f.sentence()}" for f in result.findings]
    lines += ["", "## Stale bindings", ""]
    lines += [
        f"- `{s.importer}.{s.local}` ({s.file}:{s.line}) binds `{s.defined_at}`: "
        f"{'patched by ' + s.patched_by if s.patched_by else 'not patched'}"
        for s in result.stale
    ] or ["none: no module of the new upstream binds a patched name with `from ... import`"]
    # the counts are the whole audit's, not the stale bindings': a heading of their own
    lines += [
        "",
        "## Counts",
        "",
        *(f"- {c}" for c in _counts(result.counts, [item.entry for item in result.entries])),
    ]
    return "\n".join(lines) + "\n"


@text_renderer(LiveCheck)
def check_text(result: LiveCheck) -> str:
    lines = [f"interpreter {result.python} (Python {result.version})"]
    lines += [
        f"file of {k}: {v if v is not None else 'not imported'}"
        for k, v in result.package_files.items()
    ]
    lines += [f"extension module {x}" for x in result.extensions]
    for a in result.activation:
        detail = f" {a.module or ''} {a.detail or ''}".rstrip()
        lines.append(f"entry point {a.group}:{a.name} = {a.value}: {a.status}{detail}")
        if a.trace and not a.loaded:
            lines += ["  " + line for line in a.trace.rstrip().splitlines()]
    skipped = [e for e in result.entries if e.status == "not-checked"]
    if skipped:
        lines.append(
            f"not checked ({plural(len(skipped), 'entry')}): importing their upstream modules "
            "fails with one error, the cause (a runtime library of the platform that does not "
            "load here?):"
        )
        lines += ["  " + line for line in result.cause.splitlines()]
    lines += [
        f"{e.status:<15} {e.file}:{e.line} {e.target} ({e.detail})"
        for e in result.entries
        if e.status != "not-checked"
    ]
    lines += [
        f"stale live binding: {s.importer}.{s.local} keeps the original {s.target}"
        for s in result.stale
    ]
    if result.unread:
        lines.append(f"not checked ({len(result.unread)} file(s); their entries are unknown):")
        lines += [f"  {x}" for x in result.unread]
    if result.other_copy:
        lines.append(
            f"the interpreter imports another copy of the plugin, whose patch files differ "
            f"from the ones the entries were read from ({len(result.other_copy)} file(s)): "
            "install this directory there (pip install -e), or give --plugin the copy it "
            "imports (its file is listed above)"
        )
        lines += [f"  {x}" for x in result.other_copy]
    return "\n".join(lines)


@markdown_renderer(LiveCheck)
def check_markdown(result: LiveCheck) -> str:
    return "```\n" + check_text(result) + "\n```\n"


@text_renderer(SameCode)
def same_text(result: SameCode) -> str:
    if result.same:
        return f"same code: {result.left} and {result.right} (docstrings and comments ignored)"
    return (
        f"different code: {result.left}:{result.left_line} vs "
        f"{result.right}:{result.right_line}: {result.difference}"
    )


@markdown_renderer(SameCode)
def same_markdown(result: SameCode) -> str:
    return same_text(result) + "\n"
