"""Old upstream vs new upstream, and the downstream's change, for one patch entry.

Step 3 of the runtime audit workflow (docs/glossary.md), as a suggestion with its evidence:

- upstream unchanged -> *retain*;
- upstream changed and the downstream's change is not in it -> *update* (the upstream diff
  to reapply goes with it); a wrapper that keeps the original only needs an update when
  the signature changed in a way calls see (names, kinds or defaults of its parameters:
  annotations alone change no call), or when it names a string the old upstream body held
  and the new one dropped (both read by :mod:`~patchkeeper.runtime.judge.signatures`);
- the new upstream already contains the downstream's change -> *remove*;
- the target is gone (moved or removed) -> *look*, with where the name went; a target at
  that path in neither release is said to be so, not *moved* or *removed*.

*migrate* needs a judgement about new extension points and is never suggested
automatically. Bodies are compared as ASTs with docstrings removed (comments never reach
the AST); signatures and decorators separately, private names included.
"""

from __future__ import annotations

import ast
import difflib
import functools
import re
import textwrap
from collections import Counter
from dataclasses import dataclass, replace
from typing import TypedDict

from patchkeeper.constants import DecisionWord
from patchkeeper.runtime.judge.absent_before import absent_before
from patchkeeper.runtime.judge.added_upstream import all_added_upstream
from patchkeeper.runtime.judge.samecode import same_ast
from patchkeeper.runtime.judge.signatures import (
    any_signature,
    call_changes,
    dropped_literals,
    signature_changes,
)
from patchkeeper.runtime.lookup.resolve import FOUND, OUTSIDE, Resolution, now_at, outside_upstream
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import PatchEntry

#: The suggestions, as the plain strings the result cache stores (:class:`DecisionWord`).
RETAIN, UPDATE, MIGRATE, REMOVE, LOOK = (
    w.value
    for w in (
        DecisionWord.RETAIN,
        DecisionWord.UPDATE,
        DecisionWord.MIGRATE,
        DecisionWord.REMOVE,
        DecisionWord.LOOK,
    )
)
NOT_AUDITED = "not-audited"
#: The evidence of :func:`decide` when the new upstream definition is the replacement (AST
#: without docstrings): upstream took the change in whole; nothing outweighs it
#: (:func:`patchkeeper.runtime.judge.judge.judge_pending`).
EQUALS_NEW = "the new upstream implementation equals the replacement"

#: How the evidence of a registry key the plugin deletes starts when neither release's
#: definition has the key: the key is put there at run time (the plugin's own registration,
#: a cache filled on first use), which the upgrade does not change.
KEY_IN_NEITHER = "neither release's definition has the key"
#: Banner lines around a downstream change (the ``MetaX Modification`` banners of the audited
#: plugins): ``# /------ Metax Modification ------\`` or ``# ┌--- Metax Modification ---┐`` opens,
#: ``# \-------------------------------/`` or ``# └--- Metax Modification ---┘`` closes.
BANNER_OPEN = re.compile(r"^\s*#\s*[/┌]")
BANNER_CLOSE = re.compile(r"^\s*#\s*[\\└]")


