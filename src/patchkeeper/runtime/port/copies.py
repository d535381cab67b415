"""A full-replacement copy merged with the upstream change: a three-way merge of the copy
with the old and new upstream definitions (``git merge-file``), per entry, with what keeps it
from being merged (a copy behind a version gate, one that already has the change, a subclass
that extends upstream's methods, a wrapper that calls the original, an upstream definition
that did not change) and what a clean merge still lacks (an earlier upstream change the copy
missed: *clean but behind*).
"""

from __future__ import annotations

import ast
import re
import tempfile
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any

from patchkeeper.port.merge import Labels, merge_file
from patchkeeper.runtime.inventory.plugin import PluginTree
from patchkeeper.runtime.inventory.unparsed import conflict_line
from patchkeeper.runtime.judge.drift import Code, codes, is_copy
from patchkeeper.runtime.judge.replacement import plugin_code
from patchkeeper.runtime.judge.runtime_audit import AuditedEntry, RuntimeAudit
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.port.file_edits import Edits
from patchkeeper.runtime.port.layoutmerge import has_change, repeats, settle
from patchkeeper.runtime.port.overrides import extending_methods, subclass_pieces
from patchkeeper.runtime.port.renames import (
    module_aliases,
    qualified_names,
    qualify,
    rename,
    renamed_parameters,
)
from patchkeeper.runtime.port.results import (
    BEHIND,
    CONFLICT,
    GATE_CUT,
    LEFT,
    MERGED,
    NOTHING,
    PortedEntry,
)
from patchkeeper.runtime.port.wrappers import calls_original
from patchkeeper.runtime.syntax.definitions import definition_at
from patchkeeper.runtime.syntax.gates import release_label


def _reindent(text: str, indent: str) -> str:
    return textwrap.indent(textwrap.dedent(text), indent, lambda line: bool(line.strip()))


def without_decorators(code: Code) -> str:
    """The definition's text from its ``def``/``class`` line on (the plugin's copy is
    compared without the decorators above it, the patch decorator among them)."""
    node = code.node()
    if node is None:
        return code.text
    return "".join(code.text.splitlines(True)[node.lineno - 1 :])


_HEADER = re.compile(r"^(\s*(?:async\s+)?(?:def|class)\s+)(\w+)")


def _named(text: str, ours_first: str) -> str:
    """``text`` with its ``def``/``class`` name replaced by the copy's (the plugin often
    names its copy differently: the name is not an upstream change to merge)."""
    mine = _HEADER.match(ours_first)
    if mine is None:
        return text
    return _HEADER.sub(lambda m: m.group(1) + mine.group(2), text, count=1)


def merge_copy(
    old: Code,
    new: Code,
    mine_lines: list[str],
    labels: Labels,
    modules: frozenset[str] = frozenset(),
) -> tuple[str, int]:
    """Three-way merge of a full-replacement copy (``mine_lines``: its source lines, with
    their indentation) with the upstream change from ``old`` to ``new``; returns ``(merged
    text in the copy's indentation, number of conflicts left)``: upstream's free names the
    copy writes behind their module (one of ``modules``: the names the copy's file binds to
    upstream's module of the definition) are written so in both upstream sides
    (:func:`~patchkeeper.runtime.port.renames.qualified_names`), a parameter upstream
    renamed is renamed in the base and the copy first
    (:func:`~patchkeeper.runtime.port.renames.renamed_parameters`), and the conflict regions that
    differ only in layout are settled (:func:`~patchkeeper.runtime.port.layoutmerge.settle`)."""
    first = next((x for x in mine_lines if x.strip()), "")
    indent = first[: len(first) - len(first.lstrip())]
    ours = "".join(mine_lines)
    # Upstream's module-level names the copy reaches through their module (it lives in
    # another module): written so in both upstream sides, so only upstream's change merges.
    qualified = qualified_names(without_decorators(old), ours, modules, without_decorators(new))
    base = _named(_reindent(qualify(without_decorators(old), qualified), indent), first)
    theirs = _named(_reindent(qualify(without_decorators(new), qualified), indent), first)
    # A parameter upstream renamed: renamed in the base and the copy first, so the merge
    # carries the copy's own edits of the lines naming it over with the new name.
    renames = renamed_parameters(base, theirs, ours)
    base, ours = rename(base, renames), rename(ours, renames)
    with tempfile.TemporaryDirectory(prefix="patchkeeper-runtime-port-") as scratch:
        merged, conflicts = merge_file(
            base.encode(), ours.encode(), theirs.encode(), labels, Path(scratch)
        )
    text = merged.decode("utf-8", "replace")
    if not conflicts:
        return text, 0
    return settle(text, (labels.new, labels.old, labels.patch))


