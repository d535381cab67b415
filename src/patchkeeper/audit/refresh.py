"""A patch that fails at fuzz 0 yet only needs a refresh: its hunks land with their lines.

A patch whose context moved or changed around its hunks does not apply at fuzz 0, but a
maintainer does not rework it: git's three-way merge (or quilt with fuzz) places every hunk,
and the patch is refreshed onto the new release with the same ``+`` and ``-`` lines. That is
*carry*, not *port*: Debian's maintainers, for one, keep such a patch under its name with its
changed lines as they were, and only its context and line numbers change.

The audit tells that case the way ``port`` merges (:mod:`patchkeeper.port.merge`): for each
file the patch changes, ``git merge-file`` with base = the old pin's file with the earlier
patches of the series, ours = the base with this patch, theirs = the new release's file with
the earlier patches that apply or were refreshed. Where the old pin's side is not known, the
hunks are placed the way quilt and GNU patch place them, at fuzz 1 or 2 (outer context lines
left out). Where git's merge conflicts, upstream changed lines right beside the patch's own,
and fuzz would place the hunk among them unseen: a hunk then lands only by its changed
stretch (its removed lines and the context between them), intact and found exactly once
after the hunk before it (that also holds without the pin), or, when it only adds import
statements, beside an import of its context (upstream sorted or rewrote the imports around
it; an import's place in the block does not change what it does), or, when it only inserts
lines, at fuzz 1 or 2 where what is left of its context keeps a line on each side of it,
holds a substantive line and occurs exactly once, and neither it nor the place of the
context left out holds a line upstream added since the pin (:func:`_inserted_with_fuzz`:
quilt pushes it there; upstream moved the code on one side of the insertion, not the lines
it was written between), or, when it only inserts lines beside context upstream edited,
where each line of its whole context is the file's line or an edit of it at exactly one
place (:func:`_inserted_beside_edited`: a tool the lines name became a variable; the
maintainer refreshes the patch with its lines as they were), or, when it only inserts lines
and upstream edited the one line beside the insertion, right after (before) its whole
context on the other side, found exactly once (:func:`_inserted_by_one_side`). The patch is
*refreshed* when every file is placed so and the result differs from the new release's file
by exactly the patch's own removed and added lines (counted as multisets, trailing
whitespace ignored): no line of the patch changed and no line of it is already there. A
patch that creates, deletes or renames a file, or whose file is gone, is never judged here
(nothing to place it on as it is), but for a file renamed in a release that ends its lines
in CRLF: that file is merged from its old path and written at its new one, as the line
endings below are set aside for any other file; nor is one that adds a substantive line the
new release's file has and the old pin's lacked (upstream added that code elsewhere in the
file: the merge would add it twice, and whether upstream has the fix is for the other rules,
or a person, to say); without the old pin, any substantive added line the file already has
stops it. Two kinds of such line do not stop it, as they tell no code apart: an import
statement (upstream imports the name for code of its own; the refreshed patch imports it a
second time, which changes nothing, as Debian's maintainers refresh such patches) and a line
the new release's file has more than once (a test's ``jwt.decode(token, key)`` that
upstream's new tests repeat).

Two differences that are not changes are set aside: a new release whose file ends its lines
in CRLF where the patch's end in LF is merged in LF and written back in CRLF; in
configuration and documentation, where indentation means nothing (setuptools rewrites
``setup.cfg`` into an sdist with tabs), hunks that land nowhere else are placed with white
space ignored, as ``patch --ignore-whitespace`` and ``git apply --ignore-whitespace`` place
them (:func:`placed_loosely`), and the lines compared with it ignored too.

A patch whose hunks fail in their file because upstream split that code out into another
file (the old file still there, so git's merge cannot follow) is refreshed onto the new file
when each such hunk lands there with its lines unchanged (:func:`moved_refreshed`).
"""

from __future__ import annotations

import difflib
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.audit.hunk_refs import hunk_namer
from patchkeeper.audit.hunk_verdicts import APPLIES, FAILS, HunkVerdict
from patchkeeper.audit.new_places import common_ends
from patchkeeper.errors import GitError
from patchkeeper.series.engine import FileState
from patchkeeper.series.filekinds import CONFIG, DOCS, kind_of
from patchkeeper.series.model import ADDED, REMOVED, FileDiff, Hunk, Patch
from patchkeeper.series.substantive_lines import (
    is_import,
    normalize,
    substantive,
    substantive_lines,
)
from patchkeeper.system.english import plural
from patchkeeper.upstream import gitops


@dataclass(frozen=True)
class Refreshed:
    """A patch git's three-way merge places with its lines unchanged.

    Attributes:
        files: path -> the new release's file with the patch merged in (``None``: the
            old path of a file the patch renames, which it leaves).
        text: the evidence in words (how many hunks in how many files).
    """

    files: Mapping[str, FileState | None]
    text: str


