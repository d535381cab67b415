"""``patchkeeper runtime audit --from OLD --to NEW``: a decision per patch, with evidence.

Static: the plugin is inventoried (:mod:`patchkeeper.runtime.inventory.runtime_inventory`),
every target is resolved in both upstream trees (:mod:`patchkeeper.runtime.lookup.resolve`),
compared (:mod:`patchkeeper.runtime.judge.drift`), and the new tree is searched for stale
``from X import name`` bindings (:mod:`patchkeeper.runtime.judge.stale`). Trees are parsed
once and cached.
"""

from __future__ import annotations

import hashlib
import pickle
from collections import Counter
from dataclasses import astuple, dataclass, field, replace
from pathlib import Path
from typing import Any

from patchkeeper.errors import FetchError, Finding, TargetError
from patchkeeper.progress import track
from patchkeeper.runtime.gc_threshold import fewer_collections
from patchkeeper.runtime.inventory.file_facts import FileFacts
from patchkeeper.runtime.inventory.module_constants import computed_key_evidence, is_computed_key
from patchkeeper.runtime.inventory.plugin import PatchFile, PluginTree
from patchkeeper.runtime.inventory.runtime_inventory import Scanned, scan_plugin
from patchkeeper.runtime.inventory.unparsed import unparsed
from patchkeeper.runtime.judge.crosscheck import (
    broken_references,
    duplicates,
    read_patch_files,
    version_gates,
)
from patchkeeper.runtime.judge.drift import (
    LOOK,
    NOT_AUDITED,
    RETAIN,
    Code,
    Drift,
    codes,
    decide,
)
from patchkeeper.runtime.judge.facts import entry_facts
from patchkeeper.runtime.judge.feature_probes import dead_probe, file_table
from patchkeeper.runtime.judge.gated_binding import Gated, gated_parameters
from patchkeeper.runtime.judge.judge import Pending, judge_pending, settle
from patchkeeper.runtime.judge.landed import landed_features, spread
from patchkeeper.runtime.judge.missing import renamed_names
from patchkeeper.runtime.judge.named_gates import dead_named_gate
from patchkeeper.runtime.judge.replacement import replacement_codes
from patchkeeper.runtime.judge.stale import StaleBinding, stale_bindings
from patchkeeper.runtime.lookup.resolve import FOUND, Resolution, resolve_all, target_modules
from patchkeeper.runtime.lookup.targets import tree_root
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import Inventory, PatchEntry
from patchkeeper.runtime.parallel import map_forked, shared_workers
from patchkeeper.runtime.settings import RuntimeSettings, resolve_settings
from patchkeeper.runtime.store.cache import SummaryCache
from patchkeeper.runtime.syntax.gates import Gate, release_version
from patchkeeper.runtime.syntax.names import Table
from patchkeeper.runtime.syntax.references import PatchFileFacts, for_roots


@dataclass(frozen=True)
class AuditedEntry:
    """One entry with its resolution in both trees, its :class:`Drift` (the decision with
    its evidence) and its ``facts`` apart from the decision
    (:func:`patchkeeper.runtime.judge.facts.entry_facts`)."""

    entry: PatchEntry
    old: Resolution
    new: Resolution
    drift: Drift
    facts: tuple[str, ...] = ()


@dataclass(frozen=True)
class RuntimeAudit:
    """The result of ``runtime audit``: per-entry decisions, stale bindings, counts, and the
    inventory's own findings."""

    old: str
    new: str
    inventory: Inventory
    entries: tuple[AuditedEntry, ...]
    stale: tuple[StaleBinding, ...]
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()
    gates: tuple[Gate, ...] = ()

    @property
    def exit_code(self) -> int:
        """1 when an entry needs action (not *retain*/*not-audited*), a stale binding is
        unpatched, a finding exists, or a patch file could not be read (not valid Python:
        its entries are not audited); 0 otherwise."""
        action = any(a.drift.decision not in (RETAIN, "not-audited") for a in self.entries)
        findings = any(f.code != "version-gate" for f in self.findings)
        findings = findings or bool(unparsed(self.inventory))
        return 1 if action or findings or any(not s.patched_by for s in self.stale) else 0


