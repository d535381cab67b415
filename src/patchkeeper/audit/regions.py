"""How much upstream rewrote the function a failing hunk edits, between the pin and the release.

A hunk fails at fuzz 0 because the lines it expects changed. Whether they changed a little
(a renamed variable beside the hunk) or upstream rewrote the whole function the hunk edits
is a fact the two trees tell without the patch's own added lines: the function that holds
the hunk's first changed line in the old pin's file, found again by its name in the new
release's file, compared line by line. Two figures come out, for each failing hunk:

- how many of the function's lines at the pin the new release no longer has in it, in
  order (:class:`difflib.SequenceMatcher` on whitespace-normalized lines): *changed*;
- how many of the hunk's substantive pre-image lines (context and removed) that the
  function held at the pin it still holds: *left* (of a function the new file no longer
  defines, *gone*, how many the new file holds anywhere: its code may have moved).

A function is read the way ``git diff`` names a hunk's section: in Python, the nearest
``def`` or ``class`` indented less than the line (:mod:`patchkeeper.audit.scopes`), to the
first line indented no deeper than it; in other languages, the nearest line above that
starts at column 0 with a name followed by ``(`` (``static int parse(char *s)``), to the
first ``}`` at column 0 (C and C++). A hunk outside any function (between functions, at
module level) or in a file of another language has no figures. A function the new file no
longer defines is *gone*.

What the new release's file tells (the functions it defines, each one's lines, the code it
holds anywhere) is read once per file (:class:`_NewFile`, kept per content in a bounded
cache), not again for each failing hunk of each patch that edits it: a conflict's evidence
reads it for every failing hunk, and many of them fall in the same few files.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from patchkeeper.audit.scopes import DEFINES, statement_indent
from patchkeeper.series.filekinds import C_FAMILY, PYTHON, language_of
from patchkeeper.series.hunks import locate
from patchkeeper.series.model import ADDED, REMOVED, Hunk
from patchkeeper.series.substantive_lines import normalize, substantive
from patchkeeper.system.english import plural

#: A line that starts a C or C++ function: at column 0, a name followed by ``(``, not a
#: declaration (``;``).
_HEADER = re.compile(rb"^[A-Za-z_$][^;{=]*?\b([A-Za-z_]\w*)\s*\(")
#: Words a line at column 0 may start with that open no function.
_NOT_NAMES = frozenset({b"if", b"while", b"for", b"switch", b"return", b"sizeof", b"else"})
#: A function longer than this is not compared (a whole module read as one class).
MAX_LINES = 3000


@dataclass(frozen=True)
class Region:
    """The function a failing hunk edits, at the pin and in the new release.

    Attributes:
        name: the function's (or class's) name.
        size: its normalized non-blank lines at the pin.
        changed: how many of those the new release's function does not keep, in order
            (``size`` when it is gone).
        total: the hunk's substantive pre-image lines (context and removed) the function
            holds at the pin.
        left: how many of those the new release's function holds (when it is gone: the new
            release's file, anywhere).
        gone: the new release's file no longer defines a function of that name.
        added: how many lines the new release's function has that it did not have at the
            pin (in order, as ``changed`` counts the other way): code upstream put in
            beside the lines it kept, so a hunk can fail where no line of the pin changed.
    """

    name: str
    size: int
    changed: int
    total: int
    left: int
    gone: bool = False
    added: int = 0

    @property
    def changed_share(self) -> float:
        """The share of the function's lines at the pin that changed."""
        return self.changed / self.size if self.size else 0.0

    @property
    def left_share(self) -> float:
        """The share of the hunk's pre-image lines the new function holds."""
        return self.left / self.total if self.total else 0.0


def _python_start(lines: Sequence[bytes], anchor: bytes, before: int) -> int | None:
    """The index of the ``def`` or ``class`` holding ``anchor``, read from ``lines[:before]``
    upwards by indentation (:func:`patchkeeper.audit.scopes.scope_of`), or ``None``."""
    level = statement_indent(anchor)
    if level is None:
        return None
    for index in range(min(before, len(lines)) - 1, -1, -1):
        indent = statement_indent(lines[index])
        if indent is None or indent >= level:
            continue
        if DEFINES.match(lines[index]):
            return index
        if indent == 0:
            return None
        level = indent
    return None


def _python_end(lines: Sequence[bytes], start: int) -> int:
    """The index after the last line of the ``def`` or ``class`` at ``start``: the first
    statement indented no deeper than it, or the end of the file."""
    level = statement_indent(lines[start]) or 0
    for index in range(start + 1, len(lines)):
        indent = statement_indent(lines[index])
        if indent is not None and indent <= level:
            return index
    return len(lines)


