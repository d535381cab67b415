"""Whether a patch was written for a newer upstream than the audit's old release.

A patch file that imports, unconditionally, an upstream module the old release does not
have (``from vllm.v1.attention.backends import gdn_attn`` where only the new release has
``gdn_attn``) cannot even be imported at the old release: it was written against a newer
upstream than ``--from``. What the new upstream has and the old one lacked then says
nothing about upstream taking the plugin's change in (the plugin followed upstream, not the
reverse), so the judge's rules that conclude *upstream took it in* turn to *look*, with
this fact for a reason (:func:`written_ahead`).

The imports read are the unconditional ones (not under an ``if`` or a ``try``: a guarded
import is how a plugin supports releases without the module) of the module and of the
function holding the patch; relative imports are the plugin's own. ``from a.b import c``
imports the module ``a.b.c`` when the new tree has it, else ``a.b``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from patchkeeper.runtime.judge.drift import LOOK, REMOVE, Drift, with_decision
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.syntax.parsing import plugin_file_tree

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _imported(statements: list[ast.stmt], new: UpstreamTree) -> list[str]:
    """The absolute modules the import statements among ``statements`` (not nested in
    another statement) import."""
    out: list[str] = []
    for node in statements:
        if isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                inner = f"{node.module}.{alias.name}"
                out.append(inner if new.module_file(inner) is not None else node.module)
    return out


def _scope_body(parsed: ast.Module, scope: str) -> list[ast.stmt]:
    """The statements of the function ``scope`` names (its last dotted part), or ``[]``."""
    name = scope.rsplit(".", 1)[-1]
    for node in ast.walk(parsed):
        if isinstance(node, _FUNCTIONS) and node.name == name:
            return node.body
    return []


def newer_imports(
    root: Path, entries: list[PatchEntry], trees: tuple[UpstreamTree, UpstreamTree]
) -> dict[PatchEntry, tuple[str, ...]]:
    """Per entry of ``entries`` (files relative to the plugin ``root``): the upstream
    modules its file imports unconditionally, at module level or in the function holding
    the patch, that the new tree (``trees[1]``) has and the old one (``trees[0]``) does
    not, in the order imported. Entries with none, or whose file cannot be parsed, are
    left out."""
    old, new = trees
    out: dict[PatchEntry, tuple[str, ...]] = {}
    for entry in entries:
        parsed = plugin_file_tree(root / entry.file)
        if parsed is None:
            continue
        statements = list(parsed.body)
        if entry.scope and entry.scope != "<module>":
            statements += _scope_body(parsed, entry.scope)
        modules = [
            module
            for module in _imported(statements, new)
            if new.module_file(module) is not None and old.module_file(module) is None
        ]
        if modules:
            out[entry] = tuple(dict.fromkeys(modules))
    return out


def written_ahead(judged: Drift, modules: tuple[str, ...]) -> Drift:
    """``judged`` (a conclusion that upstream took the patch's change in) as *look* when
    the entry's file imports ``modules``, upstream modules the old release lacks: the
    patch was written for a newer release than the old upstream. ``judged`` itself when
    ``modules`` is empty or it is not a *remove*."""
    if not modules or judged.decision != REMOVE:
        return judged
    reason = (
        f"its file imports {', '.join(modules)}, which the old upstream lacks: it was written "
        "for a newer release than the old upstream, so what the new upstream added is not "
        "upstream taking the patch in; check --from"
    )
    return with_decision(judged, LOOK, reason)
