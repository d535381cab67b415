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
from collections.abc import Collection, Iterable

from patchkeeper.runtime.syntax import names
from patchkeeper.runtime.syntax.astwalk import append_children, nodes, scoped_nodes
from patchkeeper.runtime.syntax.unparse import expression_text

#: ``(references, tests)``: ``references`` as ``(dotted, line, at_import, guard)`` of every
#: name imported or referenced through a module-level binding (``guard``: the line of the
#: ``except`` that catches the error the name's absence raises there, ``0`` when none
#: does: :func:`guards`), ``tests`` as ``(line, source)`` of every ``if`` and conditional
#: expression's test, in :func:`ast.walk` order.
PatchFileFacts = tuple[tuple[tuple[str, int, bool, int], ...], tuple[tuple[int, str], ...]]

#: The exception names a handler catches an absent module or name with (``import``,
#: ``from m import name``), and an absent attribute with (``m.name``).
_CATCH_IMPORT = frozenset({"ImportError", "Exception", "BaseException"})
_CATCH_MODULE = _CATCH_IMPORT | {"ModuleNotFoundError"}
_CATCH_ATTRIBUTE = frozenset({"AttributeError", "Exception", "BaseException"})
_ANY = "*"
_TRY = (ast.Try, getattr(ast, "TryStar", ast.Try))


def _caught(handler: ast.ExceptHandler) -> set[str]:
    """The exception names ``handler`` catches (the last component of each); ``{"*"}``
    for a bare ``except:``; none for a handler that raises again (``except ImportError:
    raise``: the error still breaks the plugin)."""
    if any(isinstance(stmt, ast.Raise) for stmt in handler.body):
        return set()
    if handler.type is None:
        return {_ANY}
    items = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    out = set()
    for item in items:
        if isinstance(item, ast.Name):
            out.add(item.id)
        elif isinstance(item, ast.Attribute):
            out.add(item.attr)
    return out


def guards(
    tree: ast.AST, walked: Iterable[ast.AST] | None = None
) -> dict[int, list[tuple[set[str], int]]]:
    """By ``id`` of each node in the body of a ``try`` (not in a function or lambda defined
    there, whose body runs later, outside it): the ``(names caught, line)`` of each of
    its ``except`` handlers, innermost ``try`` first (a ``try`` of Python 3.11's
    ``except*`` too). Such a node's failure is caught: an
    import of a name the upstream lost runs the ``except`` instead of breaking the plugin.
    ``walked``: the nodes of ``tree`` in :func:`ast.walk`'s order (outer ``try`` first),
    when the caller has walked it already; else they are listed here
    (:func:`~patchkeeper.runtime.syntax.astwalk.nodes`)."""
    out: dict[int, list[tuple[set[str], int]]] = {}
    for node in nodes(tree) if walked is None else walked:
        if not isinstance(node, _TRY):
            continue
        handlers = [(_caught(h), h.lineno) for h in node.handlers]
        todo: list[ast.AST] = list(node.body)
        while todo:
            inner = todo.pop()
            out.setdefault(id(inner), [])[:0] = handlers
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                todo.extend(getattr(inner, "decorator_list", []))
                append_children(inner.args, todo)
                continue
            append_children(inner, todo)
    return out


def guard_line(node: ast.AST, table: dict[int, list[tuple[set[str], int]]]) -> int:
    """The line of the first ``except`` (innermost ``try`` first) that catches what
    ``node``'s upstream name raises when it is gone, ``0`` when none does."""
    catches = (
        _CATCH_MODULE
        if isinstance(node, ast.Import)
        else _CATCH_IMPORT
        if isinstance(node, ast.ImportFrom)
        else _CATCH_ATTRIBUTE
    )
    for names_caught, line in table.get(id(node), ()):
        if _ANY in names_caught or names_caught & catches:
            return line
    return 0


def cut_off(tree: ast.AST, line: int, guard: int) -> tuple[tuple[int, int], ...]:
    """The line spans that stop running when the use of a name at ``line`` fails inside a
    ``try`` and its ``except`` at line ``guard`` catches that: the rest of the ``try`` body,
    its ``else``, and, when the handler leaves (``return``, ``continue``, ``break``), what
    follows the ``try`` up to the end of the function or loop around it. None when no
    such ``try`` is found."""
    around: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.While)):
            around.append(node)
        if not isinstance(node, _TRY):
            continue
        handler = next((h for h in node.handlers if h.lineno == guard), None)
        if handler is None or not node.body or node.lineno > line:
            continue
        spans = [(line + 1, guard - 1)]
        if node.orelse:
            spans.append((node.orelse[0].lineno, node.orelse[-1].end_lineno or guard))
        leaves = (ast.Return, ast.Continue, ast.Break)
        if any(isinstance(stmt, leaves) for stmt in handler.body):
            last = node.end_lineno or guard
            enclosing = [
                getattr(a, "end_lineno", None) or last
                for a in around
                if getattr(a, "lineno", 0) < node.lineno <= (getattr(a, "end_lineno", 0) or 0)
            ]
            spans.append((last + 1, min(enclosing) if enclosing else last))
        return tuple(spans)
    return ()


def patches_cut_off(
    patching: Collection[tuple[str, int]], file: str, spans: tuple[tuple[int, int], ...]
) -> bool:
    """Whether a patch of ``file`` (``patching``: the ``(file, line)`` of every patch entry)
    lies in one of ``spans`` (:func:`cut_off`): what stops being patched when the ``try``
    fails. With none, only the names the ``try`` imports or defines are missing. No span
    (the ``try`` not found) counts as cutting a patch off."""
    if not spans:
        return True
    return any(f == file and start <= at <= end for f, at in patching for start, end in spans)


def tree_facts(
    tree: ast.Module, module: str, is_package: bool, roots: tuple[str, ...] | None = None
) -> PatchFileFacts:
    """The cross-check facts of one parsed patch file (``module``, a package when
    ``is_package``): with ``roots``, only the names whose top-level package is one of
    them; with ``None``, the names of every package (:func:`for_roots` keeps some later,
    with the same result)."""
    table = names.scope_table(tree.body, {}, module, is_package)
    walked = scoped_nodes(tree)  # in ast.walk's order; one walk for the guards too
    guarded = guards(tree, [node for node, _at_import in walked])
    references: list[tuple[str, int, bool, int]] = []
    tests: list[tuple[int, str]] = []
    for node, at_import in walked:
        if isinstance(node, (ast.If, ast.IfExp)):
            tests.append((node.lineno, expression_text(node.test)))
        elif isinstance(node, ast.Import):
            references += [
                (a.name, node.lineno, at_import, guard_line(node, guarded))
                for a in node.names
                if "." in a.name and (roots is None or a.name.split(".")[0] in roots)
            ]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if roots is None or node.module.split(".")[0] in roots:
                references += [
                    (f"{node.module}.{a.name}", node.lineno, at_import, guard_line(node, guarded))
                    for a in node.names
                    if a.name != "*"
                ]
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            bound = names.dotted(node, table)
            if bound is not None and (roots is None or bound.dotted.split(".")[0] in roots):
                references.append((bound.dotted, node.lineno, at_import, guard_line(node, guarded)))
    return tuple(references), tuple(tests)


def for_roots(facts: PatchFileFacts, roots: tuple[str, ...]) -> PatchFileFacts:
    """``facts`` of every package (:func:`tree_facts` without roots) narrowed to the names
    whose top-level package is in ``roots``: what :func:`tree_facts` with ``roots`` gives
    (each kept name's first component is the package its test read)."""
    references, tests = facts
    return tuple(r for r in references if r[0].split(".")[0] in roots), tests
