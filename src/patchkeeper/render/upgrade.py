"""The terminal and Markdown forms of ``upgrade``'s result: the steps, then what is left for
a person, in the order a person does it (conflicts, entries the evidence does not decide,
suggestions to accept, the commands that check the result)."""

from __future__ import annotations

from patchkeeper.constants import DecisionWord
from patchkeeper.record.decisions import RUNTIME
from patchkeeper.record.reconcile import ACCEPT_OR_CHANGE
from patchkeeper.render import markdown_renderer, text_renderer
from patchkeeper.system.english import plural
from patchkeeper.system.markdown_cells import escape_cell
from patchkeeper.upgrade.results import StepStatus, Suggestion, UpgradeOutcome, UpgradeResult

#: What a verdict or suggestion of a patch a person edited after the audit read it says.
BEFORE_EDIT = "the audit read the patch before its edit by hand"


def _head(result: UpgradeResult) -> str:
    version = result.target_version or result.to
    where = f" on branch {result.branch} (from {result.base})" if result.branch else ""
    return f"upgrade of {result.root} to {version}{where}"


def _step_lines(result: UpgradeResult) -> list[str]:
    lines = []
    width = max(len(step.name) for step in result.steps)
    for step in result.steps:
        line = f"  {step.name:<{width}}  {step.status:<7}  {step.summary}".rstrip()
        lines.append(line)
        for edit in result.edited:  # a person's, before the step ran again: not its own
            if edit.before != step.name:
                continue
            lines.append(
                f"  {'':<{width}}  {'':<7}  edited by hand before it ran again: "
                + ", ".join(edit.files)
            )
            if edit.commit:
                lines.append(f"  {'':<{width}}  {'':<7}  commit {edit.commit[:12]} {edit.subject}")
        if step.files:
            lines.append(f"  {'':<{width}}  {'':<7}  wrote {', '.join(step.files)}")
        if step.commit:
            lines.append(f"  {'':<{width}}  {'':<7}  commit {step.commit[:12]} {step.subject}")
    return lines


#: What a suggestion to keep a patch or entry without a removal condition needs besides
#: its acceptance (``report --check`` fails on a kept one without it).
NO_CONDITION = "no removal-condition yet: write when it can go"


def _unchanged(suggestion: Suggestion) -> bool:
    """A suggestion to retain a runtime entry the runtime audit answered *retain* for."""
    retain = DecisionWord.RETAIN
    return (suggestion.kind, suggestion.decision, suggestion.verdict) == (RUNTIME, retain, retain)