def merge_entry(
    item: AuditedEntry,
    result: RuntimeAudit,
    trees: tuple[UpstreamTree, UpstreamTree],
    tree: PluginTree,
    edits: Edits,
) -> PortedEntry:
    """``runtime port``'s merge of one entry's full-replacement copy (``item``, an *update*
    of the audit ``result``) with its upstream change, queued in ``edits``; the entry as
    ported (merged, conflict, left with the reason)."""
    entry, drift = item.entry, item.drift
    base = PortedEntry(entry.file, entry.line, entry.target, drift.decision, LEFT, "")
    old_code, new_code, mine = codes(
        entry, item.old, item.new, trees, plugin_code(tree, entry.replacement)
    )
    specs = (result.old, result.new)
    versions = [release_label(s, t.root) for s, t in zip(specs, trees, strict=True)]
    if old_code is None and new_code is not None and mine is not None and item.old.partial:
        # the old release has the class but not this member: no base for a merge
        detail = (
            f"{entry.target} is new upstream ({item.old.location} at {versions[0]} has no "
            f"{item.old.partial}): there is no old definition to merge from; read the "
            f"replacement at {mine.name}:{mine.start} against upstream's definition at "
            f"{versions[1]} by hand"
        )
        return _replace(base, detail=detail)
    if old_code is None or new_code is None or mine is None:
        reason = "the replacement is not a function or class of the plugin: update it by hand"
        return _replace(base, detail=unreadable_copy(entry.replacement, tree) or reason)
    labels = Labels(f"upstream {versions[1]}", f"upstream {versions[0]}", "plugin")
    subclass = subclass_pieces(entry, old_code, new_code, mine, tree) is not None
    if not subclass and not is_copy(old_code, mine):
        detail = (
            f"the replacement at {mine.name}:{mine.start} is not a copy of upstream's "
            f"{entry.target} (another kind of definition, or a class that neither derives "
            "from it nor keeps half its lines): nothing to merge; read it against upstream's "
            "change by hand"
        )
        return _replace(base, detail=detail)
    original = calls_original(entry, mine, tree)
    if original:
        changes = "; ".join(drift.upstream_changes) or "none"
        detail = (
            f"the replacement at {mine.name}:{mine.start} calls the original ({original}): a "
            "wrapper, not a copy; upstream's body is not merged into it; check its call "
            f"against upstream's change by hand ({changes})"
        )
        return _replace(base, detail=detail)
    if not drift.upstream_changes and old_code.text == new_code.text:
        detail = f"upstream left {entry.target} unchanged from {versions[0]} to {versions[1]}"
        if not drift.outside_banners:
            return _replace(base, action=NOTHING, detail=f"{detail}: nothing to merge")
        return _replace(
            base, detail=f"{detail}, nothing to merge; {_behind(drift.outside_banners)}"
        )
    written, copied = mine.start, mine
    relocated = edits.relocate(mine)
    if relocated is None:
        reason = "a version gate cut left no single copy of this name: merge it by hand"
        return _replace(base, detail=reason)
    mine = relocated
    key = (mine.name, mine.start, old_code.text, new_code.text)
    modules = module_aliases("".join(edits.original(mine.name)), item.old.module)
    if key in edits.merges:
        # Two targets bound to one copy, with the same upstream change: merged once.
        first = edits.merges[key]
        detail = f"merged with {first.target} (line {first.line}), the same copy: {first.detail}"
        return _replace(
            first,
            file=entry.file,
            line=entry.line,
            target=entry.target,
            decision=drift.decision,
            conflicts=0,
            detail=detail,
        )
    if edits.line(copied.name, copied.start) is None:
        # The copy sits behind a gate that changes at the new release: the definition
        # of its name left once the gate is cut is the plugin's own version for the
        # releases after the old one (it already follows upstream).
        detail = (
            f"the copy at {mine.name}:{written} sits behind a version gate: the plugin's "
            f"definition for the new release (line {mine.start} once cut) is kept, not merged"
        )
        done = _replace(base, action=GATE_CUT, detail=detail)
    elif gated := edits.gates_within(copied):
        where = (edits, tree, modules)
        adapted = _merge_adapted(entry, base, (old_code, new_code), mine, written, labels, where)
        if adapted is not None:
            done = adapted
        else:
            # The copy holds its own branch for the new release, adapted from upstream
            # code newer than the old release: merged from the old release, it conflicts
            # or gets the change a second time; the cut is the update.
            lines = ", ".join(str(n) for n in gated)
            detail = (
                f"the copy at {mine.name}:{written} holds a version gate that changes at the "
                f"new release (line {lines}): its branch for the new release is kept as the "
                "cut left it (merged from the old release, it conflicts or repeats lines)"
            )
            done = _replace(base, action=GATE_CUT, detail=detail)
    elif edits.line(entry.file, entry.line) is None:
        # The patch statement itself sits in a gate that changes at the new release: the
        # replacement it binds was written for the new release (or is dead there).
        detail = (
            f"the patch statement at {entry.file}:{entry.line} sits in a version gate that "
            "changes at the new release: the cut decides it; the copy is not merged"
        )
        done = _replace(base, action=GATE_CUT, detail=detail)
    else:
        where = (edits, tree, modules)
        done = _merge_pieces(entry, base, old_code, new_code, mine, written, labels, where)
        done = _with_decorators(done, old_code, new_code, mine, edits)
        if done.action == MERGED and drift.outside_banners:
            what = done.detail.removesuffix(": clean")
            detail = f"{what}: clean but behind: {_behind(drift.outside_banners)}"
            done = _replace(done, action=BEHIND, detail=detail)
    edits.merges[key] = done
    return done


