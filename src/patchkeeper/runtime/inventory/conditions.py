"""The conditions a statement of a plugin file runs under, as the scanner meets them.

An ``if`` (a version test or another), a ``try`` whose handler catches ``ImportError``, an
early ``return`` or ``raise`` after a check: each puts a condition (:class:`CondSpec`) on the
statements it guards. The scanner (:mod:`patchkeeper.runtime.inventory.scan`) carries them
down the blocks it walks and records them on each edge, so the activation search can say
under which conditions a patch is reached.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from typing import cast

from patchkeeper.runtime.inventory.file_facts import CondSpec
from patchkeeper.runtime.syntax.astwalk import append_children, of_kinds
from patchkeeper.runtime.syntax.names import isinstance_call
from patchkeeper.runtime.syntax.unparse import expression_text, negation_text

#: An ``if`` test on a version: ``if vllm_version_is("0.9.1"):``, ``if __version__ >= ...``
VERSION_TEST = re.compile(r"(?i)version|__version__")
IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
#: The conditions met on the way to a statement; an ``if`` test's text is written out
#: (:class:`Pending`) only for an edge recorded under it.
Conds = tuple["CondSpec | Pending", ...]


def if_conditions(stmt: ast.If) -> tuple[CondSpec, CondSpec]:
    """The conditions under which the body and the ``else`` of an ``if`` run: its test
    (kind "version" when it reads a version, else "if") and the test's negation
    (:func:`~patchkeeper.runtime.syntax.unparse.negation_text`: the ``else`` of ``if not
    x`` runs under ``x``, not under ``not (not x)``). Each text is what holds on its
    branch."""
    text = expression_text(stmt.test)
    kind = "version" if VERSION_TEST.search(text) else "if"
    param, truth = _param_test(stmt.test)
    then = CondSpec(kind, text, stmt.lineno, param, truth)
    negation = negation_text(stmt.test)
    other = CondSpec("else" if kind == "if" else kind, negation, stmt.lineno, param, not truth)
    return then, other


class IfTest:
    """:func:`if_conditions` of one ``if``, computed when first asked."""

    __slots__ = ("conditions", "stmt")

    def __init__(self, stmt: ast.If) -> None:
        self.stmt = stmt
        self.conditions: tuple[CondSpec, CondSpec] | None = None

    def get(self, index: int) -> CondSpec:
        """The body's condition (``index`` 0) or the ``else``'s (1)."""
        if self.conditions is None:
            self.conditions = if_conditions(self.stmt)
        return self.conditions[index]


class Pending:
    """In a list of conditions, the condition ``index`` (0: the body's, 1: the ``else``'s)
    of an ``if`` whose text is not written out yet (the scanner writes it out for an edge
    recorded under it). ``once``: whether the ``if`` is a run-once guard on that branch
    (:func:`run_once`), which puts no condition on it, asked with the text, when an edge
    is recorded under it: most branches of a file whose lines are told apart hold no
    edge, and reading whether a test is a run-once guard walks the statements it guards
    (or the whole file, for its :func:`wrapper_markers`)."""

    __slots__ = ("dropped", "index", "once", "test")

    def __init__(self, test: IfTest, index: int, once: Callable[[], bool] | None = None) -> None:
        self.test = test
        self.index = index
        self.once = once
        self.dropped = False

    def spec(self) -> CondSpec | None:
        """The condition, written out; ``None`` when the ``if`` is a run-once guard there
        (``once``, asked once)."""
        once = self.once
        if once is not None:
            self.once = None
            self.dropped = once()
        return None if self.dropped else self.test.get(self.index)


def _param_test(test: ast.expr) -> tuple[str, bool]:
    if isinstance(test, ast.Name):
        return test.id, True
    if (
        isinstance(test, ast.UnaryOp)
        and isinstance(test.op, ast.Not)
        and isinstance(test.operand, ast.Name)
    ):
        return test.operand.id, False
    return "", True


def try_parts(stmt: ast.Try, conds: Conds) -> list[tuple[list[ast.stmt], Conds]]:
    """The blocks of a ``try`` statement, in order, each with the conditions it runs under:
    the body and ``else`` under "try-import" when a handler catches ``ImportError``, each
    handler under its ``except``, ``finally`` under ``conds`` alone."""
    guarding = [h for h in stmt.handlers if catches_import_error(h)]
    inner = (
        (*conds, CondSpec("try-import", guard_text(guarding[0]), stmt.lineno))
        if guarding
        else conds
    )
    parts: list[tuple[list[ast.stmt], Conds]] = [(stmt.body, inner)]
    for handler in stmt.handlers:
        caught = expression_text(handler.type) if handler.type else "any exception"
        parts.append(
            (handler.body, (*conds, CondSpec("except", f"except {caught}", handler.lineno)))
        )
    parts.extend([(stmt.orelse, inner), (stmt.finalbody, conds)])
    return parts


def early_exit(
    stmt: ast.stmt,
    pending: bool,
    body: list[ast.stmt],
    index: int,
    marked: Callable[[], frozenset[str]] | None = None,
) -> Conds:
    """The condition ``stmt`` (``body[index]``) puts on the statements after it in its
    block ``body``: an
    ``if`` without ``else`` whose body leaves the scope (ends in ``return`` or ``raise``: an
    early return after a platform or version check) lets them run only when its test is
    false, unless it is a run-once guard (:func:`run_once`); a ``try`` one of whose
    ``except ImportError`` handlers leaves lets them run only when the import worked
    (``try-import``). ``pending``: the ``if`` condition as a :class:`Pending` (its text
    written out, and whether the ``if`` is a run-once guard read, only for an edge
    recorded under it); ``marked``: the file's :func:`wrapper_markers`, for
    :func:`run_once`."""
    kind = stmt.__class__
    if kind is ast.If:
        branch = cast(ast.If, stmt)
        if branch.orelse or not _leaves(branch.body) or is_type_checking(branch.test):
            return ()
        returns = branch.body[-1].__class__ is ast.Return
        if pending:
            # a run-once guard asked only for an edge recorded after it (:class:`Pending`)
            once = (
                (lambda: run_once(branch.test, True, body[index + 1 :], marked))
                if returns
                else None
            )
            return (Pending(IfTest(branch), 1, once),)
        if returns and run_once(branch.test, True, body[index + 1 :], marked):
            return ()
        return (if_conditions(branch)[1],)
    if kind is ast.Try:
        handlers = cast(ast.Try, stmt).handlers
        for handler in handlers:
            if catches_import_error(handler) and _leaves(handler.body):
                return (CondSpec("try-import", guard_text(handler), stmt.lineno),)
    return ()


def guard_text(handler: ast.ExceptHandler) -> str:
    """The text of a ``try-import`` condition, naming what ``handler`` catches as it is
    written: ``try: ... except ImportError``, ``try: ... except Exception``, ``try: ...
    except`` (bare). A handler of ``Exception`` guards an import as well, but the reader
    looks for the ``except`` line the text names, and the ``try`` may hold no import.

    >>> guard_text(ast.parse("try: pass\\nexcept (ImportError, OSError): pass").body[0].handlers[0])
    'try: ... except (ImportError, OSError)'
    """
    if handler.type is None:
        return "try: ... except"
    return f"try: ... except {expression_text(handler.type)}"


def run_once(
    test: ast.expr,
    done: bool,
    setting: list[ast.stmt],
    marked: Callable[[], frozenset[str]] | None = None,
) -> bool:
    """Whether ``test`` is a run-once guard: it reads only a flag, is true (``done``) or
    false (``not done``) once the flag is set, and ``setting`` (the statements after an
    early ``return`` on it, or the body of an ``if`` on it) sets the flag to a truthy
    constant. The flag is a name or an attribute (``if _PATCHED:`` then ``_PATCHED =
    True``), or a marker attribute read by ``getattr(obj, "name", default)`` or
    ``hasattr(obj, "name")`` and set on any object (``wrapper._marked = True``,
    ``setattr(wrapper, _MARKER, True)``): the marker is often set on the replacement, which
    the next call reads back as the original. A marker is also a run-once flag when the
    file sets it, anywhere, on a function or class it defines (``marked``: a function
    giving the file's :func:`wrapper_markers`): the replacement is often built by a
    factory function that marks it, away from the guard. Such a test only keeps a patch
    from being applied twice (the first call applies it), so it is no activation
    condition. So is a membership test on a key the setting puts in the same table
    (``if MODE not in registry.modes: registry.register(MODE, ...)``, or an early return
    on ``MODE in registry.modes`` before it): the key is a literal string or a name, the
    table any expression, and the setting stores the key in it (``table[KEY] = ...``,
    ``table.add(KEY)``, ``table.setdefault(KEY, ...)``) or hands it, first, to a
    ``register`` method of the table or of the object holding it. So is a wrap-once test
    (``if not isinstance(platform, Proxy): module.platform = Proxy(platform)``): the
    setting stores, into an attribute or an item, a call of the class tested that wraps the
    object tested, which the next call reads back as an instance. A test that reads
    anything else (a platform, a version, a parameter) is not one, nor is a feature probe
    that a backport answers with the feature itself (``if not hasattr(Request, "x"):
    Request.x = property(...)``: not a constant). Flags joined by ``and`` or ``or``
    (a marker on each of two methods the setting replaces) are one when each of them is."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return run_once(test.operand, not done, setting, marked)
    if isinstance(test, ast.BoolOp):
        # ``if getattr(C.f, "_m", False) and getattr(C.g, "_m", False): return``: flags all
        # unset at the first call, whether joined by ``and`` or ``or``
        return all(run_once(value, done, setting, marked) for value in test.values)
    wrapped = _isinstance(test)
    if wrapped is not None:
        return done and any(_wraps(node, *wrapped) for node in _walk(setting))
    membership = _membership(test)
    if membership is not None:
        key, table, inside = membership
        return done == inside and any(_stores(node, key, table) for node in _walk(setting))
    if not done:
        return False
    flag = _flag(test)
    if flag is None:
        return False
    if any(_sets(node, flag) for node in _walk(setting)):
        return True
    return flag.startswith(".") and marked is not None and flag in marked()


#: The definitions :func:`wrapper_markers` looks for marks on.
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: The nodes :func:`wrapper_markers` reads: the definitions, and the assignments and
#: ``setattr`` calls that may mark one.
_MARKER_KINDS = frozenset({*_DEFINITIONS, ast.Assign, ast.Call})


def wrapper_markers(tree: ast.Module) -> frozenset[str]:
    """The marker attributes (as :func:`_flag` writes them: ``.name``, ``.$NAME``) that
    ``tree`` sets to a truthy constant, anywhere (inside functions too), on a function or
    class it defines (``setattr(wrapper, _MARKER, True)``, ``wrapper._marked = True``). A
    marker named by a module-level string constant (``_MARKER = "_marked"``) is given under
    both spellings, ``.$_MARKER`` and ``._marked``."""
    constants: dict[str, str] = {}
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str)
        ):
            constants[statement.targets[0].id] = statement.value.value
    # One walk for the definitions and the statements that may mark one (a set: the order
    # of the nodes does not matter); ast.walk twice took twice as long.
    walked = of_kinds(tree, _MARKER_KINDS)
    defined = {node.name for node in walked if isinstance(node, _DEFINITIONS)}
    found: set[str] = set()
    for node in walked:
        if isinstance(node, ast.Assign) and _truthy(node.value):
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id in defined
                ):
                    found.add(f".{target.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and len(node.args) == 3
            and not node.keywords
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in defined
            and _truthy(node.args[2])
        ):
            marker = _marker(node.args[1])
            if marker is not None:
                found.add(marker)
    spelled = set(found)
    for name, value in constants.items():
        if f".${name}" in found:
            spelled.add(f".{value}")
        if f".{value}" in found:
            spelled.add(f".${name}")
    return frozenset(spelled)