def audit_runtime(
    config: Any | None,
    *,
    old: str,
    new: str,
    plugin: Path | None = None,
    package: str | None = None,
    patch_directory: str | None = None,
) -> RuntimeAudit:
    """Audit the plugin's runtime patches from upstream ``old`` to ``new``.

    Args:
        old, new: upstream trees: directories or requirements (``vllm==0.32.0``).

    Raises:
        ConfigError, TargetError, FetchError.
    """
    settings = resolve_settings(
        config, plugin=plugin, package=package, patch_directory=patch_directory
    )
    return audit_plugin(settings, old, new)


def audit_plugin(
    settings: RuntimeSettings, old: str, new: str, roots: tuple[Path, Path] | None = None
) -> RuntimeAudit:
    """:func:`audit_runtime` of the plugin ``settings`` describes, the settings resolved
    already (:func:`patchkeeper.runtime.settings.resolve_settings`); ``roots``: the
    directories of the trees ``old`` and ``new`` name (:func:`tree_root`), when the caller
    found them already.

    Raises:
        TargetError, FetchError.
    """
    with fewer_collections(), shared_workers():
        return _audit(settings, old, new, roots)


def _audit(
    settings: RuntimeSettings, old: str, new: str, roots: tuple[Path, Path] | None = None
) -> RuntimeAudit:
    """The audit, or the one a previous run computed from the same inputs: what the audit
    remembers is read and written by one :class:`AuditMemory`, the whole result under
    :func:`_result_key`."""
    made: list[UpstreamTree] = []

    def upstream_trees() -> tuple[UpstreamTree, UpstreamTree]:
        if not made:
            old_root = roots[0] if roots else tree_root(old)
            made.append(UpstreamTree(old_root, settings.upstream_packages))
            # The stale-binding search reads the new tree's importer index: built in the
            # same pass over the tree as its definition index.
            new_root = roots[1] if roots else tree_root(new)
            made.append(UpstreamTree(new_root, settings.upstream_packages, importers=True))
        return made[0], made[1]

    def ahead(targets: list[str]) -> None:
        """The modules every lookup starts in, summarized by the workers while the plugin's
        activation search runs here (an upstream tree that cannot be read is reported
        below, where it was before)."""
        try:
            trees = upstream_trees()
        except (TargetError, FetchError):
            return
        for tree in trees:
            tree.start_prefetch(target_modules(tree, targets))

    # The old release is what the plugin runs on: where it loads the plugin itself is
    # part of the plugin's activation (a platform vLLM imports without an entry point).
    old_tree, new_tree = upstream_trees()
    scanned = scan_plugin(settings, ahead, old_tree)
    versions = (release_version(old, old_tree.root), release_version(new, new_tree.root))
    key = _result_key(scanned, (old, new), (old_tree, new_tree), versions)
    memory = AuditMemory(settings.root, (old_tree, new_tree), versions, key)
    if memory.result is not None:
        return memory.result
    result = _evaluate(settings, scanned, (old, new), (old_tree, new_tree), memory, versions)
    memory.keep(result)
    return result


def _result_key(
    scanned: Scanned,
    specs: tuple[str, str],
    trees: tuple[UpstreamTree, UpstreamTree],
    versions: tuple[str, str],
) -> str:
    """A digest of everything an audit reads: the plugin (its inventory's signature: the
    settings and every plugin file's stat data), the two upstream specs and versions, and
    both trees' roots and file signatures (every Python file's stat data,
    :meth:`UpstreamTree.signature`)."""
    material = (scanned.signature, specs, versions, [(t.root, t.signature()) for t in trees])
    return hashlib.sha256(repr(material).encode()).hexdigest()


