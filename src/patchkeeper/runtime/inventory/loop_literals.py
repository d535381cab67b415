"""The literal items of a ``for`` loop, to name the targets of patches made in its body.

``for name in ("fwd", "bwd"): setattr(vllm.x, name, new)`` patches ``vllm.x.fwd`` and
``vllm.x.bwd``; ``for m, name in [("vllm.a", "f"), ("vllm.b", "g")]:
setattr(sys.modules[m], name, new)`` patches ``vllm.a.f`` and ``vllm.b.g``. A loop over
anything else (a name, a call, a non-string item) gives nothing: its targets cannot be told
from the source, and no entry is made up for them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

#: One iteration of a loop: its variable names -> their literal string values.
Item = dict[str, str]


def literal_items(stmt: ast.stmt) -> list[Item] | None:
    """One :data:`Item` per element of ``for TARGET in (...)`` when the iterable is a
    tuple, list or set literal of strings (or, for a tuple target ``a, b``, of tuples of
    strings of that length); else ``None``."""
    if not isinstance(stmt, (ast.For, ast.AsyncFor)):
        return None
    if not isinstance(stmt.iter, (ast.Tuple, ast.List, ast.Set)):
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
    for element in stmt.iter.elts:
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
    in ``exprs``, one by one; a single empty item when none does."""
    used = {n.id for e in exprs for n in ast.walk(e) if isinstance(n, ast.Name)}
    for items in reversed(loops):
        if items and used & set(items[0]):
            yield from items
            return
    yield {}
