"""The port of a series, patch by patch: a rebase whose conflicts are the work.

The series workflow (docs/glossary.md): "a port is a rebase whose conflicts are the work, not a
regeneration whose failures are silent". Two in-memory workspaces move forward together: the *old*
side (the old pin with the original patches applied one by one) and the *new* side (the new pin with
the ported patches). For each patch, in series order:

1. the audit's verdict (:func:`patchkeeper.audit.series_verdicts.judge_series` on the pristine
   new tree, superseded patches resolved) says *upstreamed*: proposed for retirement, nothing
   applied;
2. it applies at fuzz 0 on the new side: *clean* or *offset*, regenerated there;
3. otherwise it is judged on the new side (:func:`patchkeeper.audit.verdicts.judge_patch`):
   *upstreamed*, or *partially upstreamed* (the rest applies and is regenerated), or else
4. git's three-way merge per file (:mod:`patchkeeper.port.merge`): clean everywhere is
   *merged*; nothing left to carry is *upstreamed*; a conflict that the audit's refresh
   places with the patch's lines unchanged (:mod:`patchkeeper.audit.refresh`) is refreshed
   so, *merged* too; another conflict, or a file gone with nowhere to go, stops the port
   there (a resolution recorded by ``port --continue`` is used instead).

After a stop the remaining patches are still judged, on the new side without the stopped
patch, as a preview (``pending``), so the report says what is left to do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from patchkeeper.audit.gone_files import created_moves
from patchkeeper.audit.hunk_refs import hunk_namer
from patchkeeper.audit.hunk_verdicts import FAILS, creates_file
from patchkeeper.audit.refresh import moved_refreshed, refreshed
from patchkeeper.audit.series_verdicts import judge_series, register_lines
from patchkeeper.audit.verdicts import (
    BLOCKED,
    CLEAN,
    CONFLICT,
    OFFSET,
    PARTIALLY_UPSTREAMED,
    TARGET_GONE,
    UPSTREAMED,
    PatchVerdict,
    judge_patch,
    remember_failure,
    unplaced,
)
from patchkeeper.constants import WordEnum
from patchkeeper.errors import PatchkeeperError
from patchkeeper.jsonable import FILE_NAME
from patchkeeper.port.changes import PatchChange, compare
from patchkeeper.port.history import Cause, Reference
from patchkeeper.port.memo import Memo
from patchkeeper.port.merge import CLEAN as MERGE_CLEAN
from patchkeeper.port.merge import FileMerge, Labels, exact_paths, merge_patch
from patchkeeper.port.regenerate import refresh
from patchkeeper.series.engine import FileState, PatchOutcome, Reader, Workspace, apply_patch
from patchkeeper.series.hunk_evidence import hunk_evidence, problem_text
from patchkeeper.series.model import Patch
from patchkeeper.series.parse import parse_patch
from patchkeeper.upstream.treesearch import TreeSearch

#: Port verdicts beyond the audit's: carried by git's three-way merge; a conflict resolved by
#: hand (``port --continue``); resolved by hand to no change at all.


class PortVerdict(WordEnum):
    """A port verdict beyond the audit's (:class:`patchkeeper.audit.verdicts.Verdict`)."""

    MERGED = "merged"  # carried by git's three-way merge
    RESOLVED = "resolved"  # a conflict resolved by hand
    DROPPED = "dropped"  # resolved by hand to no change at all


MERGED = PortVerdict.MERGED
RESOLVED = PortVerdict.RESOLVED
DROPPED = PortVerdict.DROPPED

#: Verdicts whose patch is in the new series.
CARRIED = frozenset({CLEAN, OFFSET, PARTIALLY_UPSTREAMED, MERGED, RESOLVED})
#: Verdicts that propose retiring the patch.
RETIRING = frozenset({UPSTREAMED, DROPPED})
#: Verdicts that stop the port until the conflict is resolved.
STOPS = frozenset({CONFLICT, TARGET_GONE, BLOCKED})


