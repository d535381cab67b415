"""What differs between two definitions besides their bodies, and the strings they name.

The parts of :func:`patchkeeper.runtime.judge.drift.decide`'s comparison of an upstream
definition's two releases that read the definitions' headers (kind, signature, return
annotation, bases, decorators: :func:`signature_changes`), tell which of those changes a
call sees (:func:`call_changes`), and find the string constants the replacement names that
upstream's new body dropped (:func:`dropped_literals`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from patchkeeper.runtime.syntax.astwalk import of_kinds

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def signature_changes(old: ast.stmt, new: ast.stmt) -> list[str]:
    """What differs between two definitions besides the body: kind, signature, decorators, bases."""
    changes = []
    if type(old) is not type(new):
        changes.append(f"kind: {type(old).__name__} -> {type(new).__name__}")
        return changes
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    if isinstance(old, functions) and isinstance(new, functions):
        a, b = ast.unparse(old.args), ast.unparse(new.args)
        if a != b:
            changes.append(f"signature: ({a}) -> ({b})")
        ra = ast.unparse(old.returns) if old.returns else ""
        rb = ast.unparse(new.returns) if new.returns else ""
        if ra != rb:
            changes.append(f"return annotation: {ra or '-'} -> {rb or '-'}")
    if isinstance(old, ast.ClassDef) and isinstance(new, ast.ClassDef):
        ba, bb = [ast.unparse(x) for x in old.bases], [ast.unparse(x) for x in new.bases]
        if ba != bb:
            changes.append(f"bases: {', '.join(ba)} -> {', '.join(bb)}")
    da = [ast.unparse(d) for d in getattr(old, "decorator_list", [])]
    db = [ast.unparse(d) for d in getattr(new, "decorator_list", [])]
    if da != db:
        changes.append(f"decorators: {da} -> {db}")
    return changes


def call_changes(
    old: ast.stmt | None, new: ast.stmt | None, changes: tuple[str, ...]
) -> tuple[str, ...]:
    """``changes`` (:func:`signature_changes` of ``old`` and ``new``, with ``"body"``)
    without those that change no call: a return annotation, and a signature whose
    parameters keep their names, kinds and defaults (``vllm_config: "VllmConfig"`` ->
    ``vllm_config: "VllmConfig | None"``). A call binds to such a function as it did, and a
    wrapper calling the original, or a replacement taking the same parameters, takes the
    calls as before (the vllm-ascend and tpu-inference maintainers kept their wrapper and
    their lambda replacing functions whose signature changed in annotations alone,
    ``benchmarks/runtime_history.py``). Other definitions: ``changes`` as they are."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    if not (isinstance(old, functions) and isinstance(new, functions)):
        return changes
    same = _parameters(old.args) == _parameters(new.args)
    return tuple(
        c
        for c in changes
        if not c.startswith("return annotation") and not (same and c.startswith("signature"))
    )


def _strings(node: ast.AST) -> frozenset[str]:
    """The string constants of ``node`` (f-string parts included), docstrings left out
    and blank strings too; read once per node in a process (the spans of one upstream
    definition are compared for every entry that patches it)."""
    hit = _STRINGS.get(id(node))
    if hit is None or hit[0] is not node:
        found = of_kinds(node, _STRING_KINDS)
        constants: list[ast.Constant] = []
        skipped: set[int] = set()
        for sub in found:
            if isinstance(sub, ast.Constant):
                constants.append(sub)
            elif isinstance(sub, _DEFINITIONS) and sub.body and isinstance(sub.body[0], ast.Expr):
                skipped.add(id(sub.body[0].value))
        strings = frozenset(
            c.value
            for c in constants
            if isinstance(c.value, str) and c.value.strip() and id(c) not in skipped
        )
        hit = _STRINGS[id(node)] = (node, strings)
    return hit[1]


#: The nodes :func:`_strings` reads: the constants, and the definitions whose docstring
#: it leaves out.
_STRING_KINDS = frozenset({ast.Constant, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
#: :func:`_strings` by ``id`` of the node, with the node (an ``id`` is reused once its
#: node is freed: the node kept here is compared before a hit is used).
_STRINGS: dict[int, tuple[ast.AST, frozenset[str]]] = {}


def dropped_literals(
    old: ast.stmt | None, new: ast.stmt | None, mine: ast.stmt | None
) -> list[str]:
    """The string constants the replacement ``mine`` names that the old upstream definition
    ``old`` held and the new one ``new`` does not (sorted; docstrings aside; each a parsed
    span, ``None`` for one that does not parse): a wrapper that
    filters a feature name out of upstream's result, or intercepts a flag upstream's body
    passed on (``if flag == "has_own_embed_tokens"``), works on a value upstream stopped
    producing there. Over six vllm-ascend releases its maintainers updated both wrappers
    the audit kept for which this held (``benchmarks/runtime_history.py``). Empty when a
    span does not parse."""
    spans = (old, new, mine)
    if any(n is None for n in spans):
        return []
    before, after, ours = (_strings(n) for n in spans if n is not None)
    return sorted((before - after) & ours)


def any_signature(changes: Iterable[str]) -> bool:
    """Whether ``changes`` (:func:`signature_changes`) holds a change of the parameters."""
    return any(c.startswith("signature") for c in changes)


def _parameters(arguments: ast.arguments) -> tuple[object, ...]:
    """A signature without its annotations: each parameter's name and kind, and the
    defaults (as :func:`ast.dump` writes them)."""
    return (
        tuple(a.arg for a in arguments.posonlyargs),
        tuple(a.arg for a in arguments.args),
        arguments.vararg.arg if arguments.vararg else None,
        tuple(a.arg for a in arguments.kwonlyargs),
        arguments.kwarg.arg if arguments.kwarg else None,
        tuple(ast.dump(d) for d in arguments.defaults),
        tuple(ast.dump(d) if d is not None else None for d in arguments.kw_defaults),
    )
