"""The restoring statement of a temporary swap has nothing of its own to change.

``original = utils.bind_kv_cache; utils.bind_kv_cache = bridge; try: ... finally:
utils.bind_kv_cache = original`` lists two entries, both temporary
(:mod:`patchkeeper.runtime.inventory.temporary_swaps`): the swap, and the statement in the
``finally`` that puts upstream's own object back. The restore replaces nothing of its own,
so judging it alone says nothing a person can act on: its value is read as an expression,
so the rules for a wrapper that calls the original do not apply, and an upstream change of
the target made it *migrate* where the swap itself was *update*. Whatever the upgrade asks of the
swap is asked of the swap's line; the line that undoes it stays as it is (*retain*, naming
the swap and its decision), as the maintainers keep it, unless the swap goes (*remove*):
then it goes with it. The first temporary entry of a
target in a scope is the swap; a later one of the same target and key in that scope, whose
value is an expression (the saved original, no function or class of the plugin), is its
restore.
"""

from __future__ import annotations

from dataclasses import replace

from patchkeeper.runtime.judge.drift import REMOVE, RETAIN, Drift
from patchkeeper.runtime.model import PatchEntry

#: The replacement an entry has when its value is an expression (the saved original).
EXPRESSION = "<expr>"


def restores(pairs: list[tuple[PatchEntry, Drift]]) -> list[Drift]:
    """The drift of each ``(entry, drift)``: a temporary swap's restoring statement is
    *retain* (*remove* with a swap that is *remove*), naming the swap (the earliest
    temporary entry of its file, scope, target and key) and its decision, its own evidence
    after the reason; every other drift as it is."""
    swaps: dict[tuple[str, str, str, str | None], tuple[PatchEntry, Drift]] = {}
    for entry, drift in sorted(pairs, key=lambda pair: (pair[0].file, pair[0].line)):
        if entry.temporary:
            swaps.setdefault((entry.file, entry.scope, entry.target, entry.key), (entry, drift))
    out = []
    for entry, drift in pairs:
        swap = swaps.get((entry.file, entry.scope, entry.target, entry.key))
        if swap is None or swap[0] is entry or entry.replacement != EXPRESSION:
            out.append(drift)
            continue
        first, decided = swap
        swap_at = f"the temporary swap at {first.file}:{first.line}"
        if decided.decision == REMOVE:
            decision, reason = REMOVE, f"restores upstream's {entry.target} after {swap_at}: "
            reason += "it goes with the swap (the swap: remove)"
        else:
            decision, reason = RETAIN, f"restores upstream's {entry.target} after {swap_at}: "
            reason += f"nothing of its own to change (the swap: {decided.decision})"
        evidence = (reason, *(e for e in drift.evidence if e != reason))
        out.append(replace(drift, decision=decision, evidence=evidence))
    return out
