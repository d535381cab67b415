"""A subclass swap that inherits the upstream change: the methods a plugin class overrides,
read one by one against the old and new upstream class (rule 7 of
:mod:`patchkeeper.runtime.judge.judge`).

A plugin class that derives from the upstream class it replaces inherits every method it
does not override; of those it overrides, one that calls upstream's (``super().name(...)``)
passes a change of upstream's body through, and one that keeps none of what changed needs no
update either. :func:`inherited_reason` says which, or that an update is needed.
"""

from __future__ import annotations

import ast

from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.judge.noise import (
    callers_fit_reason,
    outside_copy_reason,
    removal_only_reason,
    takes_the_calls,
)
from patchkeeper.runtime.judge.samecode import same_ast
from patchkeeper.runtime.judge.signatures import signature_changes
from patchkeeper.runtime.judge.unpassed import for_definition, without
from patchkeeper.runtime.model import Mechanism, PatchEntry
from patchkeeper.runtime.syntax.definitions import three_classes
from patchkeeper.runtime.syntax.names import walk_statements


def _methods(node: ast.ClassDef) -> dict[str, ast.stmt]:
    """A class's methods by name: those of its body and those it defines inside its
    ``if``/``try``/``with`` blocks (``if vllm_version_is(...): def make_dummy(...)``), not
    those of nested functions or classes; the last definition of a name wins."""
    return {
        n.name: n
        for n in walk_statements(getattr(node, "body", []))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


#: Statements whose parts run only on some paths (or not at once): a call of upstream's
#: method inside one does not make an override delegate.
BRANCHING = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.Try,
    ast.With,
    ast.AsyncWith,
    ast.Match,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
)


def _assigned(node: ast.ClassDef) -> set[str]:
    """The names a class body binds by assignment (``forward = npu_forward``,
    ``forward: Callable = npu_forward``), its ``if``/``try`` blocks included."""
    names: set[str] = set()
    for statement in walk_statements(node.body):
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets = [statement.target]
        else:
            continue
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _delegates(method: ast.stmt, bases: set[str]) -> bool:
    """Whether ``method`` (a plugin class's override) calls the method it overrides on every
    path: ``super().name(...)`` or ``Base.name(...)`` for a base of ``bases`` (last parts of
    the class's base names) in a statement of its own body, not inside an ``if``, a loop, a
    ``try`` or a nested function (an override that calls upstream's only behind a version
    gate and runs a copy of the old body otherwise does not delegate)."""
    name = getattr(method, "name", "")
    for statement in getattr(method, "body", []):
        if isinstance(statement, BRANCHING):
            continue
        for node in ast.walk(statement):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr != name:
                continue
            owner = node.func.value
            if isinstance(owner, ast.Call) and ast.unparse(owner.func) == "super":
                return True
            if ast.unparse(owner).rsplit(".", 1)[-1] in bases:
                return True
    return False


def _code_lines(node: ast.stmt) -> set[str]:
    """The statements of ``node``'s body, each unparsed on one line (comments and layout
    dropped), at every depth, ``def`` lines excluded."""
    out: set[str] = set()
    for statement in walk_statements(getattr(node, "body", [])):
        if isinstance(statement, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
            continue  # their blocks' statements are walked; the header alone says little
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring
        if isinstance(statement, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)):
            out.add(ast.unparse(statement))
    return out


def _taken_in(override: ast.stmt, old: ast.stmt, new: ast.stmt) -> bool:
    """Whether the new upstream method gained a statement (an assignment or a call) that the
    override already has and the old method did not: upstream took part of the override's
    own change in, and running both would do it twice (vllm-ascend's
    ``AscendInputBatch.make_dummy`` spreads dummy tokens evenly, vLLM 0.27.1's
    ``InputBatch.make_dummy`` does too)."""
    gained = _code_lines(new) - _code_lines(old)
    return bool(gained & _code_lines(override))


def _method_code(code: Code, node: ast.stmt) -> Code:
    """The lines of ``code`` that hold ``node`` (a method of :attr:`Code.parsed`, whose
    line numbers count from the span's first line), decorators excluded."""
    first, last = node.lineno, node.end_lineno or node.lineno
    return Code(code.name, code.start + first - 1, code.lines[first - 1 : last])


