"""Substantive lines: what of a patch's change can be searched for in another tree.

A backport is often written differently from the upstream fix, reformatted or moved, so the
search compares normalized lines (whitespace collapsed) and ignores lines that say nothing on
their own: blank lines, comments, lone brackets and keywords.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence

from patchkeeper.series import filekinds
from patchkeeper.series.model import ADDED, REMOVED, Patch

_SPACE = re.compile(rb"\s+")
_COMMENT_PREFIXES = (b"#", b"//", b"/*", b"* ", b"*/", b'"""', b"'''")
#: In C and C++ a ``#`` line is a preprocessor directive (``#include``, ``#define``, ``#if``):
#: code, not a comment. Only its comments are left out, and the directives that say nothing
#: on their own (``#endif``, ``#else``), as a lone ``}`` is.
_C_COMMENT_PREFIXES = (b"//", b"/*", b"* ", b"*/")
_C_TRIVIAL = frozenset((b"endif", b"else"))
_TRIVIAL = frozenset(
    b.encode()
    for b in (
        "pass",
        "else:",
        "try:",
        "finally:",
        "return",
        "continue",
        "break",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        "),",
        "],",
        "},",
        "):",
        "})",
        "*",
        "-->",
        "end",
        "fi",
        "done",
        "else",
        "}:",
        "@staticmethod",
        "@classmethod",
        "@property",
        "raise",
        "yield",
        "return None",
        "return True",
        "return False",
        "except Exception:",
        "*/",
        ");",
        "};",
    )
)


def normalize(line: bytes) -> bytes:
    """Collapse whitespace runs to one space and strip the ends.

    >>> normalize(b"  x  =\\t1\\r\\n")
    b'x = 1'
    """
    return b" ".join(line.split())


def substantive(line: bytes, language: str = "") -> bytes | None:
    """The normalized line if it says something on its own, else ``None``; ``language`` is
    the file's (:func:`patchkeeper.series.filekinds.language_of`): in C and C++ a ``#`` line
    is a directive, not a comment.

    >>> substantive(b"    # a comment\\n") is None, substantive(b"  )\\n") is None
    (True, True)
    >>> substantive(b"    retries = Retry(3)\\n")
    b'retries = Retry(3)'
    >>> substantive(b"#include <stdint.h>\\n", "c"), substantive(b"#endif\\n", "c") is None
    (b'#include <stdint.h>', True)
    """
    text = normalize(line)
    if len(text) < 3 or text in _TRIVIAL:
        return None
    if language == filekinds.C_FAMILY:
        if text.startswith(_C_COMMENT_PREFIXES):
            return None
        directive = text[1:].split() if text.startswith(b"#") else [b"code"]
        return None if not directive or directive[0] in _C_TRIVIAL else text
    if text.startswith(_COMMENT_PREFIXES):
        return None
    return text


#: ``self.assertX(...)`` as one line, the call and its arguments.
_ASSERT_CALL = re.compile(rb"^self\.(assert[A-Za-z]+)\((.*)\)$")
#: unittest's two-argument assertions and the operator of the plain ``assert`` they mean.
_BINARY_ASSERTS = {
    b"assertEqual": b"==",
    b"assertEquals": b"==",
    b"assertNotEqual": b"!=",
    b"assertIs": b"is",
    b"assertIsNot": b"is not",
    b"assertIn": b"in",
    b"assertNotIn": b"not in",
    b"assertGreater": b">",
    b"assertGreaterEqual": b">=",
    b"assertLess": b"<",
    b"assertLessEqual": b"<=",
}
#: unittest's one-argument assertions: what goes before and after the argument.
_UNARY_ASSERTS = {
    b"assertTrue": (b"", b""),
    b"assertFalse": (b"not ", b""),
    b"assertIsNone": (b"", b" is None"),
    b"assertIsNotNone": (b"", b" is not None"),
}
_OPENING, _CLOSING = b"([{", b")]}"
#: A keyword argument (``msg="..."``), not a comparison (``a == b``).
_KEYWORD = re.compile(rb"^[A-Za-z_]\w*\s*=(?!=)")


