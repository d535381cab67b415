"""Locate, apply and reverse hunks exactly: fuzz 0, offsets allowed.

The search follows GNU patch's ``locate_hunk`` (patch.c) at fuzz 0, so that patchkeeper and
``patch -p1 --fuzz 0`` agree on where a hunk lands and on whether it applies:

- the first guess is the header's line plus the offset of the previous hunk of the same file;
  candidates are tried at offsets 0, +1, -1, +2, -2, ... (the nearest wins, later before
  earlier);
- a hunk with fewer leading than trailing context lines that starts at line 1 can only match
  at the start of the file; one with fewer trailing than leading context lines can only match
  at the end of the file (a diff cuts context short only at a file boundary);
- a hunk may not start before the lines the previous hunk already consumed (GNU patch
  2.7.6: ``min_where = last_frozen_line + 1``; 2.7.3 let its context reach back over them);
- every hunk is located in the *original* content, and the output is assembled afterwards
  the way ``apply_hunk`` writes it: input lines are copied once, in order, so a hunk that
  starts inside the previous hunk's trailing context shares those lines instead of
  repeating them.

Lines are ``bytes`` that keep their ``\\n``; a line matches only if its bytes are equal,
line ending included.
"""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from patchkeeper.series.model import ADDED, CONTEXT, REMOVED, Hunk


@dataclass(frozen=True)
class Placement:
    """Where a hunk applied.

    Attributes:
        hunk: the hunk.
        line: 1-based line of the input where the hunk's pre-image starts.
        offset: ``line`` minus the line the header promised (0 when it applied in place).
    """

    hunk: Hunk
    line: int
    offset: int


@dataclass(frozen=True)
class LineDifference:
    """One pre-image line that differs at the closest place.

    Attributes:
        index: 0-based position in the hunk's pre-image.
        expected: what the hunk expects.
        found: what the file has there (``None`` past the end of the file).
    """

    index: int
    expected: bytes
    found: bytes | None


@dataclass(frozen=True)
class ClosestMatch:
    """Where a failed hunk's context came closest to matching.

    Attributes:
        line: 1-based line of the file where the best window starts.
        matching: how many pre-image lines are equal there.
        total: the pre-image length.
        differences: the lines that differ, in order.
        endings: when the window was found with CRLF read as LF (the file's and the
            patch's lines end differently, and their content matches better so), the two
            styles in words (``"the file's lines end in LF, the patch's in CRLF"``), else
            ``""``: the lines counted as matching there differ in their endings.
    """

    line: int
    matching: int
    total: int
    differences: tuple[LineDifference, ...]
    endings: str = ""


@dataclass(frozen=True)
class HunkFailure:
    """A hunk that does not apply at fuzz 0.

    Attributes:
        hunk: the hunk.
        expected_line: the 1-based line the search started from.
        closest: the closest place, or ``None`` when no pre-image line occurs in the file.
        endings: when the hunk would apply but for its line endings, the mismatch in words
            (``"the file's lines end in CRLF, the patch's in LF"``, GNU patch's "different
            line endings"), or but for white space at the ends of lines
            (:func:`trailing_space_mismatch`), else ``""``.
        done_at: for a hunk without context lines whose replacement (the post-image when
            applying) already stands at the line its header names, that 1-based line, else
            ``None``: it may be applied, or its lines may be elsewhere, and the hunk cannot
            tell which.
        space: when white space at the ends of lines alone keeps the hunk out, where and
            which side has it (``endings`` is then its words with
            :data:`MANGLED_SPACE_ADVICE`), else ``None``: a caller that knows which side
            changed it words the advice anew from it (:meth:`SpaceMismatch.words`).
        line_endings: when line endings alone keep the hunk out, both sides' styles
            (``endings`` is then its words), else ``None``.
    """

    hunk: Hunk
    expected_line: int
    closest: ClosestMatch | None
    endings: str = ""
    done_at: int | None = None
    space: SpaceMismatch | None = None
    line_endings: EndingsMismatch | None = None

    @property
    def spacing_only(self) -> bool:
        """Whether only line endings or white space at the ends of lines keep the hunk out
        (:attr:`line_endings`, :attr:`space`): the patch's lines are right, their spacing
        differs from the file's."""
        return self.line_endings is not None or self.space is not None


@dataclass(frozen=True)
class FilePatchResult:
    """The outcome of applying a file diff's hunks to one file's lines.

    Attributes:
        lines: the new content when every hunk applied, else ``None`` (also when it is
            given as ``data``).
        placements: the hunks that could be placed, in order.
        failures: the hunks that could not.
        data: the new content as one ``bytes``, from :func:`patch_data`, else ``None``.
    """

    lines: list[bytes] | None
    placements: tuple[Placement, ...]
    failures: tuple[HunkFailure, ...]
    data: bytes | None = None

    @property
    def ok(self) -> bool:
        return not self.failures


