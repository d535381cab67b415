"""Wording fixes upstream made its own way: the same words of the same lines, reworded.

A patch that fixes prose (a typo in documentation, a comment's grammar: ``allow to store``
made ``allow one to store``) fails once upstream fixed the same words otherwise (``allow
storing``): the lines it removes are gone, and at their place stand lines alike to them whose
change from them covers the very words the patch changes. The patch's lines are nowhere, yet
upstream made the change it makes; whether its wording settles the matter is a person's call
(*look*), never a port of a fix upstream has.

Only prose counts (:func:`prose_start`): documentation and release notes, comments in C, C++ and
Python. A patch's change counts as a wording fix when every token it changes, on both sides, is
a word of letters: a URL, a path or a version it substitutes is not, and upstream rewording such
a line leaves the substitution to port.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from patchkeeper.audit.hunk_verdicts import (
    REWRITTEN_MIN_LENGTH,
    REWRITTEN_RATIO,
    rewritten_lines_at_place,
)
from patchkeeper.series.filekinds import C_FAMILY, DOCS, NOTES, PYTHON, kind_of, language_of
from patchkeeper.series.model import ADDED, Hunk

#: A token of prose: a run of word characters, or one other non-blank character.
_TOKEN = re.compile(rb"\w+|[^\w\s]")
#: A word the patch may change for its change to count as a wording fix.
_WORD = re.compile(rb"[A-Za-z]+")
#: Where a comment starts in C and C++ (a ``*`` line continues one).
_C_COMMENT = re.compile(rb"/\*|//|^\s*\*")

#: A span of tokens an edit changes, ``(start, end)`` in the old line's tokens, both ends
#: included in the sense that an insertion at ``i`` is ``(i, i)`` and touches ``(j, i)``.
_Span = tuple[int, int]


def prose_start(line: bytes, path: str) -> int | None:
    """The offset in ``line`` where its prose starts: 0 in documentation and release notes,
    the comment's start in C, C++ and Python (``/*``, ``//``, a ``*`` continuation line;
    ``#``); ``None`` when the line holds none.

    >>> prose_start(b"  int a; /* allow to */", "src/x.h"), prose_start(b"x = 1", "x.py")
    (9, None)
    """
    if kind_of(path) in (DOCS, NOTES):
        return 0
    language = language_of(path)
    if language == C_FAMILY:
        found = _C_COMMENT.search(line)
        return found.start() if found else None
    if language == PYTHON:
        at = line.find(b"#")
        return at if at >= 0 else None
    return None


def _tokens(line: bytes) -> list[tuple[int, bytes]]:
    return [(m.start(), m.group()) for m in _TOKEN.finditer(line)]


def _edits(old: list[bytes], new: list[bytes]) -> list[tuple[int, int, int, int]]:
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def _overlaps(one: _Span, other: _Span) -> bool:
    return one[0] <= other[1] and other[0] <= one[1]


def _likest(text: bytes, candidates: Sequence[bytes]) -> bytes | None:
    """The candidate likest ``text`` with a ratio of at least :data:`REWRITTEN_RATIO`."""
    best: tuple[float, bytes] | None = None
    for candidate in candidates:
        ratio = SequenceMatcher(None, text, candidate, autojunk=False).ratio()
        if ratio >= REWRITTEN_RATIO and (best is None or ratio > best[0]):
            best = (ratio, candidate)
    return best[1] if best is not None else None


def _alike_once(lines: Sequence[bytes], text: bytes) -> bytes | None:
    """The one line of ``lines`` (stripped) alike to ``text`` (a ratio of at least
    :data:`REWRITTEN_RATIO`, at least :data:`REWRITTEN_MIN_LENGTH` characters long), when
    the file has exactly one such line; else ``None``. Where the context does not tell the
    place (a generated manual page's ``.PP`` and ``.sp`` recur), one long line alike to the
    removed one and no other is that line rewritten."""
    if len(text) < REWRITTEN_MIN_LENGTH:
        return None
    matcher = SequenceMatcher(None, b"", text, autojunk=False)
    found: set[bytes] = set()
    for line in lines:
        candidate = line.strip()
        if len(candidate) < REWRITTEN_MIN_LENGTH:
            continue
        matcher.set_seq1(candidate)
        if (
            matcher.real_quick_ratio() >= REWRITTEN_RATIO
            and matcher.quick_ratio() >= REWRITTEN_RATIO
            and matcher.ratio() >= REWRITTEN_RATIO
        ):
            found.add(candidate)
            if len(found) > 1:
                return None
    return found.pop() if found else None


def _patch_spans(removed: bytes, added: bytes, start: int) -> list[_Span] | None:
    """The token spans of ``removed`` the patch changes to make ``added``, when each is a
    wording fix in prose (every changed token a word of letters, none before ``start``);
    ``None`` otherwise or when nothing changes."""
    old, new = _tokens(removed), _tokens(added)
    spans = []
    for i1, i2, j1, j2 in _edits([t for _, t in old], [t for _, t in new]):
        changed = [t for _, t in old[i1:i2]] + [t for _, t in new[j1:j2]]
        if not all(_WORD.fullmatch(token) for token in changed):
            return None
        at = old[i1][0] if i1 < len(old) else len(removed)
        if at < start:
            return None
        spans.append((i1, i2))
    return spans or None


def reworded(lines: Sequence[bytes], hunk: Hunk, path: str) -> tuple[bytes, bytes] | None:
    """The evidence that upstream reworded, at their place, the words a hunk changes: every
    line the hunk removes that carries a change (its likest added line differs from it) is
    in the file's ``lines`` rewritten at its place
    (:func:`patchkeeper.audit.hunk_verdicts.rewritten_lines_at_place`; where the context
    does not tell the place, the one line of the file alike to it, :func:`_alike_once`), the
    patch's change
    of it is a wording fix in prose (:func:`prose_start`), and upstream's change of it covers
    every span of words the patch changes; ``(removed line, upstream's line)`` of the first,
    else ``None``. The caller checks that the removed lines are gone from the file."""
    removed = [line.text.strip() for line in hunk.lines if line.kind == "-"]
    added = [line.text.strip() for line in hunk.lines if line.kind == ADDED]
    if not removed or not added:
        return None
    at_place = dict(rewritten_lines_at_place(lines, hunk))
    first = None
    for text in removed:
        if not text:
            continue
        mine = _likest(text, added)
        theirs = at_place.get(text) or _alike_once(lines, text)
        start = prose_start(text, path)
        if mine is None or theirs is None or start is None or theirs == mine:
            return None
        spans = _patch_spans(text, mine, start)
        if spans is None:
            return None
        old = [t for _, t in _tokens(text)]
        upstream = [(i1, i2) for i1, i2, _, _ in _edits(old, [t for _, t in _tokens(theirs)])]
        if not all(any(_overlaps(span, other) for other in upstream) for span in spans):
            return None
        first = first or (text, theirs)
    return first