def _strip(line: bytes) -> bytes:
    return line.rstrip()


def _own_lines(diffs: Sequence[FileDiff]) -> tuple[Counter[bytes], Counter[bytes]]:
    """``(removed, added)``: the patch's own lines in these diffs (trailing whitespace off)."""
    removed: Counter[bytes] = Counter()
    added: Counter[bytes] = Counter()
    for diff in diffs:
        for hunk in diff.hunks:
            for line in hunk.lines:
                if line.kind == REMOVED:
                    removed[_strip(line.text)] += 1
                elif line.kind == ADDED:
                    added[_strip(line.text)] += 1
    return removed, added


def _added_upstream(
    diffs: Sequence[FileDiff], base: FileState | None, new: FileState | None
) -> bool:
    """Whether upstream added, between the pins, a substantive line these diffs add that
    tells code apart: not an import statement (an import upstream now has for code of its
    own is not the patch's fix: the refreshed patch imports the name a second time, which
    changes nothing), and a line the new release's file has once (a line it has several
    times, a test's ``assert response.status == 200`` say, is a construct the file
    repeats, not the patch's code added elsewhere)."""
    if new is None:
        return False
    added = [
        line
        for line in substantive_lines(
            line.text for diff in diffs for hunk in diff.hunks for line in hunk.added
        )
        if not is_import(line)
    ]
    had = set(substantive_lines(base.lines)) if base is not None else set()
    has = Counter(substantive_lines(new.lines))
    return any(has[line] == 1 and line not in had for line in added)


def _new_lines(base: FileState | None, new: FileState) -> frozenset[bytes]:
    """The non-blank lines (stripped) that ``new`` has exactly once and ``base`` (the old
    pin's file, with the earlier patches) lacks: what upstream added since the pin."""
    had = {line.strip() for line in base.lines} if base is not None else set()
    has = Counter(line.strip() for line in new.lines)
    return frozenset(line for line, n in has.items() if n == 1 and line and line not in had)


def changed_lines(
    before: Sequence[bytes], after: Sequence[bytes]
) -> tuple[Counter[bytes], Counter[bytes]]:
    """``(removed, added)``: the lines a line diff from ``before`` to ``after`` removes and
    adds (trailing whitespace off), as multisets. The common head and tail are set aside
    first, so that only the changed stretch is compared."""
    head, tail = common_ends(before, after)
    old = [_strip(line) for line in before[head : len(before) - tail]]
    new = [_strip(line) for line in after[head : len(after) - tail]]
    removed: Counter[bytes] = Counter()
    added: Counter[bytes] = Counter()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("delete", "replace"):
            removed.update(old[i1:i2])
        if tag in ("insert", "replace"):
            added.update(new[j1:j2])
    return removed, added


#: GNU patch's default fuzz: at most this many context lines left out at each end of a hunk.
MAX_FUZZ = 2


def _occurrences(lines: Sequence[bytes], pattern: Sequence[bytes], low: int) -> list[int]:
    """The 0-based starts at or after ``low`` where ``pattern`` (not empty) is in ``lines``."""
    width = len(pattern)
    first = pattern[0]
    out = []
    for start in range(low, len(lines) - width + 1):
        if lines[start] == first and tuple(lines[start : start + width]) == tuple(pattern):
            out.append(start)
    return out


#: A removed line this long (whitespace collapsed) tells a place even when it is a comment
#: (a shebang, a commented-out option, a preprocessor line).
TELLING_LENGTH = 10


def _telling(line: bytes) -> bool:
    """Whether a removed line can anchor its hunk: substantive, or at least
    :data:`TELLING_LENGTH` characters long (whitespace collapsed)."""
    return substantive(line) is not None or len(normalize(line)) >= TELLING_LENGTH


def fuzzy_spot(
    lines: Sequence[bytes], hunk: Hunk, max_fuzz: int = MAX_FUZZ
) -> tuple[int, int] | None:
    """Where GNU patch (and quilt, which calls it with its default fuzz) would apply a hunk
    that does not apply at fuzz 0: ``(1-based line, fuzz)`` of the first fuzz from 1 to
    ``max_fuzz`` at which its pre-image, outer context lines left out, is in ``lines``
    (the match nearest the hunk's header taken); ``None`` when it lands nowhere so."""
    pre = hunk.pre_image
    guess = max(hunk.old_start - 1, 0)
    for fuzz in range(1, max_fuzz + 1):
        head = min(fuzz, hunk.prefix_context)
        tail = min(fuzz, hunk.suffix_context)
        pattern = pre[head : len(pre) - tail]
        if not pattern or (head == 0 and tail == 0):
            continue
        starts = _occurrences(lines, pattern, 0)
        if starts:
            start = min(starts, key=lambda s: (abs(s - guess - head), s))
            return start + 1, fuzz
    return None


