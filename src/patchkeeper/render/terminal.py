"""Terminal text for the series commands (apply, unapply, verify, status, audit)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from patchkeeper.audit.hunk_refs import hunk_namer
from patchkeeper.render import text_renderer
from patchkeeper.render.console import table
from patchkeeper.system.english import plural
from patchkeeper.system.names import shown_name
from patchkeeper.trees.applied import EMPTY_SHA256
from patchkeeper.trees.results import ApplyResult, VerifyResult

#: How many files changed outside the series ``verify`` and ``status`` list when the target
#: is not the tree the patches name (a layout hint is given): the first few show the slip.
MISPLACED_SHOWN = 5

if TYPE_CHECKING:  # evidence and series states are imported by the commands that make them
    from patchkeeper.series.hunk_evidence import FileFailure, HunkEvidence
    from patchkeeper.trees.applied import SeriesState

__all__ = ["failure_lines", "hunk_lines", "plural", "state_lines", "table", "tally"]


def tally(count: int, counts: str) -> str:
    """The closing count of a series' patches: ``7 patches: 1 clean, 2 offset``; an empty
    series (``counts`` empty) says so rather than end in a bare colon."""
    return f"{plural(count, 'patch')}: {counts or 'the series lists none'}"


def hunk_lines(evidence: HunkEvidence, indent: str = "    ") -> list[str]:
    """The closest match of a failed hunk and the lines that differ there."""
    out = [f"{indent}hunk #{evidence.index} {evidence.header}  (patch line {evidence.patch_line})"]
    if evidence.closest_line is None:
        out.append(
            f"{indent}  none of its {evidence.total} context/removed lines occur in the file"
        )
        if evidence.note:
            out.append(f"{indent}  {evidence.note}")
        return out
    out.append(
        f"{indent}  expected at line {evidence.expected_line}; closest match at line "
        f"{evidence.closest_line}: {evidence.matching} of {evidence.total} lines match"
    )
    for mismatch in evidence.mismatches[:8]:
        found = "(end of file)" if mismatch.found is None else repr(mismatch.found)
        out.append(f"{indent}  line {mismatch.line}: expected {mismatch.expected!r}")
        out.append(f"{indent}  {' ' * len(str(mismatch.line))}       found    {found}")
    if evidence.note:
        out.append(f"{indent}  {evidence.note}")
    if len(evidence.mismatches) > 8:
        out.append(f"{indent}  ... {len(evidence.mismatches) - 8} more lines differ")
    return out


def failure_lines(failures: tuple[FileFailure, ...], indent: str = "  ") -> list[str]:
    out = []
    for failure in failures:
        if failure.problem:
            out.append(f"{indent}{failure.path}: {failure.problem}")
        else:
            out.append(f"{indent}{failure.path}:")
        for evidence in failure.hunks:
            out.extend(hunk_lines(evidence, indent + "  "))
    return out


def _drift_words(check: object, undone: bool = True) -> str:
    """What a drifted file is, compared with pristine, in words (``undone``: once the series
    is undone, for the files it touches). A touched file pristine lacks is one undoing the
    series leaves (re-creates what a patch deletes, or keeps what it changes), which the
    target may not even have now: said so, with what to check, never "exists"."""
    actual: str = getattr(check, "actual_sha256", None) or ""
    expected: str | None = getattr(check, "expected_sha256", None)
    if expected is None and undone and getattr(check, "created", False):
        if actual == EMPTY_SHA256:  # the creating patch's hunks undone, the file not removed
            return (
                "is left empty by undoing the series, which creates it: the patch that creates "
                "it is not undone whole (see its hunks above)"
            )
        return (
            f"is left by undoing the series (sha256 {actual[:12]}), which creates it: it "
            "changed after the patch created it (an edit by hand, or another tool), so undoing "
            "the creation does not remove it"
        )
    if expected is None and undone:
        return (
            f"is left by undoing the series (sha256 {actual[:12]}), but pristine has no such "
            "file: a patch changes or deletes a file pristine lacks (check the patch's paths "
            "and strip level, or the pristine release)"
        )
    if expected is None and not actual:  # present, but no regular file (a FIFO) or unreadable
        return "exists but pristine has no such file (it is no regular file, or cannot be read)"
    if expected is None:
        return f"exists (sha256 {actual[:12]}) but pristine has no such file"
    when = " once the series is undone" if undone else ""
    if not actual:
        return f"is missing{when} (pristine sha256 {expected[:12]})"
    actual_mode = getattr(check, "actual_mode", None)
    expected_mode = getattr(check, "expected_mode", None)
    if actual == expected and actual_mode is not None:
        return (
            f"has mode {actual_mode}{when}, pristine {expected_mode} (a mode change whose old "
            "mode the file never had)"
        )
    return f"differs from pristine{when} (sha256 {actual[:12]}, pristine {expected[:12]})"


#: What an empty patch of a series is, after its name (quilt: "appears to be empty; applied").
EMPTY_WORDS = "no diff (zero bytes, or only a header): a no-op"


def empty_lines(names: tuple[str, ...]) -> list[str]:
    """The notice naming the series' empty patches, one line each (none: no line)."""
    return [f"  empty: {shown_name(name)}: {EMPTY_WORDS}" for name in names]