def left_for_a_person(result: UpgradeResult) -> list[str]:
    """The to-do list: numbered sections, empty ones left out."""
    sections: list[tuple[str, list[str]]] = []
    if result.conflicts:
        items = []
        for conflict in result.conflicts:
            listed = f": {', '.join(conflict.files)}" if conflict.files else ""
            items.append(f"{conflict.kind} {conflict.name}{listed}")
            items.append(f"  {conflict.hint}")
        sections.append(("conflicts to resolve", items))
    if result.undecided:
        items = []
        for entry in result.undecided:
            said = entry.verdict or "no verdict"
            if entry.before_edit:
                said += f"; {BEFORE_EDIT}"
            items.append(f"{entry.kind} {entry.key} ({said})")
            items += [f"  {line}" for line in entry.evidence]
        sections.append(("look (the evidence does not decide)", items))
    if result.suggestions:
        # A runtime entry the runtime audit answered *retain* for (upstream left it as it
        # was, or changed it in a way the patch does not reach: a wrapper that calls the
        # original, a target outside the upgraded upstream) needs its suggestion accepted
        # (report --check asks for it) but no thought: listed one by one, hundreds of them
        # hid the few a person must judge. They are counted in one line (JSON: each listed).
        kept = [s for s in result.suggestions if _unchanged(s)]
        # A kept patch or entry (carry, retain) also needs its removal-condition written:
        # report --check fails on an accepted keep without one, so the list says so.
        items = [
            f"{s.kind} {s.key}: {s.decision} (verdict: {s.verdict or 'none'}"
            + (f"; {BEFORE_EDIT})" if s.before_edit else ")")
            + (f"; {NO_CONDITION}" if s.needs_condition else "")
            for s in result.suggestions
            if not _unchanged(s)
        ]
        if kept:
            bare = sum(s.needs_condition for s in kept)
            items.append(
                f"runtime: retain for {plural(len(kept), 'entry')} the runtime audit found "
                "nothing to change in (verdict: retain): accept them"
                + (
                    f"; {bare} of them without a removal-condition: write when each can go"
                    if bare
                    else ""
                )
            )
        title = f"suggestions to review, in {result.decisions_file} ({ACCEPT_OR_CHANGE})"
        sections.append((title, items))
    if result.by_hand:
        sections.append(("edits the port left to you", list(result.by_hand)))
    if result.verify:
        sections.append(("verify the result", list(result.verify)))
    if result.rebase:
        # the port moved the series; the user's branch of commits is still on the old tag
        version = result.target_version or result.to
        items = [
            *result.rebase,
            "  where git stops at a conflict, resolve it as the ported patch in the series "
            "does (the port resolved the same lines), then 'git rebase --continue'",
        ]
        sections.append((f"bring your branch onto {version}", items))
    lines = []
    for number, (title, items) in enumerate(sections, 1):
        lines.append(f"{number}. {title}:")
        lines += [f"   - {item}" if not item.startswith("  ") else f"   {item}" for item in items]
    return lines


@text_renderer(UpgradeResult)
def upgrade_text(result: UpgradeResult) -> str:
    if result.outcome == UpgradeOutcome.ABORTED:
        lines = [f"aborted the upgrade of {result.root} to {result.target_version or result.to}"]
        if result.branch:
            lines.append(f"back on {result.base}; branch {result.branch} deleted")
        if result.kept_files:
            lines.append("left as the steps wrote them: " + ", ".join(result.kept_files))
        return "\n".join(lines)
    lines = [_head(result), *_step_lines(result)]
    stopped = next((s for s in result.steps if s.status == StepStatus.STOPPED), None)
    if stopped is not None:
        lines.append(f"stopped at the {stopped.name}'s conflict; state in {result.state_dir}")
    elif result.verify and result.by_hand:
        # the steps are done, the plugin is not: a name the new release moved, left to a
        # person, breaks it at import until the edit is made
        lines.append(
            "every step done, with edits left to you: make those under 'edits the port left "
            "to you' below, then run the commands under 'verify the result'"
        )
    elif result.verify:
        # the steps write; none of them checks what they wrote (lint, the record, the plugin
        # live): "every step done" alone read as a downstream ready to merge
        lines.append(
            "every step done; none of them checks the result: run the commands under "
            "'verify the result' below"
        )
    else:
        lines.append("every step done")
    todo = left_for_a_person(result)
    if todo:
        lines += ["left for a person:", *todo]
    return "\n".join(lines)


@markdown_renderer(UpgradeResult)
def upgrade_markdown(result: UpgradeResult) -> str:
    """A pull request's description: the steps as a table, then the to-do list."""
    lines = [
        f"# {_head(result)}",
        "",
        "| step | status | what | commit |",
        "| --- | --- | --- | --- |",
    ]
    for step in result.steps:
        for edit in result.edited:
            if edit.before == step.name:
                commit = (
                    f"`{edit.commit[:12]}` {escape_cell(edit.subject or '')}" if edit.commit else ""
                )
                files = escape_cell(", ".join(edit.files))
                lines.append(f"| (by hand) | edited | {files} | {commit} |")
        commit = f"`{step.commit[:12]}` {escape_cell(step.subject or '')}" if step.commit else ""
        summary = escape_cell(step.summary)
        lines.append(f"| {step.name} | {step.status} | {summary} | {commit} |")
    todo = left_for_a_person(result)
    if todo:
        lines += ["", "## Left for a person", "", "```", *todo, "```"]
    return "\n".join(lines) + "\n"
