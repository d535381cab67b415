"""The literal items of a ``for`` loop, to name the targets of patches made in its body.

``for name in ("fwd", "bwd"): setattr(vllm.x, name, new)`` patches ``vllm.x.fwd`` and
``vllm.x.bwd``; ``for m, name in [("vllm.a", "f"), ("vllm.b", "g")]:
setattr(sys.modules[m], name, new)`` patches ``vllm.a.f`` and ``vllm.b.g``. The literal may
also be a module constant the file binds once (``_MODULES = ["vllm.a", "vllm.b"]``, then
``for m in _MODULES:``), a dict's keys, values or items (``for m, name in
_SWAPS.items():``), through ``list(...)``/``tuple(...)``/``sorted(...)``/``frozenset(...)``
(in the loop or in the constant: ``_SEAMS = frozenset({"step", "run"})``). A loop over
anything else (a call, a parameter, a non-string item) gives nothing: its targets cannot be
told from the source, and no entry is made up for them.

A loop over ``sys.modules`` itself (``for name, module in list(sys.modules.items()):``)
swaps a name in every module that binds it: :func:`module_variable` gives its variable
bound to a module, and :func:`swap_guards` the original each attribute is compared with
(``if module.Request == _OriginalRequest:``), after which the swap is named. A name bound
to an item of ``sys.modules`` (:func:`sys_modules_alias`) stands for the module its key
names, per item of the loop around it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Mapping

from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.syntax.names import Binding

#: One iteration of a loop: its variable names -> their literal string values.
Item = dict[str, str]


#: Calls that hand on the items of their one argument.
_COPIES = frozenset({"list", "tuple", "sorted", "set", "frozenset"})


def module_tables(tree: ast.Module) -> dict[str, ast.expr]:
    """The names a module binds once, at its top level, to a tuple, list, set or dict
    display, or to one handed through ``frozenset(...)``, ``tuple(...)`` and the like
    (:data:`_COPIES`): ``name -> the display``."""
    found: dict[str, ast.expr] = {}
    seen: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                if target.id in seen:
                    found.pop(target.id, None)
                    continue
                seen.add(target.id)
                display = _unwrap(value)
                if isinstance(display, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                    found[target.id] = display
    return found


def _unwrap(expr: ast.expr) -> ast.expr:
    """``expr`` without the calls around it that hand on its items (``list(x)``)."""
    while (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id in _COPIES
        and len(expr.args) == 1
        and not expr.keywords
    ):
        expr = expr.args[0]
    return expr


def _elements(expr: ast.expr, tables: Mapping[str, ast.expr]) -> list[ast.expr] | None:
    """The elements a loop over ``expr`` takes, when ``expr`` is a display or a constant
    of ``tables`` (a dict's keys, or its ``.keys()``/``.values()``/``.items()``, each item
    a 2-tuple); else ``None``."""
    expr = _unwrap(expr)
    method = ""
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr in ("keys", "values", "items")
        and not expr.args
    ):
        method = expr.func.attr
        expr = expr.func.value
    if isinstance(expr, ast.Name):
        expr = tables.get(expr.id, expr)
    if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
        return None if method else list(expr.elts)
    if not isinstance(expr, ast.Dict) or any(k is None for k in expr.keys):
        return None
    keys = [k for k in expr.keys if k is not None]
    if method == "values":
        return list(expr.values)
    if method == "items":
        return [ast.Tuple(elts=[k, v], ctx=ast.Load()) for k, v in zip(keys, expr.values)]
    return keys


def object_items(
    stmt: ast.stmt, tables: Mapping[str, ast.expr] | None = None
) -> tuple[str, list[ast.expr]] | None:
    """The variable and the elements of ``for NAME in (A, mod.B, ...)`` when every element
    is a name or an attribute chain (objects, not strings: ``for request_type in
    (CompletionRequest, ChatRequest)``); else ``None``.

    >>> name, elements = object_items(ast.parse("for cls in (A, m.B): pass").body[0])
    >>> name, [ast.unparse(e) for e in elements]
    ('cls', ['A', 'm.B'])
    """
    if not isinstance(stmt, (ast.For, ast.AsyncFor)) or not isinstance(stmt.target, ast.Name):
        return None
    elements = _elements(stmt.iter, tables or {})
    if not elements:
        return None
    for element in elements:
        root = element
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name):
            return None
    return stmt.target.id, elements


def literal_items(
    stmt: ast.stmt, tables: Mapping[str, ast.expr] | None = None
) -> list[Item] | None:
    """One :data:`Item` per element of ``for TARGET in (...)`` when the iterable is a
    tuple, list or set literal of strings (or, for a tuple target ``a, b``, of tuples of
    strings of that length), or a dict or module constant of ``tables``
    (:func:`module_tables`) giving them; else ``None``."""
    if not isinstance(stmt, (ast.For, ast.AsyncFor)):
        return None
    elements = _elements(stmt.iter, tables or {})
    if elements is None:
        return None
    target = stmt.target
    if isinstance(target, ast.Name):
        variables = [target.id]
    elif isinstance(target, (ast.Tuple, ast.List)) and all(
        isinstance(t, ast.Name) for t in target.elts
    ):
        variables = [t.id for t in target.elts if isinstance(t, ast.Name)]
    else:
        return None
    items: list[Item] = []
    for element in elements:
        parts = element.elts if len(variables) > 1 and isinstance(element, ast.Tuple) else [element]
        if len(parts) != len(variables):
            return None
        values = [
            p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str)
        ]
        if len(values) != len(parts):
            return None
        items.append(dict(zip(variables, values, strict=True)))
    return items


def iterations(loops: list[list[Item]], exprs: list[ast.expr]) -> Iterator[Item]:
    """The items of the innermost loop of ``loops`` (outermost first) binding a name used
    in ``exprs``, one by one; a single empty item when none does. The names of ``exprs``
    are read only when some loop has items: most calls are under no loop over literals,
    and walking their arguments for nothing took about 4% of the CPU time a plugin's scan
    spends beside parsing."""
    if not any(loops):
        yield {}
        return
    used = {n.id for e in exprs for n in ast.walk(e) if isinstance(n, ast.Name)}
    for items in reversed(loops):
        if items and used & set(items[0]):
            yield from items
            return
    yield {}


def module_variable(stmt: ast.stmt, is_sys_modules: Callable[[ast.expr], bool]) -> str:
    """The variable bound to each module by a loop over ``sys.modules``: ``module`` in ``for
    name, module in sys.modules.items():`` or ``for module in sys.modules.values():``
    (through ``list(...)``); ``""`` for any other statement. ``is_sys_modules`` tells
    whether an expression is ``sys.modules`` in the file's name table."""
    if not isinstance(stmt, (ast.For, ast.AsyncFor)):
        return ""
    expr = _unwrap(stmt.iter)
    if not (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr in ("values", "items")
        and not expr.args
        and is_sys_modules(expr.func.value)
    ):
        return ""
    target = stmt.target
    if expr.func.attr == "values":
        return target.id if isinstance(target, ast.Name) else ""
    if isinstance(target, ast.Tuple) and len(target.elts) == 2:
        second = target.elts[1]
        return second.id if isinstance(second, ast.Name) else ""
    return ""


