"""Each hunk of a patch judged on its own against the new release: applies, present, fails.

A hunk *applies* at fuzz 0 (GNU patch's rules, :mod:`patchkeeper.series.hunks`); it is *present*
when the new release already has its intent: it reverse-applies, its added lines are there in
order (and were not so at the old pin), its removal is made (the removed lines gone and the
lines around them together, or, the lines around changed too, nothing the removed lines name
left in the file), a documentation hunk's replaced thing is gone from the file altogether, a
configuration hunk's raised requirement minimum is met by the new release's own, the file it
creates exists with the same content, a release-note
fragment it creates was consumed into the changelog, or the file it deletes is gone; else it
*fails*, with the closest match, and when its context is in another file of the new tree
(code moved while the old file stayed), that place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher

from patchkeeper.audit.requirement_bumps import bounds_met, raised_further
from patchkeeper.audit.scopes import added_scopes, defined_names, line_scope
from patchkeeper.constants import WordEnum
from patchkeeper.series.engine import Workspace
from patchkeeper.series.filekinds import CONFIG, DOCS, NOTES, PYTHON, kind_of, language_of
from patchkeeper.series.hunk_evidence import HunkEvidence, hunk_evidence
from patchkeeper.series.hunks import (
    FileLines,
    HunkFailure,
    closest_match,
    first_line,
    locate,
    plain_closest_match,
)
from patchkeeper.series.model import ADDED, REMOVED, FileDiff, Hunk, Patch
from patchkeeper.series.substantive_lines import (
    FileIndex,
    file_index,
    is_import,
    placing_lines,
    substantive,
    substantive_lines,
    tokens,
)
from patchkeeper.upstream.treesearch import TreeSearch


class HunkState(WordEnum):
    """One hunk against the new upstream."""

    APPLIES = "applies"  # its pre-image is there (at an offset perhaps)
    PRESENT = "present"  # its post-image is already there
    FAILS = "fails"  # neither


APPLIES = HunkState.APPLIES
PRESENT = HunkState.PRESENT
FAILS = HunkState.FAILS

#: A hunk whose pre-image is this close to another file of the new tree was moved there
#: (at least this many substantive context/removed lines, and at least half of them).
MIN_MOVED_LINES = 2


@dataclass(frozen=True)
class HunkVerdict:
    """One hunk on the new tree.

    Attributes:
        path: the file.
        index: the hunk's number in its file diff.
        header: its ``@@`` line.
        status: ``"applies"``, ``"present"`` (already upstream) or ``"fails"``.
        line: where it applies or where its post-image is (1-based), if found.
        offset: lines away from the header's position, when it applies.
        how: how presence was established (``"reverse-applies"``, ``"added lines found"``).
        evidence: the closest match, when it fails.
        moved_to: another file of the new tree that holds the hunk's context (the code moved
            there while the old file stayed), or ``None``.
        moved_line: the 1-based line there where the context starts, when it applies there.
        moved_found: how many of the hunk's telling context/removed lines ``moved_to``
            holds, of ``moved_total``.
        moved_total: how many there are.
        patch_line: the 1-based line of its ``@@`` header in the patch file
            (:attr:`patchkeeper.series.model.Hunk.line_no`): what tells the patch's hunks
            apart, as ``(path, index)`` does not when a patch holds two diffs of one file
            (each numbers its hunks from 1); 0 in a result saved without it.
    """

    path: str
    index: int
    header: str
    status: str
    line: int | None = None
    offset: int | None = None
    how: str = ""
    evidence: HunkEvidence | None = None
    moved_to: str | None = None
    moved_line: int | None = None
    moved_found: int = 0
    moved_total: int = 0
    patch_line: int = 0


# --------------------------------------------------------------------------- file diffs


def creates_file(diff: FileDiff) -> bool:
    """Whether ``diff`` creates its file: ``--- /dev/null``, or a single hunk with an empty
    source range (``--- a/path`` with ``@@ -0,0 +1,N @@``, as some exporters write; GNU
    patch reads it as "existent and probably empty", pch.c ``intuit_diff_type``)."""
    if diff.is_creation:
        return True
    return (
        len(diff.hunks) == 1
        and diff.hunks[0].old_start == 0
        and diff.hunks[0].old_len == 0
        and not diff.is_deletion
    )


def file_lines(ws: Workspace, path: str | None) -> tuple[bytes, ...] | None:
    """A file's lines as ``ws`` has them now; ``None`` when it does not exist."""
    if path is None:
        return None
    state = ws.get(path)
    return state.lines if state is not None else None


def _span(hunk: Hunk) -> int:
    """How many lines a hunk's added lines may spread over once reformatted upstream."""
    return max(3 * len(hunk.post_image), len(hunk.post_image) + 20)


def _added(hunk: Hunk, language: str = "") -> list[bytes]:
    return substantive_lines((line.text for line in hunk.lines if line.kind == ADDED), language)


def removed_lines(hunk: Hunk, language: str = "") -> list[bytes]:
    """The hunk's substantive removed lines, normalized (``language``: the file's,
    :func:`patchkeeper.series.filekinds.language_of`)."""
    return substantive_lines((line.text for line in hunk.lines if line.kind == REMOVED), language)


