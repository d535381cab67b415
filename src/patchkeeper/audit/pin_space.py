"""Which side changed the white space at the ends of a failing hunk's lines.

A hunk that fails at the new release only because of white space at the ends of its lines
is, by itself, what a patch that went through a mail client or an editor looks like: the
advice is to take the patch again from where it came from. When the old pin's file has the
hunk's lines exactly as the patch has them, the patch is whole: upstream changed that white
space between the releases (a release that strips trailing white space from its README),
and the patch needs a refresh on the new release, not a new copy.
"""

from __future__ import annotations

from dataclasses import replace

from patchkeeper.series.hunk_evidence import HunkEvidence
from patchkeeper.series.hunks import locate
from patchkeeper.series.model import Hunk, Patch
from patchkeeper.upstream.treesearch import TreeSearch

__all__ = ["UPSTREAM_SPACE_ADVICE", "pin_space_evidence"]

#: What a white-space failure says to do when the old pin's file has the patch's lines.
UPSTREAM_SPACE_ADVICE = (
    "; the old pin's file has the patch's lines as they are, so upstream changed the white "
    "space at their ends since the pin and the patch is whole: refresh it on the new release "
    "(apply it with 'patch -l', then regenerate it)"
)


def pin_space_evidence(
    patch: Patch, evidence: HunkEvidence, pin: TreeSearch | None
) -> HunkEvidence:
    """``evidence`` of a hunk of ``patch`` that fails at the new release, with its advice
    on white space at the ends of lines (:attr:`HunkEvidence.space`) turned to
    :data:`UPSTREAM_SPACE_ADVICE` when the old pin's tree ``pin`` has the hunk's lines as
    the patch has them; else as it is."""
    space = evidence.space
    if pin is None or space is None:
        return evidence
    found = _hunk(patch, evidence)
    if found is None:
        return evidence
    path, hunk = found
    state = pin.state(path)
    if state is None or locate(state.lines, hunk) is None:  # the patch applies at the pin
        return evidence
    return replace(evidence, note=space.words(UPSTREAM_SPACE_ADVICE))


def _hunk(patch: Patch, evidence: HunkEvidence) -> tuple[str, Hunk] | None:
    """The file the pin has (the diff's old path) and the hunk ``evidence`` is about: the
    hunk whose ``@@`` line is at the evidence's line of the patch file."""
    for diff in patch.files:
        for hunk in diff.hunks:
            if hunk.line_no == evidence.patch_line:
                return diff.old_path or diff.path, hunk
    return None
