"""The methods of a plugin subclass that ``runtime port`` merges: of a class deriving from
the upstream class it replaces, only the overrides whose upstream method changed, and not
those that extend upstream's through ``super()`` (they inherit the change).
"""

from __future__ import annotations

import ast

from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.judge.samecode import same_ast
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.port.bases import ModuleFiles, derives_from
from patchkeeper.runtime.port.layoutmerge import kept_share
from patchkeeper.runtime.syntax.definitions import three_classes


def _span(code: Code, node: ast.stmt) -> Code:
    """The part of ``code`` that is ``node`` (a method of the class ``code`` holds)."""
    lines = code.text.splitlines(True)[node.lineno - 1 : node.end_lineno]
    return Code(code.name, code.start + node.lineno - 1, tuple(lines))


_Method = ast.FunctionDef | ast.AsyncFunctionDef
#: One override to merge: (old upstream method, new upstream method, first line, last line
#: in the plugin file).
Piece = tuple[Code, Code, int, int]


def _extends(node: _Method, upstream: _Method, old: Code, mine: Code) -> bool:
    """Whether the plugin's override ``node`` (a method of the class in ``mine``) extends
    upstream's method ``upstream`` (a method of the class in ``old``, the old release)
    rather than copying it: it calls upstream's through ``super()`` (:func:`calls_super`)
    and its body keeps less than half of the logical lines of upstream's body
    (:func:`~patchkeeper.runtime.port.layoutmerge.kept_share`; a copy that only falls back to
    ``super()`` on one path keeps most of them)."""
    if not calls_super(node):
        return False
    theirs = old.text.splitlines(True)[upstream.body[0].lineno - 1 : upstream.end_lineno]
    ours = mine.text.splitlines(True)[node.body[0].lineno - 1 : node.end_lineno]
    return kept_share(theirs, ours) < 0.5


def calls_super(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``method`` (a method of a plugin subclass) calls the method it overrides
    through ``super().NAME(...)``: it extends upstream's method and inherits its change,
    it is no copy to merge (as a wrapper that calls the original is not).

    >>> calls_super(ast.parse("def f(self):\\n    return super().f() + 1").body[0])
    True
    >>> calls_super(ast.parse("def f(self):\\n    return super().g()").body[0])
    False
    """
    for node in ast.walk(method):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == method.name
            and isinstance(node.func.value, ast.Call)
            and isinstance(node.func.value.func, ast.Name)
            and node.func.value.func.id == "super"
        ):
            return True
    return False


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names of the method's parameters (``*args``/``**kwargs`` aside)."""
    args = node.args
    return {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}


def _forwards_rest(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the method takes ``*args`` and ``**kwargs`` (a new upstream parameter
    reaches ``super()`` through them)."""
    return node.args.vararg is not None and node.args.kwarg is not None


def extending_methods(old: Code, new: Code, mine: Code) -> dict[str, bool]:
    """The methods of the plugin's subclass ``mine`` that changed upstream (from
    ``old`` to ``new``) and extend upstream's through ``super()`` (:func:`_extends`),
    each with whether the override misses a parameter of the new upstream method (it
    names its parameters instead of forwarding ``*args, **kwargs``, and lacks one)."""
    classes = three_classes(old.node(), new.node(), mine.node())
    if classes is None:
        return {}
    before, after, ours = classes
    methods = (ast.FunctionDef, ast.AsyncFunctionDef)
    old_methods = {n.name: n for n in before.body if isinstance(n, methods)}
    new_methods = {n.name: n for n in after.body if isinstance(n, methods)}
    found: dict[str, bool] = {}
    for node in ours.body:
        a, b = (
            old_methods.get(getattr(node, "name", "")),
            new_methods.get(getattr(node, "name", "")),
        )
        if not isinstance(node, methods) or a is None or b is None or same_ast(a, b):
            continue
        if _extends(node, a, old, mine):
            missing = _parameters(b) - _parameters(node)
            found[node.name] = bool(missing) and not _forwards_rest(node)
    return found


def subclass_pieces(
    entry: PatchEntry, old: Code, new: Code, mine: Code, tree: ModuleFiles
) -> list[Piece] | None:
    """For a plugin class deriving from the upstream class it replaces (directly or
    through the plugin's own classes: :func:`~patchkeeper.runtime.port.bases.derives_from`),
    the methods it overrides whose upstream definition changed, as ``(old method, new
    method, first line, last line in the plugin file)``; ``None`` when the replacement is
    not such a subclass (the whole definition is merged)."""
    classes = three_classes(old.node(), new.node(), mine.node())
    if classes is None:
        return None
    before, after, ours = classes
    name = entry.target.rsplit(".", 1)[-1]
    module = (entry.replacement or "").partition(":")[0]
    if not derives_from(tree, module, ours, name):
        return None
    methods = (ast.FunctionDef, ast.AsyncFunctionDef)
    old_methods = {n.name: n for n in before.body if isinstance(n, methods)}
    new_methods = {n.name: n for n in after.body if isinstance(n, methods)}
    pieces: list[Piece] = []
    for node in ours.body:
        if not isinstance(node, methods):
            continue
        a, b = old_methods.get(node.name), new_methods.get(node.name)
        if a is None or b is None or same_ast(a, b) or _extends(node, a, old, mine):
            continue
        # From the def line on: decorators stay as the plugin wrote them.
        last = node.end_lineno or node.lineno
        start, end = mine.start + node.lineno - 1, mine.start + last - 1
        pieces.append((_span(old, a), _span(new, b), start, end))
    return pieces
