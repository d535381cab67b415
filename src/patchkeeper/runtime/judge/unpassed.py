"""Parameters upstream added that no upstream call passes (rule 7 of
:mod:`patchkeeper.runtime.judge.judge`).

When the new upstream adds a parameter with a default to a function (or to a method of a
class) that the plugin replaces, a copy or override that lacks the parameter breaks only
where a call passes it. :func:`unpassed_parameters` reads the calls of the modules where the
target is defined and where the plugin reaches it, and of the modules that import the
target, its class or its module by name; a parameter none of them passes (by keyword, by
position, or through ``**``) leaves every call binding to the plugin's code as before, so
the copy that lacks it needs no update for it
(:func:`patchkeeper.runtime.judge.noise.callers_fit_reason`).

Calls through an attribute the audit cannot name (``self.indexer(x, skip=True)`` for a
``forward``) and calls in modules that reach the target with a plain ``import x.y`` are
not read: such a call can pass the parameter without this module seeing it.

A patch that rebinds a module-level name in a module that imports it (``layer.Cache =
DevCache`` where ``layer`` did ``from cache import Cache``) reaches only the calls that look
the name up there: those of ``layer`` itself and of modules importing the name (or
``layer``) from it. The defining module and the modules importing the name from it keep
upstream's function or class, so their calls of it are not read (:func:`rebinding_scope`);
a method's calls are read as before, since the instances of the class ``layer`` builds
travel to any module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.judge.hooks import module_ast, module_parts, names_as_written
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.syntax.astwalk import calls as calls_of
from patchkeeper.runtime.syntax.names import walk_statements

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _defaults(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, bool, int]]:
    """``(name, has a default, positional index or -1)`` for each named parameter."""
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    first = len(positional) - len(arguments.defaults)
    out = [(a.arg, i >= first, i) for i, a in enumerate(positional)]
    out += [(a.arg, d is not None, -1) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults)]
    return out


def added_defaulted(
    old: ast.FunctionDef | ast.AsyncFunctionDef, new: ast.FunctionDef | ast.AsyncFunctionDef
) -> dict[str, int]:
    """The parameters ``new`` has with a default and ``old`` has not, each with its
    positional index (``-1``: keyword-only)."""
    before = {name for name, _d, _i in _defaults(old)}
    return {n: i for n, default, i in _defaults(new) if default and n not in before}


def _pairs(old: Code, new: Code) -> list[tuple[str, ast.stmt, ast.stmt, bool]]:
    """``(name callers call it by, old definition, new definition, is a method)`` for the
    target (a function) or for each method of the target (a class) in both releases."""
    before, after = old.parsed, new.parsed
    if isinstance(before, _FUNCTIONS) and isinstance(after, _FUNCTIONS):
        return [(after.name, before, after, False)]
    if not (isinstance(before, ast.ClassDef) and isinstance(after, ast.ClassDef)):
        return []
    olds = {n.name: n for n in walk_statements(before.body) if isinstance(n, _FUNCTIONS)}
    news = {n.name: n for n in walk_statements(after.body) if isinstance(n, _FUNCTIONS)}
    return [
        (after.name if name == "__init__" else name, olds[name], node, True)
        for name, node in news.items()
        if name in olds
    ]


def _callee(call: ast.Call) -> str:
    """The last part of a call's callee name (``""`` for ``super().x`` and other calls
    on a call's result)."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and not isinstance(func.value, ast.Call):
        return func.attr
    return ""


#: Methods called through the object itself (``self.indexer(x)`` runs ``forward``): any
#: call passing the parameter by keyword counts.
_CALLED_THROUGH_OBJECT = {"forward": "__call__"}


#: What :func:`_passes` reads of a call: its callee's last name (:func:`_callee`), the
#: names of its keywords (``None`` for a ``**mapping``), whether a positional argument is
#: ``*starred``, and how many positional arguments it writes.
Call = tuple[str, tuple[str | None, ...], bool, int]


def _call(call: ast.Call) -> Call:
    """The :data:`Call` of a parsed call."""
    return (
        _callee(call),
        tuple([k.arg for k in call.keywords]),
        any(a.__class__ is ast.Starred for a in call.args),
        len(call.args),
    )


def _passes(
    call: Call, callee: str, name: str, index: int, shift: int, starred: bool = True
) -> bool:
    """Whether ``call`` may pass the parameter ``name`` of ``callee`` (positional
    ``index``, ``-1``: keyword-only; ``shift``: 1 for a method, whose ``self`` the call
    does not write); ``starred``: whether a ``**mapping`` argument counts (it may hold
    any keyword)."""
    called, keywords, starred_args, count = call
    if callee in _CALLED_THROUGH_OBJECT and name in keywords:
        return True
    if called != callee:
        return False
    if name in keywords or (starred and None in keywords):
        return True
    if starred_args:
        return True
    return index >= 0 and count > index - shift