def _isinstance(test: ast.expr) -> tuple[str, str] | None:
    """``(object, class)`` of ``isinstance(object, class)``, the object a name or an
    attribute and the class one name or attribute, as their source text; else ``None``."""
    call = isinstance_call(test)
    if call is None:
        return None
    obj, cls = call.args
    if not isinstance(obj, ast.Name | ast.Attribute) or not isinstance(
        cls, ast.Name | ast.Attribute
    ):
        return None
    return expression_text(obj), expression_text(cls)


def _wraps(node: ast.AST, obj: str, cls: str) -> bool:
    """Whether ``node`` stores ``cls(..., obj, ...)`` into an attribute or an item."""
    if not isinstance(node, ast.Assign):
        return False
    value = node.value
    return (
        isinstance(value, ast.Call)
        and expression_text(value.func) == cls
        and any(expression_text(a) == obj for a in value.args)
        and any(isinstance(t, ast.Attribute | ast.Subscript) for t in node.targets)
    )


#: Methods that put their argument into the collection they are called on.
_ADDERS = frozenset({"add", "append", "setdefault"})


def _membership(test: ast.expr) -> tuple[str, str, bool] | None:
    """``(key, table, inside)`` of ``KEY in TABLE`` (``inside`` true) or ``KEY not in
    TABLE`` (false), the key a literal string or a name, both as their source text;
    ``None`` for another test."""
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.In | ast.NotIn)
    ):
        return None
    key = test.left
    if not (
        isinstance(key, ast.Name) or (isinstance(key, ast.Constant) and isinstance(key.value, str))
    ):
        return None
    return (
        expression_text(key),
        expression_text(test.comparators[0]),
        isinstance(test.ops[0], ast.In),
    )


