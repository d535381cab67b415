"""The nodes of a tree in :func:`ast.walk`'s order, as a list, several times as fast.

:func:`ast.walk` goes breadth first through a deque, asking :func:`ast.iter_child_nodes`
(itself a generator over :func:`ast.iter_fields`) for each node's children: two
generator frames per node. The audit walks whole patch files and upstream functions this
way; a list filled in the same order, read while it grows, gives the same nodes in the same
order at a fraction of the cost.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
from typing import Any

from patchkeeper.runtime.syntax.names import LEAVES, SCALAR_FIELDS

_AST = ast.AST
_CALL_KIND: frozenset[type] = frozenset({ast.Call})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_STATEMENT_LIKE = (ast.stmt, ast.excepthandler, ast.match_case)
#: The fields of each class :func:`of_kinds` meets that can hold a node it looks for
#: (:func:`_node_fields`): not names, flags, an expression's context or operators
#: (``Load``, ``Add``, ``Eq``: leaves).
_CALL_FIELDS: dict[type, tuple[str, ...]] = {}


def append_children(node: ast.AST, out: list[Any]) -> None:
    """Append ``node``'s children to ``out`` in :func:`ast.iter_child_nodes`' order (its
    fields in order, a list field's nodes in order)."""
    for name in node._fields:
        try:
            value = getattr(node, name)
        except AttributeError:
            continue
        if isinstance(value, _AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend([item for item in value if isinstance(item, _AST)])


def nodes(root: ast.AST) -> list[ast.AST]:
    """Every node of ``root`` (itself first) in the order :func:`ast.walk` yields them."""
    found = [root]
    index = 0
    while index < len(found):
        append_children(found[index], found)
        index += 1
    return found


def scoped_nodes(root: ast.AST) -> list[tuple[ast.AST, bool]]:
    """:func:`nodes`, each with whether it runs at import: not inside the body, the
    arguments or the decorators of a function or lambda (the function node itself runs at
    import when its parent does)."""
    found: list[tuple[ast.AST, bool]] = [(root, True)]
    index = 0
    children: list[ast.AST] = []
    while index < len(found):
        node, at_import = found[index]
        index += 1
        inner = at_import and not isinstance(node, _SCOPES)
        children.clear()
        append_children(node, children)
        found.extend([(child, inner) for child in children])
    return found


def calls(root: ast.AST) -> list[ast.Call]:
    """Every :class:`ast.Call` of ``root`` (itself included), in no particular order (a
    stack, depth first): about three times as fast as filtering :func:`ast.walk`, as it
    calls no function per node and skips the leaves no call is under."""
    return of_kinds(root, _CALL_KIND)  # type: ignore[return-value]


def of_kinds(root: ast.AST, kinds: frozenset[type]) -> list[ast.AST]:
    """Every node of ``root`` (itself included) whose class is one of ``kinds``, in no
    particular order: a stack, no function call per node. A list field is put on the stack
    whole (:meth:`list.extend`), its ``None`` and text items with it: they hold no field
    (:data:`_CALL_FIELDS` has ``()`` for every class that is not a node) and are no kind
    asked for, so the nodes found and their order are those of pushing its nodes alone."""
    found: list[ast.AST] = []
    todo: list[Any] = [root]
    pop, push, extend = todo.pop, todo.append, todo.extend
    fields_of = _CALL_FIELDS
    while todo:
        node = pop()
        kind = node.__class__
        if kind in kinds:
            found.append(node)
        fields = fields_of.get(kind)
        if fields is None:
            fields = fields_of[kind] = _node_fields(kind)
        for name in fields:
            value = getattr(node, name, None)
            if value.__class__ is list:
                extend(value)
            elif isinstance(value, _AST):
                push(value)
    return found


def _node_fields(kind: type) -> tuple[str, ...]:
    """The fields of the class ``kind`` :func:`of_kinds` reads: none for a class that is
    not a node (``None``, a name in a list of names) or whose fields hold plain values
    (a constant, ``global`` names), else all but those that hold names, flags, an
    expression's context or operators (:data:`~patchkeeper.runtime.syntax.names.
    SCALAR_FIELDS`)."""
    if not issubclass(kind, _AST) or issubclass(kind, LEAVES):
        return ()
    return tuple(f for f in kind._fields if f not in SCALAR_FIELDS)


def leveled_statements(root: ast.AST) -> Iterator[tuple[int, ast.AST]]:
    """``(depth, node)`` for each node :func:`statements` gives, in its order: ``root`` at
    depth 0, the statements of its body at depth 1, and so on (the order is breadth first:
    the depths never fall). Each statement's fields list its statements in the order of
    the source, so at each depth the order is the source's: statements of one module
    parsed in parts, each at its lines and depth, come in the whole module's order once
    sorted by depth, then by line."""
    todo: deque[tuple[ast.AST, int]] = deque([(root, 0)])
    while todo:
        node, depth = todo.popleft()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                todo.extend((v, depth + 1) for v in value if isinstance(v, _STATEMENT_LIKE))
        yield depth, node


def statements(root: ast.AST) -> Iterator[ast.AST]:
    """``root`` and the statements under it at any depth (with the ``except`` handlers and
    ``case`` blocks that hold some), in :func:`ast.walk`'s order: a definition is a
    statement and an expression holds none, so expressions are not entered (each
    statement is as deep among statements as in the whole tree, so the breadth-first
    order is the same)."""
    todo: deque[ast.AST] = deque([root])
    while todo:
        node = todo.popleft()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                todo.extend(v for v in value if isinstance(v, _STATEMENT_LIKE))
        yield node