@dataclass(frozen=True)
class Code:
    """A definition's source span and its parsed node (``None`` when it does not parse)."""

    name: str
    start: int
    lines: tuple[str, ...]
    #: The plugin copy's own decorators (``ast.unparse`` of each), which its span leaves
    #: out with the patch decorator: an upstream decorator the copy has is not a difference.
    decorators: tuple[str, ...] = ()
    #: Whether the copy's module tests upstream's release (an ``if`` or conditional expression
    #: :func:`~patchkeeper.runtime.syntax.gates.evaluate` decides); ``False`` for upstream's.
    gated: bool = False
    #: The names the plugin module holding the copy imports from other modules
    #: (``from m import a as b`` is ``("b", "m")``; ``from m import *`` is ``("*", "m")``),
    #: relative imports left out (the plugin's own modules); empty for upstream's spans.
    imports: tuple[tuple[str, str], ...] = ()
    #: The names the plugin module holding the copy imports, defines or assigns inside a
    #: test of upstream's release (``if vllm_version_is("0.28.0"): from vllm.a import
    #: Model``, its ``else`` too): what it binds per release; empty for upstream's spans.
    gated_names: tuple[str, ...] = ()
    #: The names the scopes around the copy (its module and the functions it is defined
    #: in) bind to an attribute chain (``orig = Runner.run`` is ``("orig", "Runner.run")``):
    #: what a call in the copy may reach of upstream; empty for upstream's spans.
    outer_aliases: tuple[tuple[str, str], ...] = ()
    #: The plugin module's module-level functions as (name, source, decorators included):
    #: what a bare call in the copy reaches of its own; empty for upstream's spans.
    own_functions: tuple[tuple[str, str], ...] = ()
    #: Names the copy's module binds at module level to a release test (``_OLD = is_v("1")``).
    version_flags: tuple[str, ...] = ()

    @functools.cached_property
    def text(self) -> str:
        """The span's source, dedented (computed once)."""
        return textwrap.dedent("".join(self.lines))

    def node(self) -> ast.stmt | None:
        """A fresh parse of :attr:`text` (the caller may change it); ``None`` if unparsable."""
        try:
            tree = ast.parse(self.text)
        except SyntaxError:
            return None
        return tree.body[0] if tree.body else None

    @property
    def parsed(self) -> ast.stmt | None:
        """The parse of :attr:`text`, shared by every span with the same text (parsed once
        per process): read it, never change it (:meth:`node` gives a fresh one to change)."""
        text = self.text
        if text not in _SHARED_PARSES:
            _SHARED_PARSES[text] = self.node()
        return _SHARED_PARSES[text]


#: :attr:`Code.parsed` by dedented source text.
_SHARED_PARSES: dict[str, ast.stmt | None] = {}


def upstream_code(tree: UpstreamTree, found: Resolution) -> Code | None:
    """The source span of a found definition (``None`` for a module or a missing one)."""
    if found.status != FOUND or found.definition is None:
        return None
    lines = tree.source_lines(found.module, found.definition.line, found.definition.end_line)
    return Code(f"{found.file}", found.definition.line, tuple(lines))


def unified(a: Code, b: Code) -> str:
    """A unified diff of two spans, labelled with files and first lines."""
    return "".join(
        difflib.unified_diff(
            list(a.text.splitlines(True)),
            list(b.text.splitlines(True)),
            fromfile=f"a/{a.name}:{a.start}",
            tofile=f"b/{b.name}:{b.start}",
            n=2,
        )
    )


def _normal(line: str) -> str:
    return line.split("#", 1)[0].strip() if not line.strip().startswith("#") else ""


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _header(node: ast.stmt, name: str) -> str:
    """A definition's ``def``/``class`` line as :func:`ast.unparse` writes it, named
    ``name``: its layout over several lines, its trailing commas and its own name are no
    difference between a copy and upstream."""
    if isinstance(node, ast.ClassDef):
        bases = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
        return f"class {name}({', '.join(bases)}):"
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    lead = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    return f"{lead} {name}({ast.unparse(node.args)}){returns}:"


def compared_lines(
    code: Code, name: str = "", decorators: tuple[str, ...] = ()
) -> list[tuple[int, str]]:
    """The lines of ``code`` as a copy is compared with upstream: ``(index in
    code.lines, normalized text)`` (comments and layout aside, :func:`_normal`), the
    decorators and the ``def``/``class`` header of a definition written once each by
    :func:`ast.unparse` (named ``name`` when given: the copy's own name is no difference),
    and a decorator in ``decorators`` (those of the copy) left out: ``@triton.jit`` above
    both is no difference. A span that does not parse is compared line by line."""
    node = code.parsed
    raw = [(i, _normal(line)) for i, line in enumerate(code.lines)]
    if not isinstance(node, _DEFINITIONS) or not node.body:
        return raw
    body = node.body[0].lineno - 1
    if body <= node.lineno - 1 or body > len(code.lines):
        return raw  # a body on the header's line: read as it is
    out = []
    for decorator in node.decorator_list:
        text = ast.unparse(decorator)
        if text not in decorators:
            out.append((decorator.lineno - 1, f"@{text}"))
    out.append((node.lineno - 1, _header(node, name or node.name)))
    out += raw[body:]
    return out


