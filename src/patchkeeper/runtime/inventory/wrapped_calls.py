"""Whether a plugin function installed on an upstream target reaches the original: the
wrapper test of the file scanner's assignment forms.

A function that mentions the original (``_orig = Cls.meth``, then ``def meth(self): return
_orig(self)``) calls upstream's code: it is a *wrapper*, not a copy. A name it reads from an
enclosing function counts as that function binds it (``orig = Cls.meth`` in ``_patch()``, then
``def wrapped(...): return orig(...)`` in the same ``_patch()``). A call of a module-level
function of the same module, by its name or by a module-level name bound to it (``_inner =
_build_marked``, then ``def build(...): return _inner(...)``), runs that function: when it
calls the original, so does the replacement. The original may be saved by any reading of
it: ``Cls.meth``, ``getattr(Cls, "meth")``, or one that keeps the descriptor
(``Cls.__dict__["meth"]``, ``vars(Cls)["meth"]``, ``inspect.getattr_static(Cls, "meth")``),
whose ``__func__`` is called then. The attribute's name in ``getattr`` may be a module
constant (``_ATTR = "f"``, then ``_orig = getattr(Cls, _ATTR, None)``), as in the ``setattr``
that installs the wrapper.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from patchkeeper.runtime.syntax import astwalk, names
from patchkeeper.runtime.syntax.names import FunctionDef, ScopeBindings, Table

#: The nodes that can read an object by its dotted path: a name, an attribute, a subscript
#: of a namespace (``C.__dict__["f"]``), a call (``getattr(C, "f")``,
#: ``inspect.getattr_static(C, "f")``), as :func:`~patchkeeper.runtime.syntax.names.dotted`
#: reads them.
_READINGS = frozenset({ast.Name, ast.Attribute, ast.Subscript, ast.Call})


def reaches_original(
    replacement: str,
    original: str,
    module: str,
    is_package: bool,
    bindings: ScopeBindings,
    module_table: Table,
    defs: dict[str, list[FunctionDef]],
    constants: Mapping[str, str] | None = None,
) -> bool:
    """Whether the function of ``module`` named by ``replacement`` (``module:qualname``)
    mentions ``original`` (a dotted path), or calls a module-level function of ``module``
    that does, each function read once. ``bindings``, ``module_table`` and ``defs``
    (:meth:`ScopeBindings.functions`) are the module's; ``constants`` its module constants
    (name -> string), which ``getattr`` may name the attribute by. The functions whose
    qualified name is ``replacement``'s are read (any of that last name when none is); a
    replacement of another module is ``False``."""
    owner, _, first = replacement.partition(":")
    if owner != module or not first:
        return False
    constants = constants or {}
    module_saved: Mapping[str, str] = {}
    if constants:
        module_saved = _constant_reads(bindings.of(None), module_table, constants, {})
    seen: set[str] = set()
    pending = [first]
    while pending:
        qual = pending.pop()
        if qual in seen:
            continue
        seen.add(qual)
        found = defs.get(qual.rsplit(".", 1)[-1], [])
        exact = [(node, outer) for node, outer, path in found if path == qual]
        for node, outer in exact or [(node, outer) for node, outer, _ in found]:
            table = module_table
            saved = module_saved
            for scope in (*outer, node):
                table = names.layered_table(bindings.of(scope), table, module, is_package)
                if constants:
                    saved = _constant_reads(bindings.of(scope), table, constants, saved, scope)
            for sub in astwalk.walk_all(node):
                if sub.__class__ in _READINGS:
                    bound = names.dotted(sub, table)  # type: ignore[arg-type]
                    path = bound.dotted if bound is not None else None
                    if path is None and sub.__class__ is ast.Name:
                        path = saved.get(sub.id)
                    elif path is None and sub.__class__ is ast.Call:
                        path = _constant_getattr(sub, table, constants)
                    if path is not None and names.reads_original(path, original):
                        return True
                if sub.__class__ is ast.Call:
                    func = names.dotted(sub.func, table)
                    name = func.dotted[len(module) + 1 :] if func is not None else ""
                    if (
                        func is not None
                        and func.dotted.startswith(module + ".")
                        and "." not in name
                        and any(path == name for _, _, path in defs.get(name, []))
                    ):
                        pending.append(name)
    return False


def _constant_getattr(
    expr: ast.expr, table: names.Table, constants: Mapping[str, str]
) -> str | None:
    """The dotted path ``getattr(obj, NAME)`` (a default besides) reads when ``NAME`` is a
    module constant not rebound in the scope (``table``), the builtin ``getattr`` not
    rebound either; else ``None``."""
    if not (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "getattr"
        and "getattr" not in table
        and len(expr.args) in (2, 3)
        and isinstance(expr.args[1], ast.Name)
        and expr.args[1].id not in table
        and expr.args[1].id in constants
    ):
        return None
    base = names.dotted(expr.args[0], table)
    return None if base is None else f"{base.dotted}.{constants[expr.args[1].id]}"


def _constant_reads(
    statements: list[ast.stmt],
    table: names.Table,
    constants: Mapping[str, str],
    outer: Mapping[str, str],
    scope: ast.AST | None = None,
) -> Mapping[str, str]:
    """The names a scope (its binding ``statements``; ``scope``: its function, whose
    parameters hide the names around it) binds to ``getattr(obj, CONSTANT)``, over those of
    the scopes around it (``outer``), name -> the dotted path read: another binding of the
    name in the scope ends it."""
    found = dict(outer)
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = scope.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None:
                found.pop(arg.arg, None)
    for stmt in statements:
        if stmt.__class__ is ast.Assign:
            target = stmt.targets[0]
        elif stmt.__class__ is ast.AnnAssign:  # _orig: Callable = getattr(Cls, _ATTR, None)
            target = stmt.target
        else:
            continue
        if target.__class__ is not ast.Name:
            continue
        value = stmt.value
        path = _constant_getattr(value, table, constants) if value is not None else None
        if path is None:
            found.pop(target.id, None)
        else:
            found[target.id] = path
    return found if found != outer else outer


__all__ = ["reaches_original"]
