"""``patchkeeper runtime audit --from OLD --to NEW``: a decision per patch, with evidence.

Static: the plugin is inventoried (:mod:`patchkeeper.runtime.inventory.runtime_inventory`),
every target is resolved in both upstream trees (:mod:`patchkeeper.runtime.lookup.resolve`),
compared (:mod:`patchkeeper.runtime.judge.drift`), and the new tree is searched for stale
``from X import name`` bindings (:mod:`patchkeeper.runtime.judge.stale`). Trees are parsed
once and cached.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from patchkeeper.runtime.gc_threshold import fewer_collections
from patchkeeper.runtime.inventory.runtime_inventory import scan_opened
from patchkeeper.runtime.judge.judging import judge_entries
from patchkeeper.runtime.judge.memory import AuditMemory, result_key
from patchkeeper.runtime.judge.results import AuditedEntry, RuntimeAudit
from patchkeeper.runtime.lookup.resolve import same_definition, target_modules
from patchkeeper.runtime.lookup.targets import (
    NEW_UPSTREAM,
    OLD_UPSTREAM,
    check_tree_spec,
    upstream_dir,
    with_requirement_packages,
)
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.parallel import shared_workers
from patchkeeper.runtime.settings import RuntimeSettings, resolve_settings, warn_missing_packages
from patchkeeper.runtime.store.plugin_stores import audit_stores
from patchkeeper.runtime.syntax.gates import release_version
from patchkeeper.runtime.syntax.parsing import forget_plugin_trees

__all__ = ["AuditMemory", "AuditedEntry", "RuntimeAudit", "audit_plugin", "audit_runtime"]


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
    check_tree_spec(old, OLD_UPSTREAM)  # a path typed wrong is named before the plugin
    check_tree_spec(new, NEW_UPSTREAM)
    settings = resolve_settings(
        config, plugin=plugin, package=package, patch_directory=patch_directory
    )
    settings = with_requirement_packages(settings, old, new)
    packages = settings.upstream_packages
    roots = (upstream_dir(old, packages, OLD_UPSTREAM), upstream_dir(new, packages, NEW_UPSTREAM))
    warn_missing_packages(packages, roots)
    return audit_plugin(settings, old, new, roots)


def audit_plugin(
    settings: RuntimeSettings, old: str, new: str, roots: tuple[Path, Path]
) -> RuntimeAudit:
    """:func:`audit_runtime` of the plugin ``settings`` describes, the settings resolved
    already (:func:`patchkeeper.runtime.settings.resolve_settings`); ``roots``: the
    directories holding the packages of the trees ``old`` and ``new`` name
    (:func:`patchkeeper.runtime.lookup.targets.upstream_dir`), found by the caller.

    Raises:
        TargetError, FetchError.
    """
    with fewer_collections(), shared_workers():
        return _audit(settings, old, new, roots)


def _audit(settings: RuntimeSettings, old: str, new: str, roots: tuple[Path, Path]) -> RuntimeAudit:
    """The audit as a pipeline of its stages: the two upstream trees opened, the plugin's
    stores opened (:func:`audit_stores`: its parse store and the drift store of the pair),
    the plugin inventoried, the releases read, the audit's memory made from the drift store
    (:class:`AuditMemory`: the whole result remembered under :func:`result_key`), and,
    unless it remembers the result, the entries judged (:func:`judge_entries`, which keeps
    what it computed and the result in the memory)."""
    packages = settings.upstream_packages
    # The stale-binding search reads the new tree's importer index: built in the same pass
    # over the tree as its definition index.
    trees = (UpstreamTree(roots[0], packages), UpstreamTree(roots[1], packages, importers=True))

    def ahead(targets: list[str], used: list[str]) -> None:
        """The modules every lookup starts in, summarized by the workers while the plugin's
        activation search runs here, with the new tree's modules of the upstream names
        ``used`` by the patch files (the cross-checks look them up there); then both
        trees' name indexes, which the judging's first lookups need, read by the workers
        once they are done with those (called again with more targets: the modules not
        handed out yet are)."""
        for tree in trees:
            tree.start_prefetch(target_modules(tree, targets))
        trees[1].start_prefetch(target_modules(trees[1], used))
        for tree in trees:
            tree.start_indexes()

    # The old release is what the plugin runs on: where it loads the plugin itself is
    # part of the plugin's activation (a platform vLLM imports without an entry point).
    stores = audit_stores(settings, roots)
    # The patch files are scanned here, their trees kept for the judging's checks, which
    # read most of them whole (the workers scan the rest of the plugin meanwhile).
    forget_plugin_trees()
    scanned = scan_opened(
        settings,
        stores.parse,
        ahead,
        trees[0],
        keep_trees=True,
        same=lambda first, second: same_definition(trees[0], first, second),
    )
    versions = (release_version(old, trees[0].root), release_version(new, trees[1].root))
    key = result_key(scanned.signature, (old, new), trees, versions)
    memory = AuditMemory(stores, key)
    if memory.result is not None:
        return memory.result
    # What the judging reads of the plugin, read once here: it never asks the tree again.
    inventory = scanned.inventory
    replacements = (entry.replacement for entry in inventory.entries)
    reading = scanned.tree.reading(replacements, inventory.tests_left_out)
    return judge_entries(settings, inventory, reading, (old, new), trees, memory, versions)
