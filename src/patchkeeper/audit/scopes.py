"""The function or class a Python line belongs to: where a patch's added lines must be found.

A line a patch adds to ``connect()`` proves the fix upstream when the new release has it in
``connect()``, or in code upstream wrote since the pin (a helper the fix moved to), or when
``connect()`` itself is gone (renamed, moved: the place cannot be told). The same line in
``listen()``, a function the old pin had and the new release still has beside ``connect()``,
is another function's code: upstream made that change there, not the patch's. The scope is
read by indentation, as Python writes it: the nearest line before, indented less, that
starts a ``def`` or ``class``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from patchkeeper.series.model import ADDED, REMOVED, Hunk

#: A line that starts a ``def`` or ``class``, its name the group.
DEFINES = re.compile(rb"^\s*(?:async\s+def|def|class)\s+([A-Za-z_]\w*)")


def statement_indent(line: bytes) -> int | None:
    """The indentation of a line that starts a statement, or ``None``: a blank line, a
    comment, or a line that closes brackets (the end of a ``def``'s signature written over
    several lines, ``):``, is indented less than its body but holds no scope of its own)."""
    text = line.expandtabs(8)
    stripped = text.lstrip()
    if not stripped.strip() or stripped.startswith((b"#", b")", b"]", b"}")):
        return None
    return len(text) - len(stripped)


def scope_of(line: bytes, before: Iterable[bytes]) -> str | None:
    """The name of the innermost ``def`` or ``class`` holding ``line``, read from the lines
    ``before`` it (nearest first), or ``None`` at module level or when it cannot be told.

    >>> scope_of(b"        return 1\\n", [b"    if x:\\n", b"def f(x):\\n", b"import os\\n"])
    'f'
    >>> scope_of(b"x = 1\\n", [b"def f():\\n"]) is None
    True
    """
    level = statement_indent(line)
    if level is None:
        return None
    for earlier in before:
        indent = statement_indent(earlier)
        if indent is None or indent >= level:
            continue
        match = DEFINES.match(earlier)
        if match:
            return match.group(1).decode("utf-8", "replace")
        if indent == 0:
            return None
        level = indent
    return None


def defined_names(lines: Sequence[bytes]) -> frozenset[str]:
    """The names every ``def`` and ``class`` of ``lines`` defines.

    >>> sorted(defined_names([b"class A:\\n", b"    async def run(self):\\n", b"x = 1\\n"]))
    ['A', 'run']
    """
    found = (DEFINES.match(line) for line in lines)
    return frozenset(m.group(1).decode("utf-8", "replace") for m in found if m)


def added_scopes(hunk: Hunk, pin: Sequence[bytes] | None) -> list[str | None]:
    """The scope (:func:`scope_of`) of each of ``hunk``'s added lines, in order: read from
    the hunk's lines before it (its context and earlier added lines), then from the old
    pin's file ``pin`` above the hunk (``None`` without it: from the hunk alone)."""
    out: list[str | None] = []
    seen: list[bytes] = []
    above: Sequence[bytes] = ()
    if pin is not None:
        start = max(0, min(hunk.old_start - 1, len(pin)))
        above = pin[:start]
    for line in hunk.lines:
        if line.kind == ADDED:
            out.append(scope_of(line.text, [*reversed(seen), *reversed(above)]))
        if line.kind != REMOVED:
            seen.append(line.text)
    return out


def line_scope(lines: Sequence[bytes], number: int) -> str | None:
    """The scope (:func:`scope_of`) of the 0-based line ``number`` of ``lines``."""
    return scope_of(lines[number], (lines[i] for i in range(number - 1, -1, -1)))