class SeriesDoesNotApplyError(PatchkeeperError):
    """A patch of the series does not apply to the release the series is ported from (the
    configured pin, or ``--from``): the port replays the series there first, so it cannot go on.

    The error is at the patch file's line of the first hunk that fails there (or of the file
    diff whose file is missing or in the way). :meth:`ported_from` names the release once the
    caller knows it; :meth:`upgrade_hint` is the advice inside ``upgrade``, whose ``--from``
    is fixed for its ``--continue``.

    Attributes:
        patch_name: the patch's name in the series.
        failure: what fails there, in words (``setup.cfg #1 fails at fuzz 0 (closest: line 1,
            7 of 20 lines match)``), with why when its lines are there but do not apply
            (``... (none of its lines is there): different line endings: the file's lines
            end in CRLF, the patch's in LF``).
        spec: the release as ``--from`` and ``audit --to`` take it (``NAME==VERSION`` or a
            directory), or ``None`` until :meth:`ported_from` sets it.
    """

    def __init__(self, patch: Patch, outcome: PatchOutcome) -> None:
        self.patch_name = patch.name
        self.failure, line = _first_failure(outcome)
        self.spec: str | None = None
        super().__init__(
            self._message(),
            path=patch.path,
            line=line,
            hint=self._hint("or pass --from the release the series applies to"),
        )

    def ported_from(self, spec: str) -> SeriesDoesNotApplyError:
        """This error, naming ``spec`` as the release the series is ported from."""
        self.spec = spec
        self.message = self._message()
        self.args = (self.message,)
        self.hint = self._hint("or pass --from the release the series applies to")
        return self

    def upgrade_hint(self) -> str:
        """The advice inside ``upgrade``: fix the patch and continue, or start again."""
        return self._hint(
            "then run 'patchkeeper upgrade --continue' (the upgrade stopped at its port step); "
            "or run 'patchkeeper upgrade --abort' and start again with --from the release the "
            "series applies to"
        )

    def _message(self) -> str:
        release = self.spec or "the pin"
        return (
            f"{self.patch_name} does not apply to {release}, the release the series is ported "
            f"from: {self.failure}"
        )

    def _hint(self, then: str) -> str:
        return (
            f"make the patch apply to {self.spec or 'the pin'} (edit it, or take it out of the "
            f"series), {then}; 'patchkeeper audit --to {self.spec or 'OLDPIN'}' shows what "
            "fails there"
        )


def _first_failure(outcome: PatchOutcome) -> tuple[str, int | None]:
    """The first file diff or hunk of ``outcome`` that fails, in words, and its line in the
    patch file (``None`` when the outcome names none)."""
    for file in outcome.files:
        if file.ok:
            continue
        problem = problem_text(file.problem)
        if problem is not None or not file.failures:
            return f"{file.path}: {problem or 'it does not apply'}", file.diff.line_no
        hunk = hunk_evidence(file.path, file.failures[0])
        text = f"{file.path} #{hunk.index} fails at fuzz 0"
        if hunk.closest_line is None:
            text += " (none of its lines is there)"
        else:
            text += (
                f" (closest: line {hunk.closest_line}, {hunk.matching} of {hunk.total} lines match)"
            )
        if hunk.note:
            # why a hunk whose lines are there does not apply: its line endings (an sdist
            # published with CRLF files), white space at the ends of lines, its anchoring
            text += f": {hunk.note}"
        return text, hunk.patch_line
    return "it does not apply", None


@dataclass(frozen=True)
class MergedFile:
    """One path of a three-way merge, without its content (for the report).

    Attributes:
        path: the path the patch names.
        target: where its change goes in the new tree.
        status: ``clean``, ``conflict``, ``gone`` or ``modify/delete``.
        conflicts: conflict regions git left.
    """

    path: str
    target: str
    status: str
    conflicts: int = 0


@dataclass(frozen=True)
class FailedHunk:
    """A hunk that did not apply at fuzz 0 on the new side (its cause is looked up).

    Attributes:
        path: the file; index: the hunk's number in its file diff; header: its ``@@`` line.
        patch_line: the 1-based line of its header in the patch file: what tells the
            patch's hunks apart, as ``(path, index)`` does not when a patch holds two diffs
            of one file (each numbers its hunks from 1); 0 in a result saved without it.
    """

    path: str
    index: int
    header: str
    patch_line: int = 0


