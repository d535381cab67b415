"""The audit proper: every entry of the inventory resolved in both upstream trees, compared,
judged and cross-checked, with what the audit's memory remembers taken from it and what was
computed kept in it."""

from __future__ import annotations

import ast
import pickle
from collections import Counter
from dataclasses import astuple, replace
from pathlib import Path

from patchkeeper.progress import track
from patchkeeper.runtime.inventory.module_constants import is_computed_key
from patchkeeper.runtime.inventory.plugin import PluginReading
from patchkeeper.runtime.inventory.unparsed import unlisted
from patchkeeper.runtime.judge.backport_landed import introduction
from patchkeeper.runtime.judge.bound_keywords import binds_keywords, bound_keywords_decision
from patchkeeper.runtime.judge.companions import companions
from patchkeeper.runtime.judge.computed_keys import computed_key_decision
from patchkeeper.runtime.judge.constant_values import overriding_value
from patchkeeper.runtime.judge.crosscheck import duplicates, remembered_checks
from patchkeeper.runtime.judge.drift import (
    LOOK,
    REMOVE,
    RETAIN,
    Code,
    Drift,
    codes,
    upstream_code,
)
from patchkeeper.runtime.judge.dropped_imports import covered_elsewhere, unnamed_there
from patchkeeper.runtime.judge.entry_memory import (
    Key,
    recalled_drift,
    recalled_judgement,
)
from patchkeeper.runtime.judge.facts import entry_facts
from patchkeeper.runtime.judge.feature_probes import dead_probes, probe_tables
from patchkeeper.runtime.judge.gated_binding import gated_bindings
from patchkeeper.runtime.judge.import_fallback import import_fallback
from patchkeeper.runtime.judge.judge import Case, Pending, judge_pending, settle
from patchkeeper.runtime.judge.landed import BACKPORT, landed_features, spread
from patchkeeper.runtime.judge.memory import AuditMemory
from patchkeeper.runtime.judge.missing import (
    NEVER_APPLIES,
    absent_owner,
    renamed_names,
    renamed_to,
    same_release,
)
from patchkeeper.runtime.judge.newer_imports import newer_imports
from patchkeeper.runtime.judge.opened_guards import opened_guards, opened_look
from patchkeeper.runtime.judge.registrations import registered_key
from patchkeeper.runtime.judge.replacement import replacement_codes
from patchkeeper.runtime.judge.restores import restores
from patchkeeper.runtime.judge.results import AuditedEntry, RuntimeAudit
from patchkeeper.runtime.judge.shared_copies import shared_updates
from patchkeeper.runtime.judge.stale import stale_bindings
from patchkeeper.runtime.judge.unparsed_upstream import unparsed_look
from patchkeeper.runtime.judge.widened_tests import widened, widening
from patchkeeper.runtime.lookup.resolve import (
    FOUND,
    MOVED,
    Resolution,
    narrowed,
    resolve_all,
    target_modules,
)
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import Inventory, PatchEntry
from patchkeeper.runtime.parallel import map_forked
from patchkeeper.runtime.settings import RuntimeSettings
from patchkeeper.runtime.store.plugin_stores import RESULT
from patchkeeper.runtime.syntax.gates import release_label
from patchkeeper.runtime.syntax.parsing import (
    ParsedFiles,
    parse_path,
    plugin_file_tree,
    plugin_tree_kept,
)