#: Where calls are read: modules, and names whose importers are read too (a name given as
#: ``(name, module)`` counts only where it is imported from ``module``).
Scope = tuple[tuple[str, ...], tuple[str | tuple[str, str], ...]]


def unpassed_parameters(
    tree: UpstreamTree,
    modules: Iterable[str],
    old: Code,
    new: Code,
    names: Iterable[str | tuple[str, str]] = (),
    rebound: Scope | None = None,
) -> frozenset[tuple[str, str]]:
    """``(definition name, parameter)`` for each parameter with a default that the new
    upstream ``new`` added over ``old`` (the target, or a method of the target class) and
    that no call in ``modules`` of ``tree``, nor in a module importing the function, its
    class or its module by name (``from X import name``), passes: no call whose callee is
    named as the function (the class for ``__init__``) passes it by keyword, by position or
    through
    ``*``/``**``, and for a ``forward`` no call passes it by keyword. Empty when nothing
    was added or a module cannot be read. ``names``: the names a module importing the
    target imports (``from X import name``): the last part of the target's module
    (``from vllm.v1.worker import mamba_utils``) and each part of its qualified name
    (``Scheduler``, ``create``); a plain ``import X.Y`` is not read. ``rebound``: where
    the calls of the function itself, or of the class (its ``__init__``), are read instead
    when the patch rebinds the name in a module importing it (:func:`rebinding_scope`)."""
    found = _added_and_calls(tree, (tuple(modules), tuple(names)), old, new, rebound)
    if found is None:
        return frozenset()
    rows, unchecked = found
    answer = frozenset(
        (definition, name)
        for definition, callee, name, index, shift, calls in rows
        if not any(_passes(c, callee, name, index, shift) for c in calls)
    )
    return answer if not answer or _all_parse(tree, unchecked) else frozenset()


def starred_parameters(
    tree: UpstreamTree,
    modules: Iterable[str],
    old: Code,
    new: Code,
    names: Iterable[str | tuple[str, str]] = (),
    rebound: Scope | None = None,
) -> frozenset[tuple[str, str]]:
    """``(definition name, parameter)`` for each parameter with a default the new upstream
    added (as :func:`unpassed_parameters` reads them) that no call passes by its name or
    by position, but a call may pass through a ``**mapping`` argument
    (``f(a, **self._extra_kwargs(x))``): whether it does is decided at run time (the
    mapping may be empty, or hold other keys), which the trees cannot tell."""
    found = _added_and_calls(tree, (tuple(modules), tuple(names)), old, new, rebound)
    if found is None:
        return frozenset()
    rows, unchecked = found
    answer = frozenset(
        (definition, name)
        for definition, callee, name, index, shift, calls in rows
        if not any(_passes(c, callee, name, index, shift, starred=False) for c in calls)
        and any(_passes(c, callee, name, index, shift) for c in calls)
    )
    return answer if not answer or _all_parse(tree, unchecked) else frozenset()


def _all_parse(tree: UpstreamTree, modules: Iterable[str]) -> bool:
    """Whether every module of ``modules`` (of ``tree``) parses: those whose calls were
    not read (:func:`_skipped`) without a summary telling it. A module that does not
    parse empties the answer, as it does when its calls are read; an empty answer stays
    empty, so the modules are parsed only for one that is not."""
    return all(_module_calls(tree, module) is not None for module in modules)


def _added_and_calls(
    tree: UpstreamTree,
    scope: Scope,
    old: Code,
    new: Code,
    rebound: Scope | None,
) -> tuple[list[tuple[str, str, str, int, int, list[Call]]], list[str]] | None:
    """The parameters with a default ``new`` added over ``old``, each as ``(definition,
    callee, parameter, positional index, shift, the calls read for it)``: those of
    ``scope``, or of ``rebound`` for the function itself or the class's ``__init__``
    (:func:`unpassed_parameters`); ``None`` when nothing was added or a module cannot be
    read. The calls read for a parameter are those :func:`_passes` can count: the calls
    whose callee is named as the definition, or every call for a method called through
    the object itself (:data:`_CALLED_THROUGH_OBJECT`). With them, the modules not read
    (:func:`_skipped`) not known to parse."""
    wanted: list[tuple[str, str, str, int, int]] = []
    for callee, before, after, method in _pairs(old, new):
        if not (isinstance(before, _FUNCTIONS) and isinstance(after, _FUNCTIONS)):
            continue
        for name, index in added_defaulted(before, after).items():
            wanted.append((after.name, callee, name, index, 1 if method else 0))
    if not wanted:
        return None
    callees = frozenset(row[1] for row in wanted)
    unchecked: list[str] = []
    calls = _calls(tree, scope, callees, unchecked)
    own = getattr(new.parsed, "name", "")
    mine = _calls(tree, rebound, callees, unchecked) if rebound is not None else calls
    if calls is None or mine is None:
        return None
    rows = [(*row, _of_callee(mine if row[1] == own else calls, row[1])) for row in wanted]
    return rows, unchecked


