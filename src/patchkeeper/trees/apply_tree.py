"""Applying a series to a tree, atomically: every file written or none.

The series changes nothing unless every hunk of every patch applies at fuzz 0 (offsets are
reported); an applied series is reported as such (its overlay files brought up to date); a
partly applied or drifted target is reported, not patched further. On an installed
distribution, files the series creates are added to ``RECORD`` and ``patchkeeper.json``
records what was applied. The writes (:func:`file_changes`, :func:`write_changes`) are shared
with undoing the series (``trees/unapply_tree.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from patchkeeper.series.engine import (
    FileState,
    PatchOutcome,
    Workspace,
    apply_series,
    touched_paths,
)
from patchkeeper.series.model import Patch
from patchkeeper.series.parse import sha256_hex
from patchkeeper.trees.results import (
    ALREADY_APPLIED,
    APPLIED,
    DRIFTED,
    FAILED,
    PARTIAL,
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
from patchkeeper.trees.tree import INSTALLED, Pristine, Tree, applied_landing, record_pristine


def apply_to_tree(
    tree: Tree,
    patches: list[Patch],
    overlays: Callable[[], dict[str, bytes]],
    lock_timeout: float,
) -> ApplyResult:
    """Apply ``patches`` (the series, in order) to ``tree``, then copy the overlay files in.

    ``overlays`` is called once, under the lock, after any interrupted transaction was rolled
    back; it returns patch path -> the bytes to put there. ``lock_timeout`` is in seconds.
    The paths of ``patches`` must have been checked against ``tree`` already
    (:func:`patchkeeper.trees.tree.check_paths`).

    Returns:
        An ``apply`` result whose outcome is ``applied`` (``changed``: the patch paths
        written), ``already applied``, ``partially applied``, ``drifted`` or ``failed``
        (the failing patch and its hunks' evidence); nothing is written unless ``applied``,
        or ``already applied`` with overlay files brought up to date.

    Raises:
        LockError: another process holds the target.
        TargetError: the target cannot be written.
    """
    names = tuple(p.name for p in patches)
    with locked(tree.state_dir, lock_timeout, tree.label):
        recovery = recover(tree.journal_dir, tree.root)
        ws = Workspace(tree.reader())
        pristine = record_pristine(tree)[0] if tree.kind == INSTALLED else None
        files = overlays()
        if pristine is not None and not _pristine_untouched(ws, touched_paths(patches), pristine):
            early = _classify(ws, patches, tree, pristine, names, recovery)
            if early is not None:
                return _refresh_overlays(tree, early, files)
        outcomes = apply_series(ws, patches)
        if outcomes and not outcomes[-1].ok:
            early = _classify(Workspace(tree.reader()), patches, tree, pristine, names, recovery)
            if early is not None:
                return _refresh_overlays(tree, early, files)
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
        put_overlays(ws, files)
        changes = ws.changes()
        extra = _record_changes(tree, outcomes, changes, ws) if tree.kind == INSTALLED else []
        write_changes(tree, file_changes(tree, changes, ws), extra)
    return ApplyResult(
        "apply",
        tree.label,
        APPLIED,
        names,
        tuple(sorted(changes)),
        _offsets(outcomes),
        recovery=recovery,
    )


def _offsets(outcomes: list[PatchOutcome]) -> tuple[HunkOffset, ...]:
    return tuple(
        HunkOffset(o.patch.name, f.path, p.hunk.index, p.line, p.offset)
        for o in outcomes
        for f in o.files
        for p in f.placements
        if p.offset
    )


def _record_changes(
    tree: Tree,
    outcomes: list[PatchOutcome],
    changes: dict[str, FileState | None],
    ws: Workspace,
) -> list[Change]:
    """RECORD and patchkeeper.json updates for an apply on an installed distribution:
    ``outcomes`` are the series' patches as they applied, each hunk's landing line kept in
    the manifest (``RECORD`` has hashes, not content, to undo them by)."""
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
        series=tuple((o.patch.name, sha256_hex(o.patch.raw)) for o in outcomes),
        files=files,
        created=tuple(created),
        directory=tree.base.relative_to(dist.site).as_posix().strip("."),
        landed=tuple(outcome.landed for outcome in outcomes),
    )
    data = record.to_bytes()
    record_key = dist.record_key(dist.applied_record_path)
    added.append(RecordEntry(record_key, sha256_hex(data), len(data)))
    rows = without_record_rows(read_record_bytes(dist), {record_key})
    return [
        Change(dist.applied_record_path, data),
        Change(dist.record_path, add_record_rows(rows, added)),
    ]


def file_changes(
    tree: Tree, changes: dict[str, FileState | None], ws: Workspace | None = None
) -> list[Change]:
    """The journal's writes for ``changes`` (patch path -> new state, ``None``: delete), in
    path order; with ``ws`` (read under the lock), each change carries the file's bytes and
    mode from before, so the journal does not read them again."""
    out = []
    for path, state in sorted(changes.items()):
        before = ws.original(path) if ws is not None else None
        original = (before.data, before.mode) if before and before.mode is not None else None
        data, mode = (state.data, state.mode) if state else (None, None)
        out.append(Change(tree.path_of(path), data, mode, original))
    return out


def write_changes(tree: Tree, file_changes: list[Change], extra: list[Change]) -> None:
    """Commit ``file_changes`` (the target's files) and ``extra`` (``RECORD``,
    ``patchkeeper.json``) in one journaled transaction, then drop the stale bytecode of the
    target's files. The caller holds the tree's lock.

    Raises:
        TargetError: a file cannot be written (every file is rolled back first).
    """
    commit(file_changes + extra, tree.journal_dir, prune_root=tree.base, root=tree.root)
    invalidate_bytecode([change.path for change in file_changes])


def put_overlays(ws: Workspace, overlays: dict[str, bytes]) -> None:
    """Set each overlay file (patch path -> bytes) in ``ws``, keeping the mode of the file it
    replaces (``0o644`` for a new one)."""
    for path, data in overlays.items():
        current = ws.get(path)
        mode = current.mode if current is not None and current.mode is not None else 0o644
        ws.set(path, FileState.from_bytes(data, mode))


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

    state = series_state(ws.fork(), patches, pristine, applied_landing(tree))

    def refused(outcome: str, note: str) -> ApplyResult:
        """Nothing applied: the series' ``state`` with the ``outcome`` and ``note``."""
        return ApplyResult(
            "apply", tree.label, outcome, names, state=state, recovery=recovery, note=note
        )

    if state.all_applied and not state.drifted:
        return refused(ALREADY_APPLIED, "nothing was changed")
    if any(p.state in ("applied", "partially applied") for p in state.patches):
        return refused(
            PARTIAL,
            "nothing was changed; run 'patchkeeper status' for details, "
            "then 'patchkeeper unapply' or restore the upstream",
        )
    if state.drifted:
        return refused(DRIFTED, "files changed outside the series; nothing was changed")
    return None


def _refresh_overlays(tree: Tree, result: ApplyResult, overlays: dict[str, bytes]) -> ApplyResult:
    """On an already applied series, bring overlay files that differ up to date."""
    if result.outcome != ALREADY_APPLIED or not overlays:
        return result
    ws = Workspace(tree.reader())
    put_overlays(ws, overlays)
    changes = ws.changes()
    if not changes:
        return result
    write_changes(tree, file_changes(tree, changes), [])
    return replace(
        result,
        changed=tuple(sorted(changes)),
        note="the series was already applied; overlay files were brought up to date",
    )
