"""A patch whose upstream object falls back to the plugin's own when the import fails.

A plugin may import the object it patches from an upstream module that only some releases
have, and fall back to its own copy when the import fails::

    try:
        from vllm.model_executor.models.qwen2_eagle import Qwen2Model
    except ImportError:
        from ..models.qwen2_eagle import Qwen2Model

    Qwen2Model.load_weights = load_weights

The inventory names the target after the ``try``'s import
(``vllm.model_executor.models.qwen2_eagle.Qwen2Model.load_weights``). When neither release
has that module, the import fails at both, the ``except`` binds the plugin's own class and
the patch replaces the plugin's own attribute: nothing upstream is patched, so this upgrade
changes nothing for it (*retain*), where the missing module alone would say the patch can
never apply; and ``runtime lock`` has nothing upstream to guard (not locked, no finding). A
release that adds the module makes it an upstream patch again.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from patchkeeper.runtime.inventory.conditions import catches_import_error
from patchkeeper.runtime.inventory.file_facts import is_plugin
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.syntax import names
from patchkeeper.runtime.syntax.parsing import plugin_file_tree


class Fallback(NamedTuple):
    """What the patch replaces when the upstream import fails: ``own``, the plugin's object
    the ``except`` imports (``plug.models.qwen2_eagle.Qwen2Model``), ``target``, the
    patched name in it (``plug.models.qwen2_eagle.Qwen2Model.load_weights``), and ``where``,
    the file and line of that import (``plug/patch/eagle.py:10``)."""

    own: str
    target: str
    where: str


def _innermost_scope(tree: ast.Module, line: int) -> list[ast.stmt]:
    """The body of the innermost function holding ``line`` (the module's when none)."""
    body: list[ast.stmt] = tree.body
    found = True
    while found:
        found = False
        for node in names.walk_statements(body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                end = node.end_lineno or node.lineno
                if node.lineno <= line <= end:
                    body, found = node.body, True
                    break
    return body


def _binds(statements: list[ast.stmt], module: str, is_package: bool) -> dict[str, str]:
    """The names the import statements among ``statements`` bind, to their dotted paths."""
    bound: dict[str, str] = {}
    for statement in statements:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            for name, binding in names.import_bindings(statement, module, is_package).items():
                bound[name] = binding.dotted
    return bound


def import_fallback(entry: PatchEntry, tree: ast.Module | None, package: str) -> Fallback | None:
    """The plugin's own object ``entry`` patches when its upstream import fails: a ``try``
    in the scope of the patch statement imports the name the target starts with, and an
    ``except`` catching ``ImportError`` imports that name from the plugin's package
    ``package``; ``None`` otherwise (``tree``: the parse of the entry's file, ``None``
    when it cannot be parsed)."""
    if tree is None:
        return None
    is_package = entry.file.endswith("__init__.py")
    for node in names.walk_statements(_innermost_scope(tree, entry.line)):
        if not isinstance(node, ast.Try) or node.lineno > entry.line:
            continue
        upstream = _binds(node.body, entry.module, is_package)
        for handler in node.handlers:
            if not catches_import_error(handler):
                continue
            for statement in handler.body:
                own = _binds([statement], entry.module, is_package)
                for name, dotted in own.items():
                    imported = upstream.get(name, "")
                    if not imported or not is_plugin(dotted, package):
                        continue
                    if entry.target == imported or entry.target.startswith(f"{imported}."):
                        rest = entry.target[len(imported) :]
                        return Fallback(dotted, dotted + rest, f"{entry.file}:{statement.lineno}")
    return None


def fallbacks(
    entries: Iterable[PatchEntry], root: Path, package: str, missing: Callable[[str], bool]
) -> dict[str, Fallback]:
    """The :func:`import_fallback` of each entry whose target's owner (its target without
    the last part) ``missing`` says the release lacks, by target (the entry's file read from
    the plugin at ``root``; an entry without a fallback is left out)."""
    found: dict[str, Fallback] = {}
    for entry in entries:
        owner = entry.target.rpartition(".")[0]
        if not owner or entry.target in found or not missing(owner):
            continue
        fallback = import_fallback(entry, plugin_file_tree(root / entry.file), package)
        if fallback is not None:
            found[entry.target] = fallback
    return found
