"""What a carried change now adds or removes differently, in the manner of ``git range-diff``.

``git range-diff`` compares two versions of a commit by diffing their diffs. Context lines
change with every port and say nothing about the change itself, so only the ``+`` and ``-``
lines are compared, per file, in order: a line that only the old patch adds or removes is
shown with ``-`` in front, one that only the refreshed patch does with ``+`` (range-diff's
outer column), followed by the patch's own marker (its inner column).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass

from patchkeeper.series.model import ADDED, REMOVED, Patch

#: Only in the old patch / only in the refreshed one (range-diff's outer column).
OLD_ONLY = "-"
NEW_ONLY = "+"


@dataclass(frozen=True)
class ChangeLine:
    """One changed line that differs between the old and the refreshed patch.

    Attributes:
        path: the file (in the refreshed patch when it moved).
        side: :data:`OLD_ONLY` or :data:`NEW_ONLY`.
        kind: ``"+"`` (the patch adds the line) or ``"-"`` (it removes it).
        text: the line, without its line ending.
    """

    path: str
    side: str
    kind: str
    text: str


@dataclass(frozen=True)
class PatchChange:
    """How the refreshed patch's change compares with the old one's.

    Attributes:
        same: both add and remove exactly the same lines in the same files (only context
            and line numbers differ).
        old_hunks, new_hunks: how many hunks each has.
        moved: ``(old path, new path)`` of files whose changes now go elsewhere.
        lines: the differing lines, per file in order.
    """

    same: bool
    old_hunks: int
    new_hunks: int
    moved: tuple[tuple[str, str], ...] = ()
    lines: tuple[ChangeLine, ...] = ()

    @property
    def summary(self) -> str:
        """One phrase: ``same change`` or what differs."""
        if self.same:
            return "same change, context refreshed"
        old = sum(1 for line in self.lines if line.side == OLD_ONLY)
        new = sum(1 for line in self.lines if line.side == NEW_ONLY)
        parts = []
        if old:
            parts.append(f"{old} changed line{'s' if old != 1 else ''} no longer in the patch")
        if new:
            parts.append(f"{new} new changed line{'s' if new != 1 else ''}")
        if self.moved:
            parts.append(", ".join(f"{a} -> {b}" for a, b in self.moved))
        return "; ".join(parts) or "same lines in other places"


def changed_lines(patch: Patch, moved: Mapping[str, str] | None = None) -> dict[str, list[str]]:
    """Per file (moved to its new path), the patch's ``+``/``-`` lines as ``"+text"``."""
    moved = moved or {}
    out: dict[str, list[str]] = {}
    for diff in patch.files:
        path = moved.get(diff.path, diff.path)
        lines = out.setdefault(path, [])
        for hunk in diff.hunks:
            for line in hunk.lines:
                if line.kind in (ADDED, REMOVED):
                    text = line.text.decode("utf-8", "surrogateescape").rstrip("\r\n")
                    lines.append(line.kind + text)
    return out


def compare(old: Patch, new: Patch | None, moved: Mapping[str, str] | None = None) -> PatchChange:
    """Compare the changed lines of ``old`` and its refreshed version ``new``.

    ``new`` is ``None`` when nothing is left to carry (every line is then old-only).
    """
    moved = moved or {}
    before = changed_lines(old, moved)
    after = changed_lines(new) if new is not None else {}
    lines: list[ChangeLine] = []
    for path in list(before) + [p for p in after if p not in before]:
        a, b = before.get(path, []), after.get(path, [])
        matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            lines.extend(ChangeLine(path, OLD_ONLY, x[0], x[1:]) for x in a[i1:i2])
            lines.extend(ChangeLine(path, NEW_ONLY, x[0], x[1:]) for x in b[j1:j2])
    old_hunks = sum(len(d.hunks) for d in old.files)
    new_hunks = sum(len(d.hunks) for d in new.files) if new is not None else 0
    pairs = tuple((a, b) for a, b in moved.items() if a != b)
    return PatchChange(not lines and not pairs, old_hunks, new_hunks, pairs, tuple(lines))
