"""The facts of one audited entry, apart from the decision drawn from them.

The decision (:mod:`patchkeeper.runtime.judge.judge`) follows from facts by a short table
(docs/commands/runtime.md, "Facts and the decision table"); the facts are reported on their
own, so that a reader can check them and a maintainer who decides otherwise still has them:

- *activation*: active, conditional (with the conditions), never imported (with where the
  import is missing), and whether the plugin's loading was traced at all;
- *target*: where the target is in each release (found, moved with where it is now,
  removed, outside the audited upstream);
- *upstream change*: what changed between the releases (kind, signature, decorators,
  body), or nothing;
- *copy*: lines of the replacement outside its Modification banners that differ from the
  old upstream, and whether the new upstream definition equals the replacement;
- *newer imports*: the upstream modules the entry's file imports unconditionally that the
  old release lacks (the patch was written for a newer release).
"""

from __future__ import annotations

from patchkeeper.runtime.inventory.activation import never_called
from patchkeeper.runtime.judge.drift import EQUALS_NEW, Drift
from patchkeeper.runtime.lookup.resolve import FOUND, MOVED, Resolution
from patchkeeper.runtime.model import ActivationStatus, PatchEntry


def entry_facts(
    entry: PatchEntry,
    old: Resolution,
    new: Resolution,
    drift: Drift,
    newer: tuple[str, ...] = (),
) -> tuple[str, ...]:
    """The facts of one entry (see the module docstring), as sentences in a fixed order:
    activation, target, upstream change, copy, and the upstream modules ``newer`` its file
    imports that the old release lacks
    (:func:`patchkeeper.runtime.judge.newer_imports.newer_imports`)."""
    out = [_activation(entry)]
    out.append(f"target: {_where(old)} in the old release, {_where(new)} in the new one")
    if old.status == FOUND and new.status == FOUND and not new.partial:
        changes = ", ".join(drift.upstream_changes) or "nothing"
        out.append(f"upstream changed: {changes}")
    if drift.outside_banners:
        out.append(
            f"the copy differs from the old upstream outside its Modification banners: "
            f"{len(drift.outside_banners)} line(s)"
        )
    if EQUALS_NEW in drift.evidence:
        out.append(EQUALS_NEW)
    if newer:
        out.append(f"imports what the old release lacks: {', '.join(newer)}")
    return tuple(out)


def _activation(entry: PatchEntry) -> str:
    activation = entry.activation
    if activation is None:
        return "activation: not traced"
    if activation.status is ActivationStatus.NEVER:
        traced = "loading untraced" if activation.untraced else "loading traced"
        never = "never called" if never_called(entry) else "never imported"
        return f"activation: {never} ({activation.note}; {traced})"
    if activation.status is ActivationStatus.CONDITIONAL:
        conditions = "; ".join(
            f"{c.described()} ({c.file}:{c.line})" for c in activation.conditions
        )
        return f"activation: conditional: {conditions}"
    return "activation: active"


def _where(found: Resolution) -> str:
    if found.status == FOUND:
        return f"found at {found.location}" + (
            f" (attribute {found.partial})" if found.partial else ""
        )
    if found.status == MOVED and found.candidates:
        return f"moved (now {', '.join(found.candidates[:2])})"
    return found.status