def _in_order(lines: Sequence[bytes] | None, needles: list[bytes], span: int) -> bool:
    return bool(lines) and file_index(lines).find_in_order(needles, span) is not None  # type: ignore[arg-type]


def _changed_added(hunk: Hunk, language: str = "") -> list[bytes]:
    """The hunk's substantive added lines, without those that are one of its removed lines
    with only a comment or the quotes changed (same tokens, other text). A line moved
    as it is (same text) stays: the move is the change."""
    removed = {tuple(tokens(line)): line for line in removed_lines(hunk, language)}
    out = []
    for line in _added(hunk, language):
        same = removed.get(tuple(tokens(line)))
        if same is None or same == line:
            out.append(line)
    return out


#: How a hunk that only moves version bounds is found upstream (:func:`bounds_met`).
BOUNDS_MET = "the new release moves the same version bounds at least as far"
#: How a configuration hunk raising a minimum is found upstream (:func:`raised_further`).
RAISED_FURTHER = "the new release requires at least the version it raises to"
#: How a hunk is found upstream by what the requirements admit (PEP 508 and 440).
BY_REQUIREMENTS = frozenset({BOUNDS_MET, RAISED_FURTHER})


def _presence(
    lines: Sequence[bytes],
    hunk: Hunk,
    kind: str,
    pin: Sequence[bytes] | None,
    language: str = "",
    elsewhere: bool = False,
) -> tuple[int | None, str] | None:
    """Where the hunk's intent is in ``lines`` although it does not reverse-apply, and how:
    ``(line or None, how)``, else ``None``.

    - version bounds: a configuration hunk raising a minimum the file raised further
      (:func:`raised_further`), any hunk but release notes moving version bounds the file
      moves at least as far (:func:`bounds_met`);
    - added lines: all of them in order, close together (reformatting allowed), and not
      already so at the pin (a line the pin has proves nothing); for a configuration file
      the whole post-image must be there, line after line; added lines the pin had, in
      the hunk's own file (not ``elsewhere``), with the block the hunk takes them out of
      gone from around them (:func:`_taken_out_around`);
    - only removed lines: they are gone *and* the lines around them are together, as the
      post-image has them (a removed line that upstream rewrote is not a removal).

    Evidence of absence (the replaced lines and all they name gone from the file,
    :func:`_replaced_thing_gone`, :func:`_named_gone`) counts in the hunk's own file only:
    another file (``elsewhere``) may never have had them, so a hunk is not found there by
    what that file lacks.
    """
    added = _changed_added(hunk, language)
    index = file_index(lines)
    if hunk.added and not added:
        return None  # only comments or white space changed: nothing to search for
    if added:
        if kind == CONFIG and raised_further(lines, hunk):
            return None, RAISED_FURTHER
        if kind != NOTES and bounds_met(lines, hunk):
            return None, BOUNDS_MET
        if kind == CONFIG:
            post = substantive_lines(hunk.post_image, language)
            positions = index.find_in_order(post, len(hunk.post_image))
        else:
            positions = index.find_in_order(added, _span(hunk))
        if positions is None:
            return _replaced_thing_gone(lines, hunk) if kind == DOCS and not elsewhere else None
        if language == PYTHON and not elsewhere:
            positions = _at_its_place(index, lines, hunk, pin, added, positions)
            if positions is None:
                return None
        if not _in_order(pin, added, _span(hunk)):
            return positions[0] + 1, "added lines found"
        # the pin has these lines in this order too: only the whole post-image, which the
        # pin lacks, shows the change (a line moved within the file)
        post = substantive_lines(hunk.post_image, language)
        positions = index.find_in_order(post, _span(hunk))
        if positions is None or _in_order(pin, post, _span(hunk)):
            return None if elsewhere else _taken_out_around(lines, hunk, added, language)
        return positions[0] + 1, "post-image found"
    removed = removed_lines(hunk, language)
    if not removed or any(index.has(line) for line in removed):
        return None
    # what another file lacks proves nothing: it may never have had the lines or names
    gone = kind != CONFIG and not elsewhere
    first = None
    for before, after, distance in _around_removals(hunk):
        positions = index.find_in_order([before, after], distance)
        if positions is None:
            return _named_gone(lines, hunk, removed, pin, kind) if gone else None
        first = positions[0] + 1 if first is None else first
    if first is None:
        return _named_gone(lines, hunk, removed, pin, kind) if gone else None
    return first, "removed lines gone, the lines around them together"


def _other_place(lines: Sequence[bytes], hunk: Hunk, pin: Sequence[bytes] | None, at: int) -> bool:
    """Whether the added lines found from line ``at`` (0-based) of the new release's file
    ``lines`` are at another place than the hunk's: the hunk adds them in a function or
    class (read with the old pin's file ``pin``) the new release still defines, and they
    are in another one, which the pin had too (:mod:`patchkeeper.audit.scopes`). Upstream
    made that change in other code, not the patch's."""
    if pin is None:
        return False
    scopes = [scope for scope in added_scopes(hunk, pin) if scope is not None]
    if not scopes or scopes[0] not in defined_names(lines):
        return False
    place = line_scope(lines, at)
    return place is not None and place != scopes[0] and place in defined_names(pin)


