"""Findings of the audit across entries and files (issue 10, items 3, 4 and 8).

- *duplicate*: two entries in two files patch the same target (the later import wins, and
  the other patch is silently dead or wraps the first);
- *breaks-at-import* / *breaks-when-called*: an upstream name the plugin imports or
  references (``from vllm.x import y``, ``vllm.x.y`` attribute chains, base classes, helpers
  a copied body calls) that the old release defines and the new one does not define there;
  where it went when the name is defined elsewhere (a renamed private helper is searched by
  its name too);
- *version-gate*: every version gate of the patch directory
  (:mod:`patchkeeper.runtime.gates`), the branch live at the new release, and the edit.

Only the patch directory is read, as ASTs; upstream is read through
:class:`~patchkeeper.runtime.upstream.UpstreamTree` (never imported).
"""

from __future__ import annotations

import ast
from collections import defaultdict, deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.runtime import names
from patchkeeper.runtime.gates import Gate, evaluate, gate_edit, versions_named
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.resolve import FOUND, resolve_all, target_modules
from patchkeeper.runtime.upstream import UpstreamTree


@dataclass(frozen=True)
class AuditFinding:
    """A finding of the audit: ``kind`` (``duplicate``, ``breaks-at-import``,
    ``breaks-when-called``, ``version-gate``), ``file``/``line``, the upstream ``name``
    concerned, and a ``message``."""

    kind: str
    file: str
    line: int
    name: str
    message: str


def duplicates(entries: list[PatchEntry]) -> list[AuditFinding]:
    """Targets (with the same registry key) patched from two or more files."""
    by_target: dict[tuple[str, str | None], list[PatchEntry]] = defaultdict(list)
    for entry in entries:
        by_target[(entry.target, entry.key)].append(entry)
    out = []
    for (target, key), group in sorted(by_target.items(), key=lambda x: (x[0][0], x[0][1] or "")):
        files = sorted({e.file for e in group})
        if len(files) < 2:
            continue
        first = min(group, key=lambda e: (e.file, e.line))
        where = ", ".join(f"{e.file}:{e.line}" for e in sorted(group, key=lambda e: e.file))
        label = f"{target}[{key}]" if key else target
        out.append(
            AuditFinding(
                "duplicate",
                first.file,
                first.line,
                target,
                f"{label} is patched in {len(files)} files ({where}): the one imported last "
                "wins; keep one",
            )
        )
    return out


@dataclass(frozen=True)
class _Reference:
    dotted: str
    file: str
    line: int
    at_import: bool


def _walk_scoped(tree: ast.AST) -> Iterator[tuple[ast.AST, bool]]:
    """:func:`ast.walk`'s nodes in its order, each with whether it runs at import (it is
    not inside a function or lambda body)."""
    todo = deque([(tree, True)])
    while todo:
        node, at_import = todo.popleft()
        inner = at_import and not isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
        )
        todo.extend((child, inner) for child in ast.iter_child_nodes(node))
        yield node, at_import


def _references(path: Path, relative: str, module: str, is_package: bool, roots) -> list:
    """Every upstream dotted name the file imports or references, with where."""
    try:
        tree = ast.parse(path.read_bytes())
    except SyntaxError:
        return []
    table = names.scope_table(tree.body, {}, module, is_package)
    out: list[_Reference] = []
    for node, at_import in _walk_scoped(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in roots:
                out += [
                    _Reference(f"{node.module}.{a.name}", relative, node.lineno, at_import)
                    for a in node.names
                    if a.name != "*"
                ]
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            bound = names.dotted(node, table)
            if bound is not None and bound.dotted.split(".")[0] in roots:
                out.append(_Reference(bound.dotted, relative, node.lineno, at_import))
    return out


def broken_references(
    files: list[tuple[Path, str, str, bool]],
    trees: tuple[UpstreamTree, UpstreamTree],
    patched: set[str],
) -> list[AuditFinding]:
    """Upstream names the plugin uses that the old release defines and the new one does
    not (``files``: ``(path, relative, module, is_package)``; ``patched``: targets the
    plugin itself installs, which need not exist upstream)."""
    old_tree, new_tree = trees
    roots = set(new_tree.packages)
    references = [r for f in files for r in _references(*f, roots)]
    wanted = sorted({r.dotted for r in references} - patched)
    new_tree.prefetch(target_modules(new_tree, wanted))  # parsed on every core
    new = resolve_all(new_tree, wanted, lambda _t: False)
    gone = [t for t in wanted if new[t].status != FOUND]
    old = resolve_all(old_tree, gone, lambda _t: False)
    existed = [t for t in gone if old[t].status == FOUND and not old[t].partial]
    where = resolve_all(new_tree, existed)
    out = []
    seen: set[tuple[str, str]] = set()
    for ref in references:
        if ref.dotted not in where or (ref.dotted, ref.file) in seen:
            continue
        seen.add((ref.dotted, ref.file))
        found = where[ref.dotted]
        moved = f"; now defined at {', '.join(found.candidates[:3])}" if found.candidates else ""
        kind = "breaks-at-import" if ref.at_import else "breaks-when-called"
        when = "at import" if ref.at_import else "when the code using it runs"
        out.append(
            AuditFinding(
                kind,
                ref.file,
                ref.line,
                ref.dotted,
                f"{ref.dotted} is gone from the new upstream: the plugin breaks {when}{moved}",
            )
        )
    return sorted(out, key=lambda f: (f.file, f.line, f.name))


def version_gates(
    files: list[tuple[Path, str, str, bool]], versions: tuple[str, str]
) -> tuple[Gate, ...]:
    """Every ``if`` of the patch directory whose test is a version gate decided at either
    release."""
    gates = []
    for path, relative, _module, _pkg in files:
        try:
            tree = ast.parse(path.read_bytes())
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, (ast.If, ast.IfExp)):
                continue
            test = ast.unparse(node.test)
            before, after = evaluate(test, versions[0]), evaluate(test, versions[1])
            if before is None and after is None:
                continue
            edit = gate_edit(test, before, after, versions[1])
            gates.append(
                Gate(relative, node.lineno, test, before, after, versions_named(test), edit)
            )
    return tuple(sorted(gates, key=lambda g: (g.file, g.line)))
