"""A class of the plugin's own in place of upstream's, when upstream changes how one of its
members is reached.

A replacement class that does not derive from the upstream class it replaces
(``buffer_utils.UvaBuffer = UvaBufferWrapper``) inherits nothing of it: upstream's callers
reach every member through the plugin's class. When upstream turns a member from a value
into a method (``self.uva = view`` -> ``def uva(self, n=None)``), or a method into a value,
every access of it changes too (``buffer.uva`` -> ``buffer.uva(n)``), and a replacement
class that still has the member of the old kind (a property ``uva``) fails at the first
access: *update*, whatever a rule that reads the upstream change line by line says (the
plugin's class copies few of upstream's lines, so the change "lies outside" them).

A member is a *method* (a ``def`` not read as a property: static and class methods
included) or a *value* (a property, a class attribute, an attribute a method sets on
``self``). A subclass is read override by override (:mod:`.inherited`), not here; a member
the plugin's class lacks says nothing of its kind (a class may serve a part of the
interface only).
"""

from __future__ import annotations

import ast

from patchkeeper.runtime.judge.drift import RETAIN, UPDATE, Code, Drift, with_decision
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.syntax.astwalk import nodes
from patchkeeper.runtime.syntax.definitions import three_classes

METHOD, VALUE = "method", "value"
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Decorators (their last dotted part) that make a ``def`` a value: read as an attribute.
_PROPERTIES = frozenset({"property", "cached_property", "setter", "getter", "deleter"})


def _decorated_as_value(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in node.decorator_list:
        name = ast.unparse(decorator).rsplit(".", 1)[-1]
        if name in _PROPERTIES:
            return True
    return False


def _targets(node: ast.stmt) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return [node.target]
    return []


def member_kinds(node: ast.ClassDef) -> dict[str, str]:
    """Each member of the class ``node`` by name, :data:`METHOD` or :data:`VALUE`: the
    ``def`` statements of its body (a property-like decorator makes a value), the names
    its body assigns (values), and the attributes its methods set on ``self`` (values,
    where the body does not define the name)."""
    kinds: dict[str, str] = {}
    for statement in node.body:
        if isinstance(statement, _FUNCTIONS):
            value = _decorated_as_value(statement)
            if value or kinds.get(statement.name) != VALUE:
                kinds[statement.name] = VALUE if value else METHOD
        for target in _targets(statement):
            if isinstance(target, ast.Name):
                kinds.setdefault(target.id, VALUE)
    for statement in node.body:
        if not isinstance(statement, _FUNCTIONS):
            continue
        for inner in nodes(statement):
            if not isinstance(inner, ast.stmt):
                continue
            for target in _targets(inner):
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    kinds.setdefault(target.attr, VALUE)
    return kinds


def changed_kinds(old: ast.ClassDef, new: ast.ClassDef, mine: ast.ClassDef) -> tuple[str, ...]:
    """The members, in name order, that the old upstream class ``old`` and the new one
    ``new`` both have with different kinds, and that the plugin's class ``mine`` has with
    the old kind."""
    before, after, ours = member_kinds(old), member_kinds(new), member_kinds(mine)
    return tuple(
        sorted(
            name
            for name, kind in before.items()
            if name in after and after[name] != kind and ours.get(name) == kind
        )
    )


def member_kind_update(
    entry: PatchEntry, drift: Drift, spans: tuple[Code | None, Code | None, Code | None]
) -> Drift:
    """``drift`` as *update* when it is a *retain* of an upstream class that changed and
    whose replacement, a class of the plugin's that does not derive from it, keeps a member
    of the kind upstream left (:func:`changed_kinds`); else ``drift`` as it is (see the
    module docstring). ``spans``: the old upstream class, the new one, the replacement."""
    if drift.decision != RETAIN or not drift.upstream_changes:
        return drift
    classes = three_classes(*(code.parsed if code is not None else None for code in spans))
    if classes is None:
        return drift
    old, new, mine = classes
    name = entry.target.rsplit(".", 1)[-1]
    if name in {ast.unparse(base).rsplit(".", 1)[-1] for base in mine.bases}:
        return drift
    changed = changed_kinds(old, new, mine)
    if not changed:
        return drift
    before = member_kinds(old)
    said = ", ".join(
        f"{member} (a {before[member]} -> a {METHOD if before[member] == VALUE else VALUE})"
        for member in changed
    )
    return with_decision(
        drift,
        UPDATE,
        f"upstream changed the kind of {said} in {name}: its callers reach it the new way; "
        f"the plugin's class {mine.name}, which replaces {name} without deriving from it, "
        "keeps the old kind: give it the new upstream form",
    )