def _stores(node: ast.AST, key: str, table: str) -> bool:
    """Whether ``node`` puts ``key`` in ``table`` (source texts): ``table[key] = ...``,
    ``table.add(key)`` (or ``append``, ``setdefault``), or ``<table or its owner>.register*(
    key, ...)``."""
    if isinstance(node, ast.Assign):
        return any(
            isinstance(t, ast.Subscript)
            and expression_text(t.value) == table
            and expression_text(t.slice) == key
            for t in node.targets
        )
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
        return False
    if expression_text(node.args[0]) != key:
        return False
    called, method = expression_text(node.func.value), node.func.attr
    if method in _ADDERS:
        return called == table
    owner = table.rpartition(".")[0]
    return method.startswith("register") and called in (table, owner)


def _flag(test: ast.expr) -> str | None:
    """The flag a run-once test reads: its text for a name or an attribute, ``.name`` for
    the marker of ``getattr`` and ``hasattr`` (``.$NAME`` when a constant ``NAME`` names
    it), and of a lookup in an object's own attributes (``cls.__dict__.get(NAME, False)``,
    ``vars(cls).get(NAME)``: the marker set on that very class, not one it inherits);
    ``None`` for another test."""
    if isinstance(test, ast.Name | ast.Attribute):
        return expression_text(test)
    if not isinstance(test, ast.Call) or test.keywords:
        return None
    if _own_attributes_get(test):
        return _marker(test.args[0])
    if not isinstance(test.func, ast.Name):
        return None
    name, args = test.func.id, test.args
    if (name == "hasattr" and len(args) == 2) or (name == "getattr" and len(args) in (2, 3)):
        return _marker(args[1])
    return None


