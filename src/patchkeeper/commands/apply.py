"""``apply`` and ``unapply``: the whole series onto a target, or off it, atomically.

``apply`` changes nothing unless every hunk of every patch applies at fuzz 0 (offsets are
reported); applying an applied series says so and changes nothing; a partly applied target is
reported, not patched further. ``unapply`` undoes the series last patch first and checks the
result against the pristine reference before writing. On an installed distribution, files
the series creates are added to ``RECORD`` and ``patchkeeper.json`` records what was applied.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from patchkeeper.commands.common import overlay_files, pin_mismatch
from patchkeeper.config import Config
from patchkeeper.errors import TargetError
from patchkeeper.progress import warn
from patchkeeper.series.engine import FileState, Workspace, apply_series, touched_paths
from patchkeeper.series.load import load_series
from patchkeeper.series.model import Patch
from patchkeeper.series.parse import sha256_hex
from patchkeeper.trees.results import (
    ALREADY_APPLIED,
    ALREADY_PRISTINE,
    APPLIED,
    DRIFTED,
    FAILED,
    PARTIAL,
    UNAPPLIED,
    ApplyResult,
    HunkOffset,
)
from patchkeeper.trees.transaction import (
    Change,
    Recovery,
    commit,
    invalidate_bytecode,
    locked,
    recover,
)
from patchkeeper.trees.tree import (
    INSTALLED,
    Pristine,
    Tree,
    check_paths,
    pristine_for,
    record_pristine,
    target_tree,
)

if TYPE_CHECKING:  # the series' state is worked out only when the target is not pristine
    from patchkeeper.trees.applied import SeriesState


def _offsets(outcomes: list) -> tuple[HunkOffset, ...]:
    return tuple(
        HunkOffset(o.patch.name, f.path, p.hunk.index, p.line, p.offset)
        for o in outcomes
        for f in o.files
        for p in f.placements
        if p.offset
    )


def _record_changes(
    tree: Tree, patches: list[Patch], changes: dict[str, FileState | None], ws: Workspace
) -> list[Change]:
    """RECORD and patchkeeper.json updates for an apply on an installed distribution."""
    from patchkeeper.trees.installed import (
        AppliedRecord,
        RecordEntry,
        add_record_rows,
        read_record,
        read_record_bytes,
        without_record_rows,
    )

    dist = tree.dist
    assert dist is not None
    known = {entry.path for entry in read_record(dist)}
    added: list[RecordEntry] = []
    files: dict[str, tuple[str | None, str | None]] = {}
    created: list[str] = []
    for path, state in changes.items():
        key = dist.record_key(tree.path_of(path))
        before = ws.original(path)
        files[key] = (
            sha256_hex(before.data) if before else None,
            sha256_hex(state.data) if state else None,
        )
        if before is None and state is not None and key not in known:
            created.append(key)
            added.append(RecordEntry(key, sha256_hex(state.data), len(state.data)))
    record = AppliedRecord(
        series=tuple((p.name, sha256_hex(p.raw)) for p in patches),
        files=files,
        created=tuple(created),
        directory=tree.base.relative_to(dist.site).as_posix().strip("."),
    )
    data = record.to_bytes()
    record_key = dist.record_key(dist.applied_record_path)
    added.append(RecordEntry(record_key, sha256_hex(data), len(data)))
    rows = without_record_rows(read_record_bytes(dist), {record_key})
    return [
        Change(dist.applied_record_path, data),
        Change(dist.record_path, add_record_rows(rows, added)),
    ]


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


def _file_changes(
    tree: Tree, changes: dict[str, FileState | None], ws: Workspace | None = None
) -> list[Change]:
    """The writes for ``changes``; with ``ws`` (read under the lock), each change carries the
    file's bytes from before, so the journal does not read them again."""
    out = []
    for path, state in sorted(changes.items()):
        before = ws.original(path) if ws is not None else None
        original = (before.data, before.mode) if before and before.mode is not None else None
        data, mode = (state.data, state.mode) if state else (None, None)
        out.append(Change(tree.path_of(path), data, mode, original))
    return out


def _put_overlays(ws: Workspace, overlays: dict[str, bytes]) -> None:
    for path, data in overlays.items():
        current = ws.get(path)
        mode = current.mode if current is not None and current.mode is not None else 0o644
        ws.set(path, FileState.from_bytes(data, mode))


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


def _write(tree: Tree, file_changes: list[Change], extra: list[Change]) -> None:
    commit(file_changes + extra, tree.journal_dir, prune_root=tree.base, root=tree.root)
    invalidate_bytecode([change.path for change in file_changes])


def _pristine_untouched(ws: Workspace, paths: list[str], pristine: Pristine | None) -> bool:
    if pristine is None:
        return False
    return all(pristine.matches(path, ws.get(path)) for path in paths)


