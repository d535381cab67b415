"""Where an upstream release registers a key of a registry through a call or a decorator.

A plugin's registry entry (``TABLE["name"] = ...``) asks whether upstream has the key
itself. Upstream fills many registries outside their definition, through a *registration
function* of the registry: a function of the registry's module (``register_speculator(name)``
storing ``SUPPORTED_SPECULATORS_TYPES[name] = fn``), a method of the class holding it
(``register_engine(cls, name, ...)`` storing ``cls._registry[name] = ...``), or a method of
the registry object's class (``self._module_dict[name] = module``), called
(``Factory.register_engine("nccl", ...)``, ``REGISTRY.register("name")(cls)``) or used as a
decorator (``@register_speculator("dspark")``, ``@MODELS.register_module(name="x")``). Such a
key is nowhere in the registry's definition; :func:`registration` reads those calls.

The registration functions are found from the registry's own definition, never from their
names: a function or method is one when it stores into the registry with a subscript whose
key is one of its parameters (the *key parameter*; a nested function of it may do the
store, as a decorator factory's does), or hands that parameter on as the key of another
registration function of the same registry. A call counts when its callee resolves, through
the imports of the module it is written in, to a registration function, and its argument
for the key parameter (by position or by keyword) is the literal key. The calls are read in
the module that defines the registry and in the modules that import, by name, the
registration function or the registry's owner (its class, or the registry object itself).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import cast

from patchkeeper.runtime.judge.hooks import module_ast
from patchkeeper.runtime.lookup.resolve import FOUND, Resolution, resolve_all
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.syntax import names

#: The most rounds of "hands its key parameter on to a registration function" followed.
MAX_FORWARDS = 4

_Function = ast.FunctionDef | ast.AsyncFunctionDef
#: ``try`` statements (``try``/``except*`` is ``ast.TryStar`` from Python 3.11).
_TRIES: tuple[type[ast.stmt], ...] = tuple(
    kind for kind in (ast.Try, getattr(ast, "TryStar", None)) if kind is not None
)


@dataclass(frozen=True)
class Registration:
    """One registration of a key by upstream, outside the registry's definition.

    Attributes:
        key: the key, unquoted (``nccl``).
        call: the registration as written, the key's argument shown and the others elided
            (``WeightTransferEngineFactory.register_engine('nccl', ...)``,
            ``@register_speculator('dspark')``).
        value: the source of what is registered under the key: the call's other arguments
            (``'vllm.x.nccl_engine', 'NCCLEngine'``), or the name of the function or class a
            decorator registers (``update_dspark``); ``""`` when nothing else is passed.
        where: the file of the tree (relative to its root) and the line, ``path:line``.
        condition: ``""`` when the registration runs whenever its module is imported, else
            why it may not run (``under `if envs.USE_X` (line 12)``, ``inside configure(),
            which runs it only when called``).
    """

    key: str
    call: str
    value: str
    where: str
    condition: str = ""

    def described(self) -> str:
        """The registration for a reason: ``registered by CALL at PATH:LINE``, the condition
        added when there is one."""
        text = f"registered by {self.call} at {self.where}"
        return f"{text}, {self.condition}" if self.condition else text

    def value_names(self) -> tuple[str, ...]:
        """The names in :attr:`value`, as :func:`patchkeeper.runtime.judge.registry_keys.
        key_value_names` reads a dict display's value (a string's words included:
        ``'vllm.x', 'Engine'`` gives ``("vllm", "x", "Engine")``)."""
        return tuple(re.findall(r"[A-Za-z_]\w*", self.value))


#: A registration function: its dotted path -> (the key parameter's position among the
#: arguments a call passes, ``None`` when keyword-only; the key parameter's name, ``""``
#: when positional-only).
_Functions = dict[str, tuple[int | None, str]]


def literal_key(key: str | None) -> str | None:
    """The string an entry's key (its source, ``'nccl'``) is, or ``None`` when it is not a
    string literal (a name, a number, an expression)."""
    if key is None:
        return None
    try:
        value = ast.literal_eval(key)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) else None


def registered_key(
    entry: PatchEntry,
    old: Resolution,
    new: Resolution,
    trees: tuple[UpstreamTree, UpstreamTree],
) -> tuple[Registration | None, Registration | None]:
    """How the old and the new upstream tree register a registry entry's key through a call
    or a decorator (:func:`registration`), each ``None`` when it does not (or the key is no
    string literal, or the registry is not found whole). The calls are read in the same
    modules of both trees: the registry's own, and those of the new tree that import its
    registration functions or owner (:func:`importing_modules`)."""
    key = literal_key(entry.key)
    if key is None or new.status != FOUND or new.partial or not new.qualname:
        return None, None
    modules = importing_modules(trees[1], new)
    return registration(trees[0], old, key, modules), registration(trees[1], new, key, modules)


def importing_modules(tree: UpstreamTree, found: Resolution) -> tuple[str, ...]:
    """The modules of ``tree`` that import, by name, the registry's owner or one of its
    registration functions from the module defining the registry ``found`` (or from a
    package above it, which may re-export it), in the tree's order; read from the tree's
    importer index. Empty when the registry has no registration function."""
    functions = _registration_functions(tree, found)
    if not functions:
        return ()
    module = found.module
    wanted = {path[len(module) + 1 :].split(".")[0] for path in functions}
    out: list[str] = []
    for name in sorted(wanted):
        for importer, source, _local, _line, _indent in tree.importers(name):
            if importer != module and (module == source or module.startswith(f"{source}.")):
                out.append(importer)
    return tuple(dict.fromkeys(out))


def registration(
    tree: UpstreamTree, found: Resolution, key: str, modules: tuple[str, ...] = ()
) -> Registration | None:
    """How ``tree`` registers the string ``key`` in the registry ``found`` (resolved in
    ``tree``) through a registration function, read in the registry's module and in
    ``modules`` (:func:`importing_modules`); ``None`` when no call or decorator registers it
    there (or the registry is not found whole). The first registration in reading order
    that runs whenever its module is imported is given, else the first one."""
    if found.status != FOUND or found.partial or not found.qualname:
        return None
    functions = _registration_functions(tree, found)
    if not functions:
        return None
    first: Registration | None = None
    for module in dict.fromkeys((found.module, *modules)):
        for made in _registrations(tree, module, functions, found, key):
            if not made.condition:
                return made
            first = first or made
    return first


_FOUND_FUNCTIONS: dict[tuple[str, str, str], _Functions] = {}


def _registration_functions(tree: UpstreamTree, found: Resolution) -> _Functions:
    """The registration functions of the registry ``found`` (see the module docstring),
    read once per tree and registry in a process."""
    memo = (str(tree.root), found.module, found.qualname)
    if memo not in _FOUND_FUNCTIONS:
        _FOUND_FUNCTIONS[memo] = _read_functions(tree, found)
    return _FOUND_FUNCTIONS[memo]


def _read_functions(tree: UpstreamTree, found: Resolution) -> _Functions:
    parsed = module_ast(tree, found.module)
    if parsed is None:
        return {}
    module, parts = found.module, found.qualname.split(".")
    top = {node.name: node for node in _top_level(parsed.body)}
    out: _Functions = {}
    if len(parts) == 1:
        name = parts[0]
        plain = [n for n in top.values() if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        out.update(_stores(plain, module, lambda e, _first: _is_name(e, name), method=False))
        owner = _instance_class(tree, found, parsed)
        if owner is not None:
            methods = _methods(owner)

            def own(expr: ast.expr, first: str) -> bool:
                return isinstance(expr, ast.Attribute) and _is_name(expr.value, first)

            read = _stores(methods, "", own, method=True)
            out.update({f"{module}.{name}{path}": at for path, at in read.items()})
    elif len(parts) == 2:
        cls_name, attr = parts
        cls_node = top.get(cls_name)
        if not isinstance(cls_node, ast.ClassDef):
            return {}

        def held(expr: ast.expr, first: str) -> bool:
            return (
                isinstance(expr, ast.Attribute)
                and expr.attr == attr
                and (_is_name(expr.value, first) or _is_name(expr.value, cls_name))
            )

        read = _stores(_methods(cls_node), "", held, method=True)
        out.update({f"{module}.{cls_name}{path}": at for path, at in read.items()})
        plain = [n for n in top.values() if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        out.update(_stores(plain, module, lambda e, _first: held(e, ""), method=False))
    return out


def _is_name(expr: ast.expr, name: str) -> bool:
    return bool(name) and isinstance(expr, ast.Name) and expr.id == name


def _top_level(body: list[ast.stmt]) -> Iterator[_Function | ast.ClassDef]:
    """The functions and classes a module body defines, those of its ``if``/``try`` blocks
    included."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node
        elif isinstance(node, (ast.If, ast.Try)):
            for part in ("body", "orelse", "finalbody"):
                yield from _top_level(getattr(node, part, []))
            for handler in getattr(node, "handlers", []):
                yield from _top_level(handler.body)


