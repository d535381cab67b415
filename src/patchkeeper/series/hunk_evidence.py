"""Why a verdict holds: where a hunk failed and what differs, which lines are already there.

docs/architecture.md: "a verdict without evidence is a bug". These are plain records built from
engine outcomes; renderers turn them into text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from patchkeeper.jsonable import NOT_IN_JSON
from patchkeeper.series.engine import (
    EXISTS,
    MISSING,
    MODE,
    NOT_EMPTY,
    NOT_EMPTY_BEFORE,
    PatchOutcome,
)
from patchkeeper.series.hunks import ClosestMatch, HunkFailure, SpaceMismatch, first_line

#: The words of a file diff whose file is not in the tree (:attr:`FileFailure.problem`).
MISSING_FILE = "the file does not exist"

_PROBLEM_TEXT = {
    MISSING: MISSING_FILE,
    EXISTS: "the file the patch creates already exists",
    NOT_EMPTY: "the file the patch deletes has other content",
    NOT_EMPTY_BEFORE: "the patch's index line says the file is empty (e69de29), but it is not",
    MODE: "the file's executable bit is not the one the patch's mode change starts from",
}


def _text(line: bytes | None) -> str | None:
    if line is None:
        return None
    return line.decode("utf-8", "replace").rstrip("\n")


@dataclass(frozen=True)
class LineMismatch:
    """A pre-image line that differs at the closest place.

    Attributes:
        line: 1-based line of the file where it was expected.
        expected: the hunk's line (text, no line ending).
        found: the file's line there, or ``None`` past the end of the file.
    """

    line: int
    expected: str
    found: str | None


@dataclass(frozen=True)
class HunkEvidence:
    """A hunk that does not apply, and the closest place its context was found.

    Attributes:
        path: the file (patch path).
        index: the hunk's number in its file diff (1-based).
        header: the ``@@`` line.
        patch_line: the header's line in the patch file.
        expected_line: where the search started (1-based line of the file).
        closest_line: where the closest window starts, or ``None`` when no line matched.
        matching: how many pre-image lines match there.
        total: the pre-image length.
        mismatches: the lines that differ there.
        note: why the hunk was refused when its lines all match somewhere (GNU patch's rules
            on where a hunk with cut context may apply), else ``""``.
        space: when white space at the ends of lines alone keeps the hunk out (``note``
            says so), where and which side has it (:attr:`HunkFailure.space`), else
            ``None``; not in the JSON form (:data:`~patchkeeper.jsonable.NOT_IN_JSON`),
            whose ``note`` says it in words.
    """

    path: str
    index: int
    header: str
    patch_line: int
    expected_line: int
    closest_line: int | None
    matching: int
    total: int
    mismatches: tuple[LineMismatch, ...]
    note: str = ""
    space: SpaceMismatch | None = field(
        default=None, compare=False, repr=False, metadata=NOT_IN_JSON
    )


def refusal_note(failure: HunkFailure) -> str:
    """Why a hunk whose every line matches at the closest place still does not apply.

    GNU patch (``locate_hunk``) anchors a hunk whose context a diff cut short: fewer leading
    than trailing context lines at line 1 means "at the start of the file", fewer trailing
    than leading means "at the end of the file"; and a hunk may not start inside the lines
    the previous hunk of the file consumed. A hunk without context (``diff -U0``) applies
    only at the line its header names, and one that leaves its last line without a newline
    only at the end of the file; when its post-image already stands there too, it may be
    applied or not, and only context or a pristine reference can tell (see ``unprovable``
    in trees/applied.py). A hunk that would match but for its line endings says so (GNU
    patch: "different line endings").
    """
    if failure.endings:
        return failure.endings
    hunk = failure.hunk
    if not hunk.has_context and not hunk.post_image and failure.closest is None:
        return (
            "the hunk only removes lines and has no context (diff -U0): its lines are gone, "
            "which may mean it is already applied, but only a pristine reference can tell "
            "(status --pristine DIR, or 'pristine' in the configuration)"
        )
    closest = failure.closest
    whole = (closest is None and not failure.hunk.pre_image) or (
        closest is not None and closest.matching == closest.total
    )
    if whole and failure.hunk.post_image and not failure.hunk.post_image[-1].endswith(b"\n"):
        return (
            "the hunk leaves its last line without a newline ('\\ No newline at end of "
            "file'), so it may only apply at the end of the file"
        )
    if closest is None or closest.matching != closest.total:
        return ""
    hunk = failure.hunk
    if not hunk.has_context and failure.done_at is not None:
        return (
            f"every line matches at line {closest.line}, and the lines it puts in are already "
            f"at line {failure.done_at}, where its header puts them; the hunk has no context "
            "lines (diff -U0), so it cannot tell whether it is applied or belongs at line "
            f"{closest.line} (where GNU patch applies it); regenerate the patch with context "
            "(diff -U3), or give a pristine reference (status --pristine DIR, or 'pristine' "
            "in the configuration)"
        )
    if not hunk.has_context:
        return (
            f"every line matches at line {closest.line}, but the hunk has no context lines "
            f"(diff -U0), so it may only apply at the line its header names "
            f"({failure.expected_line}); regenerate the patch with context (diff -u)"
        )
    at_start = min(first_line(hunk, False), first_line(hunk, True)) <= 1
    if hunk.prefix_context < hunk.suffix_context and at_start:
        return (
            "every line matches there, but the hunk has fewer leading than trailing context "
            "lines and starts at line 1, so it may only apply at the start of the file"
        )
    if hunk.suffix_context < hunk.prefix_context:
        return (
            "every line matches there, but the hunk has fewer trailing than leading context "
            "lines, so it may only apply at the end of the file"
        )
    return (
        "every line matches there, but that place overlaps the lines the previous hunk "
        "changed (hunks apply in order)"
    )


@dataclass(frozen=True)
class FileFailure:
    """One file diff of a patch that does not apply.

    Attributes:
        path: the file.
        problem: a whole-file problem in words (missing, exists), or ``None``.
        hunks: the hunks that fail.
    """

    path: str
    problem: str | None
    hunks: tuple[HunkEvidence, ...]


def hunk_evidence(path: str, failure: HunkFailure) -> HunkEvidence:
    """Turn an engine :class:`HunkFailure` into evidence."""
    closest = failure.closest
    mismatches: tuple[LineMismatch, ...] = ()
    if closest is not None:
        mismatches = tuple(
            LineMismatch(closest.line + d.index, _text(d.expected) or "", _text(d.found))
            for d in closest.differences
        )
    return HunkEvidence(
        path=path,
        index=failure.hunk.index,
        header=failure.hunk.header,
        patch_line=failure.hunk.line_no,
        expected_line=failure.expected_line,
        closest_line=closest.line if closest else None,
        matching=closest.matching if closest else 0,
        total=len(failure.hunk.pre_image),
        mismatches=mismatches,
        note=refusal_note(failure) or _endings_note(closest),
        space=failure.space,
    )


def _endings_note(closest: ClosestMatch | None) -> str:
    """What a closest match found with CRLF read as LF says besides the lines that differ."""
    if closest is None or not closest.endings:
        return ""
    return (
        f"{closest.endings}: the lines are compared with CRLF read as LF; convert the "
        "patch's line endings to the file's (or the file's to the patch's) as well as "
        "reworking the lines that differ"
    )


def problem_text(problem: str | None) -> str | None:
    """The words of a whole file's problem (:attr:`FileOutcome.problem`: ``"missing"`` is
    "the file does not exist"), or ``None`` for none or an unknown one."""
    return _PROBLEM_TEXT.get(problem or "")


def failure_evidence(outcome: PatchOutcome) -> tuple[FileFailure, ...]:
    """Every file diff of ``outcome`` that failed, with its evidence."""
    out = []
    for file_outcome in outcome.files:
        if file_outcome.ok:
            continue
        problem = problem_text(file_outcome.problem)
        hunks = tuple(hunk_evidence(file_outcome.path, f) for f in file_outcome.failures)
        out.append(FileFailure(file_outcome.path, problem, hunks))
    return tuple(out)
