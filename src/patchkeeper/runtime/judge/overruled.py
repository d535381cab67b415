"""A *retain* of a target upstream changed that a fact of the replacement's own code
overrules (rule 7 of :mod:`patchkeeper.runtime.judge.judge`, after the rules that read the
upstream change): a test of upstream's release the upgrade moves
(:mod:`patchkeeper.runtime.judge.release_branches`), or a class of the plugin's own that
keeps a member of the kind upstream left (:mod:`patchkeeper.runtime.judge.member_kinds`).
"""

from __future__ import annotations

from patchkeeper.runtime.judge.drift import Code, Drift
from patchkeeper.runtime.judge.member_kinds import member_kind_update
from patchkeeper.runtime.judge.release_branches import release_branch_update
from patchkeeper.runtime.model import PatchEntry


def overruled(
    entry: PatchEntry,
    drift: Drift,
    spans: tuple[Code | None, Code | None, Code | None],
    versions: tuple[str, str],
) -> Drift:
    """``drift`` as the first of the two rules (see the module docstring) makes it, or as
    it is. ``spans``: the old upstream definition, the new one and the replacement;
    ``versions``: the old and the new release."""
    moved = release_branch_update(drift, spans[2], versions)
    return moved if moved is not drift else member_kind_update(entry, drift, spans)
