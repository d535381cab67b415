"""The port report: a terminal table with details, and Markdown for a pull request."""

from __future__ import annotations

from patchkeeper.audit.verdicts import (
    BLOCKED,
    CLEAN,
    CONFLICT,
    OFFSET,
    PARTIALLY_UPSTREAMED,
    TARGET_GONE,
    UPSTREAMED,
)
from patchkeeper.port import merge
from patchkeeper.port.finish import DONE
from patchkeeper.port.rebase import CARRIED, DROPPED, MERGED, RESOLVED, PortedPatch
from patchkeeper.port.results import ABORTED, PENDING, PortResult
from patchkeeper.render import markdown_renderer, text_renderer
from patchkeeper.render.terminal import tally
from patchkeeper.system.markdown_cells import escape_cell
from patchkeeper.system.names import shown_name

#: Verdicts in the order the counts line lists them.
ORDER = (
    CLEAN,
    OFFSET,
    MERGED,
    RESOLVED,
    PARTIALLY_UPSTREAMED,
    UPSTREAMED,
    DROPPED,
    CONFLICT,
    TARGET_GONE,
    BLOCKED,
    PENDING,
)


def counts_line(result: PortResult) -> str:
    counts = result.counts
    known = [f"{counts[v]} {v}" for v in ORDER if v in counts]
    return ", ".join(known + [f"{n} {v}" for v, n in counts.items() if v not in ORDER])


def verdict_cell(patch: PortedPatch) -> str:
    return f"pending ({patch.verdict})" if patch.pending else patch.verdict


def _range_diff(patch: PortedPatch, indent: str) -> list[str]:
    change = patch.change
    if change is None or change.same:
        return []
    from patchkeeper.render.console import diff_lines

    out = [f"{indent}change: {change.summary}"]
    path = None
    for line in change.lines[:40]:
        if line.path != path:
            path = line.path
            out.append(f"{indent}  {path}")
        out += diff_lines([f"{line.side} {line.kind}{line.text}"], f"{indent}    ")
    if len(change.lines) > 40:
        out.append(f"{indent}    ... {len(change.lines) - 40} more lines")
    return out


def _causes(patch: PortedPatch, indent: str) -> list[str]:
    out = []
    for cause in patch.causes:
        commits = cause.commits or cause.file_commits
        what = "changed these lines" if cause.commits else "changed the file"
        head = f"{indent}cause: {cause.path} hunk #{cause.hunk}"
        if sum(1 for c in patch.causes if (c.path, c.hunk) == (cause.path, cause.hunk)) > 1:
            head += f" ({cause.header})"  # two diffs of one file: each has a hunk #1
        if cause.new_range:
            head += f" (new pin lines {cause.new_range[0]}-{cause.new_range[1]})"
        if cause.note:
            head += f": {cause.note}"
        out.append(head + ("" if commits else ": no upstream commit between the tags"))
        for commit in commits[:5]:
            out.append(f"{indent}  {commit.id[:12]} {commit.subject} ({what})")
        if len(commits) > 5:
            out.append(f"{indent}  ... {len(commits) - 5} more")
    return out


def _references(patch: PortedPatch, indent: str) -> list[str]:
    out = []
    for ref in patch.references:
        line = f"{indent}{ref.field}: {ref.text}: {ref.status}"
        if ref.commit is not None:
            line += f", {ref.commit.id[:12]} {ref.commit.subject}"
            if ref.first_tag:
                line += f", first in {ref.first_tag}"
        out.append(line)
    return out


def details(patch: PortedPatch, indent: str = "    ") -> list[str]:
    """Everything beyond the summary: files merged, range-diff, causes, references."""
    out = []
    merged = [f for f in patch.files if f.status != merge.CLEAN or f.target != f.path]
    for item in merged:
        where = item.target if item.target == item.path else f"{item.path} -> {item.target}"
        extra = ""
        if item.status == merge.CONFLICT:
            extra = f" ({item.conflicts} region{'s' if item.conflicts != 1 else ''})"
            if patch.verdict in (RESOLVED, DROPPED):
                extra += ", resolved by hand"
            elif patch.verdict == MERGED:  # the refresh carried the patch past git's conflict
                extra += ", set aside: the refresh carried the patch"
        out.append(f"{indent}file: {where}: {item.status}{extra}")
    if patch.cut_against and " " in patch.cut_against.strip() and patch.verdict in CARRIED:
        out.append(f"{indent}Cut-against was: {patch.cut_against} (now the new pin alone)")
    out += _range_diff(patch, indent)
    out += _causes(patch, indent)
    out += _references(patch, indent)
    return out


@text_renderer(PortResult)
def port_text(result: PortResult) -> str:
    """The terminal form: a row per patch, details, counts and what is left to do."""
    from patchkeeper.render.terminal import table

    if result.outcome == ABORTED:
        return f"aborted the port of {result.series}: removed {result.work_dir}"
    lines = [
        f"port of {result.series}: {result.source_version or '?'} -> {result.target_version}",
        f"  from {result.source}",
        f"  to   {result.target}",
        f"  upstream history: {result.history or 'missing (no --upstream-repo)'}",
        "",
    ]
    names = [shown_name(p.name) for p in result.patches]
    width = max((len(name) for name in names), default=5)
    rows = [(n.ljust(width), verdict_cell(p), p.summary) for n, p in zip(names, result.patches)]
    lines.extend(table([("patch".ljust(width), "verdict", "evidence"), *rows]))
    for patch in result.patches:
        detail = details(patch)
        if detail:
            lines += ["", f"  {shown_name(patch.name)} ({verdict_cell(patch)}):", *detail]
    lines += ["", tally(len(result.patches), counts_line(result))]
    if result.outcome == DONE:
        where = "in place in " if result.in_place else "in "
        lines.append(f"done: the series for {result.target_version} is {where}{result.output}")
    else:
        lines.append(f"stopped at {result.stopped_at}; work directory {result.work_dir}")
    if result.retired:
        lines.append("retired in the ledger: " + ", ".join(result.retired))
    if result.todo:
        lines.append("to do:")
        lines.extend(f"  - {item}" for item in result.todo)
    return "\n".join(lines)


@markdown_renderer(PortResult)
def port_markdown(result: PortResult) -> str:
    """A report a maintainer can paste into the pull request that moves the pin."""
    if result.outcome == ABORTED:
        return f"Port of `{result.series}` aborted.\n"
    out = [
        f"## patchkeeper port: {result.source_version or '?'} -> {result.target_version}",
        "",
        f"Series `{result.series}`, from {result.source} to {result.target}.",
        f"Upstream history: {result.history or 'missing (no `--upstream-repo`)'}.",
        "",
        f"**{tally(len(result.patches), counts_line(result))}.**",
        "",
        "| patch | verdict | evidence |",
        "|---|---|---|",
    ]
    for patch in result.patches:
        name = shown_name(patch.name).replace("|", "\\|")  # a code span: no other escape
        out.append(f"| `{name}` | {verdict_cell(patch)} | {escape_cell(patch.summary)} |")
    detailed = [p for p in result.patches if details(p)]
    if detailed:
        out += ["", "### Details"]
        for patch in detailed:
            out += ["", f"#### `{shown_name(patch.name)}`: {verdict_cell(patch)}", "", "```"]
            out += [line[4:] for line in details(patch)]
            out.append("```")
    if result.todo:
        out += ["", "### To do", ""]
        out += [f"- {item}" for item in result.todo]
    return "\n".join(out) + "\n"