def _methods(cls: ast.ClassDef) -> list[_Function]:
    return [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _instance_class(
    tree: UpstreamTree, found: Resolution, parsed: ast.Module
) -> ast.ClassDef | None:
    """The class the module-level registry ``found`` is an instance of (``REG =
    Registry("models")``), resolved through the module's own definitions and imports;
    ``None`` when the registry is not a call of a class of the tree."""
    name = found.qualname
    value: ast.expr | None = None
    for node in names.walk_statements(parsed.body):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        if any(_is_name(t, name) for t in targets):
            value = node.value
    if not isinstance(value, ast.Call):
        return None
    dotted = _dotted(value.func, _table(tree, found.module, parsed), found.module, parsed)
    if dotted is None:
        return None
    where = resolve_all(tree, [dotted], lambda _target: False)[dotted]
    if where.status != FOUND or where.partial or "." in where.qualname or not where.qualname:
        return None
    cls_parsed = module_ast(tree, where.module)
    for node in _top_level(cls_parsed.body if cls_parsed is not None else []):
        if isinstance(node, ast.ClassDef) and node.name == where.qualname:
            return node
    return None


def _parameters(function: _Function, method: bool) -> tuple[list[str], set[str]]:
    """The names of the parameters a call passes by position, in order (a method's first
    one, ``self`` or ``cls``, left out unless it is a ``staticmethod``), and the names it
    may pass by keyword."""
    args = function.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    static = any(names.attribute_chain(d).endswith("staticmethod") for d in function.decorator_list)
    if method and not static and positional:
        positional = positional[1:]
    keywords = {a.arg for a in (*args.args, *args.kwonlyargs)}
    return positional, keywords


def _first(function: _Function, method: bool) -> str:
    """The name of a method's ``self``/``cls`` (``""`` for a function or a static method)."""
    positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    static = any(names.attribute_chain(d).endswith("staticmethod") for d in function.decorator_list)
    return positional[0] if method and not static and positional else ""


def _stores(
    functions: list[_Function],
    prefix: str,
    holds: Callable[[ast.expr, str], bool],
    method: bool,
) -> _Functions:
    """The registration functions among ``functions`` (all of one module, or all methods of
    one class): those storing into the registry (``holds(expr, first)`` says whether
    ``expr``, in a function whose ``self``/``cls`` is ``first``, is the registry) keyed by
    a parameter, and, in up to :data:`MAX_FORWARDS` rounds, those handing a parameter on
    as the key of one found. Keyed ``{prefix}.{name}`` (``prefix`` ``""``: ``.{name}``)."""
    found: dict[str, tuple[int | None, str]] = {}
    shapes = {f.name: (_parameters(f, method), _first(f, method)) for f in functions}
    for function in functions:
        (positional, keywords), first = shapes[function.name]
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.slice, ast.Name)
                and holds(node.value, first)
            ):
                at = _position(node.slice.id, positional, keywords)
                if at is not None:
                    found[function.name] = at
                    break
    for _round in range(MAX_FORWARDS):
        added = False
        for function in functions:
            if function.name in found:
                continue
            (positional, keywords), first = shapes[function.name]
            for node in ast.walk(function):
                if not isinstance(node, ast.Call):
                    continue
                callee = _own_callee(node.func, first, method)
                if callee not in found:
                    continue
                passed = _argument(node, *found[callee])
                if isinstance(passed, ast.Name):
                    at = _position(passed.id, positional, keywords)
                    if at is not None:
                        found[function.name] = at
                        added = True
                        break
        if not added:
            break
    return {f"{prefix}.{name}": at for name, at in found.items()}


