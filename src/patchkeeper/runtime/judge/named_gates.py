"""Version gates reached through a name: ``backports = vllm_version_is("0.26.0")`` and, further
down, ``if backports:`` around the patch.

A plugin often computes its version test once and keeps it in a name (a module constant
``_IS_RELEASE = vllm_version_is("0.25.1")``, or a local of the function that installs the
patches), then guards its patches with that name. The inventory records the condition as it
is written (``if backports``): a bare name, which
:func:`patchkeeper.runtime.syntax.gates.evaluate` cannot decide. This module reads the name's
one assignment in the scope of the condition (the function that holds the ``if``, else the
module) and decides the test the name stands for.

An entry whose branch runs at the old release and not at the new one is dead code there, as
behind a version gate written out (the judge's rule 2: *remove*): the plugin wrote the
patch for the old release only. Nothing is decided when the name is bound more than once in
its scope (a later ``x = x or ...``, a loop target, a ``global``), when its value is not
made only of version tests the gate reader knows, or when the branch did not run at the old
release either (a patch the plugin wrote ahead for the new release is not dead).

From the vllm-ascend history (``benchmarks/runtime_history.py``): the maintainers deleted
the patches behind ``install_reasoning_boundary_backports = vllm_version_is("0.26.0")`` when
they moved to vLLM 0.27.1, and the one behind ``_IS_VLLM_RELEASE = vllm_version_is("0.25.1")``
when they moved to 0.26.0.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from patchkeeper.runtime.model import Condition, PatchEntry
from patchkeeper.runtime.syntax.gates import evaluate
from patchkeeper.runtime.syntax.unparse import negated

#: A condition that is a name, perhaps under ``not``: ``backports``, ``not _IS_RELEASE``.
NAMED = re.compile(r"^(?P<negated>not\s+)?\(?\s*(?P<name>[A-Za-z_]\w*)\s*\)?$")

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of ``scope``'s body, nested functions and classes left out (their names are
    their own)."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return out


def _scope_of(module: ast.Module, line: int) -> ast.AST:
    """The innermost function holding ``line``, else ``module``."""
    found: ast.AST = module
    todo: list[ast.AST] = [module]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                end = child.end_lineno or child.lineno
                if child.lineno <= line <= end:
                    found = child
                    todo.append(child)
            elif isinstance(child, ast.stmt):
                todo.append(child)
    return found


def _bindings(scope: ast.AST, name: str) -> tuple[int, list[ast.expr]]:
    """How often ``scope`` binds ``name`` (assignments, loop and ``with`` targets, imports,
    definitions; a ``global``/``nonlocal`` declaration or a parameter of the function counts
    as two: never one value), and
    the values of its plain assignments ``name = value`` / ``name: T = value``."""
    values: list[ast.expr] = []
    stores = 0
    for node in _own_nodes(scope):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            stores += 2
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            stores += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stores += node.name == name
        elif isinstance(node, ast.alias) and (node.asname or node.name) == name:
            stores += 1
        elif isinstance(node, ast.arg) and node.arg == name:
            stores += 2  # a parameter: its value comes from the caller
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id == name:
                values.append(node.value)
        elif (
            isinstance(node, ast.AnnAssign)
            and node.value is not None
            and isinstance(node.target, ast.Name)
            and node.target.id == name
        ):
            values.append(node.value)
    return stores, values


def _value(module: ast.Module, line: int, name: str) -> ast.expr | None:
    """The expression ``name`` is bound to where the test at ``line`` reads it: in the
    innermost function holding the line when that function binds the name, else at module
    level; ``None`` unless that scope binds it exactly once, by a plain assignment."""
    scope = _scope_of(module, line)
    stores, values = _bindings(scope, name)
    if not stores and scope is not module:
        stores, values = _bindings(module, name)
    return values[0] if stores == 1 and len(values) == 1 else None


def named_test(module: ast.Module, condition: Condition) -> tuple[str, str] | None:
    """The name ``condition`` (a bare name, or its ``not``) tests and the source of the
    value it is bound to in the plugin file parsed as ``module``
    (``("_IS_RELEASE", 'vllm_version_is("0.25.1")')``); ``None`` when the condition is not
    a name or the name has no single assignment in the scope of the condition
    (:func:`_value`)."""
    found = NAMED.match(condition.text.strip())
    if found is None:
        return None
    value = _value(module, condition.line, found["name"])
    return None if value is None else (found["name"], ast.unparse(value))


def dead_named_gate(
    modules: Mapping[str, ast.Module | None], entry: PatchEntry, versions: tuple[str, str]
) -> str:
    """Why the first condition on the way to ``entry`` that is a name bound to a version test
    runs at the old release and not at the new one (``versions``: old, new), as one
    sentence naming the condition's file and line and the test; ``""`` when there is none.
    ``modules``: the plugin's files parsed, by path relative to its root, looked up only for
    a condition that is a name (``None``, a file that cannot be read or parsed, decides
    nothing; :class:`~patchkeeper.runtime.syntax.parsing.ParsedFiles` parses on demand)."""
    activation = entry.activation
    if activation is None or not all(versions):
        return ""
    for condition in activation.conditions:
        found = NAMED.match(condition.text.strip())
        if found is None:
            continue
        module = modules[condition.file]
        if module is None:
            continue
        named = named_test(module, condition)
        if named is None:
            continue
        name, value = named
        # the text is what holds on the branch (an ``else``'s is already its test negated):
        # its own ``not`` applies to the value
        test = f"not ({value})" if found["negated"] else value
        if evaluate(test, versions[0]) is True and evaluate(test, versions[1]) is False:
            where = f"{condition.file}:{condition.line}"
            text = condition.text.strip()
            gate = f"the else of if {negated(text)}" if condition.kind == "else" else f"if {text}"
            return (
                f"its version gate is false at {versions[1]} ({where}: {gate}, where "
                f"{name} = {value}): the patch runs at {versions[0]} only: dead code there"
            )
    return ""