@dataclass(frozen=True)
class PortedPatch:
    """One patch of the port, with its evidence.

    Attributes:
        name: the series name.
        verdict: an audit verdict or :data:`MERGED`, :data:`RESOLVED`, :data:`DROPPED`.
        summary: the evidence in one sentence.
        pending: judged after the port stopped (a preview on the new side without the
            stopped patch); it is ported for real by ``port --continue``.
        files: the three-way merge per path, when one ran.
        change: what the refreshed patch adds or removes differently (range-diff).
        cut_against: the ``Cut-against`` value before the port, when the patch has one.
        audit: the audit's verdict on the pristine new tree, with its evidence.
        failed_hunks: hunks that did not apply at fuzz 0 on the new side.
        references: the header's upstream references, looked up (``--upstream-repo``).
        causes: the upstream commits that changed the failed hunks' lines.
    """

    name: str = field(metadata=FILE_NAME)
    verdict: str
    summary: str
    pending: bool = False
    files: tuple[MergedFile, ...] = ()
    change: PatchChange | None = None
    cut_against: str | None = None
    audit: PatchVerdict | None = None
    failed_hunks: tuple[FailedHunk, ...] = ()
    references: tuple[Reference, ...] = ()
    causes: tuple[Cause, ...] = ()


@dataclass
class Step:
    """The outcome of one patch, with what the port writes.

    Attributes:
        record: the report's view.
        data: the refreshed patch's bytes (carried verdicts).
        merges: the per-path merge with content (conflicts: for the work directory).
        base: the new side's content of the merged paths before the patch (git's stage 3).
        old: the old side's content of the patch's paths before it (stage 1).
        patched: the same after it (stage 2).
    """

    record: PortedPatch
    data: bytes | None = None
    merges: list[FileMerge] = field(default_factory=list)
    base: dict[str, FileState | None] = field(default_factory=dict)
    old: dict[str, FileState | None] = field(default_factory=dict)
    patched: dict[str, FileState | None] = field(default_factory=dict)


def _states(ws: Workspace, paths: Sequence[str]) -> dict[str, FileState | None]:
    return {path: ws.get(path) for path in paths}


def _failed(patch: Patch, verdict: PatchVerdict) -> tuple[FailedHunk, ...]:
    """The hunks that did not apply at fuzz 0: failing ones, and all of a file that is gone."""
    failed = [
        FailedHunk(h.path, h.index, h.header, h.patch_line)
        for h in verdict.hunks
        if h.status == FAILS
    ]
    if not failed:
        failed = [
            FailedHunk(f.path, e.index, e.header, e.patch_line)
            for f in verdict.failures
            for e in f.hunks
        ]
    gone = {m.path for m in verdict.moved}
    failed += [
        FailedHunk(d.path, h.index, h.header, h.line_no)
        for d in patch.files
        if d.old_path in gone
        for h in d.hunks
    ]
    return tuple(dict.fromkeys(failed))


