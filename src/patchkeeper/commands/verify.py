"""``verify`` and ``status``: which patches are applied, and did anything else change.

Both walk the series backwards on an in-memory copy (see :mod:`patchkeeper.applied`) and
compare what is left with the pristine reference: ``RECORD`` hashes for an installed
distribution, ``--pristine DIR|REQUIREMENT``, or the configured pin. Exit 0 only when every
patch is applied and nothing drifted. ``status`` also works without a pristine reference and
shows every hunk; ``verify`` requires one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from patchkeeper.applied import FileCheck, SeriesState, series_state
from patchkeeper.commands.common import check_paths, load_series, overlay_files
from patchkeeper.config import Config
from patchkeeper.engine import Workspace, touched_paths
from patchkeeper.errors import ConfigError, FetchError
from patchkeeper.installed import AppliedRecord
from patchkeeper.parse import sha256_hex
from patchkeeper.transaction import Recovery, locked, recover
from patchkeeper.trees import INSTALLED, pristine_for, record_pristine, target_tree
from patchkeeper.untouched import untouched_drift


@dataclass(frozen=True)
class OverlayCheck:
    """One overlay file (``[tool.patchkeeper.entries]``) compared with the target.

    Attributes:
        path: the patch-root-relative path.
        state: ``"ok"``, ``"missing"`` or ``"differs"``.
    """

    path: str
    state: str


def check_overlays(ws: Workspace, overlays: dict[str, bytes]) -> tuple[OverlayCheck, ...]:
    """Compare each overlay file's bytes with the target's."""
    out = []
    for path, data in sorted(overlays.items()):
        current = ws.get(path)
        state = "missing" if current is None else "ok" if current.data == data else "differs"
        out.append(OverlayCheck(path, state))
    return tuple(out)


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
    ignored: tuple[str, ...] = ()

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


def _record_mismatch(record: AppliedRecord | None, names_hashes: list[tuple[str, str]]) -> str:
    if record is None:
        return ""
    recorded = list(record.series)
    if recorded == names_hashes:
        return ""
    recorded_names = [name for name, _ in recorded]
    current_names = [name for name, _ in names_hashes]
    if recorded_names != current_names:
        return (
            "patchkeeper.json records the series "
            + ", ".join(recorded_names)
            + "; the series file now lists "
            + ", ".join(current_names)
        )
    changed = [n for (n, h), (_, h2) in zip(recorded, names_hashes) if h != h2]
    return "these patch files changed since they were applied: " + ", ".join(changed)


def run(
    config: Config,
    *,
    target: Path | None = None,
    python: Path | None = None,
    pristine: str | None = None,
    detailed: bool = False,
) -> VerifyResult:
    """Compute the state of the configured series on the target.

    Raises:
        ConfigError: ``verify`` on a directory with no pristine reference.
        PatchFormatError, TargetError, FetchError, LockError: as their names say.
    """
    _, patches = load_series(config)
    tree = target_tree(config, target, python)
    check_paths(tree, patches)
    # An installed tree's RECORD is read under the lock, after any roll-back: a killed run
    # may have left RECORD and patchkeeper.json half-changed.
    from_record = tree.kind == INSTALLED and pristine is None
    unavailable = ""
    try:
        reference = None if from_record else pristine_for(config, tree, pristine)
    except FetchError as exc:
        if not detailed or pristine is not None:
            raise
        reference, unavailable = None, exc.message
    if reference is None and not from_record and not detailed:
        raise ConfigError(
            "verify needs a pristine reference for a directory target",
            hint="pass --pristine DIR|REQUIREMENT, or configure upstream and pin",
        )
    with locked(tree.state_dir, config.lock_timeout, tree.label):
        recovery = recover(tree.journal_dir, tree.root)
        if from_record:
            reference = record_pristine(tree)[0]
        ws = Workspace(tree.reader())
        overlay_paths = overlay_files(config, tree)
        overlays = check_overlays(ws, overlay_paths)
        state = series_state(ws, patches, reference)
        untouched: tuple[FileCheck, ...] = ()
        ignored: tuple[str, ...] = ()
        if reference is not None:
            skip = set(touched_paths(patches)) | set(overlay_paths)
            untouched, ignored = untouched_drift(tree, reference, skip, config.ignore)
        mismatch = ""
        if tree.kind == INSTALLED and tree.dist is not None:
            record = AppliedRecord.load(tree.dist.applied_record_path)
            mismatch = _record_mismatch(record, [(p.name, sha256_hex(p.raw)) for p in patches])
    return VerifyResult(
        "status" if detailed else "verify",
        tree.label,
        state,
        mismatch,
        recovery,
        detailed,
        overlays,
        unavailable,
        untouched,
        ignored,
    )