def _at_its_place(
    index: FileIndex,
    lines: Sequence[bytes],
    hunk: Hunk,
    pin: Sequence[bytes] | None,
    added: list[bytes],
    positions: list[int],
) -> list[int] | None:
    """The first of the places where the hunk's ``added`` lines are found in order
    (``positions``, the first of them, then the later ones) that is not at another place
    than the hunk's (:func:`_other_place`), or ``None``."""
    found: list[int] | None = positions
    for _ in range(64):
        if found is None or not _other_place(lines, hunk, pin, found[0]):
            return found
        found = index.find_in_order(added, _span(hunk), found[0])
    return None


def added_lines_there(lines: Sequence[bytes], diff: FileDiff) -> bool:
    """Whether ``lines`` (a file of the new release) have every substantive line ``diff``
    adds, each hunk's in order and close together, and ``diff`` adds at least one: its
    additions are there, whether or not its removals are."""
    index = file_index(lines)
    language = language_of(diff.path)
    wanted = [(_changed_added(hunk, language), _span(hunk)) for hunk in diff.hunks]
    if not any(added for added, _ in wanted):
        return False
    return all(not added or index.find_in_order(added, span) for added, span in wanted)


#: How :func:`_taken_out_around` finds a hunk present.
TAKEN_OUT_AROUND = "added lines found, the removed lines gone from around them"


def _neighbour(lines: Sequence[bytes], start: int, step: int, language: str) -> bytes | None:
    """The first substantive line of ``lines`` from index ``start`` on, going by ``step``
    (1 or -1), normalized; ``None`` past either end."""
    while 0 <= start < len(lines):
        text = substantive(lines[start], language)
        if text is not None:
            return text
        start += step
    return None


#: A name in code: an identifier token.
_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def _dropped_names(
    lines: Sequence[bytes], removed: list[bytes], added: list[bytes], index: FileIndex
) -> bool:
    """Whether one of the ``removed`` lines is gone from the file (``lines``, indexed as
    ``index``) with what it names: the names it has that no ``added`` line has
    (``cgi`` of ``from cgi import escape``), at least one, are nowhere in the file. A line
    only reformatted (split over two lines, ``cts-exec-helper`` moved below a ``\\``) is
    not gone."""
    kept = {token for line in added for token in tokens(line)}
    present: set[bytes] | None = None
    for line in removed:
        if index.has(line):
            continue
        names = {t for t in tokens(line) if t not in kept and _IDENTIFIER.fullmatch(t)}
        if not names:
            continue
        if present is None:
            present = {token for text in lines for token in tokens(text)}
        if not names & present:
            return True
    return False


def _taken_out_around(
    lines: Sequence[bytes], hunk: Hunk, added: list[bytes], language: str = ""
) -> tuple[int | None, str] | None:
    """For a hunk whose added lines the old pin already had (it takes a line out of the
    block around it: an import out of its ``try:``/``except ImportError:`` fallback): the
    hunk is there when its added lines are in the file in order, at least one removed line
    is gone with the names it has of its own (:func:`_dropped_names`: what the patch drops,
    the fallback itself), and the removed lines the file still has elsewhere
    (``except ImportError:``) are neither where the added lines were found nor right around
    them (the nearest substantive line before the first and after the last). Else ``None``:
    with the block still around the lines, or nothing of it gone, the file does not show
    the change."""
    removed = [line for line in removed_lines(hunk, language) if line not in added]
    index = file_index(lines)
    if not removed or not _dropped_names(lines, removed, added, index):
        return None
    positions = index.find_in_order(added, _span(hunk))
    if positions is None:
        return None
    around = {
        _neighbour(lines, positions[0] - 1, -1, language),
        _neighbour(lines, positions[-1] + 1, 1, language),
        *(substantive(lines[at], language) for at in positions),
    }
    if around & set(removed):
        return None
    return positions[0] + 1, TAKEN_OUT_AROUND


#: A word of a removed line names what the line is about when it has at least this many
#: letters and digits (``sphinx_removed_in``, a URL), not ``numpy`` or ``True``.
KEY_WORD_LENGTH = 8


def _letters(data: bytes) -> bytes:
    """Only the letters and digits of ``data``, lower case: ``sphinx-favicon`` and
    ``sphinx_favicon`` are the same name."""
    return bytes(c for c in data.lower() if chr(c).isalnum())


def _own_words(removed: list[bytes], pin: Sequence[bytes] | None) -> set[bytes] | None:
    """The words (:func:`_letters` of tokens of at least :data:`KEY_WORD_LENGTH`) that the
    old pin's file has only in the removed lines: what the removed block itself is about
    (``hoverxref``), not the words it shares with the rest of the file (``extensions``,
    ``packaging``). ``None`` without the pin's file."""
    if pin is None:
        return None
    pin_text = _letters(b"".join(pin))
    removed_text = _letters(b"".join(removed))
    words = {_letters(t) for line in removed for t in tokens(line)}
    return {
        w for w in words if len(w) >= KEY_WORD_LENGTH and pin_text.count(w) <= removed_text.count(w)
    }


