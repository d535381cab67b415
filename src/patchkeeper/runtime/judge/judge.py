"""From the drift of one entry to the decision a careful maintainer takes (issue 10).

:func:`patchkeeper.runtime.judge.drift.decide` compares the old upstream, the new upstream and the
plugin's replacement. This module adds what that comparison cannot see, in this order (the
first rule that applies decides):

1. *never imported* -> **remove** (or re-enable), naming where the import is missing;
2. a version gate on the entry's activation that is dead at the new release, or a feature
   probe (``not hasattr(Request, "num_in_flight_tokens")``) whose branch ran at the old
   release and does not at the new one (:mod:`patchkeeper.runtime.judge.feature_probes`) ->
   **remove**;
   the new upstream defines a class the entry's file (or a helper module of the patch
   directory it imports) defines, or a constant the file defines in its target's module
   (upstream took the feature in, :mod:`patchkeeper.runtime.judge.landed`) -> **remove**;
3. a target in neither release -> **investigate** (a typo or a future name), unless the patch
   says ``allow_missing`` or assigns the name (an assignment or a subclass swap adds it:
   **retain**), and always when neither release has the module or class it belongs to (its
   owner: the assignment has nothing to add the name to, the patch can never apply) unless
   ``try: ... except ImportError`` guards the patch (a future name: **retain**); a
   target that existed at the old release and is gone without a trace ->
   **remove** (the affected path no longer exists); moved or renamed (a private name's
   underscore, a name the module extends: ``FusedMoE`` -> ``FusedMoEFactory``) -> **update**
   (retarget);
   an attribute the plugin adds to an upstream class that the new class sets itself, or
   a backport whose parameters the new upstream target now has (upstream took the change
   in) -> **remove**; the audit then carries that to the other entries of a backport's
   file (:func:`patchkeeper.runtime.judge.landed.spread`);
4. a target new upstream (the old release did not define it, or not under the class found)
   -> **remove** when the patch's header says it is a backport (the change landed), else
   **update** (the patch now replaces upstream's own definition);
5. a registry key the new upstream has and the old one had too -> **retain** (the plugin
   overrides upstream's value on purpose);
6. the new upstream target, or a function of its module that calls it, consults an extension
   point the old release did not have (:mod:`patchkeeper.runtime.judge.hooks`) -> **migrate**;
7. an upstream change that is only noise (:mod:`patchkeeper.runtime.judge.noise`) -> **retain**,
   said to be cosmetic with the reason; a subclass swap whose overridden methods (those of
   its class body and of its ``if``/``try`` blocks) did not change upstream, or changed in
   their body alone while the override calls upstream's (``super().name(...)``), inherits
   the change -> **retain**; one that overrides a changed method otherwise stays **update**
   (the copy rules below do not read a subclass); a change of the body alone that lies
   only in code the replacement does not copy, or that only removes code lines (the copy
   keeps doing what the old release did), new parameters a replacement forwarding
   ``*args``/``**kwargs`` passes through, or a change of the body alone when the
   replacement is a lambda or an expression the audit cannot read (not a copy) -> **retain**;
   a target outside the upstream being upgraded (``torch``) -> **retain** (this upgrade does
   not change it);
8. a full-replacement copy that already differs from the OLD upstream outside its
   Modification banners -> **update** even when this upgrade did not touch the target (the
   copy missed an earlier upstream change).

Rules 3 to 5 and the last two of 7 come from the disagreements with the vllm-ascend
maintainers over six releases (``benchmarks/runtime_history.py``).

The audit remembers each result (:class:`patchkeeper.runtime.judge.runtime_audit.JudgeCache`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

from patchkeeper.runtime.judge.drift import (
    INVESTIGATE,
    MIGRATE,
    NOT_AUDITED,
    REMOVE,
    RETAIN,
    UPDATE,
    Code,
    Drift,
    signature_changes,
    upstream_code,
)
from patchkeeper.runtime.judge.hooks import candidates
from patchkeeper.runtime.judge.landed import BACKPORT, attribute_landed, signature_landed
from patchkeeper.runtime.judge.noise import (
    cosmetic_reason,
    forwarded_signature_reason,
    outside_copy_reason,
    removal_only_reason,
)
from patchkeeper.runtime.judge.samecode import same_ast
from patchkeeper.runtime.lookup.resolve import (
    FOUND,
    MOVED,
    REMOVED,
    Resolution,
    defined_statically,
)
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import ActivationStatus, Mechanism, PatchEntry
from patchkeeper.runtime.syntax.gates import evaluate
from patchkeeper.runtime.syntax.names import walk_statements


def _dead_gate(entry: PatchEntry, new_version: str) -> str:
    """The first version condition on the way to ``entry`` that is false at
    ``new_version``, as ``"file:line: test"``; ``""`` when none."""
    activation = entry.activation
    if activation is None or not new_version:
        return ""
    for condition in activation.conditions:
        test = condition.text
        if condition.kind == "else" or test.startswith("not ("):
            test = test if test.startswith("not (") else f"not ({test})"
        if evaluate(test, new_version) is False:
            return f"{condition.file}:{condition.line}: {condition.text}"
    return ""


@dataclass(frozen=True)
class Pending:
    """A judgement that waits for one fact of the old tree (:func:`settle`): whether it
    defines each hook name of ``candidates`` (``(hook name, how it is reached)``: the
    extension points the new target or its callers consult and the old target did not,
    :func:`patchkeeper.runtime.judge.hooks.candidates`). A hook the old release defined nowhere
    makes the entry *migrate* (rule 6, on ``drift``); when the old release defined them
    all, the judgement is ``otherwise`` (the rules after it)."""

    drift: Drift
    candidates: tuple[tuple[str, str], ...]
    otherwise: Drift


def judge(
    entry: PatchEntry,
    drift: Drift,
    old: Resolution,
    new: Resolution,
    trees: tuple[UpstreamTree, UpstreamTree],
    spans: tuple[Code | None, Code | None, Code | None],
    versions: tuple[str, str],
    header: str = "",
    landed: tuple[str, ...] = (),
    dead_probe: str = "",
) -> Drift:
    """The refined :class:`Drift` of one entry (see the module docstring):
    :func:`judge_pending`, settled at once (:func:`settle`)."""
    pending = judge_pending(
        entry, drift, old, new, trees, spans, versions, header, landed, dead_probe
    )
    return settle(pending, trees[0])


def settle(judged: Drift | Pending, old_tree: UpstreamTree) -> Drift:
    """The judgement of :func:`judge_pending`'s result: a :class:`Drift` as it is; a
    :class:`Pending` one *migrate* when the old tree (:meth:`UpstreamTree.defined`) lacks
    one of its hook names, else its ``otherwise``. (Look the hook names of many entries up
    in one pass first: :meth:`UpstreamTree.find_definitions`.)"""
    if isinstance(judged, Drift):
        return judged
    hooks = [how for name, how in judged.candidates if not old_tree.defined(name)]
    if not hooks:
        return judged.otherwise
    return _with(
        judged.drift,
        MIGRATE,
        "the new upstream consults an extension point the old release did not have: "
        + "; ".join(hooks),
    )


def judge_pending(
    entry: PatchEntry,
    drift: Drift,
    old: Resolution,
    new: Resolution,
    trees: tuple[UpstreamTree, UpstreamTree],
    spans: tuple[Code | None, Code | None, Code | None],
    versions: tuple[str, str],
    header: str = "",
    landed: tuple[str, ...] = (),
    dead_probe: str = "",
) -> Drift | Pending:
    """The refined :class:`Drift` of one entry (see the module docstring), or, when rule 6
    has hook names to check, a :class:`Pending` judgement: every rule but that check, which
    reads the whole old tree, is taken here (so that many entries can be judged in worker
    processes and their hook names looked up in the old tree in one pass afterwards).

    Args:
        versions: the old and new upstream versions (``""`` when unknown: gates are then
            not evaluated).
        header: the entry's file's header comment (its ``Note:`` and the rest), read for
            what the patch says it avoids on purpose.
        landed: the features the entry's file carries (its classes and constants, the
            classes of the patch directory's helper modules it imports) that the new
            upstream now defines (:func:`patchkeeper.runtime.judge.landed.landed_features`):
            upstream took the feature in, and the whole file goes (**remove**).
        dead_probe: why a feature probe on the way to the entry stops it at the new release
            (:func:`patchkeeper.runtime.judge.feature_probes.dead_probe`; ``""`` when none):
            dead code there (**remove**).
    """
    activation = entry.activation
    if activation is not None and activation.status is ActivationStatus.NEVER:
        note = activation.note or "no import reaches it"
        return _with(drift, REMOVE, f"never imported ({note}): remove it, or re-enable the import")
    gate = _dead_gate(entry, versions[1])
    if gate:
        return _with(
            drift, REMOVE, f"its version gate is false at {versions[1]} ({gate}): dead code there"
        )
    if dead_probe:
        return _with(drift, REMOVE, dead_probe)
    if landed:
        listed = ", ".join(landed)
        return _with(
            drift,
            REMOVE,
            f"the new upstream defines {listed}, which the patch's file carries (defined in "
            "it or in a helper module of the patch directory it imports) and the old release "
            "did not have: upstream took the feature in; remove the file's patches once "
            "upstream's version is checked to cover them",
        )
    if drift.decision == NOT_AUDITED:
        return _with(
            drift,
            RETAIN,
            f"{entry.target} is not part of the upstream being upgraded: this upgrade does not "
            "change it",
        )
    if entry.replacement == "<removed>" and entry.key is not None and new.status == FOUND:
        return _removal(entry, drift, new)
    if new.status != FOUND:
        return _missing(entry, drift, old, new, trees)
    if new.partial and old.partial == new.partial:
        pair = (upstream_code(trees[0], old), upstream_code(trees[1], new))
        attribute = attribute_landed(new.partial, *pair)
        if attribute:
            return _with(drift, REMOVE, attribute)
    if old.status != FOUND or (old.partial and not new.partial):
        return _arrived(entry, drift, old, new, header)
    old_code, new_code, mine = spans
    if drift.decision == UPDATE and old_code and new_code and mine:
        signature = signature_landed(old_code, new_code, mine, header)
        if signature:
            return _with(drift, REMOVE, signature)
    if drift.decision == REMOVE and entry.key is not None and _has_key(old_code, entry.key):
        return _with(
            drift,
            RETAIN,
            f"the old upstream {old.location} had the key {entry.key} too: the plugin "
            "overrides upstream's value on purpose",
        )
    found = candidates(new, trees[1], old_code, new_code)
    lost = _lost_names(trees, old.module, new.module)
    otherwise = _after_hooks(entry, drift, old_code, new_code, mine, header, lost)
    return Pending(drift, tuple(found.items()), otherwise) if found else otherwise


def _after_hooks(
    entry: PatchEntry,
    drift: Drift,
    old_code: Code | None,
    new_code: Code | None,
    mine: Code | None,
    header: str,
    lost: frozenset[str] = frozenset(),
) -> Drift:
    """Rules 7 and 8 (see the module docstring); ``lost``: :func:`_lost_names`."""
    if drift.decision == UPDATE and old_code is not None and new_code is not None:
        reason = cosmetic_reason(old_code, new_code, header)
        if reason:
            return _with(drift, RETAIN, f"the upstream change is cosmetic: {reason}")
        inherited = _inherited(entry, old_code, new_code, mine)
        if inherited:
            return _with(drift, RETAIN, inherited)
        if inherited is not None:
            return drift  # a subclass overriding what changed: not a copy the rules below read
        if mine is not None and drift.upstream_changes == ("body",):
            outside = outside_copy_reason(old_code, new_code, mine)
            if outside:
                return _with(drift, RETAIN, outside)
            removed = removal_only_reason(old_code, new_code, lost)
            if removed:
                return _with(drift, RETAIN, removed)
        changes = drift.upstream_changes
        if mine is not None and any(c.startswith("signature") for c in changes):
            forwarded = forwarded_signature_reason(old_code, new_code, mine)
            if forwarded:
                return _with(drift, RETAIN, forwarded)
        unread = _unread_replacement_reason(entry, mine, changes)
        if unread:
            return _with(drift, RETAIN, unread)
    if drift.decision == RETAIN and drift.outside_banners:
        return _with(
            drift,
            UPDATE,
            f"the copy differs from the old upstream outside its Modification banners "
            f"({len(drift.outside_banners)} line(s)): it missed an earlier upstream change",
        )
    return drift


#: What the scan records for a replacement it cannot name (``module:qualname``): a lambda,
#: or an expression (a function defined inside another one, a call's result).
UNNAMED = {"<lambda>": "a lambda", "<expr>": "an expression"}


def _unread_replacement_reason(
    entry: PatchEntry, mine: Code | None, changes: tuple[str, ...]
) -> str:
    """Why a change of the upstream body alone needs no update of a replacement the audit
    cannot read (:data:`UNNAMED`: a function bound at run time, not a copy it can compare),
    or ``""``. With the same signature and decorators, the calls upstream's callers make
    still fit the replacement, and nothing shows that the replacement copies the body that
    changed: the plugin's own implementation stands (the vllm-ascend maintainers kept 15 of
    17 such entries over six releases, ``benchmarks/runtime_history.py``). A change of the
    signature, the decorators or the kind of definition is not covered: callers changed."""
    what = UNNAMED.get(entry.replacement)
    if mine is not None or what is None or changes != ("body",):
        return ""
    return (
        f"the replacement is {what}, not a copy of upstream's code (nothing to compare), and "
        f"upstream changed only the body of {entry.target} (signature and decorators are "
        "the same: its callers' calls still fit the replacement); read the replacement if "
        "it copies upstream's body"
    )


def _lost_names(
    trees: tuple[UpstreamTree, UpstreamTree], old_module: str, new_module: str
) -> frozenset[str]:
    """The module-level names (definitions and imports) the target's module had at the old
    release and no longer has at the new one: names a copy's kept lines would miss."""
    before, after = trees[0].summary(old_module), trees[1].summary(new_module)
    if before is None or after is None:
        return frozenset()
    had = {n for n in before.definitions if "." not in n} | set(before.imports)
    has = {n for n in after.definitions if "." not in n} | set(after.imports)
    return frozenset(had - has)


