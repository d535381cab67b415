"""Name binding inside one module: what a local name refers to, as a dotted path.

Static only (the issue: never import the plugin or upstream). ``import vllm.x as m`` binds
``m`` to the module ``vllm.x``; ``from vllm.x import Cls`` binds ``Cls`` to ``vllm.x.Cls``
(a module or an attribute: not known without the upstream tree); ``orig = m.f`` binds
``orig`` to ``vllm.x.f``; ``m = importlib.import_module("vllm.x")`` binds a module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import cast


@dataclass(frozen=True)
class Binding:
    """``dotted``: what the name refers to; ``module``: the longest prefix of ``dotted`` known
    to be a module (``""`` when unknown)."""

    dotted: str
    module: str = ""


#: A name table: local name -> what it is bound to (a ``dict``, or an :class:`Overlay` of an
#: inner scope). Read only: a table handed to a function is never changed by it.
Table = Mapping[str, Binding]


def absolute_module(current: str, is_package: bool, level: int, name: str | None) -> str:
    """Resolve ``from .name import x`` written in module ``current`` to an absolute name.

    >>> absolute_module("a.b.c", False, 1, "d")
    'a.b.d'
    >>> absolute_module("a.b", True, 2, None)
    'a'
    """
    if level == 0:
        return name or ""
    parts = current.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    base = ".".join(parts)
    if name:
        return f"{base}.{name}" if base else name
    return base


def import_bindings(node: ast.Import | ast.ImportFrom, current: str, is_package: bool) -> Table:
    """The names one import statement binds."""
    out: dict[str, Binding] = {}
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                out[alias.asname] = Binding(alias.name, alias.name)
            else:
                top = alias.name.split(".")[0]
                out[top] = Binding(top, top)
        return out
    base = absolute_module(current, is_package, node.level, node.module)
    for alias in node.names:
        if alias.name == "*":
            continue
        out[alias.asname or alias.name] = Binding(f"{base}.{alias.name}", base)
    return out


def dotted(expr: ast.expr, table: Table) -> Binding | None:
    """The dotted path an expression (``m.Cls.meth``) refers to, or ``None``.

    ``importlib.import_module("vllm.x")`` resolves to the module ``vllm.x``;
    ``getattr(m, "Cls")`` and ``getattr(m, "Cls", None)`` (the builtin, not rebound) to
    ``m.Cls``; ``next(k for k in m.Cls.__mro__ if ...)`` to ``m.Cls``
    (:func:`_drawn_from_mro`); the readings of an attribute without its descriptor
    (``m.Cls.__dict__["f"]``, ``m.Cls.__dict__.get("f")``, ``vars(m.Cls)["f"]``,
    ``inspect.getattr_static(m.Cls, "f")``) to ``m.Cls.f``, the object a patch of
    ``m.Cls.f`` replaces (:func:`static_read`).
    """
    if isinstance(expr, ast.Name):
        return table.get(expr.id)
    if isinstance(expr, ast.Attribute):
        base = dotted(expr.value, table)
        if base is None:
            return None
        return Binding(f"{base.dotted}.{expr.attr}", base.module)
    if isinstance(expr, ast.Call) and _is_getattr(expr, table):
        base = dotted(expr.args[0], table)
        attr = str(cast(ast.Constant, expr.args[1]).value)
        return None if base is None else Binding(f"{base.dotted}.{attr}", base.module)
    static = static_read(expr, table)
    if static is not None:
        base = dotted(static[0], table)
        return None if base is None else Binding(f"{base.dotted}.{static[1]}", base.module)
    drawn = _drawn_from_mro(expr, table)
    if drawn is not None:
        return dotted(drawn, table)
    if (
        isinstance(expr, ast.Call)
        and expr.args
        and isinstance(expr.args[0], ast.Constant)
        and isinstance(expr.args[0].value, str)
    ):
        func = dotted(expr.func, table)
        if func is not None and func.dotted in ("importlib.import_module", "__import__"):
            name = expr.args[0].value
            return Binding(name, name)
    return None


def attribute_chain(node: ast.expr, *, rooted: bool = True) -> str:
    """``a.b.c`` of a chain of names and attributes, ``""`` for anything else. With
    ``rooted=False`` a chain that starts at a call or a subscript gives the attributes after
    it (``get_group().register`` -> ``register``): what a call reaches through another
    call's result.

    >>> attribute_chain(ast.parse("a.b.c", mode="eval").body)
    'a.b.c'
    >>> attribute_chain(ast.parse("f().b", mode="eval").body)
    ''
    >>> attribute_chain(ast.parse("f().b.c", mode="eval").body, rooted=False)
    'b.c'
    """
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif rooted:
        return ""
    return ".".join(reversed(parts))


def read_chain(value: ast.expr) -> str:
    """The attribute chain an assigned ``value`` reads: ``a.b`` of ``a.b``, ``a.b`` of
    ``getattr(a, "b")`` (a default aside); ``""`` for a bare name and anything else.

    >>> read_chain(ast.parse('getattr(a, "b", None)', mode="eval").body)
    'a.b'
    >>> read_chain(ast.parse("a", mode="eval").body)
    ''
    """
    if (
        isinstance(value, ast.Call)
        and attribute_chain(value.func) == "getattr"
        and len(value.args) >= 2
    ):
        owner, name = value.args[0], value.args[1]
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            chain = attribute_chain(owner)
            return f"{chain}.{name.value}" if chain else ""
        return ""
    chain = attribute_chain(value)
    return chain if "." in chain else ""


def isinstance_call(node: ast.AST) -> ast.Call | None:
    """``node`` when it is a call ``isinstance(X, T)`` (two positional arguments, no
    keyword), else ``None``.

    >>> isinstance_call(ast.parse("isinstance(x, (A, B))", mode="eval").body) is not None
    True
    >>> isinstance_call(ast.parse("isinstance(x, cls=A)", mode="eval").body) is None
    True
    """
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "isinstance"
        and len(node.args) == 2
        and not node.keywords
    ):
        return node
    return None


def _drawn_from_mro(expr: ast.expr, table: Table) -> ast.expr | None:
    """``Cls`` when ``expr`` is ``next(k for k in Cls.__mro__ if ...)`` (the builtin
    ``next``, not rebound): the class of ``Cls``'s method resolution order that defines
    something, whose attribute set is what ``Cls.attr`` then reads, so a patch of it is
    named after ``Cls``; ``None`` for anything else.

    >>> tree = ast.parse('next(k for k in C.__mro__ if "f" in k.__dict__)', mode="eval")
    >>> ast.unparse(_drawn_from_mro(tree.body, {}))
    'C'
    """
    if not (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "next"
        and "next" not in table
        and expr.args
        and isinstance(expr.args[0], ast.GeneratorExp)
    ):
        return None
    generator = expr.args[0]
    if len(generator.generators) != 1:
        return None
    loop = generator.generators[0]
    if not (
        isinstance(loop.target, ast.Name)
        and isinstance(generator.elt, ast.Name)
        and generator.elt.id == loop.target.id
        and isinstance(loop.iter, ast.Attribute)
        and loop.iter.attr == "__mro__"
    ):
        return None
    return loop.iter.value


def _name_literal(node: ast.expr) -> str | None:
    """The text of a string literal, ``None`` for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _namespace_of(expr: ast.expr, table: Table) -> ast.expr | None:
    """``X`` when ``expr`` is ``X.__dict__`` or ``vars(X)`` (the builtin ``vars``, not
    rebound): the namespace that holds ``X``'s own attributes; ``None`` otherwise."""
    if isinstance(expr, ast.Attribute) and expr.attr == "__dict__":
        return expr.value
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "vars"
        and "vars" not in table
        and len(expr.args) == 1
        and not expr.keywords
    ):
        return expr.args[0]
    return None


