"""A ``functools.partial`` of the original that binds a keyword the new release dropped.

``utils.h2d = functools.partial(utils.h2d, pin_memory=is_pin_memory_available())`` calls
upstream's own function with one argument fixed. When the new release drops that
parameter (and takes no ``**kwargs``), every call of the partial raises ``TypeError``: the
patch cannot be kept as it is, however the rest of the function changed. Two cases:

- the new function reads, in the parameter's place, the name that was the parameter's
  default (``pin_memory: bool = PIN_MEMORY`` became a body that reads ``PIN_MEMORY``), and
  the new module binds that name once, at module level, to the very expression the patch
  binds (``PIN_MEMORY = is_pin_memory_available()``, the names resolved through each
  file's imports to the same upstream objects): upstream now computes the value the patch
  fixed, the same way -> **remove** (when the partial binds nothing else);
- otherwise -> **update**: the value the patch fixed must reach the new function another
  way (the trees cannot tell which), the patch as it is breaks every call.

A partial that binds positional arguments, or keywords the new release still takes, is
left to the other rules.
"""

from __future__ import annotations

import ast

from patchkeeper.runtime.judge.drift import REMOVE, UPDATE, Drift, with_decision
from patchkeeper.runtime.model import Mechanism, PatchEntry
from patchkeeper.runtime.syntax.names import import_bindings

#: The callees that make a partial (the dotted name the plugin's imports give them).
PARTIAL = frozenset({"functools.partial"})


def binds_keywords(entry: PatchEntry) -> bool:
    """Whether ``entry`` may be a ``functools.partial`` of its original (a wrapper whose
    replacement is an expression made by ``functools.partial``): the file is read then."""
    return (
        entry.mechanism is Mechanism.WRAPPER
        and entry.replacement == "<expr>"
        and any(d in PARTIAL for d in entry.descriptors)
    )


