"""A copy whose one change is a class upstream's type test now accepts.

A plugin often copies an upstream function only to let its own class through a type test:
upstream's ``isinstance(module, (Attention, MLAAttention))`` becomes ``isinstance(module,
(Attention, MLAAttention)) or _is_dsa_attention(module)`` in the copy, the predicate testing
for the plugin's ``DSAAttention``. When the new upstream widens the same test to a base class
(``isinstance(module, (AttentionLayerBase, MMEncoderAttention))``) that the plugin's class
derives from, upstream lets the plugin's class through itself: the copy's change is
upstream's now, and the copy only holds back the rest of upstream's change. *remove*.

The facts read, all of them needed:

- once each ``isinstance(X, T) or predicate(X)`` of the copy is read as upstream's
  ``isinstance(X, T)``, every line of its body (as the AST writes it: comments, layout and
  the docstring left out) is a line of the old upstream definition: the added alternatives
  are all the copy adds (lines it leaves out are not read, as for a copy whose every added
  line is in the new upstream, the decision table's row 9);
- each predicate is a function of the copy's module whose body returns ``isinstance(X,
  Class)`` or ``type(X).__module__ == "m" and type(X).__name__ == "Class"`` (either order):
  it names one class (``cls = type(X)`` before the ``return`` is read as ``type(X)``);
- the new upstream definition has an ``isinstance(X, ...)`` of the same ``X`` naming a
  class (through its module's imports) that the plugin's class names among its bases
  (through the plugin module's imports), both read statically, never imported.

Anything else (another change in the copy, a predicate that tests more, a class read
nowhere) leaves the decision to the other rules.
"""

from __future__ import annotations

import ast
import textwrap
from collections import Counter
from dataclasses import replace
from pathlib import Path

from patchkeeper.runtime.judge.drift import REMOVE, Code, Drift
from patchkeeper.runtime.lookup.resolve import FOUND, resolve
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.syntax.names import isinstance_call, scope_table
from patchkeeper.runtime.syntax.parsing import parse_path, plugin_file_tree

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def _function(code: Code) -> _Function | None:
    """The function a span holds; ``None`` when it is not one function."""
    try:
        parsed = ast.parse(textwrap.dedent("\n".join(code.lines)))
    except SyntaxError:
        return None
    if len(parsed.body) != 1 or not isinstance(parsed.body[0], _Function):
        return None
    return parsed.body[0]


def _body_lines(function: _Function) -> Counter[str]:
    """The lines of the function's body as :func:`ast.unparse` writes them (comments and
    layout left out), its docstring left out."""
    body = list(function.body)
    first = body[0] if body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        body = body[1:]
    return Counter(ast.unparse(ast.Module(body=body, type_ignores=[])).splitlines())


class _Unwiden(ast.NodeTransformer):
    """Reads each ``isinstance(X, T) or predicate(X)`` as ``isinstance(X, T)``, keeping
    the predicates' names and their ``X``."""

    def __init__(self) -> None:
        self.predicates: list[tuple[str, str]] = []

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.op, ast.Or) or len(node.values) != 2:
            return node
        test, extra = node.values
        call = isinstance_call(test)
        if (
            call is None
            or not isinstance(extra, ast.Call)
            or not isinstance(extra.func, ast.Name)
            or len(extra.args) != 1
            or extra.keywords
            or ast.dump(extra.args[0]) != ast.dump(call.args[0])
        ):
            return node
        self.predicates.append((extra.func.id, ast.unparse(call.args[0])))
        return test


def _type_alias(statement: ast.stmt) -> bool:
    """Whether ``statement`` is ``name = type(x)`` (a predicate's alias of the class)."""
    return (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Name)
        and statement.value.func.id == "type"
    )


def _named_class(predicate: _Function) -> tuple[str, str] | None:
    """The class a one-line predicate tests for: ``("name", "")`` for ``isinstance(x,
    name)``, ``(class name, module)`` for the ``type(x).__module__``/``__name__`` form."""
    body = [s for s in predicate.body if not isinstance(s, ast.Expr) and not _type_alias(s)]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return None
    value = body[0].value
    call = isinstance_call(value)
    if call is not None and isinstance(call.args[1], ast.Name):
        return call.args[1].id, ""
    if not isinstance(value, ast.BoolOp) or not isinstance(value.op, ast.And):
        return None
    found: dict[str, str] = {}
    for part in value.values:
        if (
            isinstance(part, ast.Compare)
            and len(part.ops) == 1
            and isinstance(part.ops[0], ast.Eq)
            and isinstance(part.left, ast.Attribute)
            and part.left.attr in ("__module__", "__name__")
            and isinstance(part.comparators[0], ast.Constant)
            and isinstance(part.comparators[0].value, str)
        ):
            found[part.left.attr] = part.comparators[0].value
    if len(value.values) != 2 or set(found) != {"__module__", "__name__"}:
        return None
    return found["__name__"], found["__module__"]


def _module_of(root: Path, module: str) -> tuple[ast.Module, bool] | None:
    """The parsed plugin module ``module`` under ``root`` and whether it is a package."""
    base = root.joinpath(*module.split("."))
    for path, package in ((base.with_suffix(".py"), False), (base / "__init__.py", True)):
        parsed = plugin_file_tree(path)
        if parsed is not None:
            return parsed, package
    return None


