"""A keyword the plugin's code passes to an upstream callable that the new release no
longer takes.

A replacement (a copy, a wrapper, an override in a subclass) often builds upstream objects
itself: ``MLAAttentionSpec(block_size=..., compress_ratio=self.compress_ratio)``. When the
new release renames or drops that parameter (vLLM 0.29.0 renamed the KV cache spec field
``compress_ratio`` to ``tokens_per_state``), the call raises ``TypeError`` however
unchanged the patched target is: the replacement must follow (*update*; the tpu-inference
maintainers passed ``tokens_per_state=`` in their override at that release).

Only calls whose callee the plugin module imports by name from upstream (``from vllm.x
import Spec``) are read, and only keywords the callee took at the old release: the
callee's parameters for a function, for a class those of its ``__init__`` or, for a
dataclass without one, its fields, each through its bases in the upstream tree. A
callee that takes ``**kwargs`` anywhere on that path, or one whose bases cannot all be
read, takes every keyword: nothing is said.
"""

from __future__ import annotations

import ast

from patchkeeper.runtime.judge.drift import Code, upstream_code
from patchkeeper.runtime.lookup.resolve import FOUND, resolve
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree

#: How many bases deep :func:`accepted_keywords` follows a class.
_DEPTH = 6


def dropped_keywords(mine: Code, trees: tuple[UpstreamTree, UpstreamTree]) -> list[str]:
    """``callee(keyword=)`` for each keyword the replacement ``mine`` passes to a callable
    its module imports from upstream by name that the callee took at the old release
    (``trees[0]``) and does not take at the new one (``trees[1]``), in the order of the
    calls, without repeats; ``[]`` when there is none or ``mine`` does not parse."""
    node = mine.parsed
    if node is None:
        return []
    imported = {alias: module for alias, module in mine.imports if alias != "*"}
    found: list[str] = []
    taken: dict[str, tuple[frozenset[str] | None, frozenset[str] | None]] = {}
    for call in ast.walk(node):
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            continue
        name = call.func.id
        keywords = [k.arg for k in call.keywords if k.arg is not None]
        if name not in imported or not keywords:
            continue
        dotted = f"{imported[name]}.{name}"
        if not trees[1].contains(dotted):
            continue
        if dotted not in taken:
            taken[dotted] = (
                accepted_keywords(trees[0], dotted),
                accepted_keywords(trees[1], dotted),
            )
        before, after = taken[dotted]
        if before is None or after is None:
            continue
        for keyword in keywords:
            said = f"{name}({keyword}=)"
            if keyword in before and keyword not in after and said not in found:
                found.append(said)
    return found


def accepted_keywords(tree: UpstreamTree, dotted: str, depth: int = 0) -> frozenset[str] | None:
    """The keywords a call of the upstream function or class ``dotted`` takes in ``tree``;
    ``None`` when it takes any (``**kwargs``) or the trees cannot tell (not found, a base
    not read, too deep)."""
    found = resolve(tree, dotted)
    if found.status != FOUND or found.partial or depth > _DEPTH:
        return None
    code = upstream_code(tree, found)
    node = code.parsed if code is not None else None
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return _parameters(node.args)
    if not isinstance(node, ast.ClassDef):
        return None
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef) and statement.name == "__init__":
            return _parameters(statement.args)
    fields: set[str] = set()
    if _is_dataclass(node):
        fields = {
            s.target.id
            for s in node.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        }
    summary = tree.summary(found.module)
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id == "object":
            continue
        where = _base_path(base, found.module, summary)
        if where is None:
            return None
        inherited = accepted_keywords(tree, where, depth + 1)
        if inherited is None:
            return None
        fields |= inherited
    if not node.bases and not _is_dataclass(node):
        return frozenset()  # ``object.__init__`` takes no keyword
    return frozenset(fields)


def _parameters(args: ast.arguments) -> frozenset[str] | None:
    """The names a call may pass by keyword (``None``: any, ``**kwargs``)."""
    if args.kwarg is not None:
        return None
    return frozenset(a.arg for a in (*args.args, *args.kwonlyargs))


def _is_dataclass(node: ast.ClassDef) -> bool:
    """Whether a ``dataclass`` decorator (called or not, dotted or not) decorates ``node``."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "dataclass":
            return True
    return False


def _base_path(base: ast.expr, module: str, summary: object) -> str | None:
    """The dotted path of a base class named in ``module`` (its ``summary``): a name the
    module defines or imports; ``None`` for another expression."""
    if not isinstance(base, ast.Name):
        return None
    definitions = getattr(summary, "definitions", {})
    imports = getattr(summary, "imports", {})
    if base.id in definitions:
        return f"{module}.{base.id}"
    if base.id in imports:
        return str(imports[base.id].dotted)
    return None
