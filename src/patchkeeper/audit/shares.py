"""How much of a patch's added lines the new release already has, weighed against the old pin.

When upstream rewrote a fix, its hunks fail at fuzz 0 while most of its lines are in the new
release, some spelled differently. Only lines the old pin lacks count (a line already there at
the pin proves nothing); a line counts when the new release has it in the same file
(reformatting allowed: :class:`patchkeeper.series.substantive_lines.FileIndex`), where the
file's content moved, in another file of the tree that lacked it at the pin (the tree's line
index, one pass), or spelled differently (:func:`respelled_as`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from keyword import kwlist

from patchkeeper.audit.scopes import added_scopes, defined_names, line_scope
from patchkeeper.series.engine import FileState, Workspace
from patchkeeper.series.filekinds import CODE, PYTHON, kind_of, language_of
from patchkeeper.series.model import ADDED, Patch
from patchkeeper.series.substantive_lines import file_index, is_import, substantive, tokens
from patchkeeper.upstream.treesearch import TreeSearch


@dataclass(frozen=True)
class FileShare:
    """How many of a file's substantive added lines the new upstream already has.

    Attributes:
        path: the file the patch writes.
        found: how many of its added lines are found.
        total: how many substantive added lines the patch adds there.
        where: the file they were found in (``path`` itself, or where the content moved).
        missing: the added lines not found (normalized), at most five.
        kind: the file's kind (:func:`patchkeeper.series.filekinds.kind_of`).
        at_pin: added lines the old pin already has in this file (no evidence either way),
            or ``None`` when the pin's tree is not known.
        new_found: of the lines the pin lacks, how many the new release has (in this file,
            where it moved, or in another file that the pin lacked them in); ``None``
            without the pin's tree.
        new_total: how many added lines the pin lacks; ``None`` without the pin's tree.
        respelled: added lines counted in ``new_found`` because the new release has a line
            spelled differently (:func:`respelled_as`), with that line, at most five.
        displaced: added lines the new release has only at another place than the one the
            patch adds them to (:func:`_displaced`), not counted in ``new_found``, with that
            place (``listen()``, ``pkg/udp.py listen()``), at most five.
        contrary: added lines the new release has with their meaning turned
            (:func:`nearest_lines`: a negation, a comparison or a boolean changed), not
            counted in ``new_found``, with that line, at most five.
        imports: of the lines that count (:attr:`counted`), how many import statements
            are found and how many there are: ``(found, total)``.
    """

    path: str
    found: int
    total: int
    where: str | None
    missing: tuple[str, ...] = ()
    kind: str = CODE
    at_pin: int | None = None
    new_found: int | None = None
    new_total: int | None = None
    respelled: tuple[tuple[str, str], ...] = ()
    displaced: tuple[tuple[str, str], ...] = ()
    contrary: tuple[tuple[str, str], ...] = ()
    imports: tuple[int, int] = (0, 0)

    @property
    def counted(self) -> tuple[int, int]:
        """``(found, total)`` of the lines that count: those the pin lacks when it is known."""
        if self.new_total is not None and self.new_found is not None:
            return self.new_found, self.new_total
        return self.found, self.total


def _pin_has(pin: TreeSearch | None, path: str, line: bytes, exact: bool = False) -> bool:
    """Whether the pin's ``path`` has the normalized ``line``: as the new release is searched
    (reformatting allowed), or, ``exact``, as one whole line (for a line the tree's index
    found whole in another file)."""
    state = pin.state(path) if pin is not None else None
    if state is None:
        return False
    index = file_index(state.lines)
    return line in index.line_set if exact else index.has(line)


def _elsewhere(
    search: TreeSearch | None, pin: TreeSearch | None, raw: bytes, path: str
) -> list[str]:
    """The other files of the new tree that hold the line where the pin lacked it."""
    if search is None or pin is None:
        return []
    search.index.want([raw], path)
    text = substantive(raw, language_of(path)) or b""
    return [
        holder
        for holder in search.index.holders(raw)[:8]
        if holder != path and not _pin_has(pin, holder, text, exact=True)
    ]


def _raw_added(
    patch: Patch, pin: TreeSearch | None = None
) -> dict[str, list[tuple[bytes, bytes, str | None]]]:
    """Per written path, ``(normalized, raw, scope)`` of each substantive added line: its
    scope (:func:`patchkeeper.audit.scopes.added_scopes`, read with the old pin's file) in
    a Python file, else ``None``."""
    out: dict[str, list[tuple[bytes, bytes, str | None]]] = {}
    for diff in patch.files:
        if diff.new_path is None:
            continue
        language = language_of(diff.new_path)
        state = pin.state(diff.old_path) if pin is not None and diff.old_path else None
        pin_lines = state.lines if state is not None else None
        for hunk in diff.hunks:
            added = [line for line in hunk.lines if line.kind == ADDED]
            scopes = added_scopes(hunk, pin_lines) if language == PYTHON else [None] * len(added)
            for line, scope in zip(added, scopes, strict=True):
                text = substantive(line.text, language)
                if text is not None:
                    out.setdefault(diff.new_path, []).append((text, line.text, scope))
    return out


#: Words that only frame a statement: Python's keywords and C's ``switch``. A line of
#: nothing else but brackets (``elif (``, ``} else if (``) has no place of its own. Words
#: that are prose as often (``default``, ``then``) are not among them: a docstring's line
#: ``default.`` names something.
_FRAME_WORDS = frozenset(kwlist) | frozenset(("switch",))


def says_something(text: bytes) -> bool:
    """Whether a substantive line names something: a token that is a name other than a
    keyword (:data:`_FRAME_WORDS`), a number or a string. ``elif (`` opens a condition
    written on the lines after it: alone, it is in countless functions, so where it is
    tells nothing (:func:`_place_taken` leaves it be).

    >>> says_something(b"elif ("), says_something(b"} else if ("), says_something(b"if x:")
    (False, False, True)
    """
    if text[:1] == b"#":
        return True  # a C directive (a comment is not substantive), read as a whole
    return any(_names_something(token) for token in tokens(text))


def _names_something(token: bytes) -> bool:
    """Whether a token is a string, a number or a name that is not a keyword."""
    if token[:1] in (b'"', b"'") or token[:1].isdigit():
        return True
    word = token.decode("utf-8", "replace")
    return word.isidentifier() and word not in _FRAME_WORDS


#: At most this many places of a line in one file are read for its scope.
MAX_PLACES = 16


def _scopes_holding(state: FileState, text: bytes) -> list[str | None]:
    """The scopes (:func:`patchkeeper.audit.scopes.line_scope`) of the places in ``state``
    where the normalized line ``text`` is (reformatting allowed), at most
    :data:`MAX_PLACES`."""
    index = file_index(state.lines)
    out: list[str | None] = []
    at = index.find(text)
    while at is not None and len(out) < MAX_PLACES:
        out.append(line_scope(state.lines, at))
        at = index.find(text, at)
    return out


def _displaced(
    text: bytes,
    scope: str | None,
    new: FileState,
    holder: FileState,
    holder_pin: FileState | None,
) -> str | None:
    """The place where ``holder`` (a file of the new release) has the added line ``text``
    when that is not the patch's place, else ``None``: the patch adds it in function or
    class ``scope``, which its file ``new`` in the new release still defines, and every
    place of the line in ``holder`` lies in another function or class that ``holder``
    already had at the pin (``holder_pin``). A line in the patch's own function, at module
    level, in code upstream wrote since the pin (a helper the fix moved to), or for a
    function gone from the new release (moved, renamed: the place cannot be told) counts."""
    if scope is None or scope not in defined_names(new.lines) or holder_pin is None:
        return None
    places = _scopes_holding(holder, text)
    before = defined_names(holder_pin.lines)
    if not places or any(p is None or p == scope or p not in before for p in places):
        return None
    return ", ".join(f"{place}()" for place in dict.fromkeys(places))


#: How alike (difflib's ratio over tokens) a new release's line must be to an added line to
#: count as the same line spelled differently (``t.Optional[int]`` -> ``int | None``, a
#: helper renamed, ``self.`` added).
RESPELLED_RATIO = 0.8
#: Lines shorter than this (in tokens) are too short to tell a respelling from another line.
RESPELLED_MIN_TOKENS = 6


#: At most this many tokens of either line may differ (a name, an argument): a line that
#: shares its frame with another but differs in a whole clause is another line.
RESPELLED_MAX_TOKENS = 2


#: Tokens that turn what a line says: a negation, a comparison, a boolean literal. A line
#: that differs from an added line only in them says the opposite or something else
#: (``if not ok`` is not ``if ok``, ``> limit`` is not ``< limit``), however alike the rest.
MEANING_TOKENS = frozenset(
    (b"not", b"!", b"<", b">", b"True", b"False", b"true", b"false", b"TRUE", b"FALSE")
)


def _turns(changed: list[bytes], instead: list[bytes]) -> bool:
    """Whether a change of tokens ``instead`` into ``changed`` (one of a line's differences,
    either may be empty) only turns its meaning: every token on both sides is one of
    :data:`MEANING_TOKENS`. A name replaced by ``True`` or a clause dropped with its
    ``not`` is a rewording, weighed as any respelling.

    >>> _turns([b"not"], []), _turns([b"<"], [b">"]), _turns([b"True"], [b"flag"])
    (True, True, False)
    """
    both = changed + instead
    return bool(both) and all(token in MEANING_TOKENS for token in both)


def _body(token: bytes) -> bytes:
    """A token as it is written in a file: a string literal without its quotes."""
    return token[1:-1] if token[:1] == b'"' and len(token) >= 2 else token


#: The names and numbers of a file, read as :func:`patchkeeper.series.substantive_lines.tokens`
#: reads them (``30`` is not a part of ``300``, ``POOL`` not a part of ``POOLS``), wherever
#: they are (code, strings, comments).
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*")
#: An attribute of ``self`` or ``cls``: one name to :func:`_names`.
_ATTRIBUTE = re.compile(rb"\b(self|cls)\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class PinText:
    """The old pin's file as :func:`_at_pin` reads it.

    Attributes:
        data: the file's bytes (string literals are looked for there).
        words: its names and numbers as whole tokens (:data:`_WORD`), each word of a
            name written with underscores (``certificates`` of
            ``load_der_certificates``), and each attribute of ``self`` or ``cls`` as one
            (``self.buffer``).
    """

    data: bytes
    words: frozenset[bytes]


_PIN_TEXTS: dict[int, PinText] = {}


def pin_text(data: bytes) -> PinText:
    """The :class:`PinText` of a file's bytes ``data``, built once per content (cached):
    every added line of a patch is weighed against the same pin file."""
    key = hash(data)
    cached = _PIN_TEXTS.get(key)
    if cached is not None and (cached.data is data or cached.data == data):
        return cached
    if len(_PIN_TEXTS) > 512:
        _PIN_TEXTS.clear()
    words = set(_WORD.findall(data))
    words.update(
        part
        for word in list(words)
        if b"_" in word and not word[:1].isdigit()
        for part in word.split(b"_")
        if part[:1].isalpha()
    )
    words.update(m.group(1) + b"." + m.group(2) for m in _ATTRIBUTE.finditer(data))
    text = PinText(data, frozenset(words))
    _PIN_TEXTS[key] = text
    return text


def _at_pin(token: bytes, pin: PinText) -> bool:
    """Whether the old pin (``pin``) has ``token``: a number as a whole token anywhere in
    the file, a name as a whole token or as a word of one written with underscores, a
    string literal only as a whole literal in either quote, another token (a bracket, an
    operator) anywhere. A token the patch introduces is what its change is about, whatever
    longer token holds its text: ``30`` is a new number where the pin has only ``300``,
    ``POOL`` a new name where it has only ``POOLS``; a name made of a word the pin's names
    are made of (``certificates`` where the pin calls ``load_der_certificates``) is one a
    respelling may drop or rename, as upstream names a local its own way. Likewise a patch
    that shortens a message (``'wasm-ld: error: x'`` to ``'error: x'``) introduces a new
    literal although the old one contains its text; read as a substring, the new literal
    would pass for one the pin had, and any line of the same frame with another message for
    its respelling.

    >>> pin = pin_text(b"load_der_x(POOLS, 'wasm-ld: error: x', timeout=300)")
    >>> _at_pin(b'"error: x"', pin), _at_pin(b'"wasm-ld: error: x"', pin)
    (False, True)
    >>> _at_pin(b"30", pin), _at_pin(b"300", pin), _at_pin(b"POOL", pin), _at_pin(b"der", pin)
    (False, True, False, True)

    The empty string is never taken for one the pin had, though the pin has one: nearly
    every file does, so its being there tells nothing of what the patch introduced.

    >>> _at_pin(b'""', pin_text(b'name = ""'))
    False
    """
    first = token[:1]
    if first == b'"' and len(token) >= 2:
        body = token[1:-1]
        if not body:
            return False  # the empty string is in almost every file: no evidence either way
        return b'"' + body + b'"' in pin.data or b"'" + body + b"'" in pin.data
    if first.isalnum() or first == b"_":
        return token in pin.words
    return token in pin.data


def _literal(token: bytes) -> bytes | None:
    """A string literal's content, its quotes and escaped quotes aside (``'it\\'s'`` and
    ``"it's"`` are one content); ``None`` for any other token.

    >>> _literal(b'"identity"'), _literal(b"'x'") == _literal(b'"x"'), _literal(b'""')
    (b'identity', True, b'')
    >>> _literal(b"val"), _literal(b"(")
    (None, None)
    """
    if len(token) >= 2 and token[:1] in (b'"', b"'") and token[-1:] == token[:1]:
        return token[1:-1].replace(b'\\"', b'"').replace(b"\\'", b"'")
    return None


def _swaps_literal(changes: Iterable[tuple[list[bytes], list[bytes]]]) -> bool:
    """Whether a candidate line has a string literal of the added line replaced by a string
    literal of other content; ``changes`` are the runs of tokens that differ, each as
    ``(the candidate's, the added line's)``. Over them, the added line has a literal whose
    content the candidate's runs lack, and the candidate one whose content the added line's
    lack. A literal is data: ``== "identity"`` where the patch compares with ``""`` is
    another test, not the same one spelled differently, whether or not the old pin had the
    patch's literal somewhere (as it has the empty one almost everywhere). A literal only
    moved within the line, or one replaced by a name (a constant), is no swap.

    >>> _swaps_literal([([b'"identity"'], [b'""'])])
    True
    >>> moved = [([b'"a"', b","], []), ([], [b",", b"'a'"])]
    >>> _swaps_literal([([b"MODE"], [b'"rb"'])]), _swaps_literal(moved)
    (False, False)
    """
    lost: Counter[bytes] = Counter()
    gained: Counter[bytes] = Counter()
    for candidate_run, added_run in changes:
        gained.update(c for c in map(_literal, candidate_run) if c is not None)
        lost.update(c for c in map(_literal, added_run) if c is not None)
    return bool(lost - gained) and bool(gained - lost)


def _same_name(a: bytes, b: bytes) -> bool:
    """Whether two tokens are one name with other underscores around it (``builtins`` and
    ``__builtins__``, ``_helper`` and ``helper``)."""
    return a != b and a.strip(b"_") == b.strip(b"_") and bool(a.strip(b"_"))


#: What :func:`_respelling` finds a candidate line to be.
RESPELLED = "respelled"
CONTRARY = "contrary"


def _respelling(
    matcher: SequenceMatcher[bytes], candidate: list[bytes], wanted: list[bytes], pin: PinText
) -> str | None:
    """What ``candidate`` (``matcher``'s first sequence) is to ``wanted``: :data:`RESPELLED`
    when at most :data:`RESPELLED_MAX_TOKENS` tokens changed on either side and every token
    of ``wanted`` that the candidate lacks was already at the pin (``pin``, :func:`_at_pin`): a
    token the patch introduces (a new name, a new string) is what the change is about;
    upstream writing another one there is another change. :data:`CONTRARY` when the line is
    such a respelling but for tokens that turn its meaning (:func:`_turns`: a negation
    added or dropped, a comparison turned, a boolean swapped): the same line saying
    something else. Else ``None``, also when a string literal of ``wanted`` is replaced by
    one of other content (:func:`_swaps_literal`), whatever the pin has: a name may be
    respelled (upstream calls a local its own way), a literal's content is what the line
    says.

    >>> def judged(candidate, added, pin):
    ...     mine, theirs = tokens(candidate), tokens(added)
    ...     matcher = SequenceMatcher(None, mine, theirs, autojunk=False)
    ...     return _respelling(matcher, mine, theirs, pin_text(pin))
    >>> pin = b'if value.lower() == "chunked":\\n    x = ""\\n'
    >>> judged(b'elif val.lower() == "identity":', b'elif value.lower() == "":', pin)
    >>> judged(b'elif val.lower() == "chunked":', b"elif value.lower() == 'chunked':", pin)
    'respelled'
    """
    changed_a = changed_b = 0
    contrary = False
    opcodes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    if _swaps_literal((candidate[a1:a2], wanted[b1:b2]) for _, a1, a2, b1, b2 in opcodes):
        return None
    for op, a1, a2, b1, b2 in opcodes:
        changed_a += a2 - a1
        changed_b += b2 - b1
        if _turns(candidate[a1:a2], wanted[b1:b2]):
            contrary = True
            continue
        if op == "replace" and a2 - a1 == b2 - b1:
            pairs = zip(candidate[a1:a2], wanted[b1:b2], strict=True)
            if all(_same_name(mine, theirs) or _at_pin(theirs, pin) for mine, theirs in pairs):
                continue
        if any(not _at_pin(token, pin) for token in wanted[b1:b2]):
            return None
    if max(changed_a, changed_b) > RESPELLED_MAX_TOKENS:
        return None
    return CONTRARY if contrary else RESPELLED


def _keys(wanted: list[bytes], pin: PinText) -> tuple[bytes, ...]:
    """What a respelling of ``wanted`` must contain one of (a prefilter): the longest token
    the old pin lacks (:func:`_at_pin`: the patch introduces it, so a respelling keeps it),
    or, when the pin has every token (any of them may be a renamed name), the
    ``RESPELLED_MAX_TOKENS + 1`` longest, one of which is kept (without underscores around,
    :func:`_same_name`)."""
    bodies = sorted({_body(t).strip(b"_") for t in wanted} - {b""}, key=len, reverse=True)
    introduced = {_body(t).strip(b"_") for t in wanted if not _at_pin(t, pin)}
    new = [body for body in bodies if body in introduced]
    if new:
        return (new[0],)
    return tuple(bodies[: RESPELLED_MAX_TOKENS + 1]) or (b"_",)


def _names(found: list[bytes]) -> list[bytes]:
    """Tokens with every attribute of ``self`` or ``cls`` as one name (``self.buffer``):
    the data a method works on, spelled as an attribute or passed in as a local
    (``len(self.buffer)`` in a method, ``len(data)`` in the helper it moved to), is one
    name changed, not three tokens."""
    out: list[bytes] = []
    i = 0
    while i < len(found):
        if found[i] in (b"self", b"cls") and found[i + 1 : i + 2] == [b"."] and i + 2 < len(found):
            out.append(b"".join(found[i : i + 3]))
            i += 3
            continue
        out.append(found[i])
        i += 1
    return out


def respelled_as(
    line: bytes, new: FileState, pin: FileState | None, ratio: float = RESPELLED_RATIO
) -> str | None:
    """The line of ``new`` that is ``line`` spelled differently, or ``None``
    (:func:`nearest_lines`)."""
    return nearest_lines(line, new, pin, ratio)[0]


def nearest_lines(
    line: bytes, new: FileState, pin: FileState | None, ratio: float = RESPELLED_RATIO
) -> tuple[str | None, str | None]:
    """The line of ``new`` that is ``line`` spelled differently, and the one that is
    ``line`` with another meaning (:data:`CONTRARY`), each ``None`` when there is none.

    A candidate shares one of the line's longest tokens (:func:`_keys`), has tokens at
    least ``ratio`` alike (:class:`difflib.SequenceMatcher` over
    :func:`patchkeeper.series.substantive_lines.tokens`, an attribute of ``self`` one name:
    :func:`_names`), differs by
    at most :data:`RESPELLED_MAX_TOKENS` tokens on either side, keeps every token the patch
    introduces (those the old pin lacks), and is not at the old pin: a line the pin had is
    the old code the patch changed, not upstream's version of the change. Without the pin's
    file nothing counts (the old line itself would look like a respelling).
    """
    wanted = _names(tokens(line))
    if pin is None or len(wanted) < CONTRARY_MIN_TOKENS:
        return None, None
    if len(wanted) < RESPELLED_MIN_TOKENS:
        return None, _contrary_short(wanted, new, pin)
    pin_index = file_index(pin.lines)
    pin_words = pin_text(pin.data)
    keys = _keys(wanted, pin_words)
    empty: list[bytes] = []
    matcher = SequenceMatcher(None, empty, wanted, autojunk=False)
    best: dict[str, tuple[float, bytes]] = {}
    lines = new.lines
    for number in _holding(new, keys):
        text = substantive(lines[number])
        if text is None:
            continue
        names = _names(tokens(text))
        matcher.set_seq1(names)
        if matcher.real_quick_ratio() < ratio or matcher.quick_ratio() < ratio:
            continue
        score = matcher.ratio()
        if score < ratio:
            continue
        found = _respelling(matcher, names, wanted, pin_words)
        if found is None or (found in best and score <= best[found][0]):
            continue
        if not pin_index.has(text):
            best[found] = (score, text)
    respelled, contrary = best.get(RESPELLED), best.get(CONTRARY)
    return (
        respelled[1].decode("utf-8", "replace") if respelled else None,
        contrary[1].decode("utf-8", "replace") if contrary else None,
    )


#: A line this short (in tokens) is too short for a respelling, but not for the same line
#: with its meaning turned (``VERIFY = True`` as ``VERIFY = False``).
CONTRARY_MIN_TOKENS = 3


def _contrary_short(wanted: list[bytes], new: FileState, pin: FileState) -> str | None:
    """The line of ``new`` that is the short line ``wanted`` (its tokens) with only tokens
    that turn its meaning changed (:func:`_turns`), at most :data:`RESPELLED_MAX_TOKENS` of
    them, and not at the old pin ``pin``; else ``None``."""
    pin_index = file_index(pin.lines)
    empty: list[bytes] = []
    matcher = SequenceMatcher(None, empty, wanted, autojunk=False)
    for number in _holding(new, _keys(wanted, pin_text(pin.data))):
        text = substantive(new.lines[number])
        if text is None:
            continue
        names = _names(tokens(text))
        matcher.set_seq1(names)
        changed = [op for op in matcher.get_opcodes() if op[0] != "equal"]
        if not changed or any(
            not _turns(names[a1:a2], wanted[b1:b2]) for _, a1, a2, b1, b2 in changed
        ):
            continue
        mine = sum(a2 - a1 for _, a1, a2, _, _ in changed)
        theirs = sum(b2 - b1 for _, _, _, b1, b2 in changed)
        if max(mine, theirs) > RESPELLED_MAX_TOKENS:
            continue
        if not pin_index.has(text):
            return text.decode("utf-8", "replace")
    return None


def _holding(state: FileState, keys: tuple[bytes, ...]) -> list[int]:
    """The 0-based numbers of the lines of ``state`` that hold one of ``keys``, in order:
    found by searching the file's bytes for each key (no key holds a line break, so a key
    found there lies in one line), not by testing every line in Python, which made
    :func:`respelled_as` cost the file's length for every added line of a patch.

    >>> lines = (b"x = alpha\\n", b"y = 2\\n", b"alpha(beta, alpha)\\n", b"beta\\n")
    >>> _holding(FileState(lines), (b"alpha", b"beta"))
    [0, 2, 3]
    """
    data, starts = state.data, state.line_starts
    found: set[int] = set()
    for key in keys:
        at = data.find(key)
        while at != -1:
            number = bisect_right(starts, at) - 1
            found.add(number)
            at = data.find(key, starts[number + 1])
    return sorted(found)


def _place_taken(
    text: bytes,
    scope: str | None,
    path: str,
    state: FileState | None,
    there: bool,
    holders: list[str],
    search: TreeSearch | None,
    pin: TreeSearch,
) -> str | None:
    """Where the new release has the added line ``text`` only at another place than the
    patch's (:func:`_displaced`): in the patch's file ``path`` (``state``, when ``there``),
    or in the other files ``holders`` (each of them such a place); else ``None``. A line
    that names nothing (:func:`says_something`) has no place to tell."""
    if state is None or scope is None or not says_something(text):
        return None
    if there:
        return _displaced(text, scope, state, state, pin.state(path))
    if not holders or search is None:
        return None
    places = []
    for holder in holders:
        held = search.state(holder)
        place = _displaced(text, scope, state, held, pin.state(holder)) if held else None
        if place is None:
            return None
        places.append(f"{holder} {place}")
    return "; ".join(places)


def file_shares(
    ws: Workspace,
    patch: Patch,
    search: TreeSearch | None,
    pin: TreeSearch | None = None,
    skip: dict[str, frozenset[bytes]] | None = None,
) -> tuple[FileShare, ...]:
    """Per written file, how many substantive added lines the new upstream (before any
    patch) holds: in the same file, or, when it is gone, in the best file of the tree.

    With the old pin's tree (``pin``), the lines the pin already has in that file are set
    apart (``at_pin``: they prove nothing), and of the others (``new_total``) those the new
    release has in the file, where it moved, or in another file that lacked them at the pin
    are counted (``new_found``). Where the content was found in another file, a line that
    file already had at the pin is set apart too: a file the patch creates as a copy or a
    rename of one upstream keeps (a deletion and a creation, as ``diff`` without rename
    detection writes a rename) holds lines upstream had before the patch, not lines it took.
    ``skip`` (written path -> normalized lines) leaves lines out of every count (a later
    patch of the series rewrites them); a file left with none is left out.
    """
    shares = []
    for path, every in _raw_added(patch, pin).items():
        left_out = (skip or {}).get(path, frozenset())
        triples = [(text, raw, scope) for text, raw, scope in every if text not in left_out]
        if not triples:
            continue
        pairs = [(text, raw) for text, raw, _ in triples]
        added = [text for text, _ in pairs]
        state = ws.original(path)
        where: str | None = path
        if state is None and search is not None:
            best = search.best_match([raw.strip() for _, raw in pairs], path)
            where = best[0] if best else None
            state = search.state(where) if where else None
        index = file_index(state.lines) if state is not None else None
        absent = [line for line in added if index is None or not index.has(line)]
        found = len(added) - len(absent)
        share = FileShare(path, found, len(added), where if found else None, kind=kind_of(path))
        if pin is None:
            missing = tuple(line.decode("utf-8", "replace") for line in absent[:5])
            shares.append(replace(share, missing=missing))
            continue
        at_pin = new_found = 0
        differing: list[str] = []
        respelled: list[tuple[str, str]] = []
        displaced: list[tuple[str, str]] = []
        contrary: list[tuple[str, str]] = []
        pin_state = pin.state(path)
        moved_to = where if where is not None and where != path else None
        imports = [0, 0]
        for text, raw, scope in triples:
            shown = text.decode("utf-8", "replace")
            there = index is not None and index.has(text)
            if _pin_has(pin, path, text, exact=not there) or (
                moved_to is not None and _pin_has(pin, moved_to, text)
            ):
                at_pin += 1
                continue
            importing = is_import(text)
            imports[1] += importing
            holders = [] if there else _elsewhere(search, pin, raw, path)
            place = _place_taken(text, scope, path, state, there, holders, search, pin)
            if place is not None:
                displaced.append((shown, place))
            elif there or holders:
                new_found += 1
                imports[0] += importing
            else:
                near, other = nearest_lines(text, state, pin_state) if state else (None, None)
                if near is not None:
                    new_found += 1
                    imports[0] += importing
                    respelled.append((shown, near))
                elif other is not None:
                    contrary.append((shown, other))
                else:
                    differing.append(shown)
        shares.append(
            replace(
                share,
                missing=tuple(differing[:5]),
                at_pin=at_pin,
                new_found=new_found,
                new_total=len(pairs) - at_pin,
                respelled=tuple(respelled[:5]),
                displaced=tuple(displaced[:5]),
                contrary=tuple(contrary[:5]),
                imports=(imports[0], imports[1]),
            )
        )
    return tuple(shares)


def share_text(shares: tuple[FileShare, ...]) -> str:
    """How many added lines upstream has, with the file that has most of them."""
    found = sum(s.found for s in shares)
    total = sum(s.total for s in shares)
    if not total:
        return "it adds no substantive lines"
    best = max(shares, key=lambda s: (s.found / s.total if s.total else 0, s.found))
    where = f" (strongest: {best.path} {best.found}/{best.total}"
    if best.where and best.where != best.path:
        where += f", found in {best.where}"
    return f"{found} of {total} substantive added lines already upstream{where})"