def _untouched(spans: tuple[Code, Code, Code], nodes: tuple[ast.stmt, ...]) -> bool:
    """Whether an override that does not call upstream's method keeps none of what upstream
    changed in it: the change lies only in code the override does not copy, or only
    removes lines (:func:`~patchkeeper.runtime.judge.noise.outside_copy_reason`,
    :func:`~patchkeeper.runtime.judge.noise.removal_only_reason`, as for a copied function, here
    per overridden method). ``spans``: the old upstream class, the new one and the plugin's;
    ``nodes``: the method in each, in that order."""
    before, after, ours = (_method_code(c, n) for c, n in zip(spans, nodes))
    return bool(outside_copy_reason(before, after, ours) or removal_only_reason(before, after))


def _fits(
    spans: tuple[Code, Code, Code],
    nodes: tuple[ast.stmt, ...],
    lost: frozenset[str],
    changes: tuple[str, ...] = ("body",),
    unpassed: frozenset[str] = frozenset(),
) -> bool:
    """Whether an override that does not call upstream's method, and copies lines upstream
    changed in its body alone, is the plugin's own copy that upstream's callers still call
    the same way (:func:`~patchkeeper.runtime.judge.noise.callers_fit_reason`, per
    overridden method: no Modification banners in it, nothing of ``lost`` named). The
    caller checks that the class's module tests no upstream release (:attr:`Code.gated`).
    ``changes``/``unpassed``: as for :func:`callers_fit_reason`."""
    before, after, ours = (_method_code(c, n) for c, n in zip(spans, nodes, strict=True))
    return bool(callers_fit_reason(before, after, ours, changes, lost, unpassed))


#: The kind :func:`_calls_still_bind` gives an override whose parameters were never
#: upstream's (the plugin calls it its own way).
OWN_CALLS = "own calls"


def _calls_still_bind(
    override: ast.stmt, old: ast.stmt, new: ast.stmt, unpassed: frozenset[str]
) -> tuple[str, ...] | None:
    """The kinds of upstream change of an overridden method (``("body",)``, or with
    ``"signature"``) when every call to the new method binds to the override as it does
    to upstream's, the parameters of ``unpassed`` (added with a default, passed by no
    upstream call) left out; ``("body", "own calls")`` when the override never took the
    calls the old upstream method took (:func:`takes_the_calls` of the old signature: its
    parameters are not upstream's, so the plugin calls it its own way, from code of its
    own that replaces upstream's callers, and it ran so at the old release: upstream's new
    parameters reach no call of it); ``None`` when a call would not bind, or when the
    decorators or the kind of definition changed."""
    changes = signature_changes(old, new)
    if not changes:
        return ("body",)
    if not all(c.startswith(("signature", "return annotation")) for c in changes):
        return None
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    if not (
        isinstance(override, functions)
        and isinstance(old, functions)
        and isinstance(new, functions)
    ):
        return None
    if not takes_the_calls(override, old, old):
        return ("body", OWN_CALLS)
    if not takes_the_calls(override, old, without(new, unpassed)):
        return None
    return ("body", "signature")


