"""Hunk location at fuzz 0 (GNU patch's rules), application, reversal, closest match."""

from __future__ import annotations

from pathlib import Path

from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from patchkeeper.errors import PatchFormatError
from patchkeeper.series.hunks import (
    closest_match,
    images,
    landed_lines,
    locate,
    patch_data,
    patch_lines,
)
from patchkeeper.series.parse import parse_patch, split_lines


def hunks(diff: str):
    data = ("--- a/f\n+++ b/f\n" + diff).encode()
    return parse_patch(data, name="t", path=Path("t"), strip=1).files[0].hunks


def lines(*items: str) -> list[bytes]:
    return [f"{item}\n".encode() for item in items]


MIDDLE = """\
@@ -3,3 +3,3 @@
 c
-d
+D
 e
"""


def test_in_place_then_offsets_nearest_first_later_before_earlier() -> None:
    (hunk,) = hunks(MIDDLE)
    assert locate(lines("a", "b", "c", "d", "e", "f"), hunk) == 3
    # two candidates, 2 lines before and 2 lines after the header's line: after wins
    text = lines("c", "d", "e", "x", "c", "d", "e", "y", "z", "w")
    assert locate(text, hunk) == 5
    assert locate(lines("c", "d", "e", "x", "y", "z"), hunk) == 1


def test_offset_carries_to_the_next_hunk() -> None:
    first, second = hunks("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -7,3 +7,3 @@\n g\n-h\n+H\n i\n")
    text = lines("x", "x", "a", "b", "c", "d", "e", "f", "g", "h", "i")
    result = patch_lines(text, [first, second])
    assert [(p.line, p.offset) for p in result.placements] == [(3, 2), (9, 2)]
    assert result.lines == lines("x", "x", "a", "B", "c", "d", "e", "f", "g", "H", "i")


def test_short_leading_context_anchors_to_start_of_file() -> None:
    # fewer leading than trailing context lines at line 1: only the start of the file matches
    (hunk,) = hunks("@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n")
    assert locate(lines("a", "b", "c"), hunk) == 1
    assert locate(lines("z", "a", "b", "c"), hunk) is None


def test_short_trailing_context_anchors_to_end_of_file() -> None:
    (hunk,) = hunks("@@ -2,3 +2,3 @@\n b\n c\n-d\n+D\n")
    assert locate(lines("a", "b", "c", "d"), hunk) == 2
    assert locate(lines("b", "c", "d", "e"), hunk) is None


def test_pure_insertion_without_context_goes_where_the_header_says() -> None:
    (hunk,) = hunks("@@ -2,0 +3,1 @@\n+new\n")
    assert patch_lines(lines("a", "b", "c"), [hunk]).lines == lines("a", "b", "new", "c")


def test_reverse_undoes_exactly() -> None:
    (hunk,) = hunks(MIDDLE)
    patched = lines("a", "b", "c", "D", "e", "f")
    assert patch_lines(patched, [hunk], reverse=True).lines == lines("a", "b", "c", "d", "e", "f")
    assert patch_lines(patched, [hunk]).failures[0].hunk is hunk


def test_missing_final_newline_must_match_exactly() -> None:
    (hunk,) = hunks("@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n")
    assert patch_lines([b"a\n", b"b"], [hunk]).lines == [b"a\n", b"c\n"]
    assert not patch_lines([b"a\n", b"b\n"], [hunk]).ok


def test_failure_reports_closest_match_and_differences() -> None:
    (hunk,) = hunks(MIDDLE)
    result = patch_lines(lines("q", "q", "q", "q", "c", "X", "e"), [hunk])
    assert result.lines is None
    failure = result.failures[0]
    assert failure.expected_line == 3
    closest = failure.closest
    assert closest is not None
    assert (closest.line, closest.matching, closest.total) == (5, 2, 3)
    assert [(d.index, d.expected, d.found) for d in closest.differences] == [(1, b"d\n", b"X\n")]


