"""What ``runtime audit`` remembers from one run to the next (:class:`AuditMemory`): the drift
store of the plugin and the pair of upstream trees, opened once with the audit's other stores
before the plugin is read (:func:`patchkeeper.runtime.store.plugin_stores.audit_stores`),
with the whole result remembered in it.

Each stage of the audit keeps its own records in that store, under names of its own and a
digest of what it read: the cross-checks (``#crosscheck``,
:func:`patchkeeper.runtime.judge.crosscheck.remembered_checks`), the features upstream took
in (``#landed``, :func:`patchkeeper.runtime.judge.landed.landed_features`), each entry's
drift and judgement (:mod:`patchkeeper.runtime.judge.entry_memory`); the judging writes the
result under :func:`result_key` last and saves the store with both trees' stores
(:func:`patchkeeper.runtime.judge.judging.judge_entries`).
"""

from __future__ import annotations

import hashlib
import pickle
from typing import TYPE_CHECKING

from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.store.cache import SummaryCache
from patchkeeper.runtime.store.plugin_stores import AuditStores

if TYPE_CHECKING:
    from patchkeeper.runtime.judge.results import RuntimeAudit


def result_key(
    signature: str,
    specs: tuple[str, str],
    trees: tuple[UpstreamTree, UpstreamTree],
    versions: tuple[str, str],
) -> str:
    """A digest of everything an audit reads: the plugin (``signature``, its inventory's: the
    settings and every plugin file's stat data), the two upstream specs and versions, and
    both trees' roots and file signatures (every Python file's stat data,
    :meth:`UpstreamTree.signature`)."""
    material = (signature, specs, versions, [(t.root, t.signature()) for t in trees])
    return hashlib.sha256(repr(material).encode()).hexdigest()


class AuditMemory:
    """What the audit remembers from one run to the next, in one store per plugin and pair of
    upstream tree roots (the *drift store*, :attr:`store`): the whole result under
    :attr:`key` (:attr:`result`), and what the stages of the audit keep in :attr:`store`
    (see the module docstring). The result is pickled: its dataclasses hold only builtin
    values, enums and other dataclasses of this package, whose source is part of the store's
    name.

    Args:
        stores: the audit's stores, opened with the result the drift store keeps
            (:func:`patchkeeper.runtime.store.plugin_stores.audit_stores`).
        key: what the whole audit is remembered under (:func:`result_key`).
    """

    def __init__(self, stores: AuditStores, key: str) -> None:
        self.store: SummaryCache = stores.drift
        self.key = key
        #: The audit remembered under ``key`` (:func:`result_key`), ``None`` when there is
        #: none or it cannot be read back (a cache: computed again).
        self.result: RuntimeAudit | None = None
        kept = stores.result
        if kept is not None and kept[0] == key:
            try:
                self.result = pickle.loads(kept[1])
            except (pickle.UnpicklingError, AttributeError, EOFError, ImportError, TypeError):
                pass
