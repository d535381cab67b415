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
that module's calls only). But a name both releases bind to the very definition the
updated entry patches (a module's import of it: ``speculator.load_model`` beside
``utils.load_model``, the one function both names are bound to), when that definition is a
function upstream changed in its body alone, has no upstream code of its own: it was read
only as a plain assignment of the plugin's function, where the entry on the definition
reads the same function as the wrapper it is; what that function must change for
upstream's body it changes on both names (every call through either runs it), so the
entry follows the update too. A new signature or a class's change is not carried: which
calls pass what decides there.

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
    updated: dict[str, tuple[str, str, str, bool]] = {}
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
            function = new.definition is not None and new.definition.kind == "function"
            body_alone = function and drift.upstream_changes == ("body",)
            updated.setdefault(replacement, (entry.target, old.location, new.location, body_alone))
    out: list[Drift] = []
    for entry, old, new, drift in items:
        replacement = entry.replacement or ""
        found = updated.get(replacement)
        source = found[0] if found is not None else ""
        if found is None or drift.decision != RETAIN or source == entry.target:
            out.append(drift)
            continue
        if new.status != FOUND:
            reason = (
                f"the replacement {replacement} is also set on {source}, whose upstream "
                "change it must follow (update there): the code set on this target changes "
                "with it"
            )
        elif _same_definition(entry, old, new, found):
            reason = (
                f"the replacement {replacement} is also set on {source}, the upstream "
                "definition this name is bound to in both releases, whose upstream change "
                "it must follow (update there): the code set on this name changes with it"
            )
        else:
            out.append(drift)
            continue
        out.append(replace(drift, decision=UPDATE, evidence=(reason, *drift.evidence)))
    return out


def _same_definition(
    entry: PatchEntry, old: Resolution, new: Resolution, source: tuple[str, str, str, bool]
) -> bool:
    """Whether ``entry``'s target is a name bound elsewhere than it says to the definition
    the updated entry ``source`` (its target, the locations of its definition in the old
    and the new release, and whether that definition is a function upstream changed in its
    body alone) patches: the same location in each release, which is that entry's own
    target, neither resolution reaching only part of it, and a function's body alone
    changed. A new signature, or a class's change, is not carried: which upstream calls
    pass a new parameter, and so which of the names they reach the replacement through,
    decides there (a rebinding in an importing module reaches that module's calls only)."""
    target, old_location, new_location, body_alone = source
    return (
        body_alone
        and old.status == FOUND
        and not old.partial
        and not new.partial
        and old.location == old_location
        and new.location == new_location
        and new_location == target
        and entry.target != new.location
    )
