"""The audit report: a terminal table and a Markdown report for a pull request."""

from __future__ import annotations

from patchkeeper.audit.results import AuditResult
from patchkeeper.audit.verdicts import (
    GOOD,
    PatchVerdict,
)
from patchkeeper.render import markdown_renderer, text_renderer
from patchkeeper.render.terminal import tally
from patchkeeper.system.markdown_cells import escape_cell, escape_inline
from patchkeeper.system.names import shown_name


def _pin_line(result: AuditResult) -> str:
    """Which old tree the evidence was weighed against, or why there was none."""
    if result.pin_tree is not None:
        return f"weighed against the old pin's tree: {result.pin_tree}"
    return (
        f"the old pin's tree could not be had ({result.pin_note}): lines it already had "
        "count as evidence too"
    )


def _between_lines(result: AuditResult) -> list[str]:
    """The releases between the pin and the audited one that were judged for the failing
    patches (:attr:`AuditResult.between`), or why they could not be had; none when none
    was asked about."""
    between = result.between
    if between is None:
        return []
    if between.note is not None:
        return [f"the releases between the pin and this one could not be had ({between.note})"]
    if not between.versions:
        return [f"no release between the pin and this one in {between.source}"]
    line = (
        f"releases between the pin and this one, judged for the failing patches: "
        f"{', '.join(between.versions)}"
    )
    if between.left_out:
        every = len(between.versions) + between.left_out
        line += (
            f" ({len(between.versions)} of {every}: the last of each release series, "
            "evenly spaced; the others were not fetched)"
        )
    return [line]


def _hunk_detail(verdict: PatchVerdict, indent: str) -> list[str]:
    from patchkeeper.render.terminal import failure_lines, hunk_lines

    lines: list[str] = []
    if verdict.failures:
        lines.extend(failure_lines(verdict.failures, indent))
        return lines
    # A patch with no failing file of its own (blocked: its hunks need another patch's
    # lines): its failing hunks, under their file as for a failure, since hunk numbers
    # restart in each file ("hunk #1" of two files would read as the same hunk).
    shown = ""
    for hunk in verdict.hunks:
        if hunk.status == "fails" and hunk.evidence is not None:
            if hunk.path != shown:
                lines.append(f"{indent}{hunk.path}:")
                shown = hunk.path
            lines.extend(hunk_lines(hunk.evidence, indent + "  "))
    return lines


@text_renderer(AuditResult)
def audit_text(result: AuditResult) -> str:
    """The terminal form: one row per patch, then details for those needing work."""
    from patchkeeper.render.terminal import table

    head = f"audit of {result.series}"
    if result.pin:
        head += f" (pin {result.pin})"
    lines = [head, f"against {result.target}", _pin_line(result), *_between_lines(result), ""]
    names = [shown_name(v.name) for v in result.verdicts]
    width = max((len(name) for name in names), default=5)
    rows = [(n.ljust(width), v.verdict, v.summary) for n, v in zip(names, result.verdicts)]
    lines.extend(table([("patch".ljust(width), "verdict", "evidence"), *rows]))
    needing = [v for v in result.verdicts if v.verdict not in GOOD]
    for verdict in needing:
        detail = _hunk_detail(verdict, "    ")
        if detail:
            lines.append("")
            lines.append(f"  {shown_name(verdict.name)} ({verdict.verdict}):")
            lines.extend(detail)
    lines.append("")
    lines.append(tally(len(result.verdicts), result.counts_line))
    if result.to_retire:
        retire = ", ".join(shown_name(name) for name in result.to_retire)
        lines.append("to retire (already upstream): " + retire)
    if result.to_review:
        review = ", ".join(shown_name(name) for name in result.to_review)
        lines.append("upstream, to review before retiring: " + review)
    return "\n".join(lines)


@markdown_renderer(AuditResult)
def audit_markdown(result: AuditResult) -> str:
    """A report a maintainer can paste into a pull request."""
    out = [f"## patchkeeper audit: {result.target_version or result.target}", ""]
    out.append(
        f"Series `{result.series}`"
        + (f", pinned to {result.pin}" if result.pin else "")
        + f", against {result.target}; {_pin_line(result)}."
    )
    out.extend(f"{escape_inline(line)}." for line in _between_lines(result))
    out.append("")
    out.append(f"**{tally(len(result.verdicts), result.counts_line)}.**")
    out.append("")
    out.append("| patch | verdict | evidence |")
    out.append("|---|---|---|")
    for verdict in result.verdicts:
        name = shown_name(verdict.name).replace("|", "\\|")  # a code span: no other escape
        out.append(f"| `{name}` | {verdict.verdict} | {escape_cell(verdict.summary)} |")
    needing = [v for v in result.verdicts if v.verdict not in GOOD]
    if needing:
        out.append("")
        out.append("### Needs work")
        for verdict in needing:
            out.append("")
            out.append(f"#### `{shown_name(verdict.name)}`: {verdict.verdict}")
            out.append("")
            out.append(escape_inline(verdict.summary))
            detail = _hunk_detail(verdict, "")
            if detail:
                out.append("")
                out.append("```")
                out.extend(detail)
                out.append("```")
    for title, names in (
        ("To retire", result.to_retire),
        ("Upstream, to review before retiring", result.to_review),
    ):
        if names:
            out += ["", f"### {title}", ""]
            out.extend(f"- `{shown_name(name)}`" for name in names)
    return "\n".join(out) + "\n"
