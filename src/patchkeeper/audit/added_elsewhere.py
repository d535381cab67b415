"""A patch that applies, whose added block the new release already has elsewhere in the file.

Upstream may make a patch's change a few lines away from where the patch makes it: the
block of conditions a fix adds to one loop, written into the loop before it that now
handles those nodes first. The patch's context is untouched, so it still applies at fuzz 0,
and applying it would put the same block into the file a second time. The audit calls such
a patch *upstreamed* when every hunk only inserts one run of lines, at least
:data:`MIN_LINES` of them substantive, and the file before the patch holds that run whole
(the lines in order, next to each other, blank lines and white space aside) more often than
the old pin's file did: upstream wrote it between the two releases.

A run the old pin already had as often proves nothing (the patch copied a block the file
already repeats), and neither do a few lines: a shorter run is too common to tell a fix from
a coincidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from patchkeeper.audit.hunk_refs import hunk_namer
from patchkeeper.audit.reapplied import files_before_diffs
from patchkeeper.series.engine import FileState
from patchkeeper.series.filekinds import language_of
from patchkeeper.series.model import Hunk, Patch
from patchkeeper.series.substantive_lines import normalize, substantive
from patchkeeper.upstream.treesearch import TreeSearch

#: The fewest substantive lines a hunk's inserted run must have to count as found elsewhere.
MIN_LINES = 3


@dataclass(frozen=True)
class _Ref:
    """A hunk as :func:`patchkeeper.audit.hunk_refs.hunk_ref` names it."""

    path: str
    index: int
    header: str


def _inserted_run(hunk: Hunk, language: str) -> tuple[bytes, ...] | None:
    """The normalized non-blank lines ``hunk`` inserts, when it removes nothing, inserts one
    run of consecutive lines and at least :data:`MIN_LINES` of them are substantive; else
    ``None``."""
    if hunk.removed or not hunk.added:
        return None
    if hunk.kinds.strip(" ").strip("+"):
        return None
    added = [line.text for line in hunk.added]
    if sum(1 for text in added if substantive(text, language) is not None) < MIN_LINES:
        return None
    return tuple(text for text in (normalize(line) for line in added) if text)


def _kept(lines: Sequence[bytes]) -> list[tuple[int, bytes]]:
    """Each non-blank line of ``lines`` normalized, with its 1-based line number."""
    return [(number, text) for number, line in enumerate(lines, 1) if (text := normalize(line))]


def _starts(kept: Sequence[tuple[int, bytes]], run: tuple[bytes, ...]) -> list[int]:
    """The 1-based lines where ``run`` (normalized non-blank lines) stands whole in a file
    read by :func:`_kept`, blank lines between its lines skipped."""
    size = len(run)
    return [
        kept[i][0]
        for i in range(len(kept) - size + 1)
        if kept[i][1] == run[0] and tuple(text for _, text in kept[i : i + size]) == run
    ]


def added_elsewhere(
    before: Mapping[str, FileState | None], patch: Patch, pin: TreeSearch | None
) -> str | None:
    """The evidence that a patch which applies at fuzz 0 would add a block its file already
    has, or ``None``.

    ``before`` maps each path the patch changes to the file before the patch; ``pin`` is the
    old pin's tree (``None``: unknown, and then nothing is proved). Every diff must change a
    file in place and every hunk insert one run (:func:`_inserted_run`) that the file before
    the patch holds more often than the pin's file; a second diff of a file is checked in
    the file the first left (:func:`patchkeeper.audit.reapplied.files_before_diffs`).
    """
    if pin is None or not patch.files:
        return None
    if any(
        _inserted_run(hunk, language_of(diff.path)) is None
        for diff in patch.files
        for hunk in diff.hunks
    ):
        return None
    name = hunk_namer(
        _Ref(diff.path, hunk.index, hunk.header) for diff in patch.files for hunk in diff.hunks
    )
    found: list[str] = []
    for diff, state in files_before_diffs(before, patch.files):
        if state is None or diff.old_path != diff.path or diff.is_deletion or not diff.hunks:
            return None
        pin_state = pin.state(diff.path)
        if pin_state is None:
            return None
        language = language_of(diff.path)
        here, there = _kept(state.lines), _kept(pin_state.lines)
        for hunk in diff.hunks:
            run = _inserted_run(hunk, language)
            assert run is not None  # every hunk has one: checked above
            starts = _starts(here, run)
            if len(starts) <= len(_starts(there, run)):
                return None
            ref = name(_Ref(diff.path, hunk.index, hunk.header))
            found.append(f"{ref} at line {starts[0]}")
    return (
        f"the new release already has the lines it inserts, whole, elsewhere in the file "
        f"({', '.join(found)}; the old pin's file has them fewer times): applied, the patch "
        "would add them a second time"
    )
