"""The function a plugin binds a replacement's name to at the new release through a version
gate.

A plugin that follows upstream's releases may bind the name it installs (``categorical_sample``)
in a module-level ``if vllm_version_is("0.28.0"): ... else: ...``, one branch per release, each
branch binding a function with that release's signature (``def`` of the name, or an
assignment of the name from a function defined in the branch or at module level). The audit's
copy rules read no such name (it is not one definition); :func:`gated_parameters` finds the
function the branch live at the new release binds, so that the judge can see the plugin
already takes the new upstream signature there
(:func:`patchkeeper.runtime.judge.judge.judge_pending`, rule 7).
"""

from __future__ import annotations

import ast
from pathlib import Path

from patchkeeper.runtime.judge.replacement import may_hold_gate, plugin_tree
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.syntax.gates import evaluate_node, moves

_Function = ast.FunctionDef | ast.AsyncFunctionDef
#: A parameter of :func:`parameter_shape`: ``(name, kind, has a default)``.
Parameter = tuple[str, str, bool]
#: What a version gate binds a replacement's name to at the new release: ``(the module's
#: path in the plugin, the gate's line, the bound function's parameter_shape, the gate's test
#: when the upgrade moves it: decided at the old and the new release with different outcomes,
#: else "")``, or ``None``.
Gated = tuple[str, int, tuple[Parameter, ...], str] | None


def parameter_shape(arguments: ast.arguments) -> tuple[tuple[str, str, bool], ...]:
    """The parameters of a signature as ``(name, kind, has a default)``, kind one of
    ``positional-only``, ``positional``, ``*``, ``keyword-only``, ``**``; annotations are
    left out (a plugin writes its own)."""
    shape: list[tuple[str, str, bool]] = []
    positional = [*arguments.posonlyargs, *arguments.args]
    first_default = len(positional) - len(arguments.defaults)
    for index, arg in enumerate(positional):
        kind = "positional-only" if index < len(arguments.posonlyargs) else "positional"
        shape.append((arg.arg, kind, index >= first_default))
    if arguments.vararg is not None:
        shape.append((arguments.vararg.arg, "*", False))
    for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        shape.append((arg.arg, "keyword-only", default is not None))
    if arguments.kwarg is not None:
        shape.append((arguments.kwarg.arg, "**", False))
    return tuple(shape)


def _binding(body: list[ast.stmt], name: str, functions: dict[str, _Function]) -> _Function | None:
    """The function the statements ``body`` bind ``name`` to last (``def name`` or
    ``name = f`` / ``name: T = f`` with ``f`` a function of ``functions`` or of ``body``);
    ``None`` when they do not bind it to a known function."""
    found: _Function | None = None
    local = dict(functions)
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            local[node.name] = node
            if node.name == name:
                found = node
            continue
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            found = local.get(value.id) if isinstance(value, ast.Name) else None
    return found


def _gate(file: Path, name: str, version: str) -> tuple[ast.If, _Function] | None:
    """The last module-level version gate of ``file`` whose branch live at upstream
    ``version`` binds ``name`` to a function, with that function; ``None`` when none (also
    when the file cannot be read or parsed, or ``version`` is ``""``)."""
    if not version or not may_hold_gate(file):
        return None
    tree = plugin_tree(file)
    if tree is None:
        return None
    functions: dict[str, _Function] = {}
    result: tuple[ast.If, _Function] | None = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[node.name] = node
        if not isinstance(node, ast.If):
            continue
        live = evaluate_node(node.test, version)
        if live is None:
            continue
        bound = _binding(node.body if live else node.orelse, name, functions)
        if bound is not None:
            result = (node, bound)
    return result


def gated_parameters(
    file: Path, name: str, version: str
) -> tuple[int, tuple[tuple[str, str, bool], ...]] | None:
    """``(line of the gate, parameter_shape)`` of the function the module ``file`` binds
    ``name`` to in the branch of a module-level version gate live at upstream ``version``;
    ``None`` when no decidable gate binds it there (also when the file cannot be read or
    parsed, or ``version`` is ``""``).

    Raises nothing: an unreadable module is no evidence."""
    found = _gate(file, name, version)
    return None if found is None else (found[0].lineno, parameter_shape(found[1].args))


def moving_gate(file: Path, name: str, versions: tuple[str, str]) -> str:
    """The test (source text) of the module-level version gate of ``file`` that binds
    ``name`` at the new release of ``versions`` (old, new) when the upgrade moves it (it, or
    a part of it, is decided at both releases with different outcomes:
    :func:`patchkeeper.runtime.syntax.gates.moves`); ``""`` when none moves, or
    a version is ``""``. Raises nothing."""
    found = _gate(file, name, versions[1]) if all(versions) else None
    if found is None or not moves(found[0].test, versions):
        return ""
    return ast.unparse(found[0].test)


def gated_bindings(
    module_files: dict[str, tuple[Path, str]],
    entries: list[PatchEntry],
    version: str,
    old: str = "",
) -> dict[str, Gated]:
    """Per replacement (``module:name``, a module-level name), the signature the branch of a
    version gate live at upstream ``version`` binds it to (:func:`gated_parameters`), with
    the module's path relative to the plugin's root; replacements no such gate binds are
    left out. ``module_files``: each module's file and relative path
    (:attr:`patchkeeper.runtime.inventory.plugin.PluginReading.module_files`); ``old``: the
    old release, for the gate's test when the upgrade from it moves the gate
    (:func:`moving_gate`; ``""`` when not given). Each module is read once."""
    found: dict[str, Gated] = {}
    for replacement in sorted({e.replacement for e in entries}):
        module, _, name = replacement.partition(":")
        if not name or "." in name or "<" in name:
            continue
        where = module_files.get(module)
        if where is None:
            continue
        bound = gated_parameters(where[0], name, version)
        if bound is not None:
            moved = moving_gate(where[0], name, (old, version))
            found[replacement] = (where[1], *bound, moved)
    return found