#: The calls of a module by the last part of their callee's name (:func:`_callee`).
_ByCallee = dict[str, list[Call]]


def _of_callee(modules: list[_ByCallee], callee: str) -> list[Call]:
    """The calls of ``modules`` that :func:`_passes` may count for ``callee``: those whose
    callee is named ``callee`` (a call named otherwise passes none of its parameters), or
    every call for a method called through the object itself."""
    if callee in _CALLED_THROUGH_OBJECT:
        return [call for by_callee in modules for calls in by_callee.values() for call in calls]
    return [call for by_callee in modules for call in by_callee.get(callee, ())]


def _calls(
    tree: UpstreamTree, scope: Scope, callees: frozenset[str], unchecked: list[str]
) -> list[_ByCallee] | None:
    """The calls of each module of ``scope`` and of each module importing its names, by
    callee (``None`` when a module cannot be read); of a module that names none of
    ``callees`` (:func:`_skipped`), none: its calls of other names are not read, and
    when no summary tells that it parses it is added to ``unchecked``."""
    modules, names = scope
    importing = []
    for wanted_name in names:
        name, source = (wanted_name, "") if isinstance(wanted_name, str) else wanted_name
        if name:
            importing += [row[0] for row in tree.importers(name) if source in ("", row[1])]
    calls: list[_ByCallee] = []
    for module in dict.fromkeys([*modules, *importing]):
        skipped = _skipped(tree, module, callees) if module else None
        if skipped is not None:
            if not skipped:
                unchecked.append(module)
            calls.append({})
            continue
        found = None
        if module:
            found = _named_calls(tree, module, callees)
            if found is None:
                found = _module_calls(tree, module)
        if found is None:
            return None
        calls.append(found)
    return calls


_CALLS: dict[tuple[str, str], _ByCallee | None] = {}


def _skipped(tree: UpstreamTree, module: str, callees: frozenset[str]) -> bool | None:
    """Whether ``module`` of ``tree`` surely holds no call :func:`_of_callee` reads for
    ``callees``, so that it is not parsed for its calls: ``None`` when it may hold one
    (it is read), else whether it is known to parse (``False``: the answer is checked
    by :func:`_all_parse` when it is not empty).

    A call's callee is an identifier of the source (:func:`_callee`), and an identifier
    is written as its text where the text is in its normal form
    (:func:`~patchkeeper.runtime.judge.hooks.names_as_written`: an ASCII text, or one in
    NFKC, as the parser reads identifiers): a module whose text holds none of ``callees``
    calls none of them. That it parses is known from its summary when it has one (parsed
    from the same bytes, stored or made this run; an ASCII text parses alike as bytes
    and as text). ``None`` when its calls were collected already, for a callee any call
    counts for (:data:`_CALLED_THROUGH_OBJECT`), for a module without a file, a text not
    in its normal form, a summary telling that it does not parse, or a text that is not
    ASCII with a summary (such a module is read in its parts naming a callee,
    :func:`_named_calls`, none here: nothing is parsed)."""
    if (str(tree.root), module) in _CALLS or not callees.isdisjoint(_CALLED_THROUGH_OBJECT):
        return None
    found = tree.module_file(module)
    if found is None:
        return None
    text = tree.source_text(module)
    if not names_as_written(text) or any(callee in text for callee in callees):
        return None
    summary = tree.summaries.get(module)
    if summary is None and tree.cache.valid(found[0]):
        summary = tree.summary(module)
    if summary is None:
        return False
    return None if summary.syntax_error or not text.isascii() else True


#: A module's parts (:func:`~patchkeeper.runtime.judge.hooks.module_parts`),
#: each ``[text, its calls by callee]`` (the calls ``None`` until the part is parsed);
#: ``None`` for a module not read in parts.
_PARTS: dict[tuple[str, str], list[list[object]] | None] = {}