def _pair(base: Code, changed: Code) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """:func:`compared_lines` of upstream's ``base`` and the copy ``changed`` (named as
    upstream's definition, its decorators left out of upstream's)."""
    node = base.parsed
    name = node.name if isinstance(node, _DEFINITIONS) else ""
    return compared_lines(base, decorators=changed.decorators), compared_lines(changed, name)


def added_lines(base: Code, changed: Code) -> list[str]:
    """The code lines ``changed`` adds over ``base`` (normalized, comments dropped; the
    header and decorators as :func:`compared_lines` reads them)."""
    before, after = _pair(base, changed)
    a = [text for _i, text in before]
    b = [text for _i, text in after]
    out = []
    for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            out += [x for x in b[j1:j2] if x]
    return out


def is_copy(base: Code, mine: Code) -> bool:
    """Whether the plugin's replacement ``mine`` is a copy of upstream's definition
    ``base`` (one to compare line by line, or to merge): the same kind of definition
    (a function for a function, a class for a class), and a class either derives from
    upstream's (a subclass: its own rules read it) or keeps at least half of upstream's
    code lines. A plugin class of another origin (a renamed library class, a new class
    registered in a table) is not a copy of whatever upstream defines there."""
    old, own = base.parsed, mine.parsed
    if old is None or own is None:
        return True  # unreadable: compared as text, as before
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    if isinstance(old, functions) and isinstance(own, functions):
        return True
    if not (isinstance(old, ast.ClassDef) and isinstance(own, ast.ClassDef)):
        return False
    if any(ast.unparse(b).rsplit(".", 1)[-1] == old.name for b in own.bases):
        return True
    before, after = _pair(base, mine)
    kept = Counter(t for _i, t in before if t) & Counter(t for _i, t in after if t)
    total = sum(1 for _i, t in before if t)
    return total == 0 or 2 * sum(kept.values()) >= total


def outside_banners(base: Code, changed: Code) -> tuple[list[str], bool]:
    """Changes of ``changed`` over ``base`` that lie outside the banner regions, and whether
    ``changed`` has banners at all. Each change is ``"line N: <code>"``. The lines are
    compared as :func:`compared_lines` reads them (the copy's name, its signature's layout
    and the decorators it has are no change)."""
    regions: list[tuple[int, int]] = []
    start = None
    for index, line in enumerate(changed.lines):
        if BANNER_OPEN.match(line) and start is None and re.search(r"(?i)modif", line):
            start = index
        elif BANNER_CLOSE.match(line) and start is not None:
            regions.append((start, index))
            start = None
    if start is not None:
        regions.append((start, len(changed.lines)))
    if not regions:
        return [], False

    def inside(i: int) -> bool:
        return any(s <= i <= e for s, e in regions)

    before, after = _pair(base, changed)
    a = [text for _i, text in before]
    b = [text for _i, text in after]
    where = [i for i, _text in after] + [len(changed.lines)]
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag == "delete":
            at = where[j1]
            if not (inside(at) or inside(at - 1)) and any(a[i1:i2]):
                out.append(f"line {changed.start + at}: removed {a[i1]!r}")
            continue
        for j in range(j1, j2):
            if b[j] and not inside(where[j]):
                out.append(f"line {changed.start + where[j]}: {b[j]}")
    return out, True


@dataclass(frozen=True)
class Drift:
    """The evidence for one entry: ``upstream_changes`` (kind/signature/decorators/body),
    ``upstream_diff`` (old -> new upstream source), ``downstream_diff`` (old upstream ->
    the plugin's replacement), ``outside_banners`` (downstream changes outside the banner
    regions, when the replacement uses banners), the suggested ``decision`` and its
    ``evidence`` sentences."""

    decision: str
    evidence: tuple[str, ...]
    upstream_changes: tuple[str, ...] = ()
    upstream_diff: str = ""
    downstream_diff: str = ""
    outside_banners: tuple[str, ...] = ()


class _Compared(TypedDict):
    """The fields of a :class:`Drift` that compare the three spans, whatever the decision."""

    upstream_changes: tuple[str, ...]
    upstream_diff: str
    downstream_diff: str
    outside_banners: tuple[str, ...]