#: A line at the place of a removal at least this similar to a removed line (difflib's
#: ratio over the stripped text) is that line rewritten in place, not removed: a badge whose
#: URL now names another branch, a version bumped inside the same sentence.
REWRITTEN_RATIO = 0.85
#: Only lines of at least this many characters are compared so (short lines resemble by chance).
REWRITTEN_MIN_LENGTH = 24
#: How many lines beyond a run's own length its place may have grown upstream.
REWRITTEN_SLACK = 2


def _runs(hunk: Hunk) -> list[tuple[int, int]]:
    """The ``(start, end)`` indexes in ``hunk.lines`` of each run of removed lines."""
    out: list[tuple[int, int]] = []
    for number, line in enumerate(hunk.lines):
        if line.kind != REMOVED:
            continue
        if out and out[-1][1] == number:
            out[-1] = (out[-1][0], number + 1)
        else:
            out.append((number, number + 1))
    return out


def _place_of_run(lines: Sequence[bytes], hunk: Hunk, start: int, end: int) -> Sequence[bytes]:
    """The lines of the file where a run of removed lines was: before the first non-blank
    context line after the run, or else after the last one before it, when that line is in
    the file exactly once; the run's length and :data:`REWRITTEN_SLACK` lines more. Empty
    when no such line tells the place."""
    stripped = [line.strip() for line in lines]
    width = end - start + REWRITTEN_SLACK
    after = [line.text.strip() for line in hunk.lines[end:] if line.kind != ADDED]
    before = [line.text.strip() for line in hunk.lines[:start] if line.kind != ADDED]
    anchor = next((text for text in after if text), None)
    if anchor is not None and stripped.count(anchor) == 1:
        at = stripped.index(anchor)
        return lines[max(at - width, 0) : at]
    anchor = next((text for text in reversed(before) if text), None)
    if anchor is not None and stripped.count(anchor) == 1:
        at = stripped.index(anchor) + 1
        return lines[at : at + width]
    return ()


def _removed_and_place(lines: Sequence[bytes], hunk: Hunk) -> Iterator[tuple[bytes, list[bytes]]]:
    """Each removed line of ``hunk`` of at least :data:`REWRITTEN_MIN_LENGTH` characters,
    stripped, with the lines of such length at its place in the file's ``lines``
    (:func:`_place_of_run`), stripped, in the hunk's order."""
    for start, end in _runs(hunk):
        place = [line.strip() for line in _place_of_run(lines, hunk, start, end)]
        place = [line for line in place if len(line) >= REWRITTEN_MIN_LENGTH]
        for line in hunk.lines[start:end]:
            text = line.text.strip()
            if len(text) >= REWRITTEN_MIN_LENGTH:
                yield text, place


def rewritten_at_place(lines: Sequence[bytes], hunk: Hunk) -> tuple[bytes, bytes] | None:
    """The first removed line of ``hunk`` that the file's ``lines`` still have rewritten at
    its place (:func:`_place_of_run`), with that rewritten line, both stripped: a line of at
    least :data:`REWRITTEN_MIN_LENGTH` characters whose ratio to it is at least
    :data:`REWRITTEN_RATIO`; ``None`` when there is none."""
    matcher = SequenceMatcher(None, b"", b"", autojunk=False)
    for text, place in _removed_and_place(lines, hunk):
        matcher.set_seq2(text)
        for candidate in place:
            matcher.set_seq1(candidate)
            if (
                matcher.real_quick_ratio() >= REWRITTEN_RATIO
                and matcher.quick_ratio() >= REWRITTEN_RATIO
                and matcher.ratio() >= REWRITTEN_RATIO
            ):
                return text, candidate
    return None


def rewritten_lines_at_place(lines: Sequence[bytes], hunk: Hunk) -> list[tuple[bytes, bytes]]:
    """Every removed line of ``hunk`` that the file's ``lines`` have rewritten at its place,
    each with the likest such line, both stripped (as :func:`rewritten_at_place` finds the
    first); a removed line shorter than :data:`REWRITTEN_MIN_LENGTH` or without such a line
    is left out."""
    matcher = SequenceMatcher(None, b"", b"", autojunk=False)
    out = []
    for text, place in _removed_and_place(lines, hunk):
        matcher.set_seq2(text)
        best: tuple[float, bytes] | None = None
        for candidate in place:
            matcher.set_seq1(candidate)
            if matcher.real_quick_ratio() < REWRITTEN_RATIO:
                continue
            ratio = matcher.ratio()
            if ratio >= REWRITTEN_RATIO and (best is None or ratio > best[0]):
                best = (ratio, candidate)
        if best is not None:
            out.append((text, best[1]))
    return out


def rewritten_in_place(lines: Sequence[bytes], hunk: Hunk) -> bytes | None:
    """The first removed line of ``hunk`` that the file's ``lines`` still have rewritten at
    its place (:func:`rewritten_at_place`); ``None`` when there is none. A removal of such
    a line is not made: upstream changed the line and kept it where it was."""
    found = rewritten_at_place(lines, hunk)
    return found[0] if found is not None else None