def _classify(
    ws: Workspace,
    patches: list[Patch],
    tree: Tree,
    pristine: Pristine | None,
    names: tuple[str, ...],
    recovery: Recovery | None,
) -> ApplyResult | None:
    """Why the target cannot take the series (already applied, partly, drifted), or ``None``."""
    from patchkeeper.trees.applied import series_state

    state = series_state(ws.fork(), patches, pristine)
    if state.all_applied and not state.drifted:
        return ApplyResult(
            "apply",
            tree.label,
            ALREADY_APPLIED,
            names,
            state=state,
            recovery=recovery,
            note="nothing was changed",
        )
    if any(p.state in ("applied", "partially applied") for p in state.patches):
        return ApplyResult(
            "apply",
            tree.label,
            PARTIAL,
            names,
            state=state,
            recovery=recovery,
            note="nothing was changed; run 'patchkeeper status' for details, "
            "then 'patchkeeper unapply' or restore the upstream",
        )
    if state.drifted:
        return ApplyResult(
            "apply",
            tree.label,
            DRIFTED,
            names,
            state=state,
            recovery=recovery,
            note="files changed outside the series; nothing was changed",
        )
    return None


def run(config: Config, *, target: Path | None = None, python: Path | None = None) -> ApplyResult:
    """Apply the configured series to the target (``--target DIR`` or an installed upstream).

    Raises:
        PatchFormatError: the series or a patch is malformed.
        TargetError: a patch path escapes the target, or the target is read-only.
        LockError: another process holds the target.
    """
    _, patches = load_series(config)
    names = tuple(p.name for p in patches)
    tree = target_tree(config, target, python)
    check_paths(tree, patches)
    pin_note = pin_mismatch(config, tree)
    if pin_note:
        warn(pin_note)
    with locked(tree.state_dir, config.lock_timeout, tree.label):
        recovery = recover(tree.journal_dir, tree.root)
        ws = Workspace(tree.reader())
        pristine = record_pristine(tree)[0] if tree.kind == INSTALLED else None
        overlays = overlay_files(config, tree)
        if pristine is not None and not _pristine_untouched(ws, touched_paths(patches), pristine):
            early = _classify(ws, patches, tree, pristine, names, recovery)
            if early is not None:
                return _refresh_overlays(tree, early, overlays)
        outcomes = apply_series(ws, patches)
        if outcomes and not outcomes[-1].ok:
            early = _classify(Workspace(tree.reader()), patches, tree, pristine, names, recovery)
            if early is not None:
                return _refresh_overlays(tree, early, overlays)
            from patchkeeper.series.hunk_evidence import failure_evidence

            failed = outcomes[-1]
            return ApplyResult(
                "apply",
                tree.label,
                FAILED,
                names,
                offsets=_offsets(outcomes),
                failed_patch=failed.patch.name,
                failures=failure_evidence(failed),
                recovery=recovery,
                note="nothing was changed",
            )
        _put_overlays(ws, overlays)
        changes = ws.changes()
        extra = _record_changes(tree, patches, changes, ws) if tree.kind == INSTALLED else []
        _write(tree, _file_changes(tree, changes, ws), extra)
    return ApplyResult(
        "apply",
        tree.label,
        APPLIED,
        names,
        tuple(sorted(changes)),
        _offsets(outcomes),
        recovery=recovery,
    )


def _refresh_overlays(tree: Tree, result: ApplyResult, overlays: dict[str, bytes]) -> ApplyResult:
    """On an already applied series, bring overlay files that differ up to date."""
    if result.outcome != ALREADY_APPLIED or not overlays:
        return result
    ws = Workspace(tree.reader())
    _put_overlays(ws, overlays)
    changes = ws.changes()
    if not changes:
        return result
    _write(tree, _file_changes(tree, changes), [])
    return replace(
        result,
        changed=tuple(sorted(changes)),
        note="the series was already applied; overlay files were brought up to date",
    )