def _decorator_sources(code: Code) -> list[tuple[str, str]]:
    """``(ast.unparse, source text)`` of each decorator of a definition's span."""
    node = code.parsed
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    out = []
    for decorator in node.decorator_list:
        source = ast.get_source_segment(code.text, decorator) or ast.unparse(decorator)
        out.append((ast.unparse(decorator), source))
    return out


def _with_decorators(
    done: PortedEntry, old_code: Code, new_code: Code, mine: Code, edits: Edits
) -> PortedEntry:
    """``done`` (the merge of the copy's body, which starts at its ``def``) with upstream's
    change of the definition's decorators: the copy's decorators are part of the copy.
    A decorator upstream changed (``@triton.jit`` -> ``@triton.jit(do_not_specialize=...)``)
    that the copy carries as the old release wrote it is rewritten as the new release
    writes it; one the copy already carries as the new release writes it needs nothing;
    any other change of the decorators is left by hand. Unchanged decorators: ``done``."""
    old, new = _decorator_sources(old_code), _decorator_sources(new_code)
    if [u for u, _s in old] == [u for u, _s in new] or done.action not in (MERGED, NOTHING):
        return done
    have = set(mine.decorators)
    changed = [(o, n) for o, n in zip(old, new, strict=False) if o[0] != n[0]]
    lead = (
        f"upstream changed the decorators of the copy at {mine.name}:{mine.start} "
        f"({', '.join('@' + u for u, _s in old)} -> {', '.join('@' + u for u, _s in new)})"
    )
    if len(old) == len(new) and all(n[0] in have for _o, n in changed):
        return done  # the copy already carries the new decorators
    if len(old) != len(new) or not all(o[0] in have for o, _n in changed):
        return _replace(done, action=LEFT, detail=f"{lead}: update the copy's by hand")
    where = _copy_decorators(edits, mine)
    if where is None:
        return _replace(done, action=LEFT, detail=f"{lead}: update the copy's by hand")
    for o, n in changed:
        first, last, indent = where[o[0]]
        if not edits.replace(mine.name, first, last, indent + "@" + n[1] + "\n"):
            return _replace(done, action=LEFT, detail=f"{lead}: update the copy's by hand")
    shown = ", ".join(f"@{o[0]} -> @{n[0]}" for o, n in changed)
    if done.action == NOTHING:
        detail = f"decorators of {mine.name}:{mine.start} rewritten as upstream's: {shown}"
        return _replace(done, action=MERGED, detail=detail)
    return _replace(done, detail=f"{done.detail}; decorators rewritten as upstream's: {shown}")


