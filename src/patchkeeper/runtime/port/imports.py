"""The imports of the patch files that a new upstream release breaks: ``runtime port``
rewrites those it can and names the others.

- A target retargeted through its module's import (``import vllm.a.b`` and
  ``vllm.a.b.name = name``, the target now in ``vllm.c.d``): the patch statement names
  ``vllm.c.d``, so the file must import it. The ``import vllm.a.b`` line becomes ``import
  vllm.c.d`` when nothing else in the file names ``vllm.a.b``, else ``import vllm.c.d`` is
  added after it (:func:`retarget_import`).
- An ``import vllm.a.b`` of a module the new release no longer has, which no retarget
  rewrote: listed, left by hand.
- A helper import (``from vllm.a import helper``) that resolves at the old release and not at
  the new one: when ``vllm.a`` only imported the name at the old release and the new release
  still defines it where it came from, the import takes it from there (``from vllm.b import
  Batch as helper``); else, when the new release defines the name in exactly one other
  module, the import is rewritten to take it from there; otherwise it is listed, left by hand, with
  where the name went (:func:`helper_imports`). A name the lookup cannot place at the old
  release either (a dynamic export) is left alone: nothing shows that the new release
  broke it.
"""

from __future__ import annotations

import ast
import re

from patchkeeper.runtime.lookup.resolve import MOVED, defined_statically, resolve
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.port.file_edits import Edits
from patchkeeper.runtime.port.results import LEFT, RETARGETED, PortedEntry
from patchkeeper.runtime.syntax.references import cut_off, guard_line, guards, patches_cut_off

#: The decision word of the entries this module adds to port's report.
IMPORT = "import"


