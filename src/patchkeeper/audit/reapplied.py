"""A patch that applies only because upstream already made its change: applying it again.

A hunk that inserts a block whose last lines repeat its leading context (a new function
after ``return None`` and two blank lines, before the next ``def``) still finds its pre-image
in a tree that has its post-image: just after the inserted block, at an offset. GNU patch and
``git apply`` apply it there and duplicate the block (vLLM 0.28.0 added ``downstream_linear``
to ``fx_utils.py`` that way; the backport of it applies to 0.28.0 at +19). The audit calls
such a patch *upstreamed*: every hunk's pre-image lies inside an occurrence of its
post-image in the file before the patch, so the change is already there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from patchkeeper.series.engine import FileState, PatchOutcome
from patchkeeper.series.model import Hunk


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


def already_applied(before: Mapping[str, FileState | None], outcome: PatchOutcome) -> str | None:
    """The evidence that a patch which applied had already been applied, or ``None``.

    ``before`` maps each path the patch changes to the file before the patch; ``outcome`` is
    the successful application. Every file must be modified in place (no file created,
    deleted or renamed) and every hunk's pre-image, where it applied, must lie inside an
    occurrence of its post-image (:func:`_inside_post_image`); a hunk's line is taken in
    the file as the hunks before it in the same diff left it, and in the file before them.
    """
    found = []
    for file in outcome.files:
        diff = file.diff
        state = before.get(file.path)
        if state is None or diff.old_path != diff.path or diff.is_deletion or not file.placements:
            return None
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
            found.append(f"{file.path} #{hunk.index} at line {where}")
            shift += len(hunk.post_image) - len(hunk.pre_image)
    return (
        "the new upstream already has its post-image "
        f"({', '.join(found)}); the patch still applies only further on, where it would "
        "add its lines a second time"
    )