def inherited_reason(
    entry: PatchEntry,
    old: Code,
    new: Code,
    mine: Code | None,
    lost: frozenset[str] = frozenset(),
    unpassed: frozenset[tuple[str, str]] = frozenset(),
) -> str | None:
    """For a plugin class deriving from the upstream class it replaces (a subclass swap):
    why the upstream change needs no update, or ``""`` when it needs one; ``None`` when the
    replacement is not such a subclass (a full copy of the class, not a class). No update
    is needed when none of the methods it overrides (by ``def`` or by assignment in its
    body) changed upstream (it inherits the rest), or those that changed did so in their
    body alone and the override calls upstream's method (``super().name(...)``: the change
    passes through, as for a wrapper, :func:`patchkeeper.runtime.judge.drift.decide`), unless
    upstream's new body now does what the override adds (:func:`_taken_in`), or the
    override does not call it and keeps none of what changed (:func:`_untouched`). A changed
    signature or decorators of an overridden method, a method upstream added or dropped that
    the class overrides, or a change reaching code an override copies, needs an update:
    the subclass is not a copy of the class, and the rules that read a copy's lines
    (:mod:`patchkeeper.runtime.judge.noise`) apply to each override, not to the class;
    of those, an override that copies what changed, in the body alone, is the plugin's own
    copy that upstream's callers still call the same way (:func:`_fits`): no update, unless
    the class's module tests upstream's release (:attr:`Code.gated`), as for a function
    copy. ``lost``: the names the target's module lost that the class's module imports from
    it (an override naming one may fail). An overridden method whose signature changed
    counts as changed in its body alone when every call to the new signature binds to the
    override (:func:`patchkeeper.runtime.judge.noise.takes_the_calls`), the parameters
    ``unpassed`` lists for it left out (``(method, parameter)``: added with a default, no
    upstream call passes them, :func:`patchkeeper.runtime.judge.unpassed.unpassed_parameters`)."""
    if mine is None:
        return None
    classes = three_classes(old.parsed, new.parsed, mine.parsed)
    if classes is None:
        return None
    before, after, ours = classes
    name = entry.target.rsplit(".", 1)[-1]
    bases = {ast.unparse(b).rsplit(".", 1)[-1] for b in ours.bases}
    if entry.mechanism is not Mechanism.SUBCLASS and name not in bases:
        return None  # a full copy of the class, not a subclass
    methods = _methods(ours)
    old_methods, new_methods = _methods(before), _methods(after)
    # a method bound by assignment in the class body (``forward = npu_forward``) overrides
    # upstream's as a ``def`` does; what it runs is not read here (it never delegates)
    bound = _assigned(ours) & (set(old_methods) | set(new_methods))
    overridden = sorted(set(methods) | bound)
    passed: list[str] = []
    own: list[str] = []
    fitting: list[str] = []
    unseen: list[str] = []  # signature changed by parameters no upstream call passes
    unlike: list[str] = []  # an override whose parameters never were upstream's
    for m in overridden:
        if (m in old_methods) != (m in new_methods):
            return ""
        if m not in old_methods or same_ast(old_methods[m], new_methods[m]):
            continue
        if m not in methods:
            return ""
        names = for_definition(unpassed, m)
        kinds = _calls_still_bind(methods[m], old_methods[m], new_methods[m], names)
        if kinds is None:
            return ""
        if "signature" in kinds:
            unseen.append(m)
        if OWN_CALLS in kinds:
            unlike.append(m)
            kinds = ("body",)
        if _delegates(methods[m], bases):
            if _taken_in(methods[m], old_methods[m], new_methods[m]):
                return ""
            passed.append(m)
        elif _untouched((old, new, mine), (old_methods[m], new_methods[m], methods[m])):
            own.append(m)
        elif not mine.gated and _fits(
            (old, new, mine), (old_methods[m], new_methods[m], methods[m]), lost, kinds, names
        ):
            fitting.append(m)
        else:
            return ""
    listed = ", ".join(overridden[:6]) + (" ..." if len(overridden) > 6 else "") or "none"
    if passed or own or fitting:
        said = []
        if passed:
            said.append(
                f"{', '.join(passed)} changed upstream in the body alone and the override "
                "calls upstream's (super()): the change passes through"
            )
        if own:
            said.append(
                f"{', '.join(own)} changed upstream in the body alone, only in code the "
                "override does not copy, or only by removing lines"
            )
        if fitting:
            said.append(
                f"{', '.join(fitting)} changed upstream in the body alone, and the override "
                "is the plugin's own copy, which upstream's callers still call the same way "
                "(merge upstream's change into it only if the plugin needs it)"
            )
        if unlike:
            said.append(
                f"the parameters of {', '.join(unlike)} already differed from upstream's at "
                "the old release (the plugin calls its override its own way), so upstream's "
                "new signature reaches no call of it"
            )
        if unseen:
            said.append(
                f"the signature of {', '.join(unseen)} changed too, in a way every upstream "
                "call still binds to the override (parameters added with a default that no "
                "upstream call passes are left out)"
            )
        return (
            f"the plugin's class derives from {name} and inherits the upstream change; of the "
            f"methods it overrides ({listed}), {'; '.join(said)}; the others are unchanged "
            "upstream"
        )
    return (
        f"the plugin's class derives from {name} and inherits the upstream change; the "
        f"methods it overrides ({listed}) are unchanged upstream"
    )
