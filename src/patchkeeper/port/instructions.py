"""``INSTRUCTIONS.md`` of a stopped port: what conflicts, why, and how to go on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from patchkeeper.port.history import Cause
from patchkeeper.port.rebase import PortedPatch


@dataclass(frozen=True)
class GoOn:
    """How ``INSTRUCTIONS.md`` names the ways on from a stopped port, said to whoever started
    the run that stopped: a person at a terminal runs command lines (:data:`TERMINAL`); an
    agent calling patchkeeper's MCP server has no terminal and calls tools instead (built by
    :func:`patchkeeper.agents.hints.port_go_on`). Each is a phrase the text puts in place.

    Attributes:
        resume: the way to go on with the port, as a sentence starts (``Run `patchkeeper
            port --continue```).
        upgrade: what started the port when an upgrade did (```patchkeeper upgrade```).
        resume_upgrade: the way to go on with that upgrade.
        abort: the way to drop the port, as a sentence goes on after "Or" (``run
            `patchkeeper port --abort```).
        history: how a port gets its upstream history, as a sentence goes on (``run the
            port with `--upstream-repo PATH```), followed by "(a checkout with both pins'
            tags)".
    """

    resume: str
    upgrade: str
    resume_upgrade: str
    abort: str
    history: str


#: The ways on from a terminal: the command lines.
TERMINAL = GoOn(
    resume="Run `patchkeeper port --continue`",
    upgrade="`patchkeeper upgrade`",
    resume_upgrade="`patchkeeper upgrade --continue`",
    abort="run `patchkeeper port --abort`",
    history="run the port with `--upstream-repo PATH`",
)


def _cause_lines(causes: tuple[Cause, ...]) -> list[str]:
    out = []
    for cause in causes:
        where = f"`{cause.path}` hunk #{cause.hunk} (`{cause.header}`)"
        if cause.old_range and cause.new_range:
            where += (
                f", old lines {cause.old_range[0]}-{cause.old_range[1]}, "
                f"new lines {cause.new_range[0]}-{cause.new_range[1]}"
            )
        out.append(f"- {where}:")
        commits = cause.commits or cause.file_commits
        if cause.note:
            out.append(f"  - {cause.note}")
        if not commits:
            out.append("  - no upstream commit between the tags changed these lines")
        label = "changed these lines" if cause.commits else "changed the file"
        for commit in commits[:10]:
            out.append(f"  - `{commit.id[:12]}` {commit.subject} ({label})")
        if len(commits) > 10:
            out.append(f"  - ... {len(commits) - 10} more")
    return out


def instructions(
    record: PortedPatch,
    work_dir: Path,
    new_label: str,
    history: str | None,
    go_on: GoOn = TERMINAL,
) -> str:
    """The Markdown text of ``conflict/INSTRUCTIONS.md`` for the stopped patch; ``go_on``:
    how it names the ways on (:class:`GoOn`: command lines, or an MCP server's tools)."""
    files = work_dir / "conflict" / "files"
    lines = [
        f"# Port stopped at `{record.name}`: {record.verdict}",
        "",
        record.summary,
        "",
        "## Files",
        "",
    ]
    for merged in record.files:
        if merged.status == "clean":
            lines.append(f"- `{merged.target}`: merged cleanly (check it with the rest)")
        elif merged.status == "conflict":
            lines.append(
                f"- `{merged.target}`: {merged.conflicts} conflict region(s) between "
                "`<<<<<<<` and `>>>>>>>` (the new pin's lines first, then the old pin's "
                "between `|||||||` and `=======`, then the patch's)"
            )
        elif merged.status == "gone":
            lines.append(
                f"- `{merged.path}`: gone from {new_label}; no file holds its content. Put the "
                f"change where it belongs now: copy that file into `files/` and edit it"
            )
        else:
            lines.append(
                f"- `{merged.target}`: {merged.status}: the patch deletes a file the new pin "
                "changed; its one conflict region holds the new pin's lines, then the old "
                "pin's between `|||||||` and `=======`, and nothing as the patch's side: "
                "delete the file from `files/` to keep the deletion, or edit it to the lines "
                "to keep, without the markers"
            )
    lines += ["", "## Why (upstream history)", ""]
    if history is None:
        lines.append(
            f"Upstream history evidence is missing: {go_on.history} "
            "(a checkout with both pins' tags) to see the commits that changed these lines."
        )
    elif record.causes:
        lines.extend(_cause_lines(record.causes))
    else:
        lines.append(f"No failing hunk could be traced in {history}.")
    lines += [
        "",
        "## What to do",
        "",
        f"1. Edit the files under `{files}` until each is what the patch should leave on "
        f"{new_label}, and remove every conflict marker. `reference/` holds the original "
        "patch and each file as the old pin had it (`old/`), with the patch (`patched/`) and "
        "as the new pin has it so far (`new/`).",
        f"2. {go_on.resume}: the patch is regenerated from these files and "
        f"the port carries on with the rest of the series. (When {go_on.upgrade} "
        f"started the port, {go_on.resume_upgrade} does the same and then the "
        "upgrade's remaining steps.)",
        f"3. Or {go_on.abort}: this directory is removed and nothing else was written.",
        "",
    ]
    return "\n".join(lines)