def _named_gone(
    lines: Sequence[bytes],
    hunk: Hunk,
    removed: list[bytes],
    pin: Sequence[bytes] | None = None,
    kind: str = DOCS,
) -> tuple[int | None, str] | None:
    """For a file (not configuration) whose lines around a removal changed too: the removal is
    made when every removed line names something (tokens of at least
    :data:`KEY_WORD_LENGTH` letters and digits that the hunk's context lines do not have)
    and the file names none of it, however it is
    spelled (class 2: upstream renaming ``'sphinx-favicon'`` to ``'sphinx_favicon'`` kept the
    extension). The file is the same file: its other lines may have changed around.

    In documentation (``kind`` :data:`DOCS`) with the old pin's file (``pin``), a line's
    names are only the words the pin's file has nowhere but in the removed lines
    (:func:`_own_words`): a line of a removed block that names nothing of its own (``'pip',``
    in a removed list, ``extensions +=`` beside its own ``hoverxref``) is no evidence either
    way, and at least one line must name something. Code keeps every name: a removed
    import whose name the file still uses was moved, not removed. A removed line the file
    still has rewritten at its place (:func:`rewritten_in_place`) was changed, not removed."""
    if rewritten_in_place(lines, hunk) is not None:
        return None
    text = _letters(b"".join(lines))
    kept = {
        _letters(token)
        for line in hunk.lines
        if line.kind not in (ADDED, REMOVED)
        for token in tokens(line.text)
    }
    own = _own_words(removed, pin) if kind == DOCS else None
    named = 0
    for line in removed:
        words = [_letters(t) for t in tokens(line)]
        keys = [w for w in words if len(w) >= KEY_WORD_LENGTH and w not in kept]
        if own is not None:
            keys = [w for w in keys if w in own]
            if not keys:
                continue
        if not keys or any(key in text for key in keys):
            return None
        named += 1
    if not named:
        return None
    return None, "removed lines gone, and nothing they name is in the file"


def _replaced_thing_gone(lines: Sequence[bytes], hunk: Hunk) -> tuple[int | None, str] | None:
    """For a documentation hunk that replaces lines (a CDN script by a local copy, a URL by
    a path) whose added lines upstream lacks: upstream dropped the replaced thing itself when
    nothing the removed lines name is left in the file (:func:`_named_gone`), so there is
    nothing left to replace."""
    removed = removed_lines(hunk)
    index = file_index(lines)
    if not removed or any(index.has(line) for line in removed):
        return None
    found = _named_gone(lines, hunk, removed)
    if found is None:
        return None
    return None, "the lines it replaces and all they name are gone from the file"


def _around_removals(hunk: Hunk) -> list[tuple[bytes, bytes, int]]:
    """For each run of removed lines, the nearest substantive line before and after it in
    the post-image, and how many post-image lines apart they are (at most that far apart
    once the removal is made). A run at the hunk's edge has no such pair: it gives none,
    so the removal cannot be shown to be made."""
    post: list[tuple[int, bytes | None]] = []  # post-image position, substantive text
    cuts: list[int] = []  # post-image positions where removed runs were
    for line in hunk.lines:
        if line.kind == REMOVED:
            if not cuts or cuts[-1] != len(post):
                cuts.append(len(post))
            continue
        post.append((len(post), substantive(line.text)))
    out = []
    for cut in cuts:
        before = next(((i, t) for i, t in reversed(post[:cut]) if t is not None), None)
        after = next(((i, t) for i, t in post[cut:] if t is not None), None)
        if before is None or after is None:
            return []
        out.append((before[1], after[1], after[0] - before[0]))
    return out


#: How a hunk is named whose only change is import statements the file already has.
IMPORTS_THERE = "its added imports are already in the file"


def added_imports(path: str, hunk: Hunk) -> list[bytes] | None:
    """The lines ``hunk`` adds (trailing white space off, blank ones left out) when it is a
    hunk of a Python file that removes nothing and adds only module-level import statements
    (not indented: an indented one may belong to a function); else ``None``."""
    if language_of(path) != PYTHON or hunk.removed or not hunk.added:
        return None
    added = [line.text.rstrip() for line in hunk.added if line.text.strip()]
    if not added or any(t[:1] in (b" ", b"\t") or not is_import(t) for t in added):
        return None
    return added


def imports_already_there(
    lines: Sequence[bytes], path: str, hunk: Hunk, where: int, pin: Sequence[bytes] | None
) -> int | None:
    """The 1-based line of the file ``lines`` that holds the first of ``hunk``'s added
    imports, when the hunk, applying at 1-based ``where``, would only add a second copy of
    imports the Python file already has: it adds only import statements
    (:func:`added_imports`), each of them is in the file, whole, outside the lines the hunk
    applies to, and the old pin's file (``pin``, when known) had none of them (a line the
    pin has proves nothing: the patch added it beside that one already). Else ``None``.

    GNU patch and ``git apply`` place such a hunk at fuzz 0 and the module then imports the
    name twice; the change it makes is already there (upstream added the import elsewhere
    in its import block, typically sorted), so the hunk counts as *present* rather than as
    one to apply.
    """
    added = added_imports(path, hunk)
    if added is None:
        return None
    span = range(where - 1, where - 1 + len(hunk.pre_image))
    found: dict[bytes, int] = {}
    for number, line in enumerate(lines):
        text = line.rstrip()
        if number not in span and text in added and text not in found:
            found[text] = number + 1
    if len(found) != len(set(added)):
        return None
    if pin is not None and any(line.rstrip() in found for line in pin):
        return None
    return min(found.values())