def _among_imports(
    lines: Sequence[bytes], hunk: Hunk, low: int
) -> tuple[int, int, tuple[bytes, ...], str] | None:
    """Where a hunk that only adds import statements lands when upstream reordered or
    rewrote the imports around it: an import's place in the import block does not change
    what it does, so a maintainer resolving the conflict keeps the line as it is. The
    hunk removes nothing, adds one run of lines, each an import or blank, and the nearest
    import of its context after the run (else before it) is in ``lines`` exactly once at
    or after ``low``: the run goes before (after) that import. Returns ``(start, 0, the
    added lines, how)`` or ``None``."""
    if hunk.removed or not hunk.added:
        return None
    kinds = [line.kind for line in hunk.lines]
    first = kinds.index(ADDED)
    last = len(kinds) - 1 - kinds[::-1].index(ADDED)
    run = hunk.lines[first : last + 1]
    if any(line.kind != ADDED for line in run):
        return None
    if not any(is_import(line.text) for line in run) or any(
        substantive(line.text) is not None and not is_import(line.text) for line in run
    ):
        return None
    added = tuple(line.text for line in run)
    after = [line.text for line in hunk.lines[last + 1 :] if is_import(line.text)]
    before = [line.text for line in hunk.lines[:first] if is_import(line.text)]
    for anchor, shift in ((after[:1], 0), (before[-1:], 1)):
        if not anchor:
            continue
        starts = _occurrences(lines, anchor, low)
        if len(starts) == 1:
            return starts[0] + shift, 0, added, "among the imports"
    return None


def _inserted_with_fuzz(
    lines: Sequence[bytes], hunk: Hunk, low: int, upstream: frozenset[bytes]
) -> tuple[int, int, tuple[bytes, ...], str] | None:
    """Where a hunk that only inserts lines lands when git's merge stops beside it: as GNU
    patch places it at fuzz 1 or 2 (its outer context lines left out), when what is left
    of its context keeps a line on each side of the insertion, holds a substantive line and
    occurs exactly once in ``lines``, at or after ``low``. Quilt pushes such a hunk there
    and the maintainer refreshes it; a hunk that removes lines is never placed so (fuzz
    could take other lines for its own), nor one that adds a line of ``upstream`` (the
    lines, stripped, that upstream added to the file since the pin and that it has once:
    upstream wrote some of the insertion beside the place, an ``#include`` say, and fuzz
    would put the patch's lines among its own), nor one where the file has such a line,
    a substantive one, in the place of a context line left out (upstream wrote code of its
    own at the place; a comment it wrote over code it moved there does not count).
    Returns ``(start, lines replaced, replacement, how)`` or ``None``."""
    if hunk.removed or not hunk.added:
        return None
    if any(_strip(line.text).strip() in upstream for line in hunk.added):
        return None
    pre, post = hunk.pre_image, hunk.post_image
    for fuzz in range(1, MAX_FUZZ + 1):
        head = min(fuzz, hunk.prefix_context)
        tail = min(fuzz, hunk.suffix_context)
        pattern = pre[head : len(pre) - tail]
        if head == hunk.prefix_context or tail == hunk.suffix_context:
            break  # nothing left on one side: the place is told by one side only
        if not substantive_lines(pattern):
            continue
        starts = _occurrences(lines, pattern, 0)
        if len(starts) != 1:
            if starts:
                return None
            continue
        start = starts[0]
        # where the left-out context was, the file has lines upstream wrote since the pin:
        # upstream put code of its own at the place, not beside it
        around = [*lines[max(start - head, 0) : start], *lines[start + len(pattern) :][:tail]]
        if start < low or any(
            substantive(line) is not None and line.strip() in upstream for line in around
        ):
            return None
        return start, len(pattern), post[head : len(post) - tail], f"at fuzz {fuzz}"
    return None


#: How alike (:class:`difflib.SequenceMatcher` ratio, white space at the ends off) a line of
#: the new release must be to a context line of a hunk to stand for it: upstream edited the
#: line (``requires cmp`` became ``requires $CMP``), it did not write another.
RESEMBLANCE = 0.75

#: How a hunk is placed whose context upstream edited (:func:`_inserted_beside_edited`).
BESIDE_EDITED = "beside context upstream edited"

_WORD = re.compile(rb"[a-z_][a-z0-9_]*")


#: C's built-in scalar types: a signature that swaps one for another type (``int idx`` now
#: ``uint32_t idx``) declares the same thing, unlike a name that changed.
_SCALAR_TYPES = frozenset(
    {b"char", b"short", b"int", b"long", b"signed", b"unsigned", b"float", b"double"}
)


def _same_word(word: bytes, have: bytes) -> bool:
    """Whether ``have`` stands for ``word``: the same, or both types where ``word`` is one
    of C's scalar types (:data:`_SCALAR_TYPES`) and ``have`` another or a ``_t`` type."""
    if word == have:
        return True
    return word in _SCALAR_TYPES and (have in _SCALAR_TYPES or have.endswith(b"_t"))


