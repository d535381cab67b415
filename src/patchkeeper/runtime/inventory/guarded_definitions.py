"""Replacements defined under a module-level ``if``, ``try`` or ``with`` of a plugin file.

``if not HAS_TRITON: def f(): ...`` then ``m.f = f`` installs the module's own ``f``, as a
``def`` at the top would: the patch's replacement is ``module:f`` (a method ``C.m`` of a
class so defined: ``module:C.m``), not an expression. Only the value a patch installs is
read so; the module's name table is left as it is (a stub class of an ``except
ImportError`` fallback must not stand for the import an alias of it shadows there).
"""

from __future__ import annotations

import ast
import weakref

from patchkeeper.runtime.syntax import names


def guarded_names(tree: ast.Module) -> frozenset[str]:
    """The functions and classes ``tree`` defines at module level under a compound
    statement (not those at the top, which the module's name table holds); read once per
    tree."""
    found = _GUARDED.get(tree)
    if found is None:
        top = {id(stmt) for stmt in tree.body}
        found = frozenset(
            stmt.name
            for stmt in names.walk_statements(tree.body)
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and id(stmt) not in top
        )
        _GUARDED[tree] = found
    return found


#: :func:`guarded_names` by tree, kept while the tree is.
_GUARDED: weakref.WeakKeyDictionary[ast.Module, frozenset[str]] = weakref.WeakKeyDictionary()


def binding(node: ast.expr, tree: ast.Module, module: str) -> names.Binding | None:
    """The object of ``module`` (whose tree is ``tree``) that ``node``, a name or an
    attribute of one read in the module's scope, names when its first name is defined under
    a module-level compound statement (:func:`guarded_names`); ``None`` otherwise."""
    chain: list[str] = []
    root: ast.expr = node
    while isinstance(root, ast.Attribute):
        chain.append(root.attr)
        root = root.value
    if not isinstance(root, ast.Name) or root.id not in guarded_names(tree):
        return None
    return names.Binding(".".join([module, root.id, *reversed(chain)]), module)
