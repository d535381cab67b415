"""What ``runtime audit`` remembers from one run to the next (:class:`AuditMemory`): one store
per plugin and pair of upstream trees, opened once before the judging, with the whole
result remembered in it.

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
from pathlib import Path
from typing import TYPE_CHECKING

from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.store.cache import SummaryCache

if TYPE_CHECKING:
    from patchkeeper.runtime.judge.results import RuntimeAudit

#: The name the whole result is kept under in the store.
RESULT = "#result"


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
    upstream tree roots (the *drift store*, a :class:`SummaryCache`), read once when the
    memory is made: the whole result under :attr:`key` (:attr:`result`), and what the
    stages of the audit keep in :attr:`store` (see the module docstring). The result is
    pickled: its dataclasses hold only builtin values, enums and other dataclasses of this
    package, whose source is part of the store's name.

    Args:
        root: the plugin's root (where the store's keys are relative to).
        trees: the old and new upstream trees (the store is named by their roots).
        key: what the whole audit is remembered under (:func:`result_key`).
    """

    def __init__(self, root: Path, trees: tuple[UpstreamTree, UpstreamTree], key: str) -> None:
        self.store = SummaryCache(root, f"drift\0{trees[0].root}\0{trees[1].root}")
        self.key = key
        #: The audit remembered under ``key`` (:func:`result_key`), ``None`` when there is
        #: none or it cannot be read back (a cache: computed again).
        self.result: RuntimeAudit | None = None
        cached = self.store.get_value(RESULT, key)
        if cached is not None:
            try:
                self.result = pickle.loads(cached)
            except (pickle.UnpicklingError, AttributeError, EOFError, ImportError, TypeError):
                pass