class Rebase:
    """The port of ``patches`` from one tree to another, in memory.

    Args:
        patches: the original series.
        old: reader of the old pin's tree.
        new: reader of the new pin's tree.
        search: a search over the new tree (moved files, added lines elsewhere).
        version: the new pin, written into ``Cut-against``.
        labels: conflict marker names (the patch name is filled in per patch).
        resolutions: patch name -> the resolved new-side content of its paths.
        pin: a search over the old pin's tree (lines already there at the pin are no
            evidence of upstream), or ``None``.
        memo: judgements kept from an earlier run of this port (:mod:`patchkeeper.port.memo`);
            the audit and each judgement whose inputs are unchanged are taken from it, new
            ones are added to it.
    """

    def __init__(
        self,
        patches: Sequence[Patch],
        old: Reader,
        new: Reader,
        search: TreeSearch | None,
        version: str | None,
        labels: Labels,
        resolutions: Mapping[str, Mapping[str, FileState | None]] | None = None,
        pin: TreeSearch | None = None,
        memo: Memo | None = None,
    ) -> None:
        self.patches = list(patches)
        self.old_ws = Workspace(old)
        self.new_ws = Workspace(new)
        self.search = search
        self.version = version
        self.labels = labels
        self.resolutions = dict(resolutions or {})
        # The audit reads through a fork, so both share one cache of the new tree's files.
        self.pin = pin
        self.memo = memo if memo is not None else Memo("")
        if self.memo.series is not None and search is not None:
            register_lines(search, self.patches)  # what judge_series would have registered
        self.audit = self.memo.judge_series(
            lambda: judge_series(self.new_ws.fork(), self.patches, search, pin, version)
        )

    # ----------------------------------------------------------------- the loop

    def run(self) -> tuple[list[Step], int | None]:
        """Port every patch; return the steps and the index of the first stop (or None)."""
        steps: list[Step] = []
        failed: list[Any] = []  # verdicts' records of failing patches, for *blocked*
        stopped: int | None = None
        for index, patch in enumerate(self.patches):
            step = self.port(index, failed)
            if stopped is not None:
                step.record = _pending(step.record)
            steps.append(step)
            if step.record.verdict in STOPS:
                stopped = index if stopped is None else stopped
                failed.append(remember_failure(patch))
        return steps, stopped

    def port(self, index: int, failed: list[Any]) -> Step:
        """Port patch ``index`` on the new side; advance both sides."""
        patch = self.patches[index]
        paths = list(patch.touched_paths)
        before_old = _states(self.old_ws, paths)
        outcome = apply_patch(self.old_ws, patch)
        if not outcome.ok:
            raise SeriesDoesNotApplyError(patch, outcome)
        after_old = _states(self.old_ws, paths)
        audit = self.audit[index]
        if audit.verdict == UPSTREAMED:
            return Step(PortedPatch(patch.name, UPSTREAMED, audit.summary, audit=audit))
        trial = self.new_ws.fork()
        applied = apply_patch(trial, patch)
        # a patch that applies only by creating files where the new release has no such
        # directory is *target gone* for the audit: it is merged into where they moved
        if applied.ok and audit.verdict != TARGET_GONE:
            verdict = CLEAN if applied.max_offset == 0 else OFFSET
            summary = (
                "applies at fuzz 0 on the new pin"
                if verdict == CLEAN
                else f"applies at fuzz 0 with hunks moved up to {applied.max_offset} lines"
            )
            return self._carry(patch, trial, paths, verdict, summary, audit)
        judged_ws = self.new_ws.fork()
        # a file an earlier patch creates is missing when that patch is upstream: named so
        created: dict[str, str] = {}
        for earlier in self.patches[:index]:
            for diff in earlier.files:
                if creates_file(diff):
                    created.setdefault(diff.path, earlier.name)
        judged = self.memo.judge_patch(
            judged_ws,
            patch,
            failed,
            lambda ws: judge_patch(ws, patch, failed, self.search, self.pin, self.version, created),
        )
        if judged.verdict == UPSTREAMED:
            return Step(PortedPatch(patch.name, UPSTREAMED, judged.summary, audit=judged))
        if judged.verdict == PARTIALLY_UPSTREAMED and not any(
            h.status == FAILS for h in judged.hunks
        ):
            return self._carry(
                patch, judged_ws, paths, PARTIALLY_UPSTREAMED, judged.summary, judged
            )
        if judged.verdict == BLOCKED:
            return Step(
                PortedPatch(
                    patch.name,
                    BLOCKED,
                    judged.summary,
                    audit=judged,
                    failed_hunks=_failed(patch, judged),
                )
            )
        return self._merge(patch, paths, before_old, after_old, judged)

    # ----------------------------------------------------------------- outcomes

    def _carry(
        self,
        patch: Patch,
        after_ws: Workspace,
        paths: Sequence[str],
        verdict: str,
        summary: str,
        evidence: PatchVerdict,
        moved: Mapping[str, str] | None = None,
        files: tuple[MergedFile, ...] = (),
        failed_hunks: tuple[FailedHunk, ...] = (),
    ) -> Step:
        if patch.is_empty:  # a no-op: carried as it is, not taken for upstreamed
            return Step(PortedPatch(patch.name, verdict, summary, audit=evidence), patch.raw)
        targets = list(dict.fromkeys((moved or {}).get(p, p) for p in paths))
        before = _states(self.new_ws, targets)
        after = _states(after_ws, targets)
        refreshed = refresh(patch, before, after, self.version, moved)
        if refreshed is None:
            return Step(
                PortedPatch(
                    patch.name,
                    UPSTREAMED,
                    "nothing is left to carry on the new pin: " + summary,
                    files=files,
                    audit=evidence,
                    failed_hunks=failed_hunks,
                )
            )
        data, old_value = refreshed
        new_patch = parse_patch(data, name=patch.name, path=patch.path, strip=patch.strip)
        change = compare(patch, new_patch, moved)
        for path in targets:
            self.new_ws.set(path, after[path])
        record = PortedPatch(
            patch.name,
            verdict,
            summary,
            files=files,
            change=change,
            cut_against=old_value,
            audit=evidence,
            failed_hunks=failed_hunks,
        )
        return Step(record, data)

    def _merge(
        self,
        patch: Patch,
        paths: list[str],
        before_old: dict[str, FileState | None],
        after_old: dict[str, FileState | None],
        judged: PatchVerdict,
    ) -> Step:
        gone = {m.path: m.likely for m in judged.moved if m.likely}
        # a file the patch creates or renames to beside a moved file goes with it
        moved = {**gone, **created_moves(patch, gone)}
        labels = Labels(self.labels.new, self.labels.old, patch.name)
        targets = list(dict.fromkeys(moved.get(p, p) for p in paths))
        theirs = _states(self.new_ws, targets)
        exact = exact_paths(patch, self.new_ws, moved)
        renamed_from = {
            diff.new_path: diff.old_path
            for diff in patch.files
            if diff.is_rename and diff.new_path is not None and diff.old_path is not None
        }
        merges = merge_patch(
            paths, before_old, after_old, theirs, moved, labels, exact, renamed_from
        )
        files = tuple(MergedFile(m.path, m.target, m.status, m.conflicts) for m in merges)
        failed_hunks = _failed(patch, judged)
        if patch.name in self.resolutions:
            return self._resolved(patch, judged, files, failed_hunks)
        # the audit found a deciding file gone with nowhere to go (a rename or a deletion
        # of a file upstream moved where its content cannot be found): a merge that only
        # deletes what is already gone carries nothing of it, so the port stops there
        nowhere = judged.verdict == TARGET_GONE and unplaced(judged.moved, judged.kind)
        if all(m.status == MERGE_CLEAN for m in merges) and not nowhere:
            trial = self.new_ws.fork()
            for merge in merges:
                trial.set(merge.target, merge.result)
            summary = _merged_summary(failed_hunks, gone)
            return self._carry(
                patch, trial, paths, MERGED, summary, judged, moved, files, failed_hunks
            )
        bad = [m for m in merges if m.status != MERGE_CLEAN]
        verdict = TARGET_GONE if all(m.status == "gone" for m in bad) else CONFLICT
        detail = ", ".join(
            f"{m.target} ({m.conflicts} conflict region{'s' if m.conflicts != 1 else ''})"
            if m.status == "conflict"
            else f"{m.path} ({m.status})"
            for m in bad
        )
        refreshed_step = self._refreshed(
            patch, before_old, after_old, judged, files, failed_hunks, detail
        )
        if refreshed_step is not None:
            return refreshed_step
        if not bad:
            record = PortedPatch(
                patch.name,
                TARGET_GONE,
                f"nowhere to carry it: {judged.summary}",
                files=files,
                audit=judged,
                failed_hunks=failed_hunks,
            )
            base = {m.target: self.new_ws.get(m.target) for m in merges}
            return Step(record, None, merges, base, before_old, after_old)
        summary = f"git's three-way merge stopped at {detail}; fuzz 0: {judged.summary}"
        record = PortedPatch(
            patch.name, verdict, summary, files=files, audit=judged, failed_hunks=failed_hunks
        )
        base = {m.target: self.new_ws.get(m.target) for m in merges}
        return Step(record, None, merges, base, before_old, after_old)

    def _refreshed(
        self,
        patch: Patch,
        before_old: dict[str, FileState | None],
        after_old: dict[str, FileState | None],
        judged: PatchVerdict,
        files: tuple[MergedFile, ...],
        failed_hunks: tuple[FailedHunk, ...],
        stopped: str,
    ) -> Step | None:
        """The patch carried the way the audit refreshes a *conflict*
        (:func:`patchkeeper.audit.refresh.refreshed`, else
        :func:`patchkeeper.audit.refresh.moved_refreshed`) when git's three-way merge
        stopped (at ``stopped``, in words): every hunk lands on the new side with its ``+``
        and ``-`` lines unchanged (among upstream's imports, by its removed lines), so a
        maintainer would refresh it, not rework it, and the port does so rather than stop
        (*merged*, the way named in the summary). ``None`` when the patch is
        not a conflict there, the changelog or its header names the fix (a person decides,
        as in the audit), or the refresh does not place it; a hunk moved to another file
        is followed only when all of its file's hunks went to that one file."""
        if judged.verdict != CONFLICT or judged.mentions or judged.applied_upstream:
            return None
        theirs = _states(self.new_ws, list(patch.touched_paths))
        fresh = refreshed(patch, before_old, after_old, theirs)
        moved: dict[str, str] = {}
        if fresh is None:
            fresh = moved_refreshed(patch, judged.hunks, self.new_ws.get)
            if fresh is None:
                return None
            targets = _moved_targets(judged)
            if targets is None:
                return None
            moved = targets
        trial = self.new_ws.fork()
        for path, state in fresh.files.items():
            trial.set(path, state)
        summary = f"git's three-way merge stopped at {stopped}; refreshed as the audit does: "
        return self._carry(
            patch,
            trial,
            list(patch.touched_paths),
            MERGED,
            summary + fresh.text,
            judged,
            moved,
            files,
            failed_hunks,
        )

    def _resolved(
        self,
        patch: Patch,
        judged: PatchVerdict,
        files: tuple[MergedFile, ...],
        failed_hunks: tuple[FailedHunk, ...],
    ) -> Step:
        resolution = self.resolutions[patch.name]
        trial = self.new_ws.fork()
        for path, state in resolution.items():
            trial.set(path, state)
        step = self._carry(
            patch,
            trial,
            list(resolution),
            RESOLVED,
            "resolved by hand (port --continue) after git's three-way merge stopped",
            judged,
            None,
            files,
            failed_hunks,
        )
        if step.record.verdict == UPSTREAMED:
            step.record = PortedPatch(
                patch.name,
                DROPPED,
                "resolved by hand to no change: nothing left to carry",
                files=files,
                audit=judged,
                failed_hunks=failed_hunks,
            )
        return step