def _copy_decorators(edits: Edits, mine: Code) -> dict[str, tuple[int, int, str]] | None:
    """The copy's decorators in :meth:`Edits.original`'s lines: ``ast.unparse`` -> (first
    line, last line, indentation); ``None`` when its definition is not found there."""
    lines = edits.original(mine.name)
    node = definition_at(lines, mine.start)
    if node is None:
        return None
    out = {}
    for decorator in node.decorator_list:
        text = lines[decorator.lineno - 1]
        indent = text[: len(text) - len(text.lstrip())]
        end = decorator.end_lineno or decorator.lineno
        out[ast.unparse(decorator)] = (decorator.lineno, end, indent)
    return out


def _behind(outside: tuple[str, ...]) -> str:
    """The sentence of a copy that differs from the old upstream outside its Modification
    banners (``outside``: ``"line N: code"`` each): it lacks an earlier upstream change."""
    return (
        f"the copy differs from the old upstream outside its Modification banners at "
        f"{len(outside)} line(s) ({outside[0]}): an earlier upstream change it lacks; port "
        "that by hand"
    )


#: ``(edits, plugin tree, the file's names of upstream's module)``.
_Where = tuple[Edits, PluginTree, frozenset[str]]


def _merge_adapted(
    entry: PatchEntry,
    base: PortedEntry,
    codes_: tuple[Code, Code],
    mine: Code,
    written: int,
    labels: Labels,
    where: _Where,
) -> PortedEntry | None:
    """Merge a copy that holds a version gate the new release decides (its gates cut):
    only when every piece merges clean and repeats no logical line
    (:func:`~patchkeeper.runtime.port.layoutmerge.repeats`: the copy already had that part of
    the change); ``None`` otherwise, nothing queued. ``where``: ``(edits, plugin tree, the
    file's names of upstream's module)``."""
    edits, tree, modules = where
    old_code, new_code = codes_
    pieces = subclass_pieces(entry, old_code, new_code, mine, tree)
    if pieces is None:
        pieces = [(old_code, new_code, mine.start, mine.start + len(mine.lines) - 1)]
    if not pieces:
        return None
    done = []
    for old_piece, new_piece, start, end in pieces:
        lines = edits.original(mine.name)[start - 1 : end]
        merged, found = merge_copy(old_piece, new_piece, lines, labels, modules)
        if found or repeats(merged.splitlines(True), lines, list(new_piece.lines)):
            return None
        if merged != "".join(lines):
            done.append((start, end, merged))
    if not done:
        return None
    for start, end, merged in done:
        if not edits.replace(mine.name, start, end, merged):
            return _replace(base, detail="another entry already rewrites these lines")
    what = f"three-way merge of {mine.name}:{written}"
    if len(pieces) > 1 or pieces[0][2] != mine.start:
        what += f" ({len(pieces)} overridden method(s))"
    detail = f"{what}, its version gates cut: clean"
    return _replace(base, action=MERGED, detail=detail)