def images(hunk: Hunk, reverse: bool) -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
    """Return ``(pattern, replacement)``: the pre- and post-image, swapped when reversing."""
    if reverse:
        return hunk.post_image, hunk.pre_image
    return hunk.pre_image, hunk.post_image


def first_line(hunk: Hunk, reverse: bool) -> int:
    """The 1-based line the header promises for the pattern (GNU's ``pch_first``).

    An empty range (``@@ -5,0 +6,2 @@``) names the line *before* the insertion, so the
    pattern's first line is one more.
    """
    start, length = (hunk.new_start, hunk.new_len) if reverse else (hunk.old_start, hunk.old_len)
    return start + 1 if length == 0 else start


def _matches(lines: Sequence[bytes], pattern: Sequence[bytes], start: int) -> bool:
    """True when ``pattern`` equals ``lines`` from 1-based line ``start``."""
    index = start - 1
    if index < 0 or index + len(pattern) > len(lines):
        return False
    if type(lines) is type(pattern):  # both tuples (a workspace's file, an image): in C
        return lines[index : index + len(pattern)] == pattern
    for offset, expected in enumerate(pattern):
        if lines[index + offset] != expected:
            return False
    return True


def locate(
    lines: Sequence[bytes],
    hunk: Hunk,
    *,
    reverse: bool = False,
    in_offset: int = 0,
    last_frozen: int = 0,
) -> int | None:
    """Find where ``hunk`` applies in ``lines`` at fuzz 0, as GNU patch does (see
    :func:`_search`), with one more rule: a hunk that leaves its last line without a newline
    (``\\ No newline at end of file``) applies only where it ends the file. GNU patch
    places it elsewhere too and gives the line a newline, which no undoing can find again.

    Returns:
        The 1-based line where the pattern starts, or ``None``.
    """
    where = _search(lines, hunk, reverse=reverse, in_offset=in_offset, last_frozen=last_frozen)
    _, replacement = images(hunk, reverse)
    if where is None or not replacement or replacement[-1].endswith(b"\n"):
        return where
    pattern, _ = images(hunk, reverse)
    return where if where + len(pattern) - 1 == len(lines) else None


def _search(
    lines: Sequence[bytes],
    hunk: Hunk,
    *,
    reverse: bool = False,
    in_offset: int = 0,
    last_frozen: int = 0,
) -> int | None:
    """Find where ``hunk`` applies in ``lines`` at fuzz 0, as GNU patch does.

    Args:
        lines: the file's original lines.
        hunk: the hunk.
        reverse: look for the post-image (to undo the hunk).
        in_offset: the offset at which the previous hunk of this file applied.
        last_frozen: how many input lines the previous hunks consumed (GNU's
            ``last_frozen_line``); no change may be placed before them.

    Returns:
        The 1-based line where the pattern starts, or ``None``.
    """
    pattern, _ = images(hunk, reverse)
    pat_lines = len(pattern)
    input_lines = len(lines)
    first_guess = first_line(hunk, reverse) + in_offset
    prefix_context = hunk.prefix_context
    suffix_context = hunk.suffix_context
    context = max(prefix_context, suffix_context)
    prefix_fuzz = prefix_context - context
    suffix_fuzz = suffix_context - context

    if not pat_lines:  # an empty pattern matches where the header says
        return first_guess
    if not hunk.has_context:
        # A hunk without context (diff -U0) carries no evidence of where it belongs but its
        # line numbers: it applies where they say or not at all, so that undoing it (which
        # puts lines back where the header says) is exact.
        if first_guess < last_frozen + 1 or not _matches(lines, pattern, first_guess):
            return None
        return first_guess
    min_offset, max_pos_offset, max_neg_offset, max_offset = _window(
        first_guess, pat_lines - suffix_fuzz, input_lines, last_frozen
    )

    if prefix_fuzz < 0 and first_line(hunk, reverse) <= 1:
        # Can only match the start of the file.
        if suffix_fuzz < 0 and (pat_lines != input_lines or prefix_context < last_frozen):
            return None  # can only match the entire file
        offset = 1 - first_guess
        if (
            last_frozen <= prefix_context
            and offset <= max_pos_offset
            and _matches(lines, pattern, first_guess + offset)
        ):
            return first_guess + offset
        return None
    if suffix_fuzz < 0:
        # Can only match the end of the file.
        offset = first_guess - (input_lines - pat_lines + 1)
        if offset <= max_neg_offset and _matches(lines, pattern, first_guess - offset):
            return first_guess - offset
        return None

    if min_offset == 0 and _matches(lines, pattern, first_guess):
        return first_guess  # GNU's order tries the guess itself first: no search needed
    # GNU's order: offsets 0, 1, 2, ... from the guess, the later line before the earlier
    # one at each; only where the pattern's rarest-looking line (its longest) occurs.
    candidates = []
    for start in _starts(lines, pattern, first_guess - max_offset, first_guess + max_offset):
        offset = start - first_guess
        if offset >= 0 and min_offset <= offset <= max_pos_offset:
            candidates.append((offset, 0, start))
        elif offset < 0 and min_offset <= -offset <= max_neg_offset:
            candidates.append((-offset, 1, start))
    for _offset, _side, start in sorted(candidates):
        if _matches(lines, pattern, start):
            return start
    return None