def state_lines(state: SeriesState, detailed: bool) -> list[str]:
    rows = [(patch.state, shown_name(patch.name)) for patch in state.patches]
    out = table(rows)
    for patch in state.patches:
        name = shown_name(patch.name)
        if patch.state == "empty":
            out.append(f"    {name}: {EMPTY_WORDS}")
            continue
        waits_for = getattr(patch, "waits_for", "")
        if waits_for:
            out.append(
                f"    {name}: waits for {shown_name(waits_for)}, which does not apply here "
                "(its lines or files come from there)"
            )
        if patch.state == "applied" or (patch.state == "not applied" and not detailed):
            continue
        ranges = hunk_namer((*patch.applied_hunks, *patch.missing_hunks)).ranges
        for ref in patch.applied_hunks:
            hunk = f"{ref.path} hunk #{ref.index}{ranges(ref)}"
            out.append(f"    {name}: {hunk} applied (line {ref.line})")
        for ref in patch.missing_hunks:
            hunk = f"{ref.path} hunk #{ref.index}{ranges(ref)}"
            out.append(f"    {name}: {hunk} not applied")
        for problem in getattr(patch, "problems", ()):
            out.append(f"    {name}: {problem}")
        for change in getattr(patch, "missing_changes", ()):
            out.append(f"    {name}: {change}")
    for check in state.drifted:
        out.append(f"  drift: {shown_name(check.path)} {_drift_words(check)}")
    return out


@text_renderer(ApplyResult)
def apply_text(result: ApplyResult) -> str:
    lines: list[str] = []
    if result.recovery is not None:
        lines.append(
            "recovered: rolled back an interrupted run "
            f"({plural(len(result.recovery.restored), 'file')}) from {result.recovery.journal}"
        )
    count = len(result.patches)
    if result.outcome in ("applied", "unapplied"):
        verb = "applied" if result.action == "apply" else "unapplied"
        lines.append(
            f"{verb} {plural(count, 'patch')} on {result.target}: "
            f"{plural(len(result.changed), 'file')} changed"
        )
    elif result.outcome == "failed":
        lines.append(f"{shown_name(result.failed_patch or '')} does not apply to {result.target}")
        lines.extend(failure_lines(result.failures))
    elif result.outcome == "no patches":
        lines.append(
            f"{result.action}: nothing to unapply on {result.target}: the series lists no patches"
        )
    else:
        lines.append(f"{result.action}: the series is {result.outcome} on {result.target}")
        if result.state is not None and result.outcome not in (
            "already applied",
            "already pristine",
        ):
            lines.extend(state_lines(result.state, detailed=True))
    for path in result.edited_overlays:
        lines.append(
            f"  drift: overlay file {path} differs from the overlay's (edited in the target)"
        )
    if result.outcome in ("applied", "unapplied"):
        lines.extend(empty_lines(result.empty))
    for offset in result.offsets:
        lines.append(
            f"  offset: {shown_name(offset.patch)} {offset.path} hunk #{offset.index} at line "
            f"{offset.line} ({offset.offset:+d} lines)"
        )
    if result.note:
        lines.append(result.note)
    return "\n".join(lines)


@text_renderer(VerifyResult)
def verify_text(result: VerifyResult) -> str:
    state = result.state
    lines = []
    if result.recovery is not None:
        lines.append(f"recovered: rolled back an interrupted run from {result.recovery.journal}")
    against = f" against {state.pristine_label}" if state.pristine_label else ""
    lines.append(f"{result.command}: {result.target}{against}")
    lines.extend(state_lines(state, result.detailed))
    if result.record_mismatch:
        lines.append(f"  record: {result.record_mismatch}")
    # A target that is not the tree the patches name (one level too high: the directory an
    # sdist was unpacked in) differs from the pristine tree in every file; the hint below
    # says which tree to give, and a list of hundreds of files would bury it.
    shown = result.untouched[:MISPLACED_SHOWN] if result.layout_hint else result.untouched
    for check in shown:
        words = _drift_words(check, undone=False)
        lines.append(f"  changed outside the series: {shown_name(check.path)} {words}")
    if len(result.untouched) > len(shown):
        more = plural(len(result.untouched) - len(shown), "more file")
        lines.append(
            f"  changed outside the series: {more}, not listed: the target is not the tree "
            "the patches name (the hint below says where it is; --json lists every file)"
        )
    if result.ignored:
        ignored = ", ".join(shown_name(path) for path in result.ignored)
        lines.append(f"  ignored (build and test leftovers): {ignored}")
    for overlay in result.overlays:
        if overlay.state != "ok" or result.detailed:
            lines.append(f"  overlay: {overlay.path} {overlay.state}")
    applied = sum(1 for p in state.patches if p.state == "applied")
    empty = len(state.empty)
    summary = f"{applied} of {len(state.patches) - empty} patches applied"
    if empty:
        summary += f", {plural(empty, 'empty patch')} (no-ops)"
    if state.pristine_label is None:
        summary += "; drift not checked (no pristine reference: pass --pristine)"
        if result.pristine_unavailable:
            lines.append(f"  pristine: {result.pristine_unavailable}")
    else:
        drifted = len(state.drifted) + len(result.untouched)
        summary += f", {plural(drifted, 'file')} drifted"
    lines.append(("ok: " if result.ok else "not ok: ") + summary)
    if result.layout_hint:
        lines.append(result.layout_hint)
    return "\n".join(lines)
