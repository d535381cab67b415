"""``patchkeeper runtime inventory``: every runtime patch of a plugin, statically.

Step 2 of the runtime audit workflow (docs/glossary.md; "Inventory every patch and its activation
path") as a command: every Python file of the patch directory (initializers included) is parsed,
never imported; each patch entry gets its activation from the entry points
(:mod:`patchkeeper.runtime.inventory.activation`); each file's header block and the ledger
comment are checked (:mod:`patchkeeper.runtime.inventory.patch_headers`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from patchkeeper.errors import Finding
from patchkeeper.runtime.gc_threshold import fewer_collections
from patchkeeper.runtime.inventory.activation import Reachability
from patchkeeper.runtime.inventory.file_facts import UNREADABLE, is_external
from patchkeeper.runtime.inventory.loading import UpstreamFiles, loading
from patchkeeper.runtime.inventory.module_constants import resolve_named
from patchkeeper.runtime.inventory.patch_headers import check_header, ledger_findings
from patchkeeper.runtime.inventory.plugin import PluginTree
from patchkeeper.runtime.inventory.records import inventory_from_record, inventory_record
from patchkeeper.runtime.model import Inventory, Mechanism, PatchEntry
from patchkeeper.runtime.parallel import shared_workers
from patchkeeper.runtime.settings import RuntimeSettings, resolve_settings


@dataclass
class Scanned:
    """The inventory with the tree it was read from, for the audit and the live check."""

    inventory: Inventory
    tree: PluginTree
    #: :attr:`~patchkeeper.runtime.inventory.plugin.PluginLayout.signature` (with the
    #: upstream tree's): what the inventory was computed from.
    signature: str = ""


def upstream_base(tree: PluginTree, module: str, qual: str, depth: int = 0) -> str | None:
    """The first upstream class among the bases of the plugin class ``module:qual``,
    following bases that are plugin classes themselves (``Ours310(OursBase)`` with
    ``OursBase(UpstreamCls)``), depth first in base order; ``None`` when there is none or a
    base is not bound statically (marked ``?`` by the scanner)."""
    facts = tree.facts_of(module)
    if facts is None or depth > 20:
        return None
    for base in facts.classes.get(qual, ()):
        if base.startswith("?"):
            continue
        if is_external(base, tree.settings.package):
            return base
        split = tree.split(base)
        if split is not None and split[1]:
            found = upstream_base(tree, split[0], split[1], depth + 1)
            if found is not None:
                return found
    return None


def _upgrade_subclass(entry: PatchEntry, tree: PluginTree) -> PatchEntry:
    """An assignment of a plugin class deriving (directly or through plugin classes) from an
    upstream class is a subclass swap."""
    if entry.mechanism is not Mechanism.ASSIGNMENT or ":" not in entry.replacement:
        return entry
    module, _, qual = entry.replacement.partition(":")
    split = tree.split(f"{module}.{qual}")
    if split is not None and upstream_base(tree, *split) is not None:
        return replace(entry, mechanism=Mechanism.SUBCLASS)
    return entry


def scan_plugin(
    settings: RuntimeSettings,
    ahead: Callable[[list[str]], None] | None = None,
    upstream: UpstreamFiles | None = None,
    unread: str = "",
) -> Scanned:
    """Build the inventory of ``settings``' plugin (see :func:`take_inventory`).

    ``ahead``: called with the patched targets (dotted, in the order the patch files give
    them) once the patch files are read, before the activation search, when the inventory
    is computed (not when it comes from the cache): the audit hands the upstream work
    those targets need to the worker processes there, which are idle during the search.
    ``upstream``: the upstream tree the plugin runs on, read for the places it loads the
    plugin itself (:func:`patchkeeper.runtime.inventory.loading.upstream_imports`);
    ``unread``: why none was given (:func:`patchkeeper.runtime.inventory.loading.loading`)."""
    tree = PluginTree(settings)
    signature = tree.layout.signature
    if upstream is not None:
        signature = f"{signature}\0{upstream.root}\0{upstream.signature()}"
    elif unread:
        signature = f"{signature}\0{unread}"
    cached = tree.cache.get_value("#inventory", signature)
    if cached is not None:
        return Scanned(inventory_from_record(cached), tree, signature)
    with fewer_collections(), shared_workers():
        inventory = _inventory(settings, tree, ahead, upstream, unread)
    tree.cache.put_value("#inventory", signature, inventory_record(inventory))
    tree.cache.save()
    return Scanned(inventory, tree, signature)


def syntax_finding(error: str, file: str) -> Finding:
    """The finding of a plugin file Python cannot parse, at the line of the error: ``error``
    is the scan's ``"invalid syntax (line 2)"``
    (:func:`patchkeeper.runtime.inventory.scan.scan_source`).

    >>> syntax_finding("invalid syntax (line 2)", "p/patch_broken.py")
    Finding(code='syntax', path='p/patch_broken.py', line=2, message='invalid syntax', hint='')
    """
    import re

    match = re.fullmatch(r"(.*) \(line (\d+)\)", error, re.DOTALL)
    if match is None:
        return Finding("syntax", file, None, error)
    return Finding("syntax", file, int(match[2]), match[1])


def _inventory(
    settings: RuntimeSettings,
    tree: PluginTree,
    ahead: Callable[[list[str]], None] | None,
    upstream: UpstreamFiles | None = None,
    unread: str = "",
) -> Inventory:
    files: list[str] = []
    raw: list[tuple[PatchEntry, tuple[Any, ...]]] = []
    findings: list[Finding] = []
    for patch, facts in tree.patch_facts():
        files.append(facts.file)
        if facts.syntax_error:
            findings.append(syntax_finding(facts.syntax_error, facts.file))
        found = [*facts.entries, *resolve_named(facts.named, tree.facts_of, tree.split)]
        raw.extend(found)
        findings.extend(
            Finding(kind, facts.file, line, message) for kind, message, line in facts.problems
        )
        # A header describes the patches of its file: a file that patches nothing (a
        # helper, an initializer, any module of a package scanned whole) needs none.
        if found and settings.header_fields and not facts.syntax_error.startswith(UNREADABLE):
            text = patch.path.read_text(encoding="utf-8", errors="replace")
            findings.extend(check_header(text, settings.header_fields, facts.file))
    if ahead is not None:
        ahead([entry.target for entry, _local in raw])
    entry_points = tree.layout.entry_points
    loaded = loading(
        settings.package,
        entry_points,
        tree.layout.console_scripts,
        settings.activation,
        upstream,
        unread,
    )
    reach = Reachability(tree, list(loaded.roots))
    entries = []
    for entry, local in raw:
        entry = _upgrade_subclass(entry, tree)
        activation = reach.activation(entry.module, entry.scope, local, loaded.untraced)
        entries.append(replace(entry, activation=activation))
    entries.sort(key=lambda e: (e.file, e.line, e.target, e.key or ""))
    findings.extend(
        ledger_findings(
            settings.root, settings.ledger_file, settings.patch_directory, entries, files
        )
    )
    return Inventory(
        plugin_root=str(settings.root),
        package=settings.package,
        patch_directory=settings.patch_directory,
        entry_points=entry_points,
        files=tuple(files),
        entries=tuple(entries),
        findings=tuple(sorted(findings, key=lambda f: (f.path, f.line or 0, f.code, f.message))),
        counts=count_entries(entries),
        loading=loaded.facts,
    )


def count_entries(entries: list[PatchEntry]) -> dict[str, dict[str, int]]:
    """Counts by mechanism and by activation status (keys sorted)."""
    mechanisms = Counter(e.mechanism.value for e in entries)
    activations = Counter(e.activation.status.value for e in entries if e.activation)
    return {
        "mechanism": dict(sorted(mechanisms.items())),
        "activation": dict(sorted(activations.items())),
    }


def take_inventory(
    config: Any | None,
    *,
    plugin: Path | None = None,
    package: str | None = None,
    patch_directory: str | None = None,
) -> Inventory:
    """Inventory the plugin's runtime patches.

    Args:
        config: the loaded :class:`patchkeeper.config.Config` (or ``None``: options only).
        plugin, package, patch_directory: override ``[tool.patchkeeper.runtime]``.

    Returns:
        :class:`Inventory`; its ``exit_code`` is 1 when a header, ledger or decorator finding
        exists.

    Raises:
        ConfigError: the plugin is not configured or not found.
    """
    settings = resolve_settings(
        config, plugin=plugin, package=package, patch_directory=patch_directory
    )
    return scan_plugin(settings).inventory