def _window(
    first_guess: int, span: int, input_lines: int, last_frozen: int
) -> tuple[int, int, int, int]:
    """GNU's bounds of the search (``locate_hunk``): ``(min_offset, max_pos_offset,
    max_neg_offset, max_offset)`` for a pattern whose ``span`` lines must lie within the
    input's ``input_lines`` after the ``last_frozen`` lines the previous hunks consumed.

    A start at offset ``o`` from ``first_guess`` is allowed when ``min_offset <= o <=
    max_pos_offset`` (``o >= 0``) or ``min_offset <= -o <= max_neg_offset`` (``o < 0``).
    """
    max_where = input_lines - span + 1
    min_where = last_frozen + 1
    max_pos_offset = max_where - first_guess
    max_neg_offset = first_guess - min_where
    max_offset = max(max_pos_offset, max_neg_offset)
    if first_guess <= max_neg_offset:  # do not try lines <= 0
        max_neg_offset = first_guess - 1
    # When the guess lies outside [min_where, max_where], start at the nearest end of it.
    if max_pos_offset < 0:
        min_offset = first_guess - max_where
    elif max_neg_offset < 0:
        # The guess lies before min_where: the nearest allowed line is min_where, at a
        # positive offset (a guess far out, from a corrupt header, must not make the loop
        # walk every offset in between).
        min_offset = min_where - first_guess
    else:
        min_offset = 0
    return min_offset, max_pos_offset, max_neg_offset, max_offset


def _starts(lines: Sequence[bytes], pattern: Sequence[bytes], low: int, high: int) -> list[int]:
    """The 1-based lines in ``low..high`` where ``pattern`` may start: where its longest line
    is at its place (found by the sequence's own search, not line by line in Python)."""
    k = max(range(len(pattern)), key=lambda i: len(pattern[i]))
    wanted = pattern[k]
    first = max(low - 1 + k, 0)
    stop = min(high - 1 + k, len(lines) - 1) + 1
    out = []
    while first < stop:
        try:
            found = lines.index(wanted, first, stop)
        except ValueError:
            break
        out.append(found - k + 1)
        first = found + 1
    return out


def line_positions(
    lines: Sequence[bytes], key: Callable[[bytes], bytes] | None = None
) -> dict[bytes, list[int]]:
    """Where each line of ``lines`` stands (0-based, in order), by its text, or by
    ``key(line)`` when given: :func:`closest_match` and the mismatch checks look up a hunk's
    lines there instead of reading the whole file, once for every failing hunk.

    >>> line_positions([b"a\\n", b"b\\n", b"a\\n"])
    {b'a\\n': [0, 2], b'b\\n': [1]}
    >>> line_positions([b"a \\n", b"b\\n", b"a\\n"], bytes.rstrip)
    {b'a': [0, 2], b'b': [1]}
    """
    out: dict[bytes, list[int]] = {}
    for number, line in enumerate(lines):
        out.setdefault(line if key is None else key(line), []).append(number)
    return out


def closest_match(
    lines: Sequence[bytes],
    pattern: Sequence[bytes],
    near: int,
    positions: Mapping[bytes, list[int]] | None = None,
) -> ClosestMatch | None:
    """Find the window of ``lines`` that shares the most lines with ``pattern``, aligned.

    Each occurrence of a pattern line votes for the window start that would align it; the
    window with most votes wins, the one nearest to ``near`` (1-based) on a tie. A window
    starts at line 1 or later (a hunk cannot start before the file does): a vote for an
    earlier start, where the pattern's later lines align with the file's first ones (a hunk
    longer than the file, or one whose file lost lines at its top), does not count, and
    when no other vote is left the window starts at line 1. It may run past the end of the
    file (its lines there are found as ``None``).

    ``positions``: :func:`line_positions` of ``lines``, when the caller has it (one file's
    many hunks).

    Returns:
        The :class:`ClosestMatch`, or ``None`` when no pattern line occurs in ``lines``.
    """
    if not pattern:
        return None
    wanted: dict[bytes, list[int]] = {}
    for index, line in enumerate(pattern):
        wanted.setdefault(line, []).append(index)
    if positions is None:
        positions = line_positions(lines)
    votes: Counter[int] = Counter()
    for line, indices in wanted.items():
        for position in positions.get(line, ()):
            for index in indices:
                votes[position - index] += 1
    if not votes:
        return None
    inside = [start for start in votes if start >= 0] or [0]
    start = min(inside, key=lambda s: (-votes[s], abs(s + 1 - near), s))
    differences = []
    for index, expected in enumerate(pattern):
        position = start + index
        found = lines[position] if 0 <= position < len(lines) else None
        if found != expected:
            differences.append(LineDifference(index, expected, found))
    return ClosestMatch(
        line=start + 1,
        matching=len(pattern) - len(differences),
        total=len(pattern),
        differences=tuple(differences),
    )