def _keeps_words(line: bytes, other: bytes) -> bool:
    """Whether ``other`` has every word (name, keyword) of ``line``, in order, case
    ignored: it may add words (a type annotation, a sigil's variable), it takes no name
    out (``self.origin`` is not ``self.repos``, ``transport`` not ``_transport``); a C
    scalar type may be another type (:func:`_same_word`)."""
    words = iter(_WORD.findall(other.lower()))
    return all(
        any(_same_word(word, have) for have in words) for word in _WORD.findall(line.lower())
    )


def _resembles(line: bytes, other: bytes) -> bool:
    """Whether two context lines are one line, the same or edited: equal once white space
    at the ends is off, or both non-blank, alike by at least :data:`RESEMBLANCE` and
    ``other`` keeping every word of ``line`` (:func:`_keeps_words`)."""
    a, b = line.strip(), other.strip()
    if a == b:
        return True
    if not a or not b or not _keeps_words(a, b):
        return False
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= RESEMBLANCE


def _inserted_beside_edited(
    lines: Sequence[bytes], hunk: Hunk, low: int, upstream: frozenset[bytes]
) -> tuple[int, int, tuple[bytes, ...], str] | None:
    """Where a hunk that only inserts lines lands when upstream edited lines of its context
    (named a tool by a variable, annotated a function) so that neither git's merge
    nor fuzz places it: where each line of its whole context is the file's line or an edit
    of it (:func:`_resembles`), one at least edited and a substantive one unchanged, the
    context has a line on each side of the insertion, and that holds at exactly one place
    in ``lines``, at or after ``low``. The maintainer refreshes such a patch with its lines
    as they were, its context as upstream edited it. No context line is left out as fuzz
    leaves it out: with one gone, lines of the same shape elsewhere (another test class's
    ``setUp``) would pass for the place. A hunk that removes lines is never placed so (the
    lines it removes must be the file's own), nor one that adds a line of ``upstream``
    (the lines, stripped, upstream added to the file since the pin and has once: upstream
    wrote the insertion, or some of it, itself). Returns ``(start, lines replaced,
    replacement, how)`` or ``None``."""
    if hunk.removed or not hunk.added or not hunk.prefix_context or not hunk.suffix_context:
        return None
    if any(_strip(line.text).strip() in upstream for line in hunk.added):
        return None
    pattern = hunk.pre_image
    width = len(pattern)
    # the places where a substantive context line is the file's, unchanged
    anchors = {i: line for i, line in enumerate(pattern) if substantive(line) is not None}
    candidates = {
        at - i
        for at, line in enumerate(lines)
        for i, own in anchors.items()
        if line == own and 0 <= at - i <= len(lines) - width
    }
    starts = [
        start
        for start in sorted(candidates)
        if all(_resembles(a, b) for a, b in zip(pattern, lines[start : start + width], strict=True))
    ]
    if len(starts) != 1 or starts[0] < low:
        return None
    start = starts[0]
    window = lines[start : start + width]
    if all(a.strip() == b.strip() for a, b in zip(pattern, window, strict=True)):
        return None  # the context is there as it was: for fuzz 0 and git's merge to judge
    # the file's context lines as upstream edited them, the patch's lines between
    kept = iter(window)
    replacement = tuple(line.text if line.kind == ADDED else next(kept) for line in hunk.lines)
    return start, width, replacement, BESIDE_EDITED


#: How alike (:class:`difflib.SequenceMatcher` ratio, white space at the ends off) the line
#: beside an insertion on its other side must be to the patch's context line there for
#: :func:`_inserted_by_one_side`: upstream edited that line (a type, an argument, a line
#: wrapped), it did not write code of its own between.
EDITED_NEIGHBOUR = 0.7

#: How a hunk is placed by the whole context on one side (:func:`_inserted_by_one_side`).
BY_ONE_SIDE = "by its whole context on one side, upstream having edited the other"


def _non_blank(lines: Sequence[bytes], start: int, step: int, count: int) -> list[bytes]:
    """Up to ``count`` non-blank lines of ``lines``, stripped, from index ``start`` on in
    direction ``step`` (``1`` forwards, ``-1`` backwards)."""
    out: list[bytes] = []
    at = start
    while 0 <= at < len(lines) and len(out) < count:
        if lines[at].strip():
            out.append(lines[at].strip())
        at += step
    return out


