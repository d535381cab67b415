"""A patch that only swaps imports of a module upstream has since dropped (the fix is upstream
as the module's removal).

Downstream series often de-bundle: they replace imports of a vendored copy
(``from .packages import six``) by imports of the system's module (``import six``). When the
new release no longer has the vendored module at all and its files no longer name the
module the patch imports instead, the patch has nothing left to change: upstream made the
change its own way (dropped the dependency). Imports are read from Python's own forms
(``import a.b [as c], ...``, ``from [.]*a.b import c [as d], ...``, parenthesized over
several lines), modules found as files of the trees (``a/b.py`` or ``a/b/__init__.py``,
relative imports from the importing file's package, absolute ones anywhere in the tree).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from patchkeeper.series.model import ADDED, REMOVED, Hunk
from patchkeeper.series.substantive_lines import normalize, substantive, tokens
from patchkeeper.upstream.treesearch import TreeSearch

_FROM = re.compile(rb"^from\s+(\.*)([\w.]*)\s+import\s+(.+)$")
_IMPORT = re.compile(rb"^import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)$")


@dataclass(frozen=True)
class Import:
    """One import statement's module.

    Attributes:
        level: leading dots of a relative import (0: absolute).
        module: the dotted module (``"packages.six.moves"``; ``""`` for ``from . import x``).
        names: the names a ``from`` import takes (submodules perhaps), else ``()``.
    """

    level: int
    module: str
    names: tuple[str, ...]

    @property
    def top(self) -> str:
        """The top-level name of an absolute import (``"six"``)."""
        return self.module.split(".")[0]


def _parse(statement: bytes) -> Import | None:
    """The import of one normalized statement (a trailing comment dropped), else ``None``."""
    text = statement.split(b"#", 1)[0].strip()
    match = _FROM.match(text)
    if match:
        names = match.group(3).decode("utf-8", "replace").strip("() ")
        taken = tuple(n.split()[0] for n in names.split(",") if n.strip())
        return Import(len(match.group(1)), match.group(2).decode("utf-8", "replace"), taken)
    match = _IMPORT.match(text)
    if match:
        first = match.group(1).decode("utf-8", "replace").split(",")[0].split()[0]
        return Import(0, first, ())
    return None


def _statements(hunk: Hunk, kind: str) -> list[Import] | None:
    """The imports among the hunk's removed (``kind`` REMOVED) or added (ADDED) lines, a
    parenthesized ``from`` import joined into one; ``None`` when one of its substantive
    lines of that kind is not an import."""
    out: list[bytes] = []
    pending: bytes | None = None
    for line in hunk.lines:
        if line.kind != kind:
            continue
        text = normalize(line.text)
        if pending is not None:
            pending += b" " + text
            if b")" in text:
                out.append(pending)
                pending = None
            continue
        if substantive(line.text) is None:
            continue
        if text.startswith(b"from ") and text.endswith(b"("):
            pending = text
            continue
        out.append(text)
    imports = [_parse(statement) for statement in out]
    if pending is not None or any(imp is None for imp in imports):
        return None
    return [imp for imp in imports if imp is not None]


def _candidates(path: str, imp: Import) -> list[str]:
    """Path stems the import may name, longest first (``src/pkg/packages/six``, then
    ``src/pkg/packages``); relative to the importing file's package, or, absolute, the
    dotted path itself (matched at any depth of the tree)."""
    parts = [p for p in imp.module.split(".") if p]
    if imp.level:
        base = list(PurePosixPath(path).parent.parts)
        base = base[: len(base) - (imp.level - 1)] if imp.level > 1 else base
    else:
        base = []
    stems = []
    for name in imp.names:
        if name != "*":
            stems.append("/".join(base + parts + [name]))
    for k in range(len(parts), 0, -1):
        stems.append("/".join(base + parts[:k]))
    return stems


def _module_file(tree: TreeSearch, stem: str, relative: bool) -> str | None:
    """The tree's file of module ``stem`` (``stem.py`` or ``stem/__init__.py``): at that path
    for a relative import, at any depth for an absolute one."""
    wanted = (f"{stem}.py", f"{stem}/__init__.py")
    files = tree.files()
    if relative:
        return next((f for f in wanted if tree.state(f) is not None), None)
    deeper = tuple(f"/{w}" for w in wanted)
    return next((f for f in files if f in wanted or f.endswith(deeper)), None)


def dropped_module(path: str, imp: Import, pin: TreeSearch, new: TreeSearch) -> str | None:
    """The pin's file of the module an import names when the new release has no such module
    (the longest stem found at the pin decides), else ``None``."""
    for stem in _candidates(path, imp):
        at_pin = _module_file(pin, stem, bool(imp.level))
        if at_pin is None:
            continue
        if _module_file(new, stem, bool(imp.level)) is not None:
            return None
        return at_pin
    return None


@dataclass(frozen=True)
class Swap:
    """The evidence for a patch's import swaps: the dropped modules (pin paths) and the
    top-level modules it imports instead."""

    dropped: tuple[str, ...]
    instead: tuple[str, ...]


def respelled_only(hunk: Hunk) -> bool:
    """Whether the hunk only respells lines: its removed and added lines give the same
    tokens (:func:`patchkeeper.series.substantive_lines.tokens`: quotes, a ``u`` prefix,
    trailing commas), so it changes nothing a verdict can weigh."""
    removed = [tokens(line.text) for line in hunk.lines if line.kind == REMOVED]
    added = [tokens(line.text) for line in hunk.lines if line.kind == ADDED]
    flat = [t for line in removed for t in line]
    return bool(flat) and flat == [t for line in added for t in line]


def import_swaps(
    hunks: Sequence[tuple[str, Hunk]], pin: TreeSearch, new: TreeSearch
) -> Swap | None:
    """Whether ``hunks`` (path, hunk) only swap imports of modules the new release dropped:
    every removed and added line of each is an import, at least one removed import names a
    module the pin has and the new release lacks (:func:`dropped_module`) and every removed
    import does, the added imports are absolute and the new release's files of ``hunks``
    name none of their top-level modules (a word anywhere in them); else ``None``."""
    dropped: dict[str, None] = {}
    instead: dict[str, None] = {}
    for path, hunk in hunks:
        removed = _statements(hunk, REMOVED)
        added = _statements(hunk, ADDED)
        if removed is None or added is None:
            return None
        for imp in removed:
            gone = dropped_module(path, imp, pin, new)
            if gone is None:
                return None
            dropped[gone] = None
        for imp in added:
            if imp.level or not imp.top:
                return None
            instead[imp.top] = None
    if not dropped:
        return None
    for path in dict.fromkeys(path for path, _ in hunks):
        data = new.read(path)
        if any(re.search(rb"\b" + re.escape(top.encode()) + rb"\b", data) for top in instead):
            return None
    return Swap(tuple(dropped), tuple(instead))


#: Where a project's top-level packages live in its tree: the tree's root, ``src/`` (the
#: src layout), ``lib/`` (Ansible and others).
IMPORT_ROOTS = ("", "src/", "lib/")


def _rooted_module(tree: TreeSearch, stem: str) -> str | None:
    """The tree's file of module ``stem`` under one of :data:`IMPORT_ROOTS` (``stem.py`` or
    ``stem/__init__.py``), where Python finds it from the project's import roots; not at
    any depth (``test/_common`` is not ``beets/test/_common.py``)."""
    for root in IMPORT_ROOTS:
        for name in (f"{root}{stem}.py", f"{root}{stem}/__init__.py"):
            if tree.state(name) is not None:
                return name
    return None


def _added_imports(hunk: Hunk) -> list[Import]:
    """The import statements among the hunk's added lines (parenthesized ``from`` imports
    joined), whatever else it adds."""
    whole = _statements(hunk, ADDED)
    if whole is not None:
        return whole
    return [
        imp
        for line in hunk.lines
        if line.kind == ADDED and substantive(line.text) is not None
        if (imp := _parse(normalize(line.text))) is not None
    ]


def gone_imports(
    hunks: Sequence[tuple[str, Hunk]], pin: TreeSearch, new: TreeSearch
) -> tuple[str, ...]:
    """The pin's files of the modules that ``hunks`` (path, hunk) import and the new release
    no longer has, in order; ``()`` when there is none.

    Each import statement a hunk of a Python file adds is resolved to its longest module
    stem that the old pin has (relative imports from the importing file's package, absolute
    ones from :data:`IMPORT_ROOTS`); the module is gone when the new release has no file
    for that stem there. A patch that imports such a module may still apply, yet its code
    cannot run on the new release (a test built on ``test._common``, which upstream moved
    into its package): it needs porting, not carrying."""
    out: dict[str, None] = {}
    for path, hunk in hunks:
        if not path.endswith(".py"):
            continue
        for imp in _added_imports(hunk):
            for stem in _candidates(path, imp):
                if imp.level:
                    at_pin = _module_file(pin, stem, True)
                    there = _module_file(new, stem, True) if at_pin else None
                else:
                    at_pin = _rooted_module(pin, stem)
                    there = _rooted_module(new, stem) if at_pin else None
                if at_pin is None:
                    continue
                if there is None:
                    out[at_pin] = None
                break
    return tuple(out)


def _module_files(stem: str, relative: bool) -> list[str]:
    """The files that can hold module ``stem``: at that path for a relative import, under
    each of :data:`IMPORT_ROOTS` for an absolute one."""
    roots = ("",) if relative else IMPORT_ROOTS
    return [name for root in roots for name in (f"{root}{stem}.py", f"{root}{stem}/__init__.py")]


def failing_imports(
    hunks: Sequence[tuple[str, Hunk]],
    pin: TreeSearch,
    new: TreeSearch,
    failing: Mapping[str, str],
) -> tuple[str, str] | None:
    """The first module that ``hunks`` (path, hunk) import which neither the old pin nor
    the new release has and which only a failing earlier patch of the series creates:
    ``(its file, that patch's name)``; ``None`` when there is none.

    ``failing`` maps each file a failing earlier patch creates (and the workspace still
    lacks) to that patch. Each import statement a hunk of a Python file adds is resolved to
    its longest module stem that either tree has or that such a patch creates; a module
    either tree has is not this patch's concern (:func:`gone_imports` judges one the pin
    has). A patch that applies while it imports such a module (tests written for a module
    an earlier patch adds) cannot run before that patch is ported: it needs it, as a patch
    needs the lines a failing patch adds."""
    for path, hunk in hunks:
        if not path.endswith(".py"):
            continue
        for imp in _added_imports(hunk):
            for stem in _candidates(path, imp):
                files = _module_files(stem, bool(imp.level))
                if any(pin.state(f) is not None or new.state(f) is not None for f in files):
                    break
                created = next((f for f in files if f in failing), None)
                if created is not None:
                    return created, failing[created]
    return None