def _occurrences(lines: Sequence[bytes], pattern: Sequence[bytes]) -> int:
    """How often ``pattern`` (non-empty) stands in ``lines``, overlapping occurrences too."""
    size = len(pattern)
    head = pattern[0]
    return sum(
        1
        for start, line in enumerate(lines)
        if line == head and tuple(lines[start : start + size]) == tuple(pattern)
    )


def _removed_runs(hunk: Hunk) -> list[tuple[bytes, ...]]:
    """The runs of consecutive lines ``hunk`` removes, in order (its pre-image read along its
    markers: a removed line's run ends at the next context or added line)."""
    runs: list[tuple[bytes, ...]] = []
    run: list[bytes] = []
    pre = iter(hunk.pre_image)
    for kind in hunk.kinds:
        if kind == "+":
            if run:
                runs.append(tuple(run))
                run = []
            continue
        line = next(pre)
        if kind == "-":
            run.append(line)
        elif run:
            runs.append(tuple(run))
            run = []
    if run:
        runs.append(tuple(run))
    return runs


def post_image_proves(lines: Sequence[bytes], hunk: Hunk, pin: Sequence[bytes] | None) -> bool:
    """Whether ``hunk``'s post-image standing in the new release's file ``lines`` is evidence
    that upstream made the hunk's change. Lines the old pin already has prove nothing: not
    when the old pin's file (``pin``) has the post-image too, as often, and the new release
    still has every run of lines the hunk removes, at least as often as the pin (a hunk
    that removes nothing keeps its evidence). A hunk that removes
    a test function whose last lines end as the function before it ends has its post-image
    (that ending, the blank lines, the next function's start) at the end of the removed
    function itself, in every release that still has the function. Without the pin's file,
    or when the pin's file lacks the post-image, the post-image counts.

    >>> from patchkeeper.series.parse import parse_patch
    >>> from pathlib import Path
    >>> diff = b"--- a/f\\n+++ b/f\\n@@ -1,4 +1,2 @@\\n end\\n-x\\n-end\\n next\\n"
    >>> (hunk,) = parse_patch(diff, name="p", path=Path("p")).files[0].hunks
    >>> pin = [b"end\\n", b"x\\n", b"end\\n", b"next\\n"]
    >>> kept = [b"END\\n", b"x\\n", b"end\\n", b"next\\n"]  # upstream edited line 1 only
    >>> post_image_proves(kept, hunk, pin), post_image_proves(kept, hunk, None)
    (False, True)
    >>> post_image_proves([b"end\\n", b"next\\n"], hunk, pin)  # upstream removed x, end
    True
    """
    if pin is None or not hunk.post_image:
        return True
    at_pin = _occurrences(pin, hunk.post_image)
    if at_pin == 0 or _occurrences(lines, hunk.post_image) > at_pin:
        return True
    runs = _removed_runs(hunk)
    kept = all(0 < _occurrences(lines, run) >= _occurrences(pin, run) for run in runs)
    return not (runs and kept)


def _hunk_status(
    lines: Sequence[bytes],
    path: str,
    hunk: Hunk,
    pin: Sequence[bytes] | None,
    elsewhere: bool = False,
) -> HunkVerdict:
    """Judge one hunk on its own against a file's lines (``pin``: the file at the old pin;
    ``elsewhere``: ``lines`` are another file than the hunk's, which may never have had the
    lines it removes). A hunk that applies only to add imports the file already has
    elsewhere is *present* (:func:`imports_already_there`)."""
    where = locate(lines, hunk)
    if where is not None:
        there = imports_already_there(lines, path, hunk, where, pin)
        if there is not None:
            return HunkVerdict(
                path,
                hunk.index,
                hunk.header,
                PRESENT,
                there,
                how=IMPORTS_THERE,
                patch_line=hunk.line_no,
            )
        offset = where - first_line(hunk, False)
        return HunkVerdict(
            path, hunk.index, hunk.header, APPLIES, where, offset, patch_line=hunk.line_no
        )
    if hunk.post_image:
        where = locate(lines, hunk, reverse=True)
        if where is not None and post_image_proves(lines, hunk, pin):
            return HunkVerdict(
                path,
                hunk.index,
                hunk.header,
                PRESENT,
                where,
                how="reverse-applies",
                patch_line=hunk.line_no,
            )
    found = (
        _presence(lines, hunk, kind_of(path), pin, language_of(path), elsewhere) if lines else None
    )
    if found is not None:
        return HunkVerdict(
            path, hunk.index, hunk.header, PRESENT, found[0], how=found[1], patch_line=hunk.line_no
        )
    return _failing(path, hunk, lines, first_line(hunk, False))