def _sides(hunk: Hunk, reverse: bool) -> tuple[list[tuple[bool, bytes]], list[tuple[bool, bytes]]]:
    """The pattern and the replacement as ``(changed, text)`` pairs, in hunk order."""
    gone, come = (ADDED, REMOVED) if reverse else (REMOVED, ADDED)
    before, after = images(hunk, reverse)
    kinds = hunk.kinds
    pattern = list(zip([kind == gone for kind in kinds if kind != come], before))
    replacement = list(zip([kind == come for kind in kinds if kind != gone], after))
    return pattern, replacement


def _splice(lines: Sequence[bytes], placements: Sequence[Placement], reverse: bool) -> list[bytes]:
    """Assemble the output as GNU patch's ``apply_hunk``, ``copy_till`` and ``spew_output``
    write it (patch.c).

    Input lines are copied once and in order, up to each change; a removed line is skipped,
    an added one written. Context lines are never written by the hunk itself, so two hunks
    whose contexts overlap share those input lines. A line that lacks its ``\\n`` gets one
    when an input line is copied after it, or an added line follows at the end of a hunk.
    """
    out: list[bytes] = []
    frozen = 0  # input lines already copied or removed (GNU's last_frozen_line)

    def copy_till(last: int) -> None:
        # Like GNU's, this may run past the end of the input (an empty pattern placed after
        # the last line): there is nothing to copy there, but the count still moves. Only
        # the input's last line can lack its newline, so one check at the seam is enough.
        nonlocal frozen
        end = min(last, len(lines))
        if frozen < end:
            if out and not out[-1].endswith(b"\n"):
                out[-1] += b"\n"
            out.extend(lines[frozen:end])
        frozen = max(frozen, last)

    for placement in placements:
        where = placement.line - 1
        hunk = placement.hunk
        before, after = images(hunk, reverse)
        end = where + len(before)
        if (
            before
            and frozen <= where
            and end <= len(lines)
            and before[-1].endswith(b"\n")
            and (not after or after[-1].endswith(b"\n"))
        ):
            # The common case, in slices: no line without its newline, no overlap with
            # what an earlier hunk froze. The context the hunk has in common with the input
            # is the input's (fuzz 0), so writing the post-image up to its trailing context
            # is what the line-by-line walk below writes; the trailing context is left for
            # the next copy, as there.
            copy_till(where)
            out.extend(after[: len(after) - hunk.suffix_context])
            frozen = end - hunk.suffix_context
            continue
        pattern, replacement = _sides(hunk, reverse)
        old = new = 0
        while old < len(pattern):
            if pattern[old][0]:  # removed
                copy_till(where + old)
                frozen += 1
                old += 1
            elif new >= len(replacement):
                break
            elif replacement[new][0]:  # added
                copy_till(where + old)
                out.append(replacement[new][1])
                new += 1
            else:  # context on both sides
                old += 1
                new += 1
        if new < len(replacement) and replacement[new][0]:
            copy_till(where + old)
            for changed, text in replacement[new:]:
                if not changed:
                    break
                if out and not out[-1].endswith(b"\n"):
                    out[-1] += b"\n"
                out.append(text)
    copy_till(len(lines))
    return out


def patch_lines(
    lines: Sequence[bytes],
    hunks: Sequence[Hunk],
    *,
    reverse: bool = False,
    at: Sequence[int | None] = (),
) -> FilePatchResult:
    """Apply (or, with ``reverse``, undo) ``hunks`` to ``lines``, all or nothing.

    Every hunk is located in the original ``lines`` with :func:`locate`, the offset of each
    placed hunk carried to the next as GNU patch does; a hunk that does not apply is reported
    with its closest match, and the others are still located so that the result lists every
    failure at once.

    Args:
        at: for each hunk in order, the 1-based line where its pattern is known to stand
            (where ``apply`` put the hunk, to undo it there: :func:`placed_at`), or
            ``None``; a hunk without one, or whose pattern is not at that line, is located
            by the search.

    Returns:
        A :class:`FilePatchResult`; ``lines`` is ``None`` unless every hunk applied.
    """
    in_offset = 0
    last_frozen = 0
    placements: list[Placement] = []
    failures: list[HunkFailure] = []
    indexed: FileLines | None = None  # once per file: only a failure needs it
    for index, hunk in enumerate(hunks):
        known = at[index] if index < len(at) else None
        where = placed_at(lines, hunk, known, reverse=reverse, last_frozen=last_frozen)
        if where is None:
            where = locate(
                lines, hunk, reverse=reverse, in_offset=in_offset, last_frozen=last_frozen
            )
        expected = first_line(hunk, reverse)
        if where is None:
            pattern, _ = images(hunk, reverse)
            guess = expected + in_offset
            indexed = indexed or FileLines(lines)
            closest = closest_match(lines, pattern, guess, indexed.positions)
            closest = plain_closest_match(lines, pattern, guess, indexed, closest)
            styles = line_ending_mismatch(lines, hunk, reverse, indexed)
            space = None if styles else trailing_space_mismatch(lines, hunk, reverse, indexed)
            endings = styles.words() if styles is not None else ""
            if space is not None:
                endings = space.words(MANGLED_SPACE_ADVICE)
            done_at = None
            if not hunk.has_context and images(hunk, not reverse)[0]:
                done_at = locate(lines, hunk, reverse=not reverse, in_offset=in_offset)
            failures.append(HunkFailure(hunk, guess, closest, endings, done_at, space, styles))
            continue
        pattern, _ = images(hunk, reverse)
        in_offset = where - expected
        placements.append(Placement(hunk, where, where - expected))
        last_frozen = where - 1 + len(pattern) - hunk.suffix_context
    if failures:
        return FilePatchResult(None, tuple(placements), tuple(failures))
    return FilePatchResult(_splice(lines, placements, reverse), tuple(placements), ())


