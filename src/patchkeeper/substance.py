"""Substantive lines: what of a patch's change can be searched for in another tree.

A backport is often written differently from the upstream fix, reformatted or moved, so the
search compares normalized lines (whitespace collapsed) and ignores lines that say nothing on
their own: blank lines, comments, lone brackets and keywords.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from patchkeeper.model import ADDED, REMOVED, Patch

_SPACE = re.compile(rb"\s+")
_COMMENT_PREFIXES = (b"#", b"//", b"/*", b"* ", b"*/", b'"""', b"'''")
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
    return _SPACE.sub(b" ", line).strip()


def substantive(line: bytes) -> bytes | None:
    """The normalized line if it says something on its own, else ``None``.

    >>> substantive(b"    # a comment\\n") is None, substantive(b"  )\\n") is None
    (True, True)
    >>> substantive(b"    retries = Retry(3)\\n")
    b'retries = Retry(3)'
    """
    text = normalize(line)
    if len(text) < 3 or text in _TRIVIAL or text.startswith(_COMMENT_PREFIXES):
        return None
    return text


def substantive_lines(lines: Iterable[bytes]) -> list[bytes]:
    """The substantive lines of ``lines``, normalized, in order."""
    out = []
    for line in lines:
        text = substantive(line)
        if text is not None:
            out.append(text)
    return out


def added_by_path(patch: Patch) -> dict[str, list[bytes]]:
    """The patch's substantive added lines, per path it writes."""
    out: dict[str, list[bytes]] = {}
    for diff in patch.files:
        if diff.new_path is None:
            continue
        lines = [line.text for hunk in diff.hunks for line in hunk.lines if line.kind == ADDED]
        found = substantive_lines(lines)
        if found:
            out.setdefault(diff.new_path, []).extend(found)
    return out


def removed_by_path(patch: Patch) -> dict[str, list[bytes]]:
    """The patch's substantive removed lines, per path it reads."""
    out: dict[str, list[bytes]] = {}
    for diff in patch.files:
        if diff.old_path is None:
            continue
        lines = [line.text for hunk in diff.hunks for line in hunk.lines if line.kind == REMOVED]
        found = substantive_lines(lines)
        if found:
            out.setdefault(diff.old_path, []).extend(found)
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
