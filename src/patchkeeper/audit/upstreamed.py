"""When is a patch upstream although it does not reverse-apply? The file-weighted rules.

Real backports rarely match upstream's fix line for line: upstream reformats (Django 4.0 ran black
over the whole tree), moves the code to another file, writes its own tests and release notes. So,
beyond "the patch reverse-applies" and "every hunk's post-image is there", two weaker rules, weighed
by file:

- *code upstream, tests and docs differ*: every hunk of every code file (not a test, not
  documentation: :func:`patchkeeper.series.substantive_lines.is_code`) has its added lines in
  the new file, in order and close together (reformatted lines count,
  :class:`patchkeeper.series.substantive_lines.FileIndex`);
- *written differently*: every code file has at least :data:`WRITTEN_DIFFERENTLY` of its
  substantive added lines somewhere in the new file (or where the file's content moved), and
  together they add at least :data:`MIN_CODE_LINES`; the lines that are missing are named,
  because they are what retiring the patch would lose.

Both were measured on Debian's python-django series from 3.2.25 to 4.2.30, where every
security backport is upstream and written differently (``benchmarks/results/port.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from patchkeeper.series.substantive_lines import is_code

#: The share of a code file's substantive added lines that must be in the new upstream for
#: *written differently* (Django 3.2 -> 4.2: upstream fixes score 0.75 to 1.0 per file;
#: Debian's own patches score 0).
WRITTEN_DIFFERENTLY = 0.75
#: At least this many substantive added lines over the code files, so that one or two
#: common lines (``return cols``) cannot carry the verdict alone.
MIN_CODE_LINES = 3
PRESENT = "present"


class _Status(Protocol):
    """A hunk's status (:class:`patchkeeper.audit.verdicts.HunkVerdict`)."""

    @property
    def path(self) -> str: ...
    @property
    def index(self) -> int: ...
    @property
    def status(self) -> str: ...


class _Share(Protocol):
    """A file's share (:class:`patchkeeper.audit.verdicts.FileShare`)."""

    @property
    def path(self) -> str: ...
    @property
    def found(self) -> int: ...
    @property
    def total(self) -> int: ...
    @property
    def where(self) -> str | None: ...
    @property
    def missing(self) -> tuple[str, ...]: ...


def code_upstream(statuses: Sequence[_Status]) -> str | None:
    """The evidence that every code hunk is upstream, or ``None``.

    ``None`` also when the patch has no code hunk (a test-only patch is not judged by this
    rule).
    """
    code = [s for s in statuses if is_code(s.path)]
    if not code or any(s.status != PRESENT for s in code):
        return None
    present = ", ".join(f"{s.path} #{s.index}" for s in code)
    rest = [f"{s.path} #{s.index} {s.status}" for s in statuses if not is_code(s.path)]
    text = f"every code hunk's post-image is there ({present})"
    if rest:
        text += f"; tests and docs differ ({', '.join(rest)})"
    return text


def written_differently(shares: Sequence[_Share]) -> str | None:
    """The evidence that upstream has the change written differently, or ``None``."""
    code = [s for s in shares if is_code(s.path) and s.total]
    if not code or sum(s.total for s in code) < MIN_CODE_LINES:
        return None
    if any(s.found < WRITTEN_DIFFERENTLY * s.total for s in code):
        return None
    parts = []
    for share in code:
        where = f" (in {share.where})" if share.where and share.where != share.path else ""
        parts.append(f"{share.path} {share.found}/{share.total}{where}")
    text = (
        "upstream has it written differently: every code file has at least "
        f"{WRITTEN_DIFFERENTLY:.0%} of its substantive added lines there ({', '.join(parts)})"
    )
    missing = [line for share in code for line in share.missing]
    if missing:
        shown = "; ".join(f"`{line}`" for line in missing[:3])
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        text += f"; not found, review before retiring: {shown}{more}"
    return text