def _edited_beside(own: Sequence[bytes], theirs: Sequence[bytes]) -> bool:
    """Whether ``theirs`` (the file's non-blank lines beyond an insertion, nearest first) is
    ``own`` (the patch's non-blank context lines there, nearest first) with at most the
    nearest line edited, every other line of ``own`` among ``theirs`` after it, in order.
    The edited line is alike by at least :data:`EDITED_NEIGHBOUR` and, with the line
    upstream wrapped it onto if any (the lines before the next line of ``own``), keeps
    every word of the patch's (:func:`_keeps_words`: ``self.transport`` become
    ``self._transport`` is another name, not an edit)."""
    if not own or not theirs:
        return False
    wrapped = 1
    if own[0] != theirs[0]:
        if len(own) > 1:
            wrapped = next((i for i in range(1, len(theirs)) if theirs[i] == own[1]), 1)
        edited = b" ".join(theirs[:wrapped])
        ratio = difflib.SequenceMatcher(None, own[0], theirs[0], autojunk=False).ratio()
        if ratio < EDITED_NEIGHBOUR or not _keeps_words(own[0], edited):
            return False
    rest = iter(theirs[wrapped:])
    return all(any(line == have for have in rest) for line in own[1:])


def _inserted_by_one_side(
    lines: Sequence[bytes], hunk: Hunk, low: int, upstream: frozenset[bytes]
) -> tuple[int, int, tuple[bytes, ...], str] | None:
    """Where a hunk that only inserts one run of lines lands when upstream edited or spaced
    out the context on one side of it (a type in the signature the insertion stands above,
    a condition wrapped over two lines, a blank line added), so that neither git's merge,
    fuzz nor :func:`_inserted_beside_edited` places it: right after its whole context before
    the insertion (or right before its whole context after it), when that context has at
    least two lines, one substantive, and occurs exactly once in ``lines`` (at or after
    ``low``), and the file's lines beyond the place on the other side are the patch's
    context there with at most the line nearest the insertion edited (:func:`_edited_beside`,
    blank lines aside). Upstream then changed the line beside the insertion, not the lines
    it is written between, and a maintainer refreshes the patch with its lines as they
    were. A hunk that adds a line of ``upstream`` (the lines upstream added to the
    file since the pin and has once) is never placed so: upstream wrote some of the
    insertion itself. Returns ``(start, 0, the added lines, how)`` or ``None``."""
    if not hunk.is_insertion:
        return None
    if any(_strip(line.text).strip() in upstream for line in hunk.added):
        return None
    added = tuple(line.text for line in hunk.added)
    pre = hunk.pre_image
    before, after = pre[: hunk.prefix_context], pre[hunk.prefix_context :]
    for side, other, step in ((before, after, 1), (after, before, -1)):
        if len(side) < 2 or not substantive_lines(side):
            continue
        starts = _occurrences(lines, side, 0)
        if len(starts) != 1 or starts[0] < low:
            continue
        at = starts[0] + len(side) if step == 1 else starts[0]
        own = _non_blank(other, 0 if step == 1 else len(other) - 1, step, len(other))
        theirs = _non_blank(lines, at if step == 1 else at - 1, step, len(own) + 1)
        if not _edited_beside(own, theirs):
            continue
        return at, 0, added, BY_ONE_SIDE
    return None


#: How a hunk is placed whose context ended at the file's end and now has upstream's code
#: after it (:func:`_place`).
AT_OLD_END = "at the file's old end, before the code upstream added after it"


