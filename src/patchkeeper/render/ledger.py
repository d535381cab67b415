"""Terminal and Markdown forms of the ledger, lint, export, import and check-branch results."""

from __future__ import annotations

from pathlib import Path

from patchkeeper.ledger.check_branch import CheckBranchResult
from patchkeeper.ledger.export import ExportResult
from patchkeeper.ledger.importer import ImportResult
from patchkeeper.ledger.lint import LintResult
from patchkeeper.ledger.table import LedgerResult, RetireResult
from patchkeeper.render import markdown_renderer, text_renderer
from patchkeeper.render.terminal import plural
from patchkeeper.system.markdown_cells import escape_cell
from patchkeeper.system.names import shown_name

#: The command that rewrites the table where patchkeeper runs from pre-commit's own
#: environment (the ``patchkeeper-ledger`` hook of ``.pre-commit-hooks.yaml``): the user's
#: shell may have no ``patchkeeper``. ``--all-files``: the hook runs whatever is staged.
FIX_HOOK = "'pre-commit run patchkeeper-ledger --all-files'"


def shown(path: Path | None, root: Path | None = None) -> str:
    """``path`` relative to the downstream ``root`` when inside it, else as given; as every
    output shows a file name (:func:`patchkeeper.system.names.shown_name`)."""
    if path is None:
        return "-"
    if root is not None and path.is_absolute():
        try:
            return shown_name(path.relative_to(root).as_posix())
        except ValueError:
            pass
    return shown_name(path.as_posix())


@text_renderer(LedgerResult)
def ledger_text(result: LedgerResult) -> str:
    """``PATCHES.md: the ledger is current (55 rows)``, or the diff of what is stale."""
    where = shown(result.path, result.root)
    rows = plural(len(result.rows), "row")
    if result.check and result.stale:
        fix = FIX_HOOK if result.pre_commit else "'patchkeeper ledger'"
        return f"{where}: the ledger is stale; run {fix} to rewrite it\n{result.diff}"
    if result.written and result.pre_commit:
        return (
            f"{where}: the ledger was stale; rewrote it ({rows}): review it, 'git add "
            f"{where}' and commit again\n{result.diff}"
        )
    if result.written:
        return f"{where}: wrote the ledger ({rows})"
    return f"{where}: the ledger is current ({rows})"


@markdown_renderer(LedgerResult)
def ledger_markdown(result: LedgerResult) -> str:
    where = shown(result.path, result.root)
    if result.stale and result.check:
        return f"The ledger in `{where}` is stale:\n\n```diff\n{result.diff}```\n"
    return f"The ledger in `{where}` is current ({len(result.rows)} rows).\n"


@text_renderer(RetireResult)
def retire_text(result: RetireResult) -> str:
    removed = f"removed {shown(result.patch_file, result.root)}; " if result.patch_file else ""
    at = f"{result.at} ({result.at_from}; --at names another)" if result.at_from else result.at
    text = (
        f"retired {shown_name(result.name)} at {at}: {removed}took it out of "
        f"{shown(result.series, result.root)}; recorded in {shown(result.ledger, result.root)}"
    )
    if result.spec_tag:
        text += (
            f"\nto do: {result.spec_tag} still names it (its Patch tag): take the tag out "
            "(and its %patch line, if any), or rpmbuild stops at the missing file"
        )
    return text


@markdown_renderer(RetireResult)
def retire_markdown(result: RetireResult) -> str:
    return f"Retired `{shown_name(result.name)}` at {result.at}: {result.why}\n"


@text_renderer(LintResult)
def lint_text(result: LintResult) -> str:
    """One ``file:line: code message`` per finding (or GitHub annotations), then a summary."""
    if result.output_format == "github":
        lines = [finding.github() for finding in result.findings]
    else:
        lines = [finding.text(result.cwd) for finding in result.findings]
    scope = plural(result.patches, "patch")
    if result.unread:
        names = ", ".join(shown_name(name) for name in result.unread)
        scope += f" ({len(result.unread)} not read: {names})"
    if result.entries:
        scope += f" and {plural(result.entries, 'entry')}"
    if result.output_format == "github":
        lines += [f"::notice::skipped: {note}" for note in result.skipped]
    else:
        lines += [f"skipped: {note}" for note in result.skipped]
    count = plural(len(result.findings), "problem")
    lines.append(f"{count} in {scope}" if result.findings else f"no problems in {scope}")
    if result.hint:
        hint = result.hint.removeprefix("hint: ")
        lines.append(f"::notice::{hint}" if result.output_format == "github" else result.hint)
    return "\n".join(lines)