def _failing(path: str, hunk: Hunk, lines: Sequence[bytes], guess: int) -> HunkVerdict:
    """``hunk`` of ``path`` fails on ``lines`` (the file in the new release): its evidence
    is the window of ``lines`` closest to its pre-image, the nearest to the 1-based line
    ``guess`` on a tie (with CRLF read as LF when the file's and the patch's line endings
    differ and their content matches better so: :func:`plain_closest_match`)."""
    indexed = FileLines(lines)  # one index of the file for both searches
    closest = closest_match(lines, hunk.pre_image, guess, indexed.positions)
    closest = plain_closest_match(lines, hunk.pre_image, guess, indexed, closest)
    failure = HunkFailure(hunk, guess, closest)
    return HunkVerdict(
        path,
        hunk.index,
        hunk.header,
        FAILS,
        evidence=hunk_evidence(path, failure),
        patch_line=hunk.line_no,
    )


def _creation_status(ws: Workspace, diff: FileDiff, search: TreeSearch | None) -> list[HunkVerdict]:
    """A diff that creates its file: it applies while the new release has no file of that
    name; the same content there is upstream; a changelog that has a release-note
    fragment's text consumed it (towncrier, scriv)."""
    path = diff.path
    existing = file_lines(ws, path)
    if existing:
        post = tuple(line for hunk in diff.hunks for line in hunk.post_image)
        status = PRESENT if tuple(existing) == post else FAILS
        how = "the file exists with the same content" if status == PRESENT else ""
        return [
            replace(_failing_creation(path, h), status=status, how=how)
            if status == FAILS
            else HunkVerdict(path, h.index, h.header, status, 1, how=how, patch_line=h.line_no)
            for h in diff.hunks
        ]
    if kind_of(path) == NOTES and search is not None:
        consumed = _consumed(diff, search)
        if consumed is not None:
            return _consumed_hunks(diff, consumed)
    return [
        HunkVerdict(path, h.index, h.header, APPLIES, 1, 0, patch_line=h.line_no)
        for h in diff.hunks
    ]


def _failing_creation(path: str, hunk: Hunk) -> HunkVerdict:
    evidence = HunkEvidence(
        path, hunk.index, hunk.header, hunk.line_no, 1, None, 0, 0, (),
        note="the new release has a file of this name with other content",
    )  # fmt: skip
    return HunkVerdict(
        path, hunk.index, hunk.header, FAILS, evidence=evidence, patch_line=hunk.line_no
    )


def _consumed_edit(
    ws: Workspace, diff: FileDiff, source: str | None, search: TreeSearch | None
) -> list[HunkVerdict]:
    """An edit of a release-note fragment the new release no longer has: when a changelog
    holds every line the edit adds, whole (towncrier and scriv delete a fragment once they
    render it into the changelog), each hunk is *present* there; else ``[]``."""
    if search is None or kind_of(diff.path) != NOTES or source is None:
        return []
    if file_lines(ws, source) is not None:
        return []
    consumed = _consumed(diff, search, whole=True)
    if consumed is None:
        return []
    return _consumed_hunks(diff, consumed)


def _consumed_hunks(diff: FileDiff, consumed: tuple[str, int]) -> list[HunkVerdict]:
    """Each hunk of the release-note fragment ``diff`` *present* in the changelog that
    consumed it (``consumed``: how and the line, :func:`_consumed`)."""
    how, line = consumed
    return [
        HunkVerdict(diff.path, h.index, h.header, PRESENT, line, how=how, patch_line=h.line_no)
        for h in diff.hunks
    ]


def _fragment_lines(diff: FileDiff, whole: bool = False) -> list[bytes]:
    """A release-note fragment's added text lines, without a trailing ``(#123)``-style
    reference (the changelog renders it as a link) unless ``whole`` (an edit of a fragment:
    what it changes may be just that parenthesis, a CVE name added to it)."""
    out = []
    for hunk in diff.hunks:
        for line in hunk.lines:
            text = substantive(line.text) if line.kind == ADDED else None
            if text is None:
                continue
            cut = text.rfind(b"(")
            if not whole and cut > 20 and text.rstrip(b".").endswith(b")"):
                text = text[:cut].rstrip()
            out.append(text)
    return out


def _consumed(diff: FileDiff, search: TreeSearch, whole: bool = False) -> tuple[str, int] | None:
    """``(how, line)`` when a changelog of the new tree holds the fragment's text
    (:func:`_fragment_lines`)."""
    needles = _fragment_lines(diff, whole)
    if not needles:
        return None
    for path, lines in search.changelog_lines().items():
        index = file_index(lines)
        positions = [index.find(needle) for needle in needles]
        if all(p is not None for p in positions):
            line = min(p for p in positions if p is not None) + 1
            return f"consumed into {path} (line {line})", line
    return None