def _moved_targets(judged: PatchVerdict) -> dict[str, str] | None:
    """Path -> the one file its failing hunks moved to (:attr:`HunkVerdict.moved_to`), for a
    patch :func:`patchkeeper.audit.refresh.moved_refreshed` places; ``None`` when a path's
    hunks went to two files (some stayed in their own file, or moved to different ones)."""
    targets: dict[str, set[str]] = {}
    for hunk in judged.hunks:
        if hunk.status == FAILS and hunk.moved_to is not None:
            targets.setdefault(hunk.path, set()).add(hunk.moved_to)
        else:
            targets.setdefault(hunk.path, set()).add(hunk.path)
    if any(len(found) != 1 for found in targets.values()):
        return None
    return {path: found.pop() for path, found in targets.items() if found != {path}}


def _merged_summary(failed: tuple[FailedHunk, ...], moved: Mapping[str, str]) -> str:
    gone = [f"{a} is gone, merged into {b}" for a, b in moved.items()]
    name = hunk_namer(failed)
    hunks = [name(h) for h in failed if h.path not in moved]
    parts = []
    if hunks:
        verb = "does" if len(hunks) == 1 else "do"
        parts.append(f"{', '.join(hunks)} {verb} not apply at fuzz 0")
    return "; ".join(parts + gone) + "; git's three-way merge carried the patch"


def _pending(record: PortedPatch) -> PortedPatch:
    from dataclasses import replace

    return replace(record, pending=True)