def _header_name(line: bytes) -> str | None:
    """The name of the function ``line`` starts (:data:`_HEADER`), or ``None``."""
    text = line.rstrip()
    if text.endswith(b";"):
        return None
    match = _HEADER.match(text)
    if match is None or text.split(None, 1)[0].split(b"(")[0] in _NOT_NAMES:
        return None
    return match.group(1).decode("utf-8", "replace")


def _braced_end(lines: Sequence[bytes], start: int) -> int:
    """The index after the first ``}`` at column 0 after ``start``, else the next function
    header or the end of the file."""
    for index in range(start + 1, len(lines)):
        if lines[index].startswith(b"}"):
            return index + 1
        if _header_name(lines[index]) is not None:
            return index
    return len(lines)


def _braced_start(lines: Sequence[bytes], upto: int) -> int | None:
    """The index of the function header at or above ``lines[upto]``, or ``None`` when a
    ``}`` at column 0 (the end of the function before) comes first."""
    for index in range(min(upto, len(lines) - 1), -1, -1):
        if _header_name(lines[index]) is not None:
            return index
        if lines[index].startswith(b"}") and index < upto:
            return None
    return None


def _span(lines: Sequence[bytes], start: int, python: bool) -> tuple[int, int]:
    end = _python_end(lines, start) if python else _braced_end(lines, start)
    return start, end


def _defined_name(line: bytes, python: bool) -> str | None:
    """The name of the function (or class) ``line`` starts, or ``None``."""
    if python:
        match = DEFINES.match(line)
        return match.group(1).decode("utf-8", "replace") if match is not None else None
    return _header_name(line)


def _normalized(lines: Sequence[bytes]) -> list[bytes]:
    return [text for text in map(normalize, lines) if text]


def _pin_function(
    pin: Sequence[bytes], hunk: Hunk, python: bool
) -> tuple[str, tuple[int, int]] | None:
    """The name and ``(start, end)`` line indexes at the pin of the function holding
    ``hunk``'s first changed line, or ``None``."""
    at = locate(pin, hunk)
    start = (at if at is not None else max(hunk.old_start, 1)) - 1
    changes = [i for i, line in enumerate(hunk.lines) if line.kind in (ADDED, REMOVED)]
    # the first changed statement: a comment or blank line tells no indentation
    changed = next((i for i in changes if statement_indent(hunk.lines[i].text) is not None), None)
    if changed is None:
        return None
    before = start + sum(1 for line in hunk.lines[:changed] if line.kind != ADDED)
    anchor = hunk.lines[changed]
    if python:
        first = _python_start(pin, anchor.text, before)
    else:
        first = _braced_start(pin, before if anchor.kind == REMOVED else before - 1)
    if first is None:
        return None
    span = _span(pin, first, python)
    if not python and span[1] <= before:
        return None  # the hunk is past the function's closing brace: between functions
    name = DEFINES.match(pin[first]) if python else None
    text = name.group(1).decode("utf-8", "replace") if name else _header_name(pin[first])
    return (text, span) if text else None


class _NewFile:
    """The new release's file as :func:`hunk_region` reads it, each fact read on first use
    and kept: the lines that start each function name (:meth:`starts`), each function's
    normalized lines and code (:meth:`function`), the code of the whole file (:meth:`code`).
    """

    __slots__ = ("_code", "_functions", "_starts", "language", "lines", "python")

    def __init__(self, lines: Sequence[bytes], language: str) -> None:
        self.lines = lines
        self.language = language
        self.python = language == PYTHON
        self._starts: dict[str, list[int]] | None = None
        self._functions: dict[int, tuple[list[bytes], Counter[bytes]] | None] = {}
        self._code: Counter[bytes] | None = None

    def starts(self, name: str) -> list[int]:
        """The indexes of the lines that start a function (or class) ``name``, in order."""
        starts = self._starts
        if starts is None:
            starts = self._starts = {}
            for index, line in enumerate(self.lines):
                found = _defined_name(line, self.python)
                if found is not None:
                    starts.setdefault(found, []).append(index)
        return starts.get(name, [])

    def function(self, index: int) -> tuple[list[bytes], Counter[bytes]] | None:
        """The normalized lines of the function that starts at ``index``, and the count of
        its substantive lines; ``None`` when it is longer than :data:`MAX_LINES`."""
        if index not in self._functions:
            first, last = _span(self.lines, index, self.python)
            self._functions[index] = (
                None if last - first > MAX_LINES else self._read(self.lines[first:last])
            )
        return self._functions[index]

    def code(self) -> Counter[bytes]:
        """The count of the file's substantive lines, wherever they are."""
        if self._code is None:
            self._code = self._substantive(self.lines)
        return self._code

    def _read(self, lines: Sequence[bytes]) -> tuple[list[bytes], Counter[bytes]]:
        return _normalized(lines), self._substantive(lines)

    def _substantive(self, lines: Sequence[bytes]) -> Counter[bytes]:
        language = self.language
        return Counter(text for line in lines if (text := substantive(line, language)) is not None)