def _named_calls(tree: UpstreamTree, module: str, callees: frozenset[str]) -> _ByCallee | None:
    """The calls of ``module`` of ``tree`` whose callee is one of ``callees``, by callee, as
    :func:`_module_calls` gives them (the lists in no particular order), read from the
    parts of the module (:func:`~patchkeeper.runtime.judge.hooks.module_parts`: its
    functions, its classes' methods and the rest) whose text names one of them: a
    callee is an identifier, so a part not naming it calls none of them and is not
    parsed. Such a module was parsed whole for its summary already; parsing it whole
    again for the calls of one or two names cost as much as that first parse. ``None``
    (the caller reads the whole module, :func:`_module_calls`) when its calls were read
    whole already, for a callee any call counts for (:data:`_CALLED_THROUGH_OBJECT`), and
    where the module is not split."""
    key = (str(tree.root), module)
    if key in _CALLS or not callees.isdisjoint(_CALLED_THROUGH_OBJECT):
        return None
    if key not in _PARTS:
        split = module_parts(tree, module)
        _PARTS[key] = None if split is None else [[text, None] for _first, text in split]
    parts = _PARTS[key]
    if parts is None:
        return None
    found: _ByCallee = {}
    for part in parts:
        text = part[0]
        assert isinstance(text, str)
        if not any(callee in text for callee in callees):
            continue
        if part[1] is None:
            try:
                parsed = ast.parse(text)
            except (SyntaxError, ValueError):  # not met: each part is whole statements
                _PARTS[key] = None
                return None
            by_callee: _ByCallee = {}
            for node in calls_of(parsed):
                call = _call(node)
                by_callee.setdefault(call[0], []).append(call)
            part[1] = by_callee
        read = part[1]
        assert isinstance(read, dict)
        for callee in callees:
            if callee in read:
                found.setdefault(callee, []).extend(read[callee])
    return found


def _module_calls(tree: UpstreamTree, module: str) -> _ByCallee | None:
    """Every call of ``module`` of ``tree`` by callee (:func:`_callee`; ``None`` when the
    module cannot be read), each list in no particular order
    (:func:`~patchkeeper.runtime.syntax.astwalk.calls`: a parameter is passed or not
    whatever the order the calls are read in); collected once per tree and module in a
    process: the judging of many entries reads the calls of the same modules (a class's
    module, its importers), and walking a whole module with :func:`ast.walk` cost about a
    third of parsing it. By callee, a parameter is looked for in the calls named as its
    definition only, not in all of them."""
    key = (str(tree.root), module)
    if key not in _CALLS:
        parsed = module_ast(tree, module, keep=False)
        by_callee: _ByCallee | None = None
        if parsed is not None:
            by_callee = {}
            for node in calls_of(parsed):
                call = _call(node)
                by_callee.setdefault(call[0], []).append(call)
        _CALLS[key] = by_callee
    return _CALLS[key]


def rebinding_scope(tree: UpstreamTree, target: str, module: str) -> Scope | None:
    """Where the calls of a patched function or class are read when the plugin rebinds a
    module-level name of another module than the one defining it (``target`` is ``<user
    module>.<name>``, :func:`user_module`; ``module`` defines it in the new upstream
    ``tree``): that user module, and the modules importing the name from it, or the user
    module from its package. ``None`` otherwise (a name of its defining module, a method).

    A module that imported the name from its defining module holds its own binding, which
    the patch does not change (``from X import name`` copies the binding): its calls reach
    upstream's definition, not the replacement."""
    where = user_module(tree, target)
    parent, _, last = where.rpartition(".")
    name = target.rsplit(".", 1)[-1]
    if not where or where == module or target != f"{where}.{name}":
        return None
    return (where,), ((last, parent), (name, where))


def for_definition(unpassed: frozenset[tuple[str, str]], name: str) -> frozenset[str]:
    """The parameters of :func:`unpassed_parameters`'s result that belong to ``name``."""
    return frozenset(p for d, p in unpassed if d == name)


def without(
    node: ast.FunctionDef | ast.AsyncFunctionDef, names: frozenset[str]
) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """``node`` without the parameters ``names`` (each with a default): the signature the
    calls that do not pass them bind to. ``node`` itself when ``names`` is empty."""
    if not names:
        return node
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    first = len(positional) - len(arguments.defaults)
    padded = [None] * first + list(arguments.defaults)
    kept = [(a, d) for a, d in zip(positional, padded) if a.arg not in names]
    only = len([a for a in arguments.posonlyargs if a.arg not in names])
    defaults = [d for _a, d in kept if d is not None]
    keyword = [
        (a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if a.arg not in names
    ]
    args = ast.arguments(
        posonlyargs=[a for a, _d in kept[:only]],
        args=[a for a, _d in kept[only:]],
        vararg=arguments.vararg,
        kwonlyargs=[a for a, _d in keyword],
        kw_defaults=[d for _a, d in keyword],
        kwarg=arguments.kwarg,
        defaults=defaults,
    )
    copy = type(node)(
        name=node.name,
        args=args,
        body=node.body,
        decorator_list=node.decorator_list,
        returns=node.returns,
        type_comment=node.type_comment,
    )
    return ast.copy_location(copy, node)


def user_module(tree: UpstreamTree, target: str) -> str:
    """The module of ``tree`` that ``target`` (a dotted path as the plugin writes it) is
    reached through: its longest prefix that is a module there (``""`` when none)."""
    parts = target.split(".")
    for end in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:end])
        if tree.module_file(module) is not None:
            return module
    return ""
