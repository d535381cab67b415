"""Settle the conflicts of a copy's merge that are only a difference of layout.

A plugin's copy of an upstream function is formatted by the plugin's own formatter (a
longer line length, other wrapping, trailing commas), so ``git merge-file`` marks a
conflict where the plugin and upstream wrote the same code differently. The commonest
case: the maintainers already took the upstream change into their copy (from upstream's
development branch, before the release), and upstream wrapped the same lines otherwise.

:func:`settle` merges the three sides of each conflict region of a diff3-style merge
(``<<<<<<<`` new upstream, ``|||||||`` old upstream, ``=======`` plugin, ``>>>>>>>``) again
with ``git merge-file``, one *logical* line per line (a statement wrapped over several
physical lines is one), each compared as its indentation and its syntax tree with its
comments when it parses on its own (so parentheses a formatter adds or drops around a long
expression are layout), else its Python tokens (:mod:`tokenize`) without line breaks and
without a comma just before a closing bracket (comments count: a plugin's ``Modification``
banner is never dropped). So a line both sides
changed the same way is one line, a line only reformatted on one side is unchanged there,
and the region is settled when that second merge is clean: each logical line is written as
the plugin wrote it when the plugin has it, else as upstream wrote it. A region whose second
merge conflicts too stays as git marked it.
"""

from __future__ import annotations

import ast
import io
import tempfile
import tokenize
from collections import Counter
from pathlib import Path

from patchkeeper.port.merge import Labels, merge_file

_SKIP = {
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}
_CLOSERS = {")", "]", "}"}


def words(lines: list[str]) -> tuple[str, ...] | None:
    """The Python tokens of ``lines`` without layout: every line's indentation, line
    breaks and a comma just before a closing bracket left out, each comment's spaces
    collapsed; ``None``
    when the lines do not tokenize (an unterminated string inside them)."""
    text = "".join(line.lstrip(" \t") for line in lines)
    found: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                found.append(" ".join(token.string.split()))
            elif token.type not in _SKIP:
                found.append(token.string)
    except tokenize.TokenError as exc:
        if "multi-line string" in str(exc):
            return None
        # an unclosed bracket at the end of a region: every token was read
    except (IndentationError, SyntaxError):
        return None
    return tuple(
        t
        for i, t in enumerate(found)
        if not (t == "," and (i + 1 == len(found) or found[i + 1] in _CLOSERS))
    )


def _logical(lines: list[str]) -> list[tuple[str, list[str]]] | None:
    """``lines`` cut into logical lines (a statement over several physical lines is one),
    each with its key: the indentation of its first line and its :func:`words`; ``None``
    when they do not tokenize."""
    text = "".join(line.lstrip(" \t") for line in lines)
    ends: list[int] = []
    depth = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in _CLOSERS:
                depth = max(depth - 1, 0)
            elif token.type == tokenize.NEWLINE or (token.type == tokenize.NL and depth == 0):
                ends.append(token.end[0])
    except tokenize.TokenError as exc:
        if "multi-line string" in str(exc):
            return None
    except (IndentationError, SyntaxError):
        return None
    out, first = [], 0
    for end in [*ends, len(lines)]:
        if end <= first:
            continue
        group = lines[first:end]
        found = words(group)
        if found is None:
            return None
        head = group[0]
        key = _syntax_key(group, found) or " ".join(found)
        out.append((head[: len(head) - len(head.lstrip(" \t"))] + key, group))
        first = end
    return out


def _syntax_key(group: list[str], found: tuple[str, ...]) -> str:
    """The key of a logical line that parses as Python on its own: its syntax tree
    (``ast.dump``: parentheses that only wrap an expression, as a formatter adds or drops
    them around a long line, are layout too) and its comments; ``""`` when it does not
    parse alone (a block's header such as ``else:``, a statement cut by the region's end).

    >>> wrapped = _syntax_key(["x = (\\n", "    a and b\\n", ")\\n"], ())
    >>> wrapped == _syntax_key(["x = a and b\\n"], ())
    True
    """
    text = "".join(line.lstrip(" \t") for line in group)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return ""
    if not tree.body:
        return ""
    comments = [t for t in found if t.startswith("#")]
    return " ".join([ast.dump(tree), *comments])


def _side(new: list[str], old: list[str], mine: list[str], scratch: Path) -> list[str] | None:
    """The lines that settle one region, or ``None`` (a true conflict): the three sides
    merged again one logical line per line, compared by :func:`words` (the plugin's
    layout kept for each logical line it has, upstream's for the others)."""
    a, b, c = (_logical(side) for side in (new, old, mine))
    if a is None or b is None or c is None:
        return None
    layout: dict[str, list[str]] = {}
    for key, group in [*c, *a]:
        layout.setdefault(key, group)
    keys = ["".join(f"{key}\n" for key, _group in side).encode() for side in (b, c, a)]
    merged, conflicts = merge_file(keys[0], keys[1], keys[2], Labels("n", "o", "p"), scratch)
    if conflicts:
        return None
    out: list[str] = []
    for key in merged.decode().splitlines():
        out += layout[key]
    return out