def _place(
    lines: list[bytes],
    hunk: Hunk,
    guess: int,
    low: int,
    max_fuzz: int,
    upstream: frozenset[bytes] | None = None,
    old: Sequence[bytes] | None = None,
) -> tuple[int, int, tuple[bytes, ...], str] | None:
    """Where ``hunk`` lands in ``lines`` with its own lines unchanged: at fuzz 0 to
    ``max_fuzz`` (its outer context lines left out, as GNU patch does; at fuzz 0 the match
    nearest the 0-based ``guess`` taken, at fuzz 1 or 2 only a match at one place: where the
    shorter context fits at several, the nearest may be other code written alike, a test
    with the same decorator, and the refreshed patch would change that), else by its changed
    stretch (its removed lines with the context between them) when that stretch holds a
    telling removed line (:func:`_telling`) and occurs exactly once at or after ``low`` (or,
    where it recurs, exactly once with the hunk's whole context on one side of it; so too
    where it recurs in ``old``, the file the patch was cut against when known: the one
    stretch left may be another than the patch's, whose own upstream rewrote), or, for a
    hunk that only adds imports, beside an import of its context (:func:`_among_imports`),
    or, with ``upstream`` (the lines upstream added since the pin, when git's merge of a
    known pin stopped), for a hunk that only inserts lines, at fuzz 1 or 2
    (:func:`_inserted_with_fuzz`) or beside context upstream edited
    (:func:`_inserted_beside_edited`). Returns ``(start, lines replaced, replacement, how)``
    or ``None``."""
    pre, post = hunk.pre_image, hunk.post_image
    for fuzz in range(max_fuzz + 1):
        head = min(fuzz, hunk.prefix_context)
        tail = min(fuzz, hunk.suffix_context)
        pattern = pre[head : len(pre) - tail]
        if not pattern or (fuzz and head == 0 and tail == 0):
            continue
        starts = _occurrences(lines, pattern, low)
        if fuzz and len(starts) > 1:
            break  # with context left out the hunk fits at several places: fuzz cannot tell
        if starts:
            start = min(starts, key=lambda s: (abs(s - guess - head), s))
            how = f"at fuzz {fuzz}" if fuzz else "at fuzz 0"
            if hunk.prefix_context - hunk.suffix_context > fuzz and start + len(pattern) < len(
                lines
            ):
                # cut short at the end of the file, where upstream has since added code: GNU
                # patch places such a hunk only at the end, and git's merge stops on the two
                # additions; the patch's lines go right after their context, before upstream's
                how = AT_OLD_END
            return start, len(pattern), post[head : len(post) - tail], how
    spot = _among_imports(lines, hunk, low)
    if spot is None and upstream is not None:
        spot = _inserted_with_fuzz(lines, hunk, low, upstream)
    if spot is None and upstream is not None:
        spot = _inserted_beside_edited(lines, hunk, low, upstream)
    if spot is None and upstream is not None:
        spot = _inserted_by_one_side(lines, hunk, low, upstream)
    if spot is not None:
        return spot
    head, tail = hunk.prefix_context, hunk.suffix_context
    core = pre[head : len(pre) - tail]
    if not any(_telling(line.text) for line in hunk.removed):
        return None
    starts = _occurrences(lines, core, low)
    if len(starts) == 1 and (old is None or len(_occurrences(old, core, 0)) == 1):
        return starts[0], len(core), post[head : len(post) - tail], "by its removed lines"
    # the stretch recurs: the one that keeps the whole context on one side, if one does
    sided = set()
    for start in starts:
        before = tuple(lines[max(start - head, 0) : start])
        after = tuple(lines[start + len(core) : start + len(core) + tail])
        if (head and before == tuple(pre[:head])) or (tail and after == tuple(pre[-tail:])):
            sided.add(start)
    if len(sided) != 1:
        return None
    return (
        sided.pop(),
        len(core),
        post[head : len(post) - tail],
        "by its removed lines and the context on one side",
    )


def placed(
    new: Sequence[bytes],
    diffs: Sequence[FileDiff],
    max_fuzz: int = MAX_FUZZ,
    upstream: frozenset[bytes] | None = None,
    old: Sequence[bytes] | None = None,
) -> tuple[list[bytes], set[str]] | None:
    """The new release's file ``new`` with every hunk of ``diffs`` placed by :func:`_place`
    (at fuzz up to ``max_fuzz``; ``upstream``: the lines upstream added since the pin, for
    insertions placed at fuzz; ``old``: the file the patch was cut against, when known) in
    order, each after the one before, and how they were placed; ``None`` when one cannot
    be."""
    lines = list(new)
    hows: set[str] = set()
    shift = 0
    low = 0
    for diff in diffs:
        for hunk in diff.hunks:
            guess = max(hunk.old_start - 1, 0) + shift
            spot = _place(lines, hunk, guess, low, max_fuzz, upstream, old)
            if spot is None:
                return None
            start, width, replacement, how = spot
            lines[start : start + width] = replacement
            shift = start - max(hunk.old_start - 1, 0)
            low = start + len(replacement)
            hows.add(how)
    return lines, hows


def _crlf_only_upstream(new: FileState, diffs: Sequence[FileDiff]) -> bool:
    """Whether the new release's file ends every line in CRLF while the patch's lines end in
    LF (the sdist written on another system, or converted): only the endings differ."""
    ends = [line for line in new.lines if line.endswith(b"\n")]
    if not ends or any(not line.endswith(b"\r\n") for line in ends):
        return False
    lines = [line.text for diff in diffs for hunk in diff.hunks for line in hunk.lines]
    return bool(lines) and not any(line.endswith(b"\r\n") for line in lines)


def _renamed_in_crlf(
    new: FileState,
    diffs: Sequence[FileDiff],
    there: FileState | None,
    before: Mapping[str, FileState | None] | None,
    path: str,
) -> bool:
    """Whether the file ``diffs`` rename to ``path`` is refreshed as any other file: the new
    release's file at its old path, ``new``, ends every line in CRLF and the patch's lines
    end in LF (or it has none: the file moves as it is), so only the endings keep it from
    applying; and neither release holds ``path`` already (``there`` on the new one)."""
    if there is not None or (before is not None and before.get(path) is not None):
        return False
    if any(diff.hunks for diff in diffs):
        return _crlf_only_upstream(new, diffs)
    ends = [line for line in new.lines if line.endswith(b"\n")]
    return bool(ends) and all(line.endswith(b"\r\n") for line in ends)


def _lf_lines(lines: Sequence[bytes]) -> tuple[bytes, ...]:
    """``lines`` with their CRLF line endings read as LF."""
    return tuple(line[:-2] + b"\n" if line.endswith(b"\r\n") else line for line in lines)