def test_closest_match_none_when_nothing_shared() -> None:
    assert closest_match(lines("x", "y"), lines("a", "b"), 1) is None


def test_refusal_note_when_every_line_matches_elsewhere() -> None:
    from patchkeeper.series.hunk_evidence import hunk_evidence

    # fewer leading than trailing context at line 1: only the start of the file will do
    (hunk,) = hunks("@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n")
    result = patch_lines(lines("z", "a", "b", "c"), [hunk])
    evidence = hunk_evidence("f", result.failures[0])
    assert (evidence.closest_line, evidence.matching, evidence.total) == (2, 3, 3)
    assert evidence.note == (
        "every line matches there, but the hunk has fewer leading than trailing context "
        "lines and starts at line 1, so it may only apply at the start of the file"
    )


ALPHABET = (b"a\n", b"b\n", b"c\n", b"a\r\n", b"\n")


@st.composite
def byte_cases(draw: st.DrawFn) -> tuple[bytes, list, bool]:
    """A file of few distinct lines (so a pattern recurs) and 1-3 hunks cut from it, with
    header lines moved by up to 4 (offsets), in order or not, sometimes changed."""
    lines = draw(st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=30))
    text = b"".join(lines)
    if draw(st.booleans()) and text.endswith(b"\n"):
        text = text[:-1]  # no newline at the end
    diff = []
    for _ in range(draw(st.integers(1, 3))):
        before = draw(st.integers(0, 3))
        after = before if draw(st.integers(0, 2)) else draw(st.integers(0, 3))
        removed = draw(st.integers(0, 2))
        start = draw(st.integers(0, len(lines)))
        window = lines[start : start + before + removed + after]
        cut = min(before, len(window))
        gone = window[cut : cut + removed]
        tail = window[cut + len(gone) :]
        added = draw(st.lists(st.sampled_from(ALPHABET), max_size=2))
        if draw(st.integers(0, 4)) == 0 and window:  # a pattern that may occur nowhere
            gone = [b"zzz\n", *gone]
        body = [b" " + x for x in window[:cut]] + [b"-" + x for x in gone]
        body += [b"+" + x for x in added] + [b" " + x for x in tail]
        old_len = cut + len(gone) + len(tail)
        new_len = cut + len(added) + len(tail)
        old_start = max(start + 1 + draw(st.integers(-4, 4)), 1) if old_len else start
        header = b"@@ -%d,%d +%d,%d @@\n" % (old_start, old_len, max(old_start, 1), new_len)
        diff.append(header + b"".join(body))
    data = b"--- a/f\n+++ b/f\n" + b"".join(diff)
    try:
        parsed = parse_patch(data, name="t", path=Path("t"), strip=1).files[0].hunks
    except PatchFormatError:
        parsed = []
    return text, list(parsed), draw(st.booleans())


@settings(max_examples=500, deadline=None)
@given(case=byte_cases())
def test_patch_data_places_and_writes_what_patch_lines_does(case) -> None:
    """The bytes fast path gives patch_lines' placements and bytes whenever it answers, and
    answers whenever every hunk is of the common case and applies."""
    text, parsed, reverse = case
    by_lines = patch_lines(split_lines(text), parsed, reverse=reverse)
    by_data = patch_data(text, parsed, reverse=reverse)
    common = all(
        images(h, reverse)[0]
        and h.has_context
        and h.prefix_context == h.suffix_context
        and images(h, reverse)[0][-1].endswith(b"\n")
        and (not images(h, reverse)[1] or images(h, reverse)[1][-1].endswith(b"\n"))
        for h in parsed
    )
    event(f"fast path answered: {by_data is not None}")
    if by_data is None:
        assert not (common and by_lines.ok)
        return
    assert by_lines.ok
    assert by_data.data == b"".join(by_lines.lines or [])
    assert [(p.line, p.offset) for p in by_data.placements] == [
        (p.line, p.offset) for p in by_lines.placements
    ]


