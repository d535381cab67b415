"""Whether a plugin's replacement calls the original it replaces: a wrapper, not a copy.

A wrapper (``_orig = vllm.a.f`` at module level, then ``def f(...): ... return _orig(...)``)
keeps upstream's code by calling it; merging upstream's whole new definition into it would
replace the call with a copy of the body. The patch statement's form does not always show
it (an assignment ``vllm.a.f = f`` whose function calls an alias of the original is scanned
as an assignment), so the replacement's own body is read.
"""

from __future__ import annotations

import ast
from pathlib import Path

from patchkeeper.runtime.inventory.plugin import PluginTree
from patchkeeper.runtime.judge.calling import names_target
from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.model import Mechanism, PatchEntry
from patchkeeper.runtime.syntax.names import attribute_chain, read_chain
from patchkeeper.runtime.syntax.parsing import parse_path


def calls_original(entry: PatchEntry, mine: Code, tree: PluginTree) -> str:
    """How the replacement ``mine`` (a function of the plugin) calls the original
    ``entry.target`` (``"calls _orig_f, bound to vllm.a.f at line 3"``), or ``""`` when it
    does not: the patch is a wrapper (:class:`~patchkeeper.runtime.model.Mechanism`), or
    the function's body calls a module-level name bound to the target, or the target
    itself by its dotted name. A class is never a wrapper here (a subclass reaches
    upstream's methods through ``super()``: the subclass rules read it)."""
    node = mine.parsed
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return ""
    if entry.mechanism is Mechanism.WRAPPER:
        return f"the patch reads {entry.target} before it replaces it"
    path = Path(tree.root) / mine.name
    module = parse_path(path)
    if module is None:
        return ""
    aliases: dict[str, int] = {}
    for statement in module.body:
        if isinstance(statement, ast.Assign) and names_target(
            entry.target, read_chain(statement.value)
        ):
            for name in statement.targets:
                if isinstance(name, ast.Name):
                    aliases[name.id] = statement.lineno
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        if isinstance(call.func, ast.Name) and call.func.id in aliases:
            line = aliases[call.func.id]
            return f"calls {call.func.id}, bound to {entry.target} at line {line}"
        dotted = attribute_chain(call.func)
        if names_target(entry.target, dotted):
            return f"calls {dotted}"
    return ""


__all__ = ["calls_original"]
