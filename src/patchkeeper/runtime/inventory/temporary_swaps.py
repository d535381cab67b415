"""Temporary swaps: an upstream object replaced only while a ``try`` runs.

``old = m.f; m.f = new; try: ... finally: m.f = old`` (or a registry item added before the
``try`` and deleted in its ``finally``) changes vLLM for the duration of one call, not for
the life of the process. Such an entry is kept in the inventory, marked ``temporary``, and
so is the restoring statement in the ``finally``: neither is a permanent patch, and
reporting one as such would ask the maintainers to port a change that vLLM never keeps.

A swap made only under a condition is undone under the same one: ``if bypass: m.f = new``
before the ``try`` and ``if bypass: m.f = old`` in its ``finally``. The restoring statements
are read inside the ``finally``'s ``if``/``else`` and ``with`` blocks too, so that such a swap
and its restore are temporary as well.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace

from patchkeeper.runtime.inventory.file_facts import CondSpec
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.syntax.names import Binding

#: ``(target, key)`` of an entry: the dotted upstream path and the registry key's source
#: text (``None`` for an attribute).
Restored = set[tuple[str, str | None]]


def restored_targets(
    body: list[ast.stmt], external: Callable[[ast.expr], Binding | None]
) -> Restored:
    """``(target, key)`` of each upstream attribute or registry item that a statement of
    ``body`` (a ``finally`` block) assigns, deletes, or sets with ``setattr`` and a literal
    name, also inside its ``if``/``else`` and ``with`` blocks (a restore made under the
    condition the swap was made under). ``external``: the binding of an expression when it
    names an upstream object
    (:meth:`~patchkeeper.runtime.inventory.decorator_forms.DecoratorForms.external`)."""
    found: Restored = set()
    for stmt in _restoring_statements(body):
        targets: list[ast.expr] = []
        if isinstance(stmt, (ast.Assign, ast.Delete)):
            targets = list(stmt.targets)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            name = call.args[1] if len(call.args) == 3 else None
            if (
                isinstance(call.func, ast.Name)
                and call.func.id == "setattr"
                and isinstance(name, ast.Constant)
                and isinstance(name.value, str)
            ):
                bound = external(call.args[0])
                if bound is not None:
                    found.add((f"{bound.dotted}.{name.value}", None))
        for target in targets:
            if isinstance(target, ast.Attribute):
                bound = external(target)
                if bound is not None:
                    found.add((bound.dotted, None))
            elif isinstance(target, ast.Subscript):
                bound = external(target.value)
                if bound is not None:
                    found.add((bound.dotted, ast.unparse(target.slice)))
    return found


def mark_temporary(
    entries: list[tuple[PatchEntry, tuple[CondSpec, ...]]],
    start: int,
    scope: str,
    stmt: ast.Try,
    restored: Restored,
) -> None:
    """In ``entries[start:]`` (the entries of one block of ``scope``, the ``try`` statement
    ``stmt`` last), mark as temporary (in place) those whose target the ``finally``
    restores: the swaps before it and the restoring statements themselves, both listed so
    that every line that touches the upstream object is seen."""
    if not restored or not stmt.finalbody:
        return
    last = stmt.finalbody[-1].end_lineno or stmt.finalbody[-1].lineno
    kept: list[tuple[PatchEntry, tuple[CondSpec, ...]]] = []
    for entry, conds in entries[start:]:
        if entry.scope == scope and (entry.target, entry.key) in restored and entry.line <= last:
            entry = replace(entry, temporary=True)  # the swap, or the restore itself
        kept.append((entry, conds))
    entries[start:] = kept


def _restoring_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of ``body`` and, in order, those of its ``if``/``else`` and ``with``
    blocks (nested ones too): where a ``finally`` may put an upstream object back. Function
    and class bodies are not entered (nothing in them runs as the ``finally`` runs)."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.If):
            out += _restoring_statements(stmt.body) + _restoring_statements(stmt.orelse)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            out += _restoring_statements(stmt.body)
        else:
            out.append(stmt)
    return out
