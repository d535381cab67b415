"""Apply and reverse whole patches and series on an in-memory view of a tree.

A :class:`Workspace` reads files from a tree on first use and keeps every change in memory, so
a series can be applied, reversed or judged without touching the disk; only
``transaction.py`` writes, and only once everything succeeded (docs/architecture.md: exact or
nothing). A patch changes the workspace only if all of its file diffs apply.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from patchkeeper.series.hunks import (
    FilePatchResult,
    HunkFailure,
    Placement,
    landed_lines,
    patch_data,
    patch_lines,
)
from patchkeeper.series.model import FileDiff, Hunk, Patch
from patchkeeper.series.parse import split_lines

#: Problems a whole file can have (as opposed to a hunk): the file a diff modifies is
#: missing, a file it creates already exists, a file it deletes is not what it expects.
MISSING = "missing"
EXISTS = "exists"
NOT_EMPTY = "not-empty"
#: The file's executable bit is not the one a mode change (``old mode``/``new mode``) expects.
MODE = "mode"
#: git's ``index`` line says the file is empty before the diff (``e69de29``); it is not.
NOT_EMPTY_BEFORE = "not-empty-before"


class FileState:
    """A file's content and mode in the workspace (immutable by convention: nothing sets an
    attribute after construction).

    The content is kept as it came, lines or one ``bytes``, and the other form is made on
    first use: applying a series reads and writes many files whose lines a hunk found in
    the bytes never needs (:func:`patchkeeper.series.hunks.patch_data`). Two states are
    equal when their bytes and modes are.

    Args:
        lines: the content, split by :func:`patchkeeper.series.parse.split_lines` (each
            line keeps its ``\\n``), or ``None`` when ``raw`` is given.
        mode: the permission bits (``0o644``), or ``None`` when unknown.
        raw: the content as one ``bytes``, when the state is made from it.
    """

    __slots__ = ("_lines", "_raw", "_starts", "mode")

    def __init__(
        self,
        lines: tuple[bytes, ...] | None = (),
        mode: int | None = None,
        raw: bytes | None = None,
    ) -> None:
        self._lines = lines if raw is None or lines else None
        self.mode = mode
        self._raw = raw
        self._starts: list[int] | None = None

    @property
    def lines(self) -> tuple[bytes, ...]:
        """The content as lines (split on first use)."""
        lines = self._lines
        if lines is None:
            lines = self._lines = tuple(split_lines(self._raw or b""))
        return lines

    @property
    def data(self) -> bytes:
        """The content as one ``bytes`` (joined on first use)."""
        raw = self._raw
        if raw is None:
            raw = self._raw = b"".join(self._lines or ())
        return raw

    @property
    def line_starts(self) -> list[int]:
        """The offset in :attr:`data` at which each line starts, and its length last (made on
        first use): for finding the line a byte offset lies in with :func:`bisect.bisect_right`.

        >>> FileState((b"ab\\n", b"\\n", b"c")).line_starts
        [0, 3, 4, 5]
        """
        starts = self._starts
        if starts is None:
            starts = self._starts = list(accumulate(map(len, self.lines), initial=0))
        return starts

    @property
    def empty(self) -> bool:
        """Whether the content is empty (no line, no byte)."""
        return not self._raw if self._raw is not None else not self._lines

    @property
    def split(self) -> bool:
        """Whether the lines are at hand (no split needed to read them)."""
        return self._lines is not None

    @property
    def raw(self) -> bytes | None:
        """The content as one ``bytes`` when it is at hand, else ``None``."""
        return self._raw

    @classmethod
    def from_bytes(cls, data: bytes, mode: int | None = None) -> FileState:
        return cls(None, mode, data)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FileState):
            return NotImplemented
        if self.mode != other.mode:
            return False
        if self._lines is not None and other._lines is not None:
            return self._lines == other._lines
        return self.data == other.data

    def __hash__(self) -> int:
        return hash((self.data, self.mode))

    def __repr__(self) -> str:
        return f"FileState(<{len(self.data)} bytes>, mode={self.mode!r})"

    def __getstate__(self) -> tuple[bytes, int | None]:
        return self.data, self.mode

    def __setstate__(self, state: tuple[bytes, int | None]) -> None:
        self._lines, self._raw, self._starts = None, state[0], None
        self.mode = state[1]


Reader = Callable[[str], "FileState | None"]
#: What :meth:`Workspace.begin` remembers for a path that had no pending change.
_UNSET = object()


class Workspace:
    """A copy-on-write view of the files of one tree.

    Args:
        reader: ``reader(path) -> FileState | None`` reads a file (``None`` if absent), with
            ``path`` relative to the patch root, POSIX style.
    """

    def __init__(self, reader: Reader) -> None:
        self._reader = reader
        self._base: dict[str, FileState | None] = {}
        self._current: dict[str, FileState | None] = {}
        #: Paths that undoing a diff with an empty old side (``@@ -0,0 +1,N @@`` under
        #: ordinary names) left absent: before the diff the file was absent *or* empty, and
        #: only a pristine reference tells which (see :meth:`settle_empty`).
        self.absent_or_empty: set[str] = set()
        self._undo: dict[str, object] | None = None
        self._absent_before: frozenset[str] = frozenset()

    def original(self, path: str) -> FileState | None:
        """The file as the tree has it."""
        if path not in self._base:
            self._base[path] = self._reader(path)
        return self._base[path]

    def get(self, path: str) -> FileState | None:
        """The file as the workspace has it now."""
        if path in self._current:
            return self._current[path]
        return self.original(path)

    def set(self, path: str, state: FileState | None) -> None:
        undo = self._undo
        if undo is not None and path not in undo:
            undo[path] = self._current.get(path, _UNSET)
        self._current[path] = state

    def begin(self) -> None:
        """Start remembering what :meth:`set` replaces, for :meth:`roll_back` (cheaper than a
        :meth:`snapshot` of every pending change, which a long series makes large)."""
        self._undo = {}
        self._absent_before = frozenset(self.absent_or_empty)

    def roll_back(self) -> None:
        """Undo every :meth:`set` since :meth:`begin`; stop remembering."""
        for path, state in (self._undo or {}).items():
            if state is _UNSET:
                del self._current[path]
            else:
                self._current[path] = state  # type: ignore[assignment]
        self.absent_or_empty = set(self._absent_before)
        self._undo = None

    def end(self) -> None:
        """Keep every :meth:`set` since :meth:`begin`; stop remembering."""
        self._undo = None

    def changes(self) -> dict[str, FileState | None]:
        """Every path whose content or mode differs from the tree: path -> new state."""
        out: dict[str, FileState | None] = {}
        for path, state in self._current.items():
            before = self.original(path)
            if state is None and before is None:
                continue
            if state is not None and before is not None and state == before:
                continue
            out[path] = state
        return out

    def snapshot(self) -> tuple[dict[str, FileState | None], frozenset[str]]:
        return dict(self._current), frozenset(self.absent_or_empty)

    def restore(self, snapshot: tuple[dict[str, FileState | None], frozenset[str]]) -> None:
        self._current = dict(snapshot[0])
        self.absent_or_empty = set(snapshot[1])

    def settle_empty(self, path: str, empty: bool) -> None:
        """Decide a path of :attr:`absent_or_empty`: an empty file (``empty``, with the mode
        the tree's file has) or no file."""
        if path not in self.absent_or_empty:
            return
        self.absent_or_empty.discard(path)
        if empty and self.get(path) is None:
            before = self.original(path)
            self.set(path, FileState((), before.mode if before is not None else None))

    def fork(self) -> Workspace:
        """A new workspace on the same tree with the same pending changes."""
        other = Workspace(self._reader)
        other._base = self._base
        other._current = dict(self._current)
        other.absent_or_empty = set(self.absent_or_empty)
        return other


@dataclass(frozen=True)
class FileOutcome:
    """What happened to one file diff.

    Attributes:
        diff: the file diff.
        path: the path it was applied to (the new path for a rename when reversing).
        problem: ``None``, or :data:`MISSING`, :data:`EXISTS`, :data:`NOT_EMPTY`.
        placements: where hunks applied.
        failures: the hunks that did not.
    """

    diff: FileDiff
    path: str
    problem: str | None = None
    placements: tuple[Placement, ...] = ()
    failures: tuple[HunkFailure, ...] = ()

    @property
    def ok(self) -> bool:
        return self.problem is None and not self.failures


@dataclass(frozen=True)
class PatchOutcome:
    """What happened when one patch was applied (or reversed) to a workspace.

    Attributes:
        patch: the patch.
        reverse: whether it was being undone.
        files: one outcome per file diff, in order.
    """

    patch: Patch
    reverse: bool
    files: tuple[FileOutcome, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return all(outcome.ok for outcome in self.files)

    @property
    def placements(self) -> tuple[Placement, ...]:
        return tuple(p for outcome in self.files for p in outcome.placements)

    @property
    def failures(self) -> tuple[tuple[FileOutcome, HunkFailure], ...]:
        return tuple((o, f) for o in self.files for f in o.failures)

    @property
    def max_offset(self) -> int:
        return max((abs(p.offset) for p in self.placements), default=0)

    @property
    def landed(self) -> tuple[tuple[int, ...], ...]:
        """For a patch applied forward: by file diff in patch order, the 1-based line where
        each hunk's post-image starts in the file that diff leaves (what undoing the hunk
        looks for: ``apply_patch(..., landed=...)``).

        (:func:`patchkeeper.series.hunks.landed_lines` of each file diff's placements.)
        """
        return tuple(landed_lines(outcome.placements) for outcome in self.files)


def _mode_int(mode: str | None) -> int | None:
    return int(mode[-3:], 8) if mode else None


def _mode_mismatch(diff: FileDiff, state: FileState | None, reverse: bool) -> bool:
    """Whether a mode change meets a file whose executable bit is not the one it changes
    from (git: "has type 100644, expected 100755"): changing it anyway would make undoing it
    give a wrong mode."""
    if diff.old_mode is None or diff.new_mode is None or diff.old_mode == diff.new_mode:
        return False
    if state is None or state.mode is None:
        return False
    expected = _mode_int(diff.new_mode if reverse else diff.old_mode)
    assert expected is not None
    return bool(expected & 0o111) != bool(state.mode & 0o111)


def _patched(
    state: FileState | None,
    hunks: Sequence[Hunk],
    reverse: bool,
    at: Sequence[int | None] = (),
) -> FilePatchResult:
    """The hunks applied to the state: on its bytes when its lines are not at hand and
    :func:`patch_data` can (``result.data``), else on its lines (``result.lines``); ``at``:
    where each hunk's pattern is known to stand (:func:`patch_lines`), which the bytes'
    search does not take."""
    if state is not None and not state.split and state.raw and not any(at):
        fast = patch_data(state.raw, hunks, reverse=reverse)
        if fast is not None:
            return fast
    lines: Sequence[bytes] = state.lines if state is not None else ()
    return patch_lines(lines, hunks, reverse=reverse, at=at)


def _empty(result: FilePatchResult) -> bool:
    return not result.data if result.data is not None else not result.lines


def _state(result: FilePatchResult, mode: int | None) -> FileState:
    if result.data is not None:
        return FileState(None, mode, result.data)
    return FileState(tuple(result.lines or ()), mode)


def _may_be_absent(diff: FileDiff, reverse: bool) -> bool:
    """True when the diff says its source is empty, so a missing file reads as an empty one.

    GNU patch (pch.c, ``intuit_diff_type``): a first hunk whose source range starts at line 0
    (``@@ -0,0 +1,3 @@``) marks the old file "existent and probably empty"; a missing file
    is then patched as if empty, i.e. created. ``diff -u`` of an empty file writes such a
    diff with ordinary ``a/``/``b/`` names instead of ``/dev/null``.
    """
    if not diff.hunks:
        return False
    first = diff.hunks[0]
    return (first.new_start if reverse else first.old_start) == 0


@dataclass(frozen=True)
class _Renames:
    """The renames of one patch, in the direction it is applied: a rename whose source is
    another rename's destination (a criss-cross, ``git diff -M -B`` after swapping files)
    reads its source from :attr:`start`, and a rename whose destination is another rename's
    source does not remove that source. git reads a rename's pre-image from the tree as the
    patch found it, whatever the other renames write (apply.c, ``previous_patch``), while a
    file diff that is not a rename reads the path as the diffs before it in the patch left it
    (``A->B``, ``C->A``, then ``A`` modified: the hunks apply to what was ``C``).

    Attributes:
        start: the workspace as the patch found it, kept up to date with the writes of the
            diffs that are not renames (undoing a patch undoes those first), or ``None``
            when no rename of the patch crosses another.
        sources, destinations: the renames' paths in the direction applied.
    """

    start: Workspace | None = None
    sources: frozenset[str] = frozenset()
    destinations: frozenset[str] = frozenset()


_NO_RENAMES = _Renames()


def _renames(ws: Workspace, patch: Patch, reverse: bool) -> _Renames:
    if len(patch.files) < 2:  # a criss-cross takes two renames
        return _NO_RENAMES
    pairs = [
        (d.new_path, d.old_path) if reverse else (d.old_path, d.new_path)
        for d in patch.files
        if d.is_rename
    ]
    sources = frozenset(str(source) for source, _ in pairs)
    destinations = frozenset(str(dest) for _, dest in pairs)
    if not sources & destinations:
        return _Renames()
    return _Renames(ws.fork(), sources, destinations)


def _apply_file(
    ws: Workspace,
    diff: FileDiff,
    reverse: bool,
    renames: _Renames | None = None,
    at: Sequence[int | None] = (),
) -> tuple[FileOutcome, dict[str, FileState | None]]:
    """Apply one file diff; return its outcome and the workspace writes it implies; ``at``:
    where each hunk's pattern is known to stand (:func:`patch_lines`)."""
    renames = renames or _NO_RENAMES
    source = diff.new_path if reverse else diff.old_path
    dest = diff.old_path if reverse else diff.new_path
    # A mode is written only when the diff changes it or creates the file: an ``index`` line's
    # mode (``index 1a2b..3c4d 100644``) leaves the file's own mode alone, as git apply does.
    changes_mode = diff.old_mode != diff.new_mode or source is None
    new_mode = _mode_int(diff.old_mode if reverse else diff.new_mode) if changes_mode else None
    writes: dict[str, FileState | None] = {}
    path = dest if dest is not None else source
    assert path is not None
    if source is None:  # creation
        existing = ws.get(dest)  # type: ignore[arg-type]
        if existing is not None and not existing.empty:
            return FileOutcome(diff, path, EXISTS), writes
        result = _patched(None, diff.hunks, reverse)
    else:
        crossed = renames.start is not None and diff.is_rename and source in renames.destinations
        existing = renames.start.get(source) if crossed else ws.get(source)  # type: ignore[union-attr]
        if existing is None and not _may_be_absent(diff, reverse):
            return FileOutcome(diff, source, MISSING), writes
        if _mode_mismatch(diff, existing, reverse):
            return FileOutcome(diff, source, MODE), writes
        if (
            existing is not None
            and not existing.empty
            and (diff.new_empty if reverse else diff.old_empty)
        ):
            return FileOutcome(diff, source, NOT_EMPTY_BEFORE), writes
        result = _patched(existing, diff.hunks, reverse, at)
        vacated = dest in renames.sources
        if dest is not None and dest != source and ws.get(dest) is not None and not vacated:
            return FileOutcome(diff, dest, EXISTS, result.placements, result.failures), writes
    if not result.ok:
        return FileOutcome(diff, path, None, result.placements, result.failures), writes
    assert result.lines is not None or result.data is not None
    if dest is None:  # deletion: the hunks must have emptied the file
        if not _empty(result):
            return FileOutcome(diff, path, NOT_EMPTY, result.placements), writes
        writes[source] = None  # type: ignore[index]
        if reverse and diff.is_creation:
            # GNU patch creates over an existing empty file: undoing the creation leaves
            # an empty file when the pristine reference has one (Workspace.settle_empty).
            ws.absent_or_empty.add(source)  # type: ignore[arg-type]
        return FileOutcome(diff, path, None, result.placements), writes
    mode = new_mode
    if mode is None and source is not None:
        before = ws.get(source)
        mode = before.mode if before is not None else None
    if reverse and _empty(result) and _may_be_absent(diff, False) and source == dest:
        # Undoing ``@@ -0,0 +1,N @@`` under ordinary names: GNU patch created the file from
        # nothing (or filled an empty one); undoing it removes the file, unless a pristine
        # reference says an empty file was there (Workspace.settle_empty).
        writes[dest] = None
        ws.absent_or_empty.add(dest)  # undone by apply_patch's restore if the patch fails
        return FileOutcome(diff, path, None, result.placements), writes
    writes[dest] = _state(result, mode)
    if source is not None and source != dest and source not in renames.destinations:
        writes[source] = None
    return FileOutcome(diff, path, None, result.placements), writes


def apply_patch(
    ws: Workspace,
    patch: Patch,
    *,
    reverse: bool = False,
    commit: bool = True,
    landed: Sequence[Sequence[int]] = (),
) -> PatchOutcome:
    """Apply (or undo) ``patch`` on ``ws``; change ``ws`` only if every file diff applies.

    File diffs are applied in order (in reverse order when undoing), each seeing the result
    of the ones before it, so a patch that touches one file twice works both ways.

    Args:
        ws: the workspace.
        patch: the patch.
        reverse: undo the patch instead.
        commit: when false, leave ``ws`` unchanged even on success (a dry run).
        landed: when undoing, where applying the patch put each hunk's post-image
            (:attr:`PatchOutcome.landed` of that application): a hunk whose post-image
            stands there is undone there, any other is searched for; ignored unless it has
            one entry per file diff and each entry one line per hunk.
    """
    ws.begin()
    indexed = list(enumerate(patch.files))
    diffs = reversed(indexed) if reverse else indexed
    renames = _renames(ws, patch, reverse)
    known = _known_lines(patch, landed) if reverse else None
    outcomes = []
    ok = True
    for index, diff in diffs:
        at = known[index] if known is not None else ()
        outcome, writes = _apply_file(ws, diff, reverse, renames, at)
        outcomes.append(outcome)
        if not outcome.ok:
            ok = False
            continue
        for path, state in writes.items():
            ws.set(path, state)
            if state is not None:
                ws.absent_or_empty.discard(path)
            if renames.start is not None and not diff.is_rename:
                renames.start.set(path, state)
    if reverse:
        outcomes.reverse()
    if not ok or not commit:
        ws.roll_back()
    else:
        ws.end()
    return PatchOutcome(patch, reverse, tuple(outcomes))


def _known_lines(patch: Patch, landed: Sequence[Sequence[int]]) -> tuple[Sequence[int], ...] | None:
    """``landed`` when it has the shape of ``patch`` (one entry per file diff, one line per
    hunk of it), else ``None``: lines recorded for another patch are not used."""
    if len(landed) != len(patch.files):
        return None
    if any(len(lines) != len(diff.hunks) for lines, diff in zip(landed, patch.files)):
        return None
    return tuple(landed)


def apply_series(ws: Workspace, patches: Iterable[Patch]) -> list[PatchOutcome]:
    """Apply patches in order; stop at the first that fails (its outcome is the last)."""
    outcomes = []
    for patch in patches:
        outcome = apply_patch(ws, patch)
        outcomes.append(outcome)
        if not outcome.ok:
            break
    return outcomes


def touched_paths(patches: Iterable[Patch]) -> list[str]:
    """Every path any of the patches reads or writes, in first-seen order."""
    seen: dict[str, None] = {}
    for patch in patches:
        for path in patch.touched_paths:
            seen.setdefault(path, None)
    return list(seen)