def _canonical(tree: UpstreamTree, dotted: str) -> str:
    """Where ``dotted`` is defined in ``tree`` (re-exports followed); itself when not found."""
    found = resolve(tree, dotted)
    return found.location if found.status == FOUND else dotted


def _bases(root: Path, module: str, name: str) -> list[str]:
    """The dotted names of the bases of the plugin class ``module.name``, as its module's
    imports bind them."""
    read = _module_of(root, module)
    if read is None:
        return []
    parsed, package = read
    table = scope_table(parsed.body, {}, module, package)
    for node in parsed.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            out = []
            for base in node.bases:
                text = ast.unparse(base)
                head, _, rest = text.partition(".")
                bound = table.get(head)
                if bound is not None:
                    out.append(f"{bound.dotted}.{rest}" if rest else bound.dotted)
            return out
    return []


def _accepted(tree: UpstreamTree, module: str, function: _Function, subject: str) -> set[str]:
    """The classes (defined where, in ``tree``) that the new upstream definition's
    ``isinstance(subject, ...)`` tests name, through its module's imports."""
    found = tree.module_file(module)
    if found is None:
        return set()
    path, package = found
    parsed = parse_path(path)
    if parsed is None:
        return set()
    table = scope_table(parsed.body, {}, module, package)
    names: set[str] = set()
    for node in ast.walk(function):
        call = isinstance_call(node)
        if call is None or ast.unparse(call.args[0]) != subject:
            continue
        kinds = call.args[1].elts if isinstance(call.args[1], ast.Tuple) else [call.args[1]]
        for kind in kinds:
            if isinstance(kind, ast.Name) and kind.id in table:
                names.add(_canonical(tree, table[kind.id].dotted))
            elif isinstance(kind, ast.Name):
                names.add(_canonical(tree, f"{module}.{kind.id}"))
    return names


def widened_test(
    drift: Drift,
    spans: tuple[Code, Code, Code],
    new_module: str,
    new_tree: UpstreamTree,
    plugin: tuple[Path, str],
) -> Drift:
    """*remove* when all the copy ``spans[2]`` (``plugin``: the plugin's root and the copy's
    module) adds to the old upstream ``spans[0]`` is predicates in its type tests, each
    naming a plugin class that the new upstream ``spans[1]`` (a definition of
    ``new_module`` in ``new_tree``) now lets through its own test of the same subject (see
    the module docstring); ``drift`` otherwise."""
    return widened(drift, widening(spans, new_module, new_tree, plugin))


def widened(drift: Drift, reason: str) -> Drift:
    """``drift`` made *remove* for the ``reason`` :func:`widening` gave (its evidence first);
    ``drift`` itself for none (``""``)."""
    if not reason:
        return drift
    evidence = (reason, *(e for e in drift.evidence if e != reason))
    return replace(drift, decision=REMOVE, evidence=evidence)


def widening(
    spans: tuple[Code, Code, Code],
    new_module: str,
    new_tree: UpstreamTree,
    plugin: tuple[Path, str],
) -> str:
    """Why :func:`widened_test` removes the copy ``spans[2]`` (the arguments as it takes
    them), whatever the decision so far: the judging reads it where the spans were read (a
    worker judging the entry) and applies it to the entry's decision later; ``""`` when the
    copy does more than that."""
    old, new, mine = (_function(code) for code in spans)
    if old is None or new is None or mine is None:
        return ""
    unwiden = _Unwiden()
    read = unwiden.visit(ast.parse(ast.unparse(mine)).body[0])
    if not unwiden.predicates or not isinstance(read, _Function):
        return ""
    if _body_lines(read) - _body_lines(old):  # a line of its own besides the predicates
        return ""
    left_out = sum((_body_lines(old) - _body_lines(read)).values())
    root, module = plugin
    parsed = _module_of(root, module)
    if parsed is None:
        return ""
    functions = {n.name: n for n in parsed[0].body if isinstance(n, _Function)}
    table = scope_table(parsed[0].body, {}, module, parsed[1])
    let_through = []
    for predicate, subject in unwiden.predicates:
        function = functions.get(predicate)
        named = _named_class(function) if function is not None else None
        if named is None:
            return ""
        name, owner = named
        if not owner:
            bound = table.get(name)
            if bound is None:
                return ""
            owner, _, name = bound.dotted.rpartition(".")
        bases = {_canonical(new_tree, base) for base in _bases(root, owner, name)}
        accepted = _accepted(new_tree, new_module, new, subject) & bases
        if not accepted:
            return ""
        let_through.append(
            f"{predicate}({subject}) lets {owner}.{name} through, a subclass of "
            f"{sorted(accepted)[0]}"
        )
    reason = (
        "all the copy adds to the old upstream is a predicate in a type test ("
        + "; ".join(let_through)
        + "), and the new upstream's own test of the same subject accepts that base class: "
        "upstream lets the plugin's class through itself; remove the patch, which now only "
        "holds back the rest of upstream's change"
    )
    if left_out:  # a copy of an older release, or lines left out on purpose: say which
        reason += (
            f" (the copy leaves out {left_out} line{'s' if left_out != 1 else ''} of the old "
            "upstream body, which upstream's own function runs again once the patch goes)"
        )
    return reason