def _own_callee(func: ast.expr, first: str, method: bool) -> str:
    """The name of the function of the same module (``helper(...)``) or the method of the
    same object (``self.helper(...)``, ``cls.helper(...)``) a call calls, else ``""``."""
    if not method:
        return func.id if isinstance(func, ast.Name) else ""
    if isinstance(func, ast.Attribute) and _is_name(func.value, first):
        return func.attr
    return ""


def _position(
    name: str, positional: list[str], keywords: set[str]
) -> tuple[int | None, str] | None:
    """Where a call passes the parameter ``name``: its position (``None`` when keyword-only)
    and its keyword (``""`` when positional-only); ``None`` when it is no parameter."""
    index = positional.index(name) if name in positional else None
    keyword = name if name in keywords else ""
    if index is None and not keyword:
        return None
    return index, keyword


def _argument(call: ast.Call, index: int | None, keyword: str) -> ast.expr | None:
    """The argument a call passes for the parameter at ``index`` / named ``keyword``
    (``None`` when a ``*args`` before it, or its absence, hides it)."""
    if keyword:
        for kw in call.keywords:
            if kw.arg == keyword:
                return kw.value
    if index is not None and index < len(call.args):
        if any(isinstance(a, ast.Starred) for a in call.args[: index + 1]):
            return None
        return call.args[index]
    return None