def judge_entries(
    settings: RuntimeSettings,
    inventory: Inventory,
    reading: PluginReading,
    specs: tuple[str, str],
    trees: tuple[UpstreamTree, UpstreamTree],
    memory: AuditMemory,
    versions: tuple[str, str],
) -> RuntimeAudit:
    """The audit of the ``inventory``'s entries from the tree ``specs[0]`` names to the one
    ``specs[1]`` names: each target resolved in both ``trees``, compared and judged, what
    ``memory`` remembers taken from it (:mod:`patchkeeper.runtime.judge.entry_memory`);
    what was decided and judged now, and the result under :attr:`AuditMemory.key`, are
    written into its store, which is saved with both trees' stores. ``reading``: what is
    read of the plugin besides its inventory; ``versions``: the two releases."""
    old, new = specs
    old_tree, new_tree = trees
    entries = list(inventory.entries)
    audited = []
    # What needs no upstream lookup is read first, while the workers still summarize the
    # modules the lookups read and index the trees: the files' headers, the version gates
    # that bind a replacement, and the spans of the replacements in the files whose parse
    # is kept (the others are read below, of those the lookups leave compared only).
    headers: dict[str, str] = {}
    for entry in entries:
        if entry.file not in headers:
            headers[entry.file] = file_header(settings.root / entry.file)
    gated = gated_bindings(reading.module_files, entries, versions[1], versions[0])
    sources = reading.replacements
    kept = {r: found for r, found in sources.items() if plugin_tree_kept(found.file)}
    located = replacement_codes(kept, forget=False)
    for tree in trees:  # the modules every lookup starts in, parsed on every core
        tree.prefetch(target_modules(tree, (e.target for e in entries)))
    resolved_new = resolve_all(new_tree, (e.target for e in entries))
    # Where a name went in the old tree matters only when the new tree has it (the
    # decision for a target gone from the new tree rests on the new tree alone).
    resolved_old = resolve_all(
        old_tree, (e.target for e in entries), lambda t: resolved_new[t].status == FOUND
    )
    # A moved target's places are kept to those of the old definition's kind.
    resolved_new = {t: narrowed(r, resolved_old[t], new_tree) for t, r in resolved_new.items()}

    # The text of the files two rules read: where a computed sys.modules key starts, and
    # where a constant upstream added is set (a literal the plugin sets over upstream's).
    def added_constant(entry: PatchEntry) -> bool:
        before, after = resolved_old[entry.target], resolved_new[entry.target]
        return before.status != FOUND and after.status == FOUND and entry.replacement == "<expr>"

    trees_of = {
        e.file: plugin_file_tree(settings.root / e.file)
        for e in entries
        if is_computed_key(e) or added_constant(e) or binds_keywords(e)
    }
    # the plugin files the probe rules read, parsed once, and their names built once
    plugin_files = ParsedFiles(settings.root)
    tables = probe_tables(plugin_files, entries)
    dead = dead_probes(plugin_files, tables, entries, trees, versions)
    landed = landed_features(settings.root, settings.patch_directory, entries, trees, memory.store)
    newer = newer_imports(settings.root, entries, trees)
    opened = opened_guards(settings.root, entries, trees, tables)

    # A target the new tree lacks may have been renamed (judge's rule 3): the names it may
    # have now are looked up in the new tree in one pass, before the workers need them.
    renames = [e.target for e in entries if resolved_new[e.target].status != FOUND]
    new_tree.find_definitions(name for target in renames for name in renamed_names(target))
    # The replacements' spans, read here once: the judges are handed them as data.
    # (only those :func:`codes` compares: found whole in the new tree and found in the old).
    new_found = {t for t, r in resolved_new.items() if r.status == FOUND and not r.partial}
    compared = (e for e in entries if e.target in new_found)
    found = (e.replacement for e in compared if resolved_old[e.target].status == FOUND)
    wanted = [r for r in found if r in sources]
    located.update(replacement_codes({r: sources[r] for r in wanted if r not in located}))
    mine = {r: located[r] for r in wanted}
    # The lines of the patch files that say "backport" somewhere: the comment above a
    # replacement is read for a backport note (the judge's backport_landed).
    noted: dict[str, tuple[str, ...]] = {}

    def introduced(entry: PatchEntry, code: Code | None) -> str:
        if code is None or code.name != entry.file:
            return ""
        if entry.file not in noted:
            text = _text(settings.root / entry.file)
            noted[entry.file] = tuple(text.splitlines()) if BACKPORT.search(text) else ()
        return introduction(noted[entry.file], code.start)

    def assess(entry: PatchEntry) -> tuple[Drift, Key | None, Drift | Pending, Key | None, str]:
        """The entry's drift (remembered or decided, with its store key when decided now),
        its judgement: remembered, or judged here (:func:`judge_pending`: perhaps waiting
        for the old tree's hook names), with its store key when judged now; and why a copy
        whose one change is a class upstream's type test now accepts goes
        (:func:`widening`, read here where its spans are: ``""`` for none)."""
        before, after = resolved_old[entry.target], resolved_new[entry.target]
        copy = mine.get(entry.replacement)
        spans = codes(entry, before, after, trees, copy)
        widens = ""
        if copy is not None and _widens(copy) and spans[0] is not None and spans[1] is not None:
            # a copy whose one change is a class upstream's type test now accepts
            plugin = (settings.root, entry.replacement.partition(":")[0])
            widens = widening((spans[0], spans[1], copy), after.module, new_tree, plugin)
        registered = registered_key(entry, before, after, trees)
        made = registered[1].described() if registered[1] is not None else ""
        drift, decided = recalled_drift(memory.store, entry, before, after, spans, made)
        case = Case(
            entry,
            drift,
            before,
            after,
            trees,
            spans,
            versions,
            header=headers[entry.file],
            landed=landed.get(entry.file, ()),
            dead_probe=dead.get(entry, ""),
            gated=gated.get(entry.replacement),
            registered=registered,
            newer=newer.get(entry, ()),
            introduction=introduced(entry, spans[2]),
        )
        judgement: Drift | Pending | None
        judgement, key = recalled_judgement(memory.store, case)
        if judgement is not None:
            return drift, decided, judgement, None, widens
        return drift, decided, judge_pending(case), key, widens

    # The stale bindings of the patched names, searched while the pool still reads (the
    # cross-checks below wait for it): after the judging, the workers would wait for it.
    stale = stale_bindings(new_tree, entries, resolved_new)
    # The cross-checks before the judging workers are forked: the pool that runs now reads
    # the patch files (once the judging has stopped it, a new pool had to start for them).
    patch_files = reading.patch_files
    patched = {e.target for e in entries}
    patching = frozenset((e.file, e.line) for e in entries)
    broken, gates = remembered_checks(memory.store, patch_files, trees, patched, versions, patching)
    assessed = []
    # On every core (forked workers reading the parsed trees); the stores are written here.
    # The entries of one upstream module go to one worker: the modules the judges parse
    # whole (the hooks' callers, the calls of a target) are then parsed by one worker.
    modules = [resolved_new[e.target].module for e in entries]
    with track("judging entries", len(entries)) as advance:
        for entry, result in zip(entries, map_forked(assess, entries, groups=modules), strict=True):
            advance()
            assessed.append((entry, *result))
    # One pass over the old tree for the hook names of every judgement still pending.
    pending = [j for *_, j, _judged, _widens in assessed if isinstance(j, Pending)]
    old_tree.find_definitions(sorted({name for j in pending for name, _how in j.candidates}))
    for entry, drift, decided, judgement, judged, widens in assessed:
        before, after = resolved_old[entry.target], resolved_new[entry.target]
        decision = settle(judgement, old_tree)
        if decision.decision != REMOVE:
            decision = widened(decision, widens)
        final = decision
        if is_computed_key(entry):  # which module it replaces: known at run time only
            parsed = trees_of.get(entry.file)
            final = computed_key_decision(entry, decision, parsed, settings.upstream_packages)
            if decision.decision == RETAIN and final.decision == LOOK:
                # Whichever module the key names, the same upstream release on both sides
                # left it as it was: nothing to look at for this upgrade.
                final = same_release(final, versions)
        if added_constant(entry):
            # a literal the plugin sets over upstream's is its own
            parsed = trees_of[entry.file]
            final = overriding_value(entry, final, parsed, upstream_code(new_tree, after))
        if binds_keywords(entry) and before.status == FOUND and after.status == FOUND:
            # functools.partial(original, k=v) where the new release dropped k
            final = _bound_keywords(entry, final, trees_of[entry.file], (before, after), trees)
        if final.decision == LOOK and before.status != FOUND and after.status != FOUND:
            final = _fallen_back(entry, final, trees, settings.root, settings.package)
        # a patch a guard stopped at the old release runs first at the new one
        final = opened_look(final, opened.get(entry, ""))
        for kept, record in ((decided, drift), (judged, decision)):
            if kept is not None:  # written here: a forked worker's writes are lost
                memory.store.put_value(kept[0], kept[1], astuple(record))
        facts = entry_facts(entry, before, after, drift, newer.get(entry, ()))
        audited.append(AuditedEntry(entry, before, after, final, facts))
    # A backport upstream took in for one entry of a patch file takes the file's others along.
    spread_drifts = spread([(a.entry, a.drift) for a in audited], headers)
    audited = [replace(a, drift=d) for a, d in zip(audited, spread_drifts, strict=True)]
    # A replacement set on several targets is rewritten for all when one needs its update.
    shared = shared_updates([(a.entry, a.old, a.new, a.drift) for a in audited])
    audited = [replace(a, drift=d) for a, d in zip(audited, shared, strict=True)]
    # A function nothing calls that sets what a kept, running patch of its file sets goes
    # with that patch.
    paired = companions([(a.entry, a.drift) for a in audited])
    audited = [replace(a, drift=d) for a, d in zip(audited, paired, strict=True)]
    # A name its module no longer imports, whose definition another entry patches with the
    # same replacement: that entry covers it; uncovered, and named nowhere in its module
    # now, nothing reads it there (look, not a retarget to the definition).
    renamed = frozenset(
        a.entry for a in audited if a.new.status == MOVED and renamed_to(a.entry, a.new, trees)
    )
    unnamed = frozenset(
        a.entry for a in audited if a.new.status == MOVED and unnamed_there(a.entry, trees[1])
    )
    covered = covered_elsewhere(
        [(a.entry, a.old, a.new, a.drift) for a in audited], renamed, unnamed
    )
    audited = [replace(a, drift=d) for a, d in zip(audited, covered, strict=True)]
    # The line in a finally that puts upstream's object back goes with the swap it undoes.
    restored = restores([(a.entry, a.drift) for a in audited])
    audited = [replace(a, drift=d) for a, d in zip(audited, restored, strict=True)]
    # A target in an upstream module Python cannot parse is unknown there, not gone: no
    # rule above had the fact its decision rests on.
    audited = [
        replace(a, drift=unparsed_look(a.drift, a.entry.target, (a.old, a.new), trees))
        for a in audited
    ]
    # A setattr whose attribute name cannot be told has no entry to judge: the audit names
    # it among its findings (exit 1), as it does a patch file it cannot read.
    findings = duplicates(entries) + broken + list(unlisted(inventory))
    counts = dict(inventory.counts)
    counts["decision"] = dict(sorted(Counter(a.drift.decision for a in audited).items()))
    result = RuntimeAudit(
        old,
        new,
        inventory,
        tuple(audited),
        tuple(stale),
        counts,
        tuple(findings),
        gates,
        release_label(old, old_tree.root),
        release_label(new, new_tree.root),
    )
    # The result last, pickled (see AuditMemory), then every store written once.
    pickled = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    memory.store.put_value(RESULT, memory.key, pickled)
    for store in (*trees, memory.store):
        store.save()
    return result


