"""``patchkeeper runtime audit --from OLD --to NEW``: a decision per patch, with evidence.

Static: the plugin is inventoried (:mod:`patchkeeper.runtime.inventory`), every target is
resolved in both upstream trees (:mod:`patchkeeper.runtime.resolve`), compared
(:mod:`patchkeeper.runtime.drift`), and the new tree is searched for stale ``from X import
name`` bindings (:mod:`patchkeeper.runtime.stale`). Trees are parsed once and cached.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import astuple, dataclass, field
from pathlib import Path
from typing import Any

from patchkeeper.runtime.cache import SummaryCache
from patchkeeper.runtime.drift import RETAIN, Drift, codes, decide
from patchkeeper.runtime.gc_threshold import fewer_collections
from patchkeeper.runtime.inventory import scan_plugin
from patchkeeper.runtime.model import Inventory, PatchEntry
from patchkeeper.runtime.plugin import PluginTree
from patchkeeper.runtime.resolve import FOUND, Resolution, resolve_all
from patchkeeper.runtime.settings import RuntimeSettings, resolve_settings
from patchkeeper.runtime.stale import StaleBinding, stale_bindings
from patchkeeper.runtime.targets import tree_root
from patchkeeper.runtime.upstream import UpstreamTree


@dataclass(frozen=True)
class AuditedEntry:
    """One entry with its resolution in both trees and its :class:`Drift`."""

    entry: PatchEntry
    old: Resolution
    new: Resolution
    drift: Drift


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

    @property
    def exit_code(self) -> int:
        """1 when an entry needs action (not *retain*/*not-audited*) or a stale binding is
        unpatched; 0 otherwise."""
        action = any(a.drift.decision not in (RETAIN, "not-audited") for a in self.entries)
        return 1 if action or any(not s.patched_by for s in self.stale) else 0


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
    with fewer_collections():
        return _audit(settings, old, new)


def _audit(settings: RuntimeSettings, old: str, new: str) -> RuntimeAudit:
    scanned = scan_plugin(settings)
    old_tree = UpstreamTree(tree_root(old), settings.upstream_packages)
    new_tree = UpstreamTree(tree_root(new), settings.upstream_packages)
    entries = list(scanned.inventory.entries)
    audited = []
    resolved_new = resolve_all(new_tree, (e.target for e in entries))
    # Where a name went in the old tree matters only when the new tree has it (the
    # decision for a target gone from the new tree rests on the new tree alone).
    resolved_old = resolve_all(
        old_tree, (e.target for e in entries), lambda t: resolved_new[t].status == FOUND
    )
    store = SummaryCache(settings.root, f"drift\0{old_tree.root}\0{new_tree.root}")
    for entry in entries:
        before, after = resolved_old[entry.target], resolved_new[entry.target]
        drift = _drift(store, entry, before, after, (old_tree, new_tree), scanned.tree)
        audited.append(AuditedEntry(entry, before, after, drift))
    stale = stale_bindings(new_tree, entries, resolved_new)
    for cache in (old_tree, new_tree, store):
        cache.save()
    counts = dict(scanned.inventory.counts)
    counts["decision"] = dict(sorted(Counter(a.drift.decision for a in audited).items()))
    return RuntimeAudit(old, new, scanned.inventory, tuple(audited), tuple(stale), counts)


def _drift(
    store: SummaryCache,
    entry: PatchEntry,
    old: Resolution,
    new: Resolution,
    trees: tuple[UpstreamTree, UpstreamTree],
    plugin: PluginTree,
) -> Drift:
    """:func:`decide`, remembered under a digest of everything it reads (the entry's
    target, key, mechanism and replacement, both resolutions, the three source spans)."""
    spans = codes(entry, old, new, trees, plugin)
    material = (entry.target, entry.key, entry.mechanism.value, entry.replacement, old, new, spans)
    digest = hashlib.sha256(repr(material).encode()).hexdigest()
    name = f"{entry.file}:{entry.line}:{entry.target}:{entry.key}"
    cached = store.get_value(name, digest)
    if cached is not None:
        return Drift(*cached)
    drift = decide(entry, old, new, *spans)
    store.put_value(name, digest, astuple(drift))
    return drift
