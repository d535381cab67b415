"""``patchkeeper runtime inventory``: every runtime patch of a plugin, statically.

Step 2 of the runtime audit workflow (docs/glossary.md; "Inventory every patch and its activation
path") as a command: every Python file of the patch directory (initializers included) is parsed,
never imported; each patch entry gets its activation from the entry points
(:mod:`patchkeeper.runtime.inventory.activation`); each file's header block and the ledger
comment are checked (:mod:`patchkeeper.runtime.inventory.patch_headers`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.runtime.gc_threshold import fewer_collections
from patchkeeper.runtime.inventory.entries import SameDefinition, inventory_of
from patchkeeper.runtime.inventory.loading import UpstreamFiles
from patchkeeper.runtime.inventory.plugin import PluginTree
from patchkeeper.runtime.inventory.records import inventory_from_record, inventory_record
from patchkeeper.runtime.model import Inventory
from patchkeeper.runtime.parallel import shared_workers
from patchkeeper.runtime.settings import RuntimeSettings, resolve_settings
from patchkeeper.runtime.store.plugin_stores import ParseStore, parse_store


@dataclass
class Scanned:
    """The inventory with the tree it was read from, for the audit and the live check."""

    inventory: Inventory
    tree: PluginTree
    #: :attr:`~patchkeeper.runtime.inventory.layout.PluginLayout.signature` (with the
    #: upstream tree's): what the inventory was computed from.
    signature: str = ""


def scan_plugin(
    settings: RuntimeSettings,
    ahead: Callable[[list[str], list[str]], None] | None = None,
    upstream: UpstreamFiles | None = None,
    unread: str = "",
    same: SameDefinition | None = None,
) -> Scanned:
    """Build the inventory of ``settings``' plugin (see :func:`take_inventory`), its parse
    store opened here (:func:`patchkeeper.runtime.store.plugin_stores.parse_store`); the
    arguments as :func:`scan_opened` takes them."""
    return scan_opened(settings, parse_store(settings), ahead, upstream, unread, same=same)


def scan_opened(
    settings: RuntimeSettings,
    parse: ParseStore,
    ahead: Callable[[list[str], list[str]], None] | None = None,
    upstream: UpstreamFiles | None = None,
    unread: str = "",
    *,
    keep_trees: bool = False,
    same: SameDefinition | None = None,
) -> Scanned:
    """:func:`scan_plugin` with the plugin's parse store opened already (``parse``: the
    audit opens it with its own, :func:`patchkeeper.runtime.store.plugin_stores.audit_stores`).

    ``ahead``: called with the patched targets (dotted, in the order the patch files give
    them) and the upstream names the patch files use besides (dotted, sorted) once the
    patch files are read, before the activation search, when the inventory is computed
    (not when it comes from the cache): the audit hands the upstream work those names
    need to the worker processes there, which are idle during the search.
    ``upstream``: the upstream tree the plugin runs on, read for the places it loads the
    plugin itself (:func:`patchkeeper.runtime.inventory.loading.upstream_imports`);
    ``unread``: why none was given (:func:`patchkeeper.runtime.inventory.loading.loading`);
    ``same``: whether two dotted paths name one definition of that tree
    (:func:`patchkeeper.runtime.inventory.entries.shared_wrappers`);
    ``keep_trees``: the patch files scanned keep their parse in this process
    (:attr:`PluginTree.keep_trees`), for an audit that reads them whole next."""
    tree = PluginTree(settings, parse, keep_trees=keep_trees)
    layout = tree.layout
    signature = layout.signature
    if upstream is not None:
        signature = f"{signature}\0{upstream.root}\0{upstream.signature()}"
    elif unread:
        signature = f"{signature}\0{unread}"
    cached = tree.cache.get_value("#inventory", signature)
    if cached is not None:
        return Scanned(inventory_from_record(cached), tree, signature)
    with fewer_collections(), shared_workers():
        inventory = inventory_of(settings, layout, tree, ahead, upstream, unread, same)
    tree.cache.put_value("#inventory", signature, inventory_record(inventory))
    tree.cache.save()
    return Scanned(inventory, tree, signature)


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