def _lf(state: FileState | None) -> FileState | None:
    """``state`` with its CRLF line endings read as LF."""
    return FileState(_lf_lines(state.lines), state.mode) if state is not None else None


def _to_crlf(line: bytes) -> bytes:
    return line[:-1] + b"\r\n" if line.endswith(b"\n") and not line.endswith(b"\r\n") else line


#: The kinds of file whose lines may be matched with white space ignored: indentation
#: means nothing there (setuptools rewrites ``setup.cfg`` into an sdist with tabs).
LOOSE_KINDS = frozenset({CONFIG, DOCS})
#: How a hunk placed with white space ignored is named.
LOOSELY = "with white space ignored"


def _squash(line: bytes) -> bytes:
    """The line's words joined by single spaces: white space ignored."""
    return b" ".join(line.split())


def _squashed_counts(
    counts: tuple[Counter[bytes], Counter[bytes]],
) -> tuple[Counter[bytes], Counter[bytes]]:
    return Counter(_squash(line) for line in counts[0].elements()), Counter(
        _squash(line) for line in counts[1].elements()
    )


def placed_loosely(
    new: Sequence[bytes], diffs: Sequence[FileDiff]
) -> tuple[list[bytes], set[str]] | None:
    """The new release's file ``new`` with every hunk of ``diffs`` placed with white space
    ignored, as ``patch --ignore-whitespace`` and ``git apply --ignore-whitespace`` do:
    each hunk's whole pre-image, every line's words compared, found after the hunk before
    (the match nearest its header); the file's own context lines kept, its removed lines
    dropped, its added lines inserted as the patch has them. ``None`` when a hunk is found
    nowhere so."""
    lines = list(new)
    low = 0
    for diff in diffs:
        for hunk in diff.hunks:
            squashed = [_squash(line) for line in lines]
            pre = [_squash(line) for line in hunk.pre_image]
            if not pre:
                return None
            starts = _occurrences(squashed, pre, low)
            if not starts:
                return None
            guess = max(hunk.old_start - 1, 0)
            start = min(starts, key=lambda s: (abs(s - guess), s))
            out: list[bytes] = []
            at = start
            for line in hunk.lines:
                if line.kind == ADDED:
                    out.append(line.text)
                elif line.kind == REMOVED:
                    at += 1
                else:
                    out.append(lines[at])
                    at += 1
            lines[start:at] = out
            low = start + len(out)
    return lines, {LOOSELY}


def _merged(base: FileState | None, ours: FileState, new: FileState, scratch: Path) -> bytes | None:
    """``git merge-file -p NEW BASE OURS`` of one file (as ``port`` merges: the new release
    first); ``None`` on a conflict, or when git is missing or cannot merge (binary)."""
    for name, state in (("new", new), ("base", base), ("ours", ours)):
        (scratch / name).write_bytes(state.data if state is not None else b"")
    try:
        done = gitops.call(["merge-file", "-p", "new", "base", "ours"], scratch)
    except GitError:
        return None
    return done.stdout if done.returncode == 0 else None


