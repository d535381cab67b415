"""Patches made on a class a plugin function is handed as an argument.

A plugin may patch a class through a parameter of a function of its own, and name the class
only where it calls that function::

    def _patch_metadata_cache(runner_cls):
        original = runner_cls._calc_spec_decode_metadata
        ...
        runner_cls._calc_spec_decode_metadata = calculate

    _patch_metadata_cache(NPUModelRunner)   # from vllm_ascend.worker.model_runner_v1

The scan records each such statement (``param.attr = value``, ``setattr(param, "attr",
value)``) with the function and the parameter's index
(:attr:`~patchkeeper.runtime.inventory.file_facts.FileFacts.through_params`), and every call
of a plugin object with what each argument is
(:attr:`~patchkeeper.runtime.inventory.file_facts.FileFacts.calls`: :data:`UPSTREAM`, a
:data:`PARAMETER` of the caller's, the plugin's :data:`OWN` name, or :data:`UNKNOWN`).
Once every file is read, :func:`parameter_entries` names the statement after the upstream
objects the function's callers pass: one entry per distinct object. It says nothing (no
entry) unless the plugin's callers tell it for sure: the function must be called in the
plugin, by its name, and never used otherwise (handed on, stored, decorated), and every
call must pass the parameter an upstream object, the plugin's own class (which is not an
upstream patch: no entry for it), or a parameter of its own caller's that the same holds
for. An argument the reader cannot resolve (``type(obj)``, ``module.Runner`` of a module
loaded at run time, an unpacked ``*args``, a default) leaves the statement out rather than
guess what it patches; when the function declares the parameter a class or a module, or
another call passes it an upstream object, the statement comes back with the call that
stopped the reader, for a finding rather than silence.

A ``setattr(param, name, value)`` whose object and name are both parameters is named after
the pairs the calls pass, the two read from the same call (:func:`named_by_pairs`); when
one call cannot be followed and the function declares the object a class or a module, the
statement comes back with the reason, for a finding rather than silence. In any call, a
name may be the variable of a loop over literal strings (one call per item) and a module
``sys.modules[name]`` or ``importlib.import_module(name)``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, TypeVar

from patchkeeper.runtime.inventory.file_facts import CondSpec, FileFacts
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.syntax import astwalk, names
from patchkeeper.runtime.syntax.astwalk import of_kinds

#: The kinds of an argument (:func:`argument`).
UPSTREAM, PARAMETER, OWN, UNKNOWN = "upstream", "parameter", "own", "unknown"
#: An argument that is a string literal (its value: the text).
LITERAL = "literal"
#: The roles of a parameter whose arguments :meth:`Callers.pairs` reads: the object set
#: on, the attribute's name.
OBJECT, NAME = "object", "name"

#: How deep a parameter handed on from caller to caller is followed.
_DEPTH = 8

_T = TypeVar("_T")


def fixed_parameter(name: str, params: tuple[str, ...], rebound: frozenset[str]) -> int | None:
    """The index of the parameter ``name`` among ``params`` (those of a function, not a
    method, whose :func:`rebound_names` are ``rebound``) when the function never binds that
    name again: what it holds at any statement of the body is the argument its caller
    passed. ``None`` otherwise. A first parameter named ``cls`` or ``self`` is one like any
    other: a plugin function ``def _patch(cls): cls.step = step`` patches what its callers
    pass (methods are left out before this is asked)."""
    if name not in params or name in rebound:
        return None
    return params.index(name)


def rebound_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The names the function ``node`` binds in its body or in a nested scope (an
    assignment, a loop, ``del``, an import, a nested definition, a ``nonlocal`` or
    ``global``), read in one walk: :func:`fixed_parameter` asks it for each parameter."""
    found: set[str] = set()
    for sub in of_kinds(node, _BINDING_KINDS):
        kind = sub.__class__
        if kind is ast.Name:
            if sub.ctx.__class__ is not ast.Load:  # type: ignore[attr-defined]
                found.add(sub.id)  # type: ignore[attr-defined]
        elif kind is ast.alias:
            found.add(sub.asname or sub.name.partition(".")[0])  # type: ignore[attr-defined]
        elif kind is ast.Nonlocal or kind is ast.Global:
            found.update(sub.names)  # type: ignore[attr-defined]
        elif sub is not node:
            found.add(sub.name)  # type: ignore[attr-defined]
    return frozenset(found)


