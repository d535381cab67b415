"""Undoing a series on a tree, last patch first, checked against the pristine reference.

A target whose touched files drifted is refused, naming them, unless forced (the drifted
files' bytes are then kept in a backup first, ``trees/backup.py``); a series only some of
whose patches are applied is undone for those when every patch is whole and a pristine
reference checks the result; overlay files are put back as the pristine reference has them.
On an installed distribution, ``RECORD`` and ``patchkeeper.json`` are restored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from patchkeeper.errors import TargetError
from patchkeeper.series.engine import Workspace
from patchkeeper.series.model import Patch
from patchkeeper.trees.apply_tree import file_changes, write_changes
from patchkeeper.trees.backup import backup_files
from patchkeeper.trees.results import (
    ALREADY_PRISTINE,
    DRIFTED,
    NO_PATCHES,
    PARTIAL,
    UNAPPLIED,
    ApplyResult,
)
from patchkeeper.trees.transaction import Change, locked, recover
from patchkeeper.trees.tree import (
    INSTALLED,
    Pristine,
    TargetChoice,
    Tree,
    applied_landing,
    record_pristine,
)

if TYPE_CHECKING:
    from patchkeeper.trees.applied import SeriesState


@dataclass(frozen=True, kw_only=True)
class UnapplyRequest(TargetChoice):
    """What ``unapply`` is asked to do; each field is the option of the same parameter name,
    so the command builds it from click's parsed parameters; the tree as
    :class:`~patchkeeper.trees.tree.TargetChoice` says.

    Attributes:
        pristine: the pristine upstream (``--pristine``): a directory or a requirement;
            default ``None``, the installed distribution's ``RECORD``, else the configured
            pin.
        force: undo the series even where files drifted, keeping their bytes in a backup
            first (``--force``); default ``False``, a drifted target is refused.
    """

    pristine: str | None = None
    force: bool = False


def unapply_from_tree(
    tree: Tree,
    patches: list[Patch],
    reference: Pristine | None,
    overlays: Callable[[], dict[str, bytes]],
    *,
    lock_timeout: float,
    backup_root: Path,
    force: bool = False,
    from_record: bool = False,
    pin_note: str = "",
) -> ApplyResult:
    """Undo ``patches`` (the series, in order) on ``tree``, checked against ``reference``.

    ``reference`` is the pristine upstream (``None``: none is available, the result is
    unchecked); with ``from_record`` it is instead read from the installed distribution's
    ``RECORD`` under the lock, after any interrupted transaction was rolled back.
    ``overlays`` is called once, under the lock, only when the series can be undone; it
    returns patch path -> the overlay's bytes. Drifted files are refused unless ``force``,
    which first copies them to a new directory under ``backup_root/.patchkeeper/backup/``
    (:func:`patchkeeper.trees.backup.backup_files`), named in the result.
    ``lock_timeout`` is in seconds. ``pin_note``: the installed release is not the pin
    (:func:`patchkeeper.trees.pin.pin_mismatch`, warned before), else ``""``; a refusal
    then says that (:data:`PIN_REFUSAL`), not how to undo hunks of a tree that is not the
    pin's.

    Returns:
        An ``unapply`` result whose outcome is ``unapplied`` (``patches``: the names undone;
        ``changed``: the patch paths written), ``already pristine``, ``partially applied``
        (a patch partly applied or in conflict, or only some applied and no reference),
        ``drifted`` (files or overlay files changed outside the series) or ``no patches``
        (the series lists none: there is nothing to undo, and the tree is not compared with
        the reference, so the result does not call it pristine); nothing is written unless
        ``unapplied``.

    Raises:
        LockError: another process holds the target.
        TargetError: the target or the backup cannot be written, or an overlay replaced an
            upstream file whose pristine bytes are unknown.
    """
    names = tuple(p.name for p in patches)
    with locked(tree.state_dir, lock_timeout, tree.label):
        recovery = recover(tree.journal_dir, tree.root)
        if not patches:
            return ApplyResult(
                "unapply",
                tree.label,
                NO_PATCHES,
                names,
                recovery=recovery,
                note=NOTHING_TO_UNAPPLY,
            )
        if from_record:
            reference = record_pristine(tree)[0]
        from patchkeeper.trees.applied import series_state

        ws = Workspace(tree.reader())
        state = series_state(ws, patches, reference, applied_landing(tree))

        def refused(outcome: str, note: str, edited: tuple[str, ...] = ()) -> ApplyResult:
            """Nothing undone: the series' ``state`` with the ``outcome`` and ``note``."""
            return ApplyResult(
                "unapply",
                tree.label,
                outcome,
                names,
                state=state,
                recovery=recovery,
                note=note,
                edited_overlays=edited,
            )

        # On another release than the pin a file the series changes may be gone from it:
        # the pin refusal below says so better than "does not apply".
        unfit = _unfit_on_pristine(state, reference, missing_files=not pin_note)
        if (state.none_applied or unfit) and not state.drifted:
            note = "nothing was changed"
            if unfit:
                # one patch or several: the verb and pronoun follow the count
                verb, their = ("does", "its") if len(unfit) == 1 else ("do", "their")
                note += (
                    f"; {', '.join(unfit)} {verb} not apply to this tree either (none of "
                    f"{their} hunks is there, and they do not fit: see 'patchkeeper status')"
                )
            return refused(ALREADY_PRISTINE, note)
        whole = _whole_patches(state, reference)
        if whole is None:
            if pin_note:
                return refused(PARTIAL, PIN_REFUSAL)
            edited_since = _changed_since_apply(tree, ws, state)
            return refused(PARTIAL, _partial_refusal(state, reference, tree, edited_since))
        drifted = [check.path for check in state.drifted]
        if drifted and not force:
            return refused(DRIFTED, _drift_refusal(drifted))
        files = overlays()
        edited = _edited_overlays(ws, files)
        if edited:
            return refused(
                DRIFTED,
                "overlay files were edited in the target; undoing the series would lose the "
                "edits; nothing was changed",
                edited,
            )
        _remove_overlays(ws, files, reference, tree)
        changes = ws.changes()
        extra = _unrecord_changes(tree) if tree.kind == INSTALLED else []
        backup = backup_files(tree, drifted, backup_root) if drifted else None
        try:
            write_changes(tree, file_changes(tree, changes), extra)
        except BaseException:
            if backup is not None:
                from patchkeeper.system.removal import remove_tree

                remove_tree(backup, ignore_errors=True)
            raise
    note = "" if reference else "no pristine reference was available: the result is unchecked"
    if len(whole) < len(names):
        left = [name for name in names if name not in whole]
        note = (
            f"not applied, so left as they were: {', '.join(left)}; the target is pristine "
            "again (checked against the pristine reference)"
        )
    if backup is not None:
        note = (
            f"the series was undone anyway (--force); these files still differ from pristine: "
            f"{', '.join(drifted)}; their bytes from before are saved in {backup}"
        )
    return ApplyResult(
        "unapply",
        tree.label,
        UNAPPLIED,
        whole,
        tuple(sorted(changes)),
        recovery=recovery,
        note=note,
        backup=str(backup) if backup is not None else "",
    )


