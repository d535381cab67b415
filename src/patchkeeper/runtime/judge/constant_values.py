"""A constant the plugin sets that the new upstream release defines with a value of its own.

A plugin may set a tuning constant of an upstream module ahead of the upstream release that
defines it (``mamba_utils._TEMPORAL_TILES = 1`` where the release that adds it says ``16``).
Such a target is new upstream, which for code means the patch now replaces upstream's own
definition and must be read against it (*update*). A literal value has nothing of upstream's
to merge: when the plugin's literal differs from the new upstream's literal, the plugin sets
its own value over upstream's on purpose, as it does for a registry key upstream added with
another value (:mod:`patchkeeper.runtime.judge.registry_keys`): *retain*, both values said.
An equal value, or one that is not a literal on either side, leaves the decision as it was.
"""

from __future__ import annotations

import ast
import textwrap

from patchkeeper.runtime.judge.drift import RETAIN, UPDATE, Code, Drift, with_decision
from patchkeeper.runtime.model import PatchEntry


def literal(node: ast.expr | None) -> tuple[bool, object]:
    """``(True, value)`` when ``node`` is a literal (a constant, a signed number, a tuple,
    list, set or dict of literals: what :func:`ast.literal_eval` reads), else
    ``(False, None)``.

    >>> literal(ast.parse("-1", mode="eval").body)
    (True, -1)
    >>> literal(ast.parse("f(1)", mode="eval").body)
    (False, None)
    """
    if node is None:
        return False, None
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def plugin_value(tree: ast.Module | None, entry: PatchEntry) -> ast.expr | None:
    """The value the plugin statement of ``entry`` assigns (``tree``: the parse of its
    file, ``None`` when it cannot be parsed): that of the assignment starting at
    ``entry.line`` whose one target is an attribute named as the target's last part
    (``m._TILES = 1`` for ``...m._TILES``); ``None`` for anything else."""
    if tree is None:
        return None
    name = entry.target.rpartition(".")[2]
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and node.lineno == entry.line and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Attribute) and target.attr == name:
                return node.value
    return None


def upstream_value(code: Code | None) -> ast.expr | None:
    """The value of the upstream definition ``code`` when it is one assignment (``NAME =
    value`` or ``NAME: type = value``); ``None`` for a function, a class or anything else."""
    if code is None:
        return None
    try:
        tree = ast.parse(textwrap.dedent(code.text))
    except SyntaxError:
        return None
    if len(tree.body) != 1:
        return None
    node = tree.body[0]
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        return node.value
    return None


def overriding_value(
    entry: PatchEntry, decided: Drift, tree: ast.Module | None, new: Code | None
) -> Drift:
    """``decided`` (the *update* for a target new upstream), made *retain* when the plugin
    statement of ``entry`` (in its file's parse ``tree``) assigns a literal and the new upstream
    definition ``new`` assigns another literal; ``decided`` otherwise."""
    if decided.decision != UPDATE:
        return decided
    mine, theirs = literal(plugin_value(tree, entry)), literal(upstream_value(new))
    if not (mine[0] and theirs[0]) or mine[1] == theirs[1]:
        return decided
    where = f"{new.name}:{new.start}" if new is not None else "upstream"
    return with_decision(
        decided,
        RETAIN,
        f"the new upstream defines {entry.target} as {theirs[1]!r} ({where}) and the plugin "
        f"sets {mine[1]!r} over it: its own value, set on purpose; a value has nothing of "
        "upstream's to merge",
    )