def old_module_of(target: str, tree: UpstreamTree, hint: str) -> str:
    """The module part of ``target`` at the old release: the longest dotted prefix that is
    a module of ``tree`` (``import vllm.a.b`` binds ``vllm``: the import's name says less
    than the tree), else ``hint``, else all but the last part."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:cut])
        if tree.module_file(prefix) is not None:
            return prefix
    return hint or target.rsplit(".", 1)[0]


def names(text: str, module: str) -> bool:
    """Whether ``text`` names ``module`` as a dotted prefix (``vllm.a.b.x``, not
    ``vllm.a.bc``)."""
    return re.search(rf"(?<![\w.]){re.escape(module)}(?![\w])", text) is not None


def retarget_import(edits: Edits, file: str, old_module: str, new_module: str, skip: int) -> str:
    """Queue the import of ``new_module`` in ``file`` where the file reaches ``old_module``
    by ``import old_module`` (a top-level statement of that one name); ``skip`` is the line
    of the patch statement being retargeted (it will name the new module). Returns what
    was done, for the report (``""``: no such import, nothing to do)."""
    lines = edits.original(file)
    try:
        tree = ast.parse("".join(lines))
    except SyntaxError:
        return ""
    done = edits.imported.setdefault(file, set())
    if new_module in done:
        return f"; import {new_module} already added"
    for node in tree.body:
        if not (isinstance(node, ast.Import) and node.lineno == node.end_lineno):
            continue
        if [(a.name, a.asname) for a in node.names] != [(old_module, None)]:
            continue
        text = lines[node.lineno - 1]
        others = [
            n
            for n, line in enumerate(lines, 1)
            if n not in (node.lineno, skip) and names(line.split("#", 1)[0], old_module)
        ]
        indent = text[: len(text) - len(text.lstrip())]
        if others:
            new_text = f"{text}{indent}import {new_module}\n"
            what = f"; import {new_module} added after line {node.lineno}"
        else:
            new_text = f"{indent}import {new_module}\n"
            what = f"; import {old_module} -> import {new_module} at line {node.lineno}"
        if not edits.replace(file, node.lineno, node.lineno, new_text):
            return f"; import {new_module} by hand (line {node.lineno} is rewritten otherwise)"
        done.add(new_module)
        return what
    return ""


def helper_imports(
    files: list[str],
    trees: tuple[UpstreamTree, UpstreamTree],
    edits: Edits,
    new: str,
    patching: frozenset[tuple[str, int]] = frozenset(),
) -> list[PortedEntry]:
    """Every ``from M import name`` of ``files`` (upstream modules only) that the old
    release resolves and the new one does not: rewritten to the one module of the new
    release that defines the name (``retargeted``), else left by hand with where the name
    went; ``new`` names the new release in the report (``patching``: the ``(file, line)``
    of every patch entry, which tells a ``try`` that loses patches from one that does not,
    :func:`_caught_by`)."""
    out: list[PortedEntry] = []
    for file in files:
        lines = edits.original(file)
        try:
            tree = ast.parse("".join(lines))
        except SyntaxError:
            continue
        guarded = guards(tree)
        for node in ast.walk(tree):
            line = guard_line(node, guarded)
            at = getattr(node, "lineno", 0)
            cut = bool(line) and patches_cut_off(patching, file, cut_off(tree, at, line))
            caught = _caught_by(line, new, cut)
            if isinstance(node, ast.Import):
                out += _module_import(file, node, trees, edits, new, caught)
                continue
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            if not trees[0].contains(node.module):
                continue
            out += _one_import(file, node, lines, trees, edits, new, caught)
    return out


def _caught_by(line: int, new: str, cut: bool = True) -> str:
    """What a failing import does at the release ``new`` when the ``except`` at ``line``
    catches it (``0``: none does, the plugin breaks): the words the report gives for it
    (``cut``: whether a patch stops running then, :func:`.references.cut_off`)."""
    if not line:
        return f"breaks at {new}"
    if not cut:
        return (
            f"fails at {new}, its `except` at line {line} catching that (no patch stops "
            "running: only the names the `try` imports are missing)"
        )
    return (
        f"fails at {new}, its `except` at line {line} catching that (what the rest of the "
        "`try` patches is no longer patched)"
    )


def _module_import(
    file: str,
    node: ast.Import,
    trees: tuple[UpstreamTree, UpstreamTree],
    edits: Edits,
    new: str,
    caught: str,
) -> list[PortedEntry]:
    """An ``import M`` of an upstream module the old release has and the new one does not,
    named (left by hand); none when port rewrites that line without it (a retarget).
    ``caught``: what the failing import does at ``new`` (:func:`_caught_by`)."""
    spans = [t for s, e, t in edits.spans.get(file, []) if s <= node.lineno <= e]
    out = []
    for alias in node.names:
        name = alias.name
        kept = re.compile(rf"^\s*import {re.escape(name)}\s*$", re.MULTILINE)
        if spans and not any(kept.search(text) for text in spans):
            continue
        if not trees[0].contains(name) or trees[0].module_file(name) is None:
            continue
        if trees[1].module_file(name) is not None:
            continue
        detail = f"`import {name}` {caught}: no module {name} there: rewrite it by hand"
        out.append(PortedEntry(file, node.lineno, name, IMPORT, LEFT, detail))
    return out


def _origin(
    trees: tuple[UpstreamTree, UpstreamTree], module: str, alias: ast.alias
) -> tuple[str, ast.alias] | None:
    """Where the old release's ``module`` took ``alias.name`` from, when it only imported it
    (``from a.b import InputBatch as GPUInputBatch``) and the new release still defines it
    there: ``(that module, the alias to import from it)``; else ``None``. The import goes to
    the definition, which the new release kept, not to a module that dropped the alias."""
    summary = trees[0].summary(module)
    binding = summary.imports.get(alias.name) if summary is not None else None
    if binding is None or not binding.module or binding.dotted == binding.module:
        return None
    if not defined_statically(trees[1], binding.dotted):
        return None
    name = binding.dotted[len(binding.module) + 1 :]
    if not name or "." in name:
        return None
    local = alias.asname or alias.name
    return binding.module, ast.alias(name=name, asname=local if local != name else None)


def _one_import(
    file: str,
    node: ast.ImportFrom,
    lines: list[str],
    trees: tuple[UpstreamTree, UpstreamTree],
    edits: Edits,
    new: str,
    caught: str,
) -> list[PortedEntry]:
    """The report of one ``from M import ...`` statement (see :func:`helper_imports`);
    ``caught``: what the failing import does at ``new`` (:func:`_caught_by`)."""
    module = node.module or ""
    kept: list[ast.alias] = []
    moved: dict[str, list[tuple[ast.alias, ast.alias]]] = {}
    broken: list[tuple[ast.alias, str]] = []
    for alias in node.names:
        dotted = f"{module}.{alias.name}"
        if alias.name == "*" or not defined_statically(trees[0], dotted):
            kept.append(alias)
            continue
        if defined_statically(trees[1], dotted):
            kept.append(alias)
            continue
        origin = _origin(trees, module, alias)
        if origin is not None:
            moved.setdefault(origin[0], []).append((alias, origin[1]))
            continue
        found = resolve(trees[1], dotted)
        places = [c.split(" (line")[0] for c in found.candidates]
        where = [p.rsplit(".", 1)[0] for p in places if p.endswith("." + alias.name)]
        if found.status == MOVED and len(set(where)) == 1 and len(places) == 1:
            moved.setdefault(where[0], []).append((alias, alias))
            continue
        if places:
            broken.append((alias, f"the name is defined at {', '.join(places[:3])}"))
        else:
            broken.append((alias, f"no module of {new} defines it"))
    if not moved and not broken:
        return []
    out: list[PortedEntry] = []
    first, last = node.lineno, node.end_lineno or node.lineno
    text = lines[first - 1]
    indent = text[: len(text) - len(text.lstrip())]

    def statement(name: str, aliases: list[ast.alias]) -> str:
        listed = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in aliases)
        return f"{indent}from {name} import {listed}\n"

    if moved:
        rest = [*kept, *(a for a, _why in broken)]
        new_text = statement(module, rest) if rest else ""
        new_text += "".join(
            statement(m, [a for _old, a in pairs]) for m, pairs in sorted(moved.items())
        )
        written = edits.replace(file, first, last, new_text)
        for target_module, pairs in sorted(moved.items()):
            for alias, now in pairs:
                shown = now.name + (f" as {now.asname}" if now.asname else "")
                if written:
                    detail = (
                        f"from {module} import {alias.name} -> from {target_module} import "
                        f"{shown} at line {first} ({module} has no {alias.name} at {new})"
                    )
                    action = RETARGETED
                else:
                    detail = (
                        f"`from {module} import {alias.name}` {caught}: import {shown} "
                        f"from {target_module}: rewrite line {first} by hand (port rewrites it "
                        "otherwise)"
                    )
                    action = LEFT
                target = f"{module}.{alias.name}"
                out.append(PortedEntry(file, first, target, IMPORT, action, detail))
    for alias, why in broken:
        detail = (
            f"`from {module} import {alias.name}` {caught}: {module} has no "
            f"{alias.name} there ({why}): rewrite the import by hand"
        )
        out.append(PortedEntry(file, first, f"{module}.{alias.name}", IMPORT, LEFT, detail))
    return out


__all__ = ["IMPORT", "helper_imports", "names", "old_module_of", "retarget_import"]