NOTHING_TO_UNAPPLY = "nothing was changed; 'patchkeeper verify' says whether the tree is pristine"
"""The note of ``unapply`` on a series that lists no patches: an empty series undone says
nothing of the tree, which may differ from pristine outside any series; ``verify`` compares it."""


def _unrecord_changes(tree: Tree) -> list[Change]:
    """RECORD and patchkeeper.json updates for an unapply on an installed distribution."""
    from patchkeeper.trees.installed import AppliedRecord, read_record_bytes, without_record_rows

    dist = tree.dist
    assert dist is not None
    applied = AppliedRecord.load(dist.applied_record_path)
    if applied is None:
        return []
    drop = set(applied.created) | {dist.record_key(dist.applied_record_path)}
    return [
        Change(dist.applied_record_path, None),
        Change(dist.record_path, without_record_rows(read_record_bytes(dist), drop)),
    ]


def _remove_overlays(
    ws: Workspace, overlays: dict[str, bytes], pristine: Pristine | None, tree: Tree
) -> None:
    """Put back what the overlays replaced: nothing where pristine has no file, else its bytes.

    Raises:
        TargetError: an overlay replaced an upstream file whose pristine bytes are unknown
            (an installed distribution's ``RECORD`` has only hashes).
    """
    for path in overlays:
        if pristine is None or pristine.expected_sha256(path) is None:
            ws.set(path, None)
            continue
        original = pristine.read(path)
        if original is None:
            raise TargetError(
                f"the overlay file {path} replaced an upstream file whose pristine bytes are "
                "unknown here",
                path=tree.path_of(path),
                hint="pass --pristine DIR|REQUIREMENT, or reinstall the upstream",
            )
        ws.set(path, original)


def _edited_overlays(ws: Workspace, overlays: dict[str, bytes]) -> tuple[str, ...]:
    """The overlay files the target holds with other bytes than the overlay's: drift, as an
    edited patched file is (an overlay file the target lacks is not: nothing would be lost)."""
    edited = []
    for path, data in sorted(overlays.items()):
        current = ws.original(path)
        if current is not None and current.data != data:
            edited.append(path)
    return tuple(edited)


