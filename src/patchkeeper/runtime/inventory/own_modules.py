"""``sys.modules`` keys that name only the plugin's own modules.

A ``sys.modules[name] = module`` statement patches upstream when ``name`` is an upstream
module; when ``name`` is a module of the plugin's own package it only redirects the
plugin's own imports (an alias, an import proxy), which no upstream release can change:
no entry. Two forms tell it statically:

- the key is a literal or a constant whose value is in the plugin's package
  (``sys.modules["plugin.compat"] = shim``);
- the key is the name parameter of a loader's ``load_module(self, fullname)`` whose
  class the same file builds only in a finder's ``find_spec`` / ``find_module``, inside an
  ``if fullname.startswith(PREFIX):`` where ``PREFIX`` is in the plugin's package
  (``f"{__name__}.vllm"`` in the package's ``__init__``): the import system hands a loader
  only the names its finder accepted (:func:`own_loader_key`).
"""

from __future__ import annotations

import ast

from patchkeeper.runtime.inventory.file_facts import is_plugin

#: The loader method the import system calls with the name of the module it imports.
LOADER_METHOD = "load_module"
#: The finder methods the import system asks for a module by name.
FINDER_METHODS = frozenset({"find_spec", "find_module"})


def own_module(
    name: str | None, tree: ast.Module, where: tuple[str, ast.expr], plugin: tuple[str, str]
) -> bool:
    """Whether ``sys.modules[key] = ...`` names only modules of the plugin's own package:
    ``name``, the key's value when it is a literal or a constant (else ``None``), is in the
    package, or the key is the name a loader of the plugin's own modules is given
    (:func:`own_loader_key`). ``where``: the statement's scope and key in the parsed file
    ``tree``; ``plugin``: the file's module and the plugin's package."""
    module, package = plugin
    if name is not None:
        return is_plugin(name, package)
    return own_loader_key(tree, where[0], where[1], module, package)


def own_loader_key(tree: ast.Module, scope: str, key: ast.expr, module: str, package: str) -> bool:
    """Whether the ``sys.modules`` key ``key``, met in ``scope`` (``Class.method``) of the
    parsed file ``tree`` of plugin module ``module``, is the name a loader of the plugin's
    own modules is given: ``scope`` is ``load_module`` of a module-level class, ``key`` its
    name parameter, and every call of the class in the file is in a finder method of a
    module-level class, in the body of an ``if`` that tests the finder's name parameter
    with ``.startswith(PREFIX)``, ``PREFIX`` a string in ``package`` (a literal, an
    f-string of literals and ``__name__``, or a name the finder binds once to one).
    ``False`` whenever any of it cannot be read (a class called elsewhere, another guard).

    >>> source = '''
    ... class Loader:
    ...     def load_module(self, fullname):
    ...         sys.modules[fullname] = object()
    ... class Finder:
    ...     def find_spec(self, fullname, path, target=None):
    ...         prefix = f"{__name__}.compat"
    ...         if fullname.startswith(prefix):
    ...             return ModuleSpec(fullname, Loader())
    ... '''
    >>> tree = ast.parse(source)
    >>> key = ast.Name("fullname")
    >>> own_loader_key(tree, "Loader.load_module", key, "plug", "plug")
    True
    >>> own_loader_key(tree, "Loader.load_module", key, "other", "plug")
    False
    """
    parts = scope.split(".")
    if len(parts) != 2 or parts[1] != LOADER_METHOD or not isinstance(key, ast.Name):
        return False
    classes = {s.name: s for s in tree.body if isinstance(s, ast.ClassDef)}
    loader = classes.get(parts[0])
    method = _method(loader, LOADER_METHOD) if loader is not None else None
    if method is None or _name_parameter(method) != key.id:
        return False
    mentions: set[int] = set()
    for cls in classes.values():
        for node in cls.body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            found = _mentions(node, loader.name)  # type: ignore[union-attr]
            if not found:
                continue
            if node.name not in FINDER_METHODS:
                return False
            if _guarded(node, loader.name, module, package) != found:  # type: ignore[union-attr]
                return False
            mentions |= found
    for stmt in tree.body:
        if not isinstance(stmt, ast.ClassDef) and _mentions(stmt, loader.name):  # type: ignore[union-attr]
            return False
    return bool(mentions)


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The method ``name`` defined directly in ``cls``, else ``None``."""
    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return node
    return None


def _name_parameter(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The parameter after ``self`` of the method ``node`` (``""`` when there is none)."""
    params = [*node.args.posonlyargs, *node.args.args]
    return params[1].arg if len(params) > 1 else ""


def _mentions(node: ast.AST, name: str) -> set[int]:
    """The mentions of the plain name ``name`` in ``node`` (its calls and any other use: a
    class handed on is counted too, so that it is never taken as guarded), by node id."""
    return {id(n) for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == name}


def _guarded(
    finder: ast.FunctionDef | ast.AsyncFunctionDef, name: str, module: str, package: str
) -> set[int]:
    """The mentions of ``name`` in ``finder`` that sit in the body of an ``if`` whose test
    is ``PARAM.startswith(PREFIX)`` with ``PARAM`` the finder's name parameter and
    ``PREFIX`` a string in ``package`` followed by a dot (:func:`_prefix`)."""
    param = _name_parameter(finder)
    found: set[int] = set()
    for node in ast.walk(finder):
        if not isinstance(node, ast.If):
            continue
        test = node.test
        if not (
            isinstance(test, ast.Call)
            and isinstance(test.func, ast.Attribute)
            and test.func.attr == "startswith"
            and isinstance(test.func.value, ast.Name)
            and test.func.value.id == param
            and len(test.args) == 1
            and not test.keywords
        ):
            continue
        prefix = _prefix(test.args[0], finder, module)
        if prefix is not None and prefix.startswith(package + "."):
            for stmt in node.body:
                found |= _mentions(stmt, name)
    return found


def _prefix(
    expr: ast.expr, finder: ast.FunctionDef | ast.AsyncFunctionDef, module: str
) -> str | None:
    """The string ``expr`` stands for in ``finder`` of plugin module ``module``: a literal,
    an f-string of literals and ``__name__``, or a name ``finder`` binds once to one;
    ``None`` otherwise."""
    if isinstance(expr, ast.Name) and expr.id != "__name__":
        bound = [
            node
            for node in ast.walk(finder)
            if isinstance(node, ast.Name)
            and expr.id == node.id
            and not isinstance(node.ctx, ast.Load)
        ]
        values = [
            stmt.value
            for stmt in ast.walk(finder)
            if isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id == expr.id
        ]
        if len(bound) != 1 or len(values) != 1:
            return None
        expr = values[0]
    if isinstance(expr, ast.Name):
        return module if expr.id == "__name__" else None
    if isinstance(expr, ast.Constant):
        return expr.value if isinstance(expr.value, str) else None
    if isinstance(expr, ast.JoinedStr):
        parts: list[str] = []
        for part in expr.values:
            if isinstance(part, ast.FormattedValue):
                if part.format_spec is not None or part.conversion not in (-1, 115):
                    return None
                value = part.value
                if not (isinstance(value, ast.Name) and value.id == "__name__"):
                    return None
                parts.append(module)
            elif isinstance(part, ast.Constant) and isinstance(part.value, str):
                parts.append(part.value)
            else:
                return None
        return "".join(parts)
    return None
