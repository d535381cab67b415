"""One replacement set on several targets: a change it must make for one is made for all.

A plugin often sets the same function of its own on several upstream names (the module
that defines a kernel and each module that imports it: ``sampler.gumbel_sample``,
``speculator.gumbel_sample``, ``gumbel.gumbel_sample`` all set to the plugin's
``gumbel_sample``). When upstream changes the definition the copy follows, the judge says
*update* for the targets where it sees the change. A target the new release does not
define where the plugin says (a module that never had the name, or no longer has it: the
assignment adds it) has no upstream code of its own to compare and stays *retain*, though
the code set on it is the same copy, rewritten by that update: such an entry follows the
update (the vllm-ascend maintainers' records call every entry of a rewritten replacement
updated). A target with upstream code of its own keeps its own judgement: which upstream
calls reach the copy through it may differ (a rebinding in one importing module reaches
that module's calls only).

Only an update of the replacement's code carries: one whose target both releases define
where the plugin says (a change of upstream's code to follow); a retarget (a moved or
renamed target) changes the patch statement, not the shared copy, and carries nothing.
"""

from __future__ import annotations

from dataclasses import replace

from patchkeeper.runtime.judge.drift import RETAIN, UPDATE, Drift
from patchkeeper.runtime.lookup.resolve import FOUND, Resolution
from patchkeeper.runtime.model import PatchEntry


def shared_updates(items: list[tuple[PatchEntry, Resolution, Resolution, Drift]]) -> list[Drift]:
    """The drifts of ``items`` (each entry with its resolution in the old and the new
    release and its judged drift, in order), a *retain* whose target the new release does
    not define where the plugin says made *update* when another entry sets the same
    replacement function (``module:qualname``) and is an *update* of its code (its target
    found in both releases), naming that entry's target."""
    updated: dict[str, str] = {}
    for entry, old, new, drift in items:
        replacement = entry.replacement or ""
        if (
            drift.decision == UPDATE
            and ":" in replacement
            and old.status == FOUND
            and new.status == FOUND
            and not old.partial
            and not new.partial
        ):
            updated.setdefault(replacement, entry.target)
    out: list[Drift] = []
    for entry, _old, new, drift in items:
        replacement = entry.replacement or ""
        source = updated.get(replacement)
        if (
            source is None
            or drift.decision != RETAIN
            or source == entry.target
            or new.status == FOUND
        ):
            out.append(drift)
            continue
        reason = (
            f"the replacement {replacement} is also set on {source}, whose upstream change "
            "it must follow (update there): the code set on this target changes with it"
        )
        out.append(replace(drift, decision=UPDATE, evidence=(reason, *drift.evidence)))
    return out