def landed_lines(placements: Sequence[Placement]) -> tuple[int, ...]:
    """For hunks applied forward to one file (their placements, in order): the 1-based line
    where each hunk's post-image starts in the output.

    A hunk placed at input line ``p.line`` starts its post-image there plus what the hunks
    before it added minus what they removed: every change of those lies before ``p.line``
    (a hunk may not start before the lines the previous one consumed, :func:`locate`), and
    :func:`_splice` copies the input lines between them once.

    >>> from patchkeeper.series.parse import parse_patch
    >>> from pathlib import Path
    >>> diff = b"--- a/f\\n+++ b/f\\n@@ -1,2 +1,3 @@\\n a\\n+x\\n b\\n"
    >>> diff += b"@@ -5,2 +6,2 @@\\n e\\n-f\\n+F\\n"
    >>> first, second = parse_patch(diff, name="p", path=Path("p")).files[0].hunks
    >>> landed_lines([Placement(first, 1, 0), Placement(second, 5, 0)])
    (1, 6)
    """
    out, delta = [], 0
    for placement in placements:
        out.append(placement.line + delta)
        delta += len(placement.hunk.post_image) - len(placement.hunk.pre_image)
    return tuple(out)


def placed_at(
    lines: Sequence[bytes],
    hunk: Hunk,
    line: int | None,
    *,
    reverse: bool = False,
    last_frozen: int = 0,
) -> int | None:
    """``line`` when ``hunk``'s pattern (its post-image when ``reverse``) stands whole at that
    1-based line of ``lines``, after the ``last_frozen`` lines the previous hunks consumed,
    and, for a hunk that leaves its last line without a newline, ends the file there (the
    rule of :func:`locate`); else ``None``, and so for ``line`` ``None`` or an empty pattern
    (which stands anywhere).

    The line comes from where ``apply`` put the hunk: undoing it there is the exact inverse
    of applying it, where the search from the header's line may first meet another copy of
    the post-image (``b a`` in ``b a b a``, after ``a b`` -> ``b a`` was applied at line 3).
    """
    pattern, replacement = images(hunk, reverse)
    if line is None or not pattern or line < last_frozen + 1:
        return None
    if not _matches(lines, pattern, line):
        return None
    ends_file = line + len(pattern) - 1 == len(lines)
    if replacement and not replacement[-1].endswith(b"\n") and not ends_file:
        return None
    return line


