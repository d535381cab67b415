"""What ``runtime audit`` remembers from one run to the next (:class:`AuditMemory`): the
whole result, the cross-checks, each entry's drift and each entry's judgement, in one
store per pair of upstream trees."""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import astuple
from pathlib import Path
from typing import TYPE_CHECKING, Any

from patchkeeper.errors import Finding
from patchkeeper.runtime.inventory.module_constants import computed_key_evidence, is_computed_key
from patchkeeper.runtime.judge.drift import NOT_AUDITED, Code, Drift, decide
from patchkeeper.runtime.judge.gated_binding import Gated
from patchkeeper.runtime.lookup.resolve import Resolution
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.store.cache import SummaryCache
from patchkeeper.runtime.syntax.gates import Gate

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
        key: what the whole audit is remembered under (:func:`result_key`).
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
        #: The audit remembered under ``key`` (:func:`result_key`), ``None`` when there is
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
