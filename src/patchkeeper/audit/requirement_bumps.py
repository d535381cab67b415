"""A configuration hunk that raises a requirement's minimum version (``"Pygments>=2.12"`` to
``"Pygments>=2.13"``) is upstream when the new release requires at least that version itself
(``"Pygments>=2.17"``): upstream raised the same floor further. A hunk that lowers or relaxes a
requirement is never judged so: upstream requiring more is the opposite of what it wants.

Requirement lines are read with :mod:`packaging.requirements` (PEP 508), quotes and a
trailing comma removed, as ``pyproject.toml``, ``setup.cfg`` and ``requirements*.txt`` write
them.
"""

from __future__ import annotations

from collections.abc import Sequence

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from patchkeeper.series.model import ADDED, REMOVED, Hunk


def minimum(line: bytes) -> tuple[str, Version] | None:
    """``(canonical name, minimum version)`` of a requirement line with a ``>=`` bound, or
    ``None`` for any other line."""
    text = line.decode("utf-8", "replace").strip().rstrip(",").strip().strip("\"'")
    if not text or text.startswith(("#", "[")) or ">=" not in text:
        return None
    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return None
    floors = [Version(s.version) for s in requirement.specifier if s.operator == ">="]
    if not floors:
        return None
    return canonicalize_name(requirement.name), max(floors)


def raised_further(lines: Sequence[bytes], hunk: Hunk) -> bool:
    """Whether every line the hunk adds raises the minimum of a requirement it removes, and
    the file (``lines``) requires each of those at least as high."""
    removed = {}
    for line in hunk.lines:
        if line.kind == REMOVED and (found := minimum(line.text)) is not None:
            removed[found[0]] = found[1]
    added = [line.text for line in hunk.lines if line.kind == ADDED and line.text.strip()]
    if not added:
        return False
    there: dict[str, Version] = {}
    for text in lines:
        found = minimum(text)
        if found is not None:
            there[found[0]] = max(found[1], there.get(found[0], found[1]))
    for text in added:
        found = minimum(text)
        if found is None:
            return False
        name, floor = found
        if name not in removed or floor <= removed[name]:
            return False
        if name not in there or there[name] < floor:
            return False
    return True