def patch_data(
    data: bytes, hunks: Sequence[Hunk], *, reverse: bool = False
) -> FilePatchResult | None:
    """:func:`patch_lines` on ``split_lines(data)`` for the common case, without splitting:
    each pattern is looked for as one ``bytes`` in ``data`` (a match at the start of a line
    is a match of its lines, since only ``\\n`` ends a line), and the result is made of
    slices of ``data`` and the replacements.

    The common case: every hunk has context, as many leading as trailing context lines
    (so it may lie anywhere in the file), and a pattern and replacement whose last lines
    end in ``\\n``; every hunk applies. Each is placed where :func:`patch_lines` places
    it, and the bytes are those :func:`patch_lines` would give: of :func:`_search`'s
    bounds, only "not before the lines the previous hunks consumed" can exclude a place
    where the pattern occurs whole, so the nearest such place wins (GNU's order: the later
    line on a tie).

    Returns:
        A :class:`FilePatchResult` with ``data`` set and ``lines`` ``None``, or ``None``
        outside the common case (a hunk that does not apply included): then
        :func:`patch_lines` gives the answer and the evidence.
    """
    in_offset = 0
    last_frozen = 0
    frozen_at = 0  # the byte where line last_frozen + 1 starts
    pieces: list[bytes] = []
    placements: list[Placement] = []
    for hunk in hunks:
        if reverse:
            pattern, replacement = hunk.post_image, hunk.pre_image
            expected = hunk.new_start + 1 if hunk.new_len == 0 else hunk.new_start
        else:
            pattern, replacement = hunk.pre_image, hunk.post_image
            expected = hunk.old_start + 1 if hunk.old_len == 0 else hunk.old_start
        suffix = hunk.suffix_context
        if (
            not pattern
            or hunk.prefix_context != suffix
            or CONTEXT not in hunk.kinds
            or pattern[-1][-1:] != b"\n"
            or (replacement and replacement[-1][-1:] != b"\n")
        ):
            return None
        joined = b"".join(pattern)
        found = _find_data(data, joined, expected + in_offset, last_frozen, frozen_at)
        if found is None:
            return None
        where, at = found
        pieces.append(data[frozen_at:at])
        if suffix:
            pieces.extend(replacement[: len(replacement) - suffix])
            frozen_at = at + len(joined) - sum(map(len, pattern[len(pattern) - suffix :]))
        else:
            pieces.extend(replacement)
            frozen_at = at + len(joined)
        placements.append(Placement(hunk, where, where - expected))
        in_offset = where - expected
        last_frozen = where - 1 + len(pattern) - suffix
    pieces.append(data[frozen_at:])
    return FilePatchResult(None, tuple(placements), (), b"".join(pieces))


def _find_data(
    data: bytes, joined: bytes, first_guess: int, last_frozen: int, frozen_at: int
) -> tuple[int, int] | None:
    """Where the pattern ``joined`` (whole lines) starts in ``data`` after the
    ``last_frozen`` lines (which end at byte ``frozen_at``), nearest to line
    ``first_guess`` (the later one on a tie): ``(1-based line, byte offset)``, or
    ``None``."""
    line, counted = last_frozen + 1, frozen_at
    before: tuple[int, int] | None = None  # the nearest place before the guess
    at = data.find(joined, frozen_at)
    while at != -1:
        if at == 0 or data[at - 1] == 10:  # at the start of a line
            line += data.count(b"\n", counted, at)
            counted = at
            if line >= first_guess:
                if before is not None and first_guess - before[0] < line - first_guess:
                    return before
                return line, at
            before = (line, at)
        at = data.find(joined, at + 1)
    return before


def _ending(line: bytes) -> str:
    if line.endswith(b"\r\n"):
        return "CRLF"
    return "LF" if line.endswith(b"\n") else ""


def line_ending_style(lines: Sequence[bytes]) -> str:
    """``"CRLF"``, ``"LF"`` or ``"a mix of CRLF and LF"``: how the lines that end in a
    newline end (``"LF"`` when none does)."""
    styles = {_ending(line) for line in lines} - {""}
    if len(styles) > 1:
        return "a mix of CRLF and LF"
    return styles.pop() if styles else "LF"


def mixed_endings_advice(patch_file: str) -> str:
    """What to do about a patch whose hunk lines mix CRLF and LF (lint's PK306, audit's rule
    ``mixed-endings``), ``patch_file`` being the patch as the user names it.

    >>> print(mixed_endings_advice("fix.patch"))
    convert it to LF (dos2unix fix.patch, or sed -i 's/\\r$//' fix.patch), or regenerate it
    """
    name = shlex.quote(patch_file)
    return f"convert it to LF (dos2unix {name}, or sed -i 's/\\r$//' {name}), or regenerate it"


@dataclass(frozen=True)
class MixedEndings:
    """The first hunk of a patch whose lines, as ``apply`` compares them, mix CRLF and LF.

    Attributes:
        path: the file the hunk changes.
        hunk: the hunk's number in its file diff (``#2``).
        line: the patch file's line where the ending changes.
        first, then: the ending before that line and the one it has (``"CRLF"``, ``"LF"``).
    """

    path: str
    hunk: int
    line: int
    first: str
    then: str

    def words(self) -> str:
        """The finding in words.

        >>> MixedEndings("app/core.py", 1, 5, "CRLF", "LF").words()
        'the line endings change from CRLF to LF at patch line 5, inside hunk #1 of app/core.py'
        """
        return (
            f"the line endings change from {self.first} to {self.then} at patch line "
            f"{self.line}, inside hunk #{self.hunk} of {self.path}"
        )


