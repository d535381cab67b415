"""A hunk that only moves version bounds is upstream when the new release's own bound goes
at least as far.

- A configuration hunk that raises a requirement's minimum version (``"Pygments>=2.12"`` to
  ``"Pygments>=2.13"``) is upstream when the new release requires at least that version
  itself (``"Pygments>=2.17"``): upstream raised the same floor further
  (:func:`raised_further`).
- A hunk whose every changed line is a requirement of one project rewritten
  (``resolvelib >= 0.5.3, < 0.9.0`` to ``< 1.1.0``; in an sdist's ``PKG-INFO`` or an
  ``*.egg-info/requires.txt`` too, ``Requires-Dist:`` read off), or a line that differs from
  the line it replaces only by version numbers raised (``UPPERBOUND = Version("0.9.0")`` to
  ``"1.1.0"``), is upstream when the file states the same: a requirement of that project
  that admits every version the patch newly admits and none it newly excludes
  (:func:`patchkeeper.audit.requirement_moves.meets`; ``< 2.0.0`` relaxes the cap further),
  or the same line with each raised number at least as high and the others the same
  (:func:`bounds_met`). A cap relaxed so that a distribution's newer dependency is admitted
  is the commonest patch of this kind, and upstream relaxing it further its commonest fate.

Requirement lines are read with :mod:`packaging.requirements` (PEP 508), quotes and a
trailing comma removed, as ``pyproject.toml``, ``setup.cfg`` and ``requirements*.txt`` write
them. Version numbers are compared with :mod:`packaging.version` (PEP 440).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from patchkeeper.audit.requirement_moves import meets, requirement
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


#: A version number in a line: two or more dot-separated numbers, not part of a longer word.
VERSION_NUMBER = re.compile(rb"(?<![\w.])\d+(?:\.\d+)+(?![\w.])")
#: The field name of package metadata (``PKG-INFO``, ``METADATA``) before a requirement.
REQUIRES_DIST = b"Requires-Dist:"


def _requirement(line: bytes) -> Requirement | None:
    """The requirement a line states (:func:`patchkeeper.audit.requirement_moves.requirement`),
    ``Requires-Dist:`` read off first; ``None`` for any other line."""
    text = line.strip()
    if text.startswith(REQUIRES_DIST):
        text = text[len(REQUIRES_DIST) :]
    return requirement(text)


#: A comparison operator of PEP 440 right before a number makes it a version.
BOUND_BEFORE = re.compile(rb"(?:[<>]=?|[=!~]=)\s*$")


def _shape(line: bytes) -> tuple[bytes, tuple[Version, ...]] | None:
    """The line with white space collapsed and its version numbers taken out, and those
    numbers in order; ``None`` when it has none or one that PEP 440 does not read. A
    number is a version when it has three parts or more (``1.1.0``), or a comparison
    operator stands right before it (``<1.1``), or the line says ``version`` (a
    ``timeout = 1.5`` is no version)."""
    text = b" ".join(line.split())
    found = VERSION_NUMBER.findall(text)
    if not found:
        return None
    if b"version" not in text.lower():
        for match in VERSION_NUMBER.finditer(text):
            parts = match.group().count(b".") + 1
            if parts < 3 and not BOUND_BEFORE.search(text[: match.start()]):
                return None
    try:
        versions = tuple(Version(number.decode("ascii")) for number in found)
    except InvalidVersion:
        return None
    return VERSION_NUMBER.sub(b"\0", text), versions


def _requirement_met(old: Requirement, new: Requirement, lines: Sequence[bytes]) -> bool:
    """Whether a requirement of ``lines`` for the same project meets the move from ``old``
    to ``new`` (:func:`patchkeeper.audit.requirement_moves.meets`)."""
    name = canonicalize_name(new.name)
    if canonicalize_name(old.name) != name or old.specifier == new.specifier:
        return False
    for line in lines:
        theirs = _requirement(line)
        if (
            theirs is not None
            and canonicalize_name(theirs.name) == name
            and meets(old.specifier, new.specifier, theirs.specifier)
        ):
            return True
    return False


def _raised_in_place(old: bytes, new: bytes, lines: Sequence[bytes]) -> bool:
    """Whether ``new`` is ``old`` with version numbers raised, and ``lines`` has the same line
    with each of those numbers at least as high and every other number the same."""
    before, after = _shape(old), _shape(new)
    if before is None or after is None or before[0] != after[0]:
        return False
    raised = [i for i, (a, b) in enumerate(zip(before[1], after[1], strict=True)) if a != b]
    if not raised or any(after[1][i] < before[1][i] for i in raised):
        return False
    for line in lines:
        theirs = _shape(line)
        if theirs is None or theirs[0] != after[0]:
            continue
        if all(
            theirs[1][i] >= after[1][i] if i in raised else theirs[1][i] == after[1][i]
            for i in range(len(after[1]))
        ):
            return True
    return False


def bounds_met(lines: Sequence[bytes], hunk: Hunk) -> bool:
    """Whether every line the hunk changes moves a version bound that the file (``lines``)
    already moves at least as far (see the module docstring): the hunk removes as many
    non-blank lines as it adds, and each added line, with the removed line at its place, is
    a requirement of one project whose new specifier the file's requirement for that project
    meets, or the removed line with version numbers raised that the file has raised at
    least as high."""
    removed = [line.text for line in hunk.lines if line.kind == REMOVED and line.text.strip()]
    added = [line.text for line in hunk.lines if line.kind == ADDED and line.text.strip()]
    if not added or len(removed) != len(added):
        return False
    for old, new in zip(removed, added, strict=True):
        was, wants = _requirement(old), _requirement(new)
        if was is not None and wants is not None:
            if not _requirement_met(was, wants, lines):
                return False
        elif not _raised_in_place(old, new, lines):
            return False
    return True
