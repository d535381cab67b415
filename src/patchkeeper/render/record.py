"""The terminal and Markdown forms of the audit-record commands' results: ``report``,
``decide`` and ``record``."""

from __future__ import annotations

from typing import Any

from patchkeeper.constants import SUGGESTED_PREFIX
from patchkeeper.constants import DecisionWord as Word
from patchkeeper.errors import Finding
from patchkeeper.record.results import Added, DecideResult, RecordResult, ReportResult
from patchkeeper.render import markdown_renderer, text_renderer
from patchkeeper.render.terminal import plural


@text_renderer(ReportResult)
def report_text(result: ReportResult) -> str:
    c = result.counts
    counted = f"{plural(c.series, 'series patch')}, {plural(c.runtime, 'runtime entry')}, "
    # tables of patches or entries no longer carried, named only when there are some
    if c.retired:
        counted += f"{c.retired} retired, "
    if c.unknown:
        counted += f"{plural(c.unknown, 'table')} of an unknown key, "
    counted += f"{c.decided} decided"
    if c.suggested:
        counted += f", {c.suggested} suggested"
    if result.check:
        state = "does not exist" if result.missing else "is stale or false"
        head = (
            f"the record {result.audit_file} is current and true ({counted})"
            if not result.findings
            else f"the record {result.audit_file} {state}: "
            f"{plural(len(result.findings), 'finding')} ({counted})"
        )
    else:
        head = f"wrote {', '.join(result.written)} ({counted})"
        if result.findings:
            head += f"; {plural(len(result.findings), 'open problem')}"
    lines = [head] + [f"  {f.code}: {_placed(f)}" for f in result.findings]
    return "\n".join(lines)


def _placed(finding: Finding) -> str:
    """The finding's sentence after its file and line (the table of the decisions file it
    is about), unless the message already begins with them."""
    where, sentence = finding.where(), finding.sentence()
    if where and not sentence.startswith(f"{where}:"):
        return f"{where}: {sentence}"
    return sentence


@text_renderer(DecideResult)
def decide_text(result: DecideResult) -> str:
    lines = [f"{result.path}: added {len(result.added)}, kept {result.kept} existing"]
    for added in result.added:
        decision = _suggested(added) or "(none: decide by hand)"
        lines.append(f"  {added.kind} {added.key}: {decision} ({added.verdict or 'no evidence'})")
    if result.filled:
        lines.append(
            f"filled {len(result.filled)} existing table(s) written before there was evidence:"
        )
        lines += [f"  {f.kind} {f.key}: {_suggested(f)} ({f.verdict})" for f in result.filled]
    gone = [f for f in result.replaced if f.decision != Word.CARRY]
    carried = [f for f in result.replaced if f.decision == Word.CARRY]
    if gone:
        lines.append(
            f"replaced {plural(len(gone), 'suggestion')} about patches the port took "
            "out of the series:"
        )
        lines += [f"  {f.kind} {f.key}: {_suggested(f)} ({f.verdict})" for f in gone]
    if carried:
        lines.append(
            f"replaced {plural(len(carried), 'suggestion')} to update patches the port has "
            "carried since:"
        )
        lines += [f"  {f.kind} {f.key}: {_suggested(f)} ({f.verdict})" for f in carried]
    suggested = sum(a.suggested for a in result.added + result.filled + result.replaced)
    if suggested:
        lines.append(
            f'{plural(suggested, "suggestion")} to review: delete "suggested: " from a '
            "decision to accept it, or write your own; report --check fails until then"
        )
    if result.hint:
        lines.append(result.hint)
    return "\n".join(lines)


def _suggested(added: Added) -> str:
    """``suggested: carry`` for a suggestion, as the decisions file spells it."""
    return f"{SUGGESTED_PREFIX}{added.decision}" if added.suggested else added.decision


@text_renderer(RecordResult)
def record_text(result: RecordResult) -> str:
    import shlex

    c = result.command
    lines = [
        f"{shlex.join(c.argv)}: exit {c.exit_code} in {c.duration:.1f} s; recorded in {result.path}"
    ]
    lines += [f"  | {line}" for line in c.tail]
    return "\n".join(lines)


@markdown_renderer(ReportResult)
@markdown_renderer(DecideResult)
@markdown_renderer(RecordResult)
def fenced(result: Any) -> str:
    """The terminal text in a code block."""
    from patchkeeper.render import render_text

    return "```\n" + render_text(result) + "\n```\n"