def _arguments(text: bytes) -> list[bytes] | None:
    """The top-level comma-separated arguments of a call's inside, stripped; ``None`` when
    brackets or quotes do not balance."""
    out, depth, quote, start = [], 0, 0, 0
    for at, char in enumerate(text):
        if quote:
            if char == quote and text[at - 1] != 0x5C:  # not after a backslash
                quote = 0
        elif char in b"'\"":
            quote = char
        elif char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth -= 1
            if depth < 0:
                return None
        elif char == 0x2C and depth == 0:  # a comma
            out.append(text[start:at].strip())
            start = at + 1
    if depth or quote:
        return None
    out.append(text[start:].strip())
    return out


def plain_assert(text: bytes) -> bytes:
    """A normalized line that is one unittest assertion call read as the plain ``assert``
    it means (a message argument left out), as ``unittest2pytest`` rewrites tests; any
    other line as it is. When upstream converted its tests to pytest, the lines a patch
    added to them are still found (:meth:`FileIndex.find`).

    >>> plain_assert(b"self.assertFalse(mf.images)"), plain_assert(b"self.assertEqual(len(x), 0)")
    (b'assert not mf.images', b'assert len(x) == 0')
    >>> plain_assert(b"self.assertIsNone(f(a, b), 'msg')"), plain_assert(b"x = 1")
    (b'assert f(a, b) is None', b'x = 1')
    """
    match = _ASSERT_CALL.match(text)
    if match is None:
        return text
    name, inside = match.group(1), match.group(2)
    args = _arguments(inside)
    if args is None or any(not arg or _KEYWORD.match(arg) for arg in args[:2]):
        return text
    if name in _UNARY_ASSERTS:
        before, after = _UNARY_ASSERTS[name]
        return b"assert " + before + args[0] + after
    if name in _BINARY_ASSERTS and len(args) >= 2:
        return b"assert " + args[0] + b" " + _BINARY_ASSERTS[name] + b" " + args[1]
    return text


def is_import(line: bytes) -> bool:
    """Whether a line is a Python import statement (``import x``, ``from x import y``).

    >>> is_import(b"from six.moves import queue\\n"), is_import(b"important = 1\\n")
    (True, False)
    """
    text = substantive(line)
    if text is None:
        return False
    return text.startswith(b"import ") or (text.startswith(b"from ") and b" import " in text)


_LETTER = re.compile(rb"[A-Za-z]")


def telling(line: bytes) -> bool:
    """Whether a line tells one file from another: substantive (:func:`substantive`), not an
    import (many modules of one package import the same names) and with at least one letter
    (not a run of brackets such as ``]))``). Blank lines and comments are not substantive.

    >>> telling(b"from pkg.jwa import JWA\\n"), telling(b"    ]))\\n")
    (False, False)
    >>> telling(b"    max_compressed_size = 256 * 1024\\n")
    True
    """
    text = substantive(line)
    return text is not None and not is_import(text) and _LETTER.search(text) is not None


def telling_lines(lines: Iterable[bytes]) -> list[bytes]:
    """The lines of ``lines`` that tell one file from another (:func:`telling`), as they
    are, in order; the names of an import written over several lines (``from x import (``
    up to its ``)``) are imports too.

    >>> telling_lines([b"from pkg import (\\n", b"    server,\\n", b")\\n", b"run(server)\\n"])
    [b'run(server)\\n']
    """
    out = []
    in_import = False
    for line in lines:
        text = normalize(line)
        if in_import:
            in_import = b")" not in text
            continue
        if is_import(line) and text.endswith(b"("):
            in_import = True
            continue
        if telling(line):
            out.append(line)
    return out


#: Lines with fewer distinct telling lines than this (a block of imports) are placed in
#: another file by all their substantive lines (:func:`placing_lines`).
MIN_TELLING_LINES = 2


def placing_lines(lines: Sequence[bytes]) -> tuple[list[bytes], bool]:
    """The lines of ``lines`` that say which file they belong to, as they are, in order: the
    telling ones (:func:`telling_lines`), or all the substantive ones when fewer than
    :data:`MIN_TELLING_LINES` distinct lines tell (a block of imports); and whether it came
    to that. A blank line, a lone brace, ``else:`` or an import many modules share holds in
    any file and places nothing.

    >>> placing_lines([b"import os\\n", b"\\n", b"def run():\\n", b"    return os.sep\\n"])
    ([b'def run():\\n', b'    return os.sep\\n'], False)
    >>> placing_lines([b"import os\\n", b"import sys\\n"])
    ([b'import os\\n', b'import sys\\n'], True)
    """
    told = telling_lines(lines)
    if len({line.strip() for line in told}) >= MIN_TELLING_LINES:
        return told, False
    return [line for line in lines if substantive(line) is not None], True