def test_a_hunk_is_undone_at_the_line_apply_put_it() -> None:
    """``a b`` -> ``b a`` applied to ``b a a b`` lands at line 3 (the pre-image is only
    there); the search from the header's line 1 meets the post-image there first."""
    (hunk,) = hunks("@@ -1,2 +1,2 @@\n-a\n b\n+a\n")
    pristine = lines("b", "a", "a", "b")
    applied = patch_lines(pristine, [hunk])
    assert (landed_lines(applied.placements), applied.lines) == ((3,), lines("b", "a", "b", "a"))
    target = applied.lines or []
    assert patch_lines(target, [hunk], reverse=True).lines == lines("a", "b", "b", "a")
    assert patch_lines(target, [hunk], reverse=True, at=[3]).lines == pristine
    # a line where the post-image does not stand is no place to undo it: the search decides
    wrong = patch_lines(target, [hunk], reverse=True, at=[2])
    assert [p.line for p in wrong.placements] == [1]


@settings(max_examples=500, deadline=None)
@example(case=(b"b\na\na\nb\n", list(hunks("@@ -1,2 +1,2 @@\n-a\n b\n+a\n")), False))
@given(case=byte_cases())
def test_undoing_at_the_landed_lines_gives_the_input_back(case) -> None:
    """Whatever applies forward with hunks that each replace lines by other lines (neither
    image empty, so that each is placed after the lines the previous one consumed) and share
    no context line: each hunk's post-image stands at its landed line in the output, and
    undoing every hunk there gives
    the input back, byte for byte (when the input ends in a newline: applying gives a last
    line that lacks one a newline when lines come after it, as GNU patch does). Wherever the
    search alone undoes the hunks exactly, the landed lines do too."""
    text, parsed, _ = case
    applied = patch_lines(split_lines(text), parsed)
    if not applied.ok or not parsed:
        event("does not apply")
        return
    after = applied.lines or []
    landed = landed_lines(applied.placements)
    undone = patch_lines(after, parsed, reverse=True, at=landed)
    searched = patch_lines(after, parsed, reverse=True)
    if searched.ok and b"".join(searched.lines or []) == text:
        assert b"".join(undone.lines or []) == text
    if not all(h.pre_image and h.post_image and h.pre_image != h.post_image for h in parsed):
        event("an empty image, or a hunk that changes nothing")
        return
    ends = [p.line + len(p.hunk.pre_image) for p in applied.placements]
    if any(p.line < end for p, end in zip(applied.placements[1:], ends)):
        # a hunk inside the previous one's trailing context changes its post-image
        event("hunks that share context lines")
        return
    for placement, line in zip(applied.placements, landed):
        post = list(placement.hunk.post_image)
        assert after[line - 1 : line - 1 + len(post)] == post
    if text.endswith(b"\n"):
        assert b"".join(undone.lines or []) == text
    event(f"the search alone undoes it: {b''.join(searched.lines or []) == text}")


def test_closest_match_never_starts_before_the_file() -> None:
    """Before: line -1 (a window starting before the file: its pattern's later lines aligned
    with the file's first ones); the audit printed 'closest match at line -12' for a
    1,032-line deletion of a file that had lost its first lines upstream."""
    closest = closest_match(lines("c", "d", "x", "a", "b"), lines("a", "b", "c", "d"), 1)
    assert closest is not None
    assert (closest.line, closest.matching, closest.total) == (4, 2, 4)
    assert [(d.index, d.expected, d.found) for d in closest.differences] == [
        (2, b"c\n", None),
        (3, b"d\n", None),
    ]
    # every vote is for a start before the file: the window starts at line 1
    closest = closest_match(lines("c", "d"), lines("a", "b", "c", "d"), 1)
    assert closest is not None
    assert (closest.line, closest.matching, closest.total) == (1, 0, 4)