def swap_guards(stmt: ast.stmt, variable: str) -> dict[str, ast.expr]:
    """The originals the body of the loop ``stmt`` compares the attributes of ``variable``
    with, in ``if`` tests: ``module.Request == _OriginalRequest`` or ``getattr(module,
    "Request", None) is _OriginalRequest`` (either side) gives ``"Request" ->
    _OriginalRequest``; an attribute
    compared with two different originals gives nothing."""
    found: dict[str, ast.expr] = {}
    clashing: set[str] = set()
    for node in ast.walk(ast.Module(body=list(getattr(stmt, "body", [])), type_ignores=[])):
        if not isinstance(node, ast.If):
            continue
        for test in ast.walk(node.test):
            if not isinstance(test, ast.Compare) or len(test.ops) != 1:
                continue
            if not isinstance(test.ops[0], (ast.Eq, ast.Is)):
                continue
            sides = (test.left, test.comparators[0])
            for own, other in (sides, sides[::-1]):
                attr = _attribute_of(own, variable)
                if attr:
                    before = found.setdefault(attr, other)
                    if ast.dump(before) != ast.dump(other):
                        clashing.add(attr)
    return {k: v for k, v in found.items() if k not in clashing}


def spread_original(
    entries: Iterable[tuple[PatchEntry, object]], scope: str, attr: str, replacement: str
) -> Binding | None:
    """The upstream object whose ``attr`` an entry of ``scope`` (``entries``: the file's
    entries so far, with their conditions) set to ``replacement``, the first such one: a
    loop over ``sys.modules`` that then sets ``module.attr`` to that value in every module
    having it spreads that patch to the modules that imported the name (``from vllm.x
    import attr``), so the swap is named after it. ``None`` when the scope set no such
    object."""
    for entry, _conds in entries:
        if (
            entry.scope == scope
            and entry.key is None
            and entry.target.rpartition(".")[2] == attr
            and entry.replacement == replacement
        ):
            return Binding(entry.target, entry.module_hint)
    return None


def unnamed_swap(variable: str, attr: str, line: int) -> tuple[str, str, int]:
    """The ``setattr-name`` problem (kind, message, line) of ``variable.attr`` set in every
    module of a loop over ``sys.modules`` with nothing that names what it swaps."""
    return (
        "setattr-name",
        f"{variable}.{attr} is set in every module of a loop over sys.modules that has it, "
        "and no test of the loop compares it with an upstream object: that patch is not "
        f"listed; compare {variable}.{attr} with the original it replaces (== or is)",
        line,
    )


def _attribute_of(expr: ast.expr, variable: str) -> str:
    """``"Name"`` for ``variable.Name`` or ``getattr(variable, "Name"[, default])``, else
    ``""``."""
    if isinstance(expr, ast.Attribute):
        value = expr.value
        return expr.attr if isinstance(value, ast.Name) and value.id == variable else ""
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "getattr"
        and len(expr.args) in (2, 3)
        and isinstance(expr.args[0], ast.Name)
        and expr.args[0].id == variable
        and isinstance(expr.args[1], ast.Constant)
        and isinstance(expr.args[1].value, str)
    ):
        return expr.args[1].value
    return ""


def sys_modules_alias(
    stmt: ast.Assign | ast.AnnAssign, is_sys_modules: Callable[[ast.expr], bool]
) -> tuple[list[str], tuple[str, ast.expr] | None]:
    """The names the assignment ``stmt`` binds, and, when it binds one name to an item of
    ``sys.modules`` (``mod = sys.modules[m]`` or ``sys.modules.get(m[, default])``), that
    name with the item's key ``m``. ``is_sys_modules`` tells whether an expression is
    ``sys.modules`` in the file's name table."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    bound = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    value = stmt.value
    if len(targets) != 1 or not isinstance(targets[0], ast.Name) or value is None:
        return bound, None
    if isinstance(value, ast.Subscript) and is_sys_modules(value.value):
        return bound, (targets[0].id, value.slice)
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "get"
        and len(value.args) in (1, 2)
        and not value.keywords
        and is_sys_modules(value.func.value)
    ):
        return bound, (targets[0].id, value.args[0])
    return bound, None