def _text(path: Path) -> str:
    """The text of a plugin file; ``""`` when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def file_header(path: Path) -> str:
    """The comment lines and the module docstring at the top of a plugin file (its header:
    ``Note:``, ``Affected versions:``, ``Remove at:`` and the explanation): every line up to
    the first ``import``, ``from``, ``def``, ``class`` or ``@`` line."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    lines = []
    for line in text.splitlines():
        if line.startswith(("import ", "from ", "def ", "class ", "@", "async def ")):
            break
        lines.append(line.strip().lstrip("#").strip("\"' "))
    return "\n".join(lines)


def _fallen_back(
    entry: PatchEntry,
    drift: Drift,
    trees: tuple[UpstreamTree, UpstreamTree],
    root: Path,
    package: str,
) -> Drift:
    """*retain* for an entry whose upstream object neither release has when its import
    falls back to the plugin's own (:mod:`patchkeeper.runtime.judge.import_fallback`):
    at both releases the patch replaces the plugin's object; ``drift`` otherwise."""
    owner = absent_owner(entry, trees)
    if not owner:
        return drift
    fallback = import_fallback(entry, plugin_file_tree(root / entry.file), package)
    if fallback is None:
        return drift
    reason = (
        f"{entry.target} is in neither release, nor is {owner}: the import of it fails at "
        f"both, and the plugin falls back to its own {fallback.own} (except ImportError, "
        f"{fallback.where}), so the patch replaces {fallback.target}, not "
        f"upstream's; nothing to do at this upgrade (a release that adds {owner} makes it an "
        "upstream patch)"
    )
    # the missing module's reading (the patch can never apply) does not hold: it applies
    kept = (e for e in drift.evidence if NEVER_APPLIES not in e and e != reason)
    return replace(drift, decision=RETAIN, evidence=(reason, *kept))


def _bound_keywords(
    entry: PatchEntry,
    judged: Drift,
    parsed: ast.Module | None,
    found: tuple[Resolution, Resolution],
    trees: tuple[UpstreamTree, UpstreamTree],
) -> Drift:
    """:func:`~patchkeeper.runtime.judge.bound_keywords.bound_keywords_decision` for a
    partial of the original (``parsed``: its plugin file's parse): its upstream function in
    both trees, and the new one's module parsed."""
    old_code, new_code = (upstream_code(tree, r) for tree, r in zip(trees, found, strict=True))
    where = trees[1].module_file(found[1].module)
    if old_code is None or new_code is None or where is None:
        return judged
    module = (found[1].module, parse_path(where[0]))
    return bound_keywords_decision(
        entry, judged, parsed, (old_code.parsed, new_code.parsed), module
    )


def _widens(copy: Code) -> bool:
    """Whether a copy may add a predicate to a type test (``isinstance(`` and `` or `` in
    it): the cheap test before :func:`widened_test` reads it."""
    text = "\n".join(copy.lines)
    return "isinstance(" in text and " or " in text