def _evaluate(
    settings: RuntimeSettings,
    scanned: Scanned,
    specs: tuple[str, str],
    trees: tuple[UpstreamTree, UpstreamTree],
    memory: AuditMemory,
    versions: tuple[str, str],
) -> RuntimeAudit:
    old, new = specs
    old_tree, new_tree = trees
    entries = list(scanned.inventory.entries)
    audited = []
    for tree in trees:  # the modules every lookup starts in, parsed on every core
        tree.prefetch(target_modules(tree, (e.target for e in entries)))
    resolved_new = resolve_all(new_tree, (e.target for e in entries))
    # Where a name went in the old tree matters only when the new tree has it (the
    # decision for a target gone from the new tree rests on the new tree alone).
    resolved_old = resolve_all(
        old_tree, (e.target for e in entries), lambda t: resolved_new[t].status == FOUND
    )
    headers: dict[str, str] = {}
    for entry in entries:
        if entry.file not in headers:
            headers[entry.file] = file_header(settings.root / entry.file)
    dead = _dead_probes(settings.root, entries, trees, versions)
    gated = _gated_bindings(scanned.tree, entries, versions[1])
    landed = landed_features(settings.root, settings.patch_directory, entries, trees, memory.store)

    # A target the new tree lacks may have been renamed (judge's rule 3): the names it may
    # have now are looked up in the new tree in one pass, before the workers need them.
    renames = [e.target for e in entries if resolved_new[e.target].status != FOUND]
    new_tree.find_definitions(name for target in renames for name in renamed_names(target))
    # The replacements' spans, read here once: the judges are handed them as data.
    # (only those :func:`codes` compares: found whole in the new tree and found in the old).
    new_found = {t for t, r in resolved_new.items() if r.status == FOUND and not r.partial}
    compared = (e for e in entries if e.target in new_found)
    found = (e.replacement for e in compared if resolved_old[e.target].status == FOUND)
    mine = replacement_codes(scanned.tree.replacement_sources(found))

    def assess(
        entry: PatchEntry,
    ) -> tuple[Drift, tuple[str, str] | None, Drift | Pending, bool]:
        """The entry's drift (remembered or decided, with its store key when decided now),
        and its judgement: remembered, or judged here (:func:`judge_pending`: perhaps
        waiting for the old tree's hook names)."""
        before, after = resolved_old[entry.target], resolved_new[entry.target]
        spans = codes(entry, before, after, trees, mine.get(entry.replacement))
        drift, key = memory.drift(entry, before, after, spans)
        context = (
            headers[entry.file],
            landed.get(entry.file, ()),
            dead.get(entry, ""),
            gated.get(entry.replacement),
        )
        judgement: Drift | Pending | None = memory.judgement(entry, drift, before, after, context)
        remembered = judgement is not None
        if judgement is None:
            judgement = judge_pending(entry, drift, before, after, trees, spans, versions, *context)
        return drift, key, judgement, remembered

    # The cross-checks before the judging workers are forked: the pool that runs now reads
    # the patch files (once the judging has stopped it, a new pool had to start for them).
    patch_files = scanned.tree.patch_file_facts()
    patched = {e.target for e in entries}
    broken, gates = _crosscheck(memory, patch_files, trees, patched, versions)
    assessed = []
    # On every core (forked workers reading the parsed trees); the stores are written here.
    with track("judging entries", len(entries)) as advance:
        for entry, result in zip(entries, map_forked(assess, entries), strict=True):
            advance()
            assessed.append((entry, *result))
    # One pass over the old tree for the hook names of every judgement still pending.
    pending = [j for *_, j, _remembered in assessed if isinstance(j, Pending)]
    old_tree.find_definitions(sorted({name for j in pending for name, _how in j.candidates}))
    for entry, drift, key, judgement, remembered in assessed:
        before, after = resolved_old[entry.target], resolved_new[entry.target]
        decision = settle(judgement, old_tree)
        final = _computed_key(entry, decision) if is_computed_key(entry) else decision
        if key is not None:
            memory.decided(key, drift)
        if not remembered:
            context = (
                headers[entry.file],
                landed.get(entry.file, ()),
                dead.get(entry, ""),
                gated.get(entry.replacement),
            )
            memory.judged(entry, drift, before, after, context, decision)
        facts = entry_facts(entry, before, after, drift)
        audited.append(AuditedEntry(entry, before, after, final, facts))
    # A backport upstream took in for one entry of a patch file takes the file's others along.
    spread_drifts = spread([(a.entry, a.drift) for a in audited], headers)
    audited = [replace(a, drift=d) for a, d in zip(audited, spread_drifts, strict=True)]
    stale = stale_bindings(new_tree, entries, resolved_new)
    findings = duplicates(entries) + broken
    counts = dict(scanned.inventory.counts)
    counts["decision"] = dict(sorted(Counter(a.drift.decision for a in audited).items()))
    return RuntimeAudit(
        old,
        new,
        scanned.inventory,
        tuple(audited),
        tuple(stale),
        counts,
        tuple(findings),
        gates,
    )