#: How many new files' readings :func:`_new_file` keeps. The files a series' failing hunks
#: fall in are few, and the bound keeps a long-running process (the MCP server) from holding
#: every file it ever read.
NEW_FILES_KEPT = 256


@functools.lru_cache(maxsize=NEW_FILES_KEPT)
def _new_file(lines: tuple[bytes, ...], language: str) -> _NewFile:
    """The :class:`_NewFile` of ``lines``, made once per content: the same file of the
    workspace is read again for each failing hunk of each patch that edits it, and no
    object that outlives one patch's judgement reaches this module to own the readings.
    The cache is keyed by the content itself, so a file the series changed since is
    another entry, never a stale one; the least recently used is dropped first."""
    return _NewFile(lines, language)


def hunk_region(path: str, hunk: Hunk, pin: Sequence[bytes], new: Sequence[bytes]) -> Region | None:
    """The :class:`Region` of ``hunk`` of file ``path``: ``pin`` is the file at the old pin,
    ``new`` in the new release; ``None`` when the hunk edits no function, or the hunk has
    no substantive pre-image line."""
    language = language_of(path)
    if language not in (PYTHON, C_FAMILY):
        return None
    python = language == PYTHON
    found = _pin_function(pin, hunk, python)
    if found is None:
        return None
    name, (start, end) = found
    if end - start > MAX_LINES:
        return None
    old = _normalized(pin[start:end])
    pre = [
        text
        for line in hunk.lines
        if line.kind != ADDED and (text := substantive(line.text, language)) is not None
    ]
    held = Counter(text for line in pin[start:end] if (text := substantive(line, language)))
    pre = [text for text in pre if _take(held, text)]
    if not old or not pre:
        return None
    release = _new_file(tuple(new), language)
    best: tuple[float, list[bytes], Counter[bytes]] | None = None
    for index in release.starts(name):
        function = release.function(index)
        if function is None:
            continue
        lines, code = function
        ratio = SequenceMatcher(None, old, lines, autojunk=False).ratio()
        if best is None or ratio > best[0]:
            best = (ratio, lines, code)
    if best is None:
        # the code may have moved to another function of the file: its lines are read there
        there = Counter(release.code())
        left = sum(1 for text in pre if _take(there, text))
        return Region(name, len(old), len(old), len(pre), left, gone=True)
    matcher = SequenceMatcher(None, old, best[1], autojunk=False)
    kept = sum(block.size for block in matcher.get_matching_blocks())
    there = Counter(best[2])
    left = sum(1 for text in pre if _take(there, text))
    return Region(name, len(old), len(old) - kept, len(pre), left, added=len(best[1]) - kept)


def _take(counts: Counter[bytes], text: bytes) -> bool:
    """Take one ``text`` out of ``counts``: whether there was one."""
    if counts[text] <= 0:
        return False
    counts[text] -= 1
    return True


def region_text(named: Sequence[tuple[str, Region]]) -> str:
    """The facts of each failing hunk's :class:`Region`, ``named`` by the hunk:
    ``"since the pin, upstream changed 14 of the 20 lines of `parse` (a.c #2), where 3 of
    the hunk's 9 lines are left"``; ``""`` without any."""
    parts = []
    for ref, region in named:
        if region.gone:
            parts.append(
                f"`{region.name}` ({ref}) is gone from the file, which holds {region.left} "
                f"of the hunk's {plural(region.total, 'line')}"
            )
        else:
            # "0 of the 55 lines changed" alone reads as "upstream left it alone", where
            # a hunk failing in it says otherwise: the lines upstream put in are named then
            added = f" (but {region.added} added)" if region.added and not region.changed else ""
            parts.append(
                f"{region.changed} of the {plural(region.size, 'line')} of `{region.name}` "
                f"({ref}) changed{added}, {region.left} of the hunk's "
                f"{plural(region.total, 'line')} left there"
            )
    if not parts:
        return ""
    return "since the pin, " + "; ".join(parts)
