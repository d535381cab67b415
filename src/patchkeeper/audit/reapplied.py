"""A patch that applies only because upstream already made its change: applying it again.

A hunk that inserts a block whose last lines repeat its leading context (a new function
after ``return None`` and two blank lines, before the next ``def``) still finds its pre-image
in a tree that has its post-image: just after the inserted block, at an offset. GNU patch and
``git apply`` apply it there and duplicate the block (vLLM 0.28.0 added ``downstream_linear``
to ``fx_utils.py`` that way; the backport of it applies to 0.28.0 at +19). The audit calls
such a patch *upstreamed*: every hunk's pre-image lies inside an occurrence of its
post-image in the file before the patch, so the change is already there.

A patch may hold two diffs of one file (two commits' diffs joined): GNU patch applies them in
order, the second to the file the first left, so the second diff's hunks are looked for
there, not in the file before the whole patch (:func:`files_before_diffs`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from patchkeeper.audit.hunk_refs import hunk_namer
from patchkeeper.series.engine import FileOutcome, FileState, PatchOutcome
from patchkeeper.series.hunks import landed_lines, patch_lines
from patchkeeper.series.model import FileDiff, Hunk


def files_before_diffs(
    before: Mapping[str, FileState | None], diffs: Iterable[FileDiff]
) -> Iterator[tuple[FileDiff, FileState | None]]:
    """Each of ``diffs`` (a patch's file diffs, in order) with its file as the diffs before
    it left it, as GNU patch applies them: ``before`` (path -> the file before the patch)
    for a path's first diff, the result of applying the earlier diffs of the same path (at
    fuzz 0) for a later one; ``None`` where the file is not in ``before`` or an earlier
    diff of it does not apply."""
    current = dict(before)
    for diff in diffs:
        state = current.get(diff.path)
        yield diff, state
        if state is not None:
            result = patch_lines(state.lines, diff.hunks)
            current[diff.path] = (
                FileState(tuple(result.lines), state.mode) if result.lines is not None else None
            )


def _inside_post_image(lines: Sequence[bytes], hunk: Hunk, start: int) -> int | None:
    """The 1-based line where an occurrence of ``hunk``'s post-image begins that holds its
    pre-image matched at 0-based ``start``; else ``None``."""
    pre, post = len(hunk.pre_image), len(hunk.post_image)
    if post <= pre or "+" not in hunk.kinds:
        return None
    for begin in range(max(0, start + pre - post), start + 1):
        if tuple(lines[begin : begin + post]) == hunk.post_image:
            return begin + 1
    return None


@dataclass(frozen=True)
class _Named:
    """A hunk as :func:`patchkeeper.audit.hunk_refs.hunk_ref` names it."""

    path: str
    index: int
    header: str


def _line_before(line: int, earlier: Sequence[FileOutcome]) -> int:
    """``line`` of the file the ``earlier`` diffs of its path left, as a line of the file
    before them: less what their hunks placed wholly above it added."""
    for file in reversed(earlier):
        for placement, at in zip(file.placements, landed_lines(file.placements)):
            hunk = placement.hunk
            if at + len(hunk.post_image) <= line:
                line -= len(hunk.post_image) - len(hunk.pre_image)
    return line


def already_applied(before: Mapping[str, FileState | None], outcome: PatchOutcome) -> str | None:
    """The evidence that a patch which applied had already been applied, or ``None``.

    ``before`` maps each path the patch changes to the file before the patch; ``outcome`` is
    the successful application. Every file must be modified in place (no file created,
    deleted or renamed) and every hunk's pre-image, where it applied, must lie inside an
    occurrence of its post-image (:func:`_inside_post_image`); a hunk's line is taken in
    the file as the hunks before it in the same diff left it, and in the file before them.
    A second diff of a file is checked in the file the first left
    (:func:`files_before_diffs`); the evidence gives lines of the file before the patch.
    """
    name = hunk_namer(
        _Named(file.path, p.hunk.index, p.hunk.header)
        for file in outcome.files
        for p in file.placements
    )
    found: list[tuple[_Named, int]] = []
    states = files_before_diffs(before, (file.diff for file in outcome.files))
    for number, (file, (diff, state)) in enumerate(zip(outcome.files, states)):
        if state is None or diff.old_path != diff.path or diff.is_deletion or not file.placements:
            return None
        earlier = [f for f in outcome.files[:number] if f.diff.path == diff.path]
        shift = 0
        for placement in file.placements:
            hunk = placement.hunk
            starts = {placement.line - 1, placement.line - 1 - shift}
            where = next(
                (w for s in sorted(starts) if (w := _inside_post_image(state.lines, hunk, s))),
                None,
            )
            if where is None:
                return None
            found.append((_Named(file.path, hunk.index, hunk.header), _line_before(where, earlier)))
            shift += len(hunk.post_image) - len(hunk.pre_image)
    evidence = ", ".join(f"{name(ref)} at line {line}" for ref, line in found)
    return (
        f"the new upstream already has its post-image ({evidence}); the patch still applies "
        "only further on, where it would add its lines a second time"
    )