@markdown_renderer(LintResult)
def lint_markdown(result: LintResult) -> str:
    notes = "".join(f"\nSkipped: {note}\n" for note in result.skipped)
    if not result.findings:
        return f"lint: no problems in {plural(result.patches, 'patch')}.\n" + notes
    rows = ["| where | code | problem |", "|---|---|---|"]
    for finding in result.findings:
        message = escape_cell(finding.sentence())
        rows.append(f"| `{finding.where()}` | {finding.code} | {message} |")
    return "\n".join(rows) + "\n" + notes


@text_renderer(ExportResult)
def export_text(result: ExportResult) -> str:
    lines = []
    for patch in result.patches:
        state = "wrote" if patch.changed else "unchanged"
        lines.append(f"{state} {shown(patch.path, result.root)} (from {patch.commit[:12]})")
    if result.series is not None:
        count = len(result.patches)
        entries = f"{count} entry" if count == 1 else f"{count} entries"
        state = "wrote" if result.series_changed else "unchanged"
        lines.append(f"{state} {shown(result.series, result.root)} ({entries})")
    for name in result.dropped:
        lines.append(
            f"{name} is no longer in the series; record it with 'patchkeeper retire' "
            "or delete the file"
        )
    for name in result.unlisted:
        series = (
            "the series" if result.series_file is None else shown(result.series_file, result.root)
        )
        lines.append(
            f"{name} is not in {series}: apply and verify leave it out until its line is "
            "added there, in apply order ('export --range BASE..BRANCH' writes the series)"
        )
    return "\n".join(lines)


@markdown_renderer(ExportResult)
def export_markdown(result: ExportResult) -> str:
    lines = [f"- `{shown(p.path, result.root)}` from `{p.commit[:12]}`" for p in result.patches]
    series = "the series" if result.series_file is None else shown(result.series_file, result.root)
    lines += [f"- `{name}` is not in `{series}`: add its line there" for name in result.unlisted]
    return "".join(f"{line}\n" for line in lines)


@text_renderer(ImportResult)
def import_text(result: ImportResult) -> str:
    lines = [
        f"created branch {result.branch} at {result.base} with "
        f"{plural(len(result.commits), 'commit')} in {shown(result.checkout)}"
    ]
    lines += [f"  {item.commit[:12]} {item.topic}" for item in result.commits]
    return "\n".join(lines)


@markdown_renderer(ImportResult)
def import_markdown(result: ImportResult) -> str:
    return import_text(result) + "\n"


@text_renderer(CheckBranchResult)
def check_branch_text(result: CheckBranchResult) -> str:
    head = f"{result.branch} against the series on {result.base}"
    if not result.differences:
        return (
            f"{head}: they agree ({plural(len(result.topics), 'topic')}, "
            f"{plural(result.files, 'file')} compared)"
        )
    lines = [f"{head}: {plural(len(result.differences), 'difference')}"]
    lines += [f"  {d.kind} {shown_name(d.name)}: {d.detail}" for d in result.differences]
    if result.hint:
        lines.append(f"hint: {result.hint}")
    return "\n".join(lines)


@markdown_renderer(CheckBranchResult)
def check_branch_markdown(result: CheckBranchResult) -> str:
    if not result.differences:
        return f"`{result.branch}` agrees with the series on `{result.base}`.\n"
    rows = ["| kind | name | difference |", "|---|---|---|"]
    rows += [
        f"| {d.kind} | `{shown_name(d.name)}` | {escape_cell(d.detail)} |"
        for d in result.differences
    ]
    return "\n".join(rows) + "\n"
