"""A method the old release defines and the new release removes from its class (part of
rule 3 of :mod:`patchkeeper.runtime.judge.judge`).

The lookup of ``Manager.free`` in the new release finds the class ``Manager`` and not the
member (``partial``): by itself that reads as an attribute the plugin adds. When the old
release defined ``free`` in that class as a function, it is not: upstream removed it, and a
patch that sets it (a wrapper, ``Manager.free = free``) sets a name nothing of upstream
calls any more. The patch is dead at the new place, not needless: the feature it carries
may still be wanted where upstream's code went, so the decision is never *remove*:

- **update** (retarget) when the new class has one clear successor: a method the old class
  did not define whose name is the old one's with a leading underscore more or less, else
  the one such method whose body is mostly the old one's (:data:`SIMILAR` of its statement
  lines), else the one the module's definitions that called the old name now call instead
  (it takes over the call sites);
- **look** otherwise, with the reason: find what replaced it.

A name the new class still binds (a class attribute, ``self.free = ...`` in its code) is
not removed; one the old class did not define either is the plugin's own (*retain* stays).
"""

from __future__ import annotations

import ast
import difflib
import re
import textwrap
from dataclasses import replace

from patchkeeper.runtime.judge.drift import LOOK, UPDATE, Drift
from patchkeeper.runtime.judge.feature_probes import has_attribute
from patchkeeper.runtime.judge.missing import renamed_names
from patchkeeper.runtime.lookup.resolve import FOUND, Resolution
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree, strip_docstrings
from patchkeeper.runtime.model import PatchEntry

#: The share of the old body's statement lines a new method must keep to be its successor.
SIMILAR = 0.6


def _body_lines(tree: UpstreamTree, module: str, line: int, end: int) -> list[str]:
    """The statement lines of the function spanning ``line``..``end`` of ``module`` (its
    body without the docstring, unparsed one statement a line, so layout and comments do
    not count); ``[]`` when it does not parse as a function."""
    text = "".join(tree.source_lines(module, line, end))
    try:
        parsed = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return []
    node = parsed.body[0] if parsed.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    strip_docstrings(node)
    return [ast.unparse(s) for s in node.body]


def _calls(text: str, name: str) -> bool:
    """Whether ``text`` calls an attribute ``name`` (``x.name(``)."""
    return re.search(rf"\.{re.escape(name)}\s*\(", text) is not None


def _successor(
    old: Resolution, new: Resolution, member: str, trees: tuple[UpstreamTree, UpstreamTree]
) -> tuple[str, str]:
    """``(name, why)`` of the method of the new class that takes ``member``'s place, or
    ``("", "")`` when none is clear (see the module docstring)."""
    old_summary = trees[0].summary(old.module)
    new_summary = trees[1].summary(new.module)
    if old_summary is None or new_summary is None:
        return "", ""
    old_class = old.location[len(old.module) + 1 :]
    prefix = f"{new.qualname}."
    added = sorted(
        q[len(prefix) :]
        for q, d in new_summary.definitions.items()
        if q.startswith(prefix)
        and "." not in q[len(prefix) :]
        and d.kind == "function"
        and f"{old_class}.{q[len(prefix) :]}" not in old_summary.definitions
    )
    if not added:
        return "", ""
    for other in renamed_names(member):
        if other in added:
            return other, "the same name with a leading underscore more or less"
    gone = old.definition
    assert gone is not None, "the caller checked the old release defines the member"
    before = _body_lines(trees[0], old.module, gone.line, gone.end_line)
    similar = []
    for name in added:
        definition = new_summary.definitions[prefix + name]
        after = _body_lines(trees[1], new.module, definition.line, definition.end_line)
        matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
        kept = sum(block.size for block in matcher.get_matching_blocks())
        if before and kept >= SIMILAR * len(before):
            similar.append((name, kept))
    if len(similar) == 1:
        name, kept = similar[0]
        return name, f"its body keeps {kept} of the old one's {len(before)} statement lines"
    if similar:
        return "", ""
    takers: dict[str, list[str]] = {}
    for qualname, definition in old_summary.definitions.items():
        if definition.kind != "function":
            continue
        span = "".join(trees[0].source_lines(old.module, definition.line, definition.end_line))
        after_def = new_summary.definitions.get(qualname)
        if not _calls(span, member) or after_def is None:
            continue
        now = "".join(trees[1].source_lines(new.module, after_def.line, after_def.end_line))
        if _calls(now, member):
            continue
        for name in added:
            if _calls(now, name):
                takers.setdefault(name, []).append(qualname)
    if len(takers) == 1:
        name, callers = next(iter(takers.items()))
        verb = "calls" if len(callers) == 1 else "call"
        return name, f"{', '.join(callers)} called the old name and now {verb} this one"
    return "", ""


def removed_member(
    entry: PatchEntry,
    drift: Drift,
    old: Resolution,
    new: Resolution,
    trees: tuple[UpstreamTree, UpstreamTree],
    version: str,
) -> Drift | None:
    """The decision for a target whose class the new release has without the method the
    old release defined there (see the module docstring): *update* naming the successor,
    or *look*; ``None`` when the target is not such a method, or ``entry`` registers a
    key (``version``: the new upstream release, ``""`` when unknown)."""
    member = new.partial
    if not (
        entry.key is None
        and old.status == FOUND
        and new.status == FOUND
        and not old.partial
        and member.isidentifier()
        and old.definition is not None
        and old.definition.kind == "function"
        and new.definition is not None
        and new.definition.kind == "class"
        and old.qualname.rpartition(".")[2] == member
    ):
        return None
    if has_attribute(trees[1], new.location, member) is not False:
        return None  # the new class still binds the name (``self.free = ...``)
    at = f"at {version}" if version else "at the new release"
    gone = f"{new.location}.{member}"
    name, why = _successor(old, new, member, trees)
    if name:
        reason = (
            f"upstream removed {gone} {at}; {new.location}.{name}, new there, takes its "
            f"place ({why}): the patch sets a name nothing of upstream calls any more; "
            f"retarget it to {new.location}.{name}"
        )
        return replace(drift, decision=UPDATE, evidence=(reason,))
    source = trees[1].source_text(new.module)
    called = (
        "nothing in its module calls it"
        if not _calls(source, member)
        else f"its module still calls a .{member}() (another object's, or a leftover)"
    )
    reason = (
        f"upstream removed {gone} {at} and no method of the new class clearly replaces it; "
        f"{called}: the patch sets a name upstream no longer calls; find what replaced it "
        "and retarget the patch (not a removal: the plugin may still need the feature there)"
    )
    return replace(drift, decision=LOOK, evidence=(reason,))