def _table(tree: UpstreamTree, module: str, parsed: ast.Module) -> names.Table:
    found = tree.module_file(module)
    return names.scope_table(parsed.body, {}, module, bool(found and found[1]))


def _dotted(expr: ast.expr, table: names.Table, module: str, parsed: ast.Module) -> str | None:
    """The dotted path a callee refers to in ``module``: a name the module defines at its
    top level is ``module.name``, one it imports is what the import binds."""
    chain: list[str] = []
    while isinstance(expr, ast.Attribute):
        chain.insert(0, expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    if expr.id in _defined_names(parsed):
        base = f"{module}.{expr.id}"
    else:
        bound = table.get(expr.id)
        if bound is None:
            return None
        base = bound.dotted
    return ".".join([base, *chain])


_DEFINED: dict[int, tuple[ast.Module, frozenset[str]]] = {}


def _defined_names(parsed: ast.Module) -> frozenset[str]:
    """The names a module binds at its top level by ``def``, ``class`` or assignment."""
    hit = _DEFINED.get(id(parsed))
    if hit is not None and hit[0] is parsed:
        return hit[1]
    out: set[str] = set()
    for node in names.walk_statements(parsed.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    _DEFINED[id(parsed)] = (parsed, frozenset(out))
    return _DEFINED[id(parsed)][1]


def _registrations(
    tree: UpstreamTree, module: str, functions: _Functions, found: Resolution, key: str
) -> Iterator[Registration]:
    """The registrations of ``key`` written in ``module`` (see the module docstring)."""
    located = tree.module_file(module)
    if located is None:
        return
    source = tree.source_text(module)
    if key not in source:  # the literal key is in the text of a module that registers it
        return
    parsed = module_ast(tree, module)
    if parsed is None:
        return
    table = _table(tree, module, parsed)
    path = tree.relative(located[0])
    aliases: dict[str, str | None] = {}

    def registered(call: ast.Call) -> str | None:
        """The registration function ``call`` calls with the literal ``key``, as written."""
        written = names.attribute_chain(call.func)
        if not written:
            return None
        if written not in aliases:
            aliases[written] = _canonical(
                tree, found, _dotted(call.func, table, module, parsed), functions
            )
        canonical = aliases[written]
        if canonical is None:
            return None
        passed = _argument(call, *functions[canonical])
        if isinstance(passed, ast.Constant) and passed.value == key:
            return written
        return None

    for call, condition, decorated, outer in _calls(parsed.body, ""):
        written = registered(call)
        if written is None:
            continue
        index, keyword = functions[_canonical_of(aliases, written)]
        if decorated:
            value, shown = decorated, f"@{written}({key!r})"
        else:
            given = outer if outer is not None else call
            others = [
                ast.unparse(a) for i, a in enumerate(given.args) if given is not call or i != index
            ] + [
                ast.unparse(k) if k.arg is None else f"{k.arg}={ast.unparse(k.value)}"
                for k in given.keywords
                if given is not call or k.arg != keyword or not keyword
            ]
            value = ", ".join(others)
            shown = f"{written}({key!r}, ...)" if outer is None else f"{written}({key!r})(...)"
        yield Registration(key, shown, value, f"{path}:{call.lineno}", condition)


def _canonical_of(aliases: dict[str, str | None], written: str) -> str:
    canonical = aliases[written]
    assert canonical is not None, "only a registration function's call is named"
    return canonical


def _canonical(
    tree: UpstreamTree, found: Resolution, dotted: str | None, functions: _Functions
) -> str | None:
    """The registration function (a key of ``functions``) the callee ``dotted`` is: itself,
    or, for a path through another module (a package re-exporting the owner), the one its
    owner resolves to in ``tree``; ``None`` when it is none."""
    if dotted is None:
        return None
    if dotted in functions:
        return dotted
    owner, _, attr = dotted.rpartition(".")
    if not owner:
        return None
    where = resolve_all(tree, [owner], lambda _target: False)[owner]
    if where.status != FOUND or where.partial:
        return None
    again = f"{where.location}.{attr}"
    return again if again in functions else None


def _calls(
    body: list[ast.stmt], condition: str
) -> Iterator[tuple[ast.Call, str, str, ast.Call | None]]:
    """Every call of a body, with the condition it runs under (``""``: whenever the body
    runs), the name of the function or class it decorates (``""`` when it is no
    decorator) and the call of its result (``REG.register("k")(cls)``), if any."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for deco in stmt.decorator_list:
                if isinstance(deco, ast.Call):
                    yield deco, condition, stmt.name, None
                    yield from _expression_calls(
                        deco.args + [k.value for k in deco.keywords], condition
                    )
            inner = condition
            if not isinstance(stmt, ast.ClassDef):
                inner = condition or f"inside {stmt.name}(), which runs it only when called"
            yield from _calls(stmt.body, inner)
        elif isinstance(stmt, ast.If):
            test = ast.unparse(stmt.test)
            yield from _expression_calls([stmt.test], condition)
            yield from _calls(stmt.body, condition or f"under `if {test}` (line {stmt.lineno})")
            yield from _calls(
                stmt.orelse, condition or f"under the else of `if {test}` (line {stmt.lineno})"
            )
        elif isinstance(stmt, _TRIES):
            block = cast(ast.Try, stmt)  # ``ast.TryStar`` has the same fields
            guarded = condition or f"inside a try block (line {block.lineno})"
            yield from _calls(block.body, guarded)
            for handler in block.handlers:
                yield from _calls(
                    handler.body, condition or f"in an except handler (line {handler.lineno})"
                )
            yield from _calls(block.orelse, guarded)
            yield from _calls(block.finalbody, condition)
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            looped = condition or f"inside a loop (line {stmt.lineno})"
            yield from _calls(stmt.body, looped)
            yield from _calls(stmt.orelse, looped)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield from _expression_calls([item.context_expr for item in stmt.items], condition)
            yield from _calls(stmt.body, condition)
        elif isinstance(stmt, ast.Match):
            for case in stmt.cases:
                yield from _calls(case.body, condition or f"in a match case (line {stmt.lineno})")
        else:
            yield from _expression_calls([stmt], condition)


def _expression_calls(
    nodes: list[ast.expr] | list[ast.stmt], condition: str
) -> Iterator[tuple[ast.Call, str, str, ast.Call | None]]:
    """The calls inside simple statements or expressions, each with the call of its result
    when there is one (``f("k")(x)``)."""
    for top in nodes:
        outer_of: dict[int, ast.Call] = {}
        for node in ast.walk(top):
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Call):
                    outer_of[id(node.func)] = node
                yield node, condition, "", outer_of.get(id(node))