def _computed_key(entry: PatchEntry, decision: Drift) -> Drift:
    """The decision for a ``sys.modules`` entry whose key is computed at run time
    (:func:`~patchkeeper.runtime.inventory.module_constants.is_computed_key`): which module it
    replaces is not known, so what the judge keeps as outside upstream (*retain*) is for a
    person to look at (*look*); a removal it decided for other reasons (a dead version gate,
    never imported) stands."""
    if decision.decision != RETAIN:
        return decision
    return Drift(LOOK, (computed_key_evidence(entry),))


def _digest(path: Path) -> str:
    """The sha256 of a patch file's bytes; ``""`` for a file that cannot be read (listed as
    not read by the inventory, its facts empty)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def _dead_probes(
    root: Path,
    entries: list[PatchEntry],
    trees: tuple[UpstreamTree, UpstreamTree],
    versions: tuple[str, str],
) -> dict[PatchEntry, str]:
    """Per entry on the way to which a feature probe stops running at the new release,
    why (:func:`patchkeeper.runtime.judge.feature_probes.dead_probe`), or a name bound to a
    version test does (:func:`patchkeeper.runtime.judge.named_gates.dead_named_gate`); each
    plugin file with a ``hasattr`` condition is parsed once for its names."""
    tables: dict[str, Table] = {}
    out: dict[PatchEntry, str] = {}
    for entry in entries:
        activation = entry.activation
        if activation is None:
            continue
        why = dead_named_gate(root, entry, versions)
        if not why and any("hasattr(" in c.text for c in activation.conditions):
            if entry.file not in tables:
                tables[entry.file] = file_table(root, entry)
            why = dead_probe(entry, tables[entry.file], trees, versions[1])
        if why:
            out[entry] = why
    return out


def _gated_bindings(
    plugin: PluginTree, entries: list[PatchEntry], version: str
) -> dict[str, Gated]:
    """Per replacement (``module:name``, a module-level name), the signature the branch of a
    version gate live at upstream ``version`` binds it to
    (:func:`patchkeeper.runtime.judge.gated_binding.gated_parameters`), with the module's
    path; replacements no such gate binds are left out. Each module is read once."""
    found: dict[str, Gated] = {}
    for replacement in sorted({e.replacement for e in entries}):
        module, _, name = replacement.partition(":")
        if not name or "." in name or "<" in name:
            continue
        where = plugin.module_file(module)
        if where is None:
            continue
        bound = gated_parameters(where[0], name, version)
        if bound is not None:
            found[replacement] = (plugin.relative(where[0]), *bound)
    return found


def _crosscheck(
    memory: AuditMemory,
    patch_files: tuple[tuple[PatchFile, FileFacts | None], ...],
    trees: tuple[UpstreamTree, UpstreamTree],
    patched: set[str],
    versions: tuple[str, str],
) -> tuple[list[Finding], tuple[Gate, ...]]:
    """:func:`broken_references` and :func:`version_gates`, remembered (:class:`AuditMemory`)
    under a digest of the patch files' bytes, the patched targets and the versions (the
    store is per pair of tree roots). ``patch_files``: each file of the patch directory with
    the facts the plugin's scan read of it (:meth:`PluginTree.patch_file_facts`); a file
    without them (or scanned under another path) is parsed here."""
    files: list[tuple[Path, str, str, bool]] = [patch for patch, _facts in patch_files]
    material = (
        versions,
        sorted(patched),
        [(relative, _digest(path)) for path, relative, *_ in files],
    )
    digest = hashlib.sha256(repr(material).encode()).hexdigest()
    cached = memory.crosscheck(digest)
    if cached is not None:
        return cached
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
    broken = broken_references(files, trees, patched, facts)
    gates = version_gates(files, versions, facts)
    memory.checked(digest, broken, gates)
    return broken, gates


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


#: What the judge reads of an entry's file besides the spans: its header, the features
#: upstream took in for it, why a feature probe makes it dead code ("" when none), and what
#: a version gate binds its replacement's name to at the new release (:data:`Gated`).
_Context = tuple[str, tuple[str, ...], str, Gated]


class AuditMemory:
    """What the audit remembers from one run to the next, in one store per pair of upstream
    tree roots (the *drift store*, a :class:`SummaryCache`): the whole result, the
    cross-checks, each entry's drift (:func:`decide`) and each entry's judgement
    (:func:`patchkeeper.runtime.judge.judge.judge`), each under a digest of what it was
    computed from.

    The store is read once, when the memory is made (with the whole result,
    :attr:`result`); the audit then asks it what is remembered (:meth:`crosscheck`,
    :meth:`drift`, :meth:`judgement`: lookups, also in the forked judging workers), tells
    it what was computed (:meth:`checked`, :meth:`decided`, :meth:`judged`: noted here, as
    a worker's writes would be lost) and writes it all with the result, and both trees'
    stores, in one :meth:`keep`. The result is pickled: its dataclasses hold only builtin
    values, enums and other dataclasses of this package, whose source is part of the
    store's name.

    Args:
        root: the plugin's root (where the store's keys are relative to).
        trees: the old and new upstream trees (the store is named by their roots).
        versions: the two releases (part of every judgement's digest).
        key: what the whole audit is remembered under (:func:`_result_key`).
    """

    def __init__(
        self,
        root: Path,
        trees: tuple[UpstreamTree, UpstreamTree],
        versions: tuple[str, str],
        key: str,
    ) -> None:
        self.trees = trees
        self.store = SummaryCache(root, f"drift\0{trees[0].root}\0{trees[1].root}")
        self.salt = versions  # the store itself is per pair of tree roots
        self.key = key
        #: The audit remembered under ``key`` (:func:`_result_key`), ``None`` when there is
        #: none or it cannot be read back (a cache: computed again).
        self.result: RuntimeAudit | None = None
        self._kept: list[tuple[str, str, Any]] = []
        cached = self.store.get_value("#result", key)
        if cached is not None:
            try:
                self.result = pickle.loads(cached)
            except (pickle.UnpicklingError, AttributeError, EOFError, ImportError, TypeError):
                pass

    def crosscheck(self, digest: str) -> tuple[list[Finding], tuple[Gate, ...]] | None:
        """The cross-checks' findings and gates remembered under ``digest``, or ``None``."""
        cached = self.store.get_value("#crosscheck", digest)
        if cached is None:
            return None
        return [Finding(*f) for f in cached[0]], tuple(Gate(*g) for g in cached[1])

    def checked(self, digest: str, broken: list[Finding], gates: tuple[Gate, ...]) -> None:
        """Keep the cross-checks' results under ``digest`` (see :meth:`crosscheck`)."""
        record = ([astuple(f) for f in broken], [astuple(g) for g in gates])
        self._kept.append(("#crosscheck", digest, record))

    def drift(
        self,
        entry: PatchEntry,
        old: Resolution,
        new: Resolution,
        spans: tuple[Code | None, Code | None, Code | None],
    ) -> tuple[Drift, tuple[str, str] | None]:
        """:func:`decide`, remembered under :func:`_drift_key`; with that key when it was
        decided now (for the caller to keep it with :meth:`decided`: a forked worker's
        notes are lost), else ``None``."""
        if is_computed_key(entry):  # no module to resolve: said so, rather than "outside"
            return Drift(NOT_AUDITED, (computed_key_evidence(entry),)), None
        name, digest = _drift_key(entry, old, new, spans)
        cached = self.store.get_value(name, digest)
        if cached is not None:
            return Drift(*cached), None
        return decide(entry, old, new, *spans), (name, digest)

    def decided(self, key: tuple[str, str], drift: Drift) -> None:
        """Keep a drift decided now under the ``key`` :meth:`drift` gave."""
        self._kept.append((*key, astuple(drift)))

    def _judge_key(
        self, entry: PatchEntry, drift: Drift, old: Resolution, new: Resolution, context: _Context
    ) -> tuple[str, str]:
        """The name and digest of a judgement: a digest of what the judge reads (the entry
        with its activation, its drift, both resolutions, the versions and ``context``).
        The callers and hook definitions it reads beyond the compared spans belong to the
        two trees, which the store is named by (an unpacked release does not change under
        its root)."""
        material = (entry, astuple(drift), old, new, context, self.salt)
        digest = hashlib.sha256(repr(material).encode()).hexdigest()
        return f"judge:{entry.file}:{entry.line}:{entry.target}:{entry.key}", digest

    def judgement(
        self, entry: PatchEntry, drift: Drift, old: Resolution, new: Resolution, context: _Context
    ) -> Drift | None:
        """The remembered judgement; ``context``: the file's header, its landed features and
        why a feature probe makes it dead code."""
        name, digest = self._judge_key(entry, drift, old, new, context)
        cached = self.store.get_value(name, digest)
        return Drift(*cached) if cached is not None else None

    def judged(
        self,
        entry: PatchEntry,
        drift: Drift,
        old: Resolution,
        new: Resolution,
        context: _Context,
        result: Drift,
    ) -> None:
        """Keep the judgement ``result`` for these inputs (see :meth:`judgement`)."""
        self._kept.append((*self._judge_key(entry, drift, old, new, context), astuple(result)))

    def keep(self, result: RuntimeAudit) -> None:
        """Write what was computed (noted by :meth:`checked`, :meth:`decided` and
        :meth:`judged`) and ``result`` under the memory's key into the store, and save it
        with both trees' stores."""
        for name, digest, record in self._kept:
            self.store.put_value(name, digest, record)
        self._kept.clear()
        pickled = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        self.store.put_value("#result", self.key, pickled)
        for cache in (*self.trees, self.store):
            cache.save()


def _drift_key(
    entry: PatchEntry,
    old: Resolution,
    new: Resolution,
    spans: tuple[Code | None, Code | None, Code | None],
) -> tuple[str, str]:
    """The drift store's name and digest for an entry's :func:`decide`: a digest of
    everything it reads (the entry's target, key, mechanism and replacement, both
    resolutions, the three source spans :func:`codes` gives)."""
    material = (entry.target, entry.key, entry.mechanism.value, entry.replacement, old, new, spans)
    digest = hashlib.sha256(repr(material).encode()).hexdigest()
    return f"{entry.file}:{entry.line}:{entry.target}:{entry.key}", digest
