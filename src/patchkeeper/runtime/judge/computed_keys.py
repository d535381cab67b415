"""The decision for a ``sys.modules`` entry whose key is computed at run time.

Which module such an entry replaces is not known statically
(:func:`~patchkeeper.runtime.inventory.module_constants.is_computed_key`), so what the judge
keeps as outside the upstream (*retain*) is for a person to look at (*look*). One thing
the plugin's code can still tell: where the key starts. A key built as
``f"transformers.models.{name}.{sub}"`` (or ``"transformers.models." + name``), directly or
through a name the entry's function binds to such values, only ever names modules of the
package before its first dot. When every value it gets starts in a package outside the
upstream being upgraded, the upgrade does not change the modules it replaces: *retain*, as
for any target outside the upstream (``torch``), with the computed key said in the evidence
(vllm-mindspore's ``transformers_patch.py`` swaps ``transformers.models`` submodules for
``mindone``'s under keys computed in a loop; its maintainers kept both such entries).
"""

from __future__ import annotations

import ast

from patchkeeper.runtime.inventory.file_facts import MODULE_SCOPE
from patchkeeper.runtime.inventory.module_constants import computed_key_evidence
from patchkeeper.runtime.judge.drift import LOOK, RETAIN, Drift
from patchkeeper.runtime.model import PatchEntry

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def fixed_start(value: ast.expr) -> str:
    """The literal text a string expression starts with: an f-string's text before its
    first placeholder, the left operand of a ``+`` chain, a constant string whole; ``""``
    for anything else.

    >>> fixed_start(ast.parse('f"transformers.models.{a}.{b}"', mode="eval").body)
    'transformers.models.'
    >>> fixed_start(ast.parse('"vllm." + name', mode="eval").body)
    'vllm.'
    >>> fixed_start(ast.parse('prefix + ".x"', mode="eval").body)
    ''
    """
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    if isinstance(value, ast.JoinedStr):
        text = ""
        for part in value.values:
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                break
            text += part.value
        return text
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        return fixed_start(value.left)
    return ""


def _scope(
    tree: ast.Module, scope: str
) -> ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function ``scope`` (its qualified name, ``Class.method`` included) of ``tree``;
    the module itself for :data:`MODULE_SCOPE`; ``None`` when not found."""
    if scope == MODULE_SCOPE:
        return tree
    node: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef = tree
    for part in scope.split("."):
        found = next(
            (n for n in node.body if isinstance(n, (*_FUNCTIONS, ast.ClassDef)) and n.name == part),
            None,
        )
        if found is None:
            return None
        node = found
    return node if isinstance(node, (ast.Module, *_FUNCTIONS)) else None


def _own_nodes(body: list[ast.stmt]) -> list[ast.AST]:
    """Every node of ``body`` but those inside nested functions, classes and lambdas."""
    out: list[ast.AST] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef, ast.Lambda)):
            continue
        out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return out


def key_starts(tree: ast.Module | None, entry: PatchEntry) -> tuple[str, ...]:
    """The fixed starts (:func:`fixed_start`, sorted, each once) of the values the computed
    key of ``entry`` takes in the plugin file (``tree``: its parse): the key expression's own when
    it is not a bare name; for a name, those of every value its function (its own
    statements, not nested definitions') assigns it. ``()`` when one of them has no fixed
    start, when the name is bound otherwise too (a parameter, a loop, ``with``, ``:=``,
    ``+=``, an import) or not at all there, or when the file cannot be parsed (``tree`` is
    ``None``)."""
    if tree is None:
        return ()
    try:
        key = ast.parse(entry.key or "", mode="eval").body
    except SyntaxError:
        return ()
    if not isinstance(key, ast.Name):
        start = fixed_start(key)
        return (start,) if start else ()
    scope = _scope(tree, entry.scope)
    if scope is None:
        return ()
    if not isinstance(scope, ast.Module):
        arguments = scope.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
        if any(a.arg == key.id for a in every):
            return ()
    nodes = _own_nodes(scope.body)
    values = [
        node.value
        for node in nodes
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == key.id for t in node.targets)
    ]
    stored = sum(
        1
        for node in nodes
        if isinstance(node, ast.Name) and node.id == key.id and isinstance(node.ctx, ast.Store)
    )
    imported = any(
        isinstance(node, (ast.Import, ast.ImportFrom))
        and any((a.asname or a.name.split(".")[0]) == key.id for a in node.names)
        for node in nodes
    )
    if imported or stored != len(values):
        return ()  # bound by something other than a plain assignment of one name
    starts = [fixed_start(v) for v in values]
    return tuple(sorted(set(starts))) if starts and all(starts) else ()


def computed_key_decision(
    entry: PatchEntry, decision: Drift, tree: ast.Module | None, upstream: tuple[str, ...]
) -> Drift:
    """The decision for a computed-key entry (see the module docstring): a removal the
    judge decided for other reasons (a dead version gate, never imported) and any decision
    but *retain* stand; a *retain* stays when every value of the key starts in a package
    outside ``upstream`` (the packages being upgraded; ``tree``: the plugin file's parse),
    else it becomes *look*."""
    if decision.decision != RETAIN:
        return decision
    said = computed_key_evidence(entry)
    starts = key_starts(tree, entry)
    # the package a key names is known once its start holds a dot: "transformers.models."
    packages = sorted({start.partition(".")[0] for start in starts})
    known = bool(starts) and all("." in start for start in starts)
    if known and not set(packages) & {u.partition(".")[0] for u in upstream}:
        listed = ", ".join(f"{start!r}" for start in starts)
        return Drift(
            RETAIN,
            (
                f"sys.modules[{entry.key}] ({entry.file}:{entry.line}): the key is computed at "
                f"run time, but every value it takes starts with {listed}, in "
                f"{', '.join(packages)}, outside the upstream being upgraded "
                f"({', '.join(upstream)}): this upgrade does not change the modules it "
                "replaces",
                said,
            ),
        )
    return Drift(LOOK, (said,))