def run_unapply(
    config: Config,
    *,
    target: Path | None = None,
    python: Path | None = None,
    pristine: str | None = None,
    force: bool = False,
) -> ApplyResult:
    """Undo the configured series on the target, checked against the pristine reference.

    A target whose touched files drifted (undoing the series would not give the pristine
    files) is refused, naming them; with ``force`` the series is undone anyway and the
    drifted files' bytes from before are first copied to a backup directory
    (:func:`backup_files`), named in the result. A series only some of whose patches are
    applied is undone for those patches when every patch is whole and a pristine reference
    checks the result (:func:`_whole_patches`); a patch partly applied or in conflict is
    refused by name.

    Raises:
        as :func:`run`, and FetchError when the pristine reference must be downloaded.
    """
    _, patches = load_series(config)
    names = tuple(p.name for p in patches)
    tree = target_tree(config, target, python)
    check_paths(tree, patches)
    # RECORD is read under the lock, after any roll-back (see verify.run).
    from_record = tree.kind == INSTALLED and pristine is None
    reference = None if from_record else pristine_for(config, tree, pristine)
    with locked(tree.state_dir, config.lock_timeout, tree.label):
        recovery = recover(tree.journal_dir, tree.root)
        if from_record:
            reference = record_pristine(tree)[0]
        from patchkeeper.trees.applied import series_state

        ws = Workspace(tree.reader())
        state = series_state(ws, patches, reference)
        if state.none_applied and not state.drifted:
            return ApplyResult(
                "unapply",
                tree.label,
                ALREADY_PRISTINE,
                names,
                state=state,
                recovery=recovery,
                note="nothing was changed",
            )
        whole = _whole_patches(state, reference)
        if whole is None:
            return ApplyResult(
                "unapply",
                tree.label,
                PARTIAL,
                names,
                state=state,
                recovery=recovery,
                note=_partial_refusal(state, reference),
            )
        drifted = [check.path for check in state.drifted]
        if drifted and not force:
            return ApplyResult(
                "unapply",
                tree.label,
                DRIFTED,
                names,
                state=state,
                recovery=recovery,
                note=_drift_refusal(drifted),
            )
        overlays = overlay_files(config, tree)
        edited = _edited_overlays(ws, overlays)
        if edited:
            return ApplyResult(
                "unapply",
                tree.label,
                DRIFTED,
                names,
                state=state,
                recovery=recovery,
                note="overlay files were edited in the target; undoing the series would lose "
                "the edits; nothing was changed",
                edited_overlays=edited,
            )
        _remove_overlays(ws, overlays, reference, tree)
        changes = ws.changes()
        extra = _unrecord_changes(tree) if tree.kind == INSTALLED else []
        backup = backup_files(tree, drifted, config.root) if drifted else None
        try:
            _write(tree, _file_changes(tree, changes), extra)
        except BaseException:
            if backup is not None:
                import shutil

                shutil.rmtree(backup, ignore_errors=True)
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


def _whole_patches(state: SeriesState, reference: Pristine | None) -> tuple[str, ...] | None:
    """The names of the applied patches when ``unapply`` can undo exactly those: every patch
    of the series is whole (applied or not applied, none partially or in conflict); a series
    only some of whose patches are applied (one in the middle undone by hand) needs the
    pristine reference, which checks that undoing the applied ones gives the pristine files.
    ``None`` when it cannot."""
    from patchkeeper.trees.applied import APPLIED as APPLIED_STATE
    from patchkeeper.trees.applied import NOT_APPLIED

    if state.all_applied:
        return tuple(p.name for p in state.patches)
    if reference is None or any(p.state not in (APPLIED_STATE, NOT_APPLIED) for p in state.patches):
        return None
    return tuple(p.name for p in state.patches if p.state == APPLIED_STATE)


def _partial_refusal(state: SeriesState, reference: Pristine | None) -> str:
    from patchkeeper.trees.applied import CONFLICT
    from patchkeeper.trees.applied import PARTIAL as PARTIAL_STATE

    broken = [p.name for p in state.patches if p.state in (PARTIAL_STATE, CONFLICT)]
    if broken:
        return (
            f"nothing was changed: {', '.join(broken)} is neither applied nor undone (see "
            "'patchkeeper status'); undo its applied hunks by hand, or reinstall the upstream"
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


#: Where ``unapply --force`` keeps drifted files, under the downstream root.
BACKUP_DIR = ".patchkeeper/backup"


def backup_files(tree: Tree, paths: list[str], root: Path) -> Path:
    """Copy the target's files at ``paths`` (patch paths; an absent one is skipped) to a new
    directory ``ROOT/.patchkeeper/backup/unapply-<UTC time>[-N]/<patch path>``, modes kept.

    Returns:
        The backup directory (absolute).

    Raises:
        TargetError: the backup cannot be written (nothing is left behind).
    """
    import shutil

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    parent = (root / BACKUP_DIR).resolve()
    backup = parent / f"unapply-{stamp}"
    number = 1
    while backup.exists():
        number += 1
        backup = parent / f"unapply-{stamp}-{number}"
    try:
        backup.mkdir(parents=True)
        for path in paths:
            source = tree.path_of(path)
            if source.is_file():
                dest = backup / path
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, dest)
    except OSError as exc:
        shutil.rmtree(backup, ignore_errors=True)
        raise TargetError(
            f"cannot keep the drifted files in {backup}: {exc.strerror}",
            path=backup,
            hint="make the directory writable, or restore the drifted files and unapply "
            "without --force",
        ) from None
    return backup