def _own_attributes_get(call: ast.Call) -> bool:
    """Whether ``call`` is ``OBJ.__dict__.get(name[, default])`` or ``vars(OBJ).get(...)``."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "get" and len(call.args) in (1, 2)):
        return False
    table = func.value
    if isinstance(table, ast.Attribute):
        return table.attr == "__dict__"
    return (
        isinstance(table, ast.Call)
        and isinstance(table.func, ast.Name)
        and table.func.id == "vars"
        and len(table.args) == 1
        and not table.keywords
    )


def _marker(name: ast.expr) -> str | None:
    """``.name`` of the attribute argument of ``getattr``, ``hasattr`` or ``setattr``
    (``.$NAME`` for a name ``NAME``), else ``None``."""
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        return f".{name.value}"
    if isinstance(name, ast.Name):
        return f".${name.id}"
    return None


def _sets(node: ast.AST, flag: str) -> bool:
    """Whether ``node`` sets ``flag`` (:func:`_flag`) to a truthy constant: ``flag =
    True``, ``obj.name = True`` or ``setattr(obj, "name", True)`` for a marker."""
    if isinstance(node, ast.Assign):
        return _truthy(node.value) and any(_is_flag(t, flag) for t in node.targets)
    return (
        flag.startswith(".")
        and isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "setattr"
        and len(node.args) == 3
        and not node.keywords
        and _truthy(node.args[2])
        and _marker(node.args[1]) == flag
    )


def _is_flag(target: ast.expr, flag: str) -> bool:
    if flag.startswith("."):
        return isinstance(target, ast.Attribute) and f".{target.attr}" == flag
    return isinstance(target, ast.Name | ast.Attribute) and expression_text(target) == flag


def _truthy(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and bool(value.value)


def _walk(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of ``body``, not those of the functions, classes and lambdas it defines
    (they do not run with it)."""
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        yield node
        if node.__class__ not in _NOT_RUN:
            append_children(node, todo)  # as ast.iter_child_nodes, without its generators


_NOT_RUN = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda})


def _leaves(body: list[ast.stmt]) -> bool:
    """Whether a block ends by leaving its scope (``return`` or ``raise``)."""
    return bool(body) and body[-1].__class__ in (ast.Return, ast.Raise)


def catches_import_error(handler: ast.ExceptHandler) -> bool:
    """Whether an ``except`` clause catches ``ImportError`` (bare, ``Exception`` and the
    like count: :data:`IMPORT_ERRORS`)."""
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(_last_name(t) in IMPORT_ERRORS for t in types)


def _last_name(expr: ast.expr) -> str:
    """The last dotted part of ``ast.unparse(expr)`` (``"ImportError"`` of
    ``builtins.ImportError``), without writing out a name or attribute."""
    if expr.__class__ is ast.Name:
        return expr.id
    if expr.__class__ is ast.Attribute:
        return expr.attr
    return expression_text(expr).split(".")[-1]


def is_type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``"""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return (
        isinstance(test, ast.Attribute)
        and test.attr == "TYPE_CHECKING"
        and isinstance(test.value, ast.Name)
        and test.value.id == "typing"
    )