def _has_key(code: Code | None, key: str) -> bool:
    """Whether the source of ``code`` holds the literal registry key ``key`` (quoted)."""
    if code is None:
        return False
    bare = key.strip("'\"")
    return re.search(rf"['\"]{re.escape(bare)}['\"]", "".join(code.lines)) is not None


def _arrived(
    entry: PatchEntry, drift: Drift, old: Resolution, new: Resolution, header: str
) -> Drift:
    """A target the old release did not define at that path (not at all, or not under the
    class found) and the new one does: the patch was written ahead of upstream and now
    replaces upstream's own definition. When the header says the patch is a backport, the
    backported change has landed: *remove*; otherwise the maintainers must read it against
    upstream's: *update*. (The evidence says where the old release had the name, if
    anywhere.)"""
    if old.status == MOVED and old.candidates:
        where = f"the old release defined it elsewhere: {', '.join(old.candidates[:2])}"
        return _with(
            drift,
            UPDATE,
            f"{entry.target} moved to the patch's path in the new upstream ({where}): "
            "review the patch against upstream's definition there",
        )
    if BACKPORT.search(header):
        return _with(
            drift,
            REMOVE,
            f"the patch's header says it is a backport, and {entry.target} is new upstream at "
            f"{new.location} (the old release did not have it): the backported change has "
            "landed; remove the patch once upstream's version is checked to do the same",
        )
    return _with(
        drift,
        UPDATE,
        f"{entry.target} is new upstream at {new.location} (the old release did not have "
        "it): the patch now replaces upstream's own definition; review it against upstream's "
        "(remove it if it was a backport of that change)",
    )


