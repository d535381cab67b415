"""Which patches of a series are applied to a tree: exact, even when patches overlap.

The rule of ``verify``: reverse the whole series, last patch first, on an
in-memory copy of the touched files. A patch that reverses exactly is *applied*; one that
does not reverse but applies forward is *not applied*; one some of whose hunks reverse is
*partially applied* (those hunks are undone and the walk goes on); one that does neither is
in *conflict* with the file. A patch some of whose hunks reverse is *not applied* instead when
the earlier patches that share its files, and then the patch itself, apply forward: a hunk
that takes back lines an earlier patch adds reverses on the pristine text. What is left at the
end must equal the pristine content, file by file; a file that does not is *drifted* (changed
outside the series).

A patch that both undoes and applies forward is judged by where each lands: the direction
whose hunks land nearer the lines their headers name wins (:func:`_distance`), as GNU patch
tries forward first. Undoing a hunk looks for its post-image from the line its header names,
which may meet another copy of it first. Where ``apply`` recorded the line it put each hunk
at (an installed distribution's install manifest: :data:`Landing`), a hunk whose post-image
stands there is undone there; a directory target keeps no record, and a forward replay from
the pristine tree settles such a file instead: the patches sharing files with a patch that
undoing left in conflict, partially applied or on drifted files are applied forward from
the pristine files, and the target's bytes decide which are applied
(:func:`_replayed_from_pristine`, and :func:`_replays_to_target` for one file).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from patchkeeper.constants import WordEnum
from patchkeeper.jsonable import FILE_NAME, NOT_IN_JSON
from patchkeeper.series.engine import (
    MISSING,
    MODE,
    FileState,
    PatchOutcome,
    Workspace,
    apply_patch,
    touched_paths,
)
from patchkeeper.series.hunk_evidence import problem_text, refusal_note
from patchkeeper.series.hunks import HunkFailure, landed_lines, locate, patch_lines
from patchkeeper.series.model import FileDiff, Hunk, Patch
from patchkeeper.series.parse import sha256_hex
from patchkeeper.trees.tree import Pristine

#: Where ``apply`` put each hunk, by ``(patch name, sha256 of the patch file)``: by file diff,
#: the line where each hunk's post-image starts (an installed distribution's install
#: manifest keeps them: :func:`patchkeeper.trees.tree.applied_landing`).
Landing = Mapping[tuple[str, str], Sequence[Sequence[int]]]


class PatchStatus(WordEnum):
    """Whether one patch of the series is applied to a tree (see :func:`series_state`)."""

    APPLIED = "applied"  # it reverses exactly
    NOT_APPLIED = "not applied"  # it does not reverse but applies forward
    PARTIAL = "partially applied"  # some of its hunks reverse
    CONFLICT = "conflict"  # neither: the file differs from both sides
    EMPTY = "empty"  # it holds no diff: a no-op, applied and not applied alike


APPLIED = PatchStatus.APPLIED
NOT_APPLIED = PatchStatus.NOT_APPLIED
PARTIAL = PatchStatus.PARTIAL
CONFLICT = PatchStatus.CONFLICT
EMPTY = PatchStatus.EMPTY


@dataclass(frozen=True)
class HunkRef:
    """A hunk by file and number, with the 1-based line where it was found (if found).

    Attributes:
        path: the file.
        index: the hunk's number in its file diff (``hunk #2``).
        header: its ``@@`` line.
        line: where its post-image (or, not applied, its pre-image) was found, if found.
        patch_line: the 1-based line of its ``@@`` header in the patch file
            (:attr:`patchkeeper.series.model.Hunk.line_no`): what tells the patch's hunks
            apart, as ``(path, index)`` does not when a patch holds two diffs of one file
            (each numbers its hunks from 1); 0 in a result saved without it.
    """

    path: str
    index: int
    header: str
    line: int | None = None
    patch_line: int = 0


@dataclass(frozen=True)
class PatchState:
    """One patch's state on the tree.

    Attributes:
        name: the series name.
        state: :data:`APPLIED`, :data:`NOT_APPLIED`, :data:`PARTIAL`, :data:`CONFLICT`,
            or :data:`EMPTY` for a patch that holds no diff.
        applied_hunks: the hunks found applied (their post-image present).
        missing_hunks: the hunks not applied.
        problems: what keeps a patch in conflict besides its hunks, in words with the path
            first (``"run.sh: has mode 100644, the patch changes it from 100755"``), and
            why hunks fail that only line endings or white space at the ends of lines keep
            out (``"pkg/core.py: different line endings: the file's lines end in CRLF, the
            patch's in LF"``), or whose lines all match where GNU patch's rules on a hunk
            with cut context refuse them (``"pkg/core.py hunk #1 at line 2: every line
            matches there, but ..."``; :attr:`hunk_notes`).
        missing_changes: for a patch not applied, the changes it makes that no hunk holds
            (a mode, a rename, an empty file created or deleted), in words with the path
            first (``"run.sh: mode not changed to 100755 (from 100644)"``): without them a
            patch of such changes alone would be *not applied* with nothing saying what.
        waits_for: for a patch *not applied* that cannot apply before an earlier patch of
            the series does, which does not apply on the tree either, that earlier patch's
            name (its context, or a file it reads, comes from there); else ``""``.
        hunk_note_indexes: the indexes of the ``problems`` that say why hunks fail (only
            line endings or white space at the ends of lines keep them out: the engine's
            :attr:`patchkeeper.series.hunks.HunkFailure.spacing_only`; or where a hunk with
            cut context may apply: :func:`patchkeeper.series.hunk_evidence.refusal_note`),
            not a file's problem (:attr:`hunk_notes`); not in the JSON form
            (:data:`~patchkeeper.jsonable.NOT_IN_JSON`), whose ``problems`` hold both.
    """

    name: str = field(metadata=FILE_NAME)
    state: str
    applied_hunks: tuple[HunkRef, ...] = ()
    missing_hunks: tuple[HunkRef, ...] = ()
    problems: tuple[str, ...] = ()
    missing_changes: tuple[str, ...] = ()
    waits_for: str = ""
    hunk_note_indexes: frozenset[int] = field(
        default=frozenset(), compare=False, repr=False, metadata=NOT_IN_JSON
    )

    @property
    def hunk_notes(self) -> tuple[str, ...]:
        """The :attr:`problems` that say why hunks fail (:attr:`hunk_note_indexes`)."""
        return tuple(p for i, p in enumerate(self.problems) if i in self.hunk_note_indexes)

    @property
    def file_problems(self) -> tuple[str, ...]:
        """The :attr:`problems` of the patch's files (missing, existing, another mode),
        without :attr:`hunk_notes`."""
        return tuple(p for i, p in enumerate(self.problems) if i not in self.hunk_note_indexes)


@dataclass(frozen=True)
class FileCheck:
    """A touched file compared with the pristine reference after undoing the series.

    Attributes:
        path: the patch path.
        drifted: the file, with the series undone, differs from pristine (its bytes, or
            whether it is executable).
        expected_sha256: the pristine hash (``None``: must be absent).
        actual_sha256: the hash after undoing (``None``: absent).
        expected_mode, actual_mode: the git modes (``"100755"``) of the pristine file and
            of the file after undoing, when a patch changes the file's mode and the two
            differ in the executable bit (a mode change the file never had); else ``None``.
        created: the series creates the file (the first diff of it is ``--- /dev/null``, or
            a rename or copy to it): one it leaves when undone was changed after the patch
            created it.
    """

    path: str = field(metadata=FILE_NAME)
    drifted: bool
    expected_sha256: str | None
    actual_sha256: str | None
    expected_mode: str | None = None
    actual_mode: str | None = None
    created: bool = False


@dataclass(frozen=True)
class SeriesState:
    """The state of a whole series on a tree.

    Attributes:
        patches: one :class:`PatchState` per patch, in series order.
        files: one :class:`FileCheck` per touched file (empty without a pristine reference).
        pristine_label: what the files were compared with, or ``None``.
    """

    patches: tuple[PatchState, ...]
    files: tuple[FileCheck, ...]
    pristine_label: str | None

    @property
    def all_applied(self) -> bool:
        """Every patch applied (an empty patch, a no-op, counts as applied)."""
        return all(p.state in (APPLIED, EMPTY) for p in self.patches)

    @property
    def none_applied(self) -> bool:
        """No patch applied (an empty patch, a no-op, counts as not applied)."""
        return all(p.state in (NOT_APPLIED, EMPTY) for p in self.patches)

    @property
    def empty(self) -> tuple[str, ...]:
        """The patches that hold no diff, in series order."""
        return tuple(p.name for p in self.patches if p.state == EMPTY)

    @property
    def drifted(self) -> tuple[FileCheck, ...]:
        return tuple(f for f in self.files if f.drifted)


def unprovable(diff: FileDiff, hunk: Hunk, lines: Sequence[bytes]) -> bool:
    """A hunk whose being applied the tree cannot show, so that only a pristine reference can
    confirm it: a hunk without context lines (``diff -U0``) in a file the diff neither
    deletes nor creates (a deleted file shows it by its absence, a created one by its
    presence) that either adds nothing, or whose pre-image occurs somewhere in the file's
    ``lines`` (an empty pre-image occurs everywhere).

    Such a hunk finds its post-image only at the line its header names, which shows where
    it would be, not that it was put there: ``-b``/``+a`` at line 1 of ``a``, ``b`` finds
    ``a`` at line 1, yet GNU patch applies it forward at offset +1. GNU patch tries forward
    first, with its offset search, and calls a patch "reversed (or previously applied)" only
    when forward fails everywhere (``patch.c``, ``locate_hunk``); with no context, forward
    fails everywhere exactly when the pre-image occurs nowhere in the file. So a post-image
    at its place proves the hunk applied only then; otherwise the hunk is ambiguous.

    Args:
        diff: the hunk's file diff.
        hunk: the hunk.
        lines: the file's lines as the hunk is judged (bytes with their line endings).
    """
    if not _without_context(diff, hunk):
        return False
    return not hunk.post_image or _occurs(lines, hunk.pre_image)


def _without_context(diff: FileDiff, hunk: Hunk) -> bool:
    """A hunk without context lines in a file the diff neither deletes nor creates: the
    hunks :func:`unprovable` looks at (decided without reading the file)."""
    return not (diff.is_deletion or diff.is_creation or hunk.has_context)


def _occurs(lines: Sequence[bytes], pattern: Sequence[bytes]) -> bool:
    """Whether ``pattern`` equals consecutive ``lines`` somewhere (an empty one always)."""
    if not pattern:
        return True
    size = len(pattern)
    head = pattern[0]
    return any(
        line == head and tuple(lines[start : start + size]) == tuple(pattern)
        for start, line in enumerate(lines)
    )


def _unprovable_hunks(ws: Workspace, patch: Patch) -> frozenset[tuple[str, int]]:
    """The :func:`unprovable` hunks of ``patch`` on ``ws``, as ``(path, line of the hunk's
    header in the patch file)``: a patch with two diffs of one file numbers the hunks of
    each from 1, so the hunk's number would name two hunks."""
    if not any(_without_context(diff, hunk) for diff in patch.files for hunk in diff.hunks):
        return frozenset()  # the common case: no file of the patch is read or split
    return frozenset(
        (diff.path, hunk.line_no)
        for diff, state, hunk in _hunks_on_files(ws, patch)
        if unprovable(diff, hunk, state.lines)
    )


def _hunk_refs(
    patch: Patch, ws: Workspace, reverse: bool, confirm: bool = True
) -> tuple[list[HunkRef], list[HunkRef]]:
    """Locate each hunk on its own: found (in the given direction) or not. Without
    ``confirm`` (no pristine reference to check against), an :func:`unprovable` hunk is
    never found applied."""
    found: list[HunkRef] = []
    missing: list[HunkRef] = []
    for diff in patch.files:
        path = diff.new_path if diff.new_path is not None else diff.old_path
        assert path is not None
        state = ws.get(path)
        lines = state.lines if state is not None else ()
        for hunk in diff.hunks:
            where = locate(lines, hunk, reverse=reverse) if state is not None else None
            if reverse and not hunk.post_image and state is not None:
                # A hunk that leaves nothing (a deletion without context) "matches" anywhere
                # when reversed: it is applied only if the lines it removes are gone.
                gone = locate(lines, hunk) is None
                where = first_line_after_removal(hunk) if gone else None
            if reverse and not confirm and unprovable(diff, hunk, lines):
                where = None
            ref = HunkRef(path, hunk.index, hunk.header, where, hunk.line_no)
            (found if where is not None else missing).append(ref)
    return found, missing


def _hunks_on_files(ws: Workspace, patch: Patch) -> Iterator[tuple[FileDiff, FileState, Hunk]]:
    """Each hunk of ``patch`` with its file diff and the state of its file in ``ws`` (files
    absent from ``ws`` are left out)."""
    for diff in patch.files:
        path = diff.new_path if diff.new_path is not None else diff.old_path
        state = ws.get(path) if path else None
        if state is None:
            continue
        for hunk in diff.hunks:
            yield diff, state, hunk


def _removals_still_there(ws: Workspace, patch: Patch, *, deletions_only: bool = False) -> bool:
    """Whether a context-free deletion hunk of ``patch`` still finds the lines it removes.

    Such a hunk (``@@ -3 +2,0 @@``, ``diff -U0``) leaves nothing to look for, so undoing it
    "succeeds" anywhere; without a pristine reference it is taken as applied only when its
    removed lines are gone. With one (``deletions_only``), only a diff that deletes the whole
    file is judged so: the lines of a kept file may well still be there (a removed line
    equal to its neighbour), and the pristine comparison decides (:func:`_unconfirmed`).
    """
    if not any(
        not hunk.post_image
        for diff in patch.files
        if diff.is_deletion or not deletions_only
        for hunk in diff.hunks
    ):
        return False  # the common case: no file of the patch is looked up
    return any(
        not hunk.post_image
        and (diff.is_deletion or not deletions_only)
        and locate(state.lines, hunk) is not None
        for diff, state, hunk in _hunks_on_files(ws, patch)
    )


def _deleted_files_present(ws: Workspace, patch: Patch) -> bool:
    """Whether a file that ``patch`` deletes is still in the tree.

    Undoing a deletion creates the file, and a creation goes over an existing empty file
    (GNU patch's rule, which ``apply`` follows), so undoing "succeeds" on a tree that still
    has the file empty: a git deletion of an empty file (``deleted file mode`` and no hunk)
    would show applied on the untouched tree. A deleted file that is there shows the
    deletion not done, whatever undoing says. A path the patch creates again after deleting
    it is left out (it is meant to be there).
    """
    recreated = {diff.new_path for diff in patch.files if diff.new_path is not None}
    return any(
        diff.old_path is not None
        and diff.is_deletion
        and diff.old_path not in recreated
        and ws.get(diff.old_path) is not None
        for diff in patch.files
    )


def _insertions_already_there(ws: Workspace, patch: Patch) -> bool:
    """Whether a context-free insertion hunk of ``patch`` finds its lines already there.

    The mirror of :func:`_removals_still_there`: such a hunk's pre-image is empty, so it
    "applies" anywhere; when its added lines are already in place it is applied, not missing.
    """
    return any(
        not hunk.pre_image and locate(state.lines, hunk, reverse=True) is not None
        for _, state, hunk in _hunks_on_files(ws, patch)
    )


def first_line_after_removal(hunk: object) -> int:
    """Where a context-free deletion left its mark: the line after the removed block."""
    return max(getattr(hunk, "new_start", 1), 1)


def _undo_some(ws: Workspace, patch: Patch, applied: list[HunkRef]) -> None:
    """Undo only the hunks found applied, file diff by file diff, last first (as undoing the
    whole patch does), those of one file diff when they undo together.

    A hunk is known by the line of its header in the patch file: a patch with two diffs of
    one file numbers each diff's hunks from 1, and undoing "hunk #1" of both when only one
    was found applied would take back lines the other never put there.
    """
    wanted = {ref.patch_line for ref in applied}
    for diff in reversed(patch.files):
        path = diff.new_path if diff.new_path is not None else diff.old_path
        state = ws.get(path) if path else None
        hunks = [h for h in diff.hunks if h.line_no in wanted]
        if state is None or not hunks:
            continue
        result = patch_lines(state.lines, hunks, reverse=True)
        if result.lines is not None:
            ws.set(path, type(state)(tuple(result.lines), state.mode))  # type: ignore[arg-type]


def patch_state(
    ws: Workspace, patch: Patch, confirm: bool = True, landed: Sequence[Sequence[int]] = ()
) -> tuple[PatchState, PatchOutcome | None]:
    """Judge one patch on ``ws`` (the tree with every later patch already undone) and undo
    what of it is applied.

    ``confirm``: a pristine reference will check the result, so a patch that relies on
    :func:`unprovable` hunks may be judged applied (:func:`series_state` takes it back if
    its files then differ from pristine); without one, such a patch is never applied.
    ``landed``: where ``apply`` put the patch's hunks (:data:`Landing`), where they are
    undone when their post-image stands there.
    """
    ambiguous = (
        _removals_still_there(ws, patch, deletions_only=confirm)
        or (not confirm and bool(_unprovable_hunks(ws, patch)))
        or _deleted_files_present(ws, patch)
    )
    before = ws.snapshot()
    undone = apply_patch(ws, patch, reverse=True, commit=not ambiguous, landed=landed)
    if undone.ok and not ambiguous and not landed and _distance(undone):
        # undone away from where the headers place it: the patch may apply forward closer
        ws.restore(before)
        forward = apply_patch(ws, patch, commit=False)
        if forward.ok and _distance(forward) < _distance(undone):
            missing = [
                HunkRef(path_of(forward, p), p.hunk.index, p.hunk.header, p.line, p.hunk.line_no)
                for p in forward.placements
            ]
            return PatchState(patch.name, NOT_APPLIED, (), tuple(missing)), forward
        undone = apply_patch(ws, patch, reverse=True, landed=landed)
    if undone.ok and not ambiguous:
        refs = [
            HunkRef(path_of(undone, p), p.hunk.index, p.hunk.header, p.line, p.hunk.line_no)
            for p in undone.placements
        ]
        return PatchState(patch.name, APPLIED, tuple(refs)), undone
    forward = apply_patch(ws, patch, commit=False)
    if forward.ok and not _insertions_already_there(ws, patch):
        missing = [
            HunkRef(path_of(forward, p), p.hunk.index, p.hunk.header, p.line, p.hunk.line_no)
            for p in forward.placements
        ]
        return PatchState(patch.name, NOT_APPLIED, (), tuple(missing)), forward
    applied, missing = _hunk_refs(patch, ws, reverse=True, confirm=confirm)
    if applied:
        _undo_some(ws, patch, applied)
        return PatchState(patch.name, PARTIAL, tuple(applied), tuple(missing)), None
    return _conflict(patch.name, tuple(missing), ws, forward), None


def _distance(outcome: PatchOutcome) -> int:
    """How far, in lines, the hunks of ``outcome`` landed from where their headers place
    them (0: every hunk in place).

    It decides a patch that both undoes and applies on a tree: one that removes a block
    ending as the block after it begins (a test function dropped from between two others)
    has its post-image twice in the untouched file, at its place and at the end of the
    block. Undone there, the walk would take the untouched tree for patched and drifted.
    GNU patch tries a hunk forward first and calls it "reversed (or previously applied)"
    only when that fails; here the direction that lands closer to the headers' lines wins,
    which keeps a patched tree applied when its pre-image also recurs further on.
    """
    return sum(abs(placement.offset) for placement in outcome.placements)


def _conflict(
    name: str, missing: tuple[HunkRef, ...], ws: Workspace, forward: PatchOutcome
) -> PatchState:
    """The state of a patch in *conflict* whose hunks ``missing`` do not apply, with the
    problems of ``forward`` (the patch tried forward on ``ws``: :func:`_file_problems`)."""
    problems, notes = _file_problems(ws, forward)
    return PatchState(name, CONFLICT, (), missing, problems, hunk_note_indexes=notes)


def _file_problems(ws: Workspace, forward: PatchOutcome) -> tuple[tuple[str, ...], frozenset[int]]:
    """What keeps ``forward`` (the patch tried forward) from applying besides its hunks, in
    words with the path: a file it modifies that is not in the tree (a series relative to the
    sdist root, with its tests, on an installed wheel that has none), a file it creates that
    exists, a mode change that met a file without its old mode; and why hunks fail that only
    their line endings or white space at the ends of lines keep out, or whose lines all
    match where GNU patch's rules on a hunk with cut context refuse them. With the indexes
    of the latter (:attr:`PatchState.hunk_notes`)."""
    out = []
    notes = set()
    for outcome in forward.files:
        state = ws.get(outcome.path)
        if outcome.problem == MODE:
            if state is None or state.mode is None:
                continue
            out.append(
                f"{outcome.path}: has mode {git_mode(state.mode)}, the patch changes it from "
                f"{outcome.diff.old_mode}"
            )
            continue
        words = problem_text(outcome.problem)
        if words is not None:
            out.append(f"{outcome.path}: {words}")
            continue
        # why its hunks fail when only their line endings (or white space at the ends of
        # lines) keep them out: "conflict" alone would not say that the patch is right
        for note in dict.fromkeys(f.endings for f in outcome.failures if f.spacing_only):
            notes.add(len(out))
            out.append(f"{outcome.path}: {note}")
        # a hunk whose lines all match, refused by where it may apply (fewer trailing than
        # leading context lines: only at the end of the file): "not applied" alone would
        # hide that the lines are there
        for failure in outcome.failures:
            refusal = _refusal(failure)
            if refusal:
                notes.add(len(out))
                out.append(f"{outcome.path} hunk #{failure.hunk.index} at line {refusal}")
    return tuple(out), frozenset(notes)


def _refusal(failure: HunkFailure) -> str:
    """For a hunk with context lines that matches in full but is refused where it may
    apply, its closest line and :func:`~patchkeeper.series.hunk_evidence.refusal_note`
    (``"2: every line matches there, but ..."``); else ``""``. A hunk without context is
    left to the pristine reference (the walk's ``unprovable`` hunks), and one that only
    its spacing keeps out has its note by file."""
    closest = failure.closest
    if failure.spacing_only or not failure.hunk.has_context or closest is None:
        return ""
    note = refusal_note(failure)
    return f"{closest.line}: {note}" if note else ""


def path_of(outcome: PatchOutcome, placement: object) -> str:
    """The path of the file outcome that holds ``placement``.

    Looked up by identity first: a placement taken from ``outcome`` is in one file outcome
    only (each hunk's header line in the patch file tells hunks apart), and comparing
    placements as dataclasses compares their hunks field by field, for every placement of
    every file before it (verify does it for each of a series' hunks)."""
    for file_outcome in outcome.files:
        for held in file_outcome.placements:
            if held is placement:
                return file_outcome.path
    for file_outcome in outcome.files:
        if placement in file_outcome.placements:
            return file_outcome.path
    return ""


def _needing_earlier(
    ws: Workspace, patches: Sequence[Patch], states: list[PatchState]
) -> list[PatchState]:
    """A patch in *conflict* only because earlier patches are not applied is *not applied*.

    On a pristine tree a patch that changes lines an earlier patch wrote neither reverses nor
    applies; it applies once the earlier patches are applied, so it is merely not applied.
    When such an earlier patch does not apply on the tree either, the patch is *not applied*
    and waits for it (:attr:`PatchState.waits_for`, :func:`_waited_for`): its own conflict
    with the tree cannot be known before that one is ported.
    """
    out = list(states)
    for index, state in enumerate(states):
        if state.state != CONFLICT or all(s.state == APPLIED for s in states[:index]):
            continue
        trial = ws.fork()
        failed = [earlier for earlier in patches[:index] if not apply_patch(trial, earlier).ok]
        outcome = apply_patch(trial, patches[index], commit=False)
        if outcome.ok:
            out[index] = PatchState(state.name, NOT_APPLIED, (), state.missing_hunks)
            continue
        waited = _waited_for(trial, failed, outcome)
        if waited is not None:
            out[index] = PatchState(
                state.name, NOT_APPLIED, (), state.missing_hunks, waits_for=waited
            )
    return out


def _waited_for(trial: Workspace, failed: Sequence[Patch], outcome: PatchOutcome) -> str | None:
    """The nearest earlier patch (of ``failed``, which do not apply on the tree) that the
    patch of ``outcome`` needs: every file of it that fails reads a file that earlier patch
    creates and the tree lacks, or a failing hunk's pre-image holds a line that earlier
    patch adds and the file (``trial``: the tree with the earlier patches that apply
    applied) lacks. The patch then cannot apply before that one does, which is no conflict
    of its own with the tree; ``None`` when some failure is not explained so."""
    for earlier in reversed(failed):
        created = {d.path for d in earlier.files if d.is_creation or d.is_rename}
        added: dict[str, set[bytes]] = {}
        for diff in earlier.files:
            lines = added.setdefault(diff.path, set())
            for hunk in diff.hunks:
                lines.update(set(hunk.post_image) - set(hunk.pre_image))
        explained = True
        for file_outcome in outcome.files:
            if file_outcome.ok:
                continue
            if file_outcome.problem is not None:
                explained = file_outcome.problem == MISSING and file_outcome.path in created
            else:
                current = trial.get(file_outcome.path)
                present = set(current.lines) if current is not None else set()
                lines = added.get(file_outcome.path, set()) - present
                explained = all(
                    lines.intersection(failure.hunk.pre_image) for failure in file_outcome.failures
                )
            if not explained:
                break
        if explained:
            return earlier.name
    return None


def _applies_after_earlier(ws: Workspace, earlier: Sequence[Patch], patch: Patch) -> bool:
    """Whether ``patch`` applies forward once the earlier patches that share a file with it
    are applied, each of them applying forward too.

    On a tree where neither is applied, a patch whose hunk takes back lines an earlier patch
    adds (CVE-2024-34069-2 removing what -1 added) "reverses" there: its post-image is the
    pristine text. Such a hunk is not evidence of the patch being applied; the patch is
    *not applied* when the series up to it applies forward.
    """
    paths = set(patch.touched_paths)
    sharing = [e for e in earlier if paths & set(e.touched_paths)]
    if not sharing:
        return False
    trial = ws.fork()
    for other in sharing:
        if not apply_patch(trial, other).ok:
            return False
    return apply_patch(trial, patch, commit=False).ok


def _not_applied(patch: Patch) -> PatchState:
    missing = tuple(
        HunkRef(
            diff.new_path or diff.old_path or diff.path,
            hunk.index,
            hunk.header,
            patch_line=hunk.line_no,
        )
        for diff in patch.files
        for hunk in diff.hunks
    )
    return PatchState(patch.name, NOT_APPLIED, (), missing)


def series_state(
    ws: Workspace,
    patches: Sequence[Patch],
    pristine: Pristine | None,
    landing: Landing | None = None,
) -> SeriesState:
    """Walk the series backwards on ``ws`` and compare what is left with ``pristine``;
    ``landing``: where ``apply`` put the hunks (:data:`Landing`), for undoing them there.

    ``ws`` is left holding the content with the applied parts of the series undone.
    An empty patch (:attr:`~patchkeeper.series.model.Patch.is_empty`) is a no-op: it is
    left out of the walk and its row is :data:`EMPTY`.
    """
    if any(patch.is_empty for patch in patches):
        judged = series_state(ws, [p for p in patches if not p.is_empty], pristine, landing)
        rows = iter(judged.patches)
        return replace(
            judged,
            patches=tuple(
                PatchState(patch.name, EMPTY) if patch.is_empty else next(rows) for patch in patches
            ),
        )
    snapshot = ws.snapshot()
    doubtful: set[str] = set()
    while True:
        states, checks, unproven = _walk(ws, patches, pristine, doubtful, landing or {})
        drifted = {c.path for c in checks if c.drifted}
        taken_back = {
            patch.name
            for patch, state in zip(patches, states)
            if state.state == CONFLICT
            and patch.name not in doubtful
            and any(path in drifted for path, _ in unproven[patch.name])
        }
        if not taken_back:
            break
        # Walk again with those patches judged without their unprovable hunks, so that the
        # content left in ``ws`` (and the drift reported) does not hold their undoing.
        doubtful |= taken_back
        ws.restore(snapshot)
    states = [
        replace(state, missing_changes=whole_file_changes(patch))
        if state.state == NOT_APPLIED
        else state
        for patch, state in zip(patches, states)
    ]
    return SeriesState(tuple(states), tuple(checks), pristine.label if pristine else None)


def whole_file_changes(patch: Patch) -> tuple[str, ...]:
    """The changes ``patch`` makes that no hunk holds, in words with the path first: a mode
    change, a rename, an empty file created or deleted (git writes those without hunks).

    >>> from pathlib import Path
    >>> mode = FileDiff("run.sh", "run.sh", "100644", "100755", (), 1)
    >>> moved = FileDiff("a.py", "b.py", None, None, (), 5)
    >>> whole_file_changes(Patch("p", Path("p"), b"", b"", 0, (mode, moved)))
    ('run.sh: mode not changed to 100755 (from 100644)', 'a.py: not renamed to b.py')
    """
    out = []
    for diff in patch.files:
        if diff.is_rename:
            out.append(f"{diff.old_path}: not renamed to {diff.new_path}")
        elif diff.is_creation and not diff.hunks:
            out.append(f"{diff.path}: the empty file not created")
        elif diff.is_deletion and not diff.hunks:
            out.append(f"{diff.path}: the empty file not deleted")
        if diff.old_mode and diff.new_mode and diff.old_mode != diff.new_mode:
            out.append(f"{diff.path}: mode not changed to {diff.new_mode} (from {diff.old_mode})")
    return tuple(out)


def _walk(
    ws: Workspace,
    patches: Sequence[Patch],
    pristine: Pristine | None,
    doubtful: set[str],
    landing: Landing,
) -> tuple[list[PatchState], tuple[FileCheck, ...], dict[str, frozenset[tuple[str, int]]]]:
    """One backward walk (see :func:`series_state`); the patches named in ``doubtful`` are
    judged as if no pristine reference could confirm them; ``landing`` as there.

    Returns:
        ``(states, checks, unproven)``: ``unproven`` maps each patch's name to its
        :func:`unprovable` hunks, ``(path, header line in the patch file)``, on the
        content it was judged on.
    """
    states: list[PatchState] = []
    unproven: dict[str, frozenset[tuple[str, int]]] = {}
    for index in range(len(patches) - 1, -1, -1):
        patch = patches[index]
        confirm = pristine is not None and patch.name not in doubtful
        landed = landing.get((patch.name, sha256_hex(patch.raw)), ()) if landing else ()
        unproven[patch.name] = _unprovable_hunks(ws, patch)
        before = ws.snapshot()
        state, _ = patch_state(ws, patch, confirm=confirm, landed=landed)
        if state.state == PARTIAL:
            ws.restore(before)
            if _applies_after_earlier(ws, patches[:index], patch):
                state = _not_applied(patch)
            else:
                state, _ = patch_state(ws, patch, confirm=confirm, landed=landed)
        states.append(state)
    states.reverse()
    if pristine is not None:
        states = _replayed_from_pristine(ws, patches, states, pristine, unproven)
    states = _needing_earlier(ws, patches, states)
    checks: list[FileCheck] = []
    if pristine is not None:
        for path in sorted(ws.absent_or_empty):
            ws.settle_empty(path, pristine.expected_sha256(path) == EMPTY_SHA256)
        mode_paths = _mode_changed_paths(patches)
        created = _created_paths(patches)
        for path in touched_paths(patches):
            current = ws.get(path)
            expected, actual, pristine_mode = pristine.expected_file(
                path, current.data if current is not None else None
            )
            modes = (
                _mode_drift(pristine_mode, current.mode if current is not None else None)
                if path in mode_paths
                else None
            )
            differs = actual != expected or modes is not None
            if (
                differs
                and modes is None
                and _replays_to_target(ws, patches, states, pristine, path)
            ):
                differs, actual = False, expected
            expected_mode, actual_mode = modes or (None, None)
            checks.append(
                FileCheck(
                    path,
                    differs,
                    expected,
                    actual,
                    expected_mode=expected_mode,
                    actual_mode=actual_mode,
                    created=path in created,
                )
            )
        drifted = {c.path for c in checks if c.drifted}
        states = _unconfirmed(patches, states, drifted, unproven)
    return states, tuple(checks), unproven


def _replays_to_target(
    ws: Workspace,
    patches: Sequence[Patch],
    states: Sequence[PatchState],
    pristine: Pristine,
    path: str,
) -> bool:
    """Whether applying forward, in series order, the patches that touch ``path`` (all of
    them *applied*) to the pristine file gives the target's bytes; if so, ``ws`` is given
    the pristine content of ``path`` and ``True`` returned.

    Undoing a hunk looks for its post-image from the line its header names, as GNU patch
    does; when the post-image occurs twice (``b a`` at lines 1 and 3 of ``b a b a``), the
    first place found may not be where ``apply`` put it (the pre-image ``a b`` of ``b a a
    b`` is only at line 3). The walk then leaves a file that differs from pristine though
    nothing outside the series changed it. Applying forward is how ``apply`` placed the
    hunks, so a forward replay from the pristine bytes that ends at the target's bytes
    shows the file undrifted and the pristine bytes its undone content.
    """
    original = pristine.read(path)
    current = ws.get(path)
    target = ws.original(path)
    if original is None or current is None or target is None:
        return False
    touching = [
        (patch, state) for patch, state in zip(patches, states) if path in patch.touched_paths
    ]
    if not touching or any(state.state != APPLIED for _, state in touching):
        return False
    trial = ws.fork()
    trial.set(path, FileState(original.lines, current.mode))
    for patch, _ in touching:
        if not apply_patch(trial, patch).ok:
            return False
    replayed = trial.get(path)
    if replayed is None or replayed.data != target.data:
        return False
    ws.set(path, FileState(original.lines, current.mode))
    return True


def _replayed_from_pristine(
    ws: Workspace,
    patches: Sequence[Patch],
    states: list[PatchState],
    pristine: Pristine,
    unproven: Mapping[str, frozenset[tuple[str, int]]],
) -> list[PatchState]:
    """Judge again, by applying forward from the pristine files, the patches that undoing
    left in *conflict* or *partially applied*, or on files that then differ from pristine,
    or that share files with a patch with :func:`unprovable` hunks (``unproven``, by patch
    name, as :func:`_walk` returns it), which undo wherever their lines stand.

    Undoing a hunk looks for its post-image from the line its header names, as GNU ``patch
    -R`` does; where the post-image also stands nearer than where ``apply`` put it (``b`` at
    line 1 of ``b b``, whose hunk ``-a b -a`` applied at line 2 of ``b a b a``), undoing
    meets that copy first and fails there or takes back the wrong lines; where the
    pre-image stands again in the patched file (``a a``, from ``a -a`` applied at the end of
    ``a a a``), the patch seems to apply forward rather than be applied; and on the
    untouched file the post-image may stand nearer than the pre-image (``b`` at line 1 of
    ``b a b a``), so the patch seems applied. Applying forward is how ``apply`` places the
    hunks, so the patches that share files with such a patch are judged by it, as a group.
    Applied in series order to the pristine files, the longest run of them from the first
    (none, the first, the first two...) that gives the target's bytes in every file of the
    group is applied (:func:`_applied_prefix`), the others judged on the target's files
    (:func:`_not_applied_on`); failing that, those judged applied, in conflict or partially
    applied are applied if, applied alone, they give the target's bytes. Applied hunks are
    where the replay put their post-image, and ``ws`` is given the pristine content of the
    group's files (what undoing gives, and what ``unapply`` writes). When neither holds,
    nothing changes. Without the pristine bytes (an installed distribution's ``RECORD``)
    nothing is replayed.
    """
    if pristine.tree is None:
        return states
    out = list(states)
    for group in _sharing_files(patches):
        judged = {states[index].state for index in group}
        doubtful = judged & {CONFLICT, PARTIAL} or any(
            unproven.get(patches[index].name) for index in group
        )
        if not doubtful and not _differs(ws, pristine, group, patches):
            continue
        every = [patches[index] for index in group]
        paths = touched_paths(every)
        modes = _mode_changed_paths(every)
        prefix = _applied_prefix(ws, every, pristine, paths, modes)
        if prefix is not None:
            _settle_pristine(ws, pristine, paths, modes)
            for index, outcome in zip(group, prefix):
                if states[index].state != APPLIED:
                    out[index] = PatchState(states[index].name, APPLIED, _placed_refs(outcome))
            for index in group[len(prefix) :]:
                if states[index].state in (APPLIED, PARTIAL):
                    out[index] = _not_applied_on(ws, patches[index])
            continue
        found = [index for index in group if states[index].state != NOT_APPLIED]
        outcomes = _replay(ws, [patches[index] for index in found], pristine, paths, modes)
        if outcomes is None:
            continue
        _settle_pristine(ws, pristine, paths, modes)
        for index, outcome in zip(found, outcomes):
            if states[index].state != APPLIED:
                out[index] = PatchState(states[index].name, APPLIED, _placed_refs(outcome))
    return out


def _differs(ws: Workspace, pristine: Pristine, group: list[int], patches: Sequence[Patch]) -> bool:
    """Whether a file the patches of ``group`` (indexes into ``patches``) touch has, in
    ``ws``, other bytes than pristine (or is there where pristine has none, or not)."""
    for path in touched_paths([patches[index] for index in group]):
        current, original = ws.get(path), pristine.read(path)
        if (current is None) != (original is None):
            return True
        if current is not None and original is not None and current.data != original.data:
            return True
    return False


def _sharing_files(patches: Sequence[Patch]) -> list[list[int]]:
    """The patches (their indexes, in series order) in groups that share no file with each
    other: two patches that touch one file are in one group, and so on transitively."""
    parent = list(range(len(patches)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    owner: dict[str, int] = {}
    for index, patch in enumerate(patches):
        for path in patch.touched_paths:
            first = owner.setdefault(path, index)
            parent[root(index)] = root(first)
    groups: dict[int, list[int]] = {}
    for index in range(len(patches)):
        groups.setdefault(root(index), []).append(index)
    return list(groups.values())


def _from_pristine(ws: Workspace, pristine: Pristine, paths: Sequence[str]) -> Workspace:
    """A fork of ``ws`` holding the pristine content of ``paths``."""
    trial = ws.fork()
    for path in paths:
        trial.set(path, pristine.read(path))
    return trial


def _holds_target(
    trial: Workspace, ws: Workspace, paths: Sequence[str], mode_paths: frozenset[str]
) -> bool:
    """Whether each of ``paths`` in ``trial`` has the target's bytes (the tree ``ws`` reads)
    and, in ``mode_paths`` (the files whose mode a patch changes), its executable bit."""
    for path in paths:
        replayed, target = trial.get(path), ws.original(path)
        if (replayed is None) != (target is None):
            return False
        if replayed is None or target is None:
            continue
        if replayed.data != target.data:
            return False
        if path in mode_paths and _mode_drift(replayed.mode, target.mode) is not None:
            return False
    return True


def _forward_replay(
    ws: Workspace,
    patches: Sequence[Patch],
    pristine: Pristine,
    paths: Sequence[str],
    mode_paths: frozenset[str],
) -> tuple[list[PatchOutcome], list[bool]]:
    """Apply ``patches`` forward, in order, to the pristine content of ``paths`` (the files
    they touch, or more), as ``apply`` places their hunks.

    Returns:
        ``(outcomes, holds)``: the outcomes of the patches applied, in order, up to the first
        that does not apply (every one's when each applies); ``holds[k]`` tells whether,
        after the first ``k`` of them (``holds[0]``: none), the files hold the target's bytes
        (:func:`_holds_target`), so ``len(holds) == len(outcomes) + 1``.
    """
    trial = _from_pristine(ws, pristine, paths)
    holds = [_holds_target(trial, ws, paths, mode_paths)]
    outcomes: list[PatchOutcome] = []
    for patch in patches:
        outcome = apply_patch(trial, patch)
        if not outcome.ok:
            break
        outcomes.append(outcome)
        holds.append(_holds_target(trial, ws, paths, mode_paths))
    return outcomes, holds


def _applied_prefix(
    ws: Workspace,
    patches: Sequence[Patch],
    pristine: Pristine,
    paths: Sequence[str],
    mode_paths: frozenset[str],
) -> list[PatchOutcome] | None:
    """The run of ``patches`` from the first (none, one, two...) that, applied forward in
    order to the pristine content of ``paths`` (:func:`_forward_replay`), leaves the target's
    bytes there: its outcomes; ``None`` when no run does.

    None of them, when the target's files are the pristine ones and every patch applies to
    them: a tree the series was never applied to (a later patch that takes back what an
    earlier one adds gives the pristine bytes again, and is not applied either); when a
    patch does not apply there, ``None`` (a series that does not fit its pristine files is
    in conflict). Else the longest run: a patch that changes no byte where it applies (it
    takes a line out and puts it back) is applied as much as not.
    """
    outcomes, holds = _forward_replay(ws, patches, pristine, paths, mode_paths)
    if holds[0]:
        return [] if len(outcomes) == len(patches) else None
    runs = [count for count in range(1, len(holds)) if holds[count]]
    return outcomes[: runs[-1]] if runs else None


def _not_applied_on(ws: Workspace, patch: Patch) -> PatchState:
    """``patch``, which a forward replay shows not applied, judged on the target's files:
    *not applied* where it applies to them, else in *conflict*, every hunk missing."""
    trial = ws.fork()
    for path in patch.touched_paths:
        trial.set(path, ws.original(path))
    forward = apply_patch(trial, patch, commit=False)
    if forward.ok:
        return PatchState(patch.name, NOT_APPLIED, (), _placed_refs(forward, landed=False))
    state = _not_applied(patch)
    return _conflict(patch.name, state.missing_hunks, trial, forward)


def _replay(
    ws: Workspace,
    patches: Sequence[Patch],
    pristine: Pristine,
    paths: Sequence[str],
    mode_paths: frozenset[str],
) -> list[PatchOutcome] | None:
    """Apply ``patches`` forward, in order, to the pristine content of ``paths``
    (:func:`_forward_replay`); their outcomes when each applies and the files then hold the
    target's bytes, else ``None``."""
    outcomes, holds = _forward_replay(ws, patches, pristine, paths, mode_paths)
    return outcomes if len(outcomes) == len(patches) and holds[-1] else None


def _settle_pristine(
    ws: Workspace, pristine: Pristine, paths: Sequence[str], mode_paths: frozenset[str]
) -> None:
    """Give ``ws`` the pristine content of ``paths``: what undoing the applied patches gives
    (the target's own mode outside ``mode_paths``, the files whose mode a patch changes)."""
    for path in paths:
        original, target = pristine.read(path), ws.original(path)
        kept = target.mode if target is not None and path not in mode_paths else None
        undone = None
        if original is not None:
            undone = FileState(original.lines, kept if kept is not None else original.mode)
        ws.set(path, undone)
        ws.absent_or_empty.discard(path)


def _placed_refs(outcome: PatchOutcome, landed: bool = True) -> tuple[HunkRef, ...]:
    """The hunks of a patch applied forward, each with the line where its post-image starts
    in the file its file diff left (``landed``), else where its pre-image was found."""
    return tuple(
        HunkRef(
            file_outcome.path,
            placement.hunk.index,
            placement.hunk.header,
            line,
            placement.hunk.line_no,
        )
        for file_outcome in outcome.files
        for placement, line in zip(
            file_outcome.placements,
            landed_lines(file_outcome.placements)
            if landed
            else [p.line for p in file_outcome.placements],
        )
    )


def git_mode(mode: int) -> str:
    """The git mode of a regular file with permission bits ``mode``: executable or not.

    >>> git_mode(0o664), git_mode(0o750)
    ('100644', '100755')
    """
    return "100755" if mode & 0o111 else "100644"


def _created_paths(patches: Sequence[Patch]) -> frozenset[str]:
    """The paths the series creates: the first diff of the series that touches each is a
    creation (``--- /dev/null``) or a rename or copy to it."""
    first: dict[str, bool] = {}
    for patch in patches:
        for diff in patch.files:
            for path in (diff.old_path, diff.new_path):
                if path is not None:
                    made = path == diff.new_path and diff.old_path != diff.new_path
                    first.setdefault(path, made)
    return frozenset(path for path, creation in first.items() if creation)


def _mode_changed_paths(patches: Sequence[Patch]) -> frozenset[str]:
    """The paths whose mode a patch of the series changes (``old mode``/``new mode``): only
    there is the mode the series' business. Elsewhere an executable bit that differs from the
    pristine tree's is left alone, as a copy or an installer may not keep it."""
    return frozenset(
        path
        for patch in patches
        for diff in patch.files
        if diff.old_mode is not None
        and diff.new_mode is not None
        and diff.old_mode != diff.new_mode
        for path in (diff.old_path, diff.new_path)
        if path is not None
    )


def _mode_drift(pristine: int | None, actual: int | None) -> tuple[str, str] | None:
    """``(pristine mode, mode after undoing)`` as git modes when the two differ in being
    executable (the only bit a patch carries), else ``None``; ``None`` too when either is
    unknown (a ``RECORD`` reference has no modes) or absent."""
    if pristine is None or actual is None:
        return None
    want, got = git_mode(pristine), git_mode(actual)
    return (want, got) if want != got else None


#: The sha256 of no bytes: an empty file.
EMPTY_SHA256 = sha256_hex(b"")


def _unconfirmed(
    patches: Sequence[Patch],
    states: list[PatchState],
    drifted: set[str],
    unproven: dict[str, frozenset[tuple[str, int]]],
) -> list[PatchState]:
    """Take back *applied* from a patch whose :func:`unprovable` hunks (``unproven``, by
    patch name) were undone on a file that then differs from pristine: nothing showed
    those hunks applied (a conflict)."""
    out = list(states)
    for index, (patch, state) in enumerate(zip(patches, states)):
        if state.state != APPLIED:
            continue
        doubtful = [
            HunkRef(diff.path, hunk.index, hunk.header, patch_line=hunk.line_no)
            for diff in patch.files
            for hunk in diff.hunks
            if (diff.path, hunk.line_no) in unproven[patch.name] and diff.path in drifted
        ]
        if doubtful:
            keys = {ref.patch_line for ref in doubtful}
            kept = tuple(r for r in state.applied_hunks if r.patch_line not in keys)
            out[index] = PatchState(state.name, CONFLICT, kept, tuple(doubtful))
    return out
