"""The nodes of a tree in :func:`ast.walk`'s order, as a list, several times as fast.

:func:`ast.walk` goes breadth first through a deque, asking :func:`ast.iter_child_nodes`
(itself a generator over :func:`ast.iter_fields`) for each node's children: two
generator frames per node. The audit walks whole patch files and upstream functions this
way; a list filled in the same order, read while it grows, gives the same nodes in the same
order at a fraction of the cost. :func:`walk_scope` and :func:`walk_all` go depth first,
knowing per node class which fields can hold a child: the nodes of one scope, or of a whole
subtree, when the order does not matter.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

#: The nested scopes :func:`walk_scope` yields without walking into them.
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: Fields that never hold a child node worth visiting: names, flags, and the context and
#: operator singletons (``Load``, ``Add``...), which carry nothing.
SCALAR_FIELDS = frozenset(
    {
        "ctx",
        "op",
        "ops",
        "id",
        "attr",
        "arg",
        "name",
        "asname",
        "module",
        "level",
        "conversion",
        "is_async",
        "type_comment",
        "kind",
        "simple",
        "tag",
        "type_ignores",
    }
)
#: Nodes whose remaining fields hold plain values (a constant, a list of names).
LEAVES = (ast.Constant, ast.MatchSingleton, ast.Global, ast.Nonlocal)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        if issubclass(cls, _NESTED_SCOPES + LEAVES):
            fields = ()
        else:
            fields = tuple(f for f in getattr(cls, "_fields", ()) if f not in SCALAR_FIELDS)
        _CHILD_FIELDS[cls] = fields
    return fields


def walk_scope(body: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every node of a scope in preorder, without descending into nested functions or
    classes (those nodes themselves are yielded; lambdas are walked), nor into context and
    operator nodes. Faster than :func:`ast.walk`: the fields that can hold a child are
    known per node class."""
    stack: list[ast.AST] = [*body][::-1]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        yield node
        for name in _child_fields(node.__class__):
            value = getattr(node, name, None)
            if value is None:
                continue
            if value.__class__ is list:
                for item in reversed(value):
                    if item is not None:
                        push(item)
            else:
                push(value)


_ALL_FIELDS: dict[type, tuple[str, ...]] = {}


def walk_all(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node`` (itself included), nested scopes included: the nodes of
    :func:`ast.walk` in another order (and, as :func:`walk_scope`, the attribute names of a
    class pattern as strings), without its per-node field iteration (the fields that can
    hold a child are known per node class)."""
    stack: list[ast.AST] = [node]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        yield node
        kind = node.__class__
        fields = _ALL_FIELDS.get(kind)
        if fields is None:
            leaf = issubclass(kind, LEAVES)
            own = getattr(kind, "_fields", ())  # a str of a pattern has none
            fields = () if leaf else tuple(f for f in own if f not in SCALAR_FIELDS)
            _ALL_FIELDS[kind] = fields
        for name in fields:
            value = getattr(node, name, None)
            if value is None:
                continue
            if value.__class__ is list:
                for item in value:
                    if item is not None:
                        push(item)
            else:
                push(value)


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