def substantive_lines(lines: Iterable[bytes], language: str = "") -> list[bytes]:
    """The substantive lines of ``lines``, normalized, in order (``language``: as
    :func:`substantive`)."""
    out = []
    for line in lines:
        text = substantive(line, language)
        if text is not None:
            out.append(text)
    return out


def added_by_path(patch: Patch) -> dict[str, list[bytes]]:
    """The patch's substantive added lines, per path it writes."""
    return _lines_by_path(patch, ADDED)


def removed_by_path(patch: Patch) -> dict[str, list[bytes]]:
    """The patch's substantive removed lines, per path it reads."""
    return _lines_by_path(patch, REMOVED)


def _lines_by_path(patch: Patch, kind: str) -> dict[str, list[bytes]]:
    """The patch's substantive lines of ``kind`` (added: per new path; removed: per old
    path), leaving out the files that have none."""
    out: dict[str, list[bytes]] = {}
    for diff in patch.files:
        path = diff.new_path if kind == ADDED else diff.old_path
        if path is None:
            continue
        lines = [line.text for hunk in diff.hunks for line in hunk.lines if line.kind == kind]
        found = substantive_lines(lines, filekinds.language_of(path))
        if found:
            out.setdefault(path, []).extend(found)
    return out


def contains_in_order(haystack: list[bytes], needles: list[bytes]) -> list[int] | None:
    """0-based positions of ``needles`` found in order in ``haystack``, or ``None``.

    >>> contains_in_order([b"a", b"x", b"b"], [b"a", b"b"])
    [0, 2]
    >>> contains_in_order([b"b", b"a"], [b"a", b"b"]) is None
    True
    """
    positions = []
    start = 0
    for needle in needles:
        try:
            index = haystack.index(needle, start)
        except ValueError:
            return None
        positions.append(index)
        start = index + 1
    return positions


# --------------------------------------------------------------------------- reformatting

#: Tokens of a line: names, numbers, string literals (one line), any other character.
_TOKEN = re.compile(
    rb"""[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\S"""
)
_CLOSERS = frozenset((b")", b"]", b"}"))
_SEP = b"\x00"
#: Needles with fewer tokens must match whole lines (``x = 1`` is inside ``y.x = 1``).
MIN_FRAGMENT_TOKENS = 4


#: A hexadecimal escape in a string literal: ``\x0B`` and ``\x0b`` are the same character.
_HEX_ESCAPE = re.compile(rb"(?<!\\)((?:\\\\)*\\x)([0-9A-Fa-f]{2})")


def _raw_tokens(line: bytes) -> list[bytes]:
    found = _TOKEN.findall(line)
    if b"#" in line or b"'" in line or b'"' in line:
        found = _quoted(found)
    if b"Optional" in line or b"List" in line or b"Dict" in line:
        return _modern_typing(found)
    return found


def _quoted(found: list[bytes]) -> list[bytes]:
    """Tokens of a line with a string or a comment: strings double-quoted, hexadecimal
    escapes lower case, a ``u`` prefix dropped, a comment cut."""
    out: list[bytes] = []
    for token in found:
        if token == b"#":
            break
        if len(token) >= 2 and token[:1] == token[-1:] == b"'" and b'"' not in token:
            token = b'"' + token[1:-1] + b'"'
        elif token == b"'":
            token = b'"'
        if token[:1] == b'"' and b"\\x" in token:
            token = _HEX_ESCAPE.sub(lambda m: m.group(1) + m.group(2).lower(), token)
        if token[:1] == b'"' and out and out[-1] in (b"u", b"U"):
            out.pop()  # Python 2's unicode prefix: the same string in Python 3
        out.append(token)
    return out


#: PEP 585 builtin generics: ``List[int]`` is written ``list[int]`` since Python 3.9.
_BUILTIN_GENERICS = {b"List": b"list", b"Dict": b"dict", b"Set": b"set", b"Tuple": b"tuple",
                     b"FrozenSet": b"frozenset", b"Type": b"type"}  # fmt: skip
_TYPING_MODULES = frozenset({b"t", b"typing", b"typ"})


