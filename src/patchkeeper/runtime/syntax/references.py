"""The cross-check facts of a patch file, from its parsed tree.

The audit's cross-checks (:mod:`patchkeeper.runtime.judge.crosscheck`) need, per patch file,
the upstream names it imports or references and the tests of its ``if`` statements and
conditional expressions. The plugin's scan already parses every patch file in a worker
process (:func:`patchkeeper.runtime.inventory.scan.scan_source`); it reads these facts from
that tree, for every top-level package (the audit keeps the upstream ones:
:func:`for_roots`), so the cross-checks do not parse the file a second time.
"""

from __future__ import annotations

import ast

from patchkeeper.runtime.syntax import names
from patchkeeper.runtime.syntax.astwalk import scoped_nodes

#: ``(references, tests)``: ``references`` as ``(dotted, line, at_import)`` of every name
#: imported or referenced through a module-level binding, ``tests`` as ``(line, source)`` of
#: every ``if`` and conditional expression's test, in :func:`ast.walk` order.
PatchFileFacts = tuple[tuple[tuple[str, int, bool], ...], tuple[tuple[int, str], ...]]


def tree_facts(
    tree: ast.Module, module: str, is_package: bool, roots: tuple[str, ...] | None = None
) -> PatchFileFacts:
    """The cross-check facts of one parsed patch file (``module``, a package when
    ``is_package``): with ``roots``, only the names whose top-level package is one of
    them; with ``None``, the names of every package (:func:`for_roots` keeps some later,
    with the same result)."""
    table = names.scope_table(tree.body, {}, module, is_package)
    references: list[tuple[str, int, bool]] = []
    tests: list[tuple[int, str]] = []
    for node, at_import in scoped_nodes(tree):  # in ast.walk's order
        if isinstance(node, (ast.If, ast.IfExp)):
            tests.append((node.lineno, ast.unparse(node.test)))
        elif isinstance(node, ast.Import):
            references += [
                (a.name, node.lineno, at_import)
                for a in node.names
                if "." in a.name and (roots is None or a.name.split(".")[0] in roots)
            ]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if roots is None or node.module.split(".")[0] in roots:
                references += [
                    (f"{node.module}.{a.name}", node.lineno, at_import)
                    for a in node.names
                    if a.name != "*"
                ]
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            bound = names.dotted(node, table)
            if bound is not None and (roots is None or bound.dotted.split(".")[0] in roots):
                references.append((bound.dotted, node.lineno, at_import))
    return tuple(references), tuple(tests)


def for_roots(facts: PatchFileFacts, roots: tuple[str, ...]) -> PatchFileFacts:
    """``facts`` of every package (:func:`tree_facts` without roots) narrowed to the names
    whose top-level package is in ``roots``: what :func:`tree_facts` with ``roots`` gives
    (each kept name's first component is the package its test read)."""
    references, tests = facts
    return tuple(r for r in references if r[0].split(".")[0] in roots), tests