def _whole_patches(state: SeriesState, reference: Pristine | None) -> tuple[str, ...] | None:
    """The names of the applied patches when ``unapply`` can undo exactly those: every patch
    of the series is whole (applied or not applied, none partially or in conflict); a series
    only some of whose patches are applied (one in the middle undone by hand) needs the
    pristine reference, which checks that undoing the applied ones gives the pristine files.
    ``None`` when it cannot."""
    from patchkeeper.trees.applied import APPLIED as APPLIED_STATE
    from patchkeeper.trees.applied import EMPTY, NOT_APPLIED

    if state.all_applied:
        return tuple(p.name for p in state.patches)
    whole = (APPLIED_STATE, NOT_APPLIED, EMPTY)
    if reference is None or any(p.state not in whole for p in state.patches):
        return None
    return tuple(p.name for p in state.patches if p.state == APPLIED_STATE)


#: The refusal on an installed release that is not the pin (the warning before it says which
#: and what to do): its patches cannot be undone hunk by hand back to a pin it never was.
PIN_REFUSAL = (
    "nothing was changed: the target's release is not the pin (see the warning), so the "
    "series was never applied to it as cut; follow the warning's to do, not the states above"
)


def _unfit_on_pristine(
    state: SeriesState, reference: Pristine | None, missing_files: bool = True
) -> list[str]:
    """The patches in conflict on a tree that is the pristine reference's (none applied,
    every touched file as pristine): a series that does not apply to its own pin, whose
    patches have nothing to undo; ``[]`` when any patch has a hunk applied, or there is no
    reference to show the files are pristine. With ``missing_files``, a patch whose only
    other problem is a file that neither the tree nor the reference has (a series of the
    sdist's root, with its tests, on an installed wheel) has nothing to undo either."""
    from patchkeeper.series.hunk_evidence import MISSING_FILE
    from patchkeeper.trees.applied import CONFLICT, EMPTY, NOT_APPLIED

    if reference is None or not state.files:
        return []
    unfit = []
    for patch in state.patches:
        # why hunks fail (line endings) is no file problem: the patch still does not fit
        problems = patch.file_problems
        gone = missing_files and all(p.endswith(f": {MISSING_FILE}") for p in problems)
        if patch.state == CONFLICT and not patch.applied_hunks and (gone or not problems):
            unfit.append(patch.name)
        elif patch.state not in (NOT_APPLIED, EMPTY):
            return []
    return unfit


def _changed_since_apply(tree: Tree, ws: Workspace, state: SeriesState) -> list[str]:
    """The files the series touches whose bytes on an installed distribution are not the
    ones ``apply`` left there (``patchkeeper.json`` holds their sha256): edited since, by
    hand or by another tool. ``[]`` for a directory target, or without the manifest."""
    if tree.kind != INSTALLED or tree.dist is None:
        return []
    from patchkeeper.series.parse import sha256_hex
    from patchkeeper.trees.installed import AppliedRecord

    applied = AppliedRecord.load(tree.dist.applied_record_path)
    if applied is None:
        return []
    changed = []
    for check in state.files:
        recorded = applied.files.get(tree.dist.record_key(tree.path_of(check.path)))
        if recorded is None:
            continue
        current = ws.original(check.path)
        if (sha256_hex(current.data) if current is not None else None) != recorded[1]:
            changed.append(check.path)
    return changed


def _partial_refusal(
    state: SeriesState, reference: Pristine | None, tree: Tree, edited: list[str]
) -> str:
    from patchkeeper.trees.applied import CONFLICT
    from patchkeeper.trees.applied import PARTIAL as PARTIAL_STATE

    broken = [p.name for p in state.patches if p.state in (PARTIAL_STATE, CONFLICT)]
    are = "is" if len(broken) == 1 else "are"
    if broken and edited and tree.dist is not None:
        dist = tree.dist
        return (
            f"nothing was changed: {', '.join(edited)} changed since the series was applied "
            f"(not the sha256 {dist.dist_info.name}/patchkeeper.json recorded), so "
            f"{', '.join(broken)} {are} neither applied nor undone; put back the bytes the "
            f"series left, or reinstall the upstream ('{dist.python} -m pip install "
            f"--force-reinstall --no-deps {dist.name}=={dist.version}') and apply the series "
            "again"
        )
    if broken:
        its = "its" if len(broken) == 1 else "their"
        return (
            f"nothing was changed: {', '.join(broken)} {are} neither applied nor undone (see "
            f"'patchkeeper status'); undo {its} applied hunks by hand, or reinstall the upstream"
        )
    return (
        "nothing was changed: only some patches are applied, and without a pristine reference "
        "undoing them cannot be checked; give --pristine (a directory or NAME==PIN), or "
        "reinstall the upstream"
    )


def _drift_refusal(drifted: list[str]) -> str:
    return (
        "undoing the series would not give the pristine files; nothing was changed\n"
        f"changed outside the series: {', '.join(drifted)}\n"
        "restore them from the upstream, or run 'patchkeeper unapply --force' to undo the "
        "series anyway (their current bytes are kept in a backup directory first)"
    )
