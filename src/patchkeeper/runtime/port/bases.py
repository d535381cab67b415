"""Whether a plugin class derives from an upstream class, directly or through the plugin's own
classes.

A plugin often stacks its subclasses: ``class BalanceScheduler(KVDeliveryScheduler)`` where
the plugin's ``KVDeliveryScheduler`` (another patch file) derives from upstream's
``Scheduler``. Patched in as ``Scheduler``, ``BalanceScheduler`` is still a subclass: it
overrides some methods and inherits the rest, it is no full copy of upstream's class.
:func:`derives_from` follows each base the class names by a bare name to its definition in
the plugin (a class of the same module, or one its module imports by ``from MODULE import
NAME`` from a plugin module), with :mod:`ast` only: nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Protocol

from patchkeeper.runtime.syntax.parsing import parse_path

#: How many plugin classes deep a base is followed (a bound against cycles and long chains).
MAX_DEPTH = 8


class ModuleFiles(Protocol):
    """What :func:`derives_from` needs of the plugin tree
    (:class:`~patchkeeper.runtime.inventory.plugin.PluginTree` has it)."""

    def module_file(self, module: str) -> tuple[Path, bool] | None: ...


def _last(base: ast.expr) -> str:
    """The last name of a base expression (``vup.model.Table`` -> ``Table``); ``""`` for
    anything else (a call, a subscript such as ``Generic[T]``)."""
    if isinstance(base, ast.Name):
        return base.id
    if isinstance(base, ast.Attribute):
        return base.attr
    return ""


def _module_tree(files: ModuleFiles, module: str) -> ast.Module | None:
    found = files.module_file(module)
    if found is None:
        return None
    return parse_path(found[0])


def _imported_from(
    tree: ast.Module, module: str, is_package: bool, name: str
) -> tuple[str, str] | None:
    """``(module, name there)`` of the top-level ``from M import X [as name]`` that binds
    ``name`` in ``tree`` (the module ``module``; relative imports resolved against it),
    else ``None``."""
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        for alias in node.names:
            if (alias.asname or alias.name) != name:
                continue
            if node.level:
                parts = module.split(".") if is_package else module.split(".")[:-1]
                parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                source = ".".join([*parts, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            return source, alias.name
    return None


def _class(tree: ast.Module, name: str) -> ast.ClassDef | None:
    found = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    return found[-1] if found else None


def derives_from(files: ModuleFiles, module: str, node: ast.ClassDef, name: str) -> bool:
    """Whether the class ``node`` (defined in the plugin module ``module``) derives from a
    class named ``name`` (the last part of the upstream target's name): one of its bases is
    written ``name`` or ``x.y.name``, or is a plugin class (found as the module docstring
    says) that derives from it, at most :data:`MAX_DEPTH` classes deep.

    Args:
        files: the plugin tree (``module_file(module) -> (path, is_package) | None``).
        module: the dotted name of the module that defines ``node``.
        node: the class definition.
        name: the upstream class's own name (``Scheduler``).

    Returns:
        ``True`` or ``False``; a file that cannot be read or parsed counts as no base.
    """
    pending = [(module, node, 0)]
    seen: set[tuple[str, str]] = set()
    while pending:
        where, klass, depth = pending.pop()
        if (where, klass.name) in seen or depth > MAX_DEPTH:
            continue
        seen.add((where, klass.name))
        if any(_last(base) == name for base in klass.bases):
            return True
        tree = _module_tree(files, where)
        found = files.module_file(where)
        if tree is None or found is None:
            continue
        for base in klass.bases:
            if not isinstance(base, ast.Name):
                continue
            local = _class(tree, base.id)
            if local is not None and local is not klass and local.name != klass.name:
                pending.append((where, local, depth + 1))
                continue
            imported = _imported_from(tree, where, found[1], base.id)
            if imported is None:
                continue
            other = _module_tree(files, imported[0])
            target = _class(other, imported[1]) if other is not None else None
            if target is not None:
                pending.append((imported[0], target, depth + 1))
    return False


__all__ = ["MAX_DEPTH", "derives_from"]