def refreshed(
    patch: Patch,
    before: Mapping[str, FileState | None] | None,
    after: Mapping[str, FileState | None] | None,
    theirs: Mapping[str, FileState | None],
) -> Refreshed | None:
    """Whether ``patch`` only needs a refresh onto the new release (see the module docstring).

    Each file is merged with git's three-way merge when the old pin's side is known; when
    that merge conflicts, its hunks are placed at fuzz 0 or by their removed lines, and
    without the old pin's side at fuzz up to :data:`MAX_FUZZ` or by their removed lines
    (:func:`placed`).

    Args:
        patch: the patch.
        before: each path the patch changes, on the old pin with the earlier patches (base);
            ``None`` when the old pin's tree cannot be had or the patch does not apply there.
        after: the same with this patch applied (ours), or ``None`` as ``before``.
        theirs: each path on the new release with the earlier patches.

    Returns:
        The merged files and the evidence, or ``None``: a file is deleted, gone on either
        side or created, or renamed other than in a CRLF release (:func:`_renamed_in_crlf`);
        upstream added one of the patch's substantive added lines to its file; a hunk lands
        nowhere; or the merged file's changes are not exactly the patch's own lines.
    """
    by_path: dict[str, list[FileDiff]] = {}
    sources: dict[str, str] = {}  # per path written, the path it is read from
    for diff in patch.files:
        if diff.new_path is None or diff.old_path is None:
            return None
        if sources.setdefault(diff.new_path, diff.old_path) != diff.old_path:
            return None
        by_path.setdefault(diff.new_path, []).append(diff)
    renamed = {source for path, source in sources.items() if source != path}
    if renamed & set(sources) or len(renamed) != sum(1 for p, s in sources.items() if s != p):
        return None  # a renamed file written to again, or two renames of one file
    merged: dict[str, FileState | None] = {}
    hows: set[str] = set()
    hunks = 0
    with tempfile.TemporaryDirectory(prefix="patchkeeper-refresh-") as scratch:
        for path, diffs in by_path.items():
            # a renamed file is merged as any other: read at its old path on both
            # releases, written at its new one, which neither may hold already
            source = sources[path]
            new = theirs.get(source)
            base = before.get(source) if before is not None else None
            ours = after.get(path) if after is not None else None
            if new is None or (before is not None and (base is None or ours is None)):
                return None
            if source != path and not _renamed_in_crlf(new, diffs, theirs.get(path), before, path):
                return None
            if source != path and not any(d.hunks for d in diffs):
                merged[path], merged[source] = new, None  # renamed, its lines as they are
                continue
            if _added_upstream(diffs, base, new):
                return None
            crlf = _crlf_only_upstream(new, diffs)
            if crlf:
                # the new release ends its lines in CRLF, the patch in LF (GNU patch:
                # "different line endings"): merged in LF, written back in CRLF
                new = FileState(_lf_lines(new.lines), new.mode)
                base, ours = _lf(base), _lf(ours)
                hows.add("in the file's CRLF line endings")
            data = _merged(base, ours, new, Path(scratch)) if ours is not None else None
            if data is not None:
                result = FileState.from_bytes(data, new.mode)
                hows.add("by git's three-way merge")
            else:
                # a conflict of git's merge means upstream changed lines right beside
                # the patch's own: fuzz would place the hunk among them unseen
                done = (
                    placed(new.lines, diffs, 0, _new_lines(base, new), base.lines if base else None)
                    if ours is not None
                    else placed(new.lines, diffs, MAX_FUZZ)
                )
                if done is None and kind_of(path) in LOOSE_KINDS:
                    done = placed_loosely(new.lines, diffs)
                if done is None:
                    return None
                result = FileState(tuple(done[0]), new.mode)
                hows |= done[1]
            own = _own_lines(diffs)
            if LOOSELY in hows:
                own = _squashed_counts(own)
                changes = _squashed_counts(changed_lines(new.lines, result.lines))
            else:
                changes = changed_lines(new.lines, result.lines)
            if not any(own) or changes != own:
                return None
            if crlf:
                result = FileState(tuple(_to_crlf(line) for line in result.lines), result.mode)
            merged[path] = result
            if source != path:
                merged[source] = None
            hunks += sum(len(d.hunks) for d in diffs)
    files = len(by_path)
    ways = ", ".join(sorted(hows))
    lands = "lands with its" if hunks == 1 else "land with their"
    text = (
        f"its {plural(hunks, 'hunk')} ({plural(files, 'file')}) {lands} + and - lines unchanged"
        f" ({ways})"
    )
    return Refreshed(merged, text)


def moved_refreshed(
    patch: Patch,
    statuses: Sequence[HunkVerdict],
    theirs: Callable[[str], FileState | None],
) -> Refreshed | None:
    """Whether a conflicting ``patch`` only needs to be refreshed onto the file its code
    moved to: every hunk applies at fuzz 0 in its own file, or fails there while its
    context is in another file of the new release (:attr:`HunkVerdict.moved_to`, code
    split out of a module that stayed) where it lands with its own lines unchanged (at
    fuzz up to :data:`MAX_FUZZ` or by its removed lines, :func:`placed`). A maintainer
    points such a hunk at the new file and keeps its ``+`` and ``-`` lines, as Debian's
    do; git's merge cannot, the old file being still there. ``theirs`` gives a path's state
    on the new release with the earlier patches; ``None`` when some hunk is neither so."""
    diffs = {(d.path, h.line_no): (d, h) for d in patch.files for h in d.hunks}
    by_file: dict[str, list[Hunk]] = {}
    moved = []
    for status in statuses:
        if (status.path, status.patch_line) not in diffs:
            return None
        diff, hunk = diffs[(status.path, status.patch_line)]
        if diff.new_path is None or diff.old_path is None or diff.is_rename:
            return None
        if status.status == APPLIES:
            by_file.setdefault(diff.old_path, []).append(hunk)
        elif status.status == FAILS and status.moved_to is not None:
            by_file.setdefault(status.moved_to, []).append(hunk)
            moved.append(status)
        else:
            return None
    if not moved:
        return None
    files: dict[str, FileState] = {}
    for path, hunks in by_file.items():
        state = theirs(path)
        if state is None:
            return None
        one = FileDiff(path, path, None, None, tuple(hunks), 0)
        done = placed(state.lines, [one], MAX_FUZZ)
        if done is None or changed_lines(state.lines, done[0]) != _own_lines([one]):
            return None
        files[path] = FileState(tuple(done[0]), state.mode)
    name = hunk_namer(statuses)
    where = ", ".join(f"{name(s)} in {s.moved_to}" for s in moved)
    return Refreshed(
        files,
        f"its code moved to another file, where it lands with its + and - lines unchanged: {where}",
    )
