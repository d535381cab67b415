"""Findings of the audit across entries and files.

- *duplicate*: two entries in two files patch the same target (the later import wins, and
  the other patch is silently dead or wraps the first; wrappers alone chain, all running);
- *breaks-at-import* / *breaks-when-called*: an upstream name the plugin imports or
  references (``from vllm.x import y``, ``vllm.x.y`` attribute chains, base classes, helpers
  a copied body calls) that the old release defines and the new one does not define there;
  where it went when the name is defined elsewhere (a renamed private helper is searched by
  its name too);
- *guarded-gone*: such a name used in the body of a ``try`` whose ``except`` catches the
  error its absence raises (``try: from vllm.x import y`` / ``except ImportError:
  return``): the plugin does not break, the ``except`` runs instead, and what the rest of
  the ``try`` body would have patched is silently no longer patched;
- *version-gate*: every version gate of the patch directory
  (:mod:`patchkeeper.runtime.syntax.gates`), the branch live at the new release, and the edit.

Only the patch directory is read, as ASTs; upstream is read through
:class:`~patchkeeper.runtime.lookup.upstream_tree.UpstreamTree` (never imported).
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections import defaultdict
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import NamedTuple

from patchkeeper.errors import Finding
from patchkeeper.runtime.inventory.file_facts import FileFacts
from patchkeeper.runtime.inventory.layout import PatchFile
from patchkeeper.runtime.judge.unparsed_upstream import (
    UPSTREAM_UNPARSED,
    unparsed_fact,
    unparsed_fix,
)
from patchkeeper.runtime.lookup.resolve import (
    FOUND,
    resolve_all,
    target_modules,
    unparsed_module,
)
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import Mechanism, PatchEntry
from patchkeeper.runtime.store.cache import SummaryCache
from patchkeeper.runtime.syntax.gates import Gate, evaluate, gate_edit, versions_named
from patchkeeper.runtime.syntax.parsing import parse_file
from patchkeeper.runtime.syntax.references import (
    PatchFileFacts,
    cut_off,
    for_roots,
    patches_cut_off,
    tree_facts,
)
from patchkeeper.runtime.syntax.unparse import negated

#: The name the cross-checks' findings and gates are kept under in the audit's memory.
CROSSCHECK = "#crosscheck"


def duplicates(entries: list[PatchEntry]) -> list[Finding]:
    """Targets (with the same registry key) patched from two or more files: a ``duplicate``
    finding at the first, its message beginning with the target.

    A swap restored in the ``finally`` of its ``try`` (``temporary``) replaces the target
    only while the ``try`` runs and competes with no other patch: it is left out. When every
    patch of the target is a wrapper (it calls the original it read when installed), none
    replaces another: each wraps the one installed before it and all of them run, so the
    finding says they chain in import order rather than that the last one wins and only
    one should be kept.

    Only patches that can be active at once count (:func:`exclusive`): one in the body of an
    ``if`` and one in its ``else``, or under two pins on different releases, never both
    run, and neither replaces the other."""
    by_target: dict[tuple[str, str | None], list[PatchEntry]] = defaultdict(list)
    for entry in entries:
        if not entry.temporary:
            by_target[(entry.target, entry.key)].append(entry)
    out = []
    negations: dict[str, str] = {}  # each condition's text parsed once, for every pair
    for (target, key), every in sorted(by_target.items(), key=lambda x: (x[0][0], x[0][1] or "")):
        met = [conditions_met(e, negations) for e in every]
        group = [
            e
            for e, mine in zip(every, met)
            if any(
                o.file != e.file and not exclusive(mine, theirs) for o, theirs in zip(every, met)
            )
        ]
        files = sorted({e.file for e in group})
        if len(files) < 2:
            continue
        first = min(group, key=lambda e: (e.file, e.line))
        where = ", ".join(f"{e.file}:{e.line}" for e in sorted(group, key=lambda e: e.file))
        label = f"{target}[{key}]" if key else target
        if all(e.mechanism is Mechanism.WRAPPER for e in group):
            message = (
                f"{label} is wrapped in {len(files)} files ({where}): each wrapper calls the "
                "one installed before it, so all of them run, the one imported last first"
            )
            hint = "check that the import order runs them in the order wanted"
        else:
            message = (
                f"{label} is patched in {len(files)} files ({where}): the one imported last wins"
            )
            hint = "keep one"
        out.append(Finding("duplicate", first.file, first.line, message, hint))
    return out


#: A pin on one release: ``vllm_version_is("0.28.0")`` (true at that release alone).
_PINNED = re.compile(r"""^\w*version_is\((["'])([^"']+)\1\)$""")


class Met(NamedTuple):
    """The conditions a patch entry's activation met, as :func:`exclusive` compares them
    (:func:`conditions_met`)."""

    #: Each condition as ``(file, line, text, the text of its negation)``, in order.
    conditions: tuple[tuple[str, int, str, str], ...]
    #: ``(file, line) -> (text, negation)``, the last condition met at each place.
    places: dict[tuple[str, int], tuple[str, str]]
    #: The releases it is pinned to (``vllm_version_is("0.28.0")`` gives ``0.28.0``).
    pins: frozenset[str]


def conditions_met(entry: PatchEntry, negations: dict[str, str]) -> Met:
    """The conditions ``entry``'s activation met (:attr:`~patchkeeper.runtime.model.
    Activation.conditions`, on the chain the activation search kept), each negated once:
    ``negations`` (``text -> negation``, filled here) is shared by every entry compared."""
    found = entry.activation.conditions if entry.activation else ()
    conditions = []
    for condition in found:
        text = condition.text
        if text not in negations:
            negations[text] = negated(text)
        conditions.append((condition.file, condition.line, text, negations[text]))
    return Met(
        tuple(conditions),
        {(file, line): (text, negation) for file, line, text, negation in conditions},
        frozenset(m[2] for m in (_PINNED.match(c.text) for c in found) if m),
    )


def exclusive(one: Met, other: Met) -> bool:
    """Whether two patch entries, by the conditions they met (:func:`conditions_met`),
    never run both: one met an ``if``'s test and the other its negation (the ``else``, or
    what follows an early exit) at the same place, or each met a pin on another release
    (``vllm_version_is("0.28.0")``, ``vllm_version_is("0.29.0")``)."""
    for file, line, text, negation in other.conditions:
        mine = one.places.get((file, line))
        if mine is None:
            continue
        # an ``else`` is written ``not (TEST)``, or bare when the test is a ``not``
        if text in (mine[1], f"not ({mine[0]})") or mine[0] in (negation, f"not ({text})"):
            return True
    return any(a != b for a in one.pins for b in other.pins)


@dataclass(frozen=True)
class _Reference:
    dotted: str
    file: str
    line: int
    at_import: bool
    guard: int


def file_facts(job: tuple[str, str, bool, tuple[str, ...]]) -> PatchFileFacts:
    """The cross-check facts of one patch file (:func:`~patchkeeper.runtime.syntax.
    references.tree_facts`), ``job`` being ``(path, module, is_package, upstream roots)``:
    one parse for both :func:`broken_references` and :func:`version_gates` (no facts for a
    file that does not parse)."""
    path, module, is_package, roots = job
    try:
        with open(path, "rb") as handle:
            tree = parse_file(handle.read(), path)
    except (SyntaxError, ValueError, OSError):
        return (), ()
    return tree_facts(tree, module, is_package, roots)


def read_patch_files(
    files: list[tuple[Path, str, str, bool]],
    roots: tuple[str, ...],
    known: dict[str, PatchFileFacts] | None = None,
) -> dict[str, PatchFileFacts]:
    """:func:`file_facts` of every file (``files``: ``(path, relative, module,
    is_package)``), by relative path, read on every core
    (:func:`patchkeeper.runtime.parallel.map_records`); a file ``known`` has (by relative
    path: the facts the plugin's scan read from its tree) is not read again."""
    import marshal

    from patchkeeper.runtime.parallel import map_records

    known = known or {}
    unread = [f for f in files if f[1] not in known]
    jobs = [(str(path), module, is_package, roots) for path, _rel, module, is_package in unread]
    sizes = [path.stat().st_size if path.is_file() else 0 for path, *_ in unread]
    facts = [marshal.loads(data) for _job, data in map_records(file_facts, jobs, sizes)]
    read = {relative: fact for (_path, relative, *_), fact in zip(unread, facts, strict=True)}
    return {rel: known[rel] if rel in known else read[rel] for _path, rel, *_ in files}


#: The codes of the findings that an upstream name the plugin uses is gone from the new
#: release where the plugin looks for it (:func:`broken_references`): the plugin breaks at
#: import or when the code runs, or a ``try`` catches the error.
GONE_NAME = ("breaks-at-import", "breaks-when-called", "guarded-gone")


def gone_name(finding: Finding) -> str:
    """The dotted upstream name a :data:`GONE_NAME` finding is about: its message starts with
    it (:func:`broken_references` writes ``NAME is gone from the new upstream: ...``)."""
    return finding.message.split(" ", 1)[0]


def broken_references(
    files: list[tuple[Path, str, str, bool]],
    trees: tuple[UpstreamTree, UpstreamTree],
    patched: set[str],
    facts: dict[str, PatchFileFacts] | None = None,
    patching: frozenset[tuple[str, int]] | None = None,
) -> list[Finding]:
    """Upstream names the plugin uses that the old release defines and the new one does
    not, a ``breaks-at-import`` or ``breaks-when-called`` finding each (``guarded-gone``
    for a use whose ``try`` catches the error: the code after it stops running), its
    message beginning with the name (``files``: ``(path, relative, module, is_package)``;
    ``patched``: targets the plugin itself installs, which need not exist upstream;
    ``facts``: the files' :func:`read_patch_files`, read here when not given;
    ``patching``: the ``(file, line)`` of every patch entry, when known: a guarded use
    whose failure stops none of them is said to lose no patch,
    :func:`~patchkeeper.runtime.syntax.references.cut_off`)."""
    old_tree, new_tree = trees
    if facts is None:
        facts = read_patch_files(files, tuple(new_tree.packages))
    references = [
        _Reference(dotted, relative, line, at_import, guard)
        for _path, relative, *_ in files
        for dotted, line, at_import, guard in facts[relative][0]
    ]
    wanted = sorted({r.dotted for r in references} - patched)
    new_tree.prefetch(target_modules(new_tree, wanted))  # parsed on every core
    new = resolve_all(new_tree, wanted, lambda _t: False)
    gone = [t for t in wanted if new[t].status != FOUND]
    # a name in a module of the new tree that cannot be parsed is unknown there, not gone
    unknown = {t: summary for t in gone if (summary := unparsed_module(new_tree, t)) is not None}
    gone = [t for t in gone if t not in unknown]
    old = resolve_all(old_tree, gone, lambda _t: False)
    existed = [t for t in gone if old[t].status == FOUND and not old[t].partial]
    where = resolve_all(new_tree, existed)
    paths = {relative: path for path, relative, *_ in files}
    parsed: dict[str, ast.AST | None] = {}

    def spans(ref: _Reference) -> tuple[tuple[int, int], ...]:
        """What stops running when the guarded use ``ref`` fails (:func:`cut_off`)."""
        if ref.file not in parsed:
            path = paths[ref.file]
            try:
                parsed[ref.file] = parse_file(path.read_bytes(), str(path))
            except (SyntaxError, ValueError, OSError):
                parsed[ref.file] = None
        tree = parsed[ref.file]
        return cut_off(tree, ref.line, ref.guard) if tree is not None else ()

    out = []
    # A guarded use does not hide one that breaks, nor a probe (a ``try`` whose failure
    # stops no patch) one whose failure stops patches.
    seen: set[tuple[str, str, str]] = set()
    for ref in references:
        if ref.dotted in unknown and (ref.dotted, ref.file, "") not in seen:
            seen.add((ref.dotted, ref.file, ""))
            fact = unparsed_fact(unknown[ref.dotted], "new", ref.dotted)
            out.append(Finding(UPSTREAM_UNPARSED, ref.file, ref.line, fact, unparsed_fix()))
            continue
        if ref.dotted not in where:
            continue
        probe = bool(ref.guard) and patching is not None
        probe = probe and not patches_cut_off(patching or frozenset(), ref.file, spans(ref))
        how = "" if not ref.guard else "probe" if probe else "guarded"
        if (ref.dotted, ref.file, how) in seen:
            continue
        seen.add((ref.dotted, ref.file, how))
        found = where[ref.dotted]
        moved = f"; now defined at {', '.join(found.candidates[:3])}" if found.candidates else ""
        if ref.guard:
            if probe:
                lost = (
                    "; it holds no patch, so only what it imports or defines is missing",
                    "drop the import if the plugin no longer needs it",
                )
            else:
                lost = (
                    " and what it patches is no longer patched",
                    "remove the patches this `try` guards if the new upstream no longer needs them",
                )
            out.append(
                Finding(
                    "guarded-gone",
                    ref.file,
                    ref.line,
                    f"{ref.dotted} is gone from the new upstream: the `except` at line "
                    f"{ref.guard} catches the error, so the rest of its `try` no longer runs"
                    f"{lost[0]}{moved}",
                    f"use the name where the new upstream defines it, or {lost[1]}",
                )
            )
            continue
        kind = "breaks-at-import" if ref.at_import else "breaks-when-called"
        when = "at import" if ref.at_import else "when the code using it runs"
        out.append(
            Finding(
                kind,
                ref.file,
                ref.line,
                f"{ref.dotted} is gone from the new upstream: the plugin breaks {when}{moved}",
            )
        )
    return sorted(out, key=lambda f: (f.path, f.line or 0, f.message))


def version_gates(
    files: list[tuple[Path, str, str, bool]],
    versions: tuple[str, str],
    facts: dict[str, PatchFileFacts] | None = None,
) -> tuple[Gate, ...]:
    """Every ``if`` of the patch directory whose test is a version gate decided at either
    release (``facts``: the files' :func:`read_patch_files`, read here when not given)."""
    if facts is None:
        facts = read_patch_files(files, ())
    gates = []
    for _path, relative, *_ in files:
        for line, test in facts[relative][1]:
            before, after = evaluate(test, versions[0]), evaluate(test, versions[1])
            if before is None and after is None:
                continue
            edit = gate_edit(test, before, after, versions[1])
            gates.append(Gate(relative, line, test, before, after, versions_named(test), edit))
    return tuple(sorted(gates, key=lambda g: (g.file, g.line)))


def _digest(path: Path) -> str:
    """The sha256 of a patch file's bytes; ``""`` for a file that cannot be read (listed as
    not read by the inventory, its facts empty)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def remembered_checks(
    store: SummaryCache,
    patch_files: tuple[tuple[PatchFile, FileFacts | None], ...],
    trees: tuple[UpstreamTree, UpstreamTree],
    patched: set[str],
    versions: tuple[str, str],
    patching: frozenset[tuple[str, int]] | None = None,
) -> tuple[list[Finding], tuple[Gate, ...]]:
    """:func:`broken_references` and :func:`version_gates`, remembered in ``store`` (the
    audit's memory, :class:`~patchkeeper.runtime.judge.memory.AuditMemory`: per pair of
    tree roots) under a digest of the patch files' bytes, the patched targets, the places
    of the patches (``patching``, as for :func:`broken_references`) and the versions.
    ``patch_files``: each file of the patch directory with the facts the plugin's scan
    read of it
    (:attr:`~patchkeeper.runtime.inventory.plugin.PluginReading.patch_files`); a file
    without them (or scanned under another path) is parsed here."""
    files: list[tuple[Path, str, str, bool]] = [patch for patch, _facts in patch_files]
    material = (
        versions,
        sorted(patched),
        sorted(patching) if patching is not None else None,
        [(relative, _digest(path)) for path, relative, *_ in files],
    )
    digest = hashlib.sha256(repr(material).encode()).hexdigest()
    cached = store.get_value(CROSSCHECK, digest)
    if cached is not None:
        return [Finding(*f) for f in cached[0]], tuple(Gate(*g) for g in cached[1])
    roots = tuple(trees[1].packages)
    known: dict[str, PatchFileFacts] = {}
    for patch, scanned in patch_files:
        if (
            scanned is not None
            and scanned.file == patch.relative
            and scanned.references is not None
        ):
            known[patch.relative] = for_roots(scanned.references, roots)
    facts = read_patch_files(files, roots, known)  # the others parsed, one parse per file
    broken = broken_references(files, trees, patched, facts, patching)
    gates = version_gates(files, versions, facts)
    store.put_value(CROSSCHECK, digest, ([astuple(f) for f in broken], [astuple(g) for g in gates]))
    return broken, gates
