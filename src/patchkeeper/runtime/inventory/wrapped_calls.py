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
whose ``__func__`` is called then.
"""

from __future__ import annotations

import ast

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
) -> bool:
    """Whether the function of ``module`` named by ``replacement`` (``module:qualname``)
    mentions ``original`` (a dotted path), or calls a module-level function of ``module``
    that does, each function read once. ``bindings``, ``module_table`` and ``defs``
    (:meth:`ScopeBindings.functions`) are the module's. The functions whose qualified name is
    ``replacement``'s are read (any of that last name when none is); a replacement of
    another module is ``False``."""
    owner, _, first = replacement.partition(":")
    if owner != module or not first:
        return False
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
            for scope in (*outer, node):
                table = names.layered_table(bindings.of(scope), table, module, is_package)
            for sub in astwalk.walk_all(node):
                if sub.__class__ in _READINGS:
                    bound = names.dotted(sub, table)  # type: ignore[arg-type]
                    if bound is not None and names.reads_original(bound.dotted, original):
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


__all__ = ["reaches_original"]
