"""When is a patch upstream although it does not reverse-apply? The file-weighted rules.

Real backports rarely match upstream's fix line for line (issues "patchkeeper 3" and "6",
verdict accuracy): upstream reformats (Django 4.0 ran black over the whole tree), moves the
code to another file, renames a helper, writes its own tests and release notes. So, beyond
"the patch reverse-applies" and "every hunk's post-image is there", weaker rules, weighed by
the patch's deciding kind of file (:func:`patchkeeper.series.filekinds.primary_kind`: its code, and
configuration with it; its tests for a tests-only patch):

- *code upstream, tests and docs differ*: every hunk of the deciding files has its intent in
  the new release (:mod:`patchkeeper.audit.hunk_verdicts`);
- *written differently*: every deciding file has at least :data:`WRITTEN_DIFFERENTLY` of its
  counted added lines in the new release (those the old pin lacks, when its tree is known:
  :mod:`patchkeeper.audit.shares`), or, when the new release's changelog names the fix, the files
  together at least :data:`MENTIONED_SHARE`; at least :data:`MIN_CODE_LINES` lines count;
  the lines not found and those spelled differently are named, because they are what
  retiring the patch would lose;
- *most of it there* (more than half, not enough for the above): *partially upstreamed*, for
  a person to decide; never a plain conflict.

Measured on Debian's python-django series from 3.2.25 to 4.2.30, where every security
backport is upstream and written differently (``benchmarks/results/port.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from patchkeeper.audit.hunk_refs import HunkStatus, hunk_namer
from patchkeeper.series.filekinds import CODE, CONFIG, NOTES, kind_of

#: The share of a code file's substantive added lines that must be in the new upstream for
#: *written differently* (Django 3.2 -> 4.2: upstream fixes score 0.75 to 1.0 per file;
#: Debian's own patches score 0).
WRITTEN_DIFFERENTLY = 0.75
#: At least this many substantive added lines over the code files, so that one or two
#: common lines (``return cols``) cannot carry the verdict alone.
MIN_CODE_LINES = 3
#: With the new release's changelog naming the fix, this share of the counted added lines
#: over all files of the deciding kind is enough.
MENTIONED_SHARE = 0.5
#: With the changelog naming the fix and the pin known, this many counted lines are enough
#: when every one of them is there (a two-line fix, spelled differently).
MENTIONED_MIN_LINES = 2
#: Without a mention, this share of the counted added lines over all files of the deciding
#: kind is enough even when one file falls short of :data:`WRITTEN_DIFFERENTLY` (upstream
#: rewrote one function of the fix: measured on the accuracy corpus, upstream fixes score
#: 0.61 to 0.86 over the patch, the carried patches at most 0.5).
OVERALL_SHARE = 0.6
#: The share rule of :data:`OVERALL_SHARE` needs at least this many counted lines: two of
#: three lines is too little to retire a patch on without other evidence.
OVERALL_MIN_LINES = 4
PRESENT = "present"


class _Status(HunkStatus, Protocol):
    """A hunk's status (:class:`patchkeeper.audit.verdicts.HunkVerdict`) with its outcome."""

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
    @property
    def counted(self) -> tuple[int, int]: ...
    @property
    def respelled(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def displaced(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def contrary(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def imports(self) -> tuple[int, int]: ...


def decides(path: str, kind: str) -> bool:
    """Whether ``path``'s hunks decide a verdict judged on ``kind``: files of that kind, and
    configuration when the patch has code (configuration is never waived like tests)."""
    mine = kind_of(path)
    return mine == kind or (kind == CODE and mine == CONFIG)


def code_upstream(statuses: Sequence[_Status], kind: str = CODE) -> str | None:
    """The evidence that every hunk of the deciding kind is upstream, or ``None``.

    ``kind`` is the patch's deciding kind (:func:`patchkeeper.series.filekinds.primary_kind`): its
    code (and configuration) for a patch with code, its tests for a tests-only patch. The
    other files (tests, docs, release notes) may differ: upstream writes its own.
    """
    judged = [s for s in statuses if decides(s.path, kind)]
    if not judged or any(s.status != PRESENT for s in judged):
        return None
    ref = hunk_namer(statuses)
    present = ", ".join(map(ref, judged))
    rest = [f"{ref(s)} {s.status}" for s in statuses if not decides(s.path, kind)]
    name = "code" if kind == CODE else kind
    text = f"every {name} hunk's post-image is there ({present})"
    if kind != CODE:
        text += f" ({kind} only)"
    if rest:
        text += f"; {_others(kind)} differ ({', '.join(rest)})"
    return text


def _others(kind: str) -> str:
    return "tests and docs" if kind == CODE else "the other files"


def _counted(shares: Sequence[_Share], kind: str) -> list[_Share]:
    return [s for s in shares if decides(s.path, kind) and s.counted[1]]


def _missing_text(shares: Sequence[_Share]) -> str:
    """The differing lines named: those not found, then those found spelled differently."""
    missing = [line for share in shares for line in share.missing]
    respelled = [pair for share in shares for pair in share.respelled]
    return (
        _named("not found, review before retiring", [f"`{line}`" for line in missing], 3)
        + _named("spelled differently", [f"`{a}` as `{b}`" for a, b in respelled], 2)
        + _elsewhere_text(shares)
    )


def _elsewhere_text(shares: Sequence[_Share]) -> str:
    """The added lines the new release has only at another place, and those it has with
    another meaning, named: neither counts as found."""
    displaced = [pair for share in shares for pair in share.displaced]
    contrary = [pair for share in shares for pair in share.contrary]
    return _named(
        "only at another place than the patch's", [f"`{a}` in {b}" for a, b in displaced], 2
    ) + _named("there with another meaning", [f"`{a}` as `{b}`" for a, b in contrary], 2)


def _named(what: str, shown: list[str], limit: int) -> str:
    """``"; WHAT: a; b and N more"``, the first ``limit`` of ``shown``; ``""`` for none."""
    if not shown:
        return ""
    more = f" and {len(shown) - limit} more" if len(shown) > limit else ""
    return f"; {what}: {'; '.join(shown[:limit])}{more}"


def _pin_text(pin_known: bool) -> str:
    return (
        " (lines the old pin already had are not counted)"
        if pin_known
        else " (the old pin's tree was not available: lines it already had are counted too)"
    )


def _every_file(counts: Sequence[tuple[int, int]]) -> bool:
    """Whether every file with lines that count (``(found, total)``) has at least
    :data:`WRITTEN_DIFFERENTLY` of them found."""
    return all(found >= WRITTEN_DIFFERENTLY * total for found, total in counts if total)


def written_differently(
    shares: Sequence[_Share],
    kind: str = CODE,
    mentioned: bool = False,
    pin_known: bool = False,
    named_by: str = "the changelog names the fix",
) -> str | None:
    """The evidence that upstream has the change written differently, or ``None``.

    Every file of the deciding kind must have at least :data:`WRITTEN_DIFFERENTLY` of its
    counted added lines (those the old pin lacks, when its tree is known) in the new
    release; or, with the old pin known and at least :data:`OVERALL_MIN_LINES` counted lines,
    the files together at least :data:`OVERALL_SHARE`; or, when the new release's changelog
    names the patch's fix (``mentioned``; or the patch's ``Applied-Upstream`` names the
    release, said by ``named_by``), at least :data:`MENTIONED_SHARE`. At least
    :data:`MIN_CODE_LINES` lines must count. A line the new release has only at another
    place than the patch's (another function the old pin had, beside the patch's own) does
    not count, and one it has with its meaning turned (a negation, a comparison or a boolean
    changed) rules the verdict out: :func:`mostly_there` names them for a person.
    """
    counted = _counted(shares, kind)
    if any(s.contrary for s in counted):
        return None  # upstream says something else on a line of it: a person decides
    found = sum(s.counted[0] for s in counted)
    total = sum(s.counted[1] for s in counted)
    few = mentioned and pin_known and total >= MENTIONED_MIN_LINES and found == total
    if not counted or (total < MIN_CODE_LINES and not few):
        return _with_tests(shares, found, mentioned and pin_known, named_by)
    every = _every_file([s.counted for s in counted])
    overall = pin_known and total >= OVERALL_MIN_LINES
    enough = MENTIONED_SHARE if mentioned else OVERALL_SHARE if overall else 1.0
    if not every and found < enough * total:
        return _with_tests(shares, found, mentioned and pin_known, named_by)
    # the lines that are not imports must make the share too: a release gains imports for
    # code of its own, and an import names what a file uses, not what it does with it
    logic = [(s.counted[0] - s.imports[0], s.counted[1] - s.imports[1]) for s in counted]
    logic_found, logic_total = sum(f for f, _ in logic), sum(t for _, t in logic)
    if logic_total and not _every_file(logic) and logic_found < enough * logic_total:
        return None
    parts = []
    for share in counted:
        where = f" (in {share.where})" if share.where and share.where != share.path else ""
        parts.append(f"{share.path} {share.counted[0]}/{share.counted[1]}{where}")
    name = "code file" if kind == CODE else f"{kind} file"
    rule = (
        f"every {name} has at least {WRITTEN_DIFFERENTLY:.0%} of its substantive added lines there"
        if every
        else f"{found} of {total} substantive added lines are there and {named_by}"
        if mentioned
        else f"{found} of {total} substantive added lines are there"
    )
    text = f"upstream has it written differently: {rule} ({', '.join(parts)})"
    if kind != CODE:
        text += f" ({kind} only)"
    return text + _pin_text(pin_known) + _missing_text(counted)


def _with_tests(
    shares: Sequence[_Share],
    found: int,
    mentioned: bool,
    named_by: str = "the changelog names the fix",
) -> str | None:
    """With the changelog naming the fix and the old pin known, the patch's files of every
    kind but release notes together (upstream's own regression tests for the fix count):
    at least :data:`WRITTEN_DIFFERENTLY` of at least :data:`OVERALL_MIN_LINES` counted lines,
    with at least one deciding line among them (``found``); else ``None``."""
    if not mentioned or not found:
        return None
    counted = [s for s in shares if kind_of(s.path) != NOTES and s.counted[1]]
    whole_found = sum(s.counted[0] for s in counted)
    whole = sum(s.counted[1] for s in counted)
    if whole < OVERALL_MIN_LINES or whole_found < WRITTEN_DIFFERENTLY * whole:
        return None
    parts = ", ".join(f"{s.path} {s.counted[0]}/{s.counted[1]}" for s in counted)
    return (
        f"upstream has it written differently: with its tests, {whole_found} of {whole} "
        f"substantive added lines are there and {named_by} ({parts})"
        + _pin_text(True)
        + _missing_text(counted)
    )


def mostly_there(shares: Sequence[_Share], kind: str = CODE, pin_known: bool = False) -> str | None:
    """The evidence that most (more than half) of the counted added lines of the deciding
    kind are in the new release, though not enough for :func:`written_differently`; else
    ``None``. Such a patch is never a plain conflict: part of it is upstream. Lines the new
    release has only at another place, or with another meaning, count here (they are not
    enough to retire the patch, and they are what a person must look at)."""
    counted = _counted(shares, kind)
    found = sum(s.counted[0] for s in counted)
    total = sum(s.counted[1] for s in counted)
    aside = sum(len(s.displaced) + len(s.contrary) for s in counted)
    if total < MIN_CODE_LINES or (found + aside) * 2 <= total:
        return None
    parts = ", ".join(f"{s.path} {s.counted[0]}/{s.counted[1]}" for s in counted)
    text = (
        f"most of its new lines are upstream, written differently: {found} of {total} ({parts})"
        if not aside
        else f"its new lines are upstream but not as it adds them: {found} of {total} there "
        f"as it adds them ({parts})"
    )
    return text + _pin_text(pin_known) + _missing_text(counted)