#: The nodes :func:`rebound_names` reads (found in one :func:`~patchkeeper.runtime.syntax.
#: astwalk.of_kinds` walk, nested scopes included).
_BINDING_KINDS = frozenset(
    {ast.Name, ast.alias, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef}
    | {ast.Nonlocal, ast.Global}
)


def _reads(node: ast.AST, param: str, attr: str, aliases: set[str]) -> bool:
    """Whether ``node`` reads ``param.attr`` (or ``getattr(param, "attr", ...)``) or a name
    of ``aliases`` (bound to that read)."""
    for sub in astwalk.walk_all(node):
        if _is_read(sub, param, attr):
            return True
        if isinstance(sub, ast.Name) and sub.id in aliases and isinstance(sub.ctx, ast.Load):
            return True
    return False


def _is_read(node: ast.AST, param: str, attr: str) -> bool:
    """Whether ``node`` is ``param.attr`` read, ``getattr(param, "attr"[, default])``, a
    reading that keeps the descriptor (``param.__dict__["attr"]``, ``vars(param)["attr"]``,
    ``inspect.getattr_static(param, "attr")``: :func:`~patchkeeper.runtime.syntax.names.
    static_read`), or the ``__func__`` of one of these."""
    if isinstance(node, ast.Attribute) and node.attr == "__func__":
        return _is_read(node.value, param, attr)
    if isinstance(node, (ast.Subscript, ast.Call)):
        static = names.static_read(node, names.INSPECT_TABLE)
        if static is not None:
            owner = static[0]
            return isinstance(owner, ast.Name) and owner.id == param and static[1] == attr
    if isinstance(node, ast.Attribute):
        value = node.value
        return (
            node.attr == attr
            and isinstance(value, ast.Name)
            and value.id == param
            and node.ctx.__class__ is ast.Load
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id != "getattr" or len(node.args) < 2:
            return False
        owner, key = node.args[0], node.args[1]
        return (
            isinstance(owner, ast.Name)
            and owner.id == param
            and isinstance(key, ast.Constant)
            and key.value == attr
        )
    return False


def wraps_original(
    function: ast.FunctionDef | ast.AsyncFunctionDef, param: str, attr: str, value: ast.expr
) -> bool:
    """Whether the value installed on ``param.attr`` in ``function`` calls on the original:
    the value reads ``param.attr``, or it names a function defined in ``function`` that
    reads it, directly or through a name ``function`` binds to it (``original =
    runner_cls.load_model``, then ``def load_model(...): return original(...)``)."""
    aliases = {
        target.id
        for stmt in names.walk_statements(function.body)
        if isinstance(stmt, ast.Assign) and _is_read(stmt.value, param, attr)
        for target in stmt.targets
        if isinstance(target, ast.Name)
    }
    if _reads(value, param, attr, aliases):
        return True
    if not isinstance(value, ast.Name):
        return False
    for stmt in names.walk_statements(function.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == value.id:
            return _reads(stmt, param, attr, aliases)
    return False


def callers_of(
    every_file: Iterable[FileFacts],
    facts_of: Callable[[str], FileFacts | None],
    split: Callable[[str], tuple[str, str] | None],
) -> Callers:
    """The calls of every plugin function, by the function's dotted path, and the names
    used other than by a call or an import, read from ``every_file`` (the facts of every
    module of the plugin); ``facts_of`` and ``split`` as
    :class:`~patchkeeper.runtime.inventory.plugin.PluginTree` has them. Read once for all
    the patch files of a plugin: :func:`parameter_entries`, :func:`named_by_callers` and
    :func:`named_by_pairs` take it."""
    calls: dict[str, list[tuple[tuple[tuple[str, str, str, str], ...], str]]] = {}
    used: set[str] = set()
    for facts in every_file:
        for path, args, line in facts.calls:
            calls.setdefault(path, []).append((args, f"{facts.file}:{line}"))
        for edge in facts.edges:
            if edge.kind != "call" and edge.kind != "import":
                used.add(edge.target)
    return Callers(calls, used, facts_of, split)


def parameter_entries(
    pending: list[tuple[PatchEntry, tuple[CondSpec, ...], str, int, bool]],
    callers: Callers,
) -> tuple[list[tuple[PatchEntry, tuple[Any, ...]]], list[tuple[PatchEntry, str, str]]]:
    """The entries of the patches made on parameters (``pending``: one file's
    :attr:`~patchkeeper.runtime.inventory.file_facts.FileFacts.through_params`), each named
    after every distinct upstream object the callers pass (:meth:`Callers.passed`), read
    from the plugin's calls and references (``callers``: :func:`callers_of`). A statement
    whose callers do not tell what it patches gives none; when the function declares the
    parameter a class or a module, or some call passes it an upstream object, it comes
    back with the parameter's name and why (the first call that cannot be followed, by
    file and line, :meth:`Callers.pairs`), for a finding."""
    if not pending:
        return [], []
    out: list[tuple[PatchEntry, tuple[Any, ...]]] = []
    unresolved: list[tuple[PatchEntry, str, str]] = []
    for entry, conds, path, index, declared in pending:
        objects = callers.passed(path, index, ())
        if objects is None and (declared or callers.passes_upstream(path, index)):
            why = callers.pairs(path, ((index, OBJECT),), ())
            params = callers.parameters(path)
            if isinstance(why, str) and params is not None:
                unresolved.append((entry, params[index], why))
        for dotted, module in sorted(objects or ()):
            target = f"{dotted}.{entry.target}"
            out.append((replace(entry, target=target, module_hint=module or dotted), conds))
    return out, unresolved


def named_by_callers(
    pending: list[tuple[PatchEntry, tuple[CondSpec, ...], str, int]],
    callers: Callers,
) -> tuple[list[tuple[PatchEntry, tuple[Any, ...]]], list[PatchEntry]]:
    """The entries of the ``setattr`` statements whose attribute name is a parameter of the
    plugin function around them (``pending``: one file's
    :attr:`~patchkeeper.runtime.inventory.file_facts.FileFacts.through_names`, each entry's
    ``target`` the upstream object), one per distinct string literal the function's callers
    pass (``_ensure("num_tokens", None)`` patches ``ForwardContext.num_tokens``), read as
    :func:`parameter_entries` reads the objects; and the statements whose callers do not
    all pass a literal (or that are not only called), whose name the reader cannot tell."""
    if not pending:
        return [], []
    out: list[tuple[PatchEntry, tuple[Any, ...]]] = []
    unnamed: list[PatchEntry] = []
    for entry, conds, path, index in pending:
        literals = callers.literals(path, index, ())
        if not literals or not all(name.isidentifier() for name in literals):
            unnamed.append(entry)
            continue
        for name in sorted(literals):
            out.append((replace(entry, target=f"{entry.target}.{name}"), conds))
    return out, unnamed


#: One ``setattr`` of :attr:`~patchkeeper.runtime.inventory.file_facts.FileFacts.through_pairs`.
Pair = tuple[PatchEntry, tuple[CondSpec, ...], str, int, int, bool]


def named_by_pairs(
    pending: list[Pair],
    callers: Callers,
) -> tuple[list[tuple[PatchEntry, tuple[Any, ...]]], list[tuple[PatchEntry, str]]]:
    """The entries of the ``setattr(obj, name, value)`` statements whose object and name
    are both parameters of the plugin function around them (``pending``: one file's
    :attr:`~patchkeeper.runtime.inventory.file_facts.FileFacts.through_pairs`): one per
    distinct (upstream object, string literal) pair a call passes, the two read from the
    same call (a parameter handed on from caller to caller followed), so that
    ``_wrap(Runner, "load")`` and ``_wrap(Worker, "init")`` name ``Runner.load`` and
    ``Worker.init``, never ``Runner.init``; and, for a statement whose callers do not all
    pass such a pair while the function declares the object a class or module or some
    call passes an upstream object for it, the statement with the reason (the first call
    that cannot be followed, by file and line), for a finding. A function whose callers
    hand it only objects this reader cannot follow, undeclared (an instance's fields set
    by name), is left without either."""
    if not pending:
        return [], []
    out: list[tuple[PatchEntry, tuple[Any, ...]]] = []
    unresolved: list[tuple[PatchEntry, str]] = []
    for entry, conds, path, held, named, declared in pending:
        found = callers.pairs(path, ((held, OBJECT), (named, NAME)), ())
        if isinstance(found, str):
            if declared or callers.passes_upstream(path, held):
                unresolved.append((entry, found))
            continue
        for (dotted, module), (name,) in sorted(found):
            target = f"{dotted}.{name}"
            out.append((replace(entry, target=target, module_hint=module or dotted), conds))
    return out, unresolved


class Callers:
    """What the plugin's calls pass its functions' parameters (:meth:`passed`)."""

    def __init__(
        self,
        calls: dict[str, list[tuple[tuple[tuple[str, str, str, str], ...], str]]],
        used: set[str],
        facts_of: Callable[[str], FileFacts | None],
        split: Callable[[str], tuple[str, str] | None],
    ) -> None:
        self.calls = calls
        self.used = used
        self.facts_of = facts_of
        self.split = split

    def parameters(self, path: str) -> tuple[str, ...] | None:
        """The parameters of the plugin function ``path``, ``None`` when it is none."""
        return self._params(path)

    def _params(self, path: str) -> tuple[str, ...] | None:
        """The parameters of the plugin function ``path``, ``None`` when it is none."""
        where = self.split(path)
        facts = self.facts_of(where[0]) if where is not None else None
        info = facts.functions.get(where[1]) if facts is not None and where is not None else None
        return info.params if info is not None else None

    def _own_class(self, dotted: str) -> bool:
        """Whether ``dotted`` is a class the plugin defines."""
        where = self.split(dotted)
        facts = self.facts_of(where[0]) if where is not None else None
        return facts is not None and where is not None and where[1] in facts.classes

    def passed(self, path: str, index: int, seen: tuple[str, ...]) -> set[tuple[str, str]] | None:
        """The upstream objects (dotted path, module) the calls of the plugin function
        ``path`` pass its parameter ``index``; ``None`` when any call passes something else
        than an upstream object or a plugin class, or the function is not only called."""

        def take(kind: str, value: str, module: str) -> set[tuple[str, str]] | None:
            if kind == UPSTREAM:
                return {(value, module)}
            if kind == OWN and self._own_class(value):
                return set()  # the plugin's own class: no upstream patch
            return None

        return self._through_calls(path, index, seen, take)

    def passes_upstream(self, path: str, index: int) -> bool:
        """Whether some call of the plugin function ``path`` passes its parameter ``index``
        an upstream object."""
        params = self._params(path)
        if params is None or index >= len(params):
            return False
        for args, _where in self.calls.get(path, []):
            for key, kind, _value, _module in args:
                if kind == UPSTREAM and key in (str(index), params[index]):
                    return True
        return False

    def pairs(
        self, path: str, wanted: tuple[tuple[int, str], ...], seen: tuple[str, ...]
    ) -> set[tuple[tuple[str, ...], ...]] | str:
        """What the calls of the plugin function ``path`` pass its parameters ``wanted``
        (each an index and a role: :data:`OBJECT`, an upstream object's dotted path and
        module; :data:`NAME`, a string literal that is an identifier), one tuple of values
        per call (and per combination a parameter handed on from caller to caller gives),
        or why not, as a string; a plugin class passed as the object gives nothing (no
        upstream patch)."""
        params = self._params(path)
        short = path.rpartition(".")[2]
        if params is None or any(index >= len(params) for index, _role in wanted):
            return f"{path} is not a plugin function this reader knows"
        if path in self.used:
            return (
                f"{short} is used other than by a call (handed on, stored or decorated), "
                "so what its callers pass is not known"
            )
        sites = self.calls.get(path, [])
        if not sites:
            return f"{short} is not called by its name in the plugin"
        if path in seen or len(seen) > _DEPTH:
            return f"the arguments of {short} are handed on in a cycle or too deep to follow"
        out: set[tuple[tuple[str, ...], ...]] = set()
        for args, where in sites:
            found = self._site_values(args, where, params, wanted, (*seen, path))
            if isinstance(found, str):
                return found
            out |= found
        return out

    def _site_values(
        self,
        args: tuple[tuple[str, str, str, str], ...],
        where: str,
        params: tuple[str, ...],
        wanted: tuple[tuple[int, str], ...],
        seen: tuple[str, ...],
    ) -> set[tuple[tuple[str, ...], ...]] | str:
        """What one call (``args``, at ``where``) passes the parameters ``wanted`` (of
        ``params``), as :meth:`pairs` says, the parameters of its caller it hands on asked
        of the caller's own calls and combined with the values it passes itself."""
        given = {key: (kind, value, module) for key, kind, value, module in args}
        fixed: dict[int, tuple[str, ...]] = {}
        handed: list[tuple[int, tuple[int, str]]] = []
        caller = ""
        for position, (index, role) in enumerate(wanted):
            found = given.get(str(index)) or given.get(params[index])
            if found is None:
                return (
                    f"the call at {where} passes no {params[index]} of its own "
                    "(a default, or an unpacked *args or **kwargs)"
                )
            kind, value, module = found
            if kind == PARAMETER:
                caller = value
                handed.append((position, (int(module), role)))
            elif role == OBJECT and kind == UPSTREAM:
                fixed[position] = (value, module)
            elif role == OBJECT and kind == OWN and self._own_class(value):
                return set()  # the plugin's own class: no upstream patch
            elif role == NAME and kind == LITERAL and value.isidentifier():
                fixed[position] = (value,)
            else:
                what = "an upstream module or class" if role == OBJECT else "a string literal"
                return (
                    f"the call at {where} passes {value or 'a value'} as {params[index]}, "
                    f"which this reader cannot follow to {what}"
                )
        if not handed:
            return {tuple(fixed[position] for position in range(len(wanted)))}
        outer = self.pairs(caller, tuple(asked for _position, asked in handed), seen)
        if isinstance(outer, str):
            return outer
        out: set[tuple[tuple[str, ...], ...]] = set()
        for values in outer:
            row = dict(fixed)
            for (position, _asked), passed in zip(handed, values, strict=True):
                row[position] = passed
            out.add(tuple(row[position] for position in range(len(wanted))))
        return out

    def literals(self, path: str, index: int, seen: tuple[str, ...]) -> set[str] | None:
        """The string literals the calls of the plugin function ``path`` pass its parameter
        ``index``, a parameter handed on from caller to caller included; ``None`` when any
        call passes something else, or the function is not only called."""

        def take(kind: str, value: str, _module: str) -> set[str] | None:
            return {value} if kind == LITERAL else None

        return self._through_calls(path, index, seen, take)

    def _through_calls(
        self,
        path: str,
        index: int,
        seen: tuple[str, ...],
        take: Callable[[str, str, str], set[_T] | None],
    ) -> set[_T] | None:
        """What ``take`` makes of each argument (kind, value, module) the calls of the
        plugin function ``path`` pass its parameter ``index``, following a parameter the
        caller hands on (at most :data:`_DEPTH` callers deep); ``None`` when ``take`` says
        so for any call, a call passes nothing there, or the function is not only called."""
        params = self._params(path)
        sites = self.calls.get(path, [])
        if params is None or index >= len(params) or not sites or path in self.used:
            return None
        if path in seen or len(seen) > _DEPTH:
            return None
        name = params[index]
        out: set[_T] = set()
        for args, _where in sites:
            given = {key: (kind, value, module) for key, kind, value, module in args}
            found = given.get(str(index)) or given.get(name)
            if found is None:
                return None  # a default, or an unpacked *args or **kwargs
            kind, value, module = found
            if kind == PARAMETER:
                handed = self._through_calls(value, int(module), (*seen, path), take)
            else:
                handed = take(kind, value, module)
            if handed is None:
                return None
            out |= handed
        return out
