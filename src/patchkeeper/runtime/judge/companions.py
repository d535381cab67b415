"""A patch in a function nothing calls that sets what a running patch of its file sets.

An entry in a function of a module the plugin's loading imports, which no reached scope
calls, is *look* (rule 1 of :mod:`patchkeeper.runtime.judge.judge`): a user, a test or
upstream may call it, so it is not removed for "never imported". Often that function is the
counterpart of one the loading runs: ``uninstall()`` puts back into ``op_registry_oot`` what
``install()`` replaced there (vllm-ascend-split-batch's ``rope_fix_plugin.py``). Such an
entry has no fate of its own: it stands or falls with the running patch of the same file
on the same target, and asking the maintainers to find out whether it runs asks them
nothing they need to decide. When that running patch is kept (*retain*), so is the entry,
said to be its companion; any other decision of the running patch leaves the entry *look*
(it may need the same change, which the trees cannot tell). The maintainers kept both such
entries through four releases of vllm-ascend-split-batch.
"""

from __future__ import annotations

from dataclasses import replace

from patchkeeper.runtime.inventory.activation import UNCALLED
from patchkeeper.runtime.inventory.file_facts import MODULE_SCOPE
from patchkeeper.runtime.judge.drift import LOOK, RETAIN, Drift
from patchkeeper.runtime.model import ActivationStatus, PatchEntry


def uncalled(entry: PatchEntry) -> bool:
    """Whether ``entry`` is in a function of a module the loading imports that no reached
    scope calls (its activation says so; a module nothing imports is not that)."""
    activation = entry.activation
    return (
        activation is not None
        and activation.status is ActivationStatus.NEVER
        and not activation.untraced
        and entry.scope != MODULE_SCOPE
        and (activation.note or "").endswith(UNCALLED)
    )


def _runs(entry: PatchEntry) -> bool:
    """Whether the plugin's loading reaches ``entry`` (active, or behind a condition)."""
    activation = entry.activation
    return activation is None or activation.status is not ActivationStatus.NEVER


def companions(pairs: list[tuple[PatchEntry, Drift]]) -> list[Drift]:
    """The drifts of ``pairs`` (entries with their judged drift, in order) with each *look*
    of an uncalled function's entry (:func:`uncalled`) made *retain* when an entry of the
    same file on the same target (a registry's keys are one target) runs and is kept: the
    first such entry is named in the evidence, which keeps the "never called" fact after
    it. Every other drift is returned as it is."""
    kept: dict[tuple[str, str], PatchEntry] = {}
    for entry, drift in pairs:
        if drift.decision == RETAIN and _runs(entry):
            kept.setdefault((entry.file, entry.target), entry)
    out = []
    for entry, drift in pairs:
        partner = kept.get((entry.file, entry.target))
        if partner is None or drift.decision != LOOK or not uncalled(entry):
            out.append(drift)
            continue
        reason = (
            f"{entry.scope} patches {entry.target}, as the patch at {partner.file}:"
            f"{partner.line} does, which the plugin's loading runs and which is kept: a "
            "counterpart nothing in the plugin calls (an uninstall that puts back what it "
            "replaced, or another way to install it), it stands or falls with that patch"
        )
        out.append(replace(drift, decision=RETAIN, evidence=(reason, *drift.evidence)))
    return out
