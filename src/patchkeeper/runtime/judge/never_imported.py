"""Rule 1 of the judging (:mod:`patchkeeper.runtime.judge.judge`): an entry the plugin's
loading never reaches.

Nothing the loading imports runs it, so the patch is dead: **remove** (or re-enable the
import), naming where the import is missing. Where the trees cannot tell that it never
runs, the decision is **look** with the reason, never remove: the loading is not declared to
the upstream (what its users import cannot be traced); a computed module name the loading
reaches may name its module (:data:`~patchkeeper.runtime.inventory.activation.MAYBE`); its
module is imported only in functions no reached scope calls, or it is itself such a function
(a user, a test or upstream may call them).

A patch of another library (``transformers``, ``torch``: a target outside the audited
upstream) that a traced loading does not reach is **retain**: the upgrade cannot change that
library, and the loading traced is the upstream's, while another library's patch may be
imported by that library's users (a vendored package's integration module). The never-imported fact
stays in the evidence: deleting dead code is a cleanup apart from the upgrade.
"""

from __future__ import annotations

from dataclasses import replace

from patchkeeper.runtime.inventory.activation import IMPORTED_UNCALLED, MAYBE, UNCALLED
from patchkeeper.runtime.inventory.file_facts import MODULE_SCOPE
from patchkeeper.runtime.judge.drift import (
    LOOK,
    NOT_AUDITED,
    REMOVE,
    RETAIN,
    Drift,
    with_decision,
)
from patchkeeper.runtime.lookup.resolve import outside_upstream
from patchkeeper.runtime.model import Activation, PatchEntry


def retained_outside(drift: Drift, target: str, more: str = "") -> Drift:
    """``drift`` (*not audited*: ``target`` is outside the audited upstream) with *retain*,
    its reason the :func:`~patchkeeper.runtime.lookup.resolve.outside_upstream` evidence it
    has, said once: ``X is not part of the upstream being upgraded: this upgrade does not
    change it``, then ``more``."""
    outside = outside_upstream(target)
    kept = tuple(e for e in drift.evidence if e != outside)
    reason = f"{outside}: this upgrade does not change it{more}"
    return replace(drift, decision=RETAIN, evidence=(reason, *kept))


def never_imported(entry: PatchEntry, activation: Activation, drift: Drift) -> Drift:
    """The decision for ``entry``, whose ``activation`` (``entry.activation``) has the
    status *never*: ``drift`` with *remove* or *look* and the reason (*retain* for a
    target outside the audited upstream, the never-imported fact said)."""
    note = activation.note or "no import reaches it"
    if activation.untraced:
        return with_decision(
            drift,
            LOOK,
            f"not reached from the plugin's import or console scripts ({note}), but "
            f"{activation.untraced}: find out whether it runs before removing it",
        )
    if drift.decision == NOT_AUDITED:
        return retained_outside(
            drift,
            entry.target,
            f"; the plugin's loading does not reach it either (never imported "
            f"({note})): another library's patch may be imported by that library's users; if "
            "nothing imports it, delete it apart from this upgrade",
        )
    if note.startswith(MAYBE):
        return with_decision(
            drift,
            LOOK,
            f"not reached by an import the trees show, but it {note}: the trees cannot "
            "tell which modules that name takes; find out whether it runs before "
            "removing it",
        )
    if note.startswith(IMPORTED_UNCALLED):
        return with_decision(
            drift,
            LOOK,
            f"never imported ({note}): the modules holding those imports run, but no call "
            "the plugin's loading reaches runs the functions; a user, a test or upstream "
            "may call them (a method of a class upstream builds): find out whether they "
            "run before removing it",
        )
    if entry.scope != MODULE_SCOPE and note.endswith(UNCALLED):
        return with_decision(
            drift,
            LOOK,
            f"never called ({note}): its module runs, but no call the plugin's loading "
            f"reaches runs {entry.scope}; a user, a test or upstream may call it (a public "
            "function, a method of a class upstream builds): find out whether it runs "
            "before removing it",
        )
    return with_decision(
        drift, REMOVE, f"never imported ({note}): remove it, or re-enable the import"
    )


__all__ = ["never_imported"]
