"""Wrappers set on a class or module the inventory cannot name: said, not dropped.

A plugin may wrap an upstream method it reaches only at run time: the first of several
seams that moved between releases, each loaded with ``getattr(importlib.import_module(m),
c)`` from a table of literals, and installed by a helper that keeps the original::

    def _wrap(cls, method):
        original = getattr(cls, method)

        def wrapper(self, *args, **kwargs):
            return original(self, *args, **kwargs)

        setattr(cls, method, wrapper)

No entry can name what that patches, yet it surely patches a class: the inventory makes it
a ``setattr-name`` finding at its line (:func:`unnamed_wrapper_problem`), so the audit
counts it as not audited and the lock as skipped. A ``setattr`` on another object the
reader cannot name (a request handed around, a layer's weight, a config value made from
the old one) changes no upstream code and is left alone.
"""

from __future__ import annotations

import ast

from patchkeeper.runtime.inventory.parameter_patches import wraps_original
from patchkeeper.runtime.syntax import astwalk, names


def unnamed_wrapper_problem(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    obj: ast.expr,
    name: ast.expr | str,
    value: ast.expr,
    line: int,
    *,
    parameter: bool,
) -> tuple[str, str, int] | None:
    """The ``(code, message, line)`` problem of ``setattr(obj, name, value)`` (``name`` an
    expression) or ``obj.name = value`` (``name`` the attribute) at ``line`` in
    ``function``, when the value calls on what it replaces (:func:`.wraps_original`,
    :func:`wraps_what_it_replaces`) and ``obj`` is a class or module the reader cannot name:
    a variable ``function`` binds to a module loaded at run time
    (:func:`loaded_at_run_time`), or, for a ``setattr`` whose attribute name is not known
    either, a parameter of ``function`` (``parameter``: no caller can say what it sets).
    ``None`` otherwise."""
    if not isinstance(obj, ast.Name):
        return None
    loaded = loaded_at_run_time(function, obj.id)
    if isinstance(name, str):
        if not loaded or not wraps_original(function, obj.id, name, value):
            return None
        shown = f"{obj.id}.{name} = ..."
    else:
        if not loaded and not parameter:
            return None
        if not wraps_what_it_replaces(function, obj, name, value):
            return None
        shown = f"setattr({obj.id}, {ast.unparse(name)}, ...)"
    return (
        "setattr-name",
        f"{shown} installs a wrapper that calls the original, on a class or module this "
        f"reader cannot name ({obj.id}): that patch is not listed; import what it "
        "patches by name (from package.module import Name) and patch that, so it can be named",
        line,
    )


def loaded_at_run_time(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether ``function`` binds ``name`` to a module imported by a computed name, or to an
    attribute of one: ``importlib.import_module(m)``, ``__import__(m)``, or ``getattr`` of
    either (``cls = getattr(importlib.import_module(module_name), class_name)``).

    >>> tree = ast.parse("def f(m, c):\\n    cls = getattr(importlib.import_module(m), c)\\n")
    >>> loaded_at_run_time(tree.body[0], "cls"), loaded_at_run_time(tree.body[0], "m")
    (True, False)
    """

    def is_import(expr: ast.expr) -> bool:
        if not isinstance(expr, ast.Call):
            return False
        func = expr.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if called in ("import_module", "__import__"):
            return True
        return called == "getattr" and bool(expr.args) and is_import(expr.args[0])

    return any(
        isinstance(stmt, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
        and is_import(stmt.value)
        for stmt in names.walk_statements(function.body)
    )


def wraps_what_it_replaces(
    function: ast.FunctionDef | ast.AsyncFunctionDef, obj: ast.expr, name: ast.expr, value: ast.expr
) -> bool:
    """Whether the value ``setattr(obj, name, value)`` installs in ``function`` calls on what
    it replaces, whatever ``obj`` and ``name`` are: the value reads ``getattr(obj,
    name[, default])`` (the same expressions), or names a function defined in ``function``
    that reads it, directly or through a name ``function`` binds to it (``original =
    getattr(cls, method)``, then ``def wrapper(...): return original(...)``), a lambda
    that reads it, or a call handed it (``decorate(original)``). Such a value is a monkey
    patch of whatever ``obj`` holds, even when nothing tells what that is; a value merely
    made from the old one (``{**old, "k": v}``) or the original put back is not."""
    key = (ast.dump(obj), ast.dump(name))

    def is_read(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and len(node.args) >= 2
            and (ast.dump(node.args[0]), ast.dump(node.args[1])) == key
        )

    aliases = {
        target.id
        for stmt in names.walk_statements(function.body)
        if isinstance(stmt, ast.Assign) and is_read(stmt.value)
        for target in stmt.targets
        if isinstance(target, ast.Name)
    }

    def reads(node: ast.AST) -> bool:
        return any(
            is_read(sub)
            or (isinstance(sub, ast.Name) and sub.id in aliases and isinstance(sub.ctx, ast.Load))
            for sub in astwalk.walk_all(node)
        )

    if isinstance(value, ast.Lambda):
        return reads(value)
    if isinstance(value, ast.Call):  # decorate(original), partial(wrapper, original)
        return any(reads(arg) for arg in [*value.args, *(k.value for k in value.keywords)])
    if not isinstance(value, ast.Name):
        return False  # a display or an operation: a value made from the old one, no wrapper
    for stmt in names.walk_statements(function.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == value.id:
            return reads(stmt)
    return False  # the original itself put back, or a value bound elsewhere
