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
from typing import cast

from patchkeeper.runtime.inventory.file_facts import CondSpec

#: An ``if`` test on a version: ``if vllm_version_is("0.9.1"):``, ``if __version__ >= ...``
VERSION_TEST = re.compile(r"(?i)version|__version__")
IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
#: The conditions met on the way to a statement; an ``if`` test's text is written out
#: (:class:`Pending`) only for an edge recorded under it.
Conds = tuple["CondSpec | Pending", ...]


def if_conditions(stmt: ast.If) -> tuple[CondSpec, CondSpec]:
    """The conditions under which the body and the ``else`` of an ``if`` run: its test
    (kind "version" when it reads a version, else "if") and the test's negation."""
    text = ast.unparse(stmt.test)
    kind = "version" if VERSION_TEST.search(text) else "if"
    param, truth = _param_test(stmt.test)
    then = CondSpec(kind, text, stmt.lineno, param, truth)
    other = CondSpec(
        "else" if kind == "if" else kind, f"not ({text})", stmt.lineno, param, not truth
    )
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
    recorded under it)."""

    __slots__ = ("index", "test")

    def __init__(self, test: IfTest, index: int) -> None:
        self.test = test
        self.index = index

    def spec(self) -> CondSpec:
        """The condition, written out."""
        return self.test.get(self.index)


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
    guarded = any(_catches_import_error(h) for h in stmt.handlers)
    inner = (
        (*conds, CondSpec("try-import", "try: ... except ImportError", stmt.lineno))
        if guarded
        else conds
    )
    parts: list[tuple[list[ast.stmt], Conds]] = [(stmt.body, inner)]
    for handler in stmt.handlers:
        caught = ast.unparse(handler.type) if handler.type else "any exception"
        parts.append(
            (handler.body, (*conds, CondSpec("except", f"except {caught}", handler.lineno)))
        )
    parts.extend([(stmt.orelse, inner), (stmt.finalbody, conds)])
    return parts


def early_exit(stmt: ast.stmt, pending: bool) -> Conds:
    """The condition ``stmt`` puts on the statements after it in its block: an ``if``
    without ``else`` whose body leaves the scope (ends in ``return`` or ``raise``: an early
    return after a platform or version check) lets them run only when its test is false;
    a ``try`` one of whose ``except ImportError`` handlers leaves lets them run only when
    the import worked (``try-import``). ``pending``: the ``if`` condition as a
    :class:`Pending` (its text written out only for an edge recorded under it)."""
    kind = stmt.__class__
    if kind is ast.If:
        branch = cast(ast.If, stmt)
        if branch.orelse or not _leaves(branch.body) or is_type_checking(branch.test):
            return ()
        return (Pending(IfTest(branch), 1),) if pending else (if_conditions(branch)[1],)
    if kind is ast.Try:
        handlers = cast(ast.Try, stmt).handlers
        if any(_catches_import_error(h) and _leaves(h.body) for h in handlers):
            return (CondSpec("try-import", "try: ... except ImportError", stmt.lineno),)
    return ()


def _leaves(body: list[ast.stmt]) -> bool:
    """Whether a block ends by leaving its scope (``return`` or ``raise``)."""
    return bool(body) and body[-1].__class__ in (ast.Return, ast.Raise)


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
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
    return ast.unparse(expr).split(".")[-1]


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
