"""The stores kept for one plugin in the user's cache directory, each a
:class:`~patchkeeper.runtime.store.cache.SummaryCache` under the plugin's root, opened here,
once, before the plugin is read, and handed to what reads and writes them:

- the *parse store* (:func:`parse_store`): each plugin file's facts, the inventory, and the
  listing of the plugin package's folders, which every reading of the plugin starts from
  and which is read here, as the store is opened; every runtime command that reads the
  plugin shares it;
- for ``runtime audit``, the *drift store* of one pair of upstream trees
  (:func:`audit_stores`): what the audit's stages remember from one run to the next
  (:class:`patchkeeper.runtime.judge.memory.AuditMemory`), with the whole result kept
  under :data:`RESULT`, read here too: the audit compares the key it was kept under once
  it has read the plugin.

A store file is read whole when it is opened (one :func:`marshal.loads`), so reading these
two records then costs nothing more; each store is written once, by whoever filled it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.runtime.settings import RuntimeSettings
from patchkeeper.runtime.store.cache import SummaryCache

#: The name the audit's whole result is kept under in the drift store (its signature: the
#: key :func:`patchkeeper.runtime.judge.memory.result_key` gives).
RESULT = "#result"


@dataclass(frozen=True)
class ParseStore:
    """The plugin's parse store, opened, with the listing read from it first.

    Attributes:
        store: the store, named by the plugin's root and settings (every setting: a record
            depends on the package, the decorators and the patch directory, and naming the
            store by all of them keeps a setting added later from being forgotten).
        folders: ``(folder, sorted names of its *.py files)`` of every folder of the
            plugin's top-level package (:meth:`SummaryCache.python_folders`).
    """

    store: SummaryCache
    folders: list[tuple[str, list[str]]]


@dataclass(frozen=True)
class AuditStores:
    """The stores of one ``runtime audit``, opened together (:func:`audit_stores`).

    Attributes:
        parse: the plugin's parse store, shared with ``runtime inventory``.
        drift: the drift store of the plugin and the pair of upstream trees.
        result: the whole result the drift store keeps, as ``(key, pickled result)``
            (``None``: none kept); it answers the audit whose
            :func:`~patchkeeper.runtime.judge.memory.result_key` is ``key``.
    """

    parse: ParseStore
    drift: SummaryCache
    result: tuple[str, Any] | None


def parse_store(settings: RuntimeSettings) -> ParseStore:
    """Open the parse store of the plugin ``settings`` describe and list its package's
    folders from it (a miss lists them on disk; see :meth:`SummaryCache.python_folders`).
    A missing, unreadable or foreign store is empty, never an error."""
    store = SummaryCache(settings.root, f"plugin\0{settings!r}")
    return ParseStore(store, store.python_folders(settings.root / settings.package.split(".")[0]))


def audit_stores(settings: RuntimeSettings, roots: tuple[Path, Path]) -> AuditStores:
    """Open the stores of an audit of the plugin ``settings`` describe from the upstream tree
    at ``roots[0]`` to the one at ``roots[1]`` (the directories holding their packages):
    the plugin's parse store (:func:`parse_store`) and the drift store of that pair, named
    by the plugin's root and both tree roots, with the result it keeps. A missing,
    unreadable or foreign store is empty, never an error."""
    parse = parse_store(settings)
    drift = SummaryCache(settings.root, f"drift\0{roots[0]}\0{roots[1]}")
    return AuditStores(parse, drift, drift.stored(RESULT))