def _modern_typing(toks: list[bytes]) -> list[bytes]:
    """Annotations as PEP 604 and PEP 585 write them, so that an upgrade of the annotation
    style is not a difference: ``t.Optional[int]`` -> ``int | None``, ``typing.List[str]``
    -> ``list[str]`` (a one-token argument only; longer ones are left as they are).

    >>> b" ".join(_modern_typing(_raw_tokens(b"x: t.Optional[int] = f(List[str])")))
    b'x : int | None = f ( list [ str ] )'
    """
    out: list[bytes] = []
    i = 0
    while i < len(toks):
        token = toks[i]
        name = token
        skip = 0
        if token in _TYPING_MODULES and toks[i + 1 : i + 2] == [b"."] and i + 2 < len(toks):
            name, skip = toks[i + 2], 2
        if (
            name == b"Optional"
            and toks[i + skip + 1 : i + skip + 2] == [b"["]
            and toks[i + skip + 3 : i + skip + 4] == [b"]"]
        ):
            out.extend((toks[i + skip + 2], b"|", b"None"))
            i += skip + 4
            continue
        if name in _BUILTIN_GENERICS and toks[i + skip + 1 : i + skip + 2] == [b"["]:
            out.append(_BUILTIN_GENERICS[name])
            i += skip + 1
            continue
        out.append(token)
        i += 1
    return out


def _drop_commas(toks: list[bytes]) -> list[bytes]:
    """Drop commas before a closing bracket (black's magic trailing comma)."""
    return [
        token
        for i, token in enumerate(toks)
        if not (token == b"," and i + 1 < len(toks) and toks[i + 1] in _CLOSERS)
    ]


def tokens(line: bytes) -> list[bytes]:
    """The line's tokens, normalized so that a reformatted line gives the same ones.

    String literals are double-quoted when that needs no escape (black's quote rule), their
    hexadecimal escapes lower case (``\\x0B`` is ``\\x0b``: the same character), without
    Python 2's ``u`` prefix, a ``#``
    outside a string ends the line (a comment), a comma before a closing bracket or at the
    end of the line is dropped.

    >>> tokens(b"  raise E('no path',)  # why\\n")
    [b'raise', b'E', b'(', b'"no path"', b')']
    """
    out = _drop_commas(_raw_tokens(line))
    while out and out[-1] == b",":
        out.pop()
    return out


