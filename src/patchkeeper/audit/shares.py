"""How much of a patch's added lines the new release already has, weighed against the old pin.

When upstream rewrote a fix, its hunks fail at fuzz 0 while most of its lines are in the new
release, some spelled differently. Only lines the old pin lacks count (a line already there at
the pin proves nothing); a line counts when the new release has it in the same file
(reformatting allowed: :class:`patchkeeper.series.substantive_lines.FileIndex`), where the
file's content moved, in another file of the tree that lacked it at the pin (the tree's line
index, one pass), or spelled differently (:func:`respelled_as`).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace
from difflib import SequenceMatcher

from patchkeeper.series.engine import FileState, Workspace
from patchkeeper.series.filekinds import CODE, kind_of, language_of
from patchkeeper.series.model import ADDED, Patch
from patchkeeper.series.substantive_lines import file_index, substantive, tokens
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


def _elsewhere(search: TreeSearch | None, pin: TreeSearch | None, raw: bytes, path: str) -> bool:
    """Whether another file of the new tree holds the line and the pin lacked it there."""
    if search is None or pin is None:
        return False
    search.index.want([raw], path)
    text = substantive(raw, language_of(path)) or b""
    for holder in search.index.holders(raw)[:8]:
        if holder != path and not _pin_has(pin, holder, text, exact=True):
            return True
    return False


def _raw_added(patch: Patch) -> dict[str, list[tuple[bytes, bytes]]]:
    """Per written path, ``(normalized, raw)`` of each substantive added line."""
    out: dict[str, list[tuple[bytes, bytes]]] = {}
    for diff in patch.files:
        if diff.new_path is None:
            continue
        language = language_of(diff.new_path)
        for hunk in diff.hunks:
            for line in hunk.lines:
                text = substantive(line.text, language) if line.kind == ADDED else None
                if text is not None:
                    out.setdefault(diff.new_path, []).append((text, line.text))
    return out


#: How alike (difflib's ratio over tokens) a new release's line must be to an added line to
#: count as the same line spelled differently (``t.Optional[int]`` -> ``int | None``, a
#: helper renamed, ``self.`` added).
RESPELLED_RATIO = 0.8
#: Lines shorter than this (in tokens) are too short to tell a respelling from another line.
RESPELLED_MIN_TOKENS = 6


#: At most this many tokens of either line may differ (a name, an argument): a line that
#: shares its frame with another but differs in a whole clause is another line.
RESPELLED_MAX_TOKENS = 2


def _body(token: bytes) -> bytes:
    """A token as it is written in a file: a string literal without its quotes."""
    return token[1:-1] if token[:1] == b'"' and len(token) >= 2 else token


def _at_pin(token: bytes, pin: bytes) -> bool:
    """Whether the old pin (``pin``: its bytes) has ``token``: a name or a number anywhere, a
    string literal only as a whole literal in either quote. A patch that shortens a message
    (``'wasm-ld: error: x'`` to ``'error: x'``) introduces a new literal although the old
    one contains its text; read as a substring, the new literal would pass for one the pin
    had, and any line of the same frame with another message for its respelling.

    >>> _at_pin(b'"error: x"', b"f('wasm-ld: error: x')"), _at_pin(b'"error: x"', b"f('error: x')")
    (False, True)
    """
    if token[:1] != b'"' or len(token) < 2:
        return token in pin
    body = token[1:-1]
    return b'"' + body + b'"' in pin or b"'" + body + b"'" in pin


def _same_name(a: bytes, b: bytes) -> bool:
    """Whether two tokens are one name with other underscores around it (``builtins`` and
    ``__builtins__``, ``_helper`` and ``helper``)."""
    return a != b and a.strip(b"_") == b.strip(b"_") and bool(a.strip(b"_"))


def _respelling(
    matcher: SequenceMatcher[bytes], candidate: list[bytes], wanted: list[bytes], pin: bytes
) -> bool:
    """Whether ``candidate`` (``matcher``'s first sequence) is ``wanted`` respelled: at most
    :data:`RESPELLED_MAX_TOKENS` tokens changed on either side, and every token of
    ``wanted`` that the candidate lacks already at the pin (``pin``: its bytes). A token the
    patch introduces (a new name, a new string) is what the change is about; upstream
    writing another one there is another change."""
    changed_a = changed_b = 0
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            continue
        changed_a += a2 - a1
        changed_b += b2 - b1
        if op == "replace" and a2 - a1 == b2 - b1:
            pairs = zip(candidate[a1:a2], wanted[b1:b2], strict=True)
            if all(_same_name(mine, theirs) or _at_pin(theirs, pin) for mine, theirs in pairs):
                continue
        if any(not _at_pin(token, pin) for token in wanted[b1:b2]):
            return False
    return max(changed_a, changed_b) <= RESPELLED_MAX_TOKENS


def _keys(wanted: list[bytes], pin: bytes) -> tuple[bytes, ...]:
    """What a respelling of ``wanted`` must contain one of (a prefilter): the longest token
    the old pin lacks (the patch introduces it, so a respelling keeps it), or, when the pin
    has every token (any of them may be a renamed name), the
    ``RESPELLED_MAX_TOKENS + 1`` longest, one of which is kept (without underscores around,
    :func:`_same_name`)."""
    bodies = sorted({_body(t).strip(b"_") for t in wanted} - {b""}, key=len, reverse=True)
    literals = {_body(t).strip(b"_") for t in wanted if t[:1] == b'"' and not _at_pin(t, pin)}
    new = [body for body in bodies if body in literals or body not in pin]
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
    """The line of ``new`` that is ``line`` spelled differently, or ``None``.

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
    if pin is None or len(wanted) < RESPELLED_MIN_TOKENS:
        return None
    pin_index = file_index(pin.lines)
    pin_bytes = pin.data
    keys = _keys(wanted, pin_bytes)
    empty: list[bytes] = []
    matcher = SequenceMatcher(None, empty, wanted, autojunk=False)
    best: tuple[float, bytes] | None = None
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
        if score < ratio or (best is not None and score <= best[0]):
            continue
        if _respelling(matcher, names, wanted, pin_bytes) and not pin_index.has(text):
            best = (score, text)
    return best[1].decode("utf-8", "replace") if best else None


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
    for path, every in _raw_added(patch).items():
        left_out = (skip or {}).get(path, frozenset())
        pairs = [(text, raw) for text, raw in every if text not in left_out]
        if not pairs:
            continue
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
        differing = []
        respelled = []
        pin_state = pin.state(path)
        moved_to = where if where is not None and where != path else None
        for text, raw in pairs:
            there = index is not None and index.has(text)
            if _pin_has(pin, path, text, exact=not there) or (
                moved_to is not None and _pin_has(pin, moved_to, text)
            ):
                at_pin += 1
            elif there or _elsewhere(search, pin, raw, path):
                new_found += 1
            else:
                near = respelled_as(text, state, pin_state) if state is not None else None
                if near is not None:
                    new_found += 1
                    respelled.append((text.decode("utf-8", "replace"), near))
                else:
                    differing.append(text.decode("utf-8", "replace"))
        shares.append(
            replace(
                share,
                missing=tuple(differing[:5]),
                at_pin=at_pin,
                new_found=new_found,
                new_total=len(pairs) - at_pin,
                respelled=tuple(respelled[:5]),
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
