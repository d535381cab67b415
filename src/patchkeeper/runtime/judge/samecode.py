"""``patchkeeper runtime same-code A B``: are two files or two functions the same code?

A change to comments or docstrings only leaves the executable behaviour as it was: the ASTs
are compared once docstrings are removed. ``A`` and ``B`` are files, or
``FILE::QUALNAME`` (``vllm/x.py::Scheduler.schedule``) for one function or class. Comments
never reach the AST; docstrings are removed; positions are ignored. When the code differs
the result says where: the first differing statement on each side, with its line.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.errors import PatchkeeperError, TargetError
from patchkeeper.runtime.lookup.upstream_tree import strip_docstrings
from patchkeeper.runtime.syntax.parsing import parse_file, undecodable
from patchkeeper.system.regular import read_regular


@dataclass(frozen=True)
class SameCode:
    """The result: ``same``; when not, ``difference`` says where (lines on both sides)."""

    left: str
    right: str
    same: bool
    left_line: int = 0
    right_line: int = 0
    difference: str = ""

    @property
    def exit_code(self) -> int:
        """0 when the code is the same, 1 when it differs."""
        return 0 if self.same else 1


def find_definition(tree: ast.Module, qualname: str) -> ast.stmt | None:
    """The function or class ``qualname`` (``Cls.meth``) of a module, or ``None``."""
    body: list[ast.stmt] = tree.body
    found: ast.stmt | None = None
    for part in qualname.split("."):
        found = None
        for node in body:
            if (
                isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and node.name == part
            ):
                found = node
        if found is None:
            return None
        body = getattr(found, "body", [])
    return found


def _load(spec: str) -> tuple[ast.AST, str]:
    path_text, _, qualname = spec.partition("::")
    path = Path(path_text)
    try:
        source = read_regular(path)  # a named pipe is refused, not waited on for ever
    except OSError as exc:
        raise TargetError(
            f"cannot read: {exc.strerror}",
            path=path,
            hint="give two Python files, or FILE::QUALNAME definitions (vllm/x.py::Cls.meth); "
            "relative paths start at the current directory",
        ) from None
    if b"\0" in source:
        # a compiled module (vllm/_C.abi3.so) or a .pyc given by a slip: "save it as UTF-8"
        # would be no advice for it
        raise PatchkeeperError(
            "not valid Python: a binary file (a NUL byte), not a source file",
            path=path,
            line=source[: source.find(b"\0")].count(b"\n") + 1,
            hint="same-code compares Python sources: give the .py file that defines it",
        )
    not_utf8 = undecodable(source)
    if not_utf8:
        # "not UTF-8 (byte 0xe9) and no coding line: FIX (line N)": Python's own message
        # names a byte offset and says nothing of the fix
        what, _, rest = not_utf8.partition(": ")
        fix, _, line = rest.rpartition(" (line ")
        raise PatchkeeperError(
            f"not valid Python: {what}", path=path, line=int(line.rstrip(")")), hint=fix
        )
    try:
        tree = parse_file(source, path, filename=str(path))
    except SyntaxError as exc:
        raise PatchkeeperError(
            f"not valid Python: {exc.msg or exc}",
            path=path,
            line=exc.lineno,
            hint=f"same-code compares Python sources: make {path} valid Python (python -m "
            "py_compile shows the error), or give the release's own file",
        ) from None
    if not qualname:
        return tree, str(path)
    node = find_definition(tree, qualname)
    if node is None:
        raise TargetError(
            f"no function or class {qualname}",
            path=path,
            hint=missing_hint(tree, qualname, path_text),
        )
    return node, spec


def _refuse_mixed(left: str, right: str, a: ast.AST, b: ast.AST) -> None:
    """Refuse a definition (``FILE::QUALNAME``) compared with a whole file: a function is
    never the same code as a module, so the answer "different code" would only repeat the
    slip (a ``::QUALNAME`` left off one side). The hint gives the file side with the other
    side's qualified name when that file defines it, else its definitions.

    Raises:
        TargetError: one side is a definition and the other a whole file.
    """
    if isinstance(b, ast.Module) and not isinstance(a, ast.Module):
        definition, whole, module = left, right, b
    elif isinstance(a, ast.Module) and not isinstance(b, ast.Module):
        definition, whole, module = right, left, a
    else:
        return
    qualname = definition.partition("::")[2]
    if find_definition(module, qualname) is not None:
        hint = f"compare {definition} with {whole}::{qualname}"
    else:
        hint = f"add ::QUALNAME to {whole}: {missing_hint(module, qualname, whole)}"
    raise TargetError(
        f"the whole file, compared with the definition {definition}: same-code compares a "
        "definition with a definition, a file with a file",
        path=Path(whole),
        hint=hint,
    )


def qualnames(body: list[ast.stmt], prefix: str = "") -> list[str]:
    """The qualified name of every function and class :func:`find_definition` can find in
    ``body`` (a module's), in file order: ``Cls``, ``Cls.meth``, ``f.inner``."""
    found: list[str] = []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = f"{prefix}{node.name}"
            found += [name, *qualnames(node.body, f"{name}.")]
    return found


def missing_hint(tree: ast.Module, qualname: str, path: str) -> str:
    """What to write instead of ``FILE::qualname`` when ``path``'s module ``tree`` defines no
    such function or class: the definitions of the same last name, else a close name where
    ``qualname`` stops being found, else the names defined there (the module's top-level
    names when its first part is not found).

    >>> tree = ast.parse("class Scheduler:\\n    def schedule(self): pass\\n")
    >>> missing_hint(tree, "schedule", "s.py")
    's.py defines it as Scheduler.schedule: write s.py::Scheduler.schedule'
    >>> missing_hint(tree, "Scheduler.schedul", "s.py")
    'did you mean Scheduler.schedule? write s.py::Scheduler.schedule'
    >>> missing_hint(tree, "Scheduler.run", "s.py")
    'Scheduler in s.py defines: schedule'
    """
    import difflib

    names = qualnames(tree.body)
    last = qualname.rpartition(".")[2]
    same_last = [name for name in names if name.rpartition(".")[2] == last]
    if same_last:
        return f"{path} defines it as {' and '.join(same_last)}: write {path}::{same_last[0]}"
    parts = qualname.split(".")
    found = 0
    while ".".join(parts[: found + 1]) in names:
        found += 1
    parent = ".".join(parts[:found])
    start = f"{parent}." if parent else ""
    inside = [n[len(start) :] for n in names if n.startswith(start) and "." not in n[len(start) :]]
    where = f"{parent} in {path}" if parent else path
    if not inside:
        return f"{where} defines no function or class: give the file alone to compare it whole"
    close = difflib.get_close_matches(parts[found], inside, n=1, cutoff=0.75)
    if close:
        return f"did you mean {start}{close[0]}? write {path}::{start}{close[0]}"
    more = f" (and {len(inside) - 10} more)" if len(inside) > 10 else ""
    return f"{where} defines{'' if parent else ' at its top'}: {', '.join(inside[:10])}{more}"


def _first_difference(left: ast.AST, right: ast.AST) -> tuple[ast.AST, ast.AST]:
    """Descend while the two trees agree in shape; return the innermost differing pair."""
    while True:
        if type(left) is not type(right):
            return left, right
        pairs = []
        for name in left._fields:
            a, b = getattr(left, name, None), getattr(right, name, None)
            if isinstance(a, list) and isinstance(b, list):
                if len(a) != len(b):
                    for x, y in zip(a, b, strict=False):
                        if ast.dump(x) != ast.dump(y):
                            return (
                                _first_difference(x, y) if isinstance(x, ast.AST) else (left, right)
                            )
                    return left, right
                pairs += [(x, y) for x, y in zip(a, b, strict=True) if isinstance(x, ast.AST)]
                if any(not isinstance(x, ast.AST) and x != y for x, y in zip(a, b, strict=True)):
                    return left, right
            elif isinstance(a, ast.AST) and isinstance(b, ast.AST):
                pairs.append((a, b))
            elif a != b:
                return left, right
        for x, y in pairs:
            if ast.dump(x) != ast.dump(y):
                left, right = x, y
                break
        else:
            return left, right


def _line(node: ast.AST) -> int:
    return int(getattr(node, "lineno", 0) or 0)


def enclosing_line(tree: ast.AST, node: ast.AST) -> int:
    """The line of ``node`` in ``tree``, or of the innermost node around it that has one
    (an argument list, a keyword's parts, an operator have none of their own: the ``def``,
    the call, the expression holding them); 0 when ``node`` is not in ``tree``.

    >>> tree = ast.parse("x = 1\\n\\ndef f(a, b):\\n    pass\\n")
    >>> enclosing_line(tree, tree.body[1].args)
    3
    """
    parents: dict[int, ast.AST] = {}
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            parents[id(child)] = parent
    current: ast.AST | None = node
    while current is not None:
        if _line(current):
            return _line(current)
        current = parents.get(id(current))
    return 0


def normalized(node: ast.AST, name: str | None = None) -> str:
    """The AST dump of ``node`` without docstrings (and with its own name replaced by
    ``name``, when given); ``node`` is changed in place, so pass a fresh parse."""
    strip_docstrings(node)
    if name is not None and hasattr(node, "name"):
        node.name = name
    return ast.dump(node, annotate_fields=False)


_DOCUMENTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)
_PASS: list[ast.stmt] = [ast.Pass()]
#: The fields that hold statement lists (what a :class:`View` may see differently).
STATEMENT_FIELDS = frozenset({"body", "orelse", "finalbody"})


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` without its docstring (``[Pass]`` when nothing else is left), as
    :func:`~patchkeeper.runtime.lookup.upstream_tree.strip_docstrings` leaves it."""
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return body[1:] or _PASS
    return body


class View:
    """How :func:`same_ast` sees a tree without changing it: the identity here; a subclass
    sees some fields as ``None`` (:attr:`blank`, by node class and field name), a statement
    list as another one (:meth:`statements`) and the outermost node as another node
    (:meth:`root`). Comparing two trees through a view gives the answer of comparing the
    trees a transformer would leave (one that changes those fields and statement lists, top
    down) without parsing fresh copies to change."""

    #: ``(node class, field)`` pairs seen as ``None`` (an annotation left out).
    blank: frozenset[tuple[type, str]] = frozenset()

    def root(self, node: ast.AST) -> ast.AST:
        """The outermost node as compared."""
        return node

    def statements(self, node: ast.AST, field: str, body: list[ast.stmt]) -> list[ast.stmt]:
        """The statement list ``node.<field>`` (``body``, ``orelse``, ``finalbody``;
        ``body`` not empty, its items the original statements) as compared."""
        return body


def same_ast(left: ast.AST, right: ast.AST, rename: bool = True, view: View | None = None) -> bool:
    """Whether two trees are equal once docstrings are removed, ignoring positions (and,
    with ``rename``, the outermost node's own name): the answer of comparing
    :func:`normalized` dumps, without building them, and stopping at the first
    difference. Constants compare by type and value (``1``, ``1.0`` and ``True`` differ,
    as in a dump). With ``view``, the trees as the :class:`View` sees them (a statement
    list's docstring is removed after the view's change of the list)."""
    if view is not None:
        left, right = view.root(left), view.root(right)
        blank = view.blank
    # The pairs still to compare: nodes, lists of nodes, or field values of any type.
    stack: list[tuple[Any, Any]] = [(left, right)]
    skip_name = rename
    while stack:
        a, b = stack.pop()
        if a.__class__ is not b.__class__:
            return False
        if isinstance(a, ast.AST):
            documented = isinstance(a, _DOCUMENTED)
            for name in a._fields:
                if skip_name and name == "name":
                    continue
                x: Any = getattr(a, name, None)
                y: Any = getattr(b, name, None)
                if view is not None:
                    if (a.__class__, name) in blank:
                        continue  # None on both sides
                    if name in STATEMENT_FIELDS:
                        x, y = _statements(view, a, name, x), _statements(view, b, name, y)
                if documented and name == "body":
                    x, y = _without_docstring(x), _without_docstring(y)
                stack.append((x, y))
            skip_name = False
        elif isinstance(a, list):
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b))
        elif a != b and repr(a) != repr(b):
            return False
    return True


def _statements(view: View, node: ast.AST, field: str, value: object) -> object:
    """``value`` (the field ``field`` of ``node``) as ``view`` sees it when it is a
    statement list."""
    if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
        return view.statements(node, field, value)
    return value


def compare(left: ast.AST, right: ast.AST, rename: bool = True) -> tuple[bool, ast.AST, ast.AST]:
    """Compare two ASTs without docstrings (and, for two definitions with ``rename``,
    without their own names). Returns ``(same, left node, right node)`` where the nodes are
    the innermost differing pair (on copies keeping line numbers; a node without a line of
    its own, such as an argument list, gets the line of the node around it)."""
    a = copy.deepcopy(left)
    b = copy.deepcopy(right)
    name = getattr(a, "name", None) if rename else None
    if normalized(a) == normalized(b, name):
        return True, a, b
    x, y = _first_difference(a, b)
    for tree, node in ((a, x), (b, y)):
        if not _line(node) and not isinstance(node, ast.Module):
            node.lineno = enclosing_line(tree, node)  # type: ignore[attr-defined]
    return False, x, y


def same_code(left: str, right: str) -> SameCode:
    """Compare ``left`` and ``right`` (files or ``FILE::QUALNAME``).

    Raises:
        TargetError: a file cannot be read or the qualified name is not in it.
        PatchkeeperError: a file is not valid Python.
    """
    a, left_name = _load(left)
    b, right_name = _load(right)
    _refuse_mixed(left, right, a, b)
    same, x, y = compare(a, b)
    if same:
        return SameCode(left_name, right_name, True)
    text_x = ast.unparse(x) if not isinstance(x, ast.Module) else "(module)"
    text_y = ast.unparse(y) if not isinstance(y, ast.Module) else "(module)"

    def first(text: str) -> str:
        return text.strip().splitlines()[0][:120] if text.strip() else "(nothing)"

    return SameCode(
        left_name, right_name, False, _line(x), _line(y), f"{first(text_x)}  !=  {first(text_y)}"
    )
