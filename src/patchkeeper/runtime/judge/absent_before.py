"""What the audit says of a target the old release does not define and the new one does:
not at its path at all, or not under the class the old release has. The old release did
not drop it, so the words "moved" or "removed" (which say what a *new* release did) would
misread; the sentence says where the old release had the name, if anywhere."""

from __future__ import annotations

from patchkeeper.runtime.lookup.resolve import MOVED, REMOVED, Resolution


def absent_before(target: str, old: Resolution, new: Resolution) -> str:
    """The evidence for ``target`` found in the new tree (``new``) and not in the old one
    (``old``: status ``moved``, ``removed`` or another one not ``found``, or ``found`` with
    the target a ``partial`` name under the class found)."""
    if old.partial:
        lacks = f"is not in the old upstream ({old.location} has no {old.partial})"
    elif old.status == MOVED and old.candidates:
        where = ", ".join(old.candidates)
        lacks = (
            f"is not at that path in the old upstream (the old release defines the name at {where})"
        )
    elif old.status in (MOVED, REMOVED):
        lacks = "is not in the old upstream (no definition of the name there)"
    else:
        lacks = f"is {old.status} in the old upstream"
    return f"{target} {lacks} but is found in the new one at {new.location}"