def static_read(expr: ast.expr, table: Table) -> tuple[ast.expr, str] | None:
    """``(X, "f")`` when ``expr`` reads the attribute ``f`` of ``X`` from its namespace
    rather than through the descriptor protocol: ``X.__dict__["f"]``, ``vars(X)["f"]``,
    ``X.__dict__.get("f")`` (a default besides), ``inspect.getattr_static(X, "f")`` (a
    default besides). A wrapper that saves its original so keeps the ``classmethod`` or
    ``staticmethod`` object itself; what it saves is still the object at ``X.f``.

    >>> node = ast.parse('vars(C)["f"]', mode="eval").body
    >>> [ast.unparse(part) if isinstance(part, ast.AST) else part
    ...  for part in static_read(node, {})]
    ['C', 'f']
    """
    if isinstance(expr, ast.Subscript):
        owner = _namespace_of(expr.value, table)
        name = _name_literal(expr.slice)
        return (owner, name) if owner is not None and name is not None else None
    if not isinstance(expr, ast.Call) or expr.keywords:
        return None
    func = expr.func
    if isinstance(func, ast.Attribute) and func.attr == "get" and len(expr.args) in (1, 2):
        owner = _namespace_of(func.value, table)
        name = _name_literal(expr.args[0])
        return (owner, name) if owner is not None and name is not None else None
    if len(expr.args) in (2, 3) and isinstance(func, (ast.Name, ast.Attribute)):
        bound = dotted(func, table)
        name = _name_literal(expr.args[1])
        if bound is not None and bound.dotted == "inspect.getattr_static" and name is not None:
            return expr.args[0], name
    return None