def _methods(node) -> dict[str, ast.stmt]:
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


def _inherited(entry: PatchEntry, old: Code, new: Code, mine: Code | None) -> str | None:
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
    (:mod:`patchkeeper.runtime.judge.noise`) apply to each override, not to the class."""
    if mine is None:
        return None
    ours, before, after = mine.parsed, old.parsed, new.parsed
    if not all(isinstance(n, ast.ClassDef) for n in (ours, before, after)):
        return None
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
    for m in overridden:
        if (m in old_methods) != (m in new_methods):
            return ""
        if m not in old_methods or same_ast(old_methods[m], new_methods[m]):
            continue
        if m not in methods or signature_changes(old_methods[m], new_methods[m]):
            return ""
        if _delegates(methods[m], bases):
            if _taken_in(methods[m], old_methods[m], new_methods[m]):
                return ""
            passed.append(m)
        elif _untouched((old, new, mine), (old_methods[m], new_methods[m], methods[m])):
            own.append(m)
        else:
            return ""
    listed = ", ".join(overridden[:6]) + (" ..." if len(overridden) > 6 else "") or "none"
    if passed or own:
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
        return (
            f"the plugin's class derives from {name} and inherits the upstream change; of the "
            f"methods it overrides ({listed}), {'; '.join(said)}; the others are unchanged "
            "upstream"
        )
    return (
        f"the plugin's class derives from {name} and inherits the upstream change; the "
        f"methods it overrides ({listed}) are unchanged upstream"
    )


def _removal(entry: PatchEntry, drift: Drift, new: Resolution) -> Drift:
    """A registry key the plugin deletes: still needed while upstream still has the key."""
    if not re.match(r"""^(['"]).*\1$|^-?\d+$""", entry.key or ""):
        return _with(
            drift,
            RETAIN,
            f"the key {entry.key} is computed at run time: the removal cannot be checked here",
        )
    if drift.decision == REMOVE:  # drift found the key in the new upstream definition
        return _with(
            drift,
            RETAIN,
            f"the new upstream {new.location} still has the key {entry.key}: the plugin's "
            "removal of it is still needed",
        )
    return _with(
        drift,
        REMOVE,
        f"the new upstream {new.location} no longer has the key {entry.key}: nothing to remove",
    )


def renamed_names(target: str) -> list[str]:
    """The names a target's last part may have been renamed to by its leading underscore
    (``_alloc`` -> ``alloc``; ``alloc`` -> ``_alloc``)."""
    tail = target.rsplit(".", 1)[-1]
    return [o for o in (tail.lstrip("_"), f"_{tail}") if o and o != tail]


def _renamed(entry: PatchEntry, trees: tuple[UpstreamTree, UpstreamTree]) -> str:
    """Where a name went when the new release renamed it, as ``"module.name"``; ``""``.

    In this order: only its leading underscore changed, in the same module
    (``_allocate_kv_cache`` -> ``allocate_kv_cache``) or, when the module no longer has it,
    in one other module of the new release; or the same module newly defines or imports a
    name that extends it (``FusedMoE`` -> ``FusedMoEFactory``, a name of 6 characters or more
    that the old module neither defined nor imported; a package's ``__init__`` re-exports
    the names of its modules by importing them: then the place it imports the name from)."""
    module = entry.target.rsplit(".", 1)[0]
    tail = entry.target[len(module) + 1 :]
    old, new = trees[0].summary(module), trees[1].summary(module)
    if not tail or (old is None and new is None):
        return ""  # not a module-level name of an upstream module
    others = [o for o in (tail.lstrip("_"), f"_{tail}") if o != tail]
    if new is not None:
        for other in others:
            if other in new.definitions:
                return f"{module}.{other}"
    for other in others:
        places = sorted({m for m, _line in trees[1].defined(other)})
        if len(places) == 1:
            return f"{places[0]}.{other}"
    if new is None or len(tail) < 6:
        return ""
    before = set(old.definitions) | set(old.imports) if old is not None else set()
    grown = sorted(
        n
        for n in (*new.definitions, *new.imports)
        if n.startswith(tail) and n != tail and "." not in n and n not in before
    )
    if len(set(grown)) != 1:
        return ""
    binding = new.imports.get(grown[0]) if grown[0] not in new.definitions else None
    return binding.dotted if binding is not None else f"{module}.{grown[0]}"


def _import_guard(entry: PatchEntry) -> str:
    """Where ``try: ... except ImportError`` guards ``entry`` (``"file:line"``), or ``""``."""
    activation = entry.activation
    for condition in activation.conditions if activation is not None else ():
        if condition.kind == "try-import":
            return f"try ... except ImportError at {condition.file}:{condition.line}"
    return ""


def _absent_owner(entry: PatchEntry, trees: tuple[UpstreamTree, UpstreamTree]) -> str:
    """The object ``entry`` patches a name of (its target without the last part: a module
    or a class) when neither release defines it (:func:`defined_statically`), else ``""``.
    An assignment adds a new name to an object that exists; to one that does not, it can
    never apply (``vllm.entrypoints.openai.cli_args.make_arg_parser`` while neither vLLM
    0.30.0 nor 0.32.0 has that module): the issue's item 7, a name in neither release is a
    typo or a future name."""
    owner = entry.target.rpartition(".")[0]
    if not owner or any(defined_statically(tree, owner) for tree in trees):
        return ""
    return owner


def _missing(
    entry: PatchEntry,
    drift: Drift,
    old: Resolution,
    new: Resolution,
    trees: tuple[UpstreamTree, UpstreamTree],
) -> Drift:
    """The decision for a target the new release does not define where the plugin says."""
    renamed = _renamed(entry, trees)
    if renamed:
        return _with(drift, UPDATE, f"{entry.target} was renamed: retarget to {renamed}")
    owner = _absent_owner(entry, trees) if old.status != FOUND else ""
    guard = _import_guard(entry) if owner else ""
    if guard:
        return _with(
            drift,
            RETAIN,
            f"{entry.target} is in neither release, nor is {owner}, the module or class it "
            f"belongs to, and the patch is guarded by {guard}: a future name, the import "
            "fails harmlessly until a release has it; nothing to do at this one",
        )
    if owner:
        where = (
            f"; upstream defines the name at {', '.join(new.candidates[:3])}: a wrong path"
            if new.candidates
            else ""
        )
        return _with(
            drift,
            INVESTIGATE,
            f"{entry.target} is in neither release, nor is {owner}, the module or class it "
            f"belongs to: the patch can never apply (a typo or a future name{where})",
        )
    if old.status != FOUND and new.status == REMOVED:
        # a subclass swap of a name upstream never had is an assignment of the plugin's class
        if entry.mechanism in (Mechanism.ASSIGNMENT, Mechanism.SETATTR, Mechanism.SUBCLASS):
            return _with(
                drift,
                RETAIN,
                f"{entry.target} is in neither release: the plugin's assignment adds it "
                "(if it was meant to replace something, a typo or a future name)",
            )
        if entry.allow_missing:
            return _with(
                drift,
                RETAIN,
                f"{entry.target} is in neither release; the patch adds it on purpose "
                "(allow_missing)",
            )
        return _with(
            drift,
            INVESTIGATE,
            f"{entry.target} is in neither release: a typo or a future name",
        )
    if old.status != FOUND and new.status == MOVED:
        if entry.mechanism in (Mechanism.ASSIGNMENT, Mechanism.SETATTR):
            return _with(
                drift,
                RETAIN,
                f"{entry.target} is not defined at that path in either release: the plugin's "
                f"assignment adds it there (upstream defines the name at "
                f"{', '.join(new.candidates[:3])}; if it was meant to replace that, a wrong path)",
            )
        return _with(
            drift,
            INVESTIGATE,
            f"{entry.target} is not defined at that path in either release; the name is "
            f"defined at {', '.join(new.candidates[:3])}: a wrong path or a future name",
        )
    if new.status == MOVED:
        return _with(
            drift, UPDATE, f"{entry.target} moved: retarget to {', '.join(new.candidates[:3])}"
        )
    if new.status == REMOVED:
        return _with(
            drift,
            REMOVE,
            f"{entry.target} existed at the old release and is gone from the new one: "
            "the affected path no longer exists",
        )
    return drift


def _with(drift: Drift, decision: str, reason: str) -> Drift:
    """``drift`` with ``decision`` and ``reason`` first in its evidence."""
    evidence = (reason, *(e for e in drift.evidence if e != reason))
    return replace(drift, decision=decision, evidence=evidence)