def mixed_endings(files: Sequence[tuple[str, Sequence[Hunk]]]) -> MixedEndings | None:
    """The first hunk of ``files`` (each file's path and hunks) whose lines mix CRLF and LF
    line endings, or ``None``. The lines are the hunk's as parsed, which is how ``apply``
    compares them: a patch whose every line ends in CRLF has them read as LF (GNU patch
    strips the CR of a whole-CRLF patch), so only a patch that mixes them is found. Such a
    hunk cannot apply to a file of one line ending (apply's "different line endings": "the
    patch's in a mix of CRLF and LF").

    >>> from pathlib import Path
    >>> from patchkeeper.series.parse import parse_patch
    >>> data = b"--- a/f\\n+++ b/f\\n@@ -1,2 +1,2 @@\\n a\\r\\n-b\\r\\n+B\\n"
    >>> patch = parse_patch(data, name="x.patch", path=Path("x.patch"))
    >>> mixed_endings([(d.path, d.hunks) for d in patch.files])
    MixedEndings(path='f', hunk=1, line=6, first='CRLF', then='LF')
    """
    for path, hunks in files:
        for hunk in hunks:
            first = ""
            for line in hunk.lines:
                ending = _ending(line.text)
                if not ending:
                    continue
                if not first:
                    first = ending
                elif ending != first:
                    return MixedEndings(path, hunk.index, line.line_no, first, ending)
    return None


def _plain(line: bytes) -> bytes:
    return line[:-2] + b"\n" if line.endswith(b"\r\n") else line


def plain_closest_match(
    lines: Sequence[bytes],
    pattern: Sequence[bytes],
    near: int,
    indexed: FileLines,
    closest: ClosestMatch | None,
) -> ClosestMatch | None:
    """``closest``, or the closest window with CRLF read as LF on both sides when that one
    matches more lines (its :attr:`ClosestMatch.endings` naming both styles).

    A file whose line endings changed between releases (an upstream that converted its
    CRLF files to LF) leaves a hunk's lines nowhere as they are: compared byte for byte, a
    hunk that differs from the file in one line only would be reported as matching
    nowhere, hiding both the one line that differs and the line endings.

    >>> hunk = [b"a\\r\\n", b"b\\r\\n", b"c\\r\\n"]
    >>> file = [b"a\\n", b"B\\n", b"c\\n"]
    >>> found = plain_closest_match(file, hunk, 1, FileLines(file), None)
    >>> found.line, found.matching, found.endings
    (1, 2, "the file's lines end in LF, the patch's in CRLF")
    """
    patch_style = line_ending_style(pattern)
    if patch_style == indexed.style or not pattern:
        return closest
    plain = [_plain(line) for line in pattern]
    found = closest_match(indexed.plain_lines, plain, near, indexed.plain_positions)
    if found is None or (closest is not None and found.matching <= closest.matching):
        return closest
    words = f"the file's lines end in {indexed.style}, the patch's in {patch_style}"
    return replace(found, endings=words)


#: How a hunk failure that only the line endings cause begins (GNU patch's words).
ENDINGS_WORDS = "different line endings"
#: How a hunk failure that only white space at the ends of lines causes begins.
TRAILING_SPACE_WORDS = "the lines match but for white space at their ends"
#: What such a failure says to do when nothing tells which side changed: a patch that went
#: through a mail client or an editor lost its white space, or the file gained some.
MANGLED_SPACE_ADVICE = (
    " (a mail client or an editor stripped it); take the patch again from where it came from "
    "(its git commit, the source package), or apply it with 'patch -l' and refresh it"
)


@dataclass(frozen=True)
class EndingsMismatch:
    """A hunk whose lines match the file's but for their line endings.

    Attributes:
        file_style: the file's :func:`line_ending_style` (``"CRLF"``).
        patch_style: the hunk's.
    """

    file_style: str
    patch_style: str

    def words(self) -> str:
        """The failure in words: :data:`ENDINGS_WORDS` and both styles.

        >>> EndingsMismatch("CRLF", "LF").words()
        "different line endings: the file's lines end in CRLF, the patch's in LF"
        """
        return (
            f"{ENDINGS_WORDS}: the file's lines end in {self.file_style}, the patch's in "
            f"{self.patch_style}"
        )


@dataclass(frozen=True)
class SpaceMismatch:
    """Where a hunk's lines match the file's but for white space at their ends.

    Attributes:
        line: the 1-based line of the file whose end differs first.
        in_file: whether that line of the file ends in white space the patch's lacks
            (else the patch's line ends in white space the file's lacks).
    """

    line: int
    in_file: bool

    def words(self, advice: str) -> str:
        """The failure in words: :data:`TRAILING_SPACE_WORDS`, the line, which side has
        the white space, then ``advice`` (:data:`MANGLED_SPACE_ADVICE` when nothing tells
        which side changed it).

        >>> print(SpaceMismatch(3, in_file=False).words("!").partition(": ")[2])
        at line 3, the patch's line ends in white space the file's lacks!
        """
        which = (
            "the file's line ends in white space the patch's lacks"
            if self.in_file
            else "the patch's line ends in white space the file's lacks"
        )
        return f"{TRAILING_SPACE_WORDS}: at line {self.line}, {which}{advice}"