def _keys(lines: list[str]) -> Counter[str] | None:
    """The logical lines of ``lines`` as :func:`words` keys without indentation, blank and
    comment-only lines left out (a count of each)."""
    found = _logical(lines)
    if found is None:
        return None
    keys = (key.lstrip(" \t") for key, _group in found)
    return Counter(k for k in keys if k and not k.startswith("#"))


def has_change(old: list[str], new: list[str], mine: list[str]) -> bool:
    """Whether the copy ``mine`` already has the upstream change from ``old`` to ``new``
    (three lists of source lines): it holds every logical line upstream added, at least
    as often as the new upstream does, and no logical line upstream deleted more often
    than the new upstream does, layout aside (:func:`words`). The plugin took the change
    itself (from upstream's development branch): merging it again would add it twice."""
    before, after, copy = _keys(old), _keys(new), _keys(mine)
    if before is None or after is None or copy is None:
        return False
    added, deleted = after - before, before - after
    if not added and not deleted:
        return False
    return all(copy[k] >= after[k] for k in added) and all(copy[k] <= after[k] for k in deleted)


def kept_share(old: list[str], mine: list[str]) -> float:
    """The share (0.0 to 1.0) of the logical lines of ``old`` (source lines of an upstream
    definition; blank and comment-only lines aside, layout aside: :func:`words`) that
    ``mine`` (the plugin's definition) has too, each counted at most as often as ``mine``
    has it; 0.0 when either does not tokenize or ``old`` has no such line.

    >>> kept_share(["def f(x):\\n", "    y = g(x)\\n", "    return y\\n"],
    ...            ["def f(x):\\n", "    return super().f(x)\\n"])
    0.3333333333333333
    """
    before, copy = _keys(old), _keys(mine)
    if not before or copy is None:
        return 0.0
    return sum((before & copy).values()) / sum(before.values())


def repeats(merged: list[str], mine: list[str], new: list[str]) -> bool:
    """Whether a clean merge ``merged`` holds a logical line (layout aside, blank and
    comment-only lines aside) more often than both the copy ``mine`` and the new upstream
    ``new`` do: git kept the copy's version of a change and inserted upstream's at another
    place (two insertions, no conflict), so the change is there twice. ``False`` when any
    side does not tokenize.

    >>> repeats(["x = f(a)\\n", "x = f(a)\\n"], ["x = f(a)\\n"], ["x = f(a)\\n"])
    True
    """
    found, copy, after = _keys(merged), _keys(mine), _keys(new)
    if found is None or copy is None or after is None:
        return False
    return any(count > max(copy[k], after[k]) for k, count in found.items())


def settle(text: str, markers: tuple[str, str, str]) -> tuple[str, int]:
    """``text`` (a ``git merge-file --diff3`` result) with every conflict region that only
    differs in layout settled; returns ``(text, conflicts left)``. ``markers`` are the
    labels of the three sides as passed to git (new upstream, old upstream, plugin)."""
    start, base, end = (
        f"<<<<<<< {markers[0]}",
        f"||||||| {markers[1]}",
        f">>>>>>> {markers[2]}",
    )
    out: list[str] = []
    left = 0
    lines = text.splitlines(True)
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.rstrip("\r\n") != start:
            out.append(line)
            i += 1
            continue
        region = _region(lines, i, base, end)
        if region is None:
            out.append(line)
            i += 1
            continue
        new, old, mine, after = region
        with tempfile.TemporaryDirectory(prefix="patchkeeper-layout-") as scratch:
            settled = _side(new, old, mine, Path(scratch))
        if settled is None:
            out += lines[i:after]
            left += 1
        else:
            out += settled
        i = after
    return "".join(out), left


def _region(
    lines: list[str], i: int, base: str, end: str
) -> tuple[list[str], list[str], list[str], int] | None:
    """``(new lines, old lines, plugin lines, index after the region)`` of the region
    whose start marker is at ``i``; ``None`` when the markers are not complete."""
    parts: list[list[str]] = [[]]
    for j in range(i + 1, len(lines)):
        bare = lines[j].rstrip("\r\n")
        if (bare, len(parts)) in ((base, 1), ("=======", 2)):
            parts.append([])
        elif bare == end and len(parts) == 3:
            return parts[0], parts[1], parts[2], j + 1
        else:
            parts[-1].append(lines[j])
    return None


__all__ = ["has_change", "kept_share", "repeats", "settle", "words"]
