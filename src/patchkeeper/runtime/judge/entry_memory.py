"""Each entry's drift and judgement as the audit's memory keeps them
(:attr:`patchkeeper.runtime.judge.memory.AuditMemory.store`, the store of the pair of
upstream trees): looked up while the entries are judged, each under a name of its own and a
digest of what it was computed from, so a run after a change to one patch file decides and
judges again only the entries that change touches.

The lookups run in the forked judging workers, whose writes would be lost: a drift or a
judgement computed there comes back with the name and digest it is kept under, and the
judging writes it into the store (:func:`patchkeeper.runtime.judge.judging.judge_entries`).
"""

from __future__ import annotations

import hashlib
from dataclasses import astuple

from patchkeeper.runtime.inventory.module_constants import computed_key_evidence, is_computed_key
from patchkeeper.runtime.judge.drift import NOT_AUDITED, Code, Drift, decide
from patchkeeper.runtime.judge.judge import Case
from patchkeeper.runtime.lookup.resolve import Resolution
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.store.cache import SummaryCache

#: Where a record is kept in the store: its name and the digest of what it was computed from.
Key = tuple[str, str]


def recalled_drift(
    store: SummaryCache,
    entry: PatchEntry,
    old: Resolution,
    new: Resolution,
    spans: tuple[Code | None, Code | None, Code | None],
    registered: str = "",
) -> tuple[Drift, Key | None]:
    """The entry's :func:`decide`, remembered in ``store`` under :func:`drift_key`; with that
    key when it was decided now (for the judging to keep it: a forked worker's writes are
    lost), else ``None``. ``registered``: how the new upstream registers the entry's key
    through a call (:meth:`patchkeeper.runtime.judge.registrations.Registration.
    described`; ``""`` when it does not)."""
    if is_computed_key(entry):  # no module to resolve: said so, rather than "outside"
        return Drift(NOT_AUDITED, (computed_key_evidence(entry),)), None
    name, digest = drift_key(entry, old, new, spans, registered)
    cached = store.get_value(name, digest)
    if cached is not None:
        return Drift(*cached), None
    return decide(entry, old, new, *spans, registered), (name, digest)


def drift_key(
    entry: PatchEntry,
    old: Resolution,
    new: Resolution,
    spans: tuple[Code | None, Code | None, Code | None],
    registered: str = "",
) -> Key:
    """The name and digest of an entry's :func:`decide`: a digest of everything it reads
    (the entry's target, key, mechanism and replacement, both resolutions, the three source
    spans :func:`patchkeeper.runtime.judge.drift.codes` gives, the new upstream's
    registration of the key)."""
    material = (
        entry.target,
        entry.key,
        entry.mechanism.value,
        entry.replacement,
        old,
        new,
        spans,
        registered,
    )
    digest = hashlib.sha256(repr(material).encode()).hexdigest()
    return f"{entry.file}:{entry.line}:{entry.target}:{entry.key}", digest


def recalled_judgement(store: SummaryCache, asked: Case) -> tuple[Drift | None, Key]:
    """The judgement of ``asked`` (:func:`patchkeeper.runtime.judge.judge.judge_pending`,
    settled) remembered in ``store`` under :func:`judgement_key`, or ``None``; with that
    key, which a judgement made now is kept under."""
    name, digest = judgement_key(asked)
    cached = store.get_value(name, digest)
    return (Drift(*cached) if cached is not None else None), (name, digest)


def judgement_key(asked: Case) -> Key:
    """The name and digest of a judgement: a digest of what the judge reads (``asked``: the
    entry with its activation, its drift, both resolutions, the two releases and what is
    read of the entry's file: its header, the features landed, a dead feature probe, a
    version gate's binding, the upstream modules it imports that the old release lacks, the
    comment above the replacement).
    The callers and hook definitions it reads beyond the compared spans belong to the two
    trees, which the store is named by (an unpacked release does not change under its
    root)."""
    entry = asked.entry
    context = (
        asked.header,
        asked.landed,
        asked.dead_probe,
        asked.gated,
        asked.newer,
        asked.introduction,
    )
    material = (entry, astuple(asked.drift), asked.old, asked.new, context, asked.versions)
    digest = hashlib.sha256(repr(material).encode()).hexdigest()
    return f"judge:{entry.file}:{entry.line}:{entry.target}:{entry.key}", digest