#: The names a reader of a function without its module's name table may take as bound
#: (:func:`static_read` of a parameter's attribute): ``inspect`` by ``import inspect``.
INSPECT_TABLE: dict[str, Binding] = {"inspect": Binding("inspect", "inspect")}


def reads_original(path: str, original: str) -> bool:
    """Whether a value at the dotted ``path`` is the object at ``original`` or, for a
    ``classmethod``/``staticmethod`` read from a namespace, its function
    (``original.__func__``): calling either runs the original's code.

    >>> reads_original("m.C.f.__func__", "m.C.f"), reads_original("m.C.f.__doc__", "m.C.f")
    (True, False)
    """
    return path == original or path == original + ".__func__"


def _is_getattr(expr: ast.Call, table: Table) -> bool:
    """Whether ``expr`` is ``getattr(obj, "name")`` or ``getattr(obj, "name", default)``
    with the builtin ``getattr``."""
    func = expr.func
    return (
        isinstance(func, ast.Name)
        and func.id == "getattr"
        and "getattr" not in table
        and len(expr.args) in (2, 3)
        and isinstance(expr.args[1], ast.Constant)
        and isinstance(expr.args[1].value, str)
    )


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCKS = ("body", "orelse", "handlers", "finalbody", "cases")


def walk_statements(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of a scope, through compound statements, not into nested scopes;
    the blocks of a compound statement in the order its bindings are read
    (:func:`_block_fields`: a ``try``'s ``else`` and ``finally`` after its body, which
    comes after its ``except`` fallback)."""
    stack: list[ast.AST] = list(reversed(list(body)))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.stmt):
            yield node
            if isinstance(node, _SCOPES):
                continue
        for name in reversed(_block_fields(node.__class__)):
            value = getattr(node, name, None)
            if value:
                stack.extend(reversed(value))


def scope_table(body: Iterable[ast.stmt], base: Table, current: str, is_package: bool) -> Table:
    """``base`` plus the imports and simple aliases bound in one scope's statements.

    An alias is ``name = <expression resolving to a dotted path>`` (``orig = m.f``); names
    defined by ``def``/``class`` in the scope shadow earlier bindings.
    """
    return bindings_table(list(walk_statements(body)), base, current, is_package)


def bindings_table(nodes: list[ast.stmt], base: Table, current: str, is_package: bool) -> Table:
    """:func:`scope_table` of a scope whose statements, in :func:`walk_statements` order,
    are ``nodes`` (only its imports and one-target assignments count: a list of those
    alone, as :func:`binding_statements` keeps, gives the same table). A new ``dict``;
    ``base`` is copied (see :func:`layered_table` for an inner scope's table)."""
    table = dict(base)
    _bind(nodes, table, table, current, is_package)
    return table


def layered_table(
    nodes: list[ast.stmt], outer: Table, current: str, is_package: bool, own: Table | None = None
) -> Table:
    """The table :func:`bindings_table` gives for ``nodes`` over ``outer`` with ``own``
    (the scope's own definitions, ``name -> Binding``) bound first, without copying
    ``outer``: ``outer`` itself when the scope binds nothing (no definition, no import, no
    alias that resolves), else an :class:`Overlay` of the scope's bindings over it (a plain
    ``dict`` copy when the module's table has at most :data:`SMALL_TABLE` names). Its cost
    is what the scope (and the functions around it) bind, not the size of the module's
    table: in a module of N functions, N tables cost O(N), not O(N^2)."""
    if outer.__class__ is Overlay:
        layer = dict(outer.own)
        below = outer.outer
    else:
        layer, below = {}, outer
    if own:
        layer.update(own)
    view = Overlay(layer, below)
    if not _bind(nodes, layer, view, current, is_package) and not own:
        return outer
    if len(below) <= SMALL_TABLE:  # a plain dict reads faster than an Overlay
        table = dict(below)
        table.update(layer)
        return table
    return view


#: The size up to which :func:`layered_table` copies the table under a scope's bindings
#: (a copy of at most this many names per scope still grows linearly with a module's
#: functions, and its look-ups stay ``dict`` look-ups).
SMALL_TABLE = 512


def _bind(
    nodes: list[ast.stmt], into: dict[str, Binding], view: Table, current: str, is_package: bool
) -> bool:
    """Add to ``into`` the imports of ``nodes`` and then, in order, their one-target
    assignments whose value resolves in ``view`` (a table that reads ``into`` first);
    returns whether any name was bound."""
    bound = False
    for node in nodes:
        kind = node.__class__
        if kind is ast.Import or kind is ast.ImportFrom:
            found = import_bindings(node, current, is_package)  # type: ignore[arg-type]
            if found:
                into.update(found)
                bound = True
    for node in nodes:
        kind = node.__class__
        if kind is ast.Assign:
            assign = cast(ast.Assign, node)
            if len(assign.targets) != 1:
                continue
            target, value = assign.targets[0], assign.value
        elif kind is ast.AnnAssign and cast(ast.AnnAssign, node).value is not None:
            annotated = cast(ast.AnnAssign, node)
            target, value = annotated.target, cast(ast.expr, annotated.value)
        else:
            continue
        if isinstance(target, ast.Name):
            alias = dotted(value, view)
            if alias is not None:
                into[target.id] = alias
                bound = True
    return bound


class Overlay(Mapping[str, Binding]):
    """The name table of an inner scope: its own bindings (``own``, a ``dict``) over the
    table of the scope around it (``outer``, never copied nor changed). Made by
    :func:`layered_table`, which keeps it one layer deep (the bindings of the enclosing
    functions are copied into ``own``), so a look-up costs two ``dict`` look-ups."""

    __slots__ = ("outer", "own")

    def __init__(self, own: dict[str, Binding], outer: Table) -> None:
        self.own = own
        self.outer = outer

    def get(self, key: str, default: Binding | None = None) -> Binding | None:  # type: ignore[override]
        found = self.own.get(key)
        return found if found is not None else self.outer.get(key, default)

    def __getitem__(self, key: str) -> Binding:
        found = self.own.get(key)
        return found if found is not None else self.outer[key]

    def __contains__(self, key: object) -> bool:
        return key in self.own or key in self.outer

    def __iter__(self) -> Iterator[str]:
        """The names in the order of the copy :func:`bindings_table` would make: the outer
        table's, then the scope's new ones in the order they were bound."""
        yield from self.outer
        for key in self.own:
            if key not in self.outer:
                yield key

    def __len__(self) -> int:
        return len(self.outer) + sum(1 for key in self.own if key not in self.outer)


#: Statements that bind a name in the scope that holds them (what a name table reads).
_BINDERS = frozenset({ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, *_SCOPES})
_SIMPLE_BINDERS = frozenset({ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign})
_BLOCK_FIELDS: dict[type, tuple[str, ...]] = {}
#: The ``try`` statements (``try ... except*`` of Python 3.11 too).
_TRIES: tuple[type, ...] = (ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


def _block_fields(kind: type) -> tuple[str, ...]:
    """The fields of ``_BLOCKS`` a node class has (statement lists), in the order a scope's
    bindings are read (a later one wins): the order a run reaches them, with a block that
    only runs instead of another read before it. A ``try``'s ``except`` handlers (the
    fallback when the body fails), then its body, its ``else`` and its ``finally`` (which
    run after the body): ``try: from a import f`` wins over ``except ImportError: from b
    import f`` and loses to ``else: f = wrap(f)``; an ``if``'s ``else`` before its body (the
    branch written first wins); a loop's body before its ``else``."""
    fields = _BLOCK_FIELDS.get(kind)
    if fields is None:
        own = getattr(kind, "_fields", ())
        if kind in _TRIES:
            fields = ("handlers", "body", "orelse", "finalbody")
        elif kind is ast.If:
            fields = ("orelse", "body")
        else:
            fields = tuple(name for name in own if name in _BLOCKS)
        _BLOCK_FIELDS[kind] = fields
    return fields


#: A function definition (sync or async).
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
#: A function of a module: its node, the functions around it (outermost first) and its
#: qualified name (:meth:`ScopeBindings.functions`).
FunctionDef = tuple[FunctionNode, tuple[FunctionNode, ...], str]


class ScopeBindings:
    """The binding statements of a whole module, from one walk of its statements.

    ``scopes``: for the module (key ``0``), each function and each class (key: ``id`` of
    its node), the imports, one-target (and annotated) assignments and ``def``/``class``
    statements of its body, through compound statements and not into nested scopes, in
    :func:`walk_statements` order: :func:`bindings_table` of a scope's list is its
    :func:`scope_table`. ``classes``: the keys that are class bodies."""

    __slots__ = ("classes", "scopes")

    def __init__(self, tree: ast.Module) -> None:
        scopes: dict[int, list[ast.stmt]] = {0: []}
        classes: set[int] = set()
        stack: list[tuple[ast.AST, list[ast.stmt]]] = [(n, scopes[0]) for n in reversed(tree.body)]
        pop, push = stack.pop, stack.append
        while stack:
            node, found = pop()
            kind = node.__class__
            if kind in _BINDERS:
                if kind is ast.Assign and len(node.targets) != 1:  # type: ignore[attr-defined]
                    continue
                found.append(node)  # type: ignore[arg-type]
                if kind in _SIMPLE_BINDERS:
                    continue
                inner: list[ast.stmt] = []
                scopes[id(node)] = inner
                if kind is ast.ClassDef:
                    classes.add(id(node))
                for child in reversed(node.body):  # type: ignore[attr-defined]
                    push((child, inner))
                continue
            fields = _BLOCK_FIELDS.get(kind)
            for name in reversed(_block_fields(kind) if fields is None else fields):
                value = getattr(node, name)
                if value:
                    for child in reversed(value):
                        push((child, found))
        self.scopes = scopes
        self.classes = classes

    def of(self, node: ast.AST | None) -> list[ast.stmt]:
        """The binding statements of ``node``'s body (``None``: the module's)."""
        return self.scopes[0 if node is None else id(node)]

    def functions(self) -> dict[str, list[FunctionDef]]:
        """Every ``def`` of the module by its name, each a :data:`FunctionDef`: the node, the
        functions around it (outermost first: their bindings are the closure it reads) and
        its qualified name (``_patch.wrapped``, ``Cls.meth``; a class body binds no closure
        name)."""
        defs: dict[str, list[FunctionDef]] = {}
        stack: list[tuple[ast.stmt, tuple[FunctionNode, ...], str]] = [
            (node, (), "") for node in self.of(None)
        ]
        while stack:
            node, outer, prefix = stack.pop()
            if isinstance(node, ast.ClassDef):
                path = prefix + node.name
                stack.extend((child, outer, path + ".") for child in self.of(node))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                path = prefix + node.name
                defs.setdefault(node.name, []).append((node, outer, path))
                inner = (*outer, node)
                stack.extend((child, inner, path + ".") for child in self.of(node))
        return defs
