"""Stale bindings: upstream modules that imported a patched name before the plugin ran.

A patch that imported without error does not prove that every caller uses the replacement:
a ``from ... import ...`` may already have bound the old object. For a patched
module-level name ``M.N`` (``M`` the module whose attribute the plugin replaces), every
module of the new upstream that binds it at module level with ``from M import N`` (or ``as
L``) keeps the original object, and so does every module importing that binding in turn
(``from importer import L``); each is listed with whether the plugin patches that binding
too. A module importing ``N`` from where it is *defined*, when the plugin replaced only a
re-export of it elsewhere, is not listed: it never had the patched binding (the plugin
changes ``vllm.config.parallel.current_platform``, not ``vllm.platforms.current_platform``).
"""

from __future__ import annotations

from dataclasses import dataclass

from patchkeeper.runtime.lookup import nameindex
from patchkeeper.runtime.lookup.resolve import FOUND, Resolution
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import PatchEntry


@dataclass(frozen=True)
class StaleBinding:
    """``importer`` binds ``local`` to ``target`` (defined at ``defined_at``) at ``file``:``line``;
    ``patched_by`` is the plugin entry (``file:line``) that patches ``importer.local`` too, or
    ``""`` when nothing does (the caller keeps the original object)."""

    target: str
    defined_at: str
    importer: str
    local: str
    file: str
    line: int
    patched_by: str


def stale_bindings(
    tree: UpstreamTree, entries: list[PatchEntry], resolved: dict[str, Resolution]
) -> list[StaleBinding]:
    """Every module-level ``from X import name`` binding of a patched top-level name."""
    patched: dict[str, str] = {}
    for entry in entries:
        patched.setdefault(entry.target, f"{entry.file}:{entry.line}")
    out: list[StaleBinding] = []
    seen: set[tuple[str, str, str]] = set()
    for entry in entries:
        found = resolved.get(entry.target)
        if found is None or found.status != FOUND or "." in found.qualname or not found.qualname:
            continue
        if entry.key is not None or entry.mechanism.value == "sys-modules" or found.partial:
            continue
        parent, _, last = entry.target.rpartition(".")
        if tree.module_file(parent) is None:
            continue  # a class attribute: every caller reaches it through the class
        defined = f"{found.module}.{found.qualname}"
        # Breadth first from the binding the plugin replaced: a module-level
        # "from parent import last as local" keeps the original in importer.local, and so
        # does every "from importer import local" after it.
        frontier = [(parent, last)]
        visited = {(parent, last)}
        while frontier:
            module, name = frontier.pop(0)
            for importer, source, local, line, indent in tree.importers(name):
                if source != module or importer == module:
                    continue
                if indent and not _at_module_level(
                    tree, importer, line, indent, local, source, name
                ):
                    continue  # imported inside a function: bound at call time, not stale
                if (importer, local) not in visited:
                    visited.add((importer, local))
                    frontier.append((importer, local))
                key = (entry.target, importer, local)
                if key in seen:
                    continue
                seen.add(key)
                found_file = tree.module_file(importer)
                file = tree.relative(found_file[0]) if found_file else importer
                out.append(
                    StaleBinding(
                        entry.target,
                        defined,
                        importer,
                        local,
                        file,
                        line,
                        patched.get(f"{importer}.{local}", ""),
                    )
                )
    return sorted(out, key=lambda s: (s.target, s.importer, s.local))


def _at_module_level(
    tree: UpstreamTree, importer: str, line: int, indent: int, local: str, source: str, name: str
) -> bool:
    """Whether an indented ``from source import name as local`` runs at module level: read
    from the block headers above it (:func:`nameindex.module_level`), or, when they do not
    tell, from the parsed module's module-level bindings."""
    found = tree.module_file(importer)
    if found is not None:
        lines = tree.source_lines(importer, 1, 10**9)
        verdict = nameindex.module_level(lines, line, indent) if line <= len(lines) else None
        if verdict is not None:
            return verdict
    summary = tree.summary(importer)
    bound = summary.imports.get(local) if summary else None
    return bound is not None and bound.dotted == f"{source}.{name}"
