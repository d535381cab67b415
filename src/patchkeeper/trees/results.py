"""The results of the series commands on a target: ``apply``/``unapply``, ``verify``/``status``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from patchkeeper.constants import WordEnum
from patchkeeper.jsonable import FILE_NAME
from patchkeeper.trees.transaction import Recovery

if TYPE_CHECKING:  # failure evidence and series states are imported where they are made
    from patchkeeper.series.hunk_evidence import FileFailure
    from patchkeeper.trees.applied import FileCheck, SeriesState


class Outcome(WordEnum):
    """What ``apply`` or ``unapply`` did to the target."""

    APPLIED = "applied"  # every patch applied (the word of PatchStatus.APPLIED)
    UNAPPLIED = "unapplied"  # every patch reversed
    ALREADY_APPLIED = "already applied"  # nothing to do
    ALREADY_PRISTINE = "already pristine"  # nothing to do
    PARTIAL = "partially applied"  # some patches applied: not patched further (PatchStatus's)
    FAILED = "failed"  # a hunk does not apply at fuzz 0: nothing written
    DRIFTED = "drifted"  # the tree differs from pristine outside the series
    NO_PATCHES = "no patches"  # unapply of a series that lists none: the tree is not judged


APPLIED = Outcome.APPLIED
UNAPPLIED = Outcome.UNAPPLIED
ALREADY_APPLIED = Outcome.ALREADY_APPLIED
ALREADY_PRISTINE = Outcome.ALREADY_PRISTINE
PARTIAL = Outcome.PARTIAL
FAILED = Outcome.FAILED
DRIFTED = Outcome.DRIFTED
NO_PATCHES = Outcome.NO_PATCHES


@dataclass(frozen=True)
class HunkOffset:
    """A hunk that applied away from its header's line."""

    patch: str = field(metadata=FILE_NAME)
    path: str
    index: int
    line: int
    offset: int


@dataclass(frozen=True)
class ApplyResult:
    """The outcome of ``apply`` or ``unapply``.

    Attributes:
        action: ``"apply"`` or ``"unapply"``.
        target: the target's description.
        outcome: :data:`APPLIED`, :data:`UNAPPLIED`, :data:`ALREADY_APPLIED`,
            :data:`ALREADY_PRISTINE`, :data:`PARTIAL`, :data:`FAILED`, :data:`DRIFTED` or
            :data:`NO_PATCHES`.
        patches: the series names, in order.
        changed: the files written or removed (patch paths), sorted.
        offsets: hunks that applied at an offset.
        failed_patch: the first patch that does not apply, for :data:`FAILED`.
        failures: its failing files and hunks, with the closest match.
        state: the per-patch state, for :data:`PARTIAL` and :data:`DRIFTED`.
        recovery: a journal of an interrupted run rolled back first, if any.
        note: one more sentence for the user, or ``""``.
        edited_overlays: overlay files whose bytes in the target differ from the overlay's
            (edited there), for :data:`DRIFTED` on ``unapply``: they are never removed.
        backup: for ``unapply --force`` over drifted files, the directory holding their
            bytes from before the unapply (their patch paths under it), else ``""``.
        empty: the series' patches that hold no diff (zero bytes, or only a header), in
            order: no-ops, applied and undone as quilt does ("appears to be empty").
    """

    action: str
    target: str
    outcome: str
    patches: tuple[str, ...] = field(metadata=FILE_NAME)
    changed: tuple[str, ...] = ()
    offsets: tuple[HunkOffset, ...] = ()
    failed_patch: str | None = field(default=None, metadata=FILE_NAME)
    failures: tuple[FileFailure, ...] = ()
    state: SeriesState | None = None
    recovery: Recovery | None = None
    note: str = ""
    edited_overlays: tuple[str, ...] = ()
    backup: str = ""
    empty: tuple[str, ...] = field(default=(), metadata=FILE_NAME)

    @property
    def exit_code(self) -> int:
        ok = (APPLIED, UNAPPLIED, ALREADY_APPLIED, ALREADY_PRISTINE, NO_PATCHES)
        return 0 if self.outcome in ok else 1


@dataclass(frozen=True)
class OverlayCheck:
    """One overlay file (``[tool.patchkeeper.entries]``) compared with the target.

    Attributes:
        path: the patch-root-relative path.
        state: ``"ok"``, ``"missing"`` or ``"differs"``.
    """

    path: str
    state: str


@dataclass(frozen=True)
class VerifyResult:
    """The state of the series on a target.

    Attributes:
        command: ``"verify"`` or ``"status"``.
        target: the target's description.
        state: per patch and per file.
        record_mismatch: for an installed distribution, how ``patchkeeper.json`` disagrees
            with the current series (``""`` when it agrees or there is none).
        recovery: a journal rolled back first, if any.
        detailed: show every hunk (``status``).
        overlays: the overlay files compared with the target.
        pristine_unavailable: why the default pristine reference could not be had (``status``
            goes on without it), or ``""``.
        untouched: files the series does not touch that differ from pristine (changed,
            added, missing): changes made outside the series.
        ignored: paths the configuration's ``ignore`` patterns left out of that comparison
            (build and test leftovers), in either tree; an ignored directory once, ``dir/``.
        pin_mismatch: for an installed distribution, or a directory that declares its
            version, whose version is not the configured pin, the warning that says so (both
            versions), else ``""``.
        layout_hint: when none of the files the first patch reads is in the directory
            target, where they are if that is one place nearby
            (:func:`patchkeeper.trees.layout_hint.layout_hint`), else ``""``.
    """

    command: str
    target: str
    state: SeriesState
    record_mismatch: str = ""
    recovery: Recovery | None = None
    detailed: bool = False
    overlays: tuple[OverlayCheck, ...] = ()
    pristine_unavailable: str = ""
    untouched: tuple[FileCheck, ...] = ()
    ignored: tuple[str, ...] = field(default=(), metadata=FILE_NAME)
    pin_mismatch: str = ""
    layout_hint: str = ""

    @property
    def ok(self) -> bool:
        overlays_ok = all(check.state == "ok" for check in self.overlays)
        return (
            self.state.all_applied
            and not self.state.drifted
            and not self.record_mismatch
            and overlays_ok
            and not self.untouched
        )

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1
