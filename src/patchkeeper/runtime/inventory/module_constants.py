"""Names that stand for a constant string in a patch statement, and ``sys.modules`` keys
computed at run time.

A plugin may name the attribute it sets through a constant rather than a literal:
``RPC_NAME = "_plugin_rpc"`` then ``setattr(EngineCore, RPC_NAME, fn)``, in the same module
or with the constant imported from another plugin module (``from .consts import RPC_NAME``).
A *module constant* is a ``NAME = "literal"`` (or ``NAME: str = "literal"``) statement
directly in a module's body whose name nothing else binds at module level (no second
assignment, import, definition, loop or ``with`` target, ``del``) and no function declares
``global``: its value is known without running the module. Any other name stays unresolved.

A ``sys.modules[key] = module`` statement whose key is neither a literal nor such a constant
(a loop variable, an f-string) names its module only at run time: its entry has the
*computed-key* form (:func:`is_computed_key`): target ``sys.modules``, key the key's source
text; the audit says so (:func:`computed_key_evidence`) rather than naming a module.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from patchkeeper.runtime.inventory.file_facts import CondSpec, FileFacts
from patchkeeper.runtime.model import Mechanism, PatchEntry
from patchkeeper.runtime.syntax import astwalk, names

#: The target of a ``sys.modules`` entry whose key is computed at run time.
SYS_MODULES = "sys.modules"


def _candidates(tree: ast.Module) -> dict[str, str]:
    """``NAME = "literal"`` statements directly in the module body (the last one wins: a
    name assigned twice is dropped by :func:`module_constants`)."""
    found: dict[str, str] = {}
    for stmt in tree.body:
        constant = _string_constant(stmt)
        if constant is not None:
            found[constant[0]] = constant[1]
    return found


def _string_constant(stmt: ast.stmt) -> tuple[str, str] | None:
    """``(name, value)`` when ``stmt`` is ``NAME = "literal"`` or ``NAME: T = "literal"``,
    else ``None``."""
    kind = stmt.__class__
    if kind is ast.Assign and len(stmt.targets) == 1:  # type: ignore[attr-defined]
        target, value = stmt.targets[0], stmt.value  # type: ignore[attr-defined]
    elif kind is ast.AnnAssign and stmt.value is not None:  # type: ignore[attr-defined]
        target, value = stmt.target, stmt.value  # type: ignore[attr-defined]
    else:
        return None
    if (
        target.__class__ is ast.Name
        and value.__class__ is ast.Constant
        and value.value.__class__ is str
    ):
        return target.id, value.value
    return None


def _module_bindings(tree: ast.Module) -> Counter[str]:
    """How many times each name is bound in the module's own scope (not inside functions
    or classes, whose assignments bind their own names)."""
    return _scope_bindings(tree.body)[0]


def _scope_bindings(body: list[ast.stmt]) -> tuple[Counter[str], set[str]]:
    """How many times each name is bound in the scope of ``body`` (assignments, definitions,
    imports, ``except ... as``; not inside nested functions or classes), and the names it
    declares ``global`` or ``nonlocal``."""
    bound: Counter[str] = Counter()
    declared: set[str] = set()
    for node in astwalk.walk_scope(body):
        kind = node.__class__
        if kind is ast.Name:
            if node.ctx.__class__ is not ast.Load:  # type: ignore[attr-defined]
                bound[node.id] += 1  # type: ignore[attr-defined]
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            bound[node.name] += 1  # type: ignore[attr-defined]
        elif kind is ast.Import or kind is ast.ImportFrom:
            for alias in node.names:  # type: ignore[attr-defined]
                bound[alias.asname or alias.name.split(".")[0]] += 1
        elif kind is ast.ExceptHandler and node.name:  # type: ignore[attr-defined]
            bound[node.name] += 1  # type: ignore[attr-defined]
        elif kind is ast.Global or kind is ast.Nonlocal:
            declared.update(node.names)  # type: ignore[attr-defined]
    return bound, declared


def module_constants(tree: ast.Module, source: bytes) -> dict[str, str]:
    """The module constants of a parsed module (see the module docstring): name -> value.

    >>> module_constants(ast.parse('A = "x"\\nB = "y"\\nB = "z"\\nC = 1\\n'), b"")
    {'A': 'x'}
    """
    found = _candidates(tree)
    if not found:
        return {}
    bound = _module_bindings(tree)
    declared: set[str] = set()
    if b"global" in source:
        for node in astwalk.walk_all(tree):
            if node.__class__ is ast.Global:
                declared.update(node.names)
    return {
        name: value for name, value in found.items() if bound[name] == 1 and name not in declared
    }


#: The statements whose bodies are a function's own scope (its nested definitions are not).
_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)


def _local_candidates(body: list[ast.stmt]) -> dict[str, str]:
    """``NAME = "literal"`` statements of a function's own scope, in the bodies of its
    compound statements too (not in nested definitions)."""
    found: dict[str, str] = {}
    stack = list(body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, _COMPOUND):
            stack += stmt.body
            stack += getattr(stmt, "orelse", [])
            stack += getattr(stmt, "finalbody", [])
            for handler in getattr(stmt, "handlers", []):
                stack += handler.body
            continue
        constant = _string_constant(stmt)
        if constant is not None:
            found[constant[0]] = constant[1]
    return found


def function_constants(node: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """The constants of one function: a ``NAME = "literal"`` statement in its own scope
    (the bodies of its ``if``/``for``/``with``/``try`` statements included, its nested
    definitions not) whose name nothing else in that scope binds (no second assignment,
    loop or ``with`` target, import, definition, ``del``, ``except ... as``), that is no
    parameter and that no ``global`` or ``nonlocal`` statement names: its value at every
    later statement of the function is known without running it. ``sys.modules[mod_name]
    = stub`` after ``mod_name = "vllm.x"`` then names the module ``vllm.x``.

    >>> f = ast.parse('def f(a):\\n    m = "x.y"\\n    n = "u"\\n    n = "v"\\n    a = "p"\\n')
    >>> function_constants(f.body[0])
    {'m': 'x.y'}
    """
    found = _local_candidates(node.body)
    if not found:
        return {}
    args = node.args
    params = {
        a.arg
        for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
        if a is not None
    }
    bound, declared = _scope_bindings(node.body)
    return {
        name: value
        for name, value in found.items()
        if bound[name] == 1 and name not in params and name not in declared
    }


class FunctionConstants:
    """The constants of each function of one module (:func:`function_constants`), keyed
    by its qualified name, found the first time a name in that function asks for them:
    most functions never ask, so the scan keeps only each ``def`` as it meets it."""

    __slots__ = ("_met",)

    def __init__(self) -> None:
        self._met: dict[str, tuple[names.FunctionNode, dict[str, str] | None]] = {}

    def met(self, qual: str, node: names.FunctionNode) -> None:
        """Record the ``def`` of the function ``qual`` (the last one met wins)."""
        self._met[qual] = (node, None)

    def of(self, qual: str) -> dict[str, str]:
        """The constants of the function ``qual``; empty for a scope that is no function."""
        known = self._met.get(qual)
        if known is None:
            return {}
        node, constants = known
        if constants is None:
            constants = function_constants(node)
            self._met[qual] = (node, constants)
        return constants


def local_value(
    expr: ast.expr,
    table: names.Table,
    constants: dict[str, str],
    shadowed: tuple[str, ...],
    composed: bool = False,
) -> str | None:
    """The value of ``expr`` when it is a literal string or a constant of this module not
    rebound in the scope (``table``: the scope's imports and aliases; ``shadowed``: the
    scope function's parameters), or, with ``composed`` (an attribute name ``setattr``
    sets), an f-string or a ``+`` of such values alone (``f"{marker}_original"``, ``PREFIX +
    "_calls"``: as constant as its parts), else ``None``. A ``sys.modules`` key so written
    stays the computed-key form (:func:`is_computed_key`)."""
    if expr.__class__ is ast.Constant:
        value = expr.value
        return value if value.__class__ is str else None
    if expr.__class__ is ast.Name:
        name = expr.id
        if name not in table and name not in shadowed:
            return constants.get(name)
        return None
    if not composed:
        return None
    if expr.__class__ is ast.JoinedStr:
        parts: list[str] = []
        for part in expr.values:
            if part.__class__ is ast.FormattedValue:
                formatted = part
                if formatted.format_spec is not None or formatted.conversion not in (-1, 115):
                    return None  # a format or !r/!a: not the value as it is (115: !s)
                part = formatted.value
            value = local_value(part, table, constants, shadowed, composed)
            if value is None:
                return None
            parts.append(value)
        return "".join(parts)
    if expr.__class__ is ast.BinOp and expr.op.__class__ is ast.Add:
        added = expr
        left = local_value(added.left, table, constants, shadowed, composed)
        right = local_value(added.right, table, constants, shadowed, composed)
        return None if left is None or right is None else left + right
    return None


def imported_name(expr: ast.expr, table: names.Table, package: str) -> str | None:
    """The dotted path of ``expr`` when it names an object of another plugin module
    (``from .consts import NAME`` then ``NAME``, or ``consts.NAME``), else ``None``: what
    :func:`resolve` looks up once every file is read."""
    if expr.__class__ is not ast.Name and expr.__class__ is not ast.Attribute:
        return None
    bound = names.dotted(expr, table)
    if bound is None:
        return None
    dotted = bound.dotted
    return dotted if dotted == package or dotted.startswith(package + ".") else None


def resolve(
    path: str,
    facts_of: Callable[[str], FileFacts | None],
    split: Callable[[str], tuple[str, str] | None],
    depth: int = 0,
) -> str | None:
    """The value of the module constant at the plugin path ``path`` (``pkg.consts.NAME``),
    following a module that only imports the name from another (``from .rpc import NAME``
    in a package's ``__init__``); ``None`` when it is no module constant.

    ``facts_of``: module -> :class:`~patchkeeper.runtime.inventory.file_facts.FileFacts` or
    ``None``;
    ``split``: dotted path -> ``(module, qualname)`` or ``None``
    (:meth:`~patchkeeper.runtime.inventory.plugin.PluginTree.split`)."""
    return trace(path, facts_of, split, depth)[0]


def trace(
    path: str,
    facts_of: Callable[[str], FileFacts | None],
    split: Callable[[str], tuple[str, str] | None],
    depth: int = 0,
) -> tuple[str | None, FileFacts | None]:
    """:func:`resolve`, with the facts of the plugin file met on the way that could not be
    read or parsed (its ``syntax_error`` set: unreadable, not UTF-8, not valid Python):
    ``(value, None)`` when the constant is found, ``(None, facts)`` when such a file may
    hold it (nothing can tell), ``(None, None)`` when the files say it is no constant."""
    where = split(path)
    if where is None or depth > 10:
        return None, None
    module, name = where
    facts = facts_of(module) if name and "." not in name else None
    if facts is None:
        return None, None
    if facts.syntax_error:
        return None, facts
    if name in facts.constants:
        return str(facts.constants[name]), None
    for edge in facts.edges:  # a module-level import of the same name, unrenamed
        if (
            edge.kind == "import"
            and edge.scope == "<module>"
            and edge.target.endswith("." + name)
            and edge.target != path
        ):
            return trace(edge.target, facts_of, split, depth + 1)
    return None, None


def is_computed_key(entry: PatchEntry) -> bool:
    """Whether ``entry`` is a ``sys.modules`` assignment whose key is computed at run time
    (the key's source text in ``entry.key``)."""
    return entry.mechanism is Mechanism.SYS_MODULES and entry.key is not None


def computed_key_evidence(entry: PatchEntry) -> str:
    """The audit's evidence for a computed-key entry (:func:`is_computed_key`)."""
    return (
        f"sys.modules[{entry.key}] ({entry.file}:{entry.line}): the key is computed at run "
        "time, so which module it replaces is not known statically; look at the code by hand"
    )


#: A ``setattr`` entry whose attribute name is a constant of a plugin file that could not
#: be read: the entry, the constant's dotted path, and that file's facts.
Unread = tuple[PatchEntry, str, FileFacts]
#: A ``setattr`` entry whose attribute name is a name of another plugin module that is no
#: module constant there (bound more than once, or not to a string literal): the entry, the
#: name's dotted path, and the file of the module it names (``""`` when no plugin file).
Unnamed = tuple[PatchEntry, str, str]


def resolve_named(
    named: list[tuple[PatchEntry, tuple[CondSpec, ...], str]],
    facts_of: Callable[[str], FileFacts | None],
    split: Callable[[str], tuple[str, str] | None],
) -> tuple[list[tuple[PatchEntry, tuple[Any, ...]]], list[Unread], list[Unnamed]]:
    """The entries of a file's ``named`` list (:class:`~patchkeeper.runtime.inventory.file_facts.
    FileFacts`) with their names resolved (:func:`resolve`): a ``setattr`` entry gets the
    constant as its attribute, a ``sys.modules`` entry the constant as its module (else it
    keeps the computed-key form); and the ``setattr`` entries that get no name, for the
    caller to name as findings (what they patch is unknown, so nothing lists or audits
    them): those dropped because a file that may hold the constant could not be read
    (:data:`Unread`), and those whose name is no module constant of the module it comes
    from (:data:`Unnamed`: ``from .consts import NAME`` where ``consts`` binds ``NAME``
    twice; the value it has at run time depends on which binding runs last)."""
    out: list[tuple[PatchEntry, tuple[Any, ...]]] = []
    unread: list[Unread] = []
    unnamed: list[Unnamed] = []
    for entry, conds, path in named:
        value, broken = trace(path, facts_of, split)
        if entry.mechanism is Mechanism.SYS_MODULES:
            if value is not None:
                entry = replace(entry, target=value, module_hint=value, key=None)
        elif value is None:
            if broken is not None:
                unread.append((entry, path, broken))
            else:
                where = split(path)
                facts = facts_of(where[0]) if where is not None else None
                unnamed.append((entry, path, facts.file if facts is not None else ""))
            continue
        else:
            entry = replace(entry, target=f"{entry.target}.{value}")
        out.append((entry, conds))
    return out, unread, unnamed