def _deletion_status(ws: Workspace, diff: FileDiff) -> list[HunkVerdict]:
    """A diff that deletes its file: upstream for that file when the new release deleted it
    too; it applies when the file is there with the content the diff removes; otherwise it
    fails (the file is still there, with other content)."""
    path = diff.old_path or diff.path
    existing = file_lines(ws, path)
    if existing is None:
        how = "the new release deleted the file too"
        return [
            HunkVerdict(path, h.index, h.header, PRESENT, how=how, patch_line=h.line_no)
            for h in diff.hunks
        ]
    pre = tuple(line for hunk in diff.hunks for line in hunk.pre_image)
    if tuple(existing) == pre:
        return [
            HunkVerdict(path, h.index, h.header, APPLIES, 1, 0, patch_line=h.line_no)
            for h in diff.hunks
        ]
    return [_failing(path, hunk, existing, 1) for hunk in diff.hunks]


def _removal_still_in_place(own: Sequence[bytes], hunk: Hunk) -> bool:
    """Whether a hunk that only removes lines (no substantive added line) still has every
    one of them in its own file of the new release: the removal is not made where it was
    to be made, so the lines being missing from another file (which may never have had
    them: shared imports found in a module beside a test file) prove nothing. The same
    holds when its own file has a removed line rewritten at its place
    (:func:`rewritten_in_place`): upstream changed those lines where they were."""
    if _added(hunk):
        return False
    removed = removed_lines(hunk)
    index = file_index(own)
    if removed and all(index.has(line) for line in removed):
        return True
    return bool(own) and rewritten_in_place(own, hunk) is not None


def _moved_hunk(
    status: HunkVerdict,
    hunk: Hunk,
    search: TreeSearch,
    pin: TreeSearch | None,
    own: Sequence[bytes] = (),
    source: str | None = None,
) -> HunkVerdict:
    """A hunk that fails in its file (``own``: that file's lines in the new release): look
    for its context/removed lines in the rest of the new tree (the code moved while the old
    file stayed); name the place, and judge the hunk there. The rest of the tree leaves out
    the file the hunk is applied to (``source``, the old name of a file the patch renames):
    its context there is where it belongs, not code that moved. The place is found by the lines
    that tell one file from another (:func:`patchkeeper.series.substantive_lines.placing_lines`):
    two modules of one package share their imports, which says nothing about where the code
    went. A hunk with fewer than :data:`MIN_MOVED_LINES` such lines (a block of imports) is
    found by all its substantive lines, and only where it applies or is there whole. A
    removal-only hunk whose removed lines are all still in its own file did not move: it is
    not looked for elsewhere (:func:`_removal_still_in_place`)."""
    if _removal_still_in_place(own, hunk):
        return status
    needles, whole_only = placing_lines(hunk.pre_image)
    distinct = list(dict.fromkeys(line.strip() for line in needles))
    if len(distinct) < MIN_MOVED_LINES:
        return status
    own_paths = frozenset({status.path, source or status.path})
    best = search.best_match(distinct, status.path, exclude=own_paths)
    if best is None or best[1] < max(MIN_MOVED_LINES, (len(distinct) + 1) // 2):
        return status
    other, count = best
    state = search.state(other)
    if state is None:
        return status
    # lines the pin had, in the hunk's own file or in that one, prove nothing
    pin_lines: tuple[bytes, ...] = ()
    for path in (status.path, other):
        pin_state = pin.state(path) if pin is not None else None
        pin_lines += pin_state.lines if pin_state is not None else ()
    there = _hunk_status(state.lines, status.path, hunk, pin_lines or None, elsewhere=True)
    if whole_only and there.status == FAILS:
        return status
    moved = replace(status, moved_to=other, moved_found=count, moved_total=len(distinct))
    if there.status == PRESENT:
        how = f"{there.how} in {other}"
        return replace(moved, status=PRESENT, line=there.line, how=how, evidence=None)
    if there.status == APPLIES:
        return replace(moved, moved_line=there.line)
    closest = closest_match(state.lines, hunk.pre_image, 1)
    return replace(moved, moved_line=closest.line if closest else None)


def hunk_statuses(
    ws: Workspace,
    patch: Patch,
    moved: dict[str, str] | None = None,
    search: TreeSearch | None = None,
    pin: TreeSearch | None = None,
) -> list[HunkVerdict]:
    """Every hunk of ``patch`` judged on its own against ``ws``: against its own file, or
    against the file its content moved to (``moved``: old path -> new path); a hunk that
    fails in its file is looked for in the rest of the tree when ``search`` is given.
    ``pin`` (the old pin's tree) keeps lines already there at the pin from counting."""
    moved = moved or {}
    out: list[HunkVerdict] = []
    for diff in patch.files:
        if creates_file(diff):
            out.extend(_creation_status(ws, diff, search))
            continue
        if diff.is_deletion:
            out.extend(_deletion_status(ws, diff))
            continue
        source = moved.get(diff.old_path or "", diff.old_path)
        consumed = _consumed_edit(ws, diff, source, search)
        if consumed:
            out.extend(consumed)
            continue
        lines = file_lines(ws, source) or ()
        pin_state = pin.state(diff.old_path) if pin is not None and diff.old_path else None
        pin_lines = pin_state.lines if pin_state is not None else None
        for hunk in diff.hunks:
            status = _hunk_status(lines, diff.path, hunk, pin_lines)
            if status.status == FAILS and search is not None and lines:
                status = _moved_hunk(status, hunk, search, pin, lines, source)
            out.append(status)
    return out