class FileIndex:
    """Where substantive lines occur in one file, exactly or reformatted.

    A line is *in* the file when its normalized text is one of the file's lines, or when its
    tokens (:func:`tokens`) occur in the file's token stream: spread over whole lines (black
    split it), or, for a line of at least :data:`MIN_FRAGMENT_TOKENS` tokens, anywhere (the
    backport split what upstream wrote on one line).

    Args:
        lines: the file's lines.
    """

    def __init__(self, lines: Sequence[bytes]) -> None:
        self._lines = lines
        self._raw = b"".join(lines)
        self._line_set: set[bytes] | None = None
        self._built = False

    @property
    def line_set(self) -> set[bytes]:
        """The file's lines, normalized (built on first use): a substantive line is in it
        exactly when the file has it as a whole line (the other lines, never asked for, are
        not sorted out)."""
        if self._line_set is None:
            self._line_set = {b" ".join(line.split()) for line in self._lines}
        return self._line_set

    def _build(self) -> None:
        """The token stream, built on the first search whose words are all in the file."""
        if self._built:
            return
        self._built = True
        stream: list[bytes] = []
        owner: list[int] = []
        for number, line in enumerate(self._lines):
            toks = _raw_tokens(line)
            stream.extend(toks)
            owner.extend([number] * len(toks))
        keep = [
            i
            for i, token in enumerate(stream)
            if not (token == b"," and i + 1 < len(stream) and stream[i + 1] in _CLOSERS)
        ]
        self._tokens = [stream[i] for i in keep]
        self._line_of = [owner[i] for i in keep]
        self._offsets: list[int] = []
        position = 1
        for token in self._tokens:
            self._offsets.append(position)
            position += len(token) + 1
        self._data = _SEP + _SEP.join(self._tokens) + _SEP

    def _may_hold(self, toks: list[bytes]) -> bool:
        """A quick necessary test: every word and string body of ``toks`` occurs in the
        file's bytes (tokenizing the file is the expensive part)."""
        for token in toks:
            body = token[1:-1] if token[:1] == b'"' else token
            if len(body) >= 3 and body not in self._raw:
                return False
        return True

    def _ends_line(self, k: int) -> bool:
        return k + 1 == len(self._tokens) or self._line_of[k + 1] != self._line_of[k]

    def _whole_lines(self, first: int, last: int) -> bool:
        """Whether tokens ``first..last`` are whole lines (a trailing comma may follow)."""
        starts = first == 0 or self._line_of[first - 1] != self._line_of[first]
        if self._ends_line(last):
            return starts
        return starts and self._tokens[last + 1] == b"," and self._ends_line(last + 1)

    def _find_whole(self, needle: bytes, after: int) -> int | None:
        """The first 0-based line after ``after`` that is ``needle`` once normalized."""
        for number in range(after + 1, len(self._lines)):
            if normalize(self._lines[number]) == needle:
                return number
        return None

    def find(self, needle: bytes, after: int = -1) -> int | None:
        """The first 0-based line at or after ``after + 1`` where ``needle`` starts; a
        unittest assertion call is also found as the plain ``assert`` it means
        (:func:`plain_assert`), as upstream writes it once its tests moved to pytest."""
        found = self._find(needle, after)
        if found is None:
            plain = plain_assert(needle)
            if plain != needle:
                return self._find(plain, after)
        return found

    def _find(self, needle: bytes, after: int = -1) -> int | None:
        """:meth:`find` for ``needle`` as it is."""
        toks = tokens(needle)
        if not toks:
            # no tokens outside a comment: a C directive (``#include <x.h>``), found only
            # as that whole line
            return self._find_whole(needle, after) if needle in self.line_set else None
        if not self._may_hold(toks):
            return None
        self._build()
        whole = len(toks) < MIN_FRAGMENT_TOKENS
        key = _SEP + _SEP.join(toks) + _SEP
        k = bisect.bisect_right(self._line_of, after)
        start = self._offsets[k] - 1 if k < len(self._offsets) else len(self._data)
        while True:
            found = self._data.find(key, start)
            if found == -1:
                return None
            first = bisect.bisect_left(self._offsets, found + 1)
            if not whole or self._whole_lines(first, first + len(toks) - 1):
                return self._line_of[first]
            start = found + 1

    def has(self, needle: bytes) -> bool:
        """Whether ``needle`` (a normalized substantive line) is in the file."""
        return needle in self.line_set or self.find(needle) is not None

    def find_in_order(self, needles: list[bytes], span: int, after: int = -1) -> list[int] | None:
        """0-based lines where ``needles`` occur in order, all within ``span`` lines of the
        first, the first after line ``after``, or ``None``. Each occurrence of the first
        needle is tried in turn (up to 64)."""
        if not needles:
            return None
        anchor = after
        for _ in range(64):
            first = self.find(needles[0], anchor)
            if first is None:
                return None
            positions = [first]
            for needle in needles[1:]:
                found = self.find(needle, positions[-1] - 1)
                if found is None or found - first > span:
                    break
                positions.append(found)
            else:
                return positions
            anchor = first
        return None


_INDEXES: dict[int, tuple[Sequence[bytes], FileIndex]] = {}


def file_index(lines: Sequence[bytes]) -> FileIndex:
    """The :class:`FileIndex` of ``lines``, cached: by content for a tuple (the old pin's
    file and the new release's, when equal, share one; so do the pin lines joined anew for
    each hunk), else while the same sequence object lives."""
    key = hash(lines) if isinstance(lines, tuple) else id(lines)
    cached = _INDEXES.get(key)
    if cached is not None and (
        cached[0] is lines or (isinstance(lines, tuple) and cached[0] == lines)
    ):
        return cached[1]
    if len(_INDEXES) > 512:
        _INDEXES.clear()
    index = FileIndex(lines)
    _INDEXES[key] = (lines, index)
    return index


# --------------------------------------------------------------------------- kinds of file
# The kinds live in :mod:`patchkeeper.series.filekinds`; these names are kept for callers.

is_test = filekinds.is_test


def is_doc(path: str) -> bool:
    """Whether ``path`` is documentation or release notes (:mod:`patchkeeper.series.filekinds`).

    >>> is_doc("docs/ref/utils.txt"), is_doc("changelog/3433.bugfix.rst"), is_doc("a/b.py")
    (True, True, False)
    """
    return filekinds.kind_of(path) in (filekinds.DOCS, filekinds.NOTES)


def is_code(path: str) -> bool:
    """Neither tests, documentation, release notes nor configuration: the files whose change
    *is* the fix."""
    return filekinds.kind_of(path) == filekinds.CODE
