"""Whether a plugin's replacement calls the original it replaces, whatever its own
parameters.

A replacement that calls the original (``orig = Runner.run`` in its module or in the
function that installs it, then ``def run(self, x): orig(self, x); ...``) runs upstream's
own code, and with it every extension point upstream's code consults: a hook the new
original consults is reached through that call, so it is no reason to *migrate*. What the
call does not carry is a parameter upstream added that the replacement neither takes nor
passes on: that is an *update* (the rules that read the signature change decide it).
"""

from __future__ import annotations

import ast

from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.model import Mechanism, PatchEntry
from patchkeeper.runtime.syntax.names import attribute_chain, read_chain


def _aliases_of(body: list[ast.stmt]) -> list[tuple[str, str]]:
    """``(name, chain)`` of every plain assignment of ``body`` (its ``if``/``try`` blocks
    included, nested functions and classes not) whose value is an attribute chain."""
    found: list[tuple[str, str]] = []
    for statement in body:
        if isinstance(statement, ast.Assign):
            chain = read_chain(statement.value)
            if chain:
                found += [(t.id, chain) for t in statement.targets if isinstance(t, ast.Name)]
        elif isinstance(statement, (ast.If, ast.For, ast.While, ast.With)):
            found += _aliases_of([*statement.body, *getattr(statement, "orelse", [])])
        elif isinstance(statement, ast.Try):
            blocks = [*statement.body, *statement.orelse, *statement.finalbody]
            for handler in statement.handlers:
                blocks += handler.body
            found += _aliases_of(blocks)
    return found


def outer_aliases(tree: ast.Module | None, line: int) -> tuple[tuple[str, str], ...]:
    """:attr:`Code.outer_aliases` of the definition at ``line`` of a plugin module
    ``tree``: the names its module and every function around it bind to an attribute chain
    (``(name, "Runner.run")``), innermost scope last; empty when ``tree`` is ``None``."""
    if tree is None:
        return ()
    found = _aliases_of(tree.body)
    scope: ast.AST = tree
    while True:
        inner = [
            node
            for node in ast.iter_child_nodes(scope)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.lineno < line <= (node.end_lineno or node.lineno)
        ]
        inner += [
            sub
            for node in ast.iter_child_nodes(scope)
            if isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While))
            for sub in ast.walk(node)
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef))
            and sub.lineno < line <= (sub.end_lineno or sub.lineno)
        ]
        if not inner:
            return tuple(found)
        scope = inner[0]
        found += _aliases_of(scope.body)


def names_target(target: str, chain: str) -> bool:
    """Whether ``chain`` (``Runner.run``, ``vllm.a.Runner.run``) names ``target`` by at
    least its owner and its name."""
    return "." in chain and (target == chain or target.endswith("." + chain))


def calls_original(entry: PatchEntry, mine: Code | None) -> str:
    """How the replacement ``mine`` calls the original ``entry.target`` it replaces
    (``"calls orig, bound to Runner.run"``), or ``""`` when it does not (or is no
    function): the patch is a wrapper (:class:`~patchkeeper.runtime.model.Mechanism`), or
    the function's body calls a name its module or an enclosing function binds to the
    target (:attr:`Code.outer_aliases`) and the function does not bind itself, or calls
    the target by its dotted name."""
    node = None if mine is None else mine.parsed
    if mine is None or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return ""
    if entry.mechanism is Mechanism.WRAPPER:
        return f"the patch reads {entry.target} before it replaces it"
    arguments = node.args
    own = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    own |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    own |= {
        sub.id
        for sub in ast.walk(node)
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store)
    }
    aliases = {
        name: chain for name, chain in mine.outer_aliases if names_target(entry.target, chain)
    }
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        name = call.func.id if isinstance(call.func, ast.Name) else ""
        if name in aliases and name not in own:
            return f"calls {name}, bound to {aliases[name]}"
        dotted = attribute_chain(call.func)
        if names_target(entry.target, dotted):
            return f"calls {dotted}"
    return ""


__all__ = ["calls_original", "names_target", "outer_aliases"]
