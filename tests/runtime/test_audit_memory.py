"""What the runtime audit remembers, in one store per pair of upstream trees: written once
by the judging, read back whole by
:class:`~patchkeeper.runtime.judge.runtime_audit.AuditMemory`; the
cross-checks take the patch files' facts from the plugin's scan."""

from __future__ import annotations

from pathlib import Path

from patchkeeper.config import load_config
from patchkeeper.runtime.inventory.plugin import PluginTree
from patchkeeper.runtime.inventory.runtime_inventory import scan_plugin
from patchkeeper.runtime.judge import runtime_audit as audit
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.settings import resolve_settings
from patchkeeper.runtime.store.cache import SummaryCache
from patchkeeper.runtime.store.plugin_stores import audit_stores, parse_store

ENTRIES = [
    "metaplug/patch/bugfix/fix_disabled.py:11:tinyup.sampler.sample:None",
    "metaplug/patch/bugfix/fix_sampler.py:19:tinyup.sampler.sample:None",
    "metaplug/patch/bugfix/fix_scheduler.py:11:tinyup.scheduler.Scheduler.schedule:None",
    "metaplug/patch/bugfix/fix_scheduler.py:21:tinyup.scheduler.Scheduler.make:None",
    "metaplug/patch/bugfix/fix_scheduler.py:29:tinyup.scheduler.Scheduler.create:None",
    "metaplug/patch/enhancement/backends.py:10:tinyup.registry.BACKENDS:'npu'",
    "metaplug/patch/performance/kernels.py:12:tinyup.kernels.add_kernel:None",
    "metaplug/patch/performance/kernels.py:22:tinyup.kernels.sub_kernel:None",
]


def test_the_drift_store_holds_the_result_cross_checks_drifts_and_judgements(
    runtime_trees: Path,
) -> None:
    """After a cold audit the pair's store holds the whole result, the cross-checks, and a
    drift and a judgement per entry; a memory made again reads the same result back."""
    plugin = runtime_trees / "plugin"
    config = load_config(plugin / "pyproject.toml")
    old, new = runtime_trees / "upstream-1.0", runtime_trees / "upstream-2.0"
    result = audit.audit_runtime(config, old=str(old), new=str(new))
    settings = resolve_settings(config)
    trees = (
        UpstreamTree(old, settings.upstream_packages),
        UpstreamTree(new, settings.upstream_packages),
    )
    store = SummaryCache(settings.root, f"drift\0{trees[0].root}\0{trees[1].root}")
    assert sorted(store.entries) == [
        "#crosscheck",
        "#result",
        *(f"judge:{entry}" for entry in ENTRIES),
        *ENTRIES,
    ]
    key = store.entries["#result"][0]  # what the result is remembered under
    again = audit.AuditMemory(audit_stores(settings, (old, new)), key)
    assert again.result == result
    assert [f.code for f in result.findings] == ["duplicate", "breaks-at-import"]


def test_patch_file_facts_are_the_scan_s_facts_of_each_patch_file(runtime_trees: Path) -> None:
    """Each patch file in path order with the facts the scan reads of it: the same from a
    tree that scans them now and from one asked after the inventory."""
    settings = resolve_settings(load_config(runtime_trees / "plugin" / "pyproject.toml"))
    fresh = PluginTree(settings, parse_store(settings)).patch_file_facts()
    assert [(p.relative, f.file if f else None, len(f.entries) if f else -1) for p, f in fresh] == [
        ("metaplug/patch/__init__.py", "metaplug/patch/__init__.py", 0),
        ("metaplug/patch/bugfix/__init__.py", "metaplug/patch/bugfix/__init__.py", 0),
        ("metaplug/patch/bugfix/fix_disabled.py", "metaplug/patch/bugfix/fix_disabled.py", 1),
        ("metaplug/patch/bugfix/fix_sampler.py", "metaplug/patch/bugfix/fix_sampler.py", 1),
        ("metaplug/patch/bugfix/fix_scheduler.py", "metaplug/patch/bugfix/fix_scheduler.py", 3),
        ("metaplug/patch/enhancement/__init__.py", "metaplug/patch/enhancement/__init__.py", 0),
        ("metaplug/patch/enhancement/backends.py", "metaplug/patch/enhancement/backends.py", 1),
        ("metaplug/patch/performance/__init__.py", "metaplug/patch/performance/__init__.py", 0),
        ("metaplug/patch/performance/kernels.py", "metaplug/patch/performance/kernels.py", 2),
        ("metaplug/patch/utils.py", "metaplug/patch/utils.py", 0),
    ]
    scanned = scan_plugin(settings, None)
    assert scanned.tree.patch_file_facts() == fresh
