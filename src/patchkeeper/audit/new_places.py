"""Text a patch rewrites that the new release has at more places than the pin.

A documentation patch that rewrites a name where it occurs (a video host for a
privacy-friendly one, a remote file for the one a distribution installs) is written for the
places the pin has. When the new release adds the same name at new places (a new page
embedding the same video host), the patch still applies, yet it no longer does what it is
for: a maintainer extends it to the new places, which is a port, not a carry. Code is left
out: a dotted name in code (``sys.platform``) recurs as the code grows, whatever the patch
is for.

The rewritten text of a removed line and the added line that replaces it is the one token
the two lines differ in (a run of letters, digits, ``_``, ``.``, ``-``; the differing span
widened to the token's edges, and no other character in it): ``www.youtube.com`` for
``src="https://www.youtube.com/embed/x"`` rewritten as
``src="https://www.youtube-nocookie.com/embed/x"``. Only a token of at least
:data:`MIN_TOKEN` characters with a letter and a ``.`` in it counts (a host name, a dotted
name, a file name: text that names one thing wherever it occurs), and only when the added
line no longer has it. The token is counted as a whole token (``www.youtube.com``
does not count in ``www.youtube.com.au``) in every documentation file with a patched file's
suffix (:func:`patchkeeper.series.filekinds.kind_of`), in both trees: one pass per tree and
suffix, kept for the run.

In a file of any kind, code included, a systematic rewrite counts too
(:func:`systematic_places`): at least three lines rewritten the same way, covering every line
of the pin's file that holds the text they share around the edit, while the new release's
file has more such lines. One rewrite made on every line of a kind is what the patch is for,
not a name that recurs as code grows.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher
from weakref import WeakKeyDictionary

from patchkeeper.series.filekinds import DOCS, kind_of
from patchkeeper.series.model import ADDED, REMOVED, Hunk
from patchkeeper.upstream.treeindex import MAX_FILE_BYTES, suffix_of
from patchkeeper.upstream.treesearch import TreeSearch

#: The shortest rewritten token that counts: shorter ones (``css``, ``self``) recur by chance.
MIN_TOKEN = 8

_TOKEN = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_TOKENS = re.compile(rb"[A-Za-z0-9_.\-]+")

#: Per tree and file suffix, how often each token occurs in those files (built once).
_COUNTS: WeakKeyDictionary[TreeSearch, dict[str, Counter[bytes]]] = WeakKeyDictionary()


def common_ends(old: Sequence[object], new: Sequence[object]) -> tuple[int, int]:
    """``(head, tail)``: how many items ``old`` and ``new`` have in common at their start,
    then how many at their end; the tail never reaches into the head, so what differs is
    ``old[head:len(old) - tail]`` against ``new[head:len(new) - tail]``.

    >>> common_ends(b"abcxyz", b"abcz")
    (3, 1)
    >>> common_ends(b"aa", b"aaa")
    (2, 0)
    """
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while (
        tail < min(len(old), len(new)) - head
        and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]
    ):
        tail += 1
    return head, tail


def rewritten_token(old: bytes, new: bytes) -> bytes | None:
    """The token ``old`` has where ``new`` differs from it, widened to the token's edges;
    ``None`` when the lines differ in more than one token, or the token is shorter than
    :data:`MIN_TOKEN`, has no letter, no ``.``, or ``new`` still has it.

    >>> rewritten_token(b'src="https://www.youtube.com/x"', b'src="https://www.youtube-nocookie.com/x"')
    b'www.youtube.com'
    """
    old, new = old.rstrip(), new.rstrip()
    if old == new:
        return None
    prefix, suffix = common_ends(old, new)
    start, end = prefix, len(old) - suffix
    if any(c not in _TOKEN for c in old[start:end]):
        return None
    while start > 0 and old[start - 1] in _TOKEN:
        start -= 1
    while end < len(old) and old[end] in _TOKEN:
        end += 1
    token = old[start:end]
    if len(token) < MIN_TOKEN or b"." not in token or not any(chr(c).isalpha() for c in token):
        return None
    if token in new:
        return None
    return token


def _pairs(hunk: Hunk) -> list[tuple[bytes, bytes]]:
    """The (removed, added) line pairs of ``hunk``: each run of removed lines followed by a
    run of as many added lines, paired in order."""
    out: list[tuple[bytes, bytes]] = []
    lines = hunk.lines
    i = 0
    while i < len(lines):
        if lines[i].kind != REMOVED:
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].kind == REMOVED:
            j += 1
        k = j
        while k < len(lines) and lines[k].kind == ADDED:
            k += 1
        if k - j == j - i:
            out += [(lines[i + n].text, lines[j + n].text) for n in range(j - i)]
        i = k if k > i else i + 1
    return out


def _text_files(tree: TreeSearch, suffix: str) -> list[tuple[str, bytes]]:
    """The readable documentation files of ``tree`` with ``suffix``: (path, bytes), in path
    order."""
    out = []
    for path in tree.files():
        if suffix_of(path) != suffix or kind_of(path) != DOCS:
            continue
        data = tree.read(path)
        if data and len(data) <= MAX_FILE_BYTES and b"\0" not in data[:1024]:
            out.append((path, data))
    return out


def _counts(tree: TreeSearch, suffix: str) -> Counter[bytes]:
    """How often each token occurs in the files of ``tree`` with ``suffix`` (kept)."""
    per_suffix = _COUNTS.setdefault(tree, {})
    if suffix not in per_suffix:
        counts: Counter[bytes] = Counter()
        for _path, data in _text_files(tree, suffix):
            counts.update(_TOKENS.findall(data))
        per_suffix[suffix] = counts
    return per_suffix[suffix]


def _holders(tree: TreeSearch, token: bytes, suffixes: set[str]) -> dict[str, int]:
    """Per file of ``tree`` with one of ``suffixes`` that has ``token``, how often."""
    out = {}
    for suffix in sorted(suffixes):
        for path, data in _text_files(tree, suffix):
            if token in data:
                n = _TOKENS.findall(data).count(token)
                if n:
                    out[path] = n
    return out


def new_places(hunks: Sequence[tuple[str, Hunk]], pin: TreeSearch, new: TreeSearch) -> str:
    """The evidence that text the documentation hunks of ``hunks`` (path, hunk) rewrite
    occurs more often in the new release than at the old pin, in the documentation files
    of the patched files' suffixes:
    ``'www.youtube.com', which it rewrites, occurs 2 times in the new release against 1 at
    the pin (more in docs/plugins.rst): extend it there``; ``""`` when no rewritten token
    occurs more often."""
    hunks = [(path, hunk) for path, hunk in hunks if kind_of(path) == DOCS]
    tokens: dict[bytes, None] = {}
    for _path, hunk in hunks:
        for old, added in _pairs(hunk):
            token = rewritten_token(old, added)
            if token is not None:
                tokens[token] = None
    if not tokens:
        return ""
    suffixes = {suffix_of(path) for path, _hunk in hunks}
    for token in tokens:
        before = sum(_counts(pin, suffix)[token] for suffix in suffixes)
        after = sum(_counts(new, suffix)[token] for suffix in suffixes)
        if after <= before:
            continue
        at_pin = _holders(pin, token, suffixes)
        there = _holders(new, token, suffixes)
        grown = sorted(path for path, n in there.items() if n > at_pin.get(path, 0))
        text = token.decode("utf-8", "replace")
        return (
            f"'{text}', which it rewrites, occurs {after} times in the new release against "
            f"{before} at the pin (more in {', '.join(grown)}): extend it there"
        )
    return ""


#: The fewest line rewrites of one file, all alike, that make a systematic rewrite.
MIN_REWRITES = 3
#: The shortest text shared by every rewritten line at the place of the edit that counts.
MIN_FRAGMENT = 8


def _edit(old: bytes, new: bytes) -> tuple[int, tuple[tuple[str, bytes, bytes], ...]]:
    """Where a rewrite of ``old`` into ``new`` starts in ``old``, and what it does: the
    differing stretches, ``(tag, old text, new text)`` in order."""
    ops = [
        (tag, old[i1:i2], new[j1:j2], i1)
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
        if tag != "equal"
    ]
    start = ops[0][3] if ops else len(old)
    return start, tuple((tag, a, b) for tag, a, b, _at in ops)


def _fragment(lines: Sequence[bytes], starts: Sequence[int]) -> bytes:
    """The longest text every line of ``lines`` has around its position in ``starts``."""
    left = 0
    while (
        all(start - left - 1 >= 0 for start in starts)
        and len({line[start - left - 1] for line, start in zip(lines, starts, strict=True)}) == 1
    ):
        left += 1
    right = 0
    while (
        all(start + right < len(line) for line, start in zip(lines, starts, strict=True))
        and len({line[start + right] for line, start in zip(lines, starts, strict=True)}) == 1
    ):
        right += 1
    first, start = lines[0], starts[0]
    return first[start - left : start + right]


def systematic_places(hunks: Sequence[tuple[str, Hunk]], pin: TreeSearch, new: TreeSearch) -> str:
    """The evidence that a file the patch rewrites systematically has more places to rewrite
    in the new release than at the old pin: in one file, at least :data:`MIN_REWRITES`
    removed lines each replaced by an added line the same way (the same stretches inserted,
    deleted or replaced: ``$(wildcard X)`` made ``$(sort $(wildcard X))`` on every line),
    the text all those removed lines share around the edit (at least :data:`MIN_FRAGMENT`
    characters, with a letter) on as many lines of the pin's file as the patch rewrites
    there (it rewrites every one), and on more lines of the new release's file: upstream
    added such lines (a new architecture's sources), which the patch does not cover. A
    maintainer extends the patch to them: a port, not a carry. ``""`` when not so."""
    by_path: dict[str, list[tuple[bytes, bytes]]] = {}
    for path, hunk in hunks:
        by_path.setdefault(path, []).extend(
            (old.rstrip(b"\r\n"), added.rstrip(b"\r\n")) for old, added in _pairs(hunk)
        )
    for path, pairs in by_path.items():
        if len(pairs) < MIN_REWRITES:
            continue
        edits = [_edit(old, added) for old, added in pairs]
        if len({what for _start, what in edits}) != 1 or not edits[0][1]:
            continue
        olds = [old for old, _added in pairs]
        fragment = _fragment(olds, [start for start, _what in edits])
        if len(fragment) < MIN_FRAGMENT or not any(chr(c).isalpha() for c in fragment):
            continue
        at_pin, now = pin.state(path), new.state(path)
        if at_pin is None or now is None:
            continue
        before = sum(1 for line in at_pin.lines if fragment in line)
        after = sum(1 for line in now.lines if fragment in line)
        if before != len(set(olds)) or after <= before:
            continue
        text = fragment.strip().decode("utf-8", "replace")
        return (
            f"it rewrites every line of {path} with `{text}` the same way ({len(pairs)} lines), "
            f"and the new release has {after} such lines against {before} at the pin: extend "
            "it to the new ones"
        )
    return ""
