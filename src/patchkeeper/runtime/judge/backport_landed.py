"""A patch marked as a backport whose own statement the new upstream now runs itself: the
backported change landed (part of rule 2 of :mod:`patchkeeper.runtime.judge.judge`).

A plugin that backports an upstream fix often wraps upstream's function and adds the fix's
lines after calling it, saying so in a comment above the patch (``# Backport vLLM #48639``):
a wrapper of a registered callback that also sets
``pre_trained_config["sample_from_anchor"] = config_dict.get("sample_from_anchor", False)``.
When the new upstream definition runs that very statement and the old one did not,
upstream took the backported change in: the patch goes (**remove**, once upstream's version
is checked to cover it).

Every fact is needed:

- the patch says it is a backport: its file's header, or the comment lines right above the
  replacement (:func:`introduction`: over blank lines, decorators and the assignments that
  keep upstream's original), match :data:`~patchkeeper.runtime.judge.landed.BACKPORT`;
- a statement of the replacement, large enough to be the change's own
  (:data:`MIN_NODES` nodes or more: not a bare ``return x``), equals (as parsed) a statement
  of the new upstream definition and none of the old one's.

The definitions compared are the target's, or, for a key of a registry that upstream fills
through a decorator or a call (``@register_speculator("dspark")``), the function it
registers under that key in each release (:func:`registered_function`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from patchkeeper.runtime.judge.drift import REMOVE, Code, Drift, with_decision
from patchkeeper.runtime.judge.landed import BACKPORT
from patchkeeper.runtime.judge.registrations import Registration
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree

#: The fewest AST nodes of a statement specific enough to be a change's own
#: (``cfg["sample_from_anchor"] = d.get("sample_from_anchor", False)`` has 12).
MIN_NODES = 8

#: A module-level assignment keeping upstream's original (``_orig = algos.TYPES["dspark"]``).
_SAVED = re.compile(r"^[A-Za-z_]\w*\s*=\s*[A-Za-z_][\w.]*(\[[^\]\n]*\])?\s*$")


def introduction(lines: Sequence[str], start: int) -> str:
    """The comment lines right above line ``start`` (1-based) of a file's ``lines``, text
    only, in order: read upwards over blank lines, comments, decorators and assignments that
    keep upstream's original (``_orig = module.REGISTRY["key"]``), up to another
    statement."""
    out: list[str] = []
    index = start - 2
    while 0 <= index < len(lines):
        stripped = lines[index].strip()
        if stripped.startswith("#"):
            out.append(stripped.lstrip("#").strip())
        elif stripped and not stripped.startswith("@") and not _SAVED.match(stripped):
            break
        index -= 1
    return "\n".join(reversed(out))


def _dumps(node: ast.AST | None) -> dict[str, ast.stmt]:
    """The statements nested in ``node`` (itself left out), by their dump."""
    if node is None:
        return {}
    return {
        ast.dump(sub): sub
        for sub in ast.walk(node)
        if isinstance(sub, ast.stmt) and sub is not node
    }


def _size(node: ast.AST) -> int:
    return sum(1 for _ in ast.walk(node))


def landed_statements(mine: Code, old: Code, new: Code) -> tuple[str, ...]:
    """The statements of the replacement ``mine`` (:data:`MIN_NODES` nodes or more, no
    nested definition) that equal a statement of the new upstream definition ``new`` and
    none of the old one's ``old``, as source, in the replacement's order."""
    old_dumps = _dumps(old.parsed)
    new_dumps = _dumps(new.parsed)
    out: list[str] = []
    for dump, node in _dumps(mine.parsed).items():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if dump in new_dumps and dump not in old_dumps and _size(node) >= MIN_NODES:
            out.append(ast.unparse(node))
    return tuple(out)


def registered_function(tree: UpstreamTree, registered: Registration | None) -> Code | None:
    """The definition of the function ``registered`` registers under its key (a decorator's
    function, or a call's single bare name) in ``tree``, read from the module the
    registration is in; ``None`` when there is none."""
    if registered is None or not registered.value.isidentifier():
        return None
    path = registered.where.rsplit(":", 1)[0]
    module = path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
    summary = tree.summary(module)
    found = summary.definitions.get(registered.value) if summary is not None else None
    if found is None or found.kind != "function":
        return None
    lines = tree.source_lines(module, found.line, found.end_line)
    return Code(f"{module}.{registered.value}", found.line, tuple(lines))


def backport_landed(
    drift: Drift,
    spans: tuple[Code | None, Code | None, Code | None],
    notes: tuple[str, str],
    where: str,
) -> Drift | None:
    """``drift`` as *remove* when the patch says it is a backport (``notes``: its file's
    header and the comment lines above the replacement, :func:`introduction`) and the new
    upstream definition (at ``where``, for the reason) runs a statement of the replacement
    the old one did not (:func:`landed_statements`; ``spans``: the old and new upstream
    definitions and the replacement); ``None`` otherwise."""
    old, new, mine = spans
    if old is None or new is None or mine is None:
        return None
    if not any(BACKPORT.search(note) for note in notes):
        return None
    found = landed_statements(mine, old, new)
    if not found:
        return None
    shown = found[0] if len(found) == 1 else f"{found[0]} (and {len(found) - 1} more)"
    return with_decision(
        drift,
        REMOVE,
        f"the patch says it is a backport, and the new upstream {where} runs its "
        f"statement `{shown}`, which the old release did not: the backported change has "
        "landed; remove the patch once upstream's version is checked to cover the rest",
    )
