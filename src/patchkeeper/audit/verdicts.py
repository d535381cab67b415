"""Judge every patch of a series against a new upstream tree, with evidence.

The verdicts (docs/glossary.md):

- *clean*: applies at fuzz 0 with every hunk where its header says;
- *offset*: applies at fuzz 0, some hunks moved (by how many lines);
- *upstreamed*: the new upstream already has the change: the patch reverse-applies, every
  hunk's post-image is there (its substantive added lines, in order, in the same file), or
  upstream wrote it differently (most of the lines it adds that the old pin lacks are in the
  new release, the differing ones named; :mod:`patchkeeper.audit.upstreamed`), or every
  hunk of the files it changes is there and only files it creates, its tests' data, are
  not (:func:`_only_created_left`);
- *partially upstreamed*: some hunks are already there and the others still apply, or most
  (not enough) of its new lines are there, or upstream wrote lines holding the ones it
  inserts at their very place (:func:`_written_at_place`);
- *conflict*: a hunk neither applies nor is there (with the closest match and what differs,
  and where else in the new tree its context is);
- *target gone*: a file the patch modifies no longer exists (with the likely new path);
- *blocked*: it needs a file or lines that an earlier failing patch adds.

Every verdict says what to do (:data:`ACTIONS`): *retire* (upstream has it), *carry* (it
applies, or, for a *conflict*, git's three-way merge places every hunk with its lines
unchanged: refresh it, :mod:`patchkeeper.audit.refresh`), *port* (rework it onto the new
release), *look* (the evidence is mixed; a person decides), in :attr:`PatchVerdict.action`
and at the end of the summary.

Files are weighed by kind (:mod:`patchkeeper.series.filekinds`): release notes never decide a
verdict, a tests-only patch is judged on its tests, configuration is not code.

Patches are judged in series order on one workspace: a patch that applies (or whose
remaining hunks apply) changes it, so later patches see the earlier ones.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from patchkeeper.audit.added_elsewhere import added_elsewhere
from patchkeeper.audit.applied_upstream import AppliedUpstream, applied_upstream
from patchkeeper.audit.dropped_modules import (
    failing_imports,
    gone_imports,
    import_swaps,
    respelled_only,
)
from patchkeeper.audit.gone_files import (
    DIRECTORY_MOVED,
    RenamedPin,
    content_gone,
    gone_directory,
    moved_directory,
    pinned_directory,
    renamed,
    tests_gone,
)
from patchkeeper.audit.hunk_refs import hunk_namer, hunk_ref, hunk_refs
from patchkeeper.audit.hunk_verdicts import (
    APPLIES,
    BY_REQUIREMENTS,
    FAILS,
    IMPORTS_THERE,
    PRESENT,
    REWRITTEN_MIN_LENGTH,
    HunkVerdict,
    added_imports,
    added_lines_there,
    creates_file,
    file_lines,
    hunk_statuses,
    imports_already_there,
    post_image_proves,
    removed_lines,
    rewritten_at_place,
)
from patchkeeper.audit.mentions import (
    ChangelogLine,
    find_mentions,
    patch_mentions,
    references,
)
from patchkeeper.audit.new_places import new_places, systematic_places
from patchkeeper.audit.pin_space import pin_space_evidence
from patchkeeper.audit.reapplied import already_applied, files_before_diffs
from patchkeeper.audit.refresh import fuzzy_spot
from patchkeeper.audit.regions import Region, hunk_region, region_text
from patchkeeper.audit.requirement_moves import requirements_met
from patchkeeper.audit.reworded import reworded
from patchkeeper.audit.rules import Rule
from patchkeeper.audit.shares import FileShare, file_shares, share_text
from patchkeeper.audit.upstream_commit import upstream_commit
from patchkeeper.audit.upstreamed import (
    MIN_CODE_LINES,
    OVERALL_SHARE,
    WRITTEN_DIFFERENTLY,
    code_upstream,
    decides,
    mostly_there,
    written_differently,
)
from patchkeeper.constants import DecisionWord, WordEnum
from patchkeeper.errors import PatchFormatError
from patchkeeper.jsonable import ABSENT_WHEN_NONE, FILE_NAME, NOT_IN_JSON
from patchkeeper.series.engine import (
    EXISTS,
    FileOutcome,
    FileState,
    PatchOutcome,
    Workspace,
    apply_patch,
)
from patchkeeper.series.filekinds import (
    C_FAMILY,
    CODE,
    CONFIG,
    NOTES,
    TESTS,
    kind_of,
    language_of,
    primary_kind,
)
from patchkeeper.series.hunk_evidence import FileFailure, failure_evidence
from patchkeeper.series.hunks import MixedEndings, locate, mixed_endings, patch_lines
from patchkeeper.series.model import ADDED, REMOVED, FileDiff, Hunk, Patch
from patchkeeper.series.substantive_lines import (
    added_by_path,
    file_index,
    is_import,
    substantive,
    substantive_lines,
    tokens,
)
from patchkeeper.system.english import plural
from patchkeeper.system.names import shown_name
from patchkeeper.upstream.treesearch import WHOLE_FILE, MovedFile, TreeSearch, moved_files


class Verdict(WordEnum):
    """The audit verdict of one patch against a new upstream (see docs/glossary.md)."""

    CLEAN = "clean"  # applies at fuzz 0, every hunk in place
    OFFSET = "offset"  # applies at fuzz 0, some hunk moved
    UPSTREAMED = "upstreamed"  # the new upstream carries the change
    PARTIALLY_UPSTREAMED = "partially upstreamed"  # some of it
    CONFLICT = "conflict"  # a hunk's pre-image is not there
    TARGET_GONE = "target gone"  # a file it changes no longer exists
    BLOCKED = "blocked"  # needs lines a failing earlier patch adds
    UNREADABLE = "unreadable"  # the patch file cannot be read: missing or malformed


CLEAN = Verdict.CLEAN
OFFSET = Verdict.OFFSET
UPSTREAMED = Verdict.UPSTREAMED
PARTIALLY_UPSTREAMED = Verdict.PARTIALLY_UPSTREAMED
CONFLICT = Verdict.CONFLICT
TARGET_GONE = Verdict.TARGET_GONE
BLOCKED = Verdict.BLOCKED
UNREADABLE = Verdict.UNREADABLE

#: Verdicts that need no work: the series can move to the new pin as it is.
GOOD = frozenset({CLEAN, OFFSET, UPSTREAMED})


RETIRE = DecisionWord.RETIRE.value
CARRY = DecisionWord.CARRY.value
PORT = "port"  # the command to run: the patch needs work on the new pin
LOOK = DecisionWord.LOOK.value
#: What a maintainer does with a patch, by the verdict's evidence (the words of
#: :class:`~patchkeeper.constants.DecisionWord`, ``look`` as ``runtime audit`` says it too;
#: ``port`` is the command's name).
ACTIONS = (RETIRE, CARRY, PORT, LOOK)


@dataclass(frozen=True)
class PatchVerdict:
    """The verdict on one patch, with its evidence.

    Attributes:
        name: the series name.
        verdict: one of the verdict constants.
        summary: the evidence in one sentence, ending with what to do.
        hunks: every hunk's status.
        shares: per written file, the added lines the new upstream already has.
        moved: missing files and their likely new paths (*target gone*).
        blocked_by: the earlier failing patch (*blocked*).
        failures: the failing files and hunks with their closest match (*conflict*).
        max_offset: the largest offset of an applied hunk, in lines.
        action: what to do (:data:`ACTIONS`).
        kind: the kind of file that decided the verdict (``"code"``, ``"tests"`` for a
            tests-only patch, ...; :mod:`patchkeeper.series.filekinds`).
        mentions: lines of the new release's changelog that name the patch's CVE id, bug
            or pull request and that the old release's changelog does not.
        applied_upstream: the patch's DEP-3 ``Applied-Upstream`` naming a release at or
            below the audited one, in words, when the verdict is not *clean* or *offset*
            (:mod:`patchkeeper.audit.applied_upstream`); ``""`` otherwise.
        upstream_commit: for a *conflict* or *blocked* patch, the evidence that its header
            names upstream's commit, made before the new release and not shown to be off the
            pin's line of releases (:mod:`patchkeeper.audit.upstream_commit`), which turns
            *port* into *look*, and with a changelog that names its fix, the verdict into
            *upstreamed* (retire after checking); ``""`` otherwise.
        refresh: for a *conflict*, the evidence that git's three-way merge places every
            hunk with the patch's own lines unchanged (:mod:`patchkeeper.audit.refresh`),
            which makes the action *carry* (refresh it); ``""`` otherwise.
        unreadable: for an *unreadable* patch, where and what is wrong in the file
            (``"patches/x.patch:7: truncated hunk: ..."``); ``""`` otherwise.
        lands: for a *blocked* patch, the evidence that its own ``+`` and ``-`` lines still
            fit the new release once the blocking patch is ported (it needs that patch only
            for context; :func:`_lands_after`), which makes the action *carry*; ``""``
            otherwise.
        elsewhere: for an *upstreamed* patch that adds one line, found by that line, the
            evidence that its context also fits another place of the file at fuzz 1 or 2,
            where the line is not (:func:`_fits_elsewhere`): quilt would apply it there, so
            a person decides (*look*); ``""`` otherwise.
        endings: for an *upstreamed* patch, where a hunk's lines mix CRLF and LF line
            endings (:func:`patchkeeper.series.hunks.mixed_endings`, lint's PK306): apply
            refuses such a hunk against a file of one line ending, at the pin as at the new
            release, so the evidence read with the endings set aside does not justify a
            retire (*look*); ``""`` otherwise.
        not_at_pin: for a *target gone* patch, a file it changes that neither the old pin's
            tree nor the new release has (:func:`_absent_at_pin`): the series does not apply
            at its pin, so the patch cannot be judged (*look*); for a patch of another
            verdict, a file it changes that the old pin's tree lacks and the new release has
            (:func:`_only_in_release`): the series does not apply at its pin either, the
            verdict is the new release's; ``""`` otherwise.
        imports_gone: for a patch that applies (or only needs a refresh), the evidence that
            it imports modules the old pin has and the new release no longer has
            (:func:`patchkeeper.audit.dropped_modules.gone_imports`): its code cannot run
            there as it is, which makes the action *port*; ``""`` otherwise.
        new_places: for a patch that applies (or only needs a refresh), the evidence that
            text it rewrites occurs more often in the new release than at the old pin
            (:func:`patchkeeper.audit.new_places.new_places`): the patch no longer covers
            every place, which makes the action *port* (extend it); ``""`` otherwise.
        rewritten: for a *conflict* of a code patch, the evidence that upstream rewrote at
            their place the lines its failing hunks change (:func:`_rewritten_at_place`),
            or for a *conflict* of any patch, that upstream took out the lines around what
            its failing hunks insert (:func:`gone_around`, unless the hunks land elsewhere
            with their lines unchanged), or reworded at their place the words a wording fix
            changes (:func:`_reworded_at_place`), or, for a tests-only patch that skips
            tests, changed those tests (:func:`_skipped_changed`), or that the new release
            has some of its hunks by code the old pin lacked (:func:`_some_hunks_there`),
            or that upstream rewrote (or removed) the function every failing hunk of a
            code patch changes (:func:`_function_rewritten`), or for a *target gone*
            patch, that the files its content moved to have every line it adds
            (:func:`_added_where_moved`), or for a *blocked* patch, that upstream has
            some of the hunks of the patch it needs (:func:`_blocker_partly_upstream`),
            which makes the action *look*; ``""`` otherwise.
        rule: the rule that decided the verdict and its action, one of
            :data:`patchkeeper.audit.rules.RULES` (:func:`action_of` names the rule that
            changed what to do, when one did); ``""`` for a verdict not finished yet.
        taken_at: a release between the old pin and the audited one that had the patch by
            a strong rule (it reverse-applies there, or every hunk's post-image is there:
            :mod:`patchkeeper.audit.between`): on an *upstreamed* verdict, upstream took it
            there and changed its lines since (*retire*); on another verdict, it applies
            again at a later release, as if upstream had reverted it (*look*); ``None``
            otherwise (and absent from the JSON form).
        evidence: the summary before :func:`with_action` ended it with what to do (the
            evidence alone), for a summary that rewords the verdict (:func:`evidence_of`);
            ``None`` until then. Not in the JSON form
            (:data:`~patchkeeper.jsonable.NOT_IN_JSON`), whose ``summary`` holds it.
    """

    name: str = field(metadata=FILE_NAME)
    verdict: str
    summary: str
    hunks: tuple[HunkVerdict, ...] = ()
    shares: tuple[FileShare, ...] = ()
    moved: tuple[MovedFile, ...] = ()
    blocked_by: str | None = field(default=None, metadata=FILE_NAME)
    failures: tuple[FileFailure, ...] = ()
    max_offset: int = 0
    action: str = ""
    kind: str = CODE
    mentions: tuple[ChangelogLine, ...] = ()
    applied_upstream: str = ""
    upstream_commit: str = ""
    refresh: str = ""
    unreadable: str = ""
    lands: str = ""
    elsewhere: str = ""
    endings: str = ""
    not_at_pin: str = ""
    imports_gone: str = ""
    new_places: str = ""
    rewritten: str = ""
    rule: str = ""
    taken_at: str | None = field(default=None, metadata=ABSENT_WHEN_NONE)
    evidence: str | None = field(default=None, compare=False, repr=False, metadata=NOT_IN_JSON)

    @property
    def share(self) -> tuple[int, int]:
        """``(found, total)`` substantive added lines over all files."""
        return (sum(s.found for s in self.shares), sum(s.total for s in self.shares))


@dataclass
class FailedPatch:
    """What an earlier failing patch would have added, for *blocked*."""

    name: str
    created: set[str] = field(default_factory=set)
    added: dict[str, set[bytes]] = field(default_factory=dict)
    #: per path, the lines its hunks that still apply to the new release add: its port
    #: keeps them as they are
    kept: dict[str, set[bytes]] = field(default_factory=dict)
    #: the evidence that upstream has some of its hunks by code the old pin lacked
    #: (:func:`_some_hunks_there`), when it does: it may not need a port at all
    partly_upstream: str = ""


# --------------------------------------------------------------------------- blocked


#: How :func:`_blocker_partly_upstream`'s evidence starts.
BLOCKER_PARTLY_TEXT = "upstream has some of the hunks of the patch it needs"


def _blocker_partly_upstream(earlier: FailedPatch) -> str:
    """The evidence that the failing patch a *blocked* patch needs is itself partly upstream
    (:attr:`FailedPatch.partly_upstream`), else ``""``.

    That patch is for a person to decide (upstream may have all of it, written its own
    way), so "port after it" would rest on a port that may never happen: if upstream has
    the earlier fix, the lines this one needs are upstream's, and this patch may be
    upstream too or need its lines put on upstream's. The trees cannot tell which, and a
    person decides this one with that one (*look*)."""
    if not earlier.partly_upstream:
        return ""
    return f"{BLOCKER_PARTLY_TEXT} ({shown_name(earlier.name)}: {earlier.partly_upstream})"


def _rests_on_absence(hunk: Hunk, status: HunkVerdict) -> bool:
    """Whether a hunk counts as there only because lines it removes are gone: it is
    *present* by its removal being made, or, however its presence was found (a removal-only
    hunk reverse-applies as soon as its removed lines are missing), it adds no substantive
    line that could speak for it."""
    if status.status != PRESENT or not removed_lines(hunk):
        return False
    added = substantive_lines(line.text for line in hunk.lines if line.kind == ADDED)
    return status.how.startswith("removed lines gone") or not added


def _needs(hunk: Hunk, status: HunkVerdict) -> list[bytes]:
    """The lines a hunk needs from the tree to hold where it is judged: its whole pre-image
    when it fails; its removed lines when it counts as there only because they are gone
    (:func:`_rests_on_absence`; lines a failed earlier patch would have added are naturally
    gone)."""
    if status.status == FAILS:
        return substantive_lines(hunk.pre_image)
    if _rests_on_absence(hunk, status):
        return removed_lines(hunk)
    return []


def _blocker(
    failed: list[FailedPatch],
    patch: Patch,
    statuses: list[HunkVerdict],
    missing: list[FileDiff],
    ws: Workspace,
) -> str | None:
    """The earlier failing patch whose files or added lines this one needs, if any.

    A hunk of a deciding file (:func:`patchkeeper.audit.upstreamed.decides`) needs the failing
    patch when it fails and its context or removed lines are lines that patch adds and the
    new release lacks, or when it counts as upstream only because such lines are gone.
    """
    for earlier in failed:
        if any(diff.old_path in earlier.created for diff in missing):
            return earlier.name
    kind = primary_kind([d.path for d in patch.files])
    judged = {(s.path, s.patch_line): s for s in statuses}
    for diff in patch.files:
        if not decides(diff.path, kind):
            continue
        state = ws.original(diff.old_path) if diff.old_path else None
        there = file_index(state.lines) if state is not None else None
        for hunk in diff.hunks:
            status = judged.get((diff.path, hunk.line_no))
            needed = set(_needs(hunk, status)) if status is not None else set()
            for earlier in failed:
                lines = needed & earlier.added.get(diff.old_path or "", set())
                if any(there is None or not there.has(line) for line in lines):
                    return earlier.name
    return None


def _lands_after(
    ws: Workspace, patch: Patch, statuses: list[HunkVerdict], earlier: FailedPatch
) -> str | None:
    """The evidence that a patch blocked by ``earlier`` keeps its own lines once ``earlier``
    is ported, else ``None``. Every hunk applies, or fails only for lines ``earlier`` adds:
    at least one of its substantive context lines is such a line, none of its removed lines
    is unless a hunk of ``earlier`` that still applies adds it (:attr:`FailedPatch.kept`:
    the port keeps that line; a hunk that changes the lines of the blocker's failing hunks
    follows the blocker's port), and every other substantive line of its pre-image (context
    and removed) is in the file as the new release with the earlier patches that applied
    has it. Such a patch is placed by the blocker's lines, not written from them, as quilt
    pushes it with fuzz or ``git am -3`` merges it once the blocker is refreshed: the
    ``+`` and ``-`` lines stay as they are."""
    hunks = {(d.path, h.line_no): (d, h) for d in patch.files for h in d.hunks}
    needing = []
    for status in statuses:
        if status.status == APPLIES:
            continue
        if (status.path, status.patch_line) not in hunks:
            return None
        diff, hunk = hunks[(status.path, status.patch_line)]
        if status.status != FAILS or creates_file(diff) or diff.is_deletion:
            return None
        path = diff.old_path or diff.path
        theirs = earlier.added.get(path, set())
        state = ws.get(path)
        if state is None:
            return None
        index = file_index(state.lines)
        removed = removed_lines(hunk)
        pre = substantive_lines(hunk.pre_image)
        kept = earlier.kept.get(path, set())
        if any(line in theirs and line not in kept for line in removed):
            return None
        if not any(line in theirs for line in pre):
            return None
        if not all(index.has(line) for line in pre if line not in theirs):
            return None
        needing.append(status)
    if not needing:
        return None
    refs = hunk_refs(needing, statuses)
    verb = "needs" if len(needing) == 1 else "need"
    return (
        f"{refs} {verb} {shown_name(earlier.name)} only for context: its other lines are in "
        "the new release and it changes none of that patch's lines"
    )


def remember_failure(patch: Patch, ws: Workspace | None = None) -> FailedPatch:
    """What ``patch`` would have added, kept so later patches that need it are *blocked*;
    with ``ws`` (the new release before it), also the lines of its hunks that apply there
    (:attr:`FailedPatch.kept`)."""
    record = FailedPatch(patch.name)
    for diff in patch.files:
        if creates_file(diff):
            record.created.add(diff.path)
    for path, lines in added_by_path(patch).items():
        record.added.setdefault(path, set()).update(lines)
    if ws is None:
        return record
    applies = {(s.path, s.patch_line) for s in hunk_statuses(ws, patch) if s.status == APPLIES}
    for diff in patch.files:
        if diff.new_path is None or creates_file(diff):
            continue
        for hunk in diff.hunks:
            if (diff.path, hunk.line_no) in applies:
                lines = substantive_lines(line.text for line in hunk.added)
                record.kept.setdefault(diff.new_path, set()).update(lines)
    return record


def _apply_remaining(ws: Workspace, patch: Patch, statuses: list[HunkVerdict]) -> bool:
    """Apply the hunks that still apply (those not already upstream); True on success."""
    applies = {(s.path, s.patch_line) for s in statuses if s.status == APPLIES}
    snapshot = ws.snapshot()
    for diff in patch.files:
        hunks = [h for h in diff.hunks if (diff.path, h.line_no) in applies]
        if not hunks:
            continue
        if creates_file(diff):
            if ws.get(diff.path) is None or not ws.get(diff.path).lines:  # type: ignore[union-attr]
                post = tuple(line for hunk in hunks for line in hunk.post_image)
                ws.set(diff.path, FileState(post))
            continue
        if diff.is_deletion:
            ws.set(diff.old_path or diff.path, None)
            continue
        state = ws.get(diff.old_path or diff.path)
        if state is None:
            ws.restore(snapshot)
            return False
        result = patch_lines(state.lines, hunks)
        if result.lines is None:
            ws.restore(snapshot)
            return False
        ws.set(diff.old_path or diff.path, FileState(tuple(result.lines), state.mode))
    return True


# --------------------------------------------------------------------------- text


def _refs(statuses: Sequence[HunkVerdict], status: str) -> str:
    return hunk_refs((s for s in statuses if s.status == status), statuses)


def _failing_do(failing: Sequence[HunkVerdict], one: str, many: str) -> str:
    """The failing hunks of ``failing`` (:func:`hunk_refs`) and what they do, the verb
    agreeing with their number (``one``/``many``: its two forms): ``"src/a.py #1
    changes"``, ``"src/a.py #1, src/b.py #2 change"``."""
    return f"{_refs(failing, FAILS)} {one if len(failing) == 1 else many}"


def _count(statuses: Sequence[HunkVerdict], status: str) -> int:
    return sum(1 for s in statuses if s.status == status)


def _moved_text(statuses: Sequence[HunkVerdict]) -> str:
    """Where the failing hunks' context is now, when another file holds it."""
    parts = []
    name = hunk_namer(statuses)
    for s in statuses:
        if s.moved_to is None or s.status == PRESENT:
            continue
        line = f"line {s.moved_line}, " if s.moved_line else ""
        counts = f"{s.moved_found} of {s.moved_total} context lines there"
        parts.append(f"{name(s)}: its context is in {s.moved_to} ({line}{counts})")
    return "; ".join(parts)


def mention_text(mentions: Sequence[ChangelogLine]) -> str:
    """The first changelog line that names the patch's fix, quoted with file and line, and
    how many more there are."""
    first = mentions[0]
    more = f" (and {len(mentions) - 1} more)" if len(mentions) > 1 else ""
    return f"the new release's changelog names {first.reference}: {first.shown()}{more}"


def _named_text(mentions: Sequence[ChangelogLine], applied: AppliedUpstream | None) -> str:
    """The evidence that names the fix upstream: the changelog's mention, the patch's
    ``Applied-Upstream`` header; ``""`` when neither."""
    parts = [mention_text(mentions)] if mentions else []
    if applied is not None:
        parts.append(applied.text)
    return "; ".join(parts)


def _applied_text(applied: AppliedUpstream | None) -> str:
    return applied.text if applied is not None else ""


def _kind_text(kind: str) -> str:
    return "" if kind == CODE else f" ({kind} only)"


# --------------------------------------------------------------------------- judging


@dataclass(frozen=True)
class _Context:
    """What a judgement reads besides the workspace: the new tree's search, the old pin's,
    the audited release's version (``None``: unknown, a directory say), and the files the
    earlier patches of the series create."""

    search: TreeSearch | None
    pin: TreeSearch | None
    version: str | None = None
    #: per file an earlier patch of the series creates, that patch's name
    created: Mapping[str, str] = field(default_factory=dict)


def _upstreamed(
    patch: Patch,
    why: str,
    statuses: list[HunkVerdict],
    shares: tuple[FileShare, ...],
    moved: tuple[MovedFile, ...] = (),
    kind: str = CODE,
    verdict: Verdict = UPSTREAMED,
    *,
    rule: Rule,
) -> PatchVerdict:
    """An *upstreamed* verdict (or ``verdict``, *partially upstreamed*) decided by ``rule``:
    ``why``, then how much of its added lines upstream has."""
    return PatchVerdict(
        patch.name,
        verdict,
        f"{why}; " + share_text(shares),
        tuple(statuses),
        shares,
        moved,
        kind=kind,
        rule=rule,
    )


def _with_failures(
    patch: Patch,
    text: str,
    statuses: list[HunkVerdict],
    shares: tuple[FileShare, ...],
    outcome: PatchOutcome,
    kind: str,
    mentions: tuple[ChangelogLine, ...],
    verdict: Verdict = PARTIALLY_UPSTREAMED,
    *,
    rule: Rule,
) -> PatchVerdict:
    """The verdict of a patch some of whose hunks fail at fuzz 0, decided by ``rule``:
    *partially upstreamed* (most of it is upstream) or ``verdict``; ``text`` is its
    summary; the failing hunks' evidence and the changelog's ``mentions`` go with it."""
    return PatchVerdict(
        patch.name,
        verdict,
        text,
        tuple(statuses),
        shares,
        failures=failure_evidence(outcome),
        kind=kind,
        mentions=mentions,
        rule=rule,
    )


def _without_notes(patch: Patch) -> Patch | None:
    """The patch without its release-note files, when it has both notes and other files."""
    kept = tuple(d for d in patch.files if kind_of(d.path) != NOTES)
    if not kept or len(kept) == len(patch.files):
        return None
    return replace(patch, files=kept)


def _absent_at_pin(missing: list[FileDiff], ctx: _Context) -> list[str]:
    """The files of ``missing`` (files the patch changes that the new release lacks) that
    the old pin's tree lacks too; none without the pin's tree."""
    if ctx.pin is None:
        return []
    return [d.old_path for d in missing if d.old_path and ctx.pin.state(d.old_path) is None]


#: How :func:`_not_at_pin_text` names a file only an earlier patch of the series creates.
CREATED_EARLIER_TEXT = "is created only by the earlier patch"


def _not_at_pin_text(absent: list[str], ctx: _Context) -> str:
    """Why the files ``absent`` are missing: a file an earlier patch of the series creates
    (:attr:`_Context.created`) is missing because that patch is taken as upstream and not
    applied (the new release lacks the file), every other file is in neither tree."""
    parts = []
    neither = [path for path in absent if path not in ctx.created]
    if neither:
        verb = "is" if len(neither) == 1 else "are"
        names = ", ".join(neither)
        parts.append(f"{names} {verb} in neither the old pin's tree nor the new release")
    parts += [
        f"{path} {CREATED_EARLIER_TEXT} {shown_name(ctx.created[path])}, taken as upstream "
        "without that file"
        for path in absent
        if path in ctx.created
    ]
    return "; ".join(parts)


def _judge_not_at_pin(
    ws: Workspace, patch: Patch, failed: list[FailedPatch], absent: list[str], ctx: _Context
) -> PatchVerdict:
    """A patch that changes files (``absent``) neither the old pin's tree nor the new release
    has: the series does not apply at its own pin, and what the new release lacks says
    nothing about upstream (a patch on ``docs/conf.py`` of a project whose sdist ships no
    ``docs/``). The rest of the patch is judged without them; when that is *upstreamed* and
    an absent file decides the verdict (:func:`decides`), or nothing is left, the patch is
    *target gone* with :attr:`PatchVerdict.not_at_pin` set (*look*), never *upstreamed*."""
    kind = primary_kind([d.path for d in patch.files])
    why = _not_at_pin_text(absent, ctx)
    # a file in neither tree is named first: a series that does not apply at its pin is
    # the reason to look before an earlier patch taken as upstream without its file
    absent = sorted(absent, key=lambda path: path in ctx.created)
    rest = renamed(patch, {}, absent)
    deciding = [path for path in absent if decides(path, kind)]
    if not rest.files:
        return PatchVerdict(
            patch.name, TARGET_GONE, why, not_at_pin=absent[0], kind=kind, rule=Rule.NOT_AT_PIN
        )
    snapshot = ws.snapshot()
    verdict = _judge(ws, rest, failed, ctx)
    if verdict.verdict == UPSTREAMED and deciding:
        ws.restore(snapshot)
        return PatchVerdict(
            patch.name,
            TARGET_GONE,
            f"{why}; the rest is upstream",
            shares=verdict.shares,
            not_at_pin=deciding[0],
            kind=kind,
            rule=Rule.NOT_AT_PIN,
        )
    set_aside = "" if deciding else " (set aside: not what decides the verdict)"
    return replace(verdict, name=patch.name, summary=f"{why}{set_aside}; {verdict.summary}")


def _judge_gone(
    ws: Workspace, patch: Patch, failed: list[FailedPatch], missing: list[FileDiff], ctx: _Context
) -> PatchVerdict:
    """A patch that modifies files the new release no longer has."""
    blocker = _blocker(failed, patch, [], missing, ws)
    if blocker:
        return PatchVerdict(
            patch.name,
            BLOCKED,
            f"needs {missing[0].old_path}, which the failing patch {shown_name(blocker)} creates",
            blocked_by=blocker,
            rule=Rule.BLOCKED,
        )
    absent = _absent_at_pin(missing, ctx)
    if absent:
        return _judge_not_at_pin(ws, patch, failed, absent, ctx)
    moved = moved_files(missing, ctx.search, ctx.pin)
    rejudged = _rejudge_gone(ws, patch, failed, missing, moved, ctx)
    if rejudged is not None:
        return rejudged
    shares = file_shares(ws, patch, ctx.search, ctx.pin)
    kind = primary_kind([d.path for d in patch.files])
    partial = ""
    if all(m.likely for m in moved):
        targets = {m.path: m.likely for m in moved if m.likely}
        statuses = hunk_statuses(ws, patch, targets, pin=ctx.pin)
        present = code_upstream(statuses, kind)
        if present:
            where = ", ".join(f"{a} moved to {b}" for a, b in targets.items())
            why = f"{where}; there {present}"
            return _upstreamed(patch, why, statuses, shares, moved, kind, rule=Rule.FILE_MOVED)
        partial = _added_where_moved(ws, patch, targets, kind)
    first = unplaced(moved, kind) or moved[0]
    where = (
        f"; likely moved to {first.likely} ({first.reason}: {first.counted[0]} of "
        f"{first.counted[1]} "
        f"{'lines of the file' if first.reason == WHOLE_FILE else 'context lines'} found there)"
        if first.likely
        else "; its content was not found elsewhere"
    )
    directory = None
    if ctx.search is not None and kind_of(first.path) == TESTS and not first.likely:
        # a release that ships no tests there says nothing about the test the patch changes
        directory = gone_directory(first.path, ctx.search)
    if directory is not None:
        where += f" (the new release has no {directory}/ at all)"
    return PatchVerdict(
        patch.name,
        TARGET_GONE,
        f"{first.path} no longer exists{where}" + (f"; {partial}" if partial else ""),
        moved=moved,
        shares=shares,
        kind=kind,
        rewritten=partial,
        rule=Rule.MOVED_LINES_THERE if partial else _gone_rule(moved, kind),
    )


def _added_where_moved(ws: Workspace, patch: Patch, targets: dict[str, str], kind: str) -> str:
    """For a patch whose deciding files (:func:`decides`) all moved (``targets``: old path ->
    new path) and are not upstream there: the evidence that the new places already have
    every line it adds (:func:`patchkeeper.audit.hunk_verdicts.added_lines_there`) while what
    it removes is not shown gone, which makes the action *look* (the fix may be there,
    written around differently; porting it would add the lines twice); ``""`` otherwise."""
    deciding = [d for d in patch.files if decides(d.path, kind)]
    if not deciding:
        return ""
    places = []
    for diff in deciding:
        new = targets.get(diff.old_path or "")
        if new is None or not added_lines_there(file_lines(ws, new) or (), diff):
            return ""
        places.append(new)
    where = ", ".join(dict.fromkeys(places))
    return f"{where} already has every line it adds, but what it removes is not shown gone there"


def _gone_rule(moved: Sequence[MovedFile], kind: str) -> Rule:
    """The rule of a *target gone* verdict by its gone files: :attr:`Rule.FILE_MOVED` when
    each deciding one has a likely new place (:func:`unplaced`), else
    :attr:`Rule.FILE_GONE`."""
    return Rule.FILE_MOVED if moved and unplaced(moved, kind) is None else Rule.FILE_GONE


def unplaced(moved: Sequence[MovedFile], kind: str) -> MovedFile | None:
    """The first gone file that decides the verdict (:func:`decides` on ``kind``; any gone
    file when none decides) and has no likely new place, else ``None``: while there is one,
    there is nowhere to port the patch to."""
    deciding = [m for m in moved if decides(m.path, kind)] or list(moved)
    return next((m for m in deciding if not m.likely), None)


NO_SUCCESSOR = "is gone upstream and none of its lines the patch touches is anywhere"


def _gone_file(
    diff: FileDiff, share: FileShare | None, moved: MovedFile | None, kind: str, ctx: _Context
) -> str | None:
    """Why a gone file (no likely new place) need not stop the patch's verdict, or ``None``
    (:mod:`patchkeeper.audit.gone_files`). A deciding file with no successor (none of its
    context and removed lines anywhere in the new tree) is set aside too: the rest of the
    patch must then be upstream on its own."""
    old = diff.old_path
    if ctx.search is not None and kind_of(diff.path) == CONFIG:
        # a packaging file replaced (setup.py by pyproject.toml): its requirements are
        # judged on what the new release's metadata admits
        met = requirements_met(diff.hunks, ctx.search)
        if met:
            return f"{old} is gone upstream; {met}"
    if ctx.search is not None and ctx.pin is not None and content_gone(diff, ctx.search, ctx.pin):
        return f"{old} is gone upstream with the content the patch removes"
    if ctx.search is not None and kind_of(diff.path) == TESTS and tests_gone(diff, ctx.search):
        return f"{old} is gone upstream and so are the tests the patch changes there"
    if ctx.pin is not None and share is not None and share.counted[1]:
        found, total = share.counted
        if found >= WRITTEN_DIFFERENTLY * total:
            where = f" (in {share.where})" if share.where else ""
            return f"{old} is gone upstream; {found} of {total} of its new lines are there{where}"
    if not decides(diff.path, kind):
        return f"{old} is gone upstream (set aside: {kind_of(diff.path)}, the patch is {kind})"
    if moved is not None and moved.found == 0 and moved.total:
        return f"{old} {NO_SUCCESSOR}"
    return None


def _rejudge_gone(
    ws: Workspace,
    patch: Patch,
    failed: list[FailedPatch],
    missing: list[FileDiff],
    moved: tuple[MovedFile, ...],
    ctx: _Context,
) -> PatchVerdict | None:
    """The patch judged on the files that exist, each moved file at its new place, when
    every gone file is moved or need not stop the verdict (:func:`_gone_file`) and that
    judgement is *upstreamed*; else ``None`` (``ws`` left as it was)."""
    kind = primary_kind([d.path for d in patch.files])
    renames = {m.path: m.likely for m in moved if m.likely}
    shares = file_shares(ws, patch, ctx.search, ctx.pin)
    by_path = {s.path: s for s in shares}
    reasons = [f"{old} moved to {new}" for old, new in renames.items()]
    dropped = []
    for diff in missing:
        if diff.old_path in renames:
            continue
        where = next((m for m in moved if m.path == diff.old_path), None)
        reason = _gone_file(diff, by_path.get(diff.path), where, kind, ctx)
        if reason is None:
            return None
        reasons.append(reason)
        dropped.append(diff.old_path or "")
    if not dropped and not renames:
        return None
    rest = renamed(patch, renames, dropped)
    why = "; ".join(reasons)
    if any(reason.endswith(NO_SUCCESSOR) for reason in reasons) and not any(
        decides(d.path, kind) for d in rest.files
    ):
        # a file gone without a trace proves nothing alone; with the new release's
        # changelog naming the fix, upstream fixed it where the code went (obsolete)
        mentions = patch_mentions(patch, ctx.search, ctx.pin)
        if not mentions:
            return None
        text = f"{why}; {mention_text(mentions)}"
        verdict = _upstreamed(patch, text, [], shares, moved, kind, rule=Rule.CHANGELOG_MENTION)
        return replace(verdict, mentions=mentions)
    rule = Rule.FILE_MOVED if renames else Rule.FILE_GONE
    if not rest.files:
        if any(decides(d.path, kind) for d in missing):
            return _upstreamed(patch, why, [], shares, moved, kind, rule=rule)
        return None
    pin = ctx.pin
    if pin is not None and renames:
        pin = RenamedPin(pin, {new: old for old, new in renames.items()})  # type: ignore[assignment]
    snapshot = ws.snapshot()
    verdict = _judge(ws, rest, failed, _Context(ctx.search, pin, ctx.version))
    if verdict.verdict == UPSTREAMED:
        return replace(verdict, summary=f"{why}; {verdict.summary}", moved=moved, rule=rule)
    ws.restore(snapshot)
    return None


def _created_clash(ws: Workspace, patch: Patch) -> PatchOutcome | None:
    """The outcome of a patch that creates, with an empty source range under an ordinary
    name (``--- a/path``, ``@@ -0,0 +1,N @@``), a file the new release has: GNU patch would
    prepend the lines to it; for the audit the file exists (``None`` when no such diff)."""
    clash = [
        FileOutcome(d, d.path, EXISTS)
        for d in patch.files
        if creates_file(d) and not d.is_creation and file_lines(ws, d.path)
    ]
    return PatchOutcome(patch, False, tuple(clash)) if clash else None


def _homeless(ws: Workspace, patch: Patch, ctx: _Context) -> tuple[MovedFile, ...]:
    """The files the patch creates in a directory the old pin had and the new release
    does not (:func:`patchkeeper.audit.gone_files.moved_directory`), with where they
    likely belong; none without both trees, or when the workspace has that file."""
    if ctx.search is None or ctx.pin is None:
        return ()
    out = []
    for diff in patch.files:
        if diff.new_path is None or not creates_file(diff) or ws.get(diff.new_path) is not None:
            continue
        moved = moved_directory(diff.new_path, ctx.search, ctx.pin)
        if moved is not None:
            out.append(moved)
    return tuple(out)


def _judge_homeless(
    ws: Workspace,
    patch: Patch,
    failed: list[FailedPatch],
    homeless: tuple[MovedFile, ...],
    ctx: _Context,
) -> PatchVerdict:
    """*Target gone*: the patch applies only by creating files in a directory the new
    release no longer has; *upstreamed* when, each such file created at the place its
    directory moved to, the patch is upstreamed there (the new place has the file)."""
    first = homeless[0]
    kind = primary_kind([d.path for d in patch.files])
    directory = first.path.rsplit("/", 1)[0]
    moved_dir = directory if ctx.pin is None else pinned_directory(first.path, ctx.pin)
    where = (
        f"likely moved to {first.likely[: len(first.likely) - len(first.path) + len(moved_dir)]}/"
        f" ({first.found} of {plural(first.total, 'file')} of {moved_dir}/ found there)"
        if first.likely
        else f"none of its {first.total} files found together elsewhere"
        if first.total != 1
        else "its 1 file not found elsewhere"
    )
    under = "" if moved_dir == directory else f", under {moved_dir}/"
    why = (
        f"{first.path} would be created in {directory}/{under}, which the new release no "
        f"longer has; {where}"
    )
    upstream = _rejudge_homeless(ws, patch, failed, homeless, ctx, why)
    if upstream is not None:
        return upstream
    return PatchVerdict(
        patch.name, TARGET_GONE, why, moved=homeless, kind=kind, rule=_gone_rule(homeless, kind)
    )


def _rejudge_homeless(
    ws: Workspace,
    patch: Patch,
    failed: list[FailedPatch],
    homeless: tuple[MovedFile, ...],
    ctx: _Context,
    why: str,
) -> PatchVerdict | None:
    """The patch judged with each file of ``homeless`` created at its likely place, when
    every one has such a place and that judgement is *upstreamed* (the new release has the
    file there already); else ``None`` (``ws`` left as it was)."""
    places = {m.path: m.likely for m in homeless}
    if not all(places.values()):
        return None
    files = tuple(
        replace(d, new_path=places[d.new_path]) if d.new_path in places else d for d in patch.files
    )
    if not any(ws.get(new) is not None for new in places.values() if new is not None):
        return None
    snapshot = ws.snapshot()
    verdict = _judge(ws, replace(patch, files=files), failed, ctx)
    if verdict.verdict == UPSTREAMED:
        return replace(
            verdict, summary=f"{why}; {verdict.summary}", moved=homeless, rule=Rule.FILE_MOVED
        )
    ws.restore(snapshot)
    return None


def _judge_applied(patch: Patch, outcome: PatchOutcome) -> PatchVerdict:
    statuses = [
        HunkVerdict(
            o.path,
            p.hunk.index,
            p.hunk.header,
            APPLIES,
            p.line,
            p.offset,
            patch_line=p.hunk.line_no,
        )
        for o in outcome.files
        for p in o.placements
    ]
    kind = primary_kind([d.path for d in patch.files])
    if outcome.max_offset == 0:
        return PatchVerdict(
            patch.name,
            CLEAN,
            "applies at fuzz 0, every hunk in place",
            tuple(statuses),
            kind=kind,
            rule=Rule.APPLIES,
        )
    name = hunk_namer(statuses)
    moved_text = ", ".join(f"{name(s)} {s.offset:+d}" for s in statuses if s.offset)
    return PatchVerdict(
        patch.name,
        OFFSET,
        f"applies at fuzz 0; hunks moved: {moved_text}",
        tuple(statuses),
        max_offset=outcome.max_offset,
        kind=kind,
        rule=Rule.APPLIES,
    )


def _judge_reapplied(
    ws: Workspace, patch: Patch, ctx: _Context, why: str, rule: Rule = Rule.APPLIES_TWICE
) -> PatchVerdict:
    """An *upstreamed* verdict, decided by ``rule``, for a patch that applies only by adding
    its lines a second time (:func:`patchkeeper.audit.reapplied.already_applied`,
    :func:`patchkeeper.audit.added_elsewhere.added_elsewhere`); ``ws`` is as before it."""
    kind = primary_kind([d.path for d in patch.files])
    statuses = hunk_statuses(ws, patch, search=ctx.search, pin=ctx.pin)
    shares = file_shares(ws, patch, ctx.search, ctx.pin)
    why += _kind_text(kind)
    return _upstreamed(patch, why, statuses, shares, kind=kind, rule=rule)


def _judge(ws: Workspace, patch: Patch, failed: list[FailedPatch], ctx: _Context) -> PatchVerdict:
    """Judge one patch on ``ws`` and update ``ws`` with whatever of it applies (no action
    yet: :func:`with_action`)."""
    missing = [
        d
        for d in patch.files
        if d.old_path is not None
        and not creates_file(d)
        and not d.is_deletion
        and ws.get(d.old_path) is None
    ]
    if all(kind_of(d.path) == NOTES for d in patch.files):
        consumed = _consumed_notes(ws, patch, ctx)
        if consumed is not None:
            return consumed
    if missing:
        return _judge_gone(ws, patch, failed, missing, ctx)
    homeless = _homeless(ws, patch, ctx)
    if homeless:
        return _judge_homeless(ws, patch, failed, homeless, ctx)
    clash = _created_clash(ws, patch)
    if clash is not None:
        return _judge_failing(ws, patch, failed, ctx, clash)
    before = {d.path: ws.get(d.path) for d in patch.files if d.old_path == d.path}
    snapshot = ws.snapshot()
    outcome = apply_patch(ws, patch)
    if outcome.ok:
        again = already_applied(before, outcome)
        elsewhere = None if again else added_elsewhere(before, patch, ctx.pin)
        if again is None and elsewhere is None and not _doubles_imports(before, patch, ctx):
            needed = _module_blocker(ws, patch, failed, ctx)
            if needed is not None:
                ws.restore(snapshot)
                return needed
            return _judge_applied(patch, outcome)
        for path, state in before.items():
            ws.set(path, state)
        if elsewhere is not None:
            return _judge_reapplied(ws, patch, ctx, elsewhere, Rule.ADDED_ELSEWHERE)
        if again is None:
            # a hunk would import a second time what upstream now imports elsewhere:
            # judged hunk by hunk, that hunk is already there
            return _judge_failing(ws, patch, failed, ctx, outcome)
        return _judge_reapplied(ws, patch, ctx, again)
    core = _without_notes(patch)
    if core is not None:
        return _with_notes(ws, patch, _judge(ws, core, failed, ctx), ctx)
    return _judge_failing(ws, patch, failed, ctx, outcome)


def _module_blocker(
    ws: Workspace, patch: Patch, failed: list[FailedPatch], ctx: _Context
) -> PatchVerdict | None:
    """The *blocked* verdict of a patch that applies (``ws`` has it applied) but imports a
    module that neither the old pin nor the new release has and that only a failing
    earlier patch creates (:func:`patchkeeper.audit.dropped_modules.failing_imports`; both
    trees needed), else ``None``.

    Its code cannot run until that patch is ported (tests written for a module the series
    adds): it needs that patch as a patch needs the lines a failing one adds, so it is
    ported after it, not carried; whatever else is known of it (an ``Origin`` naming
    upstream's commit) is weighed as for any *blocked* patch."""
    if ctx.search is None or ctx.pin is None or not failed:
        return None
    failing = {
        path: earlier.name for earlier in failed for path in earlier.created if ws.get(path) is None
    }
    if not failing:
        return None
    hunks = [(d.new_path or d.path, h) for d in patch.files for h in d.hunks]
    found = failing_imports(hunks, ctx.pin, ctx.search, failing)
    if found is None:
        return None
    module, blocker = found
    partly = _blocker_partly_upstream(next(f for f in failed if f.name == blocker))
    return PatchVerdict(
        patch.name,
        BLOCKED,
        f"it applies, but imports {module}, which neither the old pin nor the new release has "
        f"and only the failing patch {shown_name(blocker)} creates"
        + (f"; {partly}" if partly else ""),
        blocked_by=blocker,
        kind=primary_kind([d.path for d in patch.files]),
        rewritten=partly,
        rule=Rule.BLOCKER_PARTLY_UPSTREAM if partly else Rule.BLOCKER_MODULE,
    )


def _doubles_imports(before: dict[str, FileState | None], patch: Patch, ctx: _Context) -> bool:
    """Whether a hunk of ``patch``, which applies as a whole, only adds imports its file
    (``before``: path -> the file before the patch) already has elsewhere while the old
    pin's file lacked them (:func:`patchkeeper.audit.hunk_verdicts.imports_already_there`):
    applying it would import the name twice. A second diff of a file is checked in the file
    the first left (:func:`patchkeeper.audit.reapplied.files_before_diffs`)."""
    for diff, state in files_before_diffs(before, patch.files):
        if state is None:
            continue
        pin_state = ctx.pin.state(diff.path) if ctx.pin is not None else None
        pin = pin_state.lines if pin_state is not None else None
        for hunk in diff.hunks:
            if added_imports(diff.path, hunk) is None:
                continue
            where = locate(state.lines, hunk)
            if where is not None and imports_already_there(
                state.lines, diff.path, hunk, where, pin
            ):
                return True
    return False


def _consumed_notes(ws: Workspace, patch: Patch, ctx: _Context) -> PatchVerdict | None:
    """A release-notes-only patch whose every hunk the new release has (a fragment consumed
    into the changelog): *upstreamed*; else ``None``."""
    statuses = hunk_statuses(ws, patch, search=ctx.search, pin=ctx.pin)
    if not statuses or any(s.status != PRESENT for s in statuses):
        return None
    why = f"every hunk's post-image is there ({_refs(statuses, PRESENT)}){_kind_text(NOTES)}"
    how = "; ".join(f"{s.path} {s.how}" for s in statuses if s.how)
    if how:
        why += f": {how}"
    shares = file_shares(ws, patch, ctx.search, ctx.pin)
    return _upstreamed(patch, why, statuses, shares, kind=NOTES, rule=Rule.HUNKS_PRESENT)


def _with_notes(ws: Workspace, patch: Patch, verdict: PatchVerdict, ctx: _Context) -> PatchVerdict:
    """``verdict`` (on the patch without its release notes) with the notes' hunks judged
    beside it: named as consumed when the changelog has them, else left aside."""
    notes = replace(patch, files=tuple(d for d in patch.files if kind_of(d.path) == NOTES))
    statuses = hunk_statuses(ws, notes, search=ctx.search, pin=ctx.pin)
    consumed = [s for s in statuses if s.status == PRESENT]
    if consumed and len(consumed) == len(statuses):
        text = "; release notes: " + ", ".join(f"{s.path} {s.how}" for s in consumed)
    else:
        paths = ", ".join(dict.fromkeys(d.path for d in notes.files))
        text = f"; release notes left aside ({paths}): a note never decides the verdict"
    return replace(verdict, summary=verdict.summary + text, hunks=verdict.hunks + tuple(statuses))


def _reverse_proves(ws: Workspace, patch: Patch, pin: TreeSearch | None) -> bool:
    """Whether the patch reversing on the new release shows upstream made its change: every
    hunk's post-image there is evidence (:func:`post_image_proves`, against the old pin's
    file), not only an image the old pin already has elsewhere."""
    if pin is None:
        return True
    for diff in patch.files:
        if not diff.old_path or creates_file(diff) or diff.is_deletion:
            continue
        state = pin.state(diff.old_path)
        pin_lines = state.lines if state is not None else None
        lines = file_lines(ws, diff.old_path) or ()
        if not all(post_image_proves(lines, hunk, pin_lines) for hunk in diff.hunks):
            return False
    return True


def _presence_rule(statuses: Sequence[HunkVerdict], kind: str) -> Rule:
    """The rule of a patch found upstream hunk by hunk: :attr:`Rule.REQUIREMENT` when every
    hunk of its deciding files (:func:`decides`) is there by what the requirements admit
    (:data:`patchkeeper.audit.hunk_verdicts.BY_REQUIREMENTS`), else
    :attr:`Rule.HUNKS_PRESENT`."""
    deciding = [s for s in statuses if decides(s.path, kind)]
    if deciding and all(s.how in BY_REQUIREMENTS for s in deciding):
        return Rule.REQUIREMENT
    return Rule.HUNKS_PRESENT


def _named_rule(
    shares: tuple[FileShare, ...], kind: str, ctx: _Context, mentions: tuple[ChangelogLine, ...]
) -> Rule:
    """The rule of a patch upstream has written differently, by evidence that names the fix
    (the changelog's mention, the patch's ``Applied-Upstream`` header): the share of its
    lines alone when that is enough (:func:`written_differently` without the naming), else
    the naming, which lowered the share needed."""
    if written_differently(shares, kind, False, ctx.pin is not None):
        return Rule.WRITTEN_DIFFERENTLY
    return Rule.CHANGELOG_MENTION if mentions else Rule.APPLIED_UPSTREAM_HEADER


def _judge_failing(
    ws: Workspace,
    patch: Patch,
    failed: list[FailedPatch],
    ctx: _Context,
    outcome: PatchOutcome,
) -> PatchVerdict:
    """A patch that does not apply at fuzz 0 as a whole."""
    kind = primary_kind([d.path for d in patch.files])
    statuses = hunk_statuses(ws, patch, search=ctx.search, pin=ctx.pin)
    shares = file_shares(ws, patch, ctx.search, ctx.pin)
    blocker = _blocker(failed, patch, statuses, [], ws)
    if blocker:
        hunks = {(d.path, h.line_no): h for d in patch.files for h in d.hunks}
        needing = [s for s in statuses if s.status == FAILS and decides(s.path, kind)]
        needing += [s for s in statuses if _rests_on_absence(hunks[(s.path, s.patch_line)], s)]
        refs = hunk_refs(needing, statuses)
        verb = "needs" if len(needing) == 1 else "need"
        earlier = next(f for f in failed if f.name == blocker)
        lands = _lands_after(ws, patch, statuses, earlier) or ""
        partly = "" if lands else _blocker_partly_upstream(earlier)
        rule = Rule.BLOCKER_CONTEXT_ONLY if lands else Rule.BLOCKED
        return PatchVerdict(
            patch.name,
            BLOCKED,
            f"{refs} {verb} lines that the failing patch {shown_name(blocker)} adds"
            + (f"; {lands}" if lands else "")
            + (f"; {partly}" if partly else ""),
            tuple(statuses),
            shares,
            blocked_by=blocker,
            kind=kind,
            lands=lands,
            rewritten=partly,
            rule=Rule.BLOCKER_PARTLY_UPSTREAM if partly else rule,
        )
    reverse = apply_patch(ws, patch, reverse=True, commit=False)
    if reverse.ok and _reverse_proves(ws, patch, ctx.pin):
        why = "the patch reverse-applies: the new upstream already has its post-image"
        why += _kind_text(kind)
        return _upstreamed(patch, why, statuses, shares, kind=kind, rule=Rule.REVERSE_APPLIES)
    if all(s.status == PRESENT for s in statuses):
        why = f"every hunk's post-image is there ({_refs(statuses, PRESENT)})"
        why += _kind_text(kind)
        rule = _presence_rule(statuses, kind)
        return _upstreamed(patch, why, statuses, shares, kind=kind, rule=rule)
    upstream = code_upstream(statuses, kind)
    if upstream:
        rule = _presence_rule(statuses, kind)
        return _upstreamed(patch, upstream, statuses, shares, kind=kind, rule=rule)
    cosmetic = _cosmetic(patch, statuses, kind)
    upstream = code_upstream([s for s in statuses if s not in cosmetic], kind) if cosmetic else None
    if upstream:
        refs = hunk_refs(cosmetic, statuses)
        verb = "changes" if len(cosmetic) == 1 else "change"
        text = f"{upstream}; set aside: {refs} only {verb} comments and imports the patch puts back"
        return _upstreamed(patch, text, statuses, shares, kind=kind, rule=Rule.COSMETIC_ASIDE)
    mentions = patch_mentions(patch, ctx.search, ctx.pin)
    applied = applied_upstream(patch, ctx.version)
    named = _named_text(mentions, applied)
    by = "the changelog names the fix" if mentions else "its header names the release"
    rewritten = written_differently(shares, kind, bool(named), ctx.pin is not None, by)
    if rewritten:
        rule = _named_rule(shares, kind, ctx, mentions) if named else Rule.WRITTEN_DIFFERENTLY
        if named:
            rewritten += "; " + named
        verdict = _upstreamed(patch, rewritten, statuses, shares, kind=kind, rule=rule)
        return replace(verdict, mentions=mentions, applied_upstream=_applied_text(applied))
    reordered = _reordered(statuses, shares, kind) if ctx.pin is not None else None
    if reordered:
        return _upstreamed(patch, reordered, statuses, shares, kind=kind, rule=Rule.TESTS_UPSTREAM)
    tested = _tested_rewrite(ws, patch, statuses, shares, kind) if ctx.pin is not None else None
    if tested:
        return _upstreamed(patch, tested, statuses, shares, kind=kind, rule=Rule.TESTS_UPSTREAM)
    at_place = _written_at_place(ws, patch, statuses, kind, ctx.pin)
    if at_place:
        return _upstreamed(
            patch,
            at_place,
            statuses,
            shares,
            kind=kind,
            verdict=PARTIALLY_UPSTREAMED,
            rule=Rule.WRITTEN_AT_PLACE,
        )
    swapped = _swapped_imports(patch, statuses, kind, ctx)
    if swapped:
        return _upstreamed(patch, swapped, statuses, shares, kind=kind, rule=Rule.DROPPED_MODULE)
    obsolete = _obsolete(ws, patch, statuses, kind) if named else None
    if obsolete:
        text = f"{obsolete}; {named}"
        verdict = _upstreamed(patch, text, statuses, shares, kind=kind, rule=Rule.OBSOLETE)
        return replace(verdict, mentions=mentions, applied_upstream=_applied_text(applied))
    created = _only_created_left(patch, statuses, kind)
    if created:
        rule = Rule.ONLY_CREATED_LEFT
        verdict = _upstreamed(patch, created, statuses, shares, kind=kind, rule=rule)
        return replace(verdict, mentions=mentions)
    failing = [s for s in statuses if s.status == FAILS]
    if not failing and _apply_remaining(ws, patch, statuses):
        why = f"already upstream: {_refs(statuses, PRESENT)}; still to carry: "
        why += _refs(statuses, APPLIES)
        verdict = _upstreamed(
            patch,
            why,
            statuses,
            shares,
            kind=kind,
            verdict=PARTIALLY_UPSTREAMED,
            rule=Rule.PARTLY_PRESENT,
        )
        return replace(verdict, mentions=mentions)
    tests_there = _tests_mostly_upstream(statuses, shares, kind) if ctx.pin is not None else None
    fails = f"{_refs(statuses, FAILS)} {_verb(statuses)} at fuzz 0"
    if tests_there:
        text = f"{tests_there}; {fails}"
        rule = Rule.TESTS_MOSTLY_UPSTREAM
        return _with_failures(patch, text, statuses, shares, outcome, kind, mentions, rule=rule)
    most = mostly_there(shares, kind, ctx.pin is not None) or _most_hunks_there(statuses, kind)
    rule = Rule.MOSTLY_THERE
    if not most and ctx.pin is not None:
        most, rule = _most_of_both(statuses, shares), Rule.MOST_OF_BOTH
    if most:
        text = f"{most}; {fails}"
        if mentions:
            text += "; " + mention_text(mentions)
        return _with_failures(patch, text, statuses, shares, outcome, kind, mentions, rule=rule)
    rewritten, rule = _rewritten_at_place(ws, patch, statuses, kind), Rule.REWRITTEN_AT_PLACE
    if not rewritten:
        rewritten, rule = _reworded_at_place(ws, patch, statuses), Rule.REWORDED_AT_PLACE
    if not rewritten:
        rewritten, rule = _skipped_changed(ws, patch, statuses, kind), Rule.TESTS_CHANGED
    if not rewritten:
        rewritten, rule = (
            _some_hunks_there(ws, patch, statuses, kind, ctx.pin),
            Rule.SOME_HUNKS_THERE,
        )
    if not rewritten:
        rewritten, rule = _include_swapped(ws, patch, statuses, kind), Rule.INCLUDE_SWAPPED
    regions = _regions(ws, patch, statuses, kind, ctx.pin)
    if not rewritten:
        rewritten, rule = (
            _function_rewritten(patch, statuses, kind, regions),
            Rule.FUNCTION_REWRITTEN,
        )
    if not rewritten:
        rewritten, rule = _fixed_before_pin(patch, ctx), Rule.FIXED_BEFORE_PIN
    facts = ""
    if regions and not (rewritten and rule == Rule.FUNCTION_REWRITTEN):
        # the facts, whatever the action: how much of what it changes upstream rewrote
        namer = hunk_namer(statuses)
        facts = region_text([(namer(status), region) for status, region in regions])
    verdict = _conflict(patch, statuses, shares, outcome, kind, mentions, facts)
    if rewritten:
        summary = f"{verdict.summary}; {rewritten}"
        verdict = replace(verdict, summary=summary, rewritten=rewritten, rule=rule)
    return verdict


#: How :func:`_fixed_before_pin`'s evidence starts.
FIXED_BEFORE_PIN_TEXT = "the old pin's changelog already names"


def _fixed_before_pin(patch: Patch, ctx: _Context) -> str | None:
    """The evidence that upstream fixed, before the old pin, the issue a failing patch says
    it is about: the first upstream issue number its DEP-3 ``Bug`` field (or a
    ``Bug-<vendor>`` field other than Debian's) names (:func:`references`) that a changelog
    of the pin's tree names, with that line; ``None`` without the pin's tree or such a line.

    The patch was carried on top of upstream's own fix of that issue (a downstream variant
    of it: another default, a stricter check), and it no longer applies: the code it
    changes moved on around upstream's fix. Whether the variant is still wanted, or
    upstream's fix now does, is a person's call (*look*), not a port to make by default.
    Never a retire: the pin already had upstream's fix, and the patch was kept all the same.
    Other references do not count: a CVE id or a pull request (``Origin``) the pin's
    changelog names says an earlier fix of the same problem was released, and a patch
    carried on top of it is as likely a further fix that still needs porting."""
    if ctx.pin is None or ctx.search is None:
        return None
    refs = tuple(
        ref
        for ref in references(patch)
        if ref.kind == "number" and ref.source.lower().startswith("bug")
    )
    found = find_mentions(refs, ctx.pin.changelog_text(), limit=1) if refs else {}
    for ref in refs:
        if ref.value in found:
            mention = found[ref.value][0]
            return (
                f"{FIXED_BEFORE_PIN_TEXT} #{ref.value}, the issue its {ref.source} field names "
                f"({mention.shown(quote='`')}): upstream fixed "
                "that issue its own way before the pin"
            )
    return None


#: How :func:`_function_rewritten`'s evidence starts.
FUNCTION_REWRITTEN_TEXT = "upstream rewrote the function"
#: More than this share of a function's lines changed since the pin: it was rewritten.
REWRITTEN_SHARE = 0.75
#: Less than this share of a hunk's pre-image is left in the rewritten function.
LEFT_SHARE = 0.5


def _function_rewritten(
    patch: Patch,
    statuses: Sequence[HunkVerdict],
    kind: str,
    regions: Sequence[tuple[HunkVerdict, Region]],
) -> str | None:
    """The evidence that upstream rewrote, since the pin, the functions a code patch's
    failing hunks change: of the files that decide the verdict (:func:`decides`), no hunk
    applies, and every failing hunk edits a function (:func:`_regions`) of which the new
    release changed more than :data:`REWRITTEN_SHARE` of the lines, or which the new file
    no longer defines, and less than :data:`LEFT_SHARE` of the hunk's pre-image lines are
    left in it (in the file, for a function gone: its code may have moved to another one
    there; not when its context is in another file, where the code moved); else ``None``.

    The hunk does not fail over a detail beside it: the code it edits is not there any
    more, rewritten as upstream saw fit, as often with upstream's own fix of the same
    problem as without it. The trees cannot tell which without the patch's own lines (which
    were not found, or an earlier rule would have said so), so a person decides (*look*)
    rather than port lines into a function that no longer reads as they expect."""
    code = _failing_code(patch, list(statuses), kind)
    if code is None:
        return None
    _failing, each = code
    found = {(status.path, status.patch_line): region for status, region in regions}
    chosen = []
    for status, _diff, _hunk in each:
        region = found.get((status.path, status.patch_line))
        if region is None or status.moved_to:
            return None  # no function, or its code moved to another file: not rewritten
        rewritten = region.gone or region.changed_share > REWRITTEN_SHARE
        if not rewritten or region.left_share >= LEFT_SHARE:
            return None
        chosen.append((status, region))
    named = hunk_namer(statuses)
    facts = region_text([(named(status), region) for status, region in chosen])
    done = _failing_do([status for status, _region in chosen], "changes", "change")
    return f"{FUNCTION_REWRITTEN_TEXT} {done}: {facts}"


def _regions(
    ws: Workspace, patch: Patch, statuses: Sequence[HunkVerdict], kind: str, pin: TreeSearch | None
) -> list[tuple[HunkVerdict, Region]]:
    """Each failing hunk of the files that decide the verdict (:func:`decides`) with the
    :class:`~patchkeeper.audit.regions.Region` it edits (how much of that function upstream
    changed since the pin), for the hunks that edit a function; ``[]`` without the pin."""
    if pin is None:
        return []
    hunks = {(d.path, h.line_no): (d, h) for d in patch.files for h in d.hunks}
    out = []
    for status in statuses:
        if status.status != FAILS or not decides(status.path, kind):
            continue
        found = hunks.get((status.path, status.patch_line))
        if found is None or creates_file(found[0]):
            continue
        diff, hunk = found
        old = pin.state(diff.old_path or diff.path)
        new = ws.get(diff.old_path or diff.path)
        if old is None or new is None:
            continue
        region = hunk_region(diff.path, hunk, old.lines, new.lines)
        if region is not None:
            out.append((status, region))
    return out


#: A name in code: what :func:`_taken_out` counts.
_NAME = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def _taken_out(hunk: Hunk, line: bytes) -> set[bytes]:
    """The names (identifier tokens) of a removed ``line`` of ``hunk`` that none of the
    hunk's added lines has: what the patch takes out of that line. Numbers and strings are
    left out: a version cap or a path the patch substitutes is moved by upstream too
    without upstream doing what the patch does."""
    added = {token for added in hunk.added for token in tokens(added.text)}
    return {t for t in tokens(line) if t not in added and _NAME.fullmatch(t)}


def _rewritten_at_place(
    ws: Workspace, patch: Patch, statuses: list[HunkVerdict], kind: str
) -> str | None:
    """The evidence that upstream rewrote, where they were, the lines a code patch changes,
    taking out of them what the patch takes out: of the files that decide the verdict
    (:func:`decides`), no hunk applies, and every failing hunk removes lines none of which
    its file still has, one of them being there rewritten at its place
    (:func:`patchkeeper.audit.hunk_verdicts.rewritten_at_place`: a line at least 85% alike)
    without any of the names the patch takes out of it (:func:`_taken_out`, at least one);
    else ``None``.

    Upstream replaced the very name the patch replaces (``Page.__init__(self, 404)`` now
    ``_PageBase.__init__(self, 404)`` where the patch writes ``_Page.__init__(self, 404)``):
    in code that is as likely upstream's own fix as a change the patch must follow, and the
    trees cannot tell which, so a person decides (*look*). A line both only added to
    (``frozenset(["Authorization"])`` given ``"Cookie"`` upstream and ``"Proxy-Auth"`` by
    the patch) says nothing of the patch's change: it stays *port*. Documentation and
    configuration are left out: there upstream rewords a line the patch substitutes (a
    URL, a path, a version) all the time, and the substitution still has to be ported."""
    code = _failing_code(patch, statuses, kind)
    if code is None:
        return None
    failing, each = code
    rewrites: list[tuple[bytes, bytes, set[bytes]]] = []
    for _status, diff, hunk in each:
        state = ws.get(diff.old_path or diff.path)
        removed = removed_lines(hunk)
        if state is None or not removed:
            return None
        index = file_index(state.lines)
        if any(index.has(line) for line in removed):
            return None
        found = rewritten_at_place(state.lines, hunk)
        if found is None:
            return None
        out = _taken_out(hunk, found[0])
        if not out or out & set(tokens(found[1])):
            return None
        rewrites.append((*found, out))
    old, new = (text.decode("utf-8", "replace") for text in rewrites[0][:2])
    words = ", ".join(sorted(t.decode("utf-8", "replace") for t in rewrites[0][2]))
    done = _failing_do(failing, "changes", "change")
    return (
        f"upstream rewrote at their place the lines {done}, without what the patch "
        f"takes out ({words}): `{old}` is now `{new}`"
    )


def _failing_code(
    patch: Patch, statuses: list[HunkVerdict], kind: str
) -> tuple[list[HunkVerdict], list[tuple[HunkVerdict, FileDiff, Hunk]]] | None:
    """For a code patch (``kind``), the failing hunks of the files that decide its verdict
    (:func:`decides`) when none of them applies (:func:`_only_failing`): their statuses,
    and each with its file diff and hunk; ``None`` otherwise. The opening of the rules that
    read code upstream rewrote at the failing hunks' place (:func:`_rewritten_at_place`,
    :func:`_include_swapped`, :func:`_function_rewritten`)."""
    if kind != CODE:
        return None
    each = _only_failing(patch, [s for s in statuses if decides(s.path, kind)])
    if each is None:
        return None
    return [status for status, _diff, _hunk in each], each


def _only_failing(
    patch: Patch, statuses: Sequence[HunkVerdict]
) -> list[tuple[HunkVerdict, FileDiff, Hunk]] | None:
    """Each failing hunk's status with its file diff and hunk of ``patch``, in order, when
    some hunk of ``statuses`` fails and none applies; ``None`` otherwise, or when a status
    names a hunk the patch does not have."""
    hunks = {(d.path, h.line_no): (d, h) for d in patch.files for h in d.hunks}
    failing = [s for s in statuses if s.status == FAILS]
    if not failing or any(s.status == APPLIES for s in statuses):
        return None
    found = []
    for status in failing:
        if (status.path, status.patch_line) not in hunks:
            return None
        found.append((status, *hunks[(status.path, status.patch_line)]))
    return found


def _reworded_at_place(ws: Workspace, patch: Patch, statuses: list[HunkVerdict]) -> str | None:
    """The evidence that upstream fixed the patch's wording its own way: no hunk applies,
    and every failing hunk removes lines none of which its file still has (whole lines,
    comments included), each reworded at
    its place over the very words the patch changes, in prose
    (:func:`patchkeeper.audit.reworded.reworded`); else ``None``. Which wording has the fix
    is a person's call (*look*)."""
    each = _only_failing(patch, statuses)
    if each is None:
        return None
    failing = [status for status, _diff, _hunk in each]
    first = None
    for _status, diff, hunk in each:
        state = ws.get(diff.old_path or diff.path)
        # prose: a comment line is no substantive line, and is compared whole
        removed = [line.text.strip() for line in hunk.lines if line.kind == REMOVED]
        if state is None or not any(removed):
            return None
        there = {line.strip() for line in state.lines}
        if any(line and line in there for line in removed):
            return None
        found = reworded(state.lines, hunk, diff.path)
        if found is None:
            return None
        first = first or found
    assert first is not None
    old, new = (text.decode("utf-8", "replace") for text in first)
    done = _failing_do(failing, "changes", "change")
    return f"upstream reworded at their place the words {done}, in prose: `{old}` is now `{new}`"


#: A line that skips a test: a skip or xfail marker, decorator or call.
_SKIP_LINE = re.compile(rb"skip|xfail", re.IGNORECASE)
#: A preprocessor conditional, which in a C or C++ test compiles a test out.
_C_CONDITIONAL = re.compile(rb"\s*#\s*(?:if|ifdef|ifndef|elif|else|endif)\b")
#: How :func:`_skipped_changed`'s evidence starts (its action's reason follows from it).
SKIPPED_CHANGED_TEXT = "upstream changed the tests that"


def _skips_only(diff: FileDiff, hunk: Hunk) -> bool:
    """Whether ``hunk`` only adds lines that skip or compile out tests: no removed line, and
    every added line that is not blank or a comment a skip (:data:`_SKIP_LINE`) or, in C
    and C++, a preprocessor conditional (:data:`_C_CONDITIONAL`, ``#endif`` too)."""
    language = language_of(diff.path)
    if any(line.kind == REMOVED for line in hunk.lines):
        return False
    added = [
        line.text
        for line in hunk.added
        if line.text.strip()
        and (
            substantive(line.text, language) is not None
            or (language == C_FAMILY and _C_CONDITIONAL.match(line.text))
        )
    ]
    return bool(added) and all(
        _SKIP_LINE.search(text) or (language == C_FAMILY and _C_CONDITIONAL.match(text))
        for text in added
    )


#: A C or C++ ``#include`` line: the path of its header, whatever its delimiters and spaces.
_C_INCLUDE = re.compile(rb'\s*#\s*include\s*[<"]\s*([^>"]+?)\s*[>"]')
#: How :func:`_include_swapped`'s evidence starts (its action's reason follows from it).
INCLUDE_SWAPPED_TEXT = "upstream includes the header it swaps in"


def _headers(lines: Sequence[bytes]) -> list[bytes] | None:
    """The header of each of ``lines`` that is an ``#include``; ``None`` when one is not."""
    out = []
    for line in lines:
        match = _C_INCLUDE.match(line)
        if match is None:
            return None
        out.append(match.group(1))
    return out


def _include_swapped(
    ws: Workspace, patch: Patch, statuses: list[HunkVerdict], kind: str
) -> str | None:
    """The evidence that upstream swapped a C or C++ patch's includes its own way: of the
    files that decide the verdict (:func:`decides`), no hunk applies, and every failing
    hunk, in a C or C++ file, only swaps ``#include`` lines (comments aside), while its file
    in the new release includes none of the headers it swaps out and every header it swaps
    in, by the same path, spelled its own way (``"utf8.h"`` for ``<utf8.h>``); else
    ``None``.

    A de-vendoring patch (``#include "../contrib/utf8cpp/source/utf8.h"`` made
    ``#include <utf8.h>``, the system's copy) fails once upstream rewrote the lines around
    it, and the trees show upstream naming the header as the patch does: it may have
    de-vendored on its own, or may still find its bundled copy by an include path of its
    build. The build decides which, so a person looks, not a port of lines upstream
    already wrote."""
    code = _failing_code(patch, statuses, kind)
    if code is None:
        return None
    failing, each = code
    first: tuple[str, bytes, bytes] | None = None
    for _status, diff, hunk in each:
        state = ws.get(diff.old_path or diff.path)
        if state is None or language_of(diff.path) != C_FAMILY:
            return None
        kept = [line for line in hunk.lines if substantive(line.text, C_FAMILY) is not None]
        out = _headers([line.text for line in kept if line.kind == REMOVED])
        into = _headers([line.text for line in kept if line.kind == ADDED])
        if not out or not into or set(out) & set(into):
            return None
        there = set(_headers_of(state.lines))
        if there & set(out) or not set(into) <= there:
            return None
        first = first or (diff.old_path or diff.path, out[0], into[0])
    assert first is not None
    path, old, new = (
        first[0],
        first[1].decode("utf-8", "replace"),
        first[2].decode("utf-8", "replace"),
    )
    done = _failing_do(failing, "swaps", "swap")
    return (
        f"{INCLUDE_SWAPPED_TEXT}, spelled its own way, and no longer the one it swaps out: "
        f"{done} includes; {path} includes `{new}`, not `{old}`"
    )


def _headers_of(lines: Sequence[bytes]) -> list[bytes]:
    """The header of every ``#include`` line of ``lines``."""
    return [match.group(1) for line in lines if (match := _C_INCLUDE.match(line))]


#: A preprocessor line that opens a conditional block, and one that closes it.
_C_OPENS = re.compile(rb"\s*#\s*(?:if|ifdef|ifndef)\b")
_C_CLOSES = re.compile(rb"\s*#\s*endif\b")


def _broken_halves(patch: Patch, statuses: Sequence[HunkVerdict]) -> list[HunkVerdict]:
    """``statuses`` without the hunks that apply only as half of a skip: in a C or C++
    file, a hunk that applies and only adds preprocessor conditionals (:func:`_skips_only`)
    each of which opens or closes a block whose other end a failing hunk of the same file
    adds (``#if`` before a test in one hunk, its ``#endif`` after the test in the next).

    Such a half compiles nothing out on its own (its ``#endif`` is missing): it is no skip
    that still lands, and upstream left it in place only because its side of the test did
    not change."""
    drop: set[tuple[str, int]] = set()
    by_key = {(s.path, s.patch_line): s for s in statuses}
    for diff in patch.files:
        if language_of(diff.path) != C_FAMILY:
            continue
        opened: list[tuple[str, int]] = []
        pairs: list[tuple[tuple[str, int], tuple[str, int]]] = []
        unpaired = False
        for hunk in diff.hunks:
            key = (diff.path, hunk.line_no)
            for line in hunk.added:
                if _C_OPENS.match(line.text):
                    opened.append(key)
                elif _C_CLOSES.match(line.text):
                    if not opened:
                        unpaired = True
                        break
                    pairs.append((opened.pop(), key))
        if unpaired or opened:
            continue
        for hunk in diff.hunks:
            key = (diff.path, hunk.line_no)
            status = by_key.get(key)
            if status is None or status.status != APPLIES or not _skips_only(diff, hunk):
                continue
            ends = [b if a == key else a for a, b in pairs if key in (a, b) and a != b]
            own = [a for a, b in pairs if a == b == key]
            others = [by_key.get(end) for end in ends]
            if ends and not own and all(o is not None and o.status == FAILS for o in others):
                drop.add(key)
    return [s for s in statuses if (s.path, s.patch_line) not in drop]


def _skipped_changed(
    ws: Workspace, patch: Patch, statuses: list[HunkVerdict], kind: str
) -> str | None:
    """The evidence that upstream changed the tests a tests-only patch skips: no hunk
    applies, every failing hunk only adds skip lines (:func:`_skips_only`:
    ``@pytest.mark.skip(...)``, ``#if 0`` and its ``#endif``), and a line of its context,
    the test it skips, is gone from its file; else ``None``.

    A patch that skips tests failing in one build environment fails to apply once upstream
    rewrote those tests, perhaps to fix what failed: whether the skip is still needed is
    for a person to find out by running them (*look*), not a port of the skip onto tests
    that may now pass, nor a retire of a skip they may still need. While some of its skips
    still land, tests it skips are as they were and the patch is still needed: the skips
    of the changed tests are ported (dropped or moved) with it. Half a skip that applies
    while its other end fails (:func:`_broken_halves`) is no skip that lands."""
    each = _only_failing(patch, _broken_halves(patch, statuses)) if kind == TESTS else None
    if each is None:
        return None
    failing = [status for status, _diff, _hunk in each]
    first = None
    for _status, diff, hunk in each:
        state = ws.get(diff.old_path or diff.path)
        if state is None or not _skips_only(diff, hunk):
            return None
        index = file_index(state.lines)
        # the test a marker skips follows it; the one an ``#endif`` closes precedes it
        language = language_of(diff.path)
        after = substantive_lines(hunk.pre_image[hunk.prefix_context :], language)
        before = substantive_lines(reversed(hunk.pre_image[: hunk.prefix_context]), language)
        gone = next((line for line in (*after, *before) if not index.has(line)), None)
        if gone is None:
            return None
        first = first or (diff.old_path or diff.path, gone)
    assert first is not None
    path, line = first[0], first[1].decode("utf-8", "replace")
    done = _failing_do(failing, "skips", "skip")
    return f"{SKIPPED_CHANGED_TEXT} {done}: `{line}` is no longer in {path}"


def _neighbours(hunk: Hunk, language: str) -> tuple[bytes, bytes] | None:
    """The nearest context lines before and after the one run of lines an insert-only
    ``hunk`` adds that tell their place: substantive (:func:`substantive`, normalized) and
    at least :data:`REWRITTEN_MIN_LENGTH` characters long (``**options)`` or ``else:``
    recur anywhere); ``None`` when the hunk removes a line, adds more than one run, or has
    no such line on either side."""
    if any(line.kind == REMOVED for line in hunk.lines):
        return None
    added = [i for i, line in enumerate(hunk.lines) if line.kind == ADDED]
    if not added or added[-1] - added[0] + 1 != len(added):
        return None
    before = (substantive(line.text, language) for line in reversed(hunk.lines[: added[0]]))
    after = (substantive(line.text, language) for line in hunk.lines[added[-1] + 1 :])
    first = next((t for t in before if t is not None and len(t) >= REWRITTEN_MIN_LENGTH), None)
    last = next((t for t in after if t is not None and len(t) >= REWRITTEN_MIN_LENGTH), None)
    if first is None or last is None:
        return None
    return first, last


def gone_around(ws: Workspace, patch: Patch, statuses: list[HunkVerdict], kind: str) -> str | None:
    """The evidence that upstream took out the code a patch inserts into: of the files that
    decide the verdict (:func:`decides`), no hunk applies, and every failing hunk only
    inserts one run of lines whose nearest substantive context lines, before and after
    (:func:`_neighbours`), are both gone from its file; else ``None``.

    A patch that adds an argument to a call, or a setting next to one, whose both
    neighbours upstream removed has nothing left to attach to: upstream rewrote that code
    (the call, the block), as likely with its own fix as without it, and the trees cannot
    tell which, so a person decides (*look*) rather than port the lines into code that
    no longer exists. Code that moved to another file, where the hunks land unchanged, was
    not taken out: the series checks that first (*refresh*)."""
    each = _only_failing(patch, [s for s in statuses if decides(s.path, kind)])
    if each is None:
        return None
    failing = [status for status, _diff, _hunk in each]
    gone: list[tuple[bytes, bytes]] = []
    for _status, diff, hunk in each:
        state = ws.get(diff.old_path or diff.path)
        around = _neighbours(hunk, language_of(diff.path))
        if state is None or around is None:
            return None
        index = file_index(state.lines)
        if index.has(around[0]) or index.has(around[1]):
            return None
        gone.append(around)
    before, after = (text.decode("utf-8", "replace") for text in gone[0])
    done = _failing_do(failing, "inserts", "insert")
    return (
        f"upstream took out the lines around what {done}: neither `{before}` nor "
        f"`{after}` is in the file any more"
    )


def _cosmetic(patch: Patch, statuses: list[HunkVerdict], kind: str) -> list[HunkVerdict]:
    """The failing hunks of the files that decide the verdict (:func:`decides`) whose every
    changed substantive line is an import statement the patch puts back in the same file
    (the file's imports, removed and added over all its hunks, come out even), comments
    and blank lines aside; ``[]`` unless there is one and a hunk that adds a substantive
    line other than an import is there, and every other deciding hunk is there.

    An upstream commit backported with its neighbours often rewrites the licence header
    and moves an import that the next commit puts back: such hunks change nothing that
    runs, and fail only because upstream wrote its header and imports its own way. The
    patch is judged on the hunks that change code."""
    hunks = {(d.path, h.line_no): (d, h) for d in patch.files for h in d.hunks}
    net: dict[str, Counter[bytes]] = {}
    for diff in patch.files:
        count = net.setdefault(diff.path, Counter())
        for hunk in diff.hunks:
            for line in hunk.lines:
                text = substantive(line.text, language_of(diff.path))
                if text is None or not is_import(line.text):
                    continue
                count[text] += 1 if line.kind == ADDED else -1 if line.kind == REMOVED else 0
    out = []
    code_there = False
    for status in statuses:
        if not decides(status.path, kind) or (status.path, status.patch_line) not in hunks:
            continue
        diff, hunk = hunks[(status.path, status.patch_line)]
        language = language_of(diff.path)
        changed = [
            (line, text)
            for line in hunk.lines
            if line.kind in (ADDED, REMOVED)
            if (text := substantive(line.text, language)) is not None
        ]
        if status.status == PRESENT:
            code_there = code_there or any(
                line.kind == ADDED and not is_import(line.text) for line, _ in changed
            )
            continue
        if status.status != FAILS:
            return []
        imports = net.get(diff.path, Counter())
        if not all(is_import(line.text) and imports[text] == 0 for line, text in changed):
            return []
        out.append(status)
    return out if code_there else []


#: The share of a failing patch's hunks (of the files that decide its verdict) that must be
#: upstream already for the rest to be a person's decision rather than a port.
MOST_HUNKS = WRITTEN_DIFFERENTLY
#: How :func:`_most_hunks_there`'s evidence starts (its action's reason follows from it).
MOST_HUNKS_TEXT = "most of its hunks are upstream"


def _most_hunks_there(statuses: Sequence[HunkVerdict], kind: str) -> str | None:
    """The evidence that most of a failing patch's hunks are upstream: of the hunks of the
    files that decide its verdict (:func:`decides`), at least :data:`MOST_HUNKS` (three of
    four) are there and the others fail; else ``None``.

    A patch that mostly removes lines (a workaround for a construct upstream then dropped
    itself) has few added lines for :func:`mostly_there` to count: its hunks speak for it
    instead. Upstream took most of the change and left the rest, or did it another way there:
    not a port (upstream has most of it) and not a retire (a hunk is not there), so the patch
    is *partially upstreamed* with failing hunks, which a person decides (*look*)."""
    deciding = [s for s in statuses if decides(s.path, kind)]
    present = [s for s in deciding if s.status == PRESENT]
    failing = [s for s in deciding if s.status == FAILS]
    if not failing or len(present) + len(failing) != len(deciding):
        return None
    if len(present) < MOST_HUNKS * len(deciding):
        return None
    return f"{MOST_HUNKS_TEXT}: {len(present)} of {len(deciding)} ({_refs(deciding, PRESENT)})"


#: How :func:`_most_of_both`'s evidence starts (its action's reason follows from it).
MOST_OF_BOTH_TEXT = "more than half of its hunks and of its new lines are upstream"


def _most_of_both(statuses: Sequence[HunkVerdict], shares: Sequence[FileShare]) -> str | None:
    """The evidence that more than half of a failing patch is upstream, counted both ways:
    of all its hunks (release notes aside), none still applies, more than half are there
    and the others fail; and of the substantive added lines the old pin lacked, over all
    its files (release notes aside), more than half are in the new release, at least
    :data:`MOST_OF_BOTH_MIN_LINES`. Else ``None``.

    A large backport (a stable branch's changes taken whole, tests with them) that a later
    release carries in most files while rewriting the others has neither three hunks in
    four nor most of its code lines there, yet upstream has most of it by either measure:
    porting all its failing hunks would redo upstream's work, retiring it may drop a hunk
    upstream lacks, so a person decides (*look*). Either measure alone says less: half the
    hunks of a small patch, or its lines in a test file, are no evidence for the rest."""
    counted = [s for s in statuses if kind_of(s.path) != NOTES]
    present = [s for s in counted if s.status == PRESENT]
    failing = [s for s in counted if s.status == FAILS]
    if not failing or len(present) + len(failing) != len(counted):
        return None
    if len(present) * 2 <= len(counted):
        return None
    lines = [s.counted for s in shares if kind_of(s.path) != NOTES]
    found, total = sum(c[0] for c in lines), sum(c[1] for c in lines)
    if total < MOST_OF_BOTH_MIN_LINES or found * 2 <= total:
        return None
    return (
        f"{MOST_OF_BOTH_TEXT}: {len(present)} of {len(counted)} hunks, {found} of {total} "
        "substantive added lines the old pin lacked"
    )


#: At least this many counted added lines for :func:`_most_of_both`: a share of a few
#: lines says little.
MOST_OF_BOTH_MIN_LINES = 10


#: How :func:`_some_hunks_there`'s evidence starts (its action's reason follows from it).
SOME_HUNKS_TEXT = "upstream has some of its hunks, with code the old pin lacks"


def _some_hunks_there(
    ws: Workspace,
    patch: Patch,
    statuses: Sequence[HunkVerdict],
    kind: str,
    pin: TreeSearch | None,
) -> str | None:
    """The evidence that upstream took part of a failing patch as it is: of the hunks of
    the files that decide its verdict (:func:`decides`), one at least fails, and one at
    least is there by code it adds, a substantive line other than an import that the new
    release's file has and the old pin's file lacked (not there only by the lines it
    removes being gone, :func:`_rests_on_absence`, nor by imports upstream has for code of
    its own), and no failing hunk's removed lines are all still in the file (upstream kept
    what that hunk changes: that part of the fix is not upstream, and the patch is to
    port); else ``None``, and always without the old pin's tree.

    Upstream wrote that hunk's new code since the pin, as the patch writes it: the patch,
    or the upstream fix it is a backport of, is at least partly upstream. Its failing
    hunks are then the rest of that fix written another way (a retire) or a part upstream
    left out (a port), and the trees cannot tell which: a port would rework lines upstream
    may have already, a retire may drop a hunk upstream lacks. The patch stays a *conflict*
    (the rules of the series, a refresh or later patches that rewrite its lines, still
    judge it), for a person to decide (*look*)."""
    if pin is None:
        return None
    deciding = [s for s in statuses if decides(s.path, kind)]
    if not any(s.status == FAILS for s in deciding):
        return None
    hunks = {(d.path, h.line_no): (d, h) for d in patch.files for h in d.hunks}
    for status in deciding:
        found = hunks.get((status.path, status.patch_line))
        if status.status != FAILS or found is None:
            continue
        diff, hunk = found
        state = ws.get(diff.old_path or diff.path)
        removed = removed_lines(hunk)
        if state is not None and removed:
            index = file_index(state.lines)
            if all(index.has(line) for line in removed):
                return None  # upstream kept every line it changes: that part is not upstream
    speaking = []
    for status in deciding:
        found = hunks.get((status.path, status.patch_line))
        if status.status != PRESENT or status.how == IMPORTS_THERE or found is None:
            continue
        diff, hunk = found
        if _rests_on_absence(hunk, status):
            continue
        path = diff.new_path or diff.path
        language = language_of(path)
        added = [
            line
            for line in substantive_lines((line.text for line in hunk.added), language)
            if not is_import(line)
        ]
        now, then = ws.get(path), pin.state(diff.old_path or path)
        has = set(substantive_lines(now.lines, language)) if now is not None else set()
        had = set(substantive_lines(then.lines, language)) if then is not None else set()
        if any(line in has and line not in had for line in added):
            speaking.append(status)
    if not speaking:
        return None
    present = sum(1 for s in deciding if s.status == PRESENT)
    return (
        f"{SOME_HUNKS_TEXT}: {hunk_refs(speaking, statuses)} ({present} of {len(deciding)} "
        "hunks there)"
    )


#: Upstream's tests must add at least this many lines the pin lacks to speak for a code
#: change that only reorders lines.
MIN_TEST_LINES = 3


def _moved_code_test_lines(shares: tuple[FileShare, ...], kind: str) -> tuple[int, int] | None:
    """``(found, total)``: of the added test lines the old pin lacks, how many the new release
    has, for a code fix whose code files add no line the pin lacks (it only moves lines, so
    its code cannot be found upstream as new) and that adds such test lines; else ``None``."""
    if kind != CODE:
        return None
    code = [s for s in shares if decides(s.path, kind) and s.total]
    tests = [s for s in shares if kind_of(s.path) == TESTS and s.counted[1]]
    if not code or any(s.counted[1] for s in code) or not tests:
        return None
    return sum(s.counted[0] for s in tests), sum(s.counted[1] for s in tests)


def _reordered(statuses: list[HunkVerdict], shares: tuple[FileShare, ...], kind: str) -> str | None:
    """The evidence for a code fix that only moves lines the old pin has (so no line of it
    can be found as new upstream) when every test hunk is there and upstream has every
    test line the pin lacks (at least :data:`MIN_TEST_LINES`): the tests show the fix is in;
    else ``None``."""
    counted = _moved_code_test_lines(shares, kind)
    if counted is None:
        return None
    found, total = counted
    if found < total or total < MIN_TEST_LINES:
        return None
    test_hunks = [s for s in statuses if kind_of(s.path) == TESTS]
    if not test_hunks or any(s.status != PRESENT for s in test_hunks):
        return None
    return (
        "its code only moves lines the old pin has and upstream has its tests: every test "
        f"hunk is there ({_refs(test_hunks, PRESENT)}), {found} of {total} new test lines"
    )


def _tests_mostly_upstream(
    statuses: Sequence[HunkVerdict], shares: tuple[FileShare, ...], kind: str
) -> str | None:
    """The evidence that upstream has most, not all, of the tests of a code fix that only
    moves lines the old pin has (none of its code lines is new, so none can be found
    upstream as new; :func:`_reordered` needs every test line and test hunk there): at
    least :data:`patchkeeper.audit.upstreamed.OVERALL_SHARE` of the test lines it adds that
    the pin lacks, and at least :data:`MIN_TEST_LINES` of them, are in the new release, and
    a hunk fails; else ``None``. Upstream took the regression test, written its own way;
    the moved lines cannot show whether the fix came with it, so a person decides
    (*partially upstreamed*, *look*), where the failing hunks alone would say *port*."""
    if not any(s.status == FAILS for s in statuses):
        return None
    counted = _moved_code_test_lines(shares, kind)
    if counted is None:
        return None
    found, total = counted
    if found < MIN_TEST_LINES or found < OVERALL_SHARE * total:
        return None
    missing = [
        line for s in shares if kind_of(s.path) == TESTS and s.counted[1] for line in s.missing
    ]
    shown = "; ".join(f"`{line}`" for line in missing[:3])
    more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
    absent = f" (not found: {shown}{more})" if missing else ""
    return (
        "its code only moves lines the old pin has and upstream has most of its tests: "
        f"{found} of {total} new test lines{absent}"
    )


def _test_share(shares: tuple[FileShare, ...]) -> tuple[int, int]:
    """``(found, total)`` of the counted added lines of the patch's test files."""
    tests = [s for s in shares if kind_of(s.path) == TESTS]
    return sum(s.counted[0] for s in tests), sum(s.counted[1] for s in tests)


def _rewritten_away(lines: Sequence[bytes], hunk: Hunk) -> bool:
    """Whether the code a hunk changes is gone from its file: none of its substantive
    removed lines is there, and fewer than half of its distinct substantive pre-image lines
    (context and removed) are (upstream rewrote that code; a hunk whose context only
    drifted keeps most of it)."""
    index = file_index(lines)
    if any(index.has(line) for line in removed_lines(hunk)):
        return False
    pre = set(substantive_lines(hunk.pre_image))
    return bool(pre) and 2 * sum(1 for line in pre if index.has(line)) < len(pre)


def _tested_rewrite(
    ws: Workspace,
    patch: Patch,
    statuses: list[HunkVerdict],
    shares: tuple[FileShare, ...],
    kind: str,
) -> str | None:
    """The evidence for a code fix upstream rewrote, shown by its tests: upstream has at
    least :data:`patchkeeper.audit.upstreamed.OVERALL_SHARE` of the test lines the
    patch adds that the old pin lacks (at least :data:`MIN_TEST_LINES`), and every code hunk
    is there or the code it changes is gone from its file (:func:`_rewritten_away`; none
    still applies, none moved to another file); else ``None``. Upstream's regression tests
    for the fix are in, and the code the backport patched no longer exists to patch."""
    if kind != CODE:
        return None
    found, total = _test_share(shares)
    if total < MIN_TEST_LINES or found < OVERALL_SHARE * total:
        return None
    hunks = {(d.path, h.line_no): (d, h) for d in patch.files for h in d.hunks}
    code = [s for s in statuses if decides(s.path, kind)]
    failing = [s for s in code if s.status == FAILS]
    if not failing or any(s.status == APPLIES for s in code):
        return None
    for status in failing:
        diff, hunk = hunks[(status.path, status.patch_line)]
        state = ws.original(diff.old_path or diff.path)
        if status.moved_to is not None or state is None or not _rewritten_away(state.lines, hunk):
            return None
    present = _refs(code, PRESENT)
    there = f"; {present} there" if present else ""
    return (
        f"upstream has its tests ({found} of {total} new test lines) and rewrote the code it "
        f"changes: what {_failing_do(failing, 'changes', 'change')} "
        f"is gone from the new release{there}"
    )


def _only_created_left(patch: Patch, statuses: list[HunkVerdict], kind: str) -> str | None:
    """The evidence that upstream has a patch's change to its files and lacks only files the
    patch creates, which are its tests' data: no hunk fails, every hunk that still applies
    creates a file that is tests, documentation or release notes, or in no language the
    audit reads as code (``result/schemas/issue_0.err``, ``test/schemas/issue_0.xsd``; not
    a ``.py``, ``.c`` or configuration file), and every hunk of the files it changes that
    decide the verdict (:func:`decides`) is there, one at least adding a substantive line
    (not there only because the lines it removes are gone); else ``None``. The fix
    backported with its regression tests is in the new release; upstream ships those tests
    its own way or not at all, and the patch is *upstreamed*."""
    diffs = {(d.path, h.line_no): d for d in patch.files for h in d.hunks}
    set_aside: dict[str, None] = {}
    there = []
    hunks = {(d.path, h.line_no): h for d in patch.files for h in d.hunks}
    for status in statuses:
        diff = diffs.get((status.path, status.patch_line))
        if diff is None or status.status == FAILS:
            return None
        if creates_file(diff):
            if status.status != APPLIES:
                return None
            path = diff.new_path or diff.path
            if kind_of(path) == CONFIG or (kind_of(path) == CODE and language_of(path)):
                return None
            set_aside[path] = None
            continue
        if not decides(status.path, kind):
            continue
        if status.status != PRESENT:
            return None
        if not _rests_on_absence(hunks[(status.path, status.patch_line)], status):
            there.append(status)
    if not set_aside or not there:
        return None
    files = ", ".join(set_aside)
    return (
        f"its change to the files it patches is upstream ({_refs(statuses, PRESENT)}); only "
        f"files it creates are not, its tests' data, set aside: {files}"
    )


#: A C comment, ``/* ... */`` on one line, or ``// ...`` to the end of the line.
_C_COMMENT = re.compile(rb"/\*.*?\*/|//.*$")

#: At most this many lines upstream wrote between a hunk's two sides of context, per line the
#: hunk inserts, for :func:`_inserted_there` (and never fewer than :data:`MIN_GAP`).
GAP_PER_LINE = 3
MIN_GAP = 6


def _starts(lines: Sequence[bytes], pattern: Sequence[bytes]) -> list[int]:
    """The 0-based starts where ``pattern`` (not empty) is in ``lines`` as a whole run."""
    width = len(pattern)
    return [
        at
        for at in range(len(lines) - width + 1)
        if lines[at] == pattern[0] and tuple(lines[at : at + width]) == tuple(pattern)
    ]


def _code_part(line: bytes, language: str) -> bytes | None:
    """A line's substantive text without its comment (in C and C++, ``/* ... */`` and
    ``// ...``; elsewhere :func:`tokens` leaves ``#`` comments out itself); ``None`` when
    nothing substantive is left."""
    text = line.rstrip(b"\r\n")
    if language == C_FAMILY:
        text = _C_COMMENT.sub(b"", text)
    return substantive(text, language)


def _inserted_there(
    lines: Sequence[bytes], hunk: Hunk, language: str, pin: Sequence[bytes]
) -> tuple[bytes, ...] | None:
    """The lines upstream wrote at the very place a hunk inserts its lines, when they hold
    every substantive line it inserts, comments aside; else ``None``. The hunk only inserts
    one run of lines, each side of its context holds a substantive line, the new release's
    file (``lines``) has the one before ending above the one after, with at most
    :data:`GAP_PER_LINE` lines per inserted line between (:data:`MIN_GAP` at least), at
    exactly one place, the old pin's file (``pin``) has both sides together (upstream wrote
    the lines between since the pin), and those lines hold each substantive inserted line,
    reformatted or not (:class:`patchkeeper.series.substantive_lines.FileIndex`), their
    comments aside too."""
    if not hunk.is_insertion:
        return None
    pre = hunk.pre_image
    before, after = pre[: hunk.prefix_context], pre[hunk.prefix_context :]
    if not substantive_lines(before, language) or not substantive_lines(after, language):
        return None
    inserted = [
        text for line in hunk.added if (text := _code_part(line.text, language)) is not None
    ]
    if not inserted:
        return None
    if not _starts(pin, pre):
        return None
    limit = max(MIN_GAP, GAP_PER_LINE * len(hunk.added))
    places = [
        (head + len(before), tail)
        for head in _starts(lines, before)
        for tail in _starts(lines, after)
        if 0 < tail - head - len(before) <= limit
    ]
    if len(places) != 1:
        return None
    start, end = places[0]
    gap = tuple(lines[start:end])
    index = file_index(
        [_C_COMMENT.sub(b"", line) if language == C_FAMILY else line for line in gap]
    )
    if not all(index.has(text) for text in inserted):
        return None
    return gap


#: How :func:`_written_at_place`'s evidence starts (its action's reason follows from it).
AT_PLACE_TEXT = "upstream wrote at its place"


def _written_at_place(
    ws: Workspace,
    patch: Patch,
    statuses: list[HunkVerdict],
    kind: str,
    pin: TreeSearch | None,
) -> str | None:
    """The evidence that upstream wrote, at the very place, the lines a patch inserts: every
    failing hunk of the files that decide its verdict (:func:`decides`) only inserts lines
    that the lines upstream wrote between its two sides of context since the pin hold,
    comments aside (:func:`_inserted_there`: ``if (0 == n_keys) {`` with a counter of its own
    where the patch adds ``if (0 == n_keys)`` and ``return false;``), every other such hunk
    being there; else ``None``. Both sides of the context fix the place, and the lines are
    the patch's: upstream likely made the same change its own way (a brace, a comment, a
    line of its own beside them), yet what it wrote around them may do more or otherwise,
    and a line as short as ``return false;`` is common: the patch is *partially upstreamed*
    and a person decides (*look*), neither a port of a change upstream has nor a retire on
    lines alone. Needs the old pin's tree."""
    if pin is None:
        return None
    hunks = {(d.path, h.line_no): (d, h) for d in patch.files for h in d.hunks}
    deciding = [s for s in statuses if decides(s.path, kind)]
    failing = [s for s in deciding if s.status == FAILS]
    if not failing or any(s.status not in (FAILS, PRESENT) for s in deciding):
        return None
    written = []
    for status in failing:
        if (status.path, status.patch_line) not in hunks:
            return None
        diff, hunk = hunks[(status.path, status.patch_line)]
        path = diff.old_path or diff.path
        lines = file_lines(ws, path)
        pin_state = pin.state(path)
        if lines is None or pin_state is None:
            return None
        gap = _inserted_there(lines, hunk, language_of(path), pin_state.lines)
        if gap is None:
            return None
        written.append(gap)
    done = _failing_do(failing, "inserts", "insert")
    first = next(line.strip() for line in written[0] if line.strip())
    return (
        f"{AT_PLACE_TEXT} lines holding the ones {done}, comments aside: "
        f"`{first.decode('utf-8', 'replace')}`"
        + (f" ({len(written[0])} lines)" if len(written[0]) > 1 else "")
    )


def _swapped_imports(
    patch: Patch, statuses: list[HunkVerdict], kind: str, ctx: _Context
) -> str | None:
    """The evidence for a patch whose failing hunks of deciding files only swap imports of a
    module the new release dropped (:func:`patchkeeper.audit.dropped_modules.import_swaps`)
    or only respell lines (:func:`patchkeeper.audit.dropped_modules.respelled_only`), every
    other such hunk being there and none still applying; else ``None``."""
    if ctx.search is None or ctx.pin is None:
        return None
    code = [s for s in statuses if decides(s.path, kind)]
    failing = [s for s in code if s.status == FAILS]
    if not failing or any(s.status == APPLIES for s in code):
        return None
    hunks = {(d.path, h.line_no): (d.old_path or d.path, h) for d in patch.files for h in d.hunks}
    failing = [s for s in failing if not respelled_only(hunks[(s.path, s.patch_line)][1])]
    swap = import_swaps([hunks[(s.path, s.patch_line)] for s in failing], ctx.pin, ctx.search)
    if swap is None:
        return None
    modules = ", ".join(swap.dropped)
    verb = "is" if len(swap.dropped) == 1 else "are"
    present = _refs(code, PRESENT)
    there = f"; {present} there" if present else ""
    return (
        f"upstream dropped the module its imports replace: {modules} {verb} gone from the new "
        f"release, and the files of {_refs(failing, FAILS)} no longer name "
        f"{', '.join(swap.instead)}{there}"
    )


def _obsolete(ws: Workspace, patch: Patch, statuses: list[HunkVerdict], kind: str) -> str | None:
    """The evidence that the code the failing hunks change is gone from the new release:
    the failing hunks of deciding files that remove substantive lines (at least one; a hunk
    that only adds, an import say, has nothing to tell by) remove lines the new release's
    files lack, all of them or at least
    :data:`patchkeeper.audit.upstreamed.WRITTEN_DIFFERENTLY` of at least
    :data:`patchkeeper.audit.upstreamed.MIN_CODE_LINES` (a shared import line the patch
    rewrote may stay): upstream rewrote that code; else ``None``. With the changelog
    naming the fix, the patch is obsolete: upstream fixed it its own way."""
    hunks = {(d.path, h.line_no): (d, h) for d in patch.files for h in d.hunks}
    failing = [s for s in statuses if s.status == FAILS and decides(s.path, kind)]
    removing = []
    gone = total = 0
    for status in failing:
        diff, hunk = hunks[(status.path, status.patch_line)]
        state = ws.original(diff.old_path or diff.path)
        removed = removed_lines(hunk)
        if state is None or not removed:
            continue
        removing.append(status)
        index = file_index(state.lines)
        total += len(removed)
        gone += sum(1 for line in removed if not index.has(line))
    most = total >= MIN_CODE_LINES and gone >= WRITTEN_DIFFERENTLY * total
    if not removing or (gone < total and not most):
        return None
    refs = hunk_refs(removing, statuses)
    lines = "the lines" if gone == total else f"{gone} of the {total} lines"
    return (
        f"upstream rewrote the code the patch changes: {lines} {refs} remove are gone from "
        "the new release"
    )


def _verb(statuses: Sequence[HunkVerdict]) -> str:
    return "fails" if _count(statuses, FAILS) == 1 else "fail"


def _conflict(
    patch: Patch,
    statuses: list[HunkVerdict],
    shares: tuple[FileShare, ...],
    outcome: PatchOutcome,
    kind: str,
    mentions: tuple[ChangelogLine, ...],
    facts: str = "",
) -> PatchVerdict:
    """The *conflict* verdict of a patch with failing hunks (rule ``hunks-fail``, which a
    later rule may change): which hunks fail and the closest match, where their code moved,
    the hunks already upstream, the share of its lines there, ``facts`` (how much upstream
    rewrote the functions the failing hunks edit: :func:`_regions`), and the changelog's
    mentions (a reason to look)."""
    failing = [s for s in statuses if s.status == FAILS]
    text = f"{_refs(statuses, FAILS)} {_verb(statuses)} at fuzz 0"
    closest = failing[0].evidence if failing else None
    if closest is not None and closest.closest_line is not None:
        text += (
            f" (closest: {closest.path} line {closest.closest_line}, {closest.matching} of "
            f"{closest.total} lines match)"
        )
    moved = _moved_text(statuses)
    if moved:
        text += f"; {moved}"
    present = _refs(statuses, PRESENT)
    if present:
        text += f"; already upstream: {present}"
    text += "; " + share_text(shares)
    if facts:
        text += "; " + facts
    if mentions:
        text += "; " + mention_text(mentions) + ", a reason to look"
    rule = Rule.HUNKS_FAIL
    return _with_failures(
        patch, text, statuses, shares, outcome, kind, mentions, CONFLICT, rule=rule
    )


#: The reason to look at a patch its header says upstream has, whose content differs.
HEADER_SAYS_UPSTREAM = "its header says upstream has it, the content differs"


def _with_header(patch: Patch, verdict: PatchVerdict, ctx: _Context) -> PatchVerdict:
    """``verdict`` with the patch's ``Applied-Upstream`` evidence
    (:mod:`patchkeeper.audit.applied_upstream`) added when the verdict is neither *clean*,
    *offset* nor *upstreamed* by it already: in the summary (for a *conflict*, a reason to
    look) and in :attr:`PatchVerdict.applied_upstream`, which turns *port* into *look*
    (:func:`action_of`); else, for a *conflict* or *blocked* patch, its ``Origin`` naming
    upstream's commit made before the new release (:attr:`PatchVerdict.upstream_commit`)."""
    if verdict.verdict in GOOD:
        return verdict
    applied = applied_upstream(patch, ctx.version)
    if applied is None:
        if verdict.verdict not in (CONFLICT, BLOCKED):
            return verdict
        commit = upstream_commit(patch, ctx.search, ctx.pin)
        if commit is None:
            return verdict
        return replace(
            verdict, summary=f"{verdict.summary}; {commit.text}", upstream_commit=commit.text
        )
    text = f"{verdict.summary}; {applied.text}"
    if verdict.verdict == CONFLICT and not verdict.mentions:
        text += ", a reason to look"
    return replace(verdict, summary=text, applied_upstream=applied.text)


#: The reason to carry a *conflict* whose hunks git's three-way merge places unchanged.
REFRESH = "refresh it: its hunks land with their + and - lines unchanged"


#: The reason to look at a failing patch that is upstream's commit made before the release.
UPSTREAM_COMMIT_REASON = (
    "it is upstream's commit, made before the new release: decide whether the release has it"
)

#: The reason to look at a code patch whose changed lines upstream rewrote at their place.
REWRITTEN_REASON = "upstream changed the same lines; decide whether its change has the fix"

#: The reason to look at a *target gone* patch whose new place has every line it adds.
MOVED_ADDED_REASON = "its new place has what it adds; decide whether the fix is there"


#: The reason to look at a patch that changes a file neither the pin nor the new release has.
NOT_AT_PIN_REASON = "the series does not apply at its pin: fix or drop the patch, then audit again"
CREATED_EARLIER_REASON = (
    "upstream took the earlier patch without the file this one changes: decide whether this "
    "one is still needed"
)


#: The reason to port a patch that applies but imports a module the new release lacks.
IMPORTS_GONE_REASON = "it imports a module the new release no longer has"


#: The reason to port a patch that applies but misses places upstream added its text at.
NEW_PLACES_REASON = "extend it to the new places of the text it rewrites"


#: The reason to look at a patch file that cannot be read.
UNREADABLE_REASON = "the patch file cannot be read: fix it, then audit again"

#: The reason of the one unconditional *retire*: no part of the evidence asks for a review.
UPSTREAM_HAS_IT = "upstream has it"
#: Why a failing patch that a release between the pin and the audited one had, and a later
#: one applies again, is looked at (:mod:`patchkeeper.audit.between`).
TAKEN_REVERTED_REASON = (
    "upstream had it at an earlier release and a later one lacks it again; decide whether "
    "upstream reverted it"
)


#: The action's reason of a patch retired because the release notes list its subject.
CHANGELOG_SUBJECT_REASON = "after checking that upstream's commit of that subject holds all of it"
#: The action's reason of a patch retired because it is upstream's commit, made before the
#: new release, and the new release's changelog names its fix.
UPSTREAM_COMMIT_RETIRE_REASON = (
    "after checking that the release has upstream's commit and that it holds all of it"
)
#: The action's reason of a patch retired because a release between had it.
TAKEN_EARLIER_RETIRE_REASON = "after checking that upstream's changes since keep its fix"


def plainly_upstream(verdict: PatchVerdict) -> bool:
    """Whether ``verdict`` is *upstreamed* with the one unconditional action, *retire*
    because upstream has it (:data:`UPSTREAM_HAS_IT`): nothing of its evidence asks a
    person first. An *upstreamed* verdict whose action is *look* (upstream has it at one
    place of two) or a retire "after reviewing the lines not found" is not."""
    if verdict.verdict != UPSTREAMED:
        return False
    return action_of(verdict)[:2] == (RETIRE, UPSTREAM_HAS_IT)


#: Why a patch whose hunk lines mix CRLF and LF is looked at, not retired.
MIXED_ENDINGS_REASON = (
    "apply refuses its mixed line endings; convert it to LF (dos2unix) and audit it again"
)


def action_of(verdict: PatchVerdict) -> tuple[str, str, str]:
    """What to do with a patch, why in a few words, and the rule that decided it:
    ``(action, reason, rule)``. The rule is the verdict's own (:attr:`PatchVerdict.rule`)
    unless evidence found beside the verdict decides the action (a header or a changelog
    that names the fix, a refresh, imports or places the new release changed, ...)."""
    own = verdict.rule
    if verdict.verdict == UNREADABLE:
        return LOOK, UNREADABLE_REASON, Rule.UNREADABLE
    if verdict.imports_gone and (verdict.verdict in (CLEAN, OFFSET) or verdict.refresh):
        return PORT, IMPORTS_GONE_REASON, Rule.IMPORTS_GONE
    if verdict.new_places and (verdict.verdict in (CLEAN, OFFSET) or verdict.refresh):
        return PORT, NEW_PLACES_REASON, Rule.NEW_PLACES
    if verdict.verdict in (CLEAN, OFFSET):
        return CARRY, "it applies", Rule.APPLIES
    if verdict.taken_at is not None and verdict.verdict != UPSTREAMED:
        return LOOK, TAKEN_REVERTED_REASON, Rule.TAKEN_EARLIER
    if verdict.verdict == UPSTREAMED:
        if verdict.endings:
            # apply refuses the patch as it is: convert it, then audit it again
            return LOOK, MIXED_ENDINGS_REASON, Rule.MIXED_ENDINGS
        if own == Rule.CHANGELOG_SUBJECT:
            # the evidence is the release notes, not the code: a backport may carry more
            # than upstream's commit of that name, so a person checks before it goes
            return RETIRE, CHANGELOG_SUBJECT_REASON, own
        if own == Rule.UPSTREAM_COMMIT:
            # the evidence is the header's commit and the release notes, not the code
            return RETIRE, UPSTREAM_COMMIT_RETIRE_REASON, own
        if own == Rule.TAKEN_EARLIER:
            # the evidence is an earlier release: what upstream changed since may have
            # dropped the fix again, so a person checks before it goes
            return RETIRE, TAKEN_EARLIER_RETIRE_REASON, own
        if verdict.elsewhere:
            reason = "upstream has it at one place; decide whether the other needs it"
            return LOOK, reason, Rule.FITS_ELSEWHERE
        short = any(s.counted[0] < s.counted[1] for s in verdict.shares if s.kind == verdict.kind)
        if short and "written differently" in verdict.summary:
            return RETIRE, "after reviewing the lines not found", own
        return RETIRE, UPSTREAM_HAS_IT, own
    if verdict.verdict == PARTIALLY_UPSTREAMED:
        if verdict.summary.startswith(AT_PLACE_TEXT):
            reason = "upstream wrote its lines at their place; decide whether that is its fix"
            return LOOK, reason, own
        if verdict.summary.startswith(MOST_HUNKS_TEXT):
            reason = "most of its hunks are upstream; decide whether the others are needed"
            return LOOK, reason, own
        if verdict.summary.startswith(MOST_OF_BOTH_TEXT):
            reason = "more than half of it is upstream; decide whether the rest is needed"
            return LOOK, reason, own
        if any(h.status == FAILS for h in verdict.hunks):
            reason = "most of it is upstream, written differently; decide what is left"
            return LOOK, reason, own
        if verdict.applied_upstream:
            return LOOK, HEADER_SAYS_UPSTREAM, Rule.APPLIED_UPSTREAM_HEADER
        return PORT, "drop the hunks upstream has", own
    if verdict.verdict == CONFLICT:
        if verdict.mentions:
            reason = "the changelog names its fix, the content differs"
            return LOOK, reason, Rule.CHANGELOG_MENTION
        if verdict.applied_upstream:
            return LOOK, HEADER_SAYS_UPSTREAM, Rule.APPLIED_UPSTREAM_HEADER
        if verdict.refresh:
            moved = own == Rule.REFRESH_MOVED
            return CARRY, REFRESH, Rule.REFRESH_MOVED if moved else Rule.REFRESH
        if verdict.rewritten.startswith(SKIPPED_CHANGED_TEXT):
            reason = "upstream changed the tests it skips; decide whether they still fail"
            return LOOK, reason, Rule.TESTS_CHANGED
        if verdict.rewritten.startswith(INCLUDE_SWAPPED_TEXT):
            reason = (
                "upstream includes the header it swaps in; decide whether its build uses the "
                "one the patch wants"
            )
            return LOOK, reason, Rule.INCLUDE_SWAPPED
        if verdict.rewritten.startswith(FUNCTION_REWRITTEN_TEXT):
            reason = "upstream rewrote the function it changes; decide whether that has the fix"
            return LOOK, reason, own
        if verdict.rewritten.startswith(FIXED_BEFORE_PIN_TEXT):
            reason = (
                "upstream fixed the issue it names before the old pin; decide whether the "
                "patch is still wanted on top of that fix"
            )
            return LOOK, reason, Rule.FIXED_BEFORE_PIN
        if verdict.rewritten.startswith(SOME_HUNKS_TEXT):
            reason = "upstream took part of it; decide whether the failing hunks are still needed"
            return LOOK, reason, Rule.SOME_HUNKS_THERE
        if verdict.rewritten:
            return LOOK, REWRITTEN_REASON, own
        if verdict.upstream_commit:
            return LOOK, UPSTREAM_COMMIT_REASON, Rule.UPSTREAM_COMMIT
        return PORT, "rework the failing hunks", own
    if verdict.verdict == TARGET_GONE:
        if verdict.not_at_pin:
            if f"{verdict.not_at_pin} {CREATED_EARLIER_TEXT}" in verdict.summary:
                return LOOK, CREATED_EARLIER_REASON, Rule.NOT_AT_PIN
            return LOOK, NOT_AT_PIN_REASON, Rule.NOT_AT_PIN
        if verdict.applied_upstream:
            return LOOK, HEADER_SAYS_UPSTREAM, Rule.APPLIED_UPSTREAM_HEADER
        if verdict.rewritten:
            return LOOK, MOVED_ADDED_REASON, Rule.MOVED_LINES_THERE
        if verdict.moved and unplaced(verdict.moved, verdict.kind) is None:
            if all(m.reason == DIRECTORY_MOVED for m in verdict.moved):
                return PORT, "into the directory its files moved to", Rule.FILE_MOVED
            return PORT, "onto the file its content moved to", Rule.FILE_MOVED
        return LOOK, "its file is gone and its content was not found", Rule.FILE_GONE
    if verdict.lands:
        reason = f"after {verdict.blocked_by} is ported: its own lines fit the new release"
        return CARRY, reason, Rule.BLOCKER_CONTEXT_ONLY
    if verdict.upstream_commit:
        return LOOK, UPSTREAM_COMMIT_REASON, Rule.UPSTREAM_COMMIT
    if verdict.rewritten.startswith(BLOCKER_PARTLY_TEXT):
        reason = f"decide it with {verdict.blocked_by}, which upstream took part of"
        return LOOK, reason, Rule.BLOCKER_PARTLY_UPSTREAM
    rule = Rule.BLOCKER_MODULE if own == Rule.BLOCKER_MODULE else Rule.BLOCKED
    return PORT, f"after {verdict.blocked_by}", rule


def with_action(verdict: PatchVerdict) -> PatchVerdict:
    """``verdict`` with :attr:`PatchVerdict.action` set, the summary ending with it, and
    :attr:`PatchVerdict.rule` the rule that decided it (:func:`action_of`); the summary
    before is kept as :attr:`PatchVerdict.evidence`."""
    if verdict.action:
        return verdict
    action, reason, rule = action_of(verdict)
    summary = f"{verdict.summary}; to do: {action} ({reason})"
    return replace(verdict, action=action, summary=summary, rule=rule, evidence=verdict.summary)


def evidence_of(verdict: PatchVerdict) -> str:
    """``verdict``'s summary without what to do: :attr:`PatchVerdict.evidence`, kept when
    :func:`with_action` added the action, else (no action added, or a verdict read back
    from its JSON form) the summary as it is. Taken from the verdict's data, never by
    looking for ``"; to do: "`` in its text, which the evidence or the reason may hold."""
    if verdict.action and verdict.evidence is not None:
        return verdict.evidence
    return verdict.summary


def judge_patch(
    ws: Workspace,
    patch: Patch,
    failed: list[FailedPatch],
    search: TreeSearch | None,
    pin: TreeSearch | None = None,
    version: str | None = None,
    created: Mapping[str, str] | None = None,
) -> PatchVerdict:
    """Judge one patch on ``ws`` and update ``ws`` with whatever of it applies.

    Args:
        ws: the new release, with the earlier patches of the series that applied.
        patch: the patch.
        failed: the earlier patches that failed (for *blocked*).
        search: the new release's tree (moved content, changelogs), or ``None``.
        pin: the old pin's tree (lines already there at the pin do not count as evidence;
            changelog mentions it already has are not new), or ``None`` when it cannot be had.
        version: the new release's version (for the patch's ``Applied-Upstream``), or
            ``None`` when unknown.
        created: per file an earlier patch of the series creates, that patch's name (a
            file missing because that patch is not applied is named with it), or ``None``.
    """
    return with_action(judge_unfinished(ws, patch, failed, search, pin, version, created))


def judge_unfinished(
    ws: Workspace,
    patch: Patch,
    failed: list[FailedPatch],
    search: TreeSearch | None,
    pin: TreeSearch | None = None,
    version: str | None = None,
    created: Mapping[str, str] | None = None,
) -> PatchVerdict:
    """:func:`judge_patch` without the action (for series-level rules that re-judge)."""
    ctx = _Context(search, pin, version, dict(created or {}))
    unpinned = _only_in_release(ws, patch, ctx)  # read before the patch changes ws
    verdict = _with_new_places(
        patch,
        _with_imports_gone(patch, _with_header(patch, _judge(ws, patch, failed, ctx), ctx), ctx),
        ctx,
    )
    verdict = _with_only_in_release(verdict, unpinned)
    verdict = _with_pin_space(patch, verdict, ctx.pin)
    if verdict.verdict != UPSTREAMED:
        return verdict
    mixed = _mixed_endings_at_pin(patch, ctx)
    if mixed is not None:
        endings = f"{mixed.words()}: apply refuses it (different line endings)"
        verdict = replace(verdict, summary=f"{verdict.summary}; {endings}", endings=endings)
    elsewhere = _fits_elsewhere(ws, patch, verdict)
    if not elsewhere:
        return verdict
    return replace(verdict, summary=f"{verdict.summary}; {elsewhere}", elsewhere=elsewhere)


def _mixed_endings_at_pin(patch: Patch, ctx: _Context) -> MixedEndings | None:
    """The first hunk of ``patch`` whose lines mix CRLF and LF
    (:func:`patchkeeper.series.hunks.mixed_endings`, lint's PK306) and whose pre-image the
    old pin's file does not hold as it is, byte for byte: ``apply`` refuses that hunk at the
    pin (a file whose lines mix their endings the same way takes it, as GNU patch does).
    Without the pin's tree, every such hunk counts."""
    for diff in patch.files:
        for hunk in diff.hunks:
            found = mixed_endings([(diff.path, [hunk])])
            if found is None:
                continue
            state = ctx.pin.state(diff.old_path or diff.path) if ctx.pin is not None else None
            if state is None or not _holds(state.lines, hunk.pre_image):
                return found
    return None


def _holds(lines: Sequence[bytes], pattern: Sequence[bytes]) -> bool:
    """Whether ``lines`` hold ``pattern`` as one run, as it is.

    >>> _holds([b"a\\r\\n", b"b\\n", b"c\\n"], [b"a\\r\\n", b"b\\n"])
    True
    >>> _holds([b"a\\n", b"b\\n"], [b"a\\r\\n", b"b\\n"])
    False
    """
    size = len(pattern)
    first = pattern[0] if pattern else None
    return any(
        lines[start] == first and list(lines[start : start + size]) == list(pattern)
        for start in range(len(lines) - size + 1)
    )


def _with_pin_space(patch: Patch, verdict: PatchVerdict, pin: TreeSearch | None) -> PatchVerdict:
    """``verdict`` with the evidence of each hunk that white space at the ends of lines
    keeps out told whether the patch or upstream changed it (:mod:`.pin_space`); the
    verdict itself is not changed."""
    if pin is None:
        return verdict
    failures = tuple(
        replace(f, hunks=tuple(pin_space_evidence(patch, h, pin) for h in f.hunks))
        for f in verdict.failures
    )
    hunks = tuple(
        h if h.evidence is None else replace(h, evidence=pin_space_evidence(patch, h.evidence, pin))
        for h in verdict.hunks
    )
    if failures == verdict.failures and hunks == verdict.hunks:
        return verdict
    return replace(verdict, failures=failures, hunks=hunks)


def _only_in_release(ws: Workspace, patch: Patch, ctx: _Context) -> list[str]:
    """The files ``patch`` changes (not creates) that the new release has (``ws``) and the
    old pin's tree lacks, leaving out those an earlier patch of the series creates: the
    series does not apply at its own pin (a Debian patch to a ``pytest.ini`` the pin's sdist
    does not ship, which a later release does). None without the pin's tree."""
    if ctx.pin is None:
        return []
    return [
        d.old_path
        for d in patch.files
        if d.old_path is not None
        and not creates_file(d)
        and d.old_path not in ctx.created
        and ws.get(d.old_path) is not None
        and ctx.pin.state(d.old_path) is None
    ]


#: How :func:`_with_only_in_release`'s evidence says the series misses its own pin.
ONLY_IN_RELEASE_TEXT = "not in the old pin's tree, only in the new release"


def _with_only_in_release(verdict: PatchVerdict, paths: list[str]) -> PatchVerdict:
    """``verdict`` saying that the files ``paths`` (:func:`_only_in_release`) are not at the
    old pin: the patch does not apply to the pin itself, as an audit of a range that holds
    the pin shows (*target gone* there). The verdict and its action stay the new release's
    (it is judged there); :attr:`PatchVerdict.not_at_pin` names the first file, except on a
    *target gone* verdict, where that field decides the action (:func:`action_of`)."""
    if not paths or verdict.not_at_pin:
        return verdict
    verb = "is" if len(paths) == 1 else "are"
    text = (
        f"{', '.join(paths)} {verb} {ONLY_IN_RELEASE_TEXT}: the series does not apply at its "
        "pin itself"
    )
    field_value = "" if verdict.verdict == TARGET_GONE else paths[0]
    return replace(verdict, summary=f"{verdict.summary}; {text}", not_at_pin=field_value)


def _with_imports_gone(patch: Patch, verdict: PatchVerdict, ctx: _Context) -> PatchVerdict:
    """``verdict`` with :attr:`PatchVerdict.imports_gone` set when it is *clean*, *offset*
    or *conflict* (which a refresh may carry) and the patch imports modules the old pin has
    and the new release lacks (:func:`patchkeeper.audit.dropped_modules.gone_imports`; both
    trees needed)."""
    if verdict.verdict not in (CLEAN, OFFSET, CONFLICT) or ctx.search is None or ctx.pin is None:
        return verdict
    hunks = [(d.new_path or d.path, h) for d in patch.files for h in d.hunks]
    gone = gone_imports(hunks, ctx.pin, ctx.search)
    if not gone:
        return verdict
    text = f"it imports what the old pin has in {', '.join(gone)}, which the new release lacks"
    return replace(verdict, summary=f"{verdict.summary}; {text}", imports_gone=text)


def _with_new_places(patch: Patch, verdict: PatchVerdict, ctx: _Context) -> PatchVerdict:
    """``verdict`` with :attr:`PatchVerdict.new_places` set when it is *clean*, *offset* or
    *conflict* (which a refresh may carry) and text the patch rewrites occurs more often in
    the new release than at the old pin (:func:`patchkeeper.audit.new_places.new_places`;
    both trees needed)."""
    if verdict.verdict not in (CLEAN, OFFSET, CONFLICT) or ctx.search is None or ctx.pin is None:
        return verdict
    hunks = [(d.new_path or d.path, h) for d in patch.files for h in d.hunks]
    text = new_places(hunks, ctx.pin, ctx.search) or systematic_places(hunks, ctx.pin, ctx.search)
    if not text:
        return verdict
    return replace(verdict, summary=f"{verdict.summary}; {text}", new_places=text)


#: How a hunk's presence is found by its added lines rather than by its whole post-image.
FOUND_BY_LINES = ("added lines found", "post-image found")


def _fits_elsewhere(ws: Workspace, patch: Patch, verdict: PatchVerdict) -> str:
    """The evidence that a patch whose one change is a single substantive added line (no
    removed line), found upstream by that line (:data:`FOUND_BY_LINES`, not by
    reverse-applying: one line proves little where the same construct recurs), still fits
    another place of its file: GNU patch, and quilt with it, try a hunk forwards at fuzz 1
    and 2 before they call it already applied, so ``quilt push`` applies it there without
    a word (:func:`patchkeeper.audit.refresh.fuzzy_spot`; a place more than the hunk's
    length away from where its line is). Upstream may have taken the change where the
    patch made it while the same construct elsewhere still lacks it: a person decides.
    ``""`` when that is not so."""
    hunks = {(d.path, h.line_no): (d, h) for d in patch.files for h in d.hunks}
    if sum(len(lines) for lines in added_by_path(patch).values()) != 1:
        return ""
    for status in verdict.hunks:
        if status.status != PRESENT or status.how not in FOUND_BY_LINES or status.line is None:
            continue
        if (status.path, status.patch_line) not in hunks:
            continue  # judged under a moved file's new name
        diff, hunk = hunks[(status.path, status.patch_line)]
        added = substantive_lines(line.text for line in hunk.added)
        if len(added) != 1 or removed_lines(hunk):
            continue
        lines = file_lines(ws, diff.old_path or diff.path)
        spot = fuzzy_spot(lines, hunk) if lines else None
        if spot is None or abs(spot[0] - status.line) <= len(hunk.lines):
            continue
        return (
            f"{hunk_ref(status, verdict.hunks)} also fits line {spot[0]} at fuzz {spot[1]}, where "
            f"its lines are not (its lines are at line {status.line}): quilt would apply it there"
        )
    return ""


def unreadable_verdict(name: str, error: PatchFormatError) -> PatchVerdict:
    """The verdict on a patch whose file cannot be read (missing, malformed): *unreadable*,
    action *look*, with the file, the line, what is wrong and what to do. The rest of the
    series is judged without it."""
    problem = f"{error.where() or name}: {error.message}"
    hint = f" ({error.hint})" if error.hint else ""
    verdict = PatchVerdict(
        name,
        UNREADABLE,
        f"{problem}{hint}; the later patches were judged without it",
        unreadable=problem,
        rule=Rule.UNREADABLE,
    )
    return with_action(verdict)
