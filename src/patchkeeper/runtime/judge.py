"""From the drift of one entry to the decision a careful maintainer takes (issue 10).

:func:`patchkeeper.runtime.drift.decide` compares the old upstream, the new upstream and the
plugin's replacement. This module adds what that comparison cannot see, in this order (the
first rule that applies decides):

1. *never imported* -> **remove** (or re-enable), naming where the import is missing;
2. a version gate on the entry's activation that is dead at the new release -> **remove**;
3. a target in neither release -> **investigate** (a typo or a future name), unless the patch
   says ``allow_missing``; a target that existed at the old release and is gone without a
   trace -> **remove** (the affected path no longer exists); moved -> **update** (retarget);
4. the new upstream target, or a function of its module that calls it, consults an extension
   point the old release did not have (:mod:`patchkeeper.runtime.hooks`) -> **migrate**;
5. an upstream change that is only noise (:mod:`patchkeeper.runtime.noise`) -> **retain**,
   said to be cosmetic with the reason;
6. a full-replacement copy that already differs from the OLD upstream outside its
   Modification banners -> **update** even when this upgrade did not touch the target (the
   copy missed an earlier upstream change).
"""

from __future__ import annotations

from dataclasses import replace

from patchkeeper.runtime.drift import (
    INVESTIGATE,
    MIGRATE,
    NOT_AUDITED,
    REMOVE,
    RETAIN,
    UPDATE,
    Code,
    Drift,
)
from patchkeeper.runtime.gates import evaluate
from patchkeeper.runtime.hooks import new_hooks
from patchkeeper.runtime.model import ActivationStatus, PatchEntry
from patchkeeper.runtime.noise import cosmetic_reason
from patchkeeper.runtime.resolve import FOUND, MOVED, REMOVED, Resolution
from patchkeeper.runtime.upstream import UpstreamTree


def _dead_gate(entry: PatchEntry, new_version: str) -> str:
    """The first version condition on the way to ``entry`` that is false at
    ``new_version``, as ``"file:line: test"``; ``""`` when none."""
    activation = entry.activation
    if activation is None or not new_version:
        return ""
    for condition in activation.conditions:
        test = condition.text
        if condition.kind == "else" or test.startswith("not ("):
            test = test if test.startswith("not (") else f"not ({test})"
        if evaluate(test, new_version) is False:
            return f"{condition.file}:{condition.line}: {condition.text}"
    return ""


def judge(
    entry: PatchEntry,
    drift: Drift,
    old: Resolution,
    new: Resolution,
    trees: tuple[UpstreamTree, UpstreamTree],
    spans: tuple[Code | None, Code | None, Code | None],
    versions: tuple[str, str],
    header: str = "",
) -> Drift:
    """The refined :class:`Drift` of one entry (see the module docstring).

    Args:
        versions: the old and new upstream versions (``""`` when unknown: gates are then
            not evaluated).
        header: the entry's file's header comment (its ``Note:`` and the rest), read for
            what the patch says it avoids on purpose.
    """
    activation = entry.activation
    if activation is not None and activation.status is ActivationStatus.NEVER:
        note = activation.note or "no import reaches it"
        return _with(drift, REMOVE, f"never imported ({note}): remove it, or re-enable the import")
    gate = _dead_gate(entry, versions[1])
    if gate:
        return _with(
            drift, REMOVE, f"its version gate is false at {versions[1]} ({gate}): dead code there"
        )
    if drift.decision == NOT_AUDITED:
        return drift
    if entry.replacement == "<removed>" and entry.key is not None and new.status == FOUND:
        return _removal(entry, drift, new)
    if new.status != FOUND:
        return _missing(entry, drift, old, new)
    if old.status != FOUND:
        return drift
    old_code, new_code, _mine = spans
    hooks = new_hooks(entry, old, new, trees, old_code, new_code)
    if hooks:
        return _with(
            drift,
            MIGRATE,
            "the new upstream consults an extension point the old release did not have: "
            + "; ".join(hooks),
        )
    if drift.decision == UPDATE and old_code is not None and new_code is not None:
        reason = cosmetic_reason(old_code, new_code, header)
        if reason:
            return _with(drift, RETAIN, f"the upstream change is cosmetic: {reason}")
    if drift.decision == RETAIN and drift.outside_banners:
        return _with(
            drift,
            UPDATE,
            f"the copy differs from the old upstream outside its Modification banners "
            f"({len(drift.outside_banners)} line(s)): it missed an earlier upstream change",
        )
    return drift


def _removal(entry: PatchEntry, drift: Drift, new: Resolution) -> Drift:
    """A registry key the plugin deletes: still needed while upstream still has the key."""
    if drift.decision == REMOVE:  # drift found the key in the new upstream definition
        return _with(
            drift,
            RETAIN,
            f"the new upstream {new.location} still has the key {entry.key}: the plugin's "
            "removal of it is still needed",
        )
    return _with(
        drift,
        REMOVE,
        f"the new upstream {new.location} no longer has the key {entry.key}: nothing to remove",
    )


def _missing(entry: PatchEntry, drift: Drift, old: Resolution, new: Resolution) -> Drift:
    """The decision for a target the new release does not define where the plugin says."""
    if old.status != FOUND and new.status == REMOVED:
        if entry.allow_missing:
            return _with(
                drift,
                RETAIN,
                f"{entry.target} is in neither release; the patch adds it on purpose "
                "(allow_missing)",
            )
        return _with(
            drift,
            INVESTIGATE,
            f"{entry.target} is in neither release: a typo or a future name",
        )
    if old.status != FOUND and new.status == MOVED:
        return _with(
            drift,
            INVESTIGATE,
            f"{entry.target} is not defined at that path in either release; the name is "
            f"defined at {', '.join(new.candidates[:3])}: a wrong path or a future name",
        )
    if new.status == MOVED:
        return _with(
            drift, UPDATE, f"{entry.target} moved: retarget to {', '.join(new.candidates[:3])}"
        )
    if new.status == REMOVED:
        return _with(
            drift,
            REMOVE,
            f"{entry.target} existed at the old release and is gone from the new one: "
            "the affected path no longer exists",
        )
    return drift


def _with(drift: Drift, decision: str, reason: str) -> Drift:
    """``drift`` with ``decision`` and ``reason`` first in its evidence."""
    evidence = (reason, *(e for e in drift.evidence if e != reason))
    return replace(drift, decision=decision, evidence=evidence)