def trailing_space_mismatch(
    lines: Sequence[bytes],
    hunk: Hunk,
    reverse: bool,
    indexed: FileLines | None = None,
) -> SpaceMismatch | None:
    """Where only white space at the ends of lines keeps a hunk from matching, else
    ``None``: a patch that went through a mail client or an editor that strips trailing
    white space lost it from its context lines, while the file kept it (GNU patch applies
    it only with ``-l``). Names the first file line whose end differs. ``indexed``: the
    :class:`FileLines` of ``lines``, when the caller has it (one file's many hunks).

    >>> from patchkeeper.series.parse import parse_patch
    >>> from pathlib import Path
    >>> diff = b"--- a/f\\n+++ b/f\\n@@ -1,2 +1,2 @@\\n a\\n-b\\n+B\\n"
    >>> (hunk,) = parse_patch(diff, name="p", path=Path("p")).files[0].hunks
    >>> trailing_space_mismatch([b"a  \\n", b"b\\n"], hunk, False)
    SpaceMismatch(line=1, in_file=True)
    >>> trailing_space_mismatch([b"a\\n", b"c\\n"], hunk, False) is None
    True
    """
    pattern, _ = images(hunk, reverse)
    if not pattern:
        return None
    bare = [line.rstrip() for line in pattern]
    size = len(bare)
    # a window whose lines match but for white space starts with a line that does too
    positions = (indexed or FileLines(lines)).stripped_positions.get(bare[0], [])
    starts = [start for start in positions if start <= len(lines) - size]
    if any(list(lines[start : start + size]) == list(pattern) for start in starts):
        return None  # the lines occur as they are: white space is not what keeps them out
    for start in starts:
        window = lines[start : start + size]
        if [line.rstrip() for line in window] == bare:
            first = next(i for i, line in enumerate(window) if line != pattern[i])
            return SpaceMismatch(start + first + 1, len(window[first]) > len(pattern[first]))
    return None


class FileLines:
    """One file's lines indexed for the hunks that fail on it: each index is made on first
    use and then kept for the file's other failing hunks (:func:`closest_match`,
    :func:`line_ending_mismatch`, :func:`trailing_space_mismatch`).

    >>> indexed = FileLines([b"a\\r\\n", b"b\\n", b"a\\n"])
    >>> indexed.crlf, indexed.plain_positions, indexed.style
    (True, {b'a\\n': [0, 2], b'b\\n': [1]}, 'a mix of CRLF and LF')
    """

    def __init__(self, lines: Sequence[bytes]) -> None:
        self.lines = lines

    @cached_property
    def positions(self) -> dict[bytes, list[int]]:
        """:func:`line_positions` of the lines, by their text."""
        return line_positions(self.lines)

    @cached_property
    def stripped_positions(self) -> dict[bytes, list[int]]:
        """:func:`line_positions` by each line's text without the white space at its end."""
        return line_positions(self.lines, bytes.rstrip)

    @cached_property
    def plain_positions(self) -> dict[bytes, list[int]]:
        """:func:`line_positions` by each line's text with CRLF read as LF."""
        return line_positions(self.lines, _plain)

    @cached_property
    def plain_lines(self) -> list[bytes]:
        """The lines with CRLF read as LF."""
        return [_plain(line) for line in self.lines]

    @cached_property
    def crlf(self) -> bool:
        """Whether any line ends in CRLF."""
        return any(line.endswith(b"\r\n") for line in self.lines)

    @cached_property
    def style(self) -> str:
        """The lines' :func:`line_ending_style`."""
        return line_ending_style(self.lines)


def line_ending_mismatch(
    lines: Sequence[bytes], hunk: Hunk, reverse: bool, endings: FileLines | None = None
) -> EndingsMismatch | None:
    """Both sides' line-ending styles when only line endings keep a hunk from matching,
    else ``None``.

    Every ``\r\n`` is read as ``\n`` on both sides; if the pattern then occurs in the file,
    the failure is the line endings (GNU patch: "(different line endings)"), and the
    mismatch names both styles (:meth:`EndingsMismatch.words`). ``endings``: the
    :class:`FileLines` of ``lines``, when the caller has it (one file's many hunks).
    """
    pattern, _ = images(hunk, reverse)
    if not pattern:
        return None
    plain_pattern = [_plain(line) for line in pattern]
    endings = endings or FileLines(lines)
    if plain_pattern == list(pattern) and not endings.crlf:
        return None
    size = len(plain_pattern)
    # a window that matches with CRLF read as LF starts with a line that does too; so does
    # one that matches as it is
    positions = endings.plain_positions.get(plain_pattern[0], [])
    starts = [start for start in positions if start <= len(lines) - size]
    if any(list(lines[start : start + size]) == list(pattern) for start in starts):
        return None  # the lines occur as they are: the endings are not what keeps them out
    if not any(
        [_plain(line) for line in lines[start : start + size]] == plain_pattern for start in starts
    ):
        return None
    file_style = endings.style
    patch_style = line_ending_style(pattern)
    if file_style == patch_style:
        return None
    return EndingsMismatch(file_style, patch_style)