def with_decision(drift: Drift, decision: str, reason: str) -> Drift:
    """``drift`` with ``decision`` and ``reason`` first in its evidence (a rule of
    :mod:`patchkeeper.runtime.judge.judge` that decides: the reason it gives comes first)."""
    evidence = (reason, *(e for e in drift.evidence if e != reason))
    return replace(drift, decision=decision, evidence=evidence)


def codes(
    entry: PatchEntry,
    old: Resolution,
    new: Resolution,
    trees: tuple[UpstreamTree, UpstreamTree],
    mine: Code | None,
) -> tuple[Code | None, Code | None, Code | None]:
    """The three spans :func:`decide` compares: the old and new upstream definitions and
    the plugin's replacement ``mine`` (read before the judging,
    :func:`patchkeeper.runtime.judge.replacement.replacement_codes`)."""
    if new.status != FOUND or old.status != FOUND or new.partial:
        return None, None, None
    if old.partial and entry.key is None:
        # the old release has the class but not the attribute: the class is no old
        # definition of the target, so there is none to compare the new one with
        return None, upstream_code(trees[1], new), mine
    return upstream_code(trees[0], old), upstream_code(trees[1], new), mine


def decide(
    entry: PatchEntry,
    old: Resolution,
    new: Resolution,
    old_code: Code | None,
    new_code: Code | None,
    mine: Code | None,
    registered: str = "",
) -> Drift:
    """Suggest a decision for ``entry`` (a :class:`~patchkeeper.runtime.model.PatchEntry`)
    from its resolutions in the old and new upstream and the spans of :func:`codes` (a
    function of these values only, so the audit may cache it). ``registered``: for a
    registry entry, how the new upstream registers its key through a call or a decorator
    (:meth:`patchkeeper.runtime.judge.registrations.Registration.described`), ``""`` when
    it does not: a key upstream has, though its registry's definition does not hold it."""
    if new.status == OUTSIDE:
        return Drift(NOT_AUDITED, (outside_upstream(entry.target),))
    if new.status != FOUND and old.status != FOUND:
        # moved or removed only when the name was at that path in the old release
        where = (
            "; the name is defined at " + ", ".join(new.candidates)
            if new.candidates
            else "; no definition of the name anywhere in the new upstream"
        )
        return Drift(LOOK, (f"{entry.target} is not at that path in either release{where}",))
    if new.status != FOUND:
        where = (
            "; " + now_at(new.candidates)
            if new.candidates
            else "; no definition of the name anywhere in the new upstream"
        )
        return Drift(LOOK, (f"{entry.target} is {new.status} in the new upstream{where}",))
    if old.status != FOUND:
        return Drift(LOOK, (absent_before(entry.target, old, new),))
    if new.partial and new.definition is not None and new.definition.kind == "value":
        # A value (an instance such as a module-level counter) has attributes its class
        # declares: the lookup does not follow them, so it cannot say upstream lacks one.
        return Drift(
            RETAIN,
            (
                f"{new.location} is a value upstream binds (line {new.line}), not a class or "
                f"a module: its attribute {new.partial} is the instance's state, not followed "
                "statically; nothing upstream to compare",
            ),
        )
    if new.partial:
        return Drift(
            RETAIN,
            (
                f"{new.partial} is not defined by upstream under {new.location} "
                "in the new version: an attribute the plugin adds or a generated "
                "one; nothing upstream to compare",
            ),
        )
    if old.partial and old_code is None and new_code is not None:
        # no old definition under the class the old release has (:func:`codes`)
        mine_node, new_node = (mine.parsed if mine else None), new_code.parsed
        if mine_node is not None and new_node is not None and same_ast(mine_node, new_node):
            return Drift(REMOVE, (EQUALS_NEW,))
        return Drift(LOOK, (absent_before(entry.target, old, new),))
    if old_code is None or new_code is None:
        return Drift(RETAIN, (f"{new.location} is a module; it exists in both versions",))
    old_node = new_node = None
    if old_code.text == new_code.text:
        changes: list[str] = []  # the same source: the same AST, signature and decorators
    else:
        old_node, new_node = old_code.parsed, new_code.parsed
        changes = signature_changes(old_node, new_node) if old_node and new_node else []
        if not (old_node and new_node and same_ast(old_node, new_node)):
            changes.append("body")
    diff = unified(old_code, new_code) if changes else ""
    downstream = unified(old_code, mine) if mine else ""
    # A wrapper calls the original and a plugin class of another origin replaces it: neither
    # is a copy whose lines say what upstream change it missed.
    copied = mine is not None and entry.mechanism.value != "wrapper" and is_copy(old_code, mine)
    banners, has_banners = outside_banners(old_code, mine) if mine and copied else ([], False)
    evidence: list[str] = []
    if has_banners:
        evidence.append(
            "the replacement's code outside its Modification banners equals the old upstream"
            if not banners
            else f"{len(banners)} change(s) outside the Modification banners"
        )
    common: _Compared = {
        "upstream_changes": tuple(changes),
        "upstream_diff": diff,
        "downstream_diff": downstream,
        "outside_banners": tuple(banners),
    }
    if entry.key is not None:
        source = "".join(new_code.lines)
        key = entry.key.strip("'\"")
        has = f"the new upstream {new.location} already has the key {entry.key}"
        if re.search(rf"['\"]{re.escape(key)}['\"]", source):
            return Drift(REMOVE, (has, *evidence), **common)
        if registered:
            return Drift(REMOVE, (f"{has}: {registered}", *evidence), **common)
        if entry.replacement == "<removed>" and not re.search(
            rf"['\"]{re.escape(key)}['\"]", "".join(old_code.lines)
        ):
            return Drift(
                RETAIN,
                (
                    f"{KEY_IN_NEITHER} {entry.key} ({new.location}): the plugin deletes an "
                    "item put there at run time (its own registration, a cache filled on "
                    "first use), which the upgrade does not change",
                    *evidence,
                ),
                **common,
            )
        return Drift(
            RETAIN,
            (
                f"the new upstream {new.location} has no key {entry.key}: the "
                "registration is still needed",
                *evidence,
            ),
            **common,
        )
    if not changes:
        return Drift(
            RETAIN,
            (
                f"upstream {new.location} is unchanged from the old version "
                "(AST without docstrings, signature, decorators)",
                *evidence,
            ),
            **common,
        )
    if mine is not None and new_node is not None:
        mine_node = mine.parsed
        if mine_node is not None and same_ast(mine_node, new_node):
            return Drift(
                REMOVE,
                (EQUALS_NEW, *evidence),
                **common,
            )
        added = added_lines(old_code, mine) if copied else []
        new_lines = {text for _i, text in compared_lines(new_code, decorators=mine.decorators)}
        if added and all(line in new_lines for line in added):
            return Drift(REMOVE, (all_added_upstream(added), *evidence), **common)
    binding = call_changes(old_node, new_node, tuple(changes))
    dropped = (
        dropped_literals(old_code.parsed, new_code.parsed, mine.parsed) if mine is not None else []
    )
    if entry.mechanism.value == "wrapper" and dropped and not any_signature(binding):
        listed = ", ".join(repr(x) for x in dropped[:3])
        return Drift(
            UPDATE,
            (
                f"upstream {new.location} changed ({', '.join(changes)}) and the wrapper, "
                f"which calls the original, names {listed}, a string the old upstream body "
                "held and the new one no longer does: the wrapper works on a value upstream "
                "stopped producing or passing there; read it against upstream's change",
                *evidence,
            ),
            **common,
        )
    if entry.mechanism.value == "wrapper" and not any_signature(binding):
        return Drift(
            RETAIN,
            (
                f"upstream {new.location} changed ({', '.join(changes)}) but the "
                "wrapper calls the original and the signature is the same"
                + (" (its annotations aside)" if any_signature(changes) else ""),
                *evidence,
            ),
            **common,
        )
    return Drift(
        UPDATE,
        (
            f"upstream {new.location} changed: {', '.join(changes)}; the "
            "downstream change is not in the new upstream",
            *evidence,
        ),
        **common,
    )