def bound_keywords_decision(
    entry: PatchEntry,
    judged: Drift,
    tree: ast.Module | None,
    functions: tuple[ast.AST | None, ast.AST | None],
    new_module: tuple[str, ast.Module | None],
) -> Drift:
    """``judged`` (the entry's decision), or the decision of the module docstring when the
    statement at ``entry.line`` of the plugin file (``tree``: its parse, ``None`` when it
    cannot be parsed) is ``functools.partial(f,
    k=v, ...)`` and the new upstream function (``functions``: its parsed old and new
    definitions) no longer takes a keyword ``k`` the old one took. ``new_module``: the new
    function's module name and parse, where the name it reads in the parameter's place is
    bound. A *remove* already decided is kept."""
    old, new = functions
    if (
        judged.decision == REMOVE
        or not isinstance(old, _FUNCTIONS)
        or not isinstance(new, _FUNCTIONS)
        or tree is None
    ):
        return judged
    call = _partial_at(tree, entry.line, _imports(tree, entry.module))
    if call is None or len(call.args) != 1 or any(k.arg is None for k in call.keywords):
        return judged
    if new.args.kwarg is not None:
        return judged
    before, after = _keywords(old), _keywords(new)
    bound = [k for k in call.keywords if k.arg is not None]
    dropped = [k for k in bound if k.arg in before and k.arg not in after]
    if not dropped:
        return judged
    names = ", ".join(f"{k.arg}=" for k in dropped)
    broken = (
        f"the patch is functools.partial of the original binding {names}, a parameter the "
        f"new upstream {entry.target} no longer takes: every call of it raises TypeError"
    )
    computed = [_computed(k, old, new, tree, entry.module, new_module) for k in dropped]
    if len(dropped) == len(bound) and all(computed):
        return with_decision(
            judged,
            REMOVE,
            f"{broken}; the new upstream computes it itself, as the patch bound it: "
            + "; ".join(c for c in computed if c),
        )
    return with_decision(
        judged,
        UPDATE,
        f"{broken}; the value it fixed must reach the new function another way",
    )


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _keywords(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The parameters a call of ``node`` may pass by keyword."""
    args = node.args
    return {a.arg for a in (*args.args, *args.kwonlyargs)}


def _default(node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> ast.expr | None:
    """The default of parameter ``name`` of ``node`` (``None`` when it has none)."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    offset = len(positional) - len(args.defaults)
    for i, arg in enumerate(positional):
        if arg.arg == name:
            return args.defaults[i - offset] if i >= offset else None
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if arg.arg == name:
            return default
    return None


def _partial_at(tree: ast.Module, line: int, imports: dict[str, str]) -> ast.Call | None:
    """The ``functools.partial(...)`` call assigned by the statement at ``line``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and node.lineno == line:
            value = node.value
            if isinstance(value, ast.Call) and _dotted(value.func, imports) in PARTIAL:
                return value
    return None


def _computed(
    keyword: ast.keyword,
    old: ast.FunctionDef | ast.AsyncFunctionDef,
    new: ast.FunctionDef | ast.AsyncFunctionDef,
    tree: ast.Module,
    module: str,
    new_module: tuple[str, ast.Module | None],
) -> str:
    """How the new upstream computes the dropped parameter ``keyword.arg`` as the patch
    bound it (``"NAME = EXPR (module:line)"``), ``""`` when it does not (see the module
    docstring)."""
    default = _default(old, keyword.arg or "")
    if not isinstance(default, ast.Name):
        return ""
    name = default.id
    reads = any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
        for n in ast.walk(new)
    )
    if not reads:
        return ""
    upstream = new_module[1]
    if upstream is None:
        return ""
    bindings = [
        s
        for s in upstream.body
        if isinstance(s, ast.Assign | ast.AnnAssign)
        and any(isinstance(t, ast.Name) and t.id == name for t in _targets(s))
    ]
    if len(bindings) != 1 or bindings[0].value is None:
        return ""
    value = bindings[0].value
    mine = _canonical(keyword.value, _imports(tree, module))
    theirs = _canonical(value, _imports(upstream, new_module[0]))
    if mine is None or mine != theirs:
        return ""
    return f"{name} = {ast.unparse(value)} ({new_module[0]}:{bindings[0].lineno})"


def _targets(stmt: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return list(stmt.targets) if isinstance(stmt, ast.Assign) else [stmt.target]


def _imports(tree: ast.Module, module: str) -> dict[str, str]:
    """The names the module's own body imports: name -> dotted path (relative imports
    resolved from ``module``, taken as a module of a package: :func:`import_bindings`)."""
    found: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            bound = import_bindings(stmt, module, is_package=False)
            found.update((name, binding.dotted) for name, binding in bound.items())
    return found


def _dotted(expr: ast.expr, imports: dict[str, str]) -> str | None:
    """The dotted path of a name or attribute chain through ``imports`` (``None`` when
    its first name is not imported)."""
    if isinstance(expr, ast.Attribute):
        base = _dotted(expr.value, imports)
        return None if base is None else f"{base}.{expr.attr}"
    if isinstance(expr, ast.Name):
        return imports.get(expr.id)
    return None


class _Resolve(ast.NodeTransformer):
    """Replaces each imported name or attribute chain by one name: its dotted path."""

    def __init__(self, imports: dict[str, str]) -> None:
        self.imports = imports
        self.unknown = False

    def visit_Name(self, node: ast.Name) -> ast.AST:
        dotted = self.imports.get(node.id)
        if dotted is None:
            self.unknown = True  # a local name: its value is not known here
            return node
        return ast.Name(id=dotted, ctx=ast.Load())

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        dotted = _dotted(node, self.imports)
        if dotted is None:
            return self.generic_visit(node)
        return ast.Name(id=dotted, ctx=ast.Load())


def _canonical(expr: ast.expr, imports: dict[str, str]) -> str | None:
    """``expr`` with its names resolved through ``imports`` (:class:`_Resolve`), dumped;
    ``None`` when it reads a name no import binds."""
    resolver = _Resolve(imports)
    resolved = resolver.visit(ast.parse(ast.unparse(expr), mode="eval"))
    return None if resolver.unknown else ast.dump(resolved)
