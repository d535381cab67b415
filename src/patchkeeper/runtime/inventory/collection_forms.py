"""Forms of registry calls and collection extensions, for the file scanner
(:class:`~patchkeeper.runtime.inventory.assignment_forms.AssignmentForms`): the items an
extension by a collection literal adds (``T = T + ("tile",)``, ``T |= {...}``), and the
call forms that are no registry entry (an ABC's ``register(Class)``, a library function
named ``update``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from patchkeeper.runtime.syntax import names

#: The operators that extend a collection by another: ``tuple + tuple``, ``set | set``,
#: ``dict | dict`` (and their augmented forms).
EXTENDING = (ast.Add, ast.BitOr)


def extended(
    value: ast.expr, read: Callable[[ast.expr], names.Binding | None], target: str
) -> list[ast.expr] | None:
    """The items ``target = value`` adds to the collection ``target`` when ``value`` is
    ``target + items`` or ``target | items`` (either side; ``read``: the binding of an
    expression; ``items`` a collection literal, :func:`collection_items`), else ``None``: the
    rest of the collection is upstream's own, so the assignment extends a registry rather
    than wrapping an original."""
    if not isinstance(value, ast.BinOp) or not isinstance(value.op, EXTENDING):
        return None
    for side, other in ((value.left, value.right), (value.right, value.left)):
        if isinstance(side, (ast.Name, ast.Attribute)):
            bound = read(side)
            if bound is not None and bound.dotted == target:
                return collection_items(other)
    return None


def collection_items(added: ast.expr) -> list[ast.expr] | None:
    """The items a collection literal adds, each as written: a tuple's, list's or set's
    elements, a dict's keys (``**rest`` as itself), those of the literal inside
    ``frozenset({...})`` or ``tuple([...])``; ``None`` for anything else (a number, a
    name: nothing tells it is a collection)."""
    if (
        isinstance(added, ast.Call)
        and isinstance(added.func, ast.Name)
        and added.func.id in ("frozenset", "set", "tuple", "list")
        and len(added.args) == 1
        and not added.keywords
    ):
        return collection_items(added.args[0])
    if isinstance(added, (ast.Tuple, ast.List, ast.Set)):
        return list(added.elts)
    if isinstance(added, ast.Dict):
        return [k if k is not None else v for k, v in zip(added.keys, added.values)]
    return None


def class_name(name: str) -> bool:
    """Whether ``name`` is spelled as a class is (``CapWords``: ``QuantizationConfig``,
    not ``REGISTRY`` or ``registry``)."""
    return name[:1].isupper() and not name.isupper()


def virtual_subclass(node: ast.Call, receiver: str) -> bool:
    """Whether ``receiver.register(...)`` has the form of :meth:`abc.ABCMeta.register`: a
    class (``receiver`` spelled as one) given one class and nothing else. It makes the
    class a virtual subclass for ``isinstance``; no upstream name or registry item
    changes, so it is no registry entry (``REGISTRY.register(key, value)`` and
    ``registry.register(Class)`` on an instance still are)."""
    if len(node.args) != 1 or node.keywords:
        return False
    argument = node.args[0]
    if isinstance(argument, ast.Name):
        name = argument.id
    elif isinstance(argument, ast.Attribute):
        name = argument.attr
    else:
        return False
    return class_name(receiver.rpartition(".")[2]) and class_name(name)


def dict_update(node: ast.Call) -> bool:
    """Whether ``X.update(...)`` has the form of :meth:`dict.update`: at most one positional
    argument, and that one not a constant (a dict, a name, a call), keywords besides."""
    if len(node.args) > 1:
        return False
    return not (node.args and isinstance(node.args[0], ast.Constant))