def _merge_pieces(
    entry: PatchEntry,
    base: PortedEntry,
    old_code: Code,
    new_code: Code,
    mine: Code,
    written: int,
    labels: Labels,
    where: _Where,
) -> PortedEntry:
    """Merge the copy ``mine`` (or the methods of it that a subclass overrides); ``where``
    is ``(edits, plugin tree, the file's names of upstream's module)``."""
    edits, tree, modules = where
    pieces = subclass_pieces(entry, old_code, new_code, mine, tree)
    if pieces is None:
        pieces = [(old_code, new_code, mine.start, mine.start + len(mine.lines) - 1)]
    extending = extending_methods(old_code, new_code, mine)
    names = ", ".join(extending)
    missing = ", ".join(name for name, lacks in extending.items() if lacks)
    by_hand = (
        f"the overridden method(s) {missing} call upstream's through super(), whose new "
        "signature has parameters they do not take: update their parameters by hand"
    )
    if not pieces and missing:
        return _replace(base, detail=by_hand)
    if not pieces and extending:
        detail = (
            f"the overridden method(s) {names} that changed upstream call upstream's through "
            "super(): they inherit the change, nothing to merge"
        )
        return _replace(base, action=NOTHING, detail=detail)
    if not pieces:
        return _replace(base, detail="no method the subclass overrides changed upstream")
    conflicts, had = 0, 0
    for old_piece, new_piece, start, end in pieces:
        lines = edits.original(mine.name)[start - 1 : end]
        if has_change(list(old_piece.lines), list(new_piece.lines), lines):
            had += 1
            continue
        merged, found = merge_copy(old_piece, new_piece, lines, labels, modules)
        if merged == "".join(lines):
            had += 1
            continue  # the merge gives the copy back: it already has this change
        if not edits.replace(mine.name, start, end, merged):
            return _replace(base, detail="another entry already rewrites these lines")
        conflicts += found
    what = f"three-way merge of {mine.name}:{written}"
    if len(pieces) > 1 or pieces[0][2] != mine.start:
        what += f" ({len(pieces)} overridden method(s))"
    if conflicts:
        tail = f"; {by_hand}" if missing else ""
        return _replace(
            base,
            action=CONFLICT,
            detail=f"{what}: {conflicts} conflict(s) marked{tail}",
            conflicts=conflicts,
        )
    if missing:
        state = "nothing to merge" if had == len(pieces) else "clean"
        return _replace(base, detail=f"{what}: {state}; {by_hand}")
    if had == len(pieces):
        detail = f"the copy at {mine.name}:{written} already has the upstream change"
        return _replace(base, action=NOTHING, detail=detail)
    return _replace(base, action=MERGED, detail=f"{what}: clean")


def unreadable_copy(replacement: str, tree: PluginTree) -> str:
    """Why the replacement (``module:qualname``) could not be read when its module holds
    the conflict markers of an earlier ``--write`` (a copy outside the patch directory,
    e.g. ``plugin/ops/x.py``); ``""`` otherwise."""
    module = replacement.partition(":")[0]
    found = tree.module_file(module) if module else None
    if found is None:
        return ""
    line = conflict_line(found[0])
    if not line:
        return ""
    where = f"{tree.relative(found[0])}:{line}"
    return f"the copy's file has an unresolved conflict region at {where}: resolve it first"


def _replace(entry: PortedEntry, **changes: Any) -> PortedEntry:
    return replace(entry, **changes)
